"""Question sources for debate: each a list of :class:`Question` with its own strict reader.

=================  ==========================================================================
source             questions
=================  ==========================================================================
``arithmetic``     ``a+b*c+d-e*f``, six integers uniform in 0..29, drawn as the released
                   generator draws them (numpy's legacy ``seed(0)``, then
                   ``randint(0, 30, size=6)`` per question): its 100 problems exactly
``gsm8k``          a GSM8K JSONL file (``question``, ``answer`` ending ``#### N``); the released
                   selection: ``random.seed(0)``, shuffle, the first ``n``
``mmlu``           MMLU CSV files (question, four options, answer letter; no header); the
                   released selection: ``random.seed(0)``, then ``n`` times a random file and
                   a random row
``bigbench``       any BIG-bench JSON task file (``examples`` of ``input`` and ``target``)
``chess``          BIG-bench ``chess_state_tracking``: a UCI move prefix ending in a start
                   square; the answer is any square that piece can legally move to
=================  ==========================================================================

A question says how to read a reply (``reader``) and whether an answer is right (``correct``);
its ``choices`` are the finite answer set where there is one (the discrete action of RL and
scripted seats), and ``features`` its numbers for the vector view.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from mase.envs.debate import readers

#: The arithmetic answers' range: a + b*c + d - e*f with each in 0..29.
ARITHMETIC_RANGE = (-29 * 29, 29 + 29 * 29 + 29)
SQUARES = tuple(f + r for r in "12345678" for f in "abcdefgh")


@dataclass(frozen=True)
class Question:
    """One question, its truth, and how a reply to it is read.

    Attributes:
        id: the question's place in its source (``arithmetic/17``, ``gsm8k/1203``).
        source: the source's name.
        prompt: the question as the agents are asked it (the released prompts' words).
        answer: the ground truth: a number, a letter, or a tuple of acceptable answers.
        kind: how replies are read: ``"number"``, ``"choice"``, ``"square"`` or ``"move"``.
        choices: the finite answer set, when there is one (as the discrete action indexes it).
        features: numbers for the vector view (the six integers of an arithmetic question).
        extra: what else the source knows (the move prefix of a chess question, ...).
    """

    id: str
    source: str
    prompt: str
    answer: Any
    kind: str
    choices: tuple[Any, ...] | None = None
    features: tuple[float, ...] = ()
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def read(self, reply: str) -> Any:
        """The answer ``reply`` gives, or ``None`` when it gives none this reader can read."""
        return READERS[self.kind](reply)

    def correct(self, answer: Any) -> bool:
        """Whether a read answer is right (``None``, an unreadable one, never is)."""
        if answer is None:
            return False
        if isinstance(self.answer, tuple):
            return answer in self.answer
        if self.kind == "number":
            try:
                return Fraction(answer) == Fraction(self.answer)
            except (TypeError, ValueError):
                return False
        return answer == self.answer

    def say(self, answer: Any) -> str:
        """An answer written as this question asks for it (how a discrete action is spoken)."""
        if self.kind == "choice":
            return f"My answer is ({answer})."
        if self.kind == "move":
            return f"My move is {answer}."
        if self.kind == "number" and self.source != "arithmetic":
            return f"My answer is \\boxed{{{answer}}}."
        return f"My answer is {answer}."


READERS: dict[str, Callable[[str], Any]] = {
    "number": readers.read_number,
    "choice": readers.read_choice,
    "square": readers.read_square,
    "move": readers.read_move,
}


# -- arithmetic ---------------------------------------------------------------------------------

ARITHMETIC_PROMPT = (
    "What is the result of {}+{}*{}+{}-{}*{}? Make sure to state your answer at the end of the "
    "response."
)


def arithmetic(n: int = 100, seed: int = 0) -> list[Question]:
    """``n`` problems as the released generator makes them (its 100 with ``seed=0``)."""
    rng = np.random.RandomState(seed)  # numpy's legacy generator, as np.random.seed does
    lo, hi = ARITHMETIC_RANGE
    out = []
    for i in range(n):
        a, b, c, d, e, f = (int(x) for x in rng.randint(0, 30, size=6))
        out.append(
            Question(
                id=f"arithmetic/{i}",
                source="arithmetic",
                prompt=ARITHMETIC_PROMPT.format(a, b, c, d, e, f),
                answer=a + b * c + d - e * f,
                kind="number",
                choices=tuple(range(lo, hi + 1)),
                features=(a, b, c, d, e, f),
            )
        )
    return out


# -- GSM8K --------------------------------------------------------------------------------------

GSM8K_PROMPT = (
    "Can you solve the following math problem? {} Explain your reasoning. Your final answer "
    "should be a single numerical number, in the form \\boxed{{answer}}, at the end of your "
    "response. "
)


def gsm8k(path: str | Path, n: int | None = 100, seed: int = 0) -> list[Question]:
    """Questions of a GSM8K JSONL file, chosen as the released code chooses its 100.

    ``random.seed(seed)``, ``random.shuffle`` of the file's rows, the first ``n`` (all with
    ``n=None``). The truth is the number after ``####``, thousands separators read as such.

    Raises:
        ValueError: a row without ``question`` and ``answer``, or with no number to read.
    """
    rows = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict) or not {"question", "answer"} <= row.keys():
                raise ValueError(f"{path}:{number}: a GSM8K row has 'question' and 'answer'")
            rows.append((number, row))
    random.Random(seed).shuffle(rows)  # as random.seed(seed); random.shuffle(rows)
    return [
        Question(
            id=f"gsm8k/{number}",
            source="gsm8k",
            prompt=GSM8K_PROMPT.format(row["question"]),
            answer=readers.read_truth_number(row["answer"]),
            kind="number",
        )
        for number, row in rows[:n]
    ]


# -- MMLU ---------------------------------------------------------------------------------------

MMLU_PROMPT = (
    "Can you answer the following question as accurately as possible? {}: A) {}, B) {}, C) {}, "
    "D) {} Explain your answer, putting the answer in the form (X) at the end of your response."
)


def mmlu(paths: Sequence[str | Path] | str | Path, n: int = 100, seed: int = 0) -> list[Question]:
    """Questions of MMLU CSV files, chosen as the released code chooses its 100.

    ``paths``: the CSV files, or a folder of them (its ``*.csv``, sorted by name: the released
    code takes them in the unsorted order of a directory listing, which no other machine
    repeats). ``random.seed(seed)``, then ``n`` times: ``random.choice`` of a file, then
    ``random.randint`` of a row. As in the released code, which reads each file with pandas'
    default header, a file's first row is taken as a header and never asked.

    Raises:
        ValueError: no files, or a row that is not question, four options and a letter.
    """
    if isinstance(paths, str | Path) and Path(paths).is_dir():
        files = sorted(Path(paths).glob("*.csv"))
    elif isinstance(paths, str | Path):
        files = [Path(paths)]
    else:
        files = [Path(p) for p in paths]
    if not files:
        raise ValueError(f"no MMLU CSV files in {paths}")
    tables = []
    for path in files:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))[1:]  # pandas' default header: the first row
        for number, row in enumerate(rows, 2):
            if len(row) != 6 or row[5].strip().upper() not in ("A", "B", "C", "D"):
                raise ValueError(
                    f"{path}:{number}: an MMLU row is a question, four options and a letter"
                )
        tables.append((path, rows))
    rng = random.Random(seed)  # as random.seed(seed) and the module's functions
    out = []
    for _ in range(n):
        path, rows = rng.choice(tables)
        ix = rng.randint(0, len(rows) - 1)
        q, a, b, c, d, letter = rows[ix]
        out.append(
            Question(
                id=f"mmlu/{path.stem}/{ix + 2}",
                source="mmlu",
                prompt=MMLU_PROMPT.format(q, a, b, c, d),
                answer=letter.strip().upper(),
                kind="choice",
                choices=("A", "B", "C", "D"),
            )
        )
    return out


# -- BIG-bench ----------------------------------------------------------------------------------


def bigbench(path: str | Path, n: int | None = None, kind: str | None = None) -> list[Question]:
    """The examples of any BIG-bench JSON task file, in file order (the first ``n``).

    The prompt is the task's prefix and the example's input as BIG-bench lays them out; the
    truth, the ``target`` strings (any of them is right). ``kind``: the reader (``"square"``
    for ``chess_state_tracking``; by default a file whose ``output_regex`` is a square's reads
    squares, any other its last number).

    Raises:
        ValueError: not a BIG-bench task with ``examples`` of ``input`` and ``target``.
    """
    task = json.loads(Path(path).read_text(encoding="utf-8"))
    examples = task.get("examples") if isinstance(task, dict) else None
    if not examples or not all(isinstance(e, dict) and "input" in e and "target" in e
                               for e in examples):  # fmt: skip
        raise ValueError(f"{path}: a BIG-bench task has examples of 'input' and 'target'")
    if kind is None:
        kind = "square" if task.get("output_regex") == "[a-h][1-8]" else "number"
    name = task.get("name") or Path(path).stem
    prefix = task.get("task_prefix", "")
    before = task.get("example_input_prefix", "\n")
    out = []
    for i, example in enumerate(examples[:n]):
        target = example["target"]
        answers = tuple(target) if isinstance(target, list) else (target,)
        out.append(
            Question(
                id=f"{name}/{i}",
                source=name,
                prompt=f"{prefix}{before}{example['input']}".strip(),
                answer=answers,
                kind=kind,
                choices=SQUARES if kind == "square" else None,
                extra={"input": example["input"]},
            )
        )
    return out
