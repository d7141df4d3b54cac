"""Debate's question sources and readers, from the released code's rules and hand-made cases."""

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from mase.envs.debate import questions, readers
from mase.envs.debate.chess_tasks import (
    legal_squares,
    read_validity_input,
    validity_questions,
)

DATA = Path(questions.__file__).parent / "data"  # the package's own small sets
# the BIG-bench files of shared/ (beside the repository, as CI lays it out)
BIGBENCH = Path(__file__).resolve().parents[4] / "shared" / "data" / "bigbench"
needs_bigbench = pytest.mark.skipif(
    not BIGBENCH.is_dir(), reason=f"no shared/ beside the repository ({BIGBENCH})"
)


# -- readers: hand-made replies -------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        (r"First 3*4 = 12. So the answer is \boxed{20}.", 20),
        (r"\boxed{1,234} people; that is 1234 in all, or 12 dozen and 10.", 1234),  # boxed wins
        ("The result is 1,234.", 1234),  # a thousands separator is not a decimal point
        ("Total: 12,5 apples", 5),  # not a thousands group: two numbers, the last read
        ("So the result is -41.", -41),
        ("It is 3.50 dollars", 3.5),
        ("Working: 10-5 = 5, final 5", 5),
        (r"\boxed{\$1,200}", 1200),
        ("I cannot tell.", None),
        (r"\boxed{x} and no number", None),
    ],
)
def test_the_number_reader(reply, value):
    assert readers.read_number(reply) == value


def test_an_unreadable_answer_is_wrong_not_right():
    """The released evaluator returned 1 (right) when no answer could be parsed."""
    q = questions.arithmetic(1)[0]
    assert q.read("I would rather not say.") is None
    assert q.correct(None) is False


def test_ground_truth_with_thousands_separators_is_read_whole():
    """The released evaluator took the first run of digits of '#### 1,625': 1, not 1,625."""
    assert readers.read_truth_number("1,250 + 375 = 1,625\n#### 1,625") == 1625
    gsm = {q.answer for q in questions.gsm8k(DATA / "gsm8k_mini.jsonl", n=None)}
    assert {1625, 4550, 1800, 1820, 1260} <= gsm
    with pytest.raises(ValueError, match="no number"):
        readers.read_truth_number("#### none")


@pytest.mark.parametrize(
    ("reply", "letter"),
    [("(A) looks right but the answer is (C).", "C"), ("Answer: (b)", "B"),
     ("It is (E), no, (D)", "D"), ("B", None), ("(E)", None)],
)  # fmt: skip
def test_the_choice_reader_takes_the_last_letter_in_parentheses(reply, letter):
    assert readers.read_choice(reply) == letter


def test_the_square_reader_takes_the_last_square():
    assert readers.read_square("From d7 the bishop goes to f5.") == "f5"
    assert readers.read_square("The knight on b1 to c3, or a9") == "c3"
    assert readers.read_square("nowhere") is None


# -- sources ----------------------------------------------------------------------------------


def test_arithmetic_is_the_released_generators_hundred_problems():
    np.random.seed(0)  # the released generator, exactly
    drawn = [tuple(int(x) for x in np.random.randint(0, 30, size=6)) for _ in range(100)]
    made = questions.arithmetic()
    assert [q.features for q in made] == drawn
    first = made[0]
    assert first.prompt.startswith("What is the result of 12+15*21+0-3*27?")
    assert first.answer == 12 + 15 * 21 + 0 - 3 * 27
    lo, hi = questions.ARITHMETIC_RANGE
    assert all(lo <= q.answer <= hi for q in made) and first.choices[0] == lo


def test_gsm8k_is_chosen_by_shuffling_with_seed_zero():
    rows = [json.loads(line) for line in (DATA / "gsm8k_mini.jsonl").read_text().splitlines()]
    random.seed(0)
    random.shuffle(rows)  # the released selection
    state = random.getstate()
    chosen = questions.gsm8k(DATA / "gsm8k_mini.jsonl", n=5)
    expected = [questions.GSM8K_PROMPT.format(r["question"]) for r in rows[:5]]
    assert [q.prompt for q in chosen] == expected
    assert random.getstate() == state  # the caller's random state is left alone


def test_mmlu_takes_a_random_file_then_a_random_row_past_the_header_row():
    files = sorted((DATA / "mmlu").glob("*.csv"))
    tables = [f.read_text().splitlines()[1:] for f in files]  # pandas' default header
    random.seed(0)  # the released selection
    expected = []
    for _ in range(8):
        table = random.choice(tables)
        expected.append(table[random.randint(0, len(table) - 1)].split(",")[0])
    chosen = questions.mmlu(DATA / "mmlu", n=8)
    head = questions.MMLU_PROMPT.split("{}")[0]
    assert all(
        q.prompt.startswith(f"{head}{e}: A) ") for q, e in zip(chosen, expected, strict=True)
    )
    assert all(q.answer in "ABCD" and q.choices == ("A", "B", "C", "D") for q in chosen)
    headers = [f.read_text().splitlines()[0].split(",")[0] for f in files]
    asked = {q.prompt for q in questions.mmlu(DATA / "mmlu", n=200)}
    assert not any(h in p for h in headers for p in asked)  # a file's first row is never asked
    assert len(asked) == sum(len(t) for t in tables)  # every other row is


def test_a_malformed_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "hi"}\n')
    with pytest.raises(ValueError, match="'question' and 'answer'"):
        questions.gsm8k(bad)
    csv_file = tmp_path / "x_test.csv"
    csv_file.write_text("h,a,b,c,d,A\nq,1,2,3,4,Z\n")
    with pytest.raises(ValueError, match="four options"):
        questions.mmlu(csv_file)


# -- chess --------------------------------------------------------------------------------------


@needs_bigbench
@pytest.mark.parametrize("name", ["real_short", "real_medium", "synthetic_short"])
def test_legal_squares_reproduce_every_bigbench_target(name):
    task = json.loads((BIGBENCH / f"chess_state_tracking_{name}.json").read_text())
    for example in task["examples"]:
        moves, start = read_validity_input(example["input"])
        assert set(legal_squares(moves, start)) == set(example["target"]), example["input"]


@needs_bigbench
def test_bigbench_files_load_as_questions_read_by_square():
    loaded = questions.bigbench(BIGBENCH / "chess_state_tracking_real_short.json", n=20)
    assert len(loaded) == 20 and loaded[0].kind == "square"
    assert loaded[0].correct(loaded[0].answer[0]) and not loaded[0].correct("z9")


def test_castling_is_a_legal_square_only_when_asked():
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]
    assert "g1" not in legal_squares(moves, "e1")
    assert "g1" in legal_squares(moves, "e1", castling=True)


def test_fresh_validity_questions_have_exact_answers():
    made = validity_questions(30, seed=3)
    assert len(made) == 30 and len({q.prompt for q in made}) == 30
    for q in made:
        moves, start = read_validity_input(q.extra["input"])
        assert q.answer == legal_squares(moves, start) and q.answer


# -- move quality -------------------------------------------------------------------------------


def test_move_quality_without_the_engine_says_which_package_to_install(monkeypatch):
    import mase
    from mase.envs.debate import chess_tasks

    monkeypatch.setattr(chess_tasks.shutil, "which", lambda name: None)
    with pytest.raises(FileNotFoundError, match="apt-get install stockfish"):
        mase.make("mase/Debate-v0", source="chess_moves", n_questions=2)


@pytest.mark.skipif(
    not (shutil.which("stockfish") or shutil.which("/usr/games/stockfish")),
    reason="Stockfish is not installed (Debian: apt-get install stockfish)",
)
def test_the_engine_scores_a_mate_far_above_a_blunder():
    from mase.envs.debate.chess_tasks import Judge, move_questions

    moves = ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6"]  # Qxf7 is mate
    with Judge(depth=8) as judge:
        mate, _ = judge.score(moves, "h5f7")
        blunder, lost = judge.score(moves, "h5h7")  # the queen for a pawn
        assert mate > 5000 and blunder < 0 and lost < -300
        assert judge.score(moves, "e1e3") is None  # not a legal move
    made = move_questions(5, seed=1)
    assert all(q.kind == "move" and q.answer and q.correct(q.answer[0]) for q in made)
    assert not made[0].correct("a1a1") and made[0].read("I play e2e4, no: d2d4") == "d2d4"
