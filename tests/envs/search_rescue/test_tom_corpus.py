"""The knowledge tracker against the hand-annotated Theory-of-Mind corpus (``tom_corpus.py``).

Each case of the corpus is played on a placed world; then every question is answered by the
tracker (the same ground truth :class:`mase.wrappers.ToMProbe` scores against) and compared
with the annotators' answer. Questions the annotators marked ambiguous are excluded from the
agreement and listed apart.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from scenarios import BOMBS
from tom_corpus import CASES

import mase
from mase.envs.search_rescue import tom, world
from mase.probes import Question, true_answer
from mase.wrappers import MessageChannel

#: The five cases the ground-truth audit found wrong (bomb 2 in room 3, sequence red, blue).
_AUDIT_BOMBS = {**BOMBS, 2: (3, ("red", "blue"))}
_AUDIT_TOLD = "alpha: pass | to bravo: Bomb 2 remaining sequence: red, blue."
AUDIT = [
    {
        "name": "audit 1: inspected alone, then the sequence told in the game's sentence",
        "start": {"alpha": 3, "bravo": 0, "charlie": 8},
        "bombs": _AUDIT_BOMBS,
        "turns": [
            "alpha: inspect",
            "bravo: pass",
            "charlie: pass",
            _AUDIT_TOLD,
            "bravo: pass",
        ],
        "ask": [
            ("alpha", "first_order", "bravo", "sequence", 2, "yes", "told by alpha"),
            ("bravo", "second_order", "alpha", "sequence", 2, "yes", "alpha told bravo"),
            ("alpha", "second_order", "bravo", "sequence", 2, "yes", "bravo got it from alpha"),
        ],
    },
    {
        "name": "audit 2: all three in room 6, then alpha walks in where bravo stands",
        "start": {"alpha": 6, "bravo": 6, "charlie": 6},
        "bombs": _AUDIT_BOMBS,
        "turns": ["alpha: pass", "bravo: pass", "charlie: go 5", "alpha: go 5", "bravo: pass"],
        "ask": [
            ("alpha", "second_order", "bravo", "room", 6, "yes", "they stood in room 6 together"),
            ("alpha", "second_order", "charlie", "room", 5, "yes", "alpha walked in to charlie"),
            ("charlie", "second_order", "alpha", "room", 5, "yes", "charlie saw alpha arrive"),
            ("bravo", "second_order", "alpha", "room", 6, "yes", "seen together in round 1"),
        ],
    },
    {
        "name": "audit 3: the paper's rule: an inspection beside a teammate shows it nothing",
        "start": {"alpha": 3, "bravo": 3, "charlie": 0},
        "bombs": _AUDIT_BOMBS,
        "turns": ["alpha: inspect", "bravo: pass", "charlie: pass", "alpha: cut red"],
        "ask": [
            ("alpha", "first_order", "bravo", "sequence", 2, "no", "bravo saw no result"),
            ("alpha", "first_order", "bravo", "state", 2, "no", "the cut's result is unseen"),
            ("alpha", "first_order", "bravo", "room", 3, "yes", "bravo sees the room's state"),
        ],
    },
    {
        "name": "audit 4: the remaining sequence told: the bomb's state known both ways",
        "start": {"alpha": 3, "bravo": 0, "charlie": 8},
        "bombs": _AUDIT_BOMBS,
        "turns": [
            "alpha: cut red",
            "bravo: pass",
            "charlie: pass",
            "alpha: pass | to bravo: Bomb 2 remaining sequence: blue.",
            "bravo: pass",
        ],
        "ask": [
            ("alpha", "second_order", "bravo", "state", 2, "yes", "alpha told bravo"),
            ("bravo", "second_order", "alpha", "state", 2, "yes", "alpha told bravo"),
            ("alpha", "first_order", "bravo", "state", 2, "yes", "active, blue left"),
        ],
    },
    {
        "name": "audit 5: a teammate leaves, then alpha cuts",
        "start": {"alpha": 3, "bravo": 3, "charlie": 0},
        "bombs": _AUDIT_BOMBS,
        "rule": "witness",
        "turns": ["alpha: inspect", "bravo: go 0", "charlie: pass", "alpha: cut red"],
        "ask": [
            ("alpha", "introspection", None, "state", 2, "yes", "alpha cut it"),
            ("alpha", "first_order", "bravo", "state", 2, "no", "bravo left before the cut"),
            ("alpha", "second_order", "bravo", "state", 2, "no", "bravo saw only the old state"),
        ],
    },
]

#: Audit 1b: the same, in plain words.
AUDIT.insert(
    1,
    {
        **AUDIT[0],
        "name": "audit 1b: the same in plain words",
        "turns": [
            t if t != _AUDIT_TOLD else "alpha: pass | to bravo: bomb 2 needs red then blue"
            for t in AUDIT[0]["turns"]
        ],
    },
)

_TURN = re.compile(r"^(\w+):\s*(.+?)(?:\s*\|\s*to (\w+):\s*(.*))?$", re.S)


def play_case(case: dict):
    """The env after the case's turns (a direct-message channel, the case's rules and world)."""
    env = MessageChannel(
        mase.make(
            "mase/SearchRescue-v0",
            obs_mode="vector",
            witness=case.get("rule", "paper") == "witness",
            wrong_cutter=case.get("wrong_cutter", "reject"),
        ),
        topology="direct",
    )
    env.reset(seed=0)
    base = env.unwrapped
    base.world.positions = dict(case["start"])
    bombs = case.get("bombs") or BOMBS
    base.world.bombs = [world.Bomb(int(i), room, tuple(seq)) for i, (room, seq) in bombs.items()]
    base.world.bombs.sort(key=lambda b: b.id)
    layout = base.layout
    for turn in case["turns"]:
        m = _TURN.match(turn.strip())
        assert m, f"{case['name']}: unreadable turn {turn!r}"
        agent, action, to, message = m.groups()
        assert env.agent_selection == agent, f"{case['name']}: {turn!r} out of turn"
        words = action.split()
        if words[0] == "pass":
            index = len(layout.actions)  # no such action: the turn is wasted, nothing seen
        elif words[0] == "inspect":
            index = layout.action_index("inspect")
        elif words[0] == "go":
            index = layout.action_index("go", int(words[1]))
        elif words[0] == "cut":
            index = layout.action_index("cut", words[1])
        else:
            raise AssertionError(f"{case['name']}: unknown action {action!r}")
        if message is None:
            env.step(index)
        else:
            step = {"action": index, "message": message}
            if to != "all":
                step["to"] = to
            env.step(step)
    return env


def tracker_answer(env, asked, level, about, kind, subject):
    """The tracker's answer (and its evidence) to one question, now."""
    base = env.unwrapped
    tracker, truth = base.knowledge(), base.true_facts()
    keys = tom.fact_keys(kind, subject, truth)
    question = Question(asked, level, kind, "?", keys, about)
    holds, _ = true_answer(question, tracker, truth)
    return holds


def judge(cases=CASES + AUDIT):
    """Every question with the annotators' and the tracker's answers."""
    rows = []
    for case in cases:
        env = play_case(case)
        for asked, level, about, kind, subject, expected, why in case["ask"]:
            got = tracker_answer(env, asked, level, about, kind, subject)
            rows.append((case["name"], asked, level, about, kind, subject, expected, got, why))
    return rows


@pytest.fixture(scope="module")
def rows():
    return judge()


def test_the_corpus_covers_every_level_and_kind_both_ways(rows):
    assert len(CASES) >= 60
    seen = Counter((r[2], r[4], r[6]) for r in rows)
    for level in ("introspection", "first_order", "second_order"):
        for kind in tom.KINDS:
            assert seen[level, kind, "yes"] and seen[level, kind, "no"], (level, kind)
    assert sum(r[6] == "ambiguous" for r in rows) >= 6


def test_the_tracker_agrees_with_every_clear_annotation(rows):
    wrong = [r for r in rows if r[6] != "ambiguous" and (r[6] == "yes") != r[7]]
    listing = "\n".join(
        f"{name}: {asked} {level} about={about} {kind} {subject}: annotators {exp}, tracker "
        f"{'yes' if got else 'no'} ({why})"
        for name, asked, level, about, kind, subject, exp, got, why in wrong
    )
    assert not wrong, f"{len(wrong)} disagreements:\n{listing}"
