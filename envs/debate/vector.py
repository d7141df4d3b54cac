"""Debate's vector view: what a seat's text states, block by block, and read back.

A seat's text states the round, the question, the replies it may read (its own last one and
the others', or the summarizer's round) and, once the debate is over, the final answer. The
replies are free text: they enter the vector as the answers the question's own reader
(:mod:`.readers`) reads from them as the text quotes them, and a summary as the counts the
summary reader (:func:`.text.summary_counts`) reads from it. The question is free text too;
what the vector holds of it is what the task parses from it: an arithmetic question's six
operands and the number of lettered options a question lists. ``N`` is the number of
debaters; a seat's answer slots are the seat itself first, then the others in seat order
(the summarizer's: the debaters in seat order). ``W`` is the width of one exact answer code,
by the kind of answer (:data:`WIDTHS`).

=============  =============  ====================================================================
block          size           content
=============  =============  ====================================================================
round          1              (round - 1) / (rounds - 1); 0 with one round
operands       6              an arithmetic question's six operands / 29 (zeros otherwise)
answers        2N             for each slot: whether the reply shown reads as an answer, and that
                              answer scaled to [0, 1] (its index in the answer set, else
                              (tanh(x / 1000) + 1) / 2)
rounds         1              1 / rounds
waiting        1              1 while the text says the seat waits for the others
arithmetic     1              1 when the question is an arithmetic one (its operands stated)
options        1              how many lettered options the question lists, / 26
shown          N              1 for each slot whose reply the text quotes
answer_codes   N * W          each quoted reply's answer, exactly (:func:`encode`; zeros: none)
summary        N * (W + 2)    (summarized debates) the first N counts the summary shown states,
                              each: present, count / N, the answer's code
final          W + 3          once over: 1, whether there is a final answer, whether it is right,
                              the final answer's code
=============  =============  ====================================================================

The first three blocks are the vector of the first release (13 numbers for three debaters);
the others follow, so a policy trained on the old vector reads its prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from mase.envs.debate import text as words
from mase.envs.debate.questions import READERS, SQUARES
from mase.layout import Block, VectorLayout
from mase.spaces import clean_text

N_OPERANDS = 6
#: The most lettered options a question can list (A to Z).
MAX_OPTIONS = 26
LETTERS = "ABCD"  # the letters the choice reader reads
PROMOTIONS = ("", "q", "r", "b", "n")
#: The most digits of a number answer (the reader's bound, :data:`mase.protocol.MAX_DIGITS`).
DIGITS = 18
#: The numbers of one exact answer code, by the kind of answer: a number is its sign, its count
#: of decimals / 18 and its 18 digits / 9; a letter, a square, or a move's two squares and
#: promotion, their index in their set.
WIDTHS = {"number": 2 + DIGITS, "choice": 1, "square": 1, "move": 3}


def layout(agents: int, kind: str, summarize: bool) -> VectorLayout:
    """The vector's blocks for ``agents`` debaters whose answers are of ``kind``."""
    n, w = agents, WIDTHS[kind]
    blocks = [
        Block("round", 1, "(round - 1) / (rounds - 1); 0 with one round"),
        Block("operands", N_OPERANDS, "an arithmetic question's six operands / 29 (zeros else)"),
        Block("answers", 2 * n, "for each slot (the seat first, then the others in seat order; "
              "the summarizer's: the debaters): whether the reply shown reads as an answer, "
              "and the answer scaled to [0, 1] (its index in the answer set, else "
              "(tanh(x / 1000) + 1) / 2)"),
        Block("rounds", 1, "1 / rounds"),
        Block("waiting", 1, "1 while the text says the seat waits for the others"),
        Block("arithmetic", 1, "1 when the question is an arithmetic one (its operands stated)"),
        Block("options", 1, f"how many lettered options the question lists / {MAX_OPTIONS}"),
        Block("shown", n, "1 for each slot whose reply the text quotes"),
        Block("answer_codes", n * w, f"each quoted reply's answer, exactly ({w} numbers a slot, "
              "envs/debate/vector.py: encode); zeros: none"),
    ]  # fmt: skip
    if summarize:
        blocks.append(Block(
            "summary", n * (w + 2), f"the first {n} counts the summary shown states "
            f"('k agent(s) answer X', k 1 to {n}, X readable): present, k / {n}, X's code",
            bound=f"the summary's first {n} such counts (the text view reads the same)",
        ))  # fmt: skip
    blocks.append(Block("final", w + 3, "once over: 1, whether there is a final answer, whether "
                        "it is right, the final answer's code"))  # fmt: skip
    return VectorLayout(blocks)


# -- exact answer codes -------------------------------------------------------------------------


def encode(kind: str, value: Any) -> list[float]:
    """An answer of ``kind`` as :data:`WIDTHS` numbers in [0, 1], exactly (``None``: zeros).

    Raises:
        ValueError: a value no reader of ``kind`` reads (a number of more than 18 digits).
    """
    if value is None:
        return [0.0] * WIDTHS[kind]
    if kind == "choice":
        return [LETTERS.index(value) / (len(LETTERS) - 1)]
    if kind == "square":
        return [SQUARES.index(value) / 63]
    if kind == "move":
        return [SQUARES.index(value[:2]) / 63, SQUARES.index(value[2:4]) / 63,
                PROMOTIONS.index(value[4:]) / (len(PROMOTIONS) - 1)]  # fmt: skip
    magnitude = Fraction(abs(value))
    for decimals in range(DIGITS + 1):  # the fewest decimals that give the value back
        whole = round(magnitude * 10**decimals)
        if whole < 10**DIGITS and _number(whole, decimals) == abs(value):
            digits = [(whole // 10**i) % 10 / 9 for i in range(DIGITS)]
            return [float(value < 0), decimals / DIGITS, *digits]
    raise ValueError(f"{value!r} is no answer of at most {DIGITS} digits")


def decode(kind: str, code: Sequence[float]) -> Any:
    """The answer :func:`encode` wrote (``ValueError``: a code it never writes)."""
    if kind == "choice":
        return LETTERS[_index(code[0], len(LETTERS) - 1)]
    if kind == "square":
        return SQUARES[_index(code[0], 63)]
    if kind == "move":
        start, end = SQUARES[_index(code[0], 63)], SQUARES[_index(code[1], 63)]
        return start + end + PROMOTIONS[_index(code[2], len(PROMOTIONS) - 1)]
    negative = _index(code[0], 1)
    decimals = _index(code[1], DIGITS)
    whole = sum(_index(d, 9) * 10**i for i, d in enumerate(code[2:]))
    if (negative and whole == 0) or (decimals and whole % 10 == 0):
        raise ValueError("not the code of a number as encode writes it")
    value = _number(whole, decimals)
    return -value if negative else value


def _number(whole: int, decimals: int) -> int | float:
    """``whole / 10**decimals`` as the number reader gives it (an int when it is whole)."""
    return whole if decimals == 0 else float(Fraction(whole, 10**decimals))


def _index(x: float, top: int) -> int:
    """``x * top`` as a whole number in 0..top (``ValueError`` when it is none)."""
    i = round(float(x) * top)
    if not 0 <= i <= top or abs(float(x) * top - i) > 1e-3:
        raise ValueError(f"{float(x)} is not a multiple of 1/{top} in [0, 1]")
    return i


def zeros(values: np.ndarray, what: str) -> None:
    """Numbers of a part the seat was not shown must be 0 (``ValueError`` otherwise)."""
    if np.any(values):
        raise ValueError(f"{what}: numbers in a part the text does not state")


# -- the vector of a seat, and the facts read back from it ------------------------------------


def slots(env: Any, agent: str) -> list[str]:
    """The seats of ``agent``'s answer slots: itself first, then the others in seat order."""
    debaters = list(env.debaters)
    return [agent, *(a for a in debaters if a != agent)] if agent in debaters else debaters


def pack(env: Any, agent: str) -> np.ndarray:
    """``agent``'s vector (:func:`layout`), from what its text view shows now."""
    d, kind, n = env.debate, env.kind, len(env.debaters)
    read, over, acting = READERS[kind], bool(env.ended_by), env.acting(agent)
    shown = words.shown_replies(d, agent, acting, env.summarize, over)
    answers = {a: read(said) for a, said in shown.items()}
    asked = clean_text(d.question.prompt)
    operands = words.arithmetic_operands(asked)
    parts: dict[str, Any] = {
        "round": [d.round / max(1, d.rounds - 1)],
        "operands": np.asarray(operands or [0] * N_OPERANDS) / 29,
        "answers": [[float(answers.get(a) is not None), env._scaled(answers.get(a))]
                    for a in slots(env, agent)],
        "rounds": [1 / d.rounds],
        "waiting": [float(not over and not acting)],
        "arithmetic": [float(operands is not None)],
        "options": [words.options_listed(asked) / MAX_OPTIONS],
        "shown": [float(a in shown) for a in slots(env, agent)],
        "answer_codes": [encode(kind, answers.get(a)) for a in slots(env, agent)],
    }  # fmt: skip
    if env.summarize:
        summary = words.shown_summary(d, agent, env.summarize, over)
        counts = words.summary_counts(summary or "", read, n)
        claims = [[1.0, k / n, *encode(kind, v)] for v, k in counts]
        parts["summary"] = claims + [[0.0] * (WIDTHS[kind] + 2)] * (n - len(claims))
    final = d.final() if over else None
    right = over and d.question.correct(final)
    parts["final"] = [float(over), float(final is not None), float(right), *encode(kind, final)]
    return env.layout.pack(parts)


def read(env: Any, agent: str, vector: np.ndarray) -> dict:
    """The facts ``agent``'s vector holds, keyed as :func:`.text.stated` keys them.

    Raises:
        ValueError: numbers :func:`pack` never writes (a part shown as absent that is not 0,
            a code outside its set).
    """
    parts = env.layout.split(np.asarray(vector, dtype=np.float64))
    kind, n, w = env.kind, len(env.debaters), WIDTHS[env.kind]
    rounds = _rounds(parts["rounds"][0])
    played = 1 + (_index(parts["round"][0], rounds - 1) if rounds > 1 else 0)
    if rounds == 1:
        zeros(parts["round"], "round")
    facts: dict[tuple, Any] = {("round",): played, ("rounds",): rounds,
                               ("waiting",): bool(_index(parts["waiting"][0], 1))}  # fmt: skip
    if _index(parts["arithmetic"][0], 1):
        facts[("operands",)] = tuple(_index(x, 29) for x in parts["operands"])
    else:
        zeros(parts["operands"], "operands")
    if options := _index(parts["options"][0], MAX_OPTIONS):
        if options < 2:
            raise ValueError("one option is no list of options")
        facts[("options",)] = options
    codes = parts["answer_codes"].reshape(n, w)
    for i, seat in enumerate(slots(env, agent)):
        readable, scaled = parts["answers"][2 * i : 2 * i + 2]
        if not _index(parts["shown"][i], 1):
            zeros(np.concatenate([[readable, scaled], codes[i]]), f"{seat}'s reply")
            continue
        value = decode(kind, codes[i]) if _index(readable, 1) else None
        if value is None:
            zeros(codes[i], f"{seat}'s unreadable reply")
        if abs(scaled - env._scaled(value)) > 1e-6:
            raise ValueError(f"{seat}'s scaled answer is not its answer's")
        facts[("answer", seat)] = value
    if env.summarize:
        for i, claim in enumerate(parts["summary"].reshape(n, w + 2)):
            if not _index(claim[0], 1):
                zeros(claim, "an absent count")
                continue
            count = _index(claim[1], n)
            if count < 1:
                raise ValueError("a count of no agents")
            facts[("summary", i)] = (decode(kind, claim[2:]), count)
    facts.update(_final(kind, parts["final"]))
    return facts


def _rounds(x: float) -> int:
    if not 0 < x <= 1 or abs(1 / round(1 / x) - x) > 1e-6:
        raise ValueError(f"{x} is not 1 / rounds")
    return round(1 / x)


def _final(kind: str, final: np.ndarray) -> dict:
    if not _index(final[0], 1):
        zeros(final, "the final answer")
        return {}
    value = decode(kind, final[3:]) if _index(final[1], 1) else None
    if value is None:
        zeros(final[3:], "no final answer")
    return {("final",): value, ("correct",): bool(_index(final[2], 1))}
