"""Debate's offline model: a debate mind with two numbers, for runs with no model at all.

A test double with a stated behaviour, so that every protocol runs offline and its arithmetic
can be checked (``benchmarks/debate_offline.py``, ``tests/envs/debate``):

* **accuracy** ``p``: in round 1 each agent is right with chance ``p``, drawn once per
  question and agent (seeded). A wrong agent gives its own wrong answer: the truth plus its
  seat number plus one (numbers), the ``k``-th wrong letter or the ``k``-th square the piece
  cannot reach (agent ``k``), so two agents are never wrong alike (up to four agents for
  letters).
* **persuadability** ``q``: in a later round, with chance ``q`` (drawn per question, agent and
  round) it adopts the answer a strict majority of what it reads gives: more than half of
  the other agents' answers (with two agents, the other's), or of all the answers a summary
  counts; otherwise, and always when reflecting alone, it restates its own answer.

Because its wrong answers never coincide, with three or more agents persuasion only ever moves
an agent to the answer that already has the most votes: for this mind, debate's final accuracy
equals the majority vote's (``benchmarks/debate_offline.py`` measures both against the closed
form), while the share of agents right and the consensus rate rise with the rounds. What makes
real debates better than votes, reasoning that convinces, is what a two-number mind cannot show.

It knows a question's truth when the question was loaded in this process (by a
:class:`~.env.DebateEnv`: :data:`ANSWER_KEY`) or when it can work it out from the text (an
arithmetic expression; a chess move prefix, with the ``chess`` package); for any other
question it guesses in the asked form, wrongly. The summarizer writes how many agents gave
each answer. Everything is read from the prompt text, as any offline model reads it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, ClassVar

from mase.envs.debate import readers
from mase.envs.debate import text as words
from mase.envs.debate.questions import SQUARES, Question
from mase.llm.offline import OfflineModel, Prompt

#: Questions loaded in this process, by the prompt the agents are asked, stripped
#: (``DebateEnv`` adds its questions here).
ANSWER_KEY: dict[str, Question] = {}
SEATS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliett")  # fmt: skip

# the views' own readers (:mod:`.text`): the mind reads a view as the parity check does
_ROUND, _QUESTION, _MINE, _OTHER = words.ROUND, words.QUESTION, words.MINE, words.OTHER
_SUMMARY, _COUNTED, _ANSWERS = words.SUMMARY, words.COUNTED, words.ANSWERS
_ARITHMETIC = words.ARITHMETIC


def _chance(*parts: Any) -> float:
    """A uniform draw in [0, 1) fixed by ``parts`` (the mind's seeded coin)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def question_of(text: str) -> Question | None:
    """The question asked in ``text``: a loaded one, or one the mind can work out."""
    text = text.strip()
    if text in ANSWER_KEY:
        return ANSWER_KEY[text]
    m = _ARITHMETIC.search(text)
    if m:
        a, b, c, d, e, f = map(int, m.groups())
        return Question("arithmetic/?", "arithmetic", text, a + b * c + d - e * f, "number")
    lines = text.strip().split("\n")
    if lines and lines[0].startswith("For each of the following (in-progress) chess games"):
        try:
            from mase.envs.debate.chess_tasks import legal_squares, read_validity_input

            answer = legal_squares(*read_validity_input(lines[-1]))
        except (ImportError, ValueError):
            return None
        return Question("chess/?", "chess", text, answer, "square", SQUARES)
    return None


class DebateModel(OfflineModel):
    """The debate mind (module docstring): right with chance ``p``, persuaded with ``q``.

    Args:
        p: the chance an agent is right in round 1.
        q: the chance it adopts a majority it reads in a later round.
        seed: the seed of its coins.
    """

    rules_head: ClassVar[str] = r"You are (?:the )?(?P<agent>[A-Za-z]+)\b"
    cannot_act: ClassVar[str] = "I cannot read the question, so I give no answer."

    def __init__(self, p: float = 0.67, q: float = 0.6, seed: int = 0):
        for name, value in (("p", p), ("q", q)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a chance, between 0 and 1: got {value}")
        self.p, self.q, self.seed = p, q, seed

    def act(self, prompt: Prompt) -> str:
        """An answer (a debater) or a summary (the summarizer)."""
        seen = prompt.observations[-1] if prompt.observations else ""
        asked = _QUESTION.search(seen)
        if asked is None:
            return self.cannot_act
        text = asked.group(1).strip()
        question = question_of(text)
        if prompt.agent == words.SUMMARIZER:
            return self.summarize(seen, question)
        agent = prompt.agent or "alpha"
        m = _ROUND.search(seen)
        r = int(m.group(1)) if m else 1
        if question is None:
            return _guess(text)
        mine = _MINE.search(seen)
        if r == 1 or mine is None:
            answer = self.first(question, agent)
            return f"Working it out step by step: {question.say(answer)}"
        own = question.read(mine.group(1))
        heard = [question.read(t) for t in _OTHER.findall(seen)]
        pool, among = heard, len(heard)
        summary = _SUMMARY.search(seen)
        if summary is not None:
            pool, among = [], 0
            for count, said in _COUNTED.findall(summary.group(1)):
                pool += [question.read(said)] * int(count)
                among += int(count)
        answer = own
        if pool and _chance(self.seed, text, agent, r, "persuaded") < self.q:
            counts = Counter(v for v in pool if v is not None)
            top = counts.most_common(1)
            if top and top[0][1] * 2 > among:
                answer = top[0][0]
        if answer is None:
            return "I still cannot tell."
        return f"Having read the other answers, {question.say(answer)}"

    def first(self, question: Question, agent: str) -> Any:
        """An agent's round-1 answer: right with chance ``p``, else its own wrong answer."""
        truth = question.answer[0] if isinstance(question.answer, tuple) else question.answer
        if _chance(self.seed, question.prompt, agent, "right") < self.p:
            return truth
        k = SEATS.index(agent) if agent in SEATS else 0
        if question.kind == "number":
            return truth + k + 1
        if question.kind == "choice":
            wrong = [c for c in (question.choices or "ABCD") if c != truth]
            return wrong[k % len(wrong)]
        if question.kind == "move":  # a move no piece can make: from a square to itself
            return f"{SQUARES[k]}{SQUARES[k]}"
        right = set(question.answer) if isinstance(question.answer, tuple) else {truth}
        wrong = [s for s in SQUARES if s not in right]
        return wrong[k % len(wrong)]

    def summarize(self, seen: str, question: Question | None) -> str:
        """How many agents gave each answer, in the order first given."""
        replies = _ANSWERS.findall(seen)
        if not replies:
            return "I have no answers to summarize."
        read = readers.read_number if question is None else question.read
        counts = Counter()
        order = []
        for _, reply in replies:
            value = read(reply)
            if value not in counts:
                order.append(value)
            counts[value] += 1
        parts = [
            f"{counts[v]} agent(s) answer {_said(question, v)}" for v in order if v is not None
        ]
        if counts[None]:
            parts.append(f"{counts[None]} agent(s) gave no readable answer")
        return "Summary: " + "; ".join(parts) + "."


def _said(question: Question | None, value: Any) -> str:
    if question is not None and question.kind == "choice":
        return f"({value})"
    return str(value)


def _guess(text: str) -> str:
    """A wrong guess in the form the question asks for (the mind does not know it)."""
    if "(X)" in text:
        return "I am not sure; my guess is (A)."
    if "chess" in text:
        return "I am not sure; my guess is e4."
    return "I am not sure; my guess is 0."


respond = DebateModel()
