"""Scoring decisions: MASE's validity, the authors' lenient and loose scores, NR, NAR and VR."""

import numpy as np
import pytest

from mase.envs.deliberation import games, scoring

MENU = {g.id.rsplit("/", 1)[1]: g for g in games.released("menu")}
ALLOC = games.released("allocation")


def test_the_optimal_menu_is_valid_and_scores_100():
    game = MENU["game_0000"]
    names = [game.dishes[i] for i in game.best]
    score = scoring.score_menu(game, names)
    assert score.valid and score.reason == ""
    m = scoring.metrics(game, score)
    assert m["nr"] == pytest.approx(100) and m["nar"] == pytest.approx(100) and m["valid"] == 1


def test_a_repeated_dish_is_invalid_here_and_paid_twice_by_the_authors_evaluator():
    # the data README's example: level_1_and_2 game_0057 scores 27.94 against 17.095
    game = MENU["game_0057"]
    menu = ["Beef Stew", "Beef Stew", "Grilled Meat Skewers", "Grilled Meat Skewers",
            "Caprese Salad"]  # fmt: skip
    score = scoring.score_menu(game, menu)
    assert not score.valid and score.reward == 0
    assert "listed more than once" in score.reason and "Beef Stew" in score.reason
    assert score.lenient_reward == pytest.approx(27.94)
    assert game.max_reward == pytest.approx(17.095)
    m = scoring.metrics(game, score)
    assert m["nr"] == 0 and m["lenient_nr"] == pytest.approx(100 * 27.94 / 17.095)


def test_repeats_beat_the_optimum_in_41_of_the_90_released_menu_games():
    """The authors' evaluator pays repeats: in 41 games some menu with repeats scores above
    the optimum (the data README's count), which MASE's rule makes invalid."""
    above = 0
    for game in games.released("menu") + games.released("menu_level3"):
        best = scoring.optimum(game).value
        # the most a menu with repeats earns: a 0/1 program over up to 4 copies of each dish
        copies = np.repeat(np.arange(len(game.dishes)), 4)
        x = scoring._milp(game.values[copies], game.recipes[copies].T.astype(float),
                          game.stock.astype(float))  # fmt: skip
        chosen = list(copies[np.flatnonzero(x)])
        lenient = scoring.score_menu(game, [game.dishes[i] for i in chosen])
        if lenient.lenient_reward > best + 1e-9:
            above += 1
            assert not lenient.valid
    assert above == 41


def test_an_unknown_dish_is_invalid_here_and_dropped_by_the_authors_evaluator():
    game = MENU["game_0000"]
    names = [game.dishes[i] for i in game.best]
    score = scoring.score_menu(game, [*names, "Unicorn Stew"])
    assert not score.valid and "no dish is called 'Unicorn Stew'" in score.reason
    assert score.lenient_reward == pytest.approx(game.max_reward)


def clashing_pair(game):
    """Two dishes that each fit the stock but not together."""
    possible = scoring.possible_dishes(game)
    for i in possible:
        for j in possible:
            if i < j and not scoring.menu_fits(game, [i, j]):
                return i, j
    raise AssertionError(f"{game.id} has no clashing pair")


def test_an_overused_ingredient_is_invalid_and_says_which():
    game = MENU["game_0000"]
    i, j = clashing_pair(game)
    score = scoring.score_menu(game, [game.dishes[i], game.dishes[j]])
    assert not score.valid and "in stock" in score.reason
    over = [game.ingredients[k] for k in np.flatnonzero(game.recipes[[i, j]].sum(0) > game.stock)]
    assert over[0] in score.reason
    assert score.lenient_reward == 0


def test_an_empty_menu_is_not_a_valid_decision():
    score = scoring.score_menu(MENU["game_0000"], [])
    assert not score.valid and score.reason == "the menu is empty" and score.reward == 0


def test_possible_dishes_are_the_authors_in_every_released_menu_game():
    for game in games.released("menu") + games.released("menu_level3"):
        stored = games.released_raw(game.id)["possible_dishes"]
        assert scoring.possible_dishes(game) == tuple(sorted(stored)), game.id


def test_the_loose_score_keeps_possible_dishes_then_those_that_still_fit_in_order():
    game = MENU["game_0000"]
    possible = scoring.possible_dishes(game)
    impossible = [i for i in range(len(game.dishes)) if i not in possible]
    i, j = clashing_pair(game)
    menu = [impossible[0], i, j]
    score = scoring.score_menu(game, [game.dishes[k] for k in menu])
    # the impossible dish goes, the first of the pair fits, the second no longer does
    assert score.kept == 1 and score.size == 3
    assert score.loose_reward == pytest.approx(float(game.values[i]))
    m = scoring.metrics(game, score)
    assert m["nar"] == pytest.approx(100 * score.loose_reward / game.max_reward)
    assert m["npr2"] == pytest.approx(m["nar"] / 3)


def test_allocation_validity_and_the_authors_greedy_repair():
    game = ALLOC[0]
    best = scoring.optimum(game).decision
    pairs = [(game.tasks[t], ("worker_0", "worker_1", "leader")[a]) for t, a in best.items()]
    assert scoring.score_allocation(game, pairs).valid
    # the authors' agent names are read too
    authors = [(t, f"agent_{('worker_0', 'worker_1', 'leader').index(a)}") for t, a in pairs]
    assert scoring.score_allocation(game, authors).reward == pytest.approx(game.max_reward)
    # everything to the leader overuses the leader's private resources
    greedy = [(t, "leader") for t in game.tasks]
    score = scoring.score_allocation(game, greedy)
    assert not score.valid and "overuses" in score.reason
    order = np.argsort(-game.values[2], kind="stable")
    subset: dict[int, int] = {}
    for t in order:
        if scoring.allocation_fits(game, {**subset, int(t): 2}):
            subset[int(t)] = 2
    assert score.kept == len(subset)
    m = scoring.metrics(game, score)
    expected = 100 * scoring.allocation_reward(game, subset) / game.max_reward * len(subset) / 10
    assert m["nr"] == 0 and m["nar"] == pytest.approx(expected)


def test_allocation_unknown_names_and_double_assignments_are_invalid():
    game = ALLOC[0]
    t0, t1 = game.tasks[:2]
    unknown = scoring.score_allocation(game, [(t0, "worker_0"), ("Juggle", "leader")])
    assert not unknown.valid and "unknown task or agent 'Juggle'" in unknown.reason
    twice = scoring.score_allocation(game, [(t0, "worker_0"), (t0, "leader")])
    assert not twice.valid and "assigned more than once" in twice.reason
    none = scoring.score_allocation(game, [])
    assert not none.valid and none.reason == "the allocation assigns no task"
    ok = scoring.score_allocation(game, [(t1, "worker_1")])
    assert ok.valid == scoring.allocation_fits(game, {1: 1})
