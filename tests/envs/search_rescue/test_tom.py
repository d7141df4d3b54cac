"""The Theory-of-Mind phrase layer and the paper's probe hooks of search and rescue."""

import numpy as np
import pytest

from mase.envs.search_rescue import tom
from mase.events import Event
from mase.probes import LEVELS, ProbeContext

ALL_CLAIMS = [
    tom.Claim(level, kind, subject, None if level == "introspection" else "bravo")
    for level in tom.LEVELS
    for kind in tom.KINDS
    for subject in (3, 12)
]


@pytest.mark.parametrize("claim", ALL_CLAIMS, ids=str)
def test_questions_and_statements_read_back(claim):
    assert tom.parse_question("Round 3. " + tom.question(claim) + " Answer.") == claim
    for holds in (True, False):
        assert tom.parse_statements(tom.statement(claim, holds)) == {claim: holds}


def test_statements_of_a_belief_section_read_back_together():
    claims = ALL_CLAIMS[:6]
    text = " ".join(tom.statement(c, i % 2 == 0) for i, c in enumerate(claims))
    assert tom.parse_statements(text) == {c: i % 2 == 0 for i, c in enumerate(claims)}
    assert tom.LEVELS is LEVELS  # one definition, in mase.probes


def context(*events, agent="alpha", seed=0, agents=("alpha", "bravo", "charlie")):
    env = type("Env", (), {"possible_agents": list(agents)})()
    truth = {("room_bomb", 8): 5, ("bomb_status", 5): "active", ("room_bomb", 3): 0}
    rngs = {seat: np.random.default_rng([seed, i]) for i, seat in enumerate(agents)}
    return ProbeContext(agent, events, env, None, truth, rngs)


ALONE = frozenset({"alpha"})
MOVE = Event("move", "alpha", {("agent_room", "alpha"): 8}, ALONE, 1)
INSPECT = Event("inspect", "alpha", {("bomb_room", 5): 8, ("bomb_phases", 5): 1}, ALONE, 1)
CUT = Event("cut", "alpha", {("bomb_remaining", 5): (), ("score",): 10}, ALONE, 1, "red")
EXPLODE = Event("explode", "alpha", {("bomb_status", 5): "exploded"}, ALONE, 1, "red")


@pytest.mark.parametrize(
    ("event", "kinds", "subject"),
    [
        (MOVE, ("room",), 8),
        (INSPECT, ("sequence",), 5),
        (CUT, ("state", "phase"), 5),
        (EXPLODE, ("state",), 5),
    ],
    ids=["move", "inspect", "cut", "explode"],
)
def test_paper_probe_asks_three_levels_per_kind(event, kinds, subject):
    observe = Event("observe", "alpha", {("score",): 0}, ALONE, 1)
    questions = list(tom.paper_questions(context(observe, event)))
    assert [(q.level, q.kind) for q in questions] == [(lv, k) for k in kinds for lv in LEVELS]
    assert {q.asked for q in questions} == {"alpha"}
    abouts = {q.about for q in questions if q.level != "introspection"}
    assert len(abouts) == 1 and abouts <= {"bravo", "charlie"}
    for q in questions:
        assert q.facts == tom.fact_keys(q.kind, subject, context().truth)
        assert tom.parse_question(q.question) == tom.Claim(q.level, q.kind, subject, q.about)


def test_paper_probe_ignores_invalid_actions_messages_and_others_actions():
    invalid = Event("invalid", "alpha", {}, ALONE, 1, "no_bomb:0")
    message = Event("message", "alpha", {}, frozenset({"alpha", "bravo"}), 1, "Bomb 5 is here.")
    bravo = Event("inspect", "bravo", INSPECT.facts, frozenset({"alpha", "bravo"}), 1)
    assert list(tom.paper_questions(context(invalid, message, bravo))) == []


def test_paper_probe_without_teammates_asks_introspection_only():
    questions = list(tom.paper_questions(context(MOVE, agents=("alpha",))))
    assert [q.level for q in questions] == ["introspection"]


def test_paper_probe_draws_the_teammate_from_the_seeded_generator():
    abouts = [list(tom.paper_questions(context(MOVE, seed=s)))[1].about for s in range(12)]
    assert abouts == [list(tom.paper_questions(context(MOVE, seed=s)))[1].about for s in range(12)]
    assert set(abouts) == {"bravo", "charlie"}
    assert tom.PAPER_PROBES == (tom.paper_questions,)
