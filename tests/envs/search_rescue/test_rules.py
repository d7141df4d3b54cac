"""Scenario tests of the search-and-rescue rules (REFERENCE.md section 1, env docstring).

Each test builds an exact situation (positions and bombs written into ``env.world`` right
after ``reset``), plays named actions, and checks the outcome the rules call for.
"""

from __future__ import annotations

import numpy as np
import pytest

import mase
from mase.envs.search_rescue import world
from mase.envs.search_rescue.world import Bomb

ENV_ID = "mase/SearchRescue-v0"
AGENTS = ("alpha", "bravo", "charlie")
PAPER = world.paper_layout()
PAPER_DOORS = {0: {3, 5, 6, 8}, 3: {0, 8}, 5: {0, 6}, 6: {0, 5, 8}, 8: {0, 3, 6}}


# -- helpers ------------------------------------------------------------------------------------


def make_env(seed: int = 0, messages: bool = False, **options):
    env = mase.make(ENV_ID, **options)
    if messages:
        env = mase.wrappers.MessageChannel(env)
    env.reset(seed=seed)
    return env


def paper_bombs() -> list[Bomb]:
    """One bomb per room with the paper's phase counts 1, 1, 2, 2, 3 (90 points in all)."""
    return [
        Bomb(1, 0, ("red",)),
        Bomb(2, 3, ("green",)),
        Bomb(3, 5, ("red", "blue")),
        Bomb(4, 6, ("green", "blue")),
        Bomb(5, 8, ("red", "green", "blue")),
    ]


def place(env, positions, bombs: list[Bomb] | None = None):
    """Overwrite the world: ``positions`` is a room for everyone or a dict agent -> room."""
    base = env.unwrapped
    if isinstance(positions, int):
        positions = {a: positions for a in base.possible_agents}
    base.world.positions = dict(positions)
    base.world.bombs = paper_bombs() if bombs is None else bombs
    return base


def go(env, room):
    """The index of "go to ``room``" (the paper layout's when ``env`` is None)."""
    layout = PAPER if env is None else env.unwrapped.layout
    return layout.action_index("go", room)


def cut(env, colour):
    """The index of "apply the ``colour`` cutter"."""
    layout = PAPER if env is None else env.unwrapped.layout
    return layout.action_index("cut", colour)


INSPECT = 0


def text_of(env, agent):
    return env.unwrapped.observe_text(agent)


def decoded(env, agent):
    """(facts, result code) of the agent's vector observation."""
    base = env.unwrapped
    return base.codec.decode(agent, base.observe(agent)["observation"])


def mask_set(env, agent):
    """The actions the mask allows, as (kind, arg) pairs."""
    base = env.unwrapped
    mask = base.observe(agent)["action_mask"]
    return {base.layout.actions[i] for i in np.flatnonzero(mask)}


def play_round(env, actions):
    """One action per agent in turn order (a dict or a list in turn order)."""
    if not isinstance(actions, dict):
        actions = dict(zip(env.unwrapped.possible_agents, actions, strict=True))
    for agent in env.unwrapped.possible_agents:
        assert env.agent_selection == agent
        env.step(actions[agent])


def finish(env):
    """After the episode ended: every agent must be done; step each out with None."""
    base = env.unwrapped
    assert all(base.terminations[a] or base.truncations[a] for a in base.agents)
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []


def run_until_done(env, choose, limit: int = 1000):
    """Play ``choose(env, agent, round) -> action`` until the episode ends.

    Returns (actions taken per agent, summed rewards per agent, final metrics).
    """
    base = env.unwrapped
    counts = {a: 0 for a in base.possible_agents}
    returns = {a: 0.0 for a in base.possible_agents}
    metrics = None
    for agent in env.agent_iter(limit):
        _, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        if terminated or truncated:
            metrics = metrics or info["metrics"]
            env.step(None)
            continue
        counts[agent] += 1
        env.step(choose(env, agent, base.round))
    assert env.agents == [], "the episode did not end"
    return counts, returns, metrics


def connected(rooms, neighbours) -> bool:
    seen, frontier = {rooms[0]}, [rooms[0]]
    while frontier:
        room = frontier.pop()
        for other in neighbours[room]:
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return seen == set(rooms)


# -- 1. adjacency and masks -------------------------------------------------------------------


def test_paper_layout_doors_and_turn_order():
    env = make_env()
    base = env.unwrapped
    assert base.layout.rooms == (0, 3, 5, 6, 8)
    assert {r: set(n) for r, n in base.layout.neighbours.items()} == PAPER_DOORS
    assert len(base.layout.edges) == 7
    assert env.possible_agents == list(AGENTS)
    assert env.agent_selection == "alpha"
    assert base.action_space("alpha").n == 9


@pytest.mark.parametrize("room", sorted(PAPER_DOORS))
def test_mask_moves_only_through_doors(room):
    env = make_env()
    # the room's bomb defused: only the doors remain
    bombs = paper_bombs()
    done = next(b for b in bombs if b.room == room)
    done.cut = len(done.sequence)
    place(env, room, bombs)
    for agent in AGENTS:
        assert mask_set(env, agent) == {("go", r) for r in PAPER_DOORS[room]}


def test_mask_from_room_5_with_live_bomb():
    env = make_env()
    place(env, 5)
    doors = {("go", 0), ("go", 6)}
    assert mask_set(env, "alpha") == doors | {("inspect", None), ("cut", "red"), ("cut", "green")}
    assert mask_set(env, "bravo") == doors | {("inspect", None), ("cut", "green"), ("cut", "blue")}
    assert mask_set(env, "charlie") == doors | {("inspect", None), ("cut", "blue"), ("cut", "red")}
    assert ("go", 3) not in mask_set(env, "alpha") and ("go", 8) not in mask_set(env, "alpha")
    mask = env.unwrapped.observe("alpha")["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (9,)


def test_mask_without_bomb_and_with_exploded_bomb():
    env = make_env()
    bombs = paper_bombs()[:4]  # room 8 left empty
    bombs[0].exploded = True  # room 0: an exploded bomb
    place(env, {"alpha": 8, "bravo": 0, "charlie": 0}, bombs)
    assert mask_set(env, "alpha") == {("go", 0), ("go", 3), ("go", 6)}
    assert mask_set(env, "bravo") == {("go", 3), ("go", 5), ("go", 6), ("go", 8)}


WASTED = [
    # (name, room of the actor, action, bombs, words the next observation must contain)
    (
        "not_adjacent",
        5,
        ("go", 3),
        None,
        ["failed", "room 3 is not next to room 5", "0, 6", "through room 0"],
    ),
    ("already_there", 5, ("go", 5), None, ["failed", "already in room 5"]),
    ("no_bomb", 8, ("inspect", None), "empty8", ["failed", "no bomb in room 8"]),
    ("bomb_done_cut", 0, ("cut", "red"), "defused0", ["failed", "already defused"]),
    ("bomb_done_inspect", 0, ("inspect", None), "defused0", ["failed", "already defused"]),
    (
        "not_owned",
        5,
        ("cut", "blue"),
        None,
        ["failed", "no blue cutter", "Bravo and Charlie", "ask"],
    ),
]


def _bombs(kind):
    bombs = paper_bombs()
    if kind == "empty8":
        return bombs[:4]
    if kind == "defused0":
        bombs[0].cut = 1
    return bombs


@pytest.mark.parametrize("name,room,action,bombs,words", WASTED, ids=[w[0] for w in WASTED])
def test_wasted_turn(name, room, action, bombs, words):
    env = make_env()
    base = place(env, room, _bombs(bombs))
    before = base.world.copy()
    mask_before = base.observe("alpha")["action_mask"].copy()
    index = base.layout.action_index(*action)
    env.step(index)  # never raises
    assert base.world.key() == before.key() and base.world.score == before.score
    assert all(r == 0 for r in base.rewards.values())
    assert env.agent_selection == "bravo"
    # the others waste their turn too (go to their own room): the round still ends
    env.step(go(env, room))
    env.step(go(env, room))
    assert base.world.round == 2 and env.agent_selection == "alpha"
    assert base.world.key() == before.key()
    assert base.metrics()["invalid_actions"] == 3 and base.metrics()["turns"] == 3
    text = text_of(env, "alpha")
    line = next(x for x in text.splitlines() if "Your last action" in x)
    for word in words:
        assert word in line, (word, line)
    assert "Round 2 of 30." in text
    code = "bomb_done" if name.startswith("bomb_done") else name
    assert decoded(env, "alpha")[1] == f"invalid:{code}"
    assert (base.observe("alpha")["action_mask"] == mask_before).all()


def test_not_owned_names_the_holders_for_each_agent():
    env = make_env()
    base = place(env, 8)  # bomb 5, live
    play_round(env, [cut(env, "blue"), cut(env, "red"), cut(env, "green")])
    assert base.world.bombs[4].cut == 0
    for agent, colour, holders in [
        ("alpha", "blue", "Bravo and Charlie"),
        ("bravo", "red", "Alpha and Charlie"),
        ("charlie", "green", "Alpha and Bravo"),
    ]:
        text = text_of(env, agent)
        assert f"no {colour} cutter" in text and holders in text


def test_non_adjacent_detour_is_a_shortest_path_room():
    env = make_env()
    base = place(env, 5)
    env.step(go(env, 8))  # 5 -> 8: via 0 or 6, both two moves
    line = next(x for x in text_of(env, "alpha").splitlines() if "failed" in x)
    assert "room 8 is not next to room 5" in line
    detour = int(line.split("go through room ")[1].split(".")[0])
    assert detour in PAPER_DOORS[5] and 8 in PAPER_DOORS[detour]
    assert base.world.positions["alpha"] == 5


# -- 2. cutters and phase order ---------------------------------------------------------------


def test_paper_cutters_each_colour_held_by_exactly_two():
    layout = make_env().unwrapped.layout
    assert {a: set(c) for a, c in layout.cutters.items()} == {
        "alpha": {"red", "green"},
        "bravo": {"green", "blue"},
        "charlie": {"blue", "red"},
    }
    for colour in ("red", "green", "blue"):
        assert sum(colour in layout.cutters[a] for a in AGENTS) == 2


def test_phase_order_reject_default():
    env = make_env()
    base = place(env, 8)  # bomb 5: red, green, blue
    bomb = base.world.bombs[4]

    env.step(cut(env, "red"))  # alpha: right colour
    assert bomb.cut == 1 and base.world.score == 10
    assert base.rewards == {a: 10.0 for a in AGENTS}
    assert "remaining sequence: green, blue" in text_of(env, "alpha")

    env.step(cut(env, "blue"))  # bravo: wrong colour (next is green) -> rejected
    assert bomb.cut == 1 and not bomb.exploded and base.world.score == 10
    assert base.rewards == {a: 0.0 for a in AGENTS}
    line = next(x for x in text_of(env, "bravo").splitlines() if "Your last action" in x)
    assert "failed" in line and "rejected the blue cutter" in line
    assert decoded(env, "bravo")[1] == "invalid:wrong_colour"

    env.step(cut(env, "red"))  # charlie: red was the phase already cut
    assert bomb.cut == 1 and base.world.score == 10

    env.step(cut(env, "green"))
    assert bomb.cut == 2 and base.world.score == 20
    env.step(cut(env, "blue"))
    assert bomb.defused and base.world.score == 30
    assert base.rewards == {a: 10.0 for a in AGENTS}
    env.step(cut(env, "blue"))  # charlie: nothing left
    assert base.world.score == 30 and base.rewards == {a: 0.0 for a in AGENTS}
    assert "already defused" in text_of(env, "charlie")
    # alpha collects, at its next turn, its own green cut and bravo's blue cut
    assert env.agent_selection == "alpha" and env.last()[1] == 20.0


def test_team_reward_reaches_every_agent():
    env = make_env()
    place(env, 8)
    returns = {a: 0.0 for a in AGENTS}
    plan = [cut(env, "red"), cut(env, "green"), cut(env, "blue")]  # bomb 5 in one round
    for action in plan:
        env.step(action)
        for a in AGENTS:
            returns[a] += env.unwrapped.rewards[a]
    assert returns == {a: 30.0 for a in AGENTS}


def test_team_reward_collected_through_last():
    env = make_env()
    place(env, 8)
    collected = {a: 0.0 for a in AGENTS}
    # round 1: bomb 5 cut in one round; round 2: nothing more to do
    for action in [cut(env, "red"), cut(env, "green"), cut(env, "blue"), INSPECT, INSPECT, INSPECT]:
        collected[env.agent_selection] += env.last()[1]
        env.step(action)
    assert collected == {a: 30.0 for a in AGENTS}
    assert env.last()[1] == 0.0  # alpha, round 3: nothing new


@pytest.mark.parametrize("shaping", [False, True])
def test_wrong_cutter_explode(shaping):
    env = make_env(wrong_cutter="explode", shaping=shaping)
    base = place(env, 8)
    bomb = base.world.bombs[4]

    env.step(cut(env, "red"))  # alpha: right colour
    assert base.world.score == 10
    assert base.rewards == {a: (11.0 if shaping else 10.0) for a in AGENTS}

    env.step(cut(env, "blue"))  # bravo: wrong colour -> explosion
    assert bomb.exploded and not bomb.live and bomb.cut == 1
    assert base.world.score == 10
    assert base.rewards == {a: (-1.0 if shaping else 0.0) for a in AGENTS}
    assert "exploded" in text_of(env, "bravo")
    assert decoded(env, "bravo")[1] == "exploded"
    assert "Bomb 5 is exploded." in text_of(env, "charlie")  # the room's state: seen
    assert "You saw" not in text_of(env, "charlie")  # the paper's rule: not who did it

    # its remaining phases can no longer be scored
    env.step(cut(env, "blue"))  # charlie
    env.step(cut(env, "green"))  # alpha: would have been the right colour
    assert bomb.cut == 1 and base.world.score == 10
    assert base.rewards == {a: 0.0 for a in AGENTS}
    assert "already exploded" in text_of(env, "alpha")
    assert mask_set(env, "alpha") == {("go", r) for r in PAPER_DOORS[8]}


def test_explode_with_bomb_credit_loses_partial_progress():
    env = make_env(wrong_cutter="explode", credit="bomb")
    base = place(env, 8)
    env.step(cut(env, "red"))
    env.step(cut(env, "green"))
    env.step(cut(env, "red"))  # wrong: next is blue
    assert base.world.bombs[4].exploded and base.world.score == 0


def test_exploding_the_last_live_bomb_ends_the_episode():
    env = make_env(wrong_cutter="explode")
    bombs = paper_bombs()
    for b in bombs[:4]:
        b.cut = len(b.sequence)
    base = place(env, 8, bombs)
    base.world.score = 60
    play_round(env, [cut(env, "green"), INSPECT, INSPECT])  # alpha's green is wrong: boom
    assert all(base.terminations.values())
    metrics = base.infos["alpha"]["metrics"]
    assert metrics["score"] == 60 and metrics["bombs_exploded"] == 1
    assert metrics["bombs_defused"] == 4 and metrics["rounds"] == 1
    finish(env)


@pytest.mark.parametrize("credit", ["phase", "bomb"])
def test_shaping_correct_cut(credit):
    env = make_env(shaping=True, credit=credit)
    base = place(env, 8)
    env.step(cut(env, "red"))
    assert base.rewards["bravo"] == (11.0 if credit == "phase" else 1.0)
    env.step(cut(env, "green"))
    env.step(cut(env, "blue"))
    assert base.rewards["alpha"] == (11.0 if credit == "phase" else 31.0)
    assert base.world.score == 30


# -- 3. credit ----------------------------------------------------------------------------------


def test_credit_phase_versus_bomb():
    plan = [
        # all in room 8 (bomb 5: red, green, blue), then bomb 1 in room 0 (red)
        [cut(None, "red"), INSPECT, INSPECT],
        [cut(None, "green"), cut(None, "blue"), go(None, 0)],
        [go(None, 0), go(None, 0), cut(None, "red")],
    ]
    rewards, scores = {}, {}
    for credit in ("phase", "bomb"):
        env = make_env(credit=credit)
        base = place(env, 8)
        rewards[credit] = []
        for rnd in plan:
            for action in rnd:
                env.step(action)
                rewards[credit].append(base.rewards["alpha"])
        scores[credit] = base.world.score
        assert base.world.bombs[4].defused and base.world.bombs[0].defused
    assert scores == {"phase": 40, "bomb": 40}
    assert sum(rewards["phase"]) == sum(rewards["bomb"]) == 40
    assert rewards["phase"] == [10, 0, 0, 10, 10, 0, 0, 0, 10]
    assert rewards["bomb"] == [0, 0, 0, 0, 30, 0, 0, 0, 10]


# -- 4. full score ------------------------------------------------------------------------------


def test_full_defusal_scores_90_and_ends_after_that_round():
    env = make_env()
    base = place(env, 0)
    assert base.layout.max_score == 90
    plan = [
        ["red", ("go", 3), ("go", 8)],  # bomb 1 done (10)
        [("go", 5), "green", "red"],  # bomb 2 done (20), bomb 5 1/3 (30)
        ["red", ("go", 8), "inspect"],  # bomb 3 1/2 (40)
        [("go", 6), "green", "blue"],  # bomb 5 done (60)
        ["green", ("go", 6), ("go", 6)],  # bomb 4 1/2 (70)
        [("go", 5), "inspect", "blue"],  # bomb 4 done (80)
        ["inspect", ("go", 5), ("go", 5)],
        ["inspect", "blue", ("go", 0)],  # bomb 3 done (90) by bravo; charlie still acts
    ]
    scores = [10, 30, 40, 60, 70, 80, 80, 90]
    returns = {a: 0.0 for a in AGENTS}
    for rnd, (actions, score) in enumerate(zip(plan, scores, strict=True), start=1):
        for agent, spec in zip(AGENTS, actions, strict=True):
            assert env.agent_selection == agent
            if spec == "inspect":
                index = INSPECT
            elif isinstance(spec, str):
                index = cut(env, spec)
            else:
                index = go(env, spec[1])
            returns[agent] += env.last()[1]
            assert not (base.terminations[agent] or base.truncations[agent])
            env.step(index)
            if rnd == 8 and agent == "bravo":
                # defused mid-round: the round is played out first
                assert base.world.done and base.world.score == 90
                assert not any(base.terminations.values())
                assert env.agent_selection == "charlie"
        assert base.world.score == score, rnd
    assert all(base.terminations.values()) and not any(base.truncations.values())
    assert base.world.positions["charlie"] == 0  # charlie's last action was carried out
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        assert terminated and not truncated
        assert not obs["action_mask"].any()
        metrics = info["metrics"]
        assert metrics["score"] == 90 and metrics["max_score"] == 90
        assert metrics["rounds"] == 8 and metrics["ended_by"] == "defused"
        assert metrics["bombs_defused"] == 5 and metrics["turns"] == 24
        assert metrics["valid_action_rate"] == 1.0
        env.step(None)
    assert returns == {a: 90.0 for a in AGENTS}


# -- 5. round limit -----------------------------------------------------------------------------


def make_walker():
    """A policy that walks back and forth between its start room and its lowest neighbour."""
    start: dict[str, int] = {}

    def walk(env, agent, rnd):
        base = env.unwrapped
        here = base.world.positions[agent]
        home = start.setdefault(agent, here)
        target = min(base.layout.neighbours[home]) if here == home else home
        return go(env, target)

    return walk


def test_max_cycles_gives_exactly_that_many_actions_each():
    env = make_env(max_cycles=4)
    counts, _, metrics = run_until_done(env, make_walker())
    assert counts == {a: 4 for a in AGENTS}
    assert metrics["rounds"] == 4 and metrics["ended_by"] == "round_limit"
    assert metrics["turns"] == 12


def test_default_round_limit_30_and_walking_is_no_deadlock():
    env = make_env(seed=3)
    assert env.unwrapped.max_cycles == 30
    truncated = {}
    walk = make_walker()
    counts = {a: 0 for a in AGENTS}
    for agent in env.agent_iter():
        _, _, terminated, trunc, info = env.last()
        if terminated or trunc:
            truncated[agent] = (terminated, trunc, info["metrics"])
            env.step(None)
            continue
        counts[agent] += 1
        env.step(walk(env, agent, None))
    assert counts == {a: 30 for a in AGENTS}
    for terminated, trunc, metrics in truncated.values():
        assert trunc and not terminated
        assert metrics["ended_by"] == "round_limit" and metrics["rounds"] == 30
        assert metrics["score"] == 0


def test_round_limit_loses_to_a_defusal_in_the_last_round():
    env = make_env(max_cycles=1)
    bombs = paper_bombs()
    for b in bombs[1:]:
        b.cut = len(b.sequence)
    base = place(env, 0, bombs)
    play_round(env, [INSPECT, INSPECT, cut(env, "red")])
    assert all(base.terminations.values()) and not any(base.truncations.values())
    assert base.infos["alpha"]["metrics"]["ended_by"] == "defused"


# -- 6. deadlock --------------------------------------------------------------------------------


def _stalled(env, rounds, actions, messages=None):
    """Play ``rounds`` rounds of ``actions`` (index or callable(round)) with messages."""
    for rnd in range(1, rounds + 1):
        for i, agent in enumerate(AGENTS):
            assert env.agent_selection == agent
            action = actions[i](rnd) if callable(actions[i]) else actions[i]
            if messages is not None:
                msg = messages[i](rnd) if callable(messages[i]) else messages[i]
                env.step({"action": action, "message": msg})
            else:
                env.step(action)
        if env.unwrapped.truncations["alpha"] or env.unwrapped.terminations["alpha"]:
            return rnd
    return None


def test_deadlock_after_three_identical_rounds_without_change():
    # the natural start: everyone in one room, which holds a live bomb
    env = make_env(seed=1)
    base = env.unwrapped
    assert _stalled(env, 2, [INSPECT] * 3) is None
    assert not any(base.truncations.values())
    assert _stalled(env, 1, [INSPECT] * 3) == 1
    assert all(base.truncations.values()) and not any(base.terminations.values())
    metrics = base.infos["charlie"]["metrics"]
    assert metrics["ended_by"] == "deadlock" and metrics["rounds"] == 3
    finish(env)


def test_repeated_invalid_actions_deadlock_too():
    env = make_env(seed=2)
    base = env.unwrapped
    here = base.world.positions["alpha"]
    assert _stalled(env, 5, [go(env, here)] * 3) == 3
    assert base.infos["alpha"]["metrics"]["ended_by"] == "deadlock"
    assert base.infos["alpha"]["metrics"]["valid_action_rate"] == 0.0


@pytest.mark.parametrize("k", [2, 5])
def test_deadlock_rounds_option(k):
    env = make_env(seed=1, deadlock_rounds=k)
    assert _stalled(env, 10, [INSPECT] * 3) == k
    assert env.unwrapped.infos["alpha"]["metrics"]["rounds"] == k


def test_deadlock_off():
    env = make_env(seed=1, deadlock_rounds=0, max_cycles=8)
    assert _stalled(env, 10, [INSPECT] * 3) == 8
    assert env.unwrapped.infos["alpha"]["metrics"]["ended_by"] == "round_limit"


def test_state_change_restarts_the_deadlock_count():
    env = make_env(seed=1)
    base = env.unwrapped
    bomb = base.world.bomb_in(base.world.positions["alpha"])
    colour = bomb.sequence[0]
    cutter = next(a for a in AGENTS if colour in base.layout.cutters[a])
    assert _stalled(env, 2, [INSPECT] * 3) is None
    # round 3: one agent cuts a phase (the world changes), the others inspect again
    play_round(env, [cut(env, colour) if a == cutter else INSPECT for a in AGENTS])
    assert bomb.cut == 1 and not base.truncations["alpha"]
    assert _stalled(env, 2, [INSPECT] * 3) is None  # rounds 4, 5
    assert _stalled(env, 1, [INSPECT] * 3) == 1  # round 6: third identical, unchanged round
    assert base.infos["alpha"]["metrics"]["rounds"] == 6
    assert base.infos["alpha"]["metrics"]["ended_by"] == "deadlock"


def test_same_messages_deadlock_different_messages_do_not():
    env = make_env(seed=1, messages=True)
    assert _stalled(env, 5, [INSPECT] * 3, ["waiting"] * 3) == 3
    assert env.unwrapped.infos["alpha"]["metrics"]["ended_by"] == "deadlock"

    env = make_env(seed=1, messages=True, max_cycles=8)
    changing = [lambda r: f"still waiting, round {r}", "waiting", "waiting"]
    assert _stalled(env, 10, [INSPECT] * 3, changing) == 8
    assert env.unwrapped.infos["alpha"]["metrics"]["ended_by"] == "round_limit"


def test_one_changed_message_restarts_the_count():
    # alpha's message changes from round 3 on: rounds 3-5 are the identical run
    env = make_env(seed=1, messages=True)
    from3 = [lambda r: "news" if r >= 3 else "waiting", "waiting", "waiting"]
    assert _stalled(env, 10, [INSPECT] * 3, from3) == 5
    # a one-off message in round 3 only: rounds 4-6 are the next identical run
    env = make_env(seed=1, messages=True)
    once = [lambda r: "news" if r == 3 else "waiting", "waiting", "waiting"]
    assert _stalled(env, 10, [INSPECT] * 3, once) == 6


# -- 7. illegal input ---------------------------------------------------------------------------


BAD_INPUT = [
    (9, "invalid:out_of_range", ["action 9 does not exist", "0 to 8"]),
    (100, "invalid:out_of_range", ["action 100 does not exist"]),
    (-1, "invalid:out_of_range", ["action -1 does not exist", "0 to 8"]),
    (None, "invalid:unparseable", ["not an action"]),
    (2.7, "invalid:unparseable", ["float", "not an action"]),
    (1.0, "invalid:unparseable", ["float", "not an action"]),
    (np.float32(1.0), "invalid:unparseable", ["not an action"]),
    ([1], "invalid:unparseable", ["not an action"]),
    ("asdf qwerty", "invalid:unparseable", ["no action found", "Action selection"]),
    ("", "invalid:unparseable", ["no action found"]),
    ("go to room 7", "invalid:unparseable", ["room 7 does not exist"]),
]


@pytest.mark.parametrize("bad,code,words", BAD_INPUT, ids=[repr(b[0]) for b in BAD_INPUT])
def test_illegal_input_is_an_invalid_action(bad, code, words):
    env = make_env()
    base = place(env, 0)
    before = base.world.key()
    env.step(bad)
    assert base.world.key() == before and env.agent_selection == "bravo"
    assert base.metrics()["invalid_actions"] == 1
    line = next(x for x in text_of(env, "alpha").splitlines() if "Your last action" in x)
    assert line.startswith("- Your last action failed:")
    for word in words:
        assert word in line, (word, line)
    assert decoded(env, "alpha")[1] == code
    env.step(INSPECT)
    env.step(INSPECT)
    assert base.world.round == 2


def test_numpy_integers_are_actions():
    env = make_env()
    base = place(env, 0)
    env.step(np.int64(go(env, 3)))
    assert base.world.positions["alpha"] == 3
    env.step(np.array(go(env, 5)))  # a 0-d integer array, as some RL loops pass
    assert base.world.positions["bravo"] == 5


def test_text_actions_in_step():
    env = make_env()
    base = place(env, 0)
    env.step("go to room 3")
    assert base.world.positions["alpha"] == 3
    assert "you moved to room 3" in text_of(env, "alpha")
    env.step("Action selection: inspect the bomb. Message to Team: nothing yet")
    assert decoded(env, "bravo")[1] == "inspected"
    env.step("use the red cutter")
    assert base.world.bombs[0].defused and base.world.score == 10
    assert base.metrics()["invalid_actions"] == 0


def test_dead_agents_step_none_after_the_end():
    env = make_env(max_cycles=1)
    play_round(env, [INSPECT] * 3)
    assert all(env.unwrapped.truncations.values())
    finish(env)


# -- 8. witnesses and what teammates see --------------------------------------------------------


def test_witness_inspection_seen_by_teammate_in_the_room_only():
    env = make_env(witness=True)
    place(env, {"alpha": 8, "bravo": 8, "charlie": 0})
    env.step(INSPECT)
    bravo, charlie = text_of(env, "bravo"), text_of(env, "charlie")
    assert "You saw Alpha inspect bomb 5." in bravo
    assert "Bomb 5 remaining sequence: red, green, blue." in bravo
    assert "You saw" not in charlie and "remaining sequence" not in charlie
    assert decoded(env, "bravo")[0][("bomb_remaining", 5)] == ("red", "green", "blue")
    assert ("bomb_remaining", 5) not in decoded(env, "charlie")[0]
    # the actor itself is told
    assert "you inspected bomb 5" in text_of(env, "alpha")


def test_witness_cut_seen_by_teammate_in_the_room():
    env = make_env(witness=True)
    place(env, {"alpha": 8, "bravo": 8, "charlie": 0})
    env.step(cut(env, "red"))
    assert "You saw Alpha apply the red cutter to bomb 5." in text_of(env, "bravo")
    assert "You saw" not in text_of(env, "charlie")


def test_witness_arrival_is_seen_by_those_in_the_new_room():
    env = make_env(witness=True)
    place(env, {"alpha": 0, "bravo": 3, "charlie": 6}, None)
    env.step(go(env, 3))
    assert "You saw Alpha move." in text_of(env, "bravo")
    assert "You saw" not in text_of(env, "charlie")


def test_paper_rule_by_default_only_the_actor_sees_consequences():
    """The paper: an agent cannot observe another's actions or their consequences unless told;
    what stays visible is the room's state (a bomb there and its status)."""
    assert make_env().unwrapped.rules.witness is False
    env = make_env()
    place(env, {"alpha": 8, "bravo": 8, "charlie": 0})
    env.step(INSPECT)
    assert "You saw" not in text_of(env, "bravo")
    assert "remaining sequence" not in text_of(env, "bravo")
    assert "Bomb 5 remaining sequence: red, green, blue." in text_of(env, "alpha")
    env.step(cut(env, "green"))  # bravo: wrong colour, rejected
    env.step(go(env, 8))  # charlie arrives
    env.step(cut(env, "red"))  # alpha cuts with both teammates present
    assert "You saw" not in text_of(env, "bravo") and "You saw" not in text_of(env, "charlie")
    assert "remaining sequence" not in text_of(env, "bravo")
    assert ("bomb_remaining", 5) not in decoded(env, "bravo")[0]


def test_paper_rule_shows_a_status_change_to_those_present():
    env = make_env()
    base = place(env, {"alpha": 0, "bravo": 0, "charlie": 6})
    env.step(cut(env, "red"))  # alpha defuses bomb 1 (one phase, red) with bravo present
    assert base.world.bombs[0].defused
    bravo = text_of(env, "bravo")
    assert "Bomb 1 is defused." in bravo and "You saw" not in bravo
    assert decoded(env, "bravo")[0][("bomb_status", 1)] == "defused"
    assert "Bomb 1 is defused." not in text_of(env, "charlie")


@pytest.mark.parametrize("see", [True, False])
def test_see_teammates(see):
    env = make_env(see_teammates=see)
    place(env, {"alpha": 8, "bravo": 8, "charlie": 0})
    text = text_of(env, "alpha")
    facts = decoded(env, "alpha")[0]
    assert "Alpha is in room 8." in text and "Bravo is in room 8." in text
    assert facts[("agent_room", "bravo")] == 8
    if see:
        assert "Charlie is in room 0." in text
        assert facts[("agent_room", "charlie")] == 0
    else:
        assert "Charlie is in room" not in text
        assert ("agent_room", "charlie") not in facts
        assert "Alpha is in room" not in text_of(env, "charlie")


def test_invalid_actions_are_private():
    env = make_env()
    place(env, 8)
    env.step(go(env, 5))  # not adjacent
    assert "failed" not in text_of(env, "bravo") and "You saw" not in text_of(env, "bravo")


# -- 9. procedural instances --------------------------------------------------------------------


PROC = dict(n_rooms=9, n_bombs=8, n_agents=4, n_colours=4)


@pytest.mark.parametrize("seed", range(6))
def test_procedural_instance(seed):
    env = make_env(seed=seed, **PROC)
    base = env.unwrapped
    layout = base.layout
    assert layout.rooms == tuple(range(9))
    assert connected(layout.rooms, layout.neighbours)
    assert env.possible_agents == ["alpha", "bravo", "charlie", "delta"]
    assert layout.colours == ("red", "green", "blue", "yellow")
    for colour in layout.colours:
        assert sum(colour in layout.cutters[a] for a in env.possible_agents) >= 2
    assert all(layout.cutters[a] for a in env.possible_agents)
    assert len(layout.actions) == 1 + 9 + 4
    for agent in env.possible_agents:
        assert base.action_space(agent).n == 14
        assert base.observe(agent)["action_mask"].shape == (14,)
    bombs = base.world.bombs
    assert [b.id for b in bombs] == list(range(1, 9))
    assert len({b.room for b in bombs}) == 8  # at most one bomb per room
    for bomb, n in zip(bombs, layout.phases, strict=True):
        assert len(bomb.sequence) == n and len(set(bomb.sequence)) == n
        assert set(bomb.sequence) <= set(layout.colours)
    assert layout.max_score == 10 * sum(layout.phases)
    assert len(set(base.world.positions.values())) == 1  # everyone starts together
    # masks follow this instance's doors
    room = base.world.positions["alpha"]
    go_rooms = {arg for kind, arg in mask_set(env, "alpha") if kind == "go"}
    assert go_rooms == set(layout.neighbours[room])


def test_procedural_scripted_team_runs():
    from mase.agents import make_policy

    for seed in range(3):
        env = mase.wrappers.MessageChannel(mase.make(ENV_ID, **PROC))
        team = {a: make_policy("scripted", env) for a in env.possible_agents}
        record = mase.run_episode(env, team, seed=seed, record_text=False)
        metrics = record["metrics"]
        assert 0 < metrics["score"] <= metrics["max_score"]
        assert metrics["score"] % 10 == 0
        assert metrics["ended_by"] in ("defused", "round_limit", "deadlock")
        assert 1 <= metrics["rounds"] <= 30


def test_procedural_graph_changes_between_episodes():
    env = mase.make(ENV_ID, **PROC)
    graphs = set()
    for seed in range(5):
        env.reset(seed=seed)
        graphs.add(env.unwrapped.layout.edges)
        assert connected(env.unwrapped.layout.rooms, env.unwrapped.layout.neighbours)
    assert len(graphs) > 1


@pytest.mark.parametrize(
    "sizes,words",
    [
        (dict(n_rooms=5, n_bombs=6), "n_bombs"),
        (dict(n_bombs=6), "n_bombs"),
        (dict(n_rooms=1), "n_rooms"),
        (dict(n_rooms=0), "n_rooms"),
        (dict(n_bombs=0), "n_bombs"),
        (dict(n_agents=0), "n_agents"),
        (dict(n_agents=9), "n_agents"),
        (dict(n_colours=0), "n_colours"),
        (dict(n_colours=9), "n_colours"),
    ],
)
def test_invalid_sizes_raise(sizes, words):
    with pytest.raises(ValueError, match=words):
        mase.make(ENV_ID, **sizes)


@pytest.mark.parametrize(
    "option",
    [
        dict(layout="grid"),
        dict(wrong_cutter="boom"),
        dict(credit="x"),
        dict(max_cycles=0),
        dict(deadlock_rounds=-1),
    ],
)
def test_invalid_options_raise(option):
    with pytest.raises(ValueError):
        mase.make(ENV_ID, **option)


# -- 10. random layout --------------------------------------------------------------------------


def test_random_layout():
    env = mase.make(ENV_ID, layout="random")
    graphs = []
    for seed in range(8):
        env.reset(seed=seed)
        layout = env.unwrapped.layout
        assert layout.rooms == world.PAPER_ROOMS
        assert connected(layout.rooms, layout.neighbours)
        assert len(layout.edges) == len(world.PAPER_EDGES)
        assert env.possible_agents == list(AGENTS)
        doors = ", ".join(f"{a}-{b}" for a, b in layout.edges)
        assert f"Doors (you can move only through a door): {doors}." in env.unwrapped.rules_text(
            "alpha"
        )
        room = env.unwrapped.world.positions["alpha"]
        go_rooms = {arg for kind, arg in mask_set(env, "alpha") if kind == "go"}
        assert go_rooms == set(layout.neighbours[room])
        graphs.append(layout.edges)
    assert len(set(graphs)) > 1
    # the same seed gives the same graph
    env.reset(seed=0)
    assert env.unwrapped.layout.edges == graphs[0]
    # unseeded resets draw new graphs too, and the masks follow them
    for _ in range(5):
        env.reset()
        layout = env.unwrapped.layout
        for agent in AGENTS:
            room = env.unwrapped.world.positions[agent]
            go_rooms = {arg for kind, arg in mask_set(env, agent) if kind == "go"}
            assert go_rooms == set(layout.neighbours[room])
