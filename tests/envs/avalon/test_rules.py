"""Avalon's rules played move by move: each expectation is the official rule, not the code's.

The tables below are copied from the rulebook (REFERENCE §4), not imported from the task, so a
wrong table in ``roles.py`` fails here.
"""

from math import comb

import numpy as np
import pytest

import mase

SEATS = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
)
OFFICIAL = {  # players: (good, evil), team sizes, fails that fail each quest
    5: ((3, 2), (2, 3, 2, 3, 3), (1, 1, 1, 1, 1)),
    6: ((4, 2), (2, 3, 4, 3, 4), (1, 1, 1, 1, 1)),
    7: ((4, 3), (2, 3, 3, 4, 4), (1, 1, 1, 2, 1)),
    8: ((5, 3), (3, 4, 4, 5, 5), (1, 1, 1, 2, 1)),
    9: ((6, 3), (3, 4, 4, 5, 5), (1, 1, 1, 2, 1)),
    10: ((6, 4), (3, 4, 4, 5, 5), (1, 1, 1, 2, 1)),
}
FIVE = ("Merlin", "Percival", "Loyal Servant", "Morgana", "Assassin")  # delta, echo evil
SEVEN = ("Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Morgana", "Assassin", "Oberon")
TEN = (
    "Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Loyal Servant", "Loyal Servant",
    "Morgana", "Assassin", "Mordred", "Oberon",
)  # fmt: skip


def game(deal, leader="alpha", **kwargs):
    """A game with the roles dealt in seat order and the first leader fixed."""
    kwargs.setdefault("discussion", 0)
    env = mase.make("mase/Avalon-v0", roles=tuple(deal), **kwargs)
    env.reset(seed=0, options={"deal": deal, "leader": leader})
    return env, env.unwrapped


def text(base, seat):
    return base.observe_text(seat)


def facts(base, seat, kinds=("role", "side", "merlin_or_morgana")):
    """The facts about players that ``seat``'s text states."""
    return {k: v for k, v in base.parse_facts(text(base, seat)).items() if k[0] in kinds}


def propose(env, team):
    env.step("propose " + ", ".join(team))


def vote(env, approve=True):
    for _ in env.unwrapped.phase.agents:
        env.step("approve" if approve else "reject")


def cards(env, fails=()):
    for seat in env.unwrapped.phase.agents:
        env.step("fail" if seat in fails else "success")


def quest(env, team, fails=()):
    """One approved proposal of ``team`` by the current leader, then its cards."""
    propose(env, team)
    if env.unwrapped.phase.name == "vote":
        vote(env)
    assert env.unwrapped.phase.name == "quest"
    cards(env, fails)


def finish(env):
    """The dead steps after the end; the final rewards and metrics."""
    rewards = dict(env.unwrapped.rewards)
    metrics = env.unwrapped.infos["alpha"]["metrics"]
    for _ in env.agent_iter():
        env.step(None)
    return rewards, metrics


# -- tables -----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", sorted(OFFICIAL))
def test_every_player_count_has_the_official_split_team_sizes_and_fails(n):
    (good, evil), sizes, needed = OFFICIAL[n]
    env = mase.make("mase/Avalon-v0", n_players=n, discussion=0)
    env.reset(seed=n)
    base = env.unwrapped
    sides = [base.true_facts()[("side", s)] for s in SEATS[:n]]
    assert (sides.count("good"), sides.count("evil")) == (good, evil)
    assert env.possible_agents == list(SEATS[:n])
    assert f"fail cards that fail a quest: {', '.join(map(str, needed))}" in base.rules_text(
        "alpha"
    )
    # good players succeed every quest: each quest's team has the official size
    for k, size in enumerate(sizes[:3]):
        mask = env.observe(env.agent_selection)["action_mask"]
        assert mask.sum() == comb(n, size), f"quest {k + 1}: teams of {size}"
        leader = SEATS.index(env.agent_selection)
        team = [SEATS[(leader + i) % n] for i in range(size)]
        propose(env, team)
        vote(env)
        assert len(base.phase.agents) == size and set(base.phase.agents) == set(team)
        cards(env)


# -- quest 4 with 7 or more --------------------------------------------------------------------


@pytest.mark.parametrize("fails, result", [(("echo",), "success"), (("echo", "foxtrot"), "fail")])
def test_the_fourth_quest_with_seven_players_needs_two_fails(fails, result):
    env, base = game(SEVEN)  # echo, foxtrot and golf are evil
    quest(env, ["alpha", "bravo"])  # 1: success
    quest(env, ["alpha", "echo", "bravo"], fails=("echo",))  # 2: fail
    quest(env, ["alpha", "bravo", "charlie"])  # 3: success
    quest(env, ["alpha", "bravo", "echo", "foxtrot"], fails=fails)  # 4: one or two fails
    assert base.true_facts()[("fails", 4)] == len(fails)
    assert base.true_facts()[("quest", 4)] == result
    assert f"Quest 4 {'succeeded' if result == 'success' else 'failed'}." in text(base, "delta")
    assert base.phase.name == ("assassinate" if result == "success" else "propose")


# -- five rejections ----------------------------------------------------------------------------


def test_five_rejected_proposals_in_a_row_give_evil_the_game():
    env, base = game(FIVE)
    for k in range(5):
        assert base.phase.name == "propose" and env.agent_selection == SEATS[k]
        propose(env, ["alpha", "bravo"])
        vote(env, approve=False)
    rewards, metrics = finish(env)
    assert metrics["ended_by"] == "five_rejections" and metrics["winner"] == "evil"
    assert rewards == {"alpha": -1, "bravo": -1, "charlie": -1, "delta": 1, "echo": 1}
    assert metrics["proposals"] == 5 and metrics["quests_failed"] == 0


def test_rejections_reset_with_each_quest_and_a_majority_needs_more_than_half():
    env, base = game(FIVE)
    propose(env, ["alpha", "bravo"])
    for choice in ("approve", "approve", "reject", "reject", "approve"):  # 3 of 5 approve
        env.step(choice)
    assert base.phase.name == "quest"
    cards(env)
    assert "Rejected proposals in a row: 0 of 5" in text(base, "alpha")
    env6, base6 = game(
        ("Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Morgana", "Assassin")
    )
    propose(env6, ["alpha", "bravo"])
    for choice in ("approve",) * 3 + ("reject",) * 3:  # 3 of 6 is no majority
        env6.step(choice)
    assert base6.phase.name == "propose" and env6.agent_selection == "bravo"
    assert "Rejected proposals in a row: 1 of 5" in text(base6, "alpha")


def test_forced_variant_sends_the_fifth_proposal_on_the_quest_without_a_vote():
    env, base = game(FIVE, fifth_proposal="forced", discussion=1)
    for _ in range(4):
        propose(env, ["alpha", "bravo"])
        for seat in base.phase.agents:  # one pass of discussion
            env.step(f"{seat} is not sure")
        vote(env, approve=False)
    propose(env, ["charlie", "delta"])
    assert base.phase.name == "discuss"
    for _ in base.phase.agents:
        env.step("no vote this time")
    assert base.phase.name == "quest" and base.phase.agents == ("charlie", "delta")
    assert base.world.proposals[-1].approved is True and base.world.proposals[-1].votes is None


# -- the end --------------------------------------------------------------------------------------


@pytest.mark.parametrize("target, winner", [("alpha", "evil"), ("charlie", "good")])
def test_three_successes_call_on_the_assassin(target, winner):
    env, base = game(FIVE)
    for team in (["alpha", "bravo"], ["alpha", "bravo", "charlie"], ["bravo", "charlie"]):
        quest(env, team)
    assert base.phase.name == "assassinate" and env.agent_selection == "echo"
    mask = env.observe("echo")["action_mask"]
    assert list(mask[:5]) == [1, 1, 1, 1, 0]  # anyone but oneself
    env.step(f"assassinate {target}")
    rewards, metrics = finish(env)
    assert metrics["winner"] == winner
    assert metrics["ended_by"] == ("assassin_hit" if winner == "evil" else "assassin_missed")
    good = 1 if winner == "good" else -1
    assert rewards == {"alpha": good, "bravo": good, "charlie": good, "delta": -good, "echo": -good}
    assert metrics["quest_results"] == ["success"] * 3
    assert metrics["team_selection_accuracy"] == 1.0


def test_three_failed_quests_give_evil_the_game_and_no_assassin_means_good_wins():
    env, base = game(FIVE)
    quest(env, ["delta", "echo"], fails=("delta",))
    quest(env, ["alpha", "delta", "echo"], fails=("echo",))
    quest(env, ["bravo", "echo"], fails=("echo",))
    rewards, metrics = finish(env)
    assert metrics["ended_by"] == "three_fails" and metrics["winner"] == "evil"
    assert metrics["quests_failed"] == 3 and metrics["team_selection_accuracy"] == 0.0
    no_assassin = ("Merlin", "Percival", "Loyal Servant", "Morgana", "Minion of Mordred")
    env, base = game(no_assassin)
    for team in (["alpha", "bravo"], ["alpha", "bravo", "charlie"], ["bravo", "charlie"]):
        quest(env, team)
    _, metrics = finish(env)
    assert metrics["ended_by"] == "three_successes" and metrics["winner"] == "good"


# -- what each role sees -------------------------------------------------------------------------


def expected_ten(seat):
    """What each seat of TEN knows about players, from the rulebook."""
    me = SEATS.index(seat)
    known = {("role", seat): TEN[me], ("side", seat): "good" if me < 6 else "evil"}
    if seat == "alpha":  # Merlin: the evil players but Mordred (india); Oberon (juliett) seen
        known.update({("side", s): "evil" for s in ("golf", "hotel", "juliett")})
    if seat == "bravo":  # Percival: Merlin (alpha) and Morgana (golf), which is which unknown
        known[("merlin_or_morgana",)] = ("alpha", "golf")
    if seat in ("golf", "hotel", "india"):  # evil but Oberon see each other
        known.update({("side", s): "evil" for s in ("golf", "hotel", "india")})
    return known


@pytest.mark.parametrize("seat", SEATS)
def test_each_role_sees_what_the_rules_show_it_at_the_start(seat):
    env, base = game(TEN)
    assert facts(base, seat) == expected_ten(seat)
    vec = base.observe_vector(seat)
    players = vec[8 : 8 + 50].reshape(10, 5)
    expected = expected_ten(seat)
    evil = {k[1] for k, v in expected.items() if k[0] == "side" and v == "evil"}
    assert {SEATS[j] for j in np.flatnonzero(players[:, 1])} == evil
    pair = set(expected.get(("merlin_or_morgana",), ()))
    assert {SEATS[j] for j in np.flatnonzero(players[:, 3])} == pair
    assert np.flatnonzero(vec[:8]).tolist() == [
        ["Merlin", "Percival", "Loyal Servant", "Morgana", "Assassin", "Mordred", "Oberon",
         "Minion of Mordred"].index(TEN[SEATS.index(seat)])
    ]  # fmt: skip


def test_percival_without_morgana_sees_merlin_himself():
    deal = ("Merlin", "Percival", "Loyal Servant", "Assassin", "Minion of Mordred")
    env, base = game(deal)
    assert facts(base, "bravo") == {
        ("role", "bravo"): "Percival",
        ("side", "bravo"): "good",
        ("role", "alpha"): "Merlin",
    }


def test_role_reveals_are_events_with_exactly_the_rules_audience():
    env, base = game(TEN)
    seen = {seat: {} for seat in SEATS}
    for event in base.event_log:
        for seat in event.audience:
            seen[seat].update(event.facts)
    for seat in SEATS:
        assert seen[seat] == expected_ten(seat), seat


# -- secrets ---------------------------------------------------------------------------------


def test_votes_are_secret_until_all_have_voted_then_shown_to_all():
    env, base = game(FIVE)
    propose(env, ["alpha", "bravo"])
    layout = base.vector_layout("alpha")

    def unmoved(seat):  # all but whose turn it is, which passes on in seat order
        return {k: v.tobytes() for k, v in layout.split(base.observe_vector(seat)).items()
                if k != "to act"}  # fmt: skip

    before = {s: unmoved(s) for s in SEATS[:5]}
    for i, choice in enumerate(("approve", "reject", "approve", "reject")):
        env.step(choice)
        for seat in SEATS[:5]:
            assert "voted" not in text(base, seat)
            if seat != SEATS[i]:
                assert unmoved(seat) == before[seat]
    env.step("reject")  # the last vote: 2 of 5, rejected
    shown = "Alpha voted approve. Bravo voted reject. Charlie voted approve. Delta voted reject."
    for seat in SEATS[:5]:
        assert shown + " Echo voted reject." in text(base, seat)


@pytest.mark.parametrize("n_fails", [1, 2])
def test_quest_cards_are_never_shown_one_by_one(n_fails):
    views = []
    for failing in ("delta", "echo"):
        env, base = game(FIVE)
        propose(env, ["delta", "echo"])
        vote(env)
        cards(env, fails=("delta", "echo") if n_fails == 2 else (failing,))
        views.append({s: (text(base, s), base.observe_vector(s).tobytes()) for s in SEATS[:5]})
        for event in base.event_log:
            if event.kind == "card":
                assert event.audience == {event.actor}
    others = ("alpha", "bravo", "charlie")
    assert all(views[0][s] == views[1][s] for s in others)  # who failed it: unseen by others
    assert f"Quest 1 had {n_fails} fail cards." in views[0]["alpha"][0]
    # each card player is told its own card, and only its own
    for k, failing in enumerate(("delta", "echo")):
        for seat in ("delta", "echo"):
            own = "fail" if n_fails == 2 or seat == failing else "success"
            assert f"Your quest cards: quest 1 {own}." in views[k][seat][0]
        assert "Your quest cards" not in views[k]["alpha"][0]


def test_a_good_player_cannot_play_fail():
    env, base = game(FIVE)
    propose(env, ["alpha", "delta"])
    vote(env)
    assert list(env.observe("alpha")["action_mask"][:2]) == [1, 0]
    env.step(1)
    assert "good player can only play success" in base.infos["alpha"]["invalid_action"]
    assert list(env.observe("delta")["action_mask"][:2]) == [1, 1]
    env.step("fail")  # Morgana may
    assert base.true_facts()[("fails", 1)] == 1  # alpha's refused card counted as success


def test_invalid_moves_have_readable_reasons_and_the_game_goes_on():
    env, base = game(FIVE)
    env.step("propose alpha, alpha")
    assert "name each player once" in base.infos["alpha"]["invalid_action"]
    assert base.world.proposals[-1].default  # the default team: the leader and the next
    assert base.world.proposals[-1].team == (0, 1) and base.phase.name == "vote"
    env.step("maybe")
    assert "approve, reject" in base.infos["alpha"]["invalid_action"]


# -- Lady of the Lake --------------------------------------------------------------------------


def test_lady_of_the_lake_shows_a_side_to_its_holder_alone_and_passes_on():
    env, base = game(SEVEN, lady_of_the_lake=True)  # golf (Oberon) holds it: left of alpha
    quest(env, ["alpha", "bravo"])
    assert base.phase.name == "propose"  # not after quest 1
    quest(env, ["alpha", "bravo", "charlie"])
    assert base.phase.name == "lady" and env.agent_selection == "golf"
    assert env.observe("golf")["action_mask"][6] == 0  # not the holder
    env.step("examine echo")  # Morgana
    assert facts(base, "golf")[("side", "echo")] == "evil"
    for seat in ("bravo", "charlie", "delta"):  # Merlin and the evil see echo anyway
        assert ("side", "echo") not in facts(base, seat)
    assert "held by Echo" in text(base, "alpha")
    assert base.phase.name == "propose"
    quest(env, ["alpha", "bravo", "charlie"], fails=())
    assert base.phase.name == "assassinate"  # three successes: no Lady after the game is won
    env, base = game(SEVEN, lady_of_the_lake=True)
    quest(env, ["alpha", "bravo"])
    quest(env, ["alpha", "echo", "charlie"], fails=("echo",))
    env.step("examine alpha")
    quest(env, ["alpha", "echo", "charlie"], fails=("echo",))
    assert env.agent_selection == "alpha" and base.phase.name == "lady"
    env.step("examine golf")  # held it before
    assert "cannot examine Golf" in base.infos["alpha"]["invalid_action"]


def test_lady_of_the_lake_needs_seven_players():
    with pytest.raises(ValueError, match="7 or more players"):
        mase.make("mase/Avalon-v0", n_players=5, lady_of_the_lake=True)


# -- role validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"roles": ("Merlin", "Merlin", "Loyal Servant", "Morgana", "Assassin")}, "only once"),
        ({"roles": ("Merlin", "Loyal Servant", "Morgana", "Assassin", "Oberon")}, "3 good"),
        ({"roles": ("Loyal Servant",) * 3 + ("Assassin", "Morgana")}, "needs exactly one Merlin"),
        ({"roles": ("Merlin", "Jester", "Loyal Servant", "Morgana", "Assassin")}, "unknown role"),
        ({"roles": "avalonplay-7", "n_players": 5}, "for 7 players"),
        ({"roles": "avalonplay-9"}, "unknown role set"),
        ({"n_players": 11}, "5 to 10"),
        ({"n_players": 6, "roles": FIVE}, "6 players need 6 roles"),
        ({"fifth_proposal": "sometimes"}, "fifth_proposal"),
        ({"discussion": -1}, "discussion"),
    ],
)
def test_role_sets_and_options_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mase.make("mase/Avalon-v0", **kwargs)


def test_built_in_role_sets():
    base = mase.make("mase/Avalon-v0", roles="avalonplay-7").unwrapped
    assert sorted(base.role_set) == sorted(
        ("Merlin", "Percival", "Loyal Servant", "Loyal Servant", "Morgana", "Assassin",
         "Minion of Mordred")
    )  # fmt: skip
    bench = mase.make("mase/Avalon-v0", roles="avalonbench-5").unwrapped
    assert sorted(bench.role_set) == sorted(
        ("Merlin", "Loyal Servant", "Loyal Servant", "Minion of Mordred", "Assassin")
    )
    for n in OFFICIAL:
        assert len(mase.make("mase/Avalon-v0", n_players=n).possible_agents) == n


# -- no leaks -----------------------------------------------------------------------------------

BUILT_IN_SETS = ("avalonplay-7", "avalonbench-5", *(f"official-{n}" for n in OFFICIAL))
EVIL = {"Morgana", "Assassin", "Mordred", "Oberon", "Minion of Mordred"}


def rulebook_knowledge(roles: dict, seat: str) -> dict:
    """What the rulebook lets ``seat`` know about the players at the start."""
    side = {s: "evil" if r in EVIL else "good" for s, r in roles.items()}
    me = roles[seat]
    known = {("role", seat): me, ("side", seat): side[seat]}
    if me == "Merlin":
        known |= {("side", s): "evil" for s, r in roles.items() if r in EVIL - {"Mordred"}}
    if me in EVIL - {"Oberon"}:
        known |= {("side", s): "evil" for s, r in roles.items() if r in EVIL - {"Oberon"}}
    if me == "Percival":
        pair = sorted(s for s, r in roles.items() if r in ("Merlin", "Morgana"))
        if len(pair) == 2:
            known[("merlin_or_morgana",)] = tuple(pair)
        else:
            known[("role", pair[0])] = "Merlin"
    return known


@pytest.mark.parametrize("role_set", BUILT_IN_SETS)
def test_no_seat_is_ever_told_a_role_or_side_the_rules_keep_from_it(role_set):
    """Random games (legal moves, some invalid ones, some discussion, both variants, the Lady
    of the Lake where allowed): every seat's text, at every step, states only the roles and
    sides the rulebook reveals to it: its role's knowledge, its own Lady of the Lake
    examinations, and the Assassin's public act (who the Assassin is, and a hit on Merlin).

    Sixty games a set here; ``test_leak_scan`` checks every view against the rulebook too, and
    ``benchmarks/leak_scan_avalon.py`` plays thousands."""
    rng = np.random.default_rng(0)
    n = len(mase.make("mase/Avalon-v0", roles=role_set).possible_agents)
    for game_number in range(60):
        env = mase.make(
            "mase/Avalon-v0",
            roles=role_set,
            obs_mode="vector",  # the texts are read below, seat by seat
            discussion=int(game_number % 4 == 0),
            fifth_proposal=("official", "forced")[game_number % 2],
            lady_of_the_lake=n >= 7 and game_number % 3 == 0,
        )
        env.reset(seed=game_number)
        base = env.unwrapped
        roles = dict(zip(base.possible_agents, base.world.roles, strict=True))
        allowed = {seat: rulebook_knowledge(roles, seat) for seat in roles}
        last_round = 0
        for agent in env.agent_iter():
            # every seat at the start of each round and at the end; the seat to act every step
            everyone = base.round != last_round or base.world.winner
            last_round = base.round
            for seat in roles if everyone else (agent,):
                stated = facts(base, seat)
                leaked = {k: v for k, v in stated.items() if allowed[seat].get(k) != v}
                assert not leaked, (role_set, game_number, seat, roles[seat], leaked)
            obs, _, ended, cut, _ = env.last()
            if ended or cut:
                env.step(None)
                continue
            name = base.phase.name
            if name == "discuss":
                env.step(f"I am not sure about {rng.choice(list(roles)).capitalize()}.")
                continue
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal)) if rng.random() < 0.9 else int(rng.integers(n + 2))
            if name == "lady" and action in legal:
                target = base.possible_agents[action]
                allowed[agent][("side", target)] = "evil" if roles[target] in EVIL else "good"
            if name == "assassinate" and action in legal:
                target = base.possible_agents[action]
                for seat in roles:
                    allowed[seat][("role", agent)] = "Assassin"
                    if roles[target] == "Merlin":
                        allowed[seat][("role", target)] = "Merlin"
            env.step(action)
        assert base.ended_by
