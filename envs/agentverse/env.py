"""The AgentVerse protocol as a task: ``mase/AgentVerse-v0``.

Chen et al. (2023): a group of agents works on a goal in iterations of four stages: expert
recruitment, collaborative decision (vertical or horizontal), action execution, evaluation.
Here every stage a seat plays is a phase of one AEC env, so any policy (the offline model, a
real endpoint, a scripted bot, a person) can sit in any seat; execution runs the group's
decision against the problem (for the paper's benchmarks, the decision is the answer, scored
by the problem's own automatic score).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from gymnasium import spaces

from mase.actions import ActionParse, InvalidAction, brief
from mase.envs.agentverse import vector
from mase.envs.agentverse.behaviours import behaviours, destructive_acts, volunteering
from mase.events import Event
from mase.layout import VectorLayout
from mase.schedules import Phase, PhaseQueue
from mase.spaces import CHARSET, MAX_TEXT_LENGTH
from mase.stats import Metric, proportion, rate
from mase.task import Outcome, TaskEnv

STRUCTURES = ("vertical", "horizontal")
EVALUATORS = ("none", "auto", "seat")
STAGES = ("recruit", "propose", "review", "discuss", "integrate", "execute", "evaluate")
#: A verdict line: ``Verdict: accept`` (or ``Accept``, ``[Agree]``); anything else is criticism.
_VERDICT = re.compile(
    r"^[\s>*_#`-]*(?:verdict[\s*_`]*[:\-]?[\s*_`]*)?(accept(?:ed)?|agree|\[agree\]|correct|approve)"
    r"[\s.!*_`]*$",
    re.I | re.M,
)


class Problem(Protocol):
    """What the protocol needs of a problem (:mod:`.problems` makes them)."""

    id: str
    prompt: str

    def score(self, reply: str) -> float:
        """The reply's score in [0, 1]."""

    def explain(self, reply: str) -> str:
        """Why the reply scores what it does, for the evaluation's feedback."""


def accepts(text: str) -> bool:
    """Whether a review or an evaluation accepts: a line that is a verdict of acceptance."""
    return bool(_VERDICT.search(text))


@dataclass
class Iteration:
    """One pass of the four stages.

    Attributes:
        roles: the experts' role descriptions the recruiter wrote (seat -> text).
        proposals: the solver's proposals (vertical) or the experts' turns (horizontal), in order,
            as (seat, text).
        reviews: per review round, seat -> (text, accepted).
        decision: the group's decision (``None`` until made).
        score: the decision's score when executed.
        feedback: the evaluation's words; accepted: whether the evaluation accepted.
    """

    roles: dict[str, str] = field(default_factory=dict)
    proposals: list[tuple[str, str]] = field(default_factory=list)
    reviews: list[dict[str, tuple[str, bool]]] = field(default_factory=list)
    decision: str | None = None
    score: float = 0.0
    feedback: str = ""
    accepted: bool = False
    executed: list[Executed] = field(default_factory=list)
    outcome: str = ""


@dataclass(frozen=True)
class Executed:
    """One action of the execution stage in a wrapped task.

    Attributes:
        seat: the protocol seat that acted; agent: the task's agent it acted for.
        action: the action in the task's words; valid: whether the task took it.
        made: what the action made (the task's ``made_by``: a resource gathered, an item
            crafted), for the volunteering detector.
        before, after: the task's progress (in [0, 1]) before and after the action, for the
            destructive-act detector.
    """

    seat: str
    agent: str
    action: str
    valid: bool
    made: tuple[str, ...] = ()
    before: float = 0.0
    after: float = 0.0


@dataclass(frozen=True)
class TaskGoal:
    """The goal of a protocol run that wraps a task: an episode of it, reached together."""

    id: str
    prompt: str


#: The results table's columns when the protocol wraps a task.
TASK_COLUMNS = (
    ("score", "progress", "{:.2f}"),
    ("solved", "goal reached", "{:.1%}"),
    ("iterations", "iterations", "{:.2f}"),
    ("task_rounds", "task rounds", "{:.1f}"),
    ("volunteering", "volunteering", "{:.2f}"),
    ("destructive_acts", "destructive acts", "{:.2f}"),
    ("executed_valid_rate", "valid task actions", "{:.1%}"),
)

#: The problem sources ``problems`` may name (:mod:`.problems`).
SOURCES = ("samples", "commongen", "logic_grid", "math", "humaneval", "fed")


def load_problems(source: str, path: str | None = None, n: int | None = None,
                  merge: int = 1, judge: Mapping[str, Any] | None = None) -> list[Any]:  # fmt: skip
    """The problems of a named source (:mod:`.problems`); ``path`` points at its file.

    Without ``path``, Commongen asks the package's own concept sets and math the debate task's
    own small GSM8K-format sample (:data:`mase.envs.debate.env.SAMPLES`). FED dialogues need a
    file and a ``judge`` (:class:`.judge.Judge` settings: ``base_url``, ``model``, ...).

    Raises:
        ValueError: an unknown source.
        FileNotFoundError: a source that reads a file given none (logic grid puzzles).
    """
    from mase.envs.agentverse import problems as sources

    if source == "samples":
        return sources.samples()[:n] if n else sources.samples()
    if source == "commongen":
        return sources.commongen(path, n, merge=merge)
    if source == "humaneval":
        return sources.humaneval(n, path)
    if source == "math":
        from mase.envs.debate.env import SAMPLES

        return sources.math(path or SAMPLES["gsm8k"], n)
    if source == "logic_grid":
        if path is None:
            raise FileNotFoundError(
                "logic grid puzzles read BIG-bench's logic_grid_puzzle.json: pass its path "
                "(mase eval: --env-arg logic_grid.path=FILE)"
            )
        return sources.logic_grid(path, n)
    if source == "fed":
        if path is None:
            raise FileNotFoundError(
                "FED dialogues come from your copy of FED's fed_data.json (or a JSONL of "
                '{"context": [turns]}): pass its path and a judge (mase eval --preset '
                "agentverse-table1: --env-arg fed.path=FILE --env-arg \"fed.judge={'base_url': "
                "'http://HOST/v1', 'model': 'M'}\")"
            )
        return sources.fed(path, n, judge)
    raise ValueError(f"unknown problem source {source!r}; sources: {', '.join(SOURCES)}")


class AgentVerseEnv(TaskEnv):
    """The AgentVerse loop over problems with an automatic score.

    Description:
        Each iteration: the ``recruiter`` writes a role for each expert (``Expert 1: ...``, one
        line an expert; skipped with ``recruit=False``); the experts decide:

        * **vertical** (the paper's benchmark setting): the ``solver`` proposes; the
          ``reviewer_k`` seats review it at once (each unseen by the others until all have
          spoken); if every review accepts (a line ``Verdict: accept``) the proposal is the
          decision, else the solver revises, up to ``review_rounds`` reviews;
        * **horizontal**: ``expert_1`` ... ``expert_n`` each propose or refine in turn,
          ``review_rounds`` times, then ``expert_1`` writes the group's decision (the
          integration function);

        then the decision is executed (scored by the problem's own score) and evaluated: by
        the problem's score (``evaluator="auto"``: accepted when it scores 1, the feedback the
        score's explanation), by an ``evaluator`` seat (``"seat"``: ``Verdict: accept`` or
        feedback), or not at all (``"none"``: one iteration). Unaccepted, the feedback goes
        back to the recruiter, up to ``iterations`` iterations. The final decision is the last
        one made.

        Settings of the paper's tables: single agent ``experts=1, recruit=False,
        evaluator="none"`` (``cot=True`` asks it to think step by step); group vertical
        ``experts=2`` (math) or ``4`` (1 solver + 3 reviewers), ``iterations=3``; group
        horizontal ``structure="horizontal"``.

    Problems:
        ``problems``: a source's name (:data:`SOURCES`: ``"samples"``, the package's own
        concept sets, by default; ``"commongen"``, ``"logic_grid"``, ``"math"``,
        ``"humaneval"`` and ``"fed"``, reading ``path`` where they need a file; ``n_problems``
        of them; ``merge`` concept sets per Commongen problem; FED's score is a ``judge``
        model's rating, :mod:`.judge`, and says so when none is set) or a list of problems
        (:class:`Problem`: ``id``, ``prompt``, ``score``, ``explain``). Episode ``seed`` plays
        problem ``seed`` modulo their number.

    A task as the goal:
        ``task`` (a registered id, built with ``task_kwargs``) makes the goal an episode of that
        task, seeded with the episode's seed: the decision is the group's plan, and the
        execution stage plays the task, each of its agents acted for by an expert (agent k by
        expert k, round robin: :attr:`plays`), one task move a protocol turn, for at most
        ``execute_rounds`` of the task's rounds an iteration; the next iteration goes on from
        where the task is. The evaluation reads the task's progress. What a task may give the
        protocol (each optional): ``goal_text()`` (the goal in words), ``subgoals()`` (agent ->
        a sub-goal in words: the recruiter's view shows them), ``progress()`` (a share in [0,
        1] and words: the score and the automatic evaluation's feedback; without it, the
        task's ``success`` or ``score`` once it ends), ``needs_of(text)`` (the items a
        sub-goal works toward) and ``made_by(agent, action)`` (what an action made): the last
        two feed the volunteering detector. A move the task cannot read is refused with the
        task's reason (an LLM seat retries) and then spends the task's turn as the task's own
        rules say. ``mase/AgentVerseCraft-v0`` is the Minecraft case: the crafting world,
        three experts.

    Agents:
        ``recruiter`` (with ``recruit``), the experts (``solver`` and ``reviewer_1``...
        vertically, ``expert_1``... horizontally) and ``evaluator`` (with ``evaluator="seat"``).

    Actions:
        Speech: every stage is an utterance (``Text``), heard by the seats the stage reaches;
        the execution stage takes the task's move (its text, or its action of the task's kind).

    Observations:
        Text: the goal, the seat's role, the stage, this iteration's proposals and reviews,
        the last evaluation's feedback, and what to do. Vector: the stage (one-hot), the
        iteration and review round as fractions, the seat (one-hot), whether a proposal stands
        and the share of the last reviews that accepted.

    Rewards:
        At the end, every seat gets the final decision's score.

    Metrics:
        ``score``, ``solved`` (score 1), ``iterations``, ``revisions`` (proposals after the
        first in an iteration), ``unanimous`` (the last decision's reviews all accepted),
        ``evaluator_accepted``, ``review_rounds``, and the group behaviours of
        :mod:`.behaviours`: ``conformity``, ``ignored_feedback``, ``loops``. With a task:
        ``progress``, ``task_score``, ``task_rounds``, ``task_ended_by``, ``executed`` (task
        moves), ``executed_valid``, ``executed_valid_rate``, ``volunteering`` and
        ``destructive_acts``.

    Version history:
        * v0: first release.
    """

    metadata = {"name": "agentverse_v0", "render_modes": ["ansi", "human"]}
    drawing = "mase.envs.agentverse.render:DRAWING"
    schedule = PhaseQueue()
    language_model = "mase.envs.agentverse.language_model:respond"
    table_columns = (
        ("score", "score", "{:.2f}"),
        ("solved", "solved", "{:.1%}"),
        ("iterations", "iterations", "{:.2f}"),
        ("revisions", "revisions", "{:.2f}"),
        ("conformity", "conformity", "{:.2f}"),
        ("ignored_feedback", "ignored feedback", "{:.2f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    )
    metric_kinds = {
        "score": Metric("Score (0 to 1)", "bounded", 0.0, 1.0),
        "task_score": Metric("Task score (0 to 1)", "bounded", 0.0, 1.0),
        "solved": proportion("Solved (share of problems)"),
        "unanimous": proportion("Reviewers unanimous (share of problems)"),
        "evaluator_accepted": proportion("Evaluator accepted (share of problems)"),
        "executed_valid_rate": rate("Valid task actions (share of those executed)"),
    }
    scripted_policy = "mase.envs.agentverse.bots:GroupBot"

    def __init__(
        self,
        problems: str | Sequence[Problem] = "samples",
        path: str | None = None,
        n_problems: int | None = None,
        merge: int = 1,
        judge: Mapping[str, Any] | None = None,
        structure: str = "vertical",
        experts: int = 4,
        recruit: bool = True,
        evaluator: str = "auto",
        iterations: int = 3,
        review_rounds: int = 2,
        cot: bool = False,
        task: str | None = None,
        task_kwargs: Mapping[str, Any] | None = None,
        execute_rounds: int = 10,
        max_cycles: int | None = None,
        obs_mode: str = "both",
        render_mode: str | None = None,
    ):
        super().__init__(obs_mode, render_mode, max_cycles)
        if structure not in STRUCTURES:
            raise ValueError(f"structure must be one of {STRUCTURES}, got {structure!r}")
        if evaluator not in EVALUATORS:
            raise ValueError(f"evaluator must be one of {EVALUATORS}, got {evaluator!r}")
        for name, value, least in (("experts", experts, 1), ("iterations", iterations, 1),
                                   ("review_rounds", review_rounds, 1),
                                   ("execute_rounds", execute_rounds, 1)):  # fmt: skip
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(
                    f"{name} must be a whole number of at least {least}, got {value!r}"
                )
        #: the wrapped task (``task``), whose episode the group works on; else None
        self.task_id, self.inner = task, None
        self.execute_rounds = execute_rounds
        if task is not None:
            import mase

            self.inner = mase.make(task, **dict(task_kwargs or {})).unwrapped
            if not isinstance(self.inner, TaskEnv):
                raise TypeError(f"{task} is not a MASE task (a TaskEnv); the protocol wraps tasks")
            self.problems: list[Any] = []
        else:
            if task_kwargs:
                raise ValueError("task_kwargs are the wrapped task's arguments: give task too")
            if isinstance(problems, str):
                problems = load_problems(problems, path, n_problems, merge, judge)
            self.problems = list(problems)
            if not self.problems:
                raise ValueError("no problems to work on")
            from mase.envs.agentverse.language_model import ANSWER_KEY

            ANSWER_KEY.update((p.prompt.strip(), p) for p in self.problems)  # the offline key
        self.structure, self.recruit, self.evaluator = structure, recruit, evaluator
        self.n_iterations = iterations if evaluator != "none" else 1
        self.review_rounds, self.cot = review_rounds, cot
        if structure == "vertical":
            self.experts = ("solver", *(f"reviewer_{k}" for k in range(1, experts)))
        else:
            self.experts = tuple(f"expert_{k}" for k in range(1, experts + 1))
        if self.inner is not None:  # the task's side of the run, in tables
            self.table_columns = TASK_COLUMNS
        #: the task's agent -> the expert seat that acts for it (in turn, round robin)
        self.plays: dict[str, str] = {}
        if self.inner is not None:
            inner_agents = self.inner.possible_agents
            self.plays = {
                a: self.experts[k % len(self.experts)] for k, a in enumerate(inner_agents)
            }
        self.possible_agents = [
            *(["recruiter"] if recruit else []),
            *self.experts,
            *(["evaluator"] if evaluator == "seat" else []),
        ]
        self.layout = vector.layout(self)
        self.set_spaces(
            self.layout.size, spaces.Text(MAX_TEXT_LENGTH, charset="".join(sorted(CHARSET)))
        )
        self.problem: Any = None
        self.history: list[Iteration] = []

    # -- rules ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Work on problem ``seed`` (modulo their number), or ``options["problem"]``."""
        self._episode_seed = seed
        super().reset(seed, options)

    def new_episode(self, options: dict | None) -> None:
        """Pick the problem (or start the wrapped task's episode); the first iteration starts."""
        options = options or {}
        if self.inner is not None:
            seed = self._episode_seed
            if seed is None:
                seed = int(self.np_random.integers(2**31))
            self.inner.reset(seed=seed)
            goal = getattr(self.inner, "goal_text", None)
            prompt = goal() if goal else f"Reach the goal of {self.task_id} as a team."
            self.problem = TaskGoal(f"{self.task_id} seed {seed}", prompt)
            self._level = self._progress()[0]  # the task changes only through this env
        else:
            index = options.get("problem")
            if index is None:
                index = (self._episode_seed if self._episode_seed is not None
                         else int(self.np_random.integers(len(self.problems))))  # fmt: skip
            self.problem = self.problems[int(index) % len(self.problems)]
        self.history = [Iteration()]
        self._review_round = 0
        #: what end_phase decided comes next: "evaluate" (the seat), "restart", or None
        self._pending: str | None = None
        self._execute_from = 0  # the task's round the iteration's execution started in
        self._unapplied: Any = None  # an execution move the protocol could not read

    @property
    def current(self) -> Iteration:
        """The iteration going on."""
        return self.history[-1]

    def next_phase(self, previous: Phase | None) -> Phase:
        """The stages in order (class docstring)."""
        stage = self._next_stage(previous)
        if stage == "recruit":
            return Phase(
                "recruit", ("recruiter",), speech=True, audience=("recruiter", *self.experts)
            )
        if stage == "propose":
            return Phase("propose", ("solver",), speech=True, audience=self.experts)
        if stage == "review":
            reviewers = self.experts[1:]
            return Phase("review", reviewers, secret=True, speech=True, audience=self.experts)
        if stage == "discuss":
            return Phase("discuss", self.experts, speech=True, audience=self.experts)
        if stage == "integrate":
            return Phase("integrate", (self.experts[0],), speech=True, audience=self.experts)
        if stage == "execute":
            seat = self.plays[self.inner.agent_selection]
            return Phase("execute", (seat,), audience=(seat,))
        return Phase("evaluate", ("evaluator",), speech=True,
                     audience=tuple(self.possible_agents))  # fmt: skip

    def _next_stage(self, previous: Phase | None) -> str:
        pending, self._pending = self._pending, None
        if pending in ("evaluate", "execute"):
            return pending
        if previous is None or pending == "restart":
            return "recruit" if self.recruit else self._decision_start()
        if previous.name == "execute":
            return "execute"  # the execution goes on (end_phase says when it is over)
        if previous.name == "recruit":
            return self._decision_start()
        if previous.name == "propose":
            return "review"
        if previous.name == "review":
            return "propose"  # the reviews were not all accepting: the solver revises
        return "discuss" if self._review_round < self.review_rounds else "integrate"

    def _decision_start(self) -> str:
        return "propose" if self.structure == "vertical" else "discuss"

    def apply(self, agent: str, action: Any) -> list[Event]:
        """Record what the seat said in its stage."""
        text = str(action)
        it = self.current
        stage = self.phase.name
        if stage == "recruit":
            it.roles = read_roles(text, self.experts)
        elif stage in ("propose", "discuss"):
            it.proposals.append((agent, text))
        elif stage == "review":
            while len(it.reviews) <= self._review_round:  # rounds whose reviews all failed too
                it.reviews.append({})
            it.reviews[self._review_round][agent] = (text, accepts(text))
        elif stage == "integrate":
            it.proposals.append((agent, text))
            it.decision = text
        elif stage == "evaluate":
            it.feedback, it.accepted = text, accepts(text)
        elif stage == "execute":
            raw, self._unapplied = self._unapplied, None
            return self._act_in_task(agent, action, raw)
        return []

    # -- execution in a wrapped task ----------------------------------------------------------

    def acts_for(self, seat: str) -> tuple[str, ...]:
        """The wrapped task's agents ``seat`` acts for (none without a task)."""
        return tuple(a for a, s in self.plays.items() if s == seat)

    def read_action(self, agent: str, text: str) -> ActionParse:
        """In the execution stage, the wrapped task reads the move; elsewhere it is speech."""
        if self.inner is not None and self._executing(agent):
            self._unapplied = text
            return self.inner.read_action(self.inner.agent_selection, text)
        return super().read_action(agent, text)

    def check_action(self, agent: str, action: Any) -> Any:
        """A move of the wrapped task's kind (an index), checked by the task."""
        if self.inner is not None and self._executing(agent):
            self._unapplied = action
            return self.inner.check_action(self.inner.agent_selection, action)
        return super().check_action(agent, action)

    def _executing(self, agent: str) -> bool:
        phase = self.phase
        return phase is not None and phase.name == "execute" and agent == self.agent_selection

    def _progress(self) -> tuple[float, str]:
        """The wrapped task's progress toward its goal (its ``progress`` hook, or its score)."""
        hook = getattr(self.inner, "progress", None)
        if hook is not None:
            score, words = hook()
            return float(score), words
        if self.inner.ended_by:
            found = self.inner.metrics()
            score = float(found.get("success", found.get("score", 0.0)))
            return min(1.0, max(0.0, score)), (
                f"The task ended ({self.inner.ended_by}) with score {found.get('score', score)}."
            )
        return 0.0, f"The task goes on (round {self.inner.round})."

    def _measure(self) -> float:
        """The task's progress now, kept as the next move's "before" (one reading a move)."""
        self._level = self._progress()[0]
        return self._level

    def _act_in_task(self, seat: str, action: Any, raw: Any = None) -> list[Event]:
        """One move of the wrapped task, made for the agent whose turn it is there."""
        inner = self.inner
        agent = inner.agent_selection
        before = self._level
        inner.step(action)
        last = inner.last_events(agent)
        failed = inner.explain_invalid(last[0]) if last and last[0].kind == "invalid" else None
        made_by = getattr(inner, "made_by", None)
        value = inner.moves[-1].action if inner.moves else action
        words = raw if isinstance(raw, str) else brief(value)
        self.current.executed.append(Executed(
            seat, agent, words.strip()[:200], failed is None,
            tuple(made_by(agent, value)) if made_by and failed is None else (),
            before, self._measure(),
        ))  # fmt: skip
        if failed is not None:
            raise InvalidAction("task", f"{agent}: {failed}")
        return []

    def end_phase(self, phase: Phase) -> Outcome | None:
        """After a stage: decide, execute, evaluate, or go on (class docstring)."""
        it = self.current
        # a seat whose move was not text said nothing: no proposal, no review
        latest = it.proposals[-1][1] if it.proposals else ""
        if phase.name == "propose" and len(self.experts) == 1:
            it.decision = latest
            return self._execute()
        if phase.name == "review":
            verdicts = (
                it.reviews[self._review_round] if len(it.reviews) > self._review_round else {}
            )
            self._review_round += 1
            every = len(verdicts) == len(phase.agents) and all(ok for _, ok in verdicts.values())
            if every or self._review_round >= self.review_rounds:
                it.decision = latest
                return self._execute()
        if phase.name == "discuss":
            self._review_round += 1
        if phase.name == "integrate":
            it.decision = it.decision if it.decision is not None else ""
            return self._execute()
        if phase.name == "execute":
            if self._unapplied is not None:  # unreadable here: the task spends the turn its way
                raw, self._unapplied = self._unapplied, None
                self._act_in_task_quietly(raw)
            inner = self.inner
            if inner.ended_by or inner.round - self._execute_from >= self.execute_rounds:
                return self._executed()
            return None
        if phase.name == "evaluate":
            return self._after_evaluation()
        return None

    def _act_in_task_quietly(self, raw: Any) -> None:
        """Spend the task's turn on a move the protocol refused (the task records why)."""
        agent = self.inner.agent_selection
        before = self._level
        self.inner.step(raw)
        words = raw[:200] if isinstance(raw, str) else brief(raw)
        self.current.executed.append(Executed(self.phase.agents[0], agent, words, False,
                                              (), before, self._measure()))  # fmt: skip

    def _execute(self) -> Outcome | None:
        """Score the decision; evaluate it automatically, or leave it to the evaluator seat.

        With a wrapped task, the decision is a plan: the execution stage plays the task first.
        """
        it = self.current
        if self.inner is not None:
            self._execute_from = self.inner.round
            if self.inner.ended_by:
                return self._executed()
            self._pending = "execute"
            return None
        it.score = float(self.problem.score(it.decision or ""))
        if self.evaluator == "seat":
            self._pending = "evaluate"
            return None
        if self.evaluator == "auto":
            it.accepted = it.score >= 1.0 - 1e-9
            it.feedback = self.problem.explain(it.decision or "")
        else:
            it.accepted = True
        return self._after_evaluation()

    def _executed(self) -> Outcome | None:
        """After the execution stage: the task's progress is the score; then the evaluation."""
        it = self.current
        it.score, it.outcome = self._progress()
        if self.evaluator == "seat":
            self._pending = "evaluate"
            return None
        if self.evaluator == "auto":
            it.accepted, it.feedback = it.score >= 1.0 - 1e-9, it.outcome
        else:
            it.accepted = True
        return self._after_evaluation()

    def _after_evaluation(self) -> Outcome | None:
        it = self.current
        task_over = self.inner is not None and bool(self.inner.ended_by)
        if it.accepted or task_over or len(self.history) >= self.n_iterations:
            ended = (
                "decided"
                if self.evaluator == "none"
                else "accepted"
                if it.accepted
                else f"task_{self.inner.ended_by}"
                if task_over
                else "iterations"
            )
            self.finish(ended)
            event = self.event("result", None, {("score",): it.score},
                               frozenset(self.possible_agents))  # fmt: skip
            return Outcome([event], it.score)
        self.history.append(Iteration())
        self._review_round = 0
        self._pending = "restart"
        return None

    # -- metrics ------------------------------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        """Score, iterations, revisions, the reviewers' and the evaluator's verdicts."""
        last = self.history[-1]
        revisions = sum(max(0, len(it.proposals) - 1) for it in self.history
                        if self.structure == "vertical")  # fmt: skip
        final_reviews = last.reviews[-1] if last.reviews else {}
        return {
            **super().metrics(),
            "problem": self.problem.id,
            "score": last.score,
            "solved": float(last.score >= 1.0 - 1e-9),
            "iterations": len(self.history),
            "revisions": revisions,
            "review_rounds": sum(len(it.reviews) for it in self.history),
            "unanimous": float(bool(final_reviews) and all(ok for _, ok in final_reviews.values())),
            "evaluator_accepted": float(last.accepted),
            **behaviours(self.history),
            **(self._task_metrics() if self.inner is not None else {}),
        }

    def _task_metrics(self) -> dict[str, Any]:
        """The wrapped task's side: its rounds, valid moves, and the group's acts in it."""
        steps = [step for it in self.history for step in it.executed]
        reader = getattr(self.inner, "needs_of", None)
        volunteered = 0
        if reader is not None:
            needs: dict[str, frozenset[str]] = {}
            for it in self.history:  # each iteration's acts against the roles then in force
                for seat, role in it.roles.items():
                    for agent in self.acts_for(seat):
                        needs[agent] = frozenset(reader(role))
                volunteered += volunteering(it.executed, needs)
        inner = self.inner.metrics()
        return {
            "task_score": float(inner.get("score", 0.0)),
            "task_rounds": self.inner.round - (0 if self.inner.ended_by else 1),
            "task_ended_by": self.inner.ended_by,
            "executed": len(steps),
            "executed_valid": sum(step.valid for step in steps),
            "executed_valid_rate": sum(step.valid for step in steps) / max(1, len(steps)),
            "volunteering": volunteered,
            "destructive_acts": destructive_acts(steps),
            "progress": self.history[-1].score,
        }

    # -- views --------------------------------------------------------------------------------

    def _vector(self, agent: str) -> np.ndarray:
        return vector.pack(self, agent)

    def _text(self, agent: str) -> str:
        from mase.envs.agentverse import text as words

        return words.observation_text(self, agent)

    def vector_layout(self, agent: str) -> VectorLayout:
        """The vector's blocks (:mod:`.vector`): the same for every seat."""
        return self.layout

    def text_knowledge(self, agent: str, text: str) -> dict[Any, Any]:
        """The facts a view states, section by section (:func:`.text.stated`)."""
        from mase.envs.agentverse import text as words

        return words.stated(self, agent, text).facts()

    def vector_knowledge(self, agent: str, vector_: np.ndarray) -> dict[Any, Any]:
        """The same facts, read back from the vector (:func:`.vector.read`)."""
        return vector.read(self, agent, vector_)

    def scene(self) -> dict:
        """The problem and each iteration's four stages so far (``replay.js``).

        Every seat sees the problem and each evaluation's verdict; the recruitment, proposals,
        reviews, decision and actions are seen only by the experts (or the acting seat), so
        the whole iterations and the inner task are kept under ``"secret"``, out of the
        replay's common view.
        """
        return {
            "problem": self.problem.id,
            "prompt": getattr(self.problem, "prompt", ""),
            "structure": self.structure,
            "phase": self.phase.name if self.agents else None,
            "iterations": [
                {"score": it.score, "feedback": it.feedback, "accepted": it.accepted}
                if it.decision is not None
                else {}
                for it in self.history
            ],
            "secret": self._secret_scene(),
        }

    def _secret_scene(self) -> dict:
        """What not every seat saw: each iteration whole, and the inner task's picture."""
        return {
            "iterations": [
                {
                    "roles": it.roles,
                    "proposals": [{"seat": seat, "text": text} for seat, text in it.proposals],
                    "reviews": [
                        {seat: {"text": t, "accepted": ok} for seat, (t, ok) in round_.items()}
                        for round_ in it.reviews
                    ],
                    "executed": [
                        {"seat": e.seat, "agent": e.agent, "action": e.action, "valid": e.valid}
                        for e in it.executed
                    ],
                    "decision": it.decision,
                    "score": it.score,
                    "feedback": it.feedback,
                    "accepted": it.accepted,
                    "outcome": it.outcome,
                }
                for it in self.history
            ],
            "inner": None if self.inner is None else self.inner.unwrapped._render(),
        }

    def _render(self) -> str:
        it = self.current
        lines = [f"AgentVerse ({self.structure}), {self.problem.id}, iteration {len(self.history)}"]
        for seat, said in it.proposals[-3:]:
            lines.append(f"  {seat}: {said[:160]}")
        if it.decision is not None:
            lines.append(
                f"  decision scores {it.score:.2f}; {'accepted' if it.accepted else 'not accepted'}"
            )
        return "\n".join(lines)

    # -- language interface -------------------------------------------------------------------

    def rules_text(self, agent: str) -> str:
        """The protocol as told to ``agent``."""
        from mase.envs.agentverse import text as words

        return words.rules_text(self, agent)

    def legal_actions_text(self, agent: str) -> list[str]:
        """What the seat is to write now (none when it is not its turn)."""
        from mase.envs.agentverse import text as words

        if not self.acting(agent):
            return []
        if self.inner is not None and self.phase.name == "execute":
            return self.inner.legal_actions_text(self.inner.agent_selection)
        return [words.request(self, agent)]

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Every stage is speech: a reply is what it says."""
        return ActionParse(text)


def read_roles(text: str, experts: Sequence[str]) -> dict[str, str]:
    """The recruiter's roles: ``Expert k: ...`` lines, in order, one an expert (missing: none)."""
    found = re.findall(r"^[\s>*_#`-]*expert\s*(\d+)[\s*_`]*[:\-]\s*(.+)$", text, re.I | re.M)
    roles: dict[str, str] = {}
    for number, role in found:
        k = int(number) - 1
        if 0 <= k < len(experts) and experts[k] not in roles:
            roles[experts[k]] = role.strip()[:500]
    return roles
