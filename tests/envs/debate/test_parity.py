"""Debate's two views state the same facts: each kind of fact a view's text states, read back.

The text is read line by line with the task's own readers (:func:`.text.stated`); the vector is
decoded by :func:`.vector.read`. Each scenario plays a debate by hand and names the facts the
text states, then checks the vector holds exactly those.
"""

import numpy as np
import pytest

import mase
from mase.checks import check_parity
from mase.envs.debate import text as words
from mase.envs.debate import vector
from mase.envs.debate.questions import SQUARES, Question

Q = Question("hand/0", "hand", "What is 2+3? Make sure to state your answer.", 5, "number")
LETTER = Question(
    "hand/1", "hand", "Pick (X): A) 1, B) 2, C) 3, D) 4", "C", "choice", ("A", "B", "C", "D")
)


def debate(question=Q, **kwargs):
    env = mase.make("mase/Debate-v0", questions=[question], **kwargs)
    env.reset(seed=0)
    return env, env.unwrapped


def views(base, agent):
    """The facts ``agent``'s text states, after checking its vector holds the same."""
    obs = base.observe(agent)
    stated = base.text_knowledge(agent, obs["text"])
    assert base.vector_knowledge(agent, obs["observation"]) == stated
    return stated


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"summarize": True},
        {"agents": 1, "rounds": 2},
        {"agents": 4, "rounds": 3},
        {"agents": 1, "rounds": 1},
        {"source": "mmlu"},
        {"source": "gsm8k", "summarize": True, "agents": 2},
        {"source": "gsm8k", "agents": 6},
    ],
)
def test_each_seats_vector_carries_what_its_text_states(kwargs):
    assert check_parity("mase/Debate-v0", episodes=4, **kwargs) > 0


def test_chess_squares_as_answers():
    pytest.importorskip("chess")
    assert check_parity("mase/Debate-v0", episodes=2, source="chess") > 0


def test_a_view_states_the_round_the_others_answers_and_its_own():
    env, base = debate(agents=3, rounds=3)
    assert views(base, "alpha") == {("round",): 1, ("rounds",): 3, ("waiting",): False}
    env.step("It is 5.")  # alpha
    assert views(base, "alpha")[("waiting",)] is True
    env.step("I cannot tell.")  # bravo: a reply with no answer to read
    env.step(r"So \boxed{-1,234.50}")  # charlie
    assert views(base, "bravo") == {
        ("round",): 2, ("rounds",): 3, ("waiting",): True,
        ("answer", "bravo"): None, ("answer", "alpha"): 5, ("answer", "charlie"): -1234.5,
    }  # fmt: skip


def test_the_question_states_its_operands_or_its_options():
    env = mase.make("mase/Debate-v0", n_questions=3)
    env.reset(seed=1)
    base = env.unwrapped
    a, b, c, d, e, f = base.debate.question.features
    assert views(base, "alpha")[("operands",)] == (a, b, c, d, e, f)
    env, base = debate(LETTER, rounds=1)
    assert views(base, "alpha")[("options",)] == 4 and ("operands",) not in views(base, "alpha")


def test_the_end_states_the_final_answer_and_whether_it_is_right():
    env, base = debate(LETTER, rounds=1)
    for reply in (2, 2, 0):  # indices: (C), (C), (A)
        env.step(reply)
    assert views(base, "charlie") == {
        ("round",): 1, ("rounds",): 1, ("waiting",): False, ("options",): 4,
        ("final",): "C", ("correct",): True,
    }  # fmt: skip
    env, base = debate(rounds=1)
    for reply in ("no idea", "none", "?"):
        env.step(reply)
    assert views(base, "alpha")[("final",)] is None and not views(base, "alpha")[("correct",)]


def test_the_summarizer_reads_every_answer_and_the_debaters_its_counts():
    env, base = debate(summarize=True, agents=3)
    for reply in ("5", "6", "5"):
        env.step(reply)
    assert views(base, "summarizer") == {
        ("round",): 1, ("rounds",): 2, ("waiting",): False,
        ("answer", "alpha"): 5, ("answer", "bravo"): 6, ("answer", "charlie"): 5,
    }  # fmt: skip
    # a count of more agents than debate, and more counts than debaters: the first three held
    env.step("2 agent(s) answer 5; 9 agent(s) answer 7; 1 agent(s) answer 6; 1 agent(s) answer 8;"
             " 1 agent(s) answer 3.")  # fmt: skip
    stated = views(base, "bravo")
    assert {k: v for k, v in stated.items() if k[0] == "summary"} == {
        ("summary", 0): (5, 2), ("summary", 1): (6, 1), ("summary", 2): (8, 1),
    }  # fmt: skip
    assert ("answer", "alpha") not in stated and stated[("answer", "bravo")] == 6


def test_many_long_replies_share_the_view_and_none_is_cut_off():
    env, base = debate(agents=10, rounds=2)
    for k in range(10):
        env.step("x" * 9_000 + f" My answer is {k}.")
    text = base.observe_text("alpha")
    assert text.endswith(words.REQUESTS["default"].strip()) and "[...]" in text
    stated = views(base, "alpha")
    assert [stated[("answer", seat)] for seat in base.debaters] == list(range(10))


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("number", 0), ("number", -7), ("number", 999_999_999_999_999_999), ("number", 0.1),
        ("number", -1234.5), ("number", 1e-17), ("number", 12345678901234567.8),
        ("choice", "A"), ("choice", "D"), ("square", "a1"), ("square", "h8"),
        ("move", "e2e4"), ("move", "e7e8q"), ("move", "b2a1n"),
    ],
)  # fmt: skip
def test_an_answer_code_gives_the_answer_back_exactly(kind, value):
    code = np.asarray(vector.encode(kind, value), dtype=np.float32)
    assert len(code) == vector.WIDTHS[kind] and ((code >= 0) & (code <= 1)).all()
    back = vector.decode(kind, code)  # a whole number is an int, as the reader gives it
    fraction = isinstance(value, float) and value % 1 != 0
    assert back == value and isinstance(back, float) == fraction


def test_a_code_encode_never_writes_is_refused():
    with pytest.raises(ValueError):
        vector.decode("number", [1.0] + [0.0] * 19)  # minus zero
    with pytest.raises(ValueError):
        vector.decode("square", [0.5 / 63])
    assert vector.decode("square", [SQUARES.index("e4") / 63]) == "e4"


def test_the_layout_keeps_the_first_releases_vector_first():
    layout = debate()[1].vector_layout("alpha")
    assert [b.name for b in layout][:3] == ["round", "operands", "answers"]
    assert sum(b.size for b in list(layout)[:3]) == 13  # the first release's 13 numbers
    summary = debate(summarize=True)[1].vector_layout("alpha")
    assert any(b.name == "summary" and b.bound for b in summary)
