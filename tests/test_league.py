"""`mase league`: its seeded schedule, OpenSkill ratings, bootstrap intervals and resuming."""

import json
from collections import Counter

import pytest

pytest.importorskip("openskill")

import mase  # noqa: E402
from mase.cli import main  # noqa: E402
from mase.league import Game, Result, _ranks, league, rate, schedule, standings  # noqa: E402

SEATS = ("alpha", "bravo", "charlie")
AVALON = {"roles": "avalonbench-5", "discussion": 0}


def test_with_sides_every_policy_meets_every_other_on_every_side():
    policies = ["a", "b", "c"]
    games = schedule(policies, 12, seed=3, seats=(), sides=("good", "evil"))
    pairs = Counter((g.teams[0]["good"], g.teams[0]["evil"]) for g in games)
    assert set(pairs) == {(p, q) for p in policies for q in policies if p != q}
    assert set(pairs.values()) == {2}  # two full cycles of the six ordered pairs
    assert [g.seed for g in games] == list(range(3, 15))
    assert schedule(policies, 12, 3, (), ("good", "evil")) == games  # seeded
    assert schedule(policies, 5, 3, (), ("good", "evil")) == games[:5]  # a prefix: resumable


def test_a_cooperative_game_is_two_teams_of_different_policies_on_one_seed():
    policies = ["a", "b", "c", "d", "e"]
    games = schedule(policies, 60, seed=0, seats=SEATS, sides=())
    where = Counter()
    for g in games:
        first, second = g.teams
        assert set(first) == set(second) == set(SEATS)  # every seat filled, in both
        assert not set(first.values()) & set(second.values())  # no policy on both teams
        assert {len(set(first.values())), len(set(second.values()))} == {2, 3}
        assert sum(g.policies(0).values()) == pytest.approx(1.0)
        where.update((p, seat) for team in g.teams for seat, p in team.items())
    assert set(where) == {(p, s) for p in policies for s in SEATS}  # seats rotate
    assert schedule(policies, 60, 0, SEATS, ()) == games


def test_a_league_needs_two_different_policies():
    with pytest.raises(ValueError, match="at least two"):
        schedule(["a"], 4, 0, SEATS, ())
    with pytest.raises(ValueError, match="named twice"):
        schedule(["a", "a"], 4, 0, SEATS, ())


def _won(first: str, second: str, first_wins: bool = True) -> Result:
    game = Game(0, 0, ({"good": first, "evil": second},))
    return Result(game, [{first: 1.0}, {second: 1.0}], [1, 2] if first_wins else [2, 1],
                  ["good", "evil"])  # fmt: skip


def test_ratings_follow_the_wins_and_ties_are_equal_ranks():
    results = [_won("strong", "weak") for _ in range(10)] + [_won("weak", "strong", False)] * 10
    ratings = rate(results, ["strong", "weak"])
    assert ratings["strong"][0] > 25 > ratings["weak"][0]  # OpenSkill's start is mu = 25
    assert ratings["strong"][1] < 25 / 3  # sigma shrinks with games
    # what one side gains the other loses: two one-member teams keep the sum of their ratings
    assert ratings["strong"][0] + ratings["weak"][0] == pytest.approx(50.0)
    assert _ranks([(90.0, -12.0), (90.0, -12.0)]) == [1, 1]
    assert _ranks([(90.0, -12.0), (90.0, -9.0), (41.0, -30.0)]) == [2, 1, 3]
    board = standings(results, ["strong", "weak"], "mase/Avalon-v0", 20)
    top = board.standings[0]
    assert top.policy == "strong" and top.games == 20
    assert top.wins == {"good": (1.0, 10), "evil": (1.0, 10)}
    assert top.ci95[0] <= top.mu <= top.ci95[1]
    assert board.sides == ["good", "evil"]


def test_the_planner_outrates_random_play_in_duplicate_search_and_rescue(tmp_path):
    board = league("mase/SearchRescue-v0", ["random", "cbs"], games=6, seed=0,
                   out=tmp_path, messages=False)  # fmt: skip
    first, second = board.standings
    assert (first.policy, second.policy) == ("cbs", "random")
    assert first.wins["all"] == (1.0, 6)  # the CBS team defuses every bomb; random's does not
    assert first.ci95[0] > second.ci95[1]  # no overlap after six decisive games
    saved = json.loads((tmp_path / "league.json").read_text())
    assert len(saved["results"]) == 6 and saved["leaderboard"]["played"] == 6
    record = tmp_path / "games" / "00000" / "a" / "episodes.jsonl"
    assert json.loads(record.read_text().splitlines()[0])["seed"] == 0  # an evaluation record


def test_an_interrupted_league_resumes_game_by_game(tmp_path):
    whole = league("mase/SearchRescue-v0", ["random", "scripted", "cbs", "mappo"], games=5,
                   seed=1, out=tmp_path / "whole", messages=False)  # fmt: skip
    out = tmp_path / "cut"
    league("mase/SearchRescue-v0", ["random", "scripted", "cbs", "mappo"], games=5, seed=1,
           out=out, messages=False)  # fmt: skip
    kept = (out / "games" / "00000" / "a" / "episodes.jsonl").stat().st_mtime_ns
    for index in ("00003", "00004"):  # as if stopped after game 3
        for team in "ab":
            (out / "games" / index / team / "summary.json").unlink()
            (out / "games" / index / team / "episodes.jsonl").unlink()
    with pytest.raises(ValueError, match="pass resume"):
        league("mase/SearchRescue-v0", ["random", "scripted", "cbs", "mappo"], games=5, seed=1,
               out=out, messages=False)  # fmt: skip
    again = league("mase/SearchRescue-v0", ["random", "scripted", "cbs", "mappo"], games=5,
                   seed=1, out=out, resume=True, messages=False)  # fmt: skip
    assert (out / "games" / "00000" / "a" / "episodes.jsonl").stat().st_mtime_ns == kept
    assert again.table() == whole.table()
    with pytest.raises(ValueError, match="another league"):
        league("mase/SearchRescue-v0", ["random", "cbs"], games=5, seed=1, out=out, resume=True)


def test_mase_league_prints_a_leaderboard_by_side_and_draws_it(tmp_path, capsys):
    plot = tmp_path / "board.png"
    code = main(["league", "mase/Avalon-v0", "--env-arg", "roles=avalonbench-5",
                 "--env-arg", "discussion=0", "--policies", "scripted,random", "--games", "4",
                 "--quiet", "--plot", str(plot)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "wins as good" in out and "wins as evil" in out and "OpenSkill Plackett-Luce" in out
    lines = {
        line.split()[0]: line for line in out.splitlines() if line[:8] in ("scripted", "random  ")
    }
    assert "of 2" in lines["scripted"]  # two games a side
    assert plot.stat().st_size > 5_000


def test_without_openskill_the_error_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "openskill.models", None)
    with pytest.raises(ImportError, match=r"mase-suite\[league\]"):
        rate([], ["a", "b"])
    assert mase.make("mase/Avalon-v0", **AVALON)  # the rest of the suite does not need it


def _web_games(out, env_id, team, episodes, env_kwargs=None):
    """Games with a person at a web seat (a scripted one, through the real server)."""
    from web_clients import SeatClient, play_all

    from mase.web import WebGame, WebServer

    game = WebGame(env_id, team, episodes=episodes, out=out, env_kwargs=env_kwargs)
    with WebServer([game]) as server:
        play_all([SeatClient(link) for link in server.links().values()])
    assert not game.error
    return out


def test_games_played_at_the_web_table_join_the_league_and_rate_the_person(tmp_path):
    team = {"alpha": "human", "bravo": "scripted", "charlie": "scripted"}
    played = _web_games(tmp_path / "web", "mase/SearchRescue-v0", team, 2)
    board = league("mase/SearchRescue-v0", ["scripted", "random"], games=2, seed=0,
                   out=tmp_path / "league", played=[played])  # fmt: skip
    person = next(s for s in board.standings if s.policy == "human")
    assert person.games == 2 and board.played == 4
    saved = json.loads((tmp_path / "league" / "league.json").read_text())
    assert saved["played"] == [str(played)]
    # the league's own policies played the other team of each recorded seed (duplicate play)
    assert len(list((tmp_path / "league" / "played").iterdir())) == 2


def test_a_person_at_an_avalon_table_is_rated_on_the_side_the_seed_dealt():
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        env = mase.make("mase/Avalon-v0", **AVALON).unwrapped
        team = {s: "scripted" for s in env.possible_agents} | {"bravo": "human"}
        played = _web_games(f"{root}/web", "mase/Avalon-v0", team, 3, AVALON)
        board = league("mase/Avalon-v0", ["scripted", "random"], games=2, env_kwargs=AVALON,
                       played=[played])  # fmt: skip
        sides = []
        for seed in range(3):
            env.reset(seed=seed)
            sides.append(env.side_of("bravo"))
    person = next(s for s in board.standings if s.policy == "human")
    assert person.games == 3
    assert sum(n for _, n in person.wins.values()) == 3
    assert {side for side, (_, n) in person.wins.items() if n} == {
        "good" if s == "good" else "evil" for s in sides
    }
