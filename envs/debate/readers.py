"""Strict answer readers: the answer a reply gives, or ``None`` when it gives none.

Each source of questions reads replies with one of these. An answer that cannot be read is
wrong and counted apart (``unreadable``): the released debate evaluator counted it as right,
and its ground truth parser broke on thousands separators ("1,234" read as 1); neither happens
here (``tests/envs/debate/test_readers.py`` holds both cases).
"""

from __future__ import annotations

import re
from fractions import Fraction

from mase.protocol import MAX_DIGITS

#: A number as people write it: optional sign, digits with or without thousands separators
#: (groups of three after a comma), an optional decimal part.
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-\u2212]?)\$?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?(?![\d])"
)
#: ``\boxed{...}`` (one level of inner braces, as in ``\boxed{\frac{1}{2}}``).
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_CHOICE = re.compile(r"\(\s*([A-Za-z])\s*\)")
_SQUARE = re.compile(r"(?<![A-Za-z0-9])([a-h][1-8])(?![0-9])")
_MOVE = re.compile(r"(?<![A-Za-z0-9])([a-h][1-8][a-h][1-8][qrbn]?)(?![A-Za-z0-9])", re.I)
#: The longest reply a reader reads (the tail, where the answer is asked to be).
MAX_READ = 20_000


def _number(match: re.Match) -> int | float:
    digits = match.group("int").replace(",", "")
    sign = -1 if match.group("sign") else 1
    if match.group("frac"):
        value = Fraction(digits + match.group("frac"))
        return sign * (int(value) if value.denominator == 1 else float(value))
    return sign * int(digits)


def numbers(text: str) -> list[int | float]:
    """Every number in ``text``, in order; ``1,234`` is one thousand two hundred thirty-four.

    A number of more than :data:`mase.protocol.MAX_DIGITS` digits is no answer and is skipped.

    >>> numbers("Pay $1,234.50, not 1,23 or -7; 3.0 is 3; " + "9" * 40 + ".")
    [1234.5, 1, 23, -7, 3, 3]
    """
    return [
        _number(m)
        for m in _NUMBER.finditer(text)
        if sum(c.isdigit() for c in m.group(0)) <= MAX_DIGITS
    ]


def read_number(text: str) -> int | float | None:
    r"""A math answer: the last ``\boxed{...}`` holding a number, else the last number.

    >>> read_number(r"So 12 + 5 = 17, and the answer is \boxed{17}. Check: 17 - 5 = 12.")
    17
    >>> read_number("The result is 1,234."), read_number("I cannot tell."), read_number("-3.50")
    (1234, None, -3.5)
    """
    text = text[-MAX_READ:]
    for boxed in reversed(_BOXED.findall(text)):
        found = numbers(boxed)
        if found:
            return found[-1]
    found = numbers(text)
    return found[-1] if found else None


def read_truth_number(text: str) -> int | float:
    r"""A ground-truth number: GSM8K's answer after ``####`` (else the last number).

    Raises:
        ValueError: the text holds no number (a broken data file, not a wrong answer).

    >>> read_truth_number("She has 3 + 1,200 = 1,203 apples.\n#### 1,203")
    1203
    """
    tail = text.rsplit("####", 1)[-1]
    found = numbers(tail) or numbers(text)
    if not found:
        raise ValueError(f"no number in the ground truth {text[-80:]!r}")
    return found[-1]


def read_choice(text: str, letters: str = "ABCD") -> str | None:
    """A multiple-choice answer: the last ``(X)`` whose letter is one of ``letters``.

    >>> read_choice("(A) is tempting, but the answer is (c).")
    'C'
    >>> read_choice("It is B.") is None
    True
    """
    for m in reversed(list(_CHOICE.finditer(text[-MAX_READ:]))):
        letter = m.group(1).upper()
        if letter in letters:
            return letter
    return None


def read_square(text: str) -> str | None:
    """A chess square answer: the last square name (``a1`` to ``h8``) in the reply.

    >>> read_square("The bishop on c1 can go to e3."), read_square("Nowhere.")
    ('e3', None)
    """
    found = _SQUARE.findall(text[-MAX_READ:])
    return found[-1] if found else None


def read_move(text: str) -> str | None:
    """A chess move answer: the last move in UCI notation (``e2e4``, ``e7e8q``), lowercase.

    >>> read_move("Not Nf3 (g1f3) but E2E4."), read_move("castle!")
    ('e2e4', None)
    """
    found = _MOVE.findall(text[-MAX_READ:])
    return found[-1].lower() if found else None
