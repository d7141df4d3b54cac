"""Debate's rules, pure: rounds of answers, what each answer reads as, and the final vote.

A debate asks ``n`` agents one question for ``rounds`` rounds (the released code's count: the
first answer is round 1). Each round every agent answers at once; from round 2 each agent reads
the others' answers of the round before (or a summary of them) and answers again. The final
answer is the majority of the last round's readable answers (:func:`majority`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mase.envs.debate.questions import Question


def majority(answers: Sequence[Any]) -> Any:
    """The most frequent readable answer; a tie goes to the one given first (in seat order).

    The released code's rule ("the first most frequent"); unreadable answers (``None``) are left
    out of the vote, and with none readable there is no answer (``None``), which is wrong.

    >>> majority([3, 5, 5, None]), majority([7, 3, 3, 7]), majority([None, None])
    (5, 7, None)
    """
    counts = Counter(a for a in answers if a is not None)
    if not counts:
        return None
    top = max(counts.values())
    return next(a for a in answers if a is not None and counts[a] == top)


@dataclass
class Debate:
    """One question's debate.

    Attributes:
        question: what is asked.
        agents: the debaters, in seat order.
        rounds: how many rounds of answers (the first included).
        replies: per round, each agent's reply as said (``None``: no reply, an invalid move).
        read: per round, the answer each reply gives (``None``: none this source can read).
        summaries: per round, the summary of its answers (summarized debates).
        round: the round being answered (0-based).
    """

    question: Question
    agents: tuple[str, ...]
    rounds: int
    replies: list[dict[str, str | None]] = field(default_factory=list)
    read: list[dict[str, Any]] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    round: int = 0

    def __post_init__(self) -> None:
        if not self.replies:
            self.replies.append(dict.fromkeys(self.agents))
            self.read.append(dict.fromkeys(self.agents))

    def answer(self, agent: str, reply: str | None) -> Any:
        """Record ``agent``'s reply this round; returns the answer it reads as."""
        value = None if reply is None else self.question.read(reply)
        self.replies[self.round][agent] = reply
        self.read[self.round][agent] = value
        return value

    def next_round(self) -> bool:
        """Open the next round; ``False`` when the last one was played."""
        if self.round + 1 >= self.rounds:
            return False
        self.round += 1
        self.replies.append(dict.fromkeys(self.agents))
        self.read.append(dict.fromkeys(self.agents))
        return True

    def votes(self, r: int) -> list[Any]:
        """Round ``r``'s read answers, in seat order."""
        return [self.read[r][a] for a in self.agents]

    def final(self, r: int | None = None) -> Any:
        """The majority answer of round ``r`` (default: the last played)."""
        return majority(self.votes(self.round if r is None else r))

    def consensus(self, r: int) -> bool:
        """Every agent gave the same readable answer in round ``r``."""
        votes = self.votes(r)
        return votes[0] is not None and all(v == votes[0] for v in votes)
