"""The released games load exactly, and the optimum is right on every one of them."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from mase.envs.deliberation import games, scoring

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data" / "deliberation"
ALL = [g for name in games.RELEASED for g in games.released(name)]


def test_the_released_sets_have_the_papers_sizes():
    sizes = {name: len(games.released(name)) for name in games.RELEASED}
    assert sizes == {"menu": 60, "menu_level3": 30, "allocation": 100, "allocation_demo": 2}
    assert len(ALL) == 192


@pytest.mark.skipif(not SHARED.exists(), reason="shared/data/deliberation is not beside the repo")
def test_every_packaged_game_equals_the_converted_file():
    files = sorted(SHARED.glob("*/*/*/game_*.json"))
    assert len(files) == 192
    for f in files:
        game_id = str(f.relative_to(SHARED))[: -len(".json")]
        assert games.released_raw(game_id) == json.loads(f.read_text(encoding="utf-8")), game_id


@pytest.mark.skipif(not SHARED.exists(), reason="shared/data/deliberation is not beside the repo")
def test_load_reads_a_folder_or_a_file_in_the_authors_format():
    folder = SHARED / games.RELEASED["allocation_demo"]
    loaded = games.load(folder)
    assert [g.id for g in loaded] == [g.id for g in games.released("allocation_demo")]
    one = games.load(folder / "game_0001.json")
    assert len(one) == 1 and one[0].tasks == loaded[1].tasks


def test_load_says_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="no games at"):
        games.load(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="no game_"):
        games.load(tmp_path)
    with pytest.raises(ValueError, match="unknown released set"):
        games.released("menus")
    (tmp_path / "game_0000.json").write_text('{"colour": "red"}')
    with pytest.raises(ValueError, match="not a deliberation game"):
        games.load(tmp_path)


def test_the_optimum_equals_the_authors_stored_optimum_in_all_192_games():
    for game in ALL:
        best = scoring.optimum(game)
        assert best.value == pytest.approx(game.max_reward, abs=1e-6), game.id
        # the decision found is feasible and earns the optimum by the reward function itself
        if game.kind == "menu":
            assert scoring.menu_reward(game, best.decision) == pytest.approx(best.value)
            assert scoring.menu_reward(game, game.best) == pytest.approx(best.value)
        else:
            assert scoring.allocation_fits(game, best.decision)
            authors = {game.tasks.index(t): a for t, a in game.best.items()}
            assert scoring.allocation_reward(game, authors) == pytest.approx(best.value, abs=1e-5)


def brute_force(game):
    """The best value over every decision, by enumeration."""
    if game.kind == "menu":
        n = len(game.dishes)
        return max(
            scoring.menu_reward(game, [i for i in range(n) if mask >> i & 1])
            for mask in range(2**n)
        )
    n_agents, n_tasks = game.values.shape
    best = 0.0
    for owners in itertools.product(range(n_agents + 1), repeat=n_tasks):
        assignment = {t: o - 1 for t, o in enumerate(owners) if o}
        best = max(best, scoring.allocation_reward(game, assignment))
    return best


def shrink(game, keep):
    """``game`` cut to its first ``keep`` dishes (or tasks), for enumeration."""
    from dataclasses import replace

    if game.kind == "menu":
        return replace(
            game,
            dishes=game.dishes[:keep],
            recipes=game.recipes[:keep],
            guest_values=game.guest_values[:, :keep],
        )
    n_agents, n_tasks = game.values.shape
    keep = min(keep, n_tasks)
    a, s = game.constraints
    cols = [k * n_tasks + t for k in range(n_agents) for t in range(keep)]
    return replace(
        game,
        tasks=game.tasks[:keep],
        values=game.values[:, :keep],
        costs=tuple(row[:keep] for row in game.costs),
        constraints=(a[:, cols], s),
    )


@pytest.mark.parametrize("name", ["menu", "menu_level3", "allocation", "allocation_demo"])
def test_the_optimum_equals_brute_force_on_small_instances(name):
    keep = 12 if name.startswith("menu") else 6
    for game in games.released(name)[:8]:
        small = shrink(game, keep)
        assert scoring.optimum(small).value == pytest.approx(brute_force(small), abs=1e-9)


def test_views_of_the_stock_sum_to_the_truth():
    for game in games.released("menu") + games.released("menu_level3"):
        for j, ingredient in enumerate(game.ingredients):
            held = sum(share.get(ingredient, 0) for share in game.shares)
            assert held == game.stock[j], (game.id, ingredient)
    for game in games.released("allocation"):
        for r, total in game.public_capacity.items():
            assert sum(share[r] for share in game.shares) == pytest.approx(total), game.id
            assert game.shares[game.leader][r] == int(0.6 * total)


def test_team_values_are_the_guests_mean():
    game = games.released("menu")[0]
    assert np.allclose(game.values, (game.guest_values[0] + game.guest_values[1]) / 2)
