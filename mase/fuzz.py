"""Fuzzing a task: hostile inputs (:mod:`mase.hostile`) through every view, step by step.

:func:`fuzz_task` plays a task through each of its views (:data:`STACKS`): a direct-topology
:class:`~mase.wrappers.MessageChannel`; a broadcast channel under a
:class:`~mase.wrappers.Recorder`; :class:`~mase.wrappers.BeliefState` and
:class:`~mase.wrappers.ToMProbe` over a channel (where the task writes beliefs or has probes);
:class:`~mase.wrappers.TextActions` over a channel; the bare task under a Recorder; the
single-agent ``gymnasium`` view; the parallel view (where moves are one a round); and a batch
of worlds (:func:`mase.make_vec`, where actions are indices). Besides each turn's hostile input
it steps before ``reset()``, after the episode's end, and with an action for an agent that is
done; the parallel view gets mappings with agents missing, unknown or of other types, the
batch arrays of every dtype and shape.

A **crash** is any exception but a documented clear error, which is precisely: an instance of
:class:`mase.actions.UsageError` (``ResetNeeded``, ``AgentDone``, ``ActionDictError``; for the
single-agent view gymnasium's own ``gymnasium.error.ResetNeeded`` of a step before ``reset``)
whose message is readable text (``str()`` works, 1 to 2,000 characters), raised where the
input is a programmer's mistake (a dict, a step out of turn, a mapping or array of the wrong
form). An input of any other kind must be a move or an invalid action with a reason. A step
after the end, or an action for a done agent, that raises nothing is a crash too. After every
step: the observations of who acts next are in their spaces (Gymnasium's ``contains``), each
invalid action's reason is text, the mover's info can be shown (``repr``: no hostile object
kept in it), and the knowledge tracker takes the step in.

``check_task`` runs a short fuzz on every task; ``benchmarks/fuzz.py`` runs a long one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np

from mase.actions import ActionDictError, AgentDone, ResetNeeded, UsageError, brief
from mase.hostile import KINDS, MAY_REFUSE, Hostile, HostileKey, HostileStr, hostile_input
from mase.parallel import refusal
from mase.registry import make, make_parallel

__all__ = ["KINDS", "STACKS", "FuzzReport", "fuzz_task", "hostile_input"]


@dataclass
class FuzzReport:
    """What a fuzz run did.

    Attributes:
        steps: inputs given (each one a step of a view, or a refused one).
        episodes: episodes started.
        invalid: steps the env counted as invalid actions.
        refused: inputs refused with a documented clear error.
        crashes: inputs that raised anything else, or broke a check.
        examples: the first crashes, described (stack, kind, input, what happened).
        kinds: inputs given, per kind.
        stacks: inputs given, per view.
        seconds: wall-clock time of the run.
    """

    steps: int = 0
    episodes: int = 0
    invalid: int = 0
    refused: int = 0
    crashes: int = 0
    examples: list[str] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    stacks: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


class _Crash(Exception):
    """A check failed: the message says what."""


def readable(exc: BaseException) -> bool:
    """Whether an error's message is text a person can read (1 to 2,000 characters)."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a message that cannot be made is not readable
        return False
    return type(text) is str and 0 < len(text.strip()) <= 2_000


class _Run:
    """One stack's fuzz: the generator, the report and the judging of each input."""

    def __init__(self, env_id: str, stack: str, report: FuzzReport, seed: int, size: int):
        self.env_id, self.stack, self.report, self.size = env_id, stack, report, size
        self.rng = np.random.default_rng((seed, sum(map(ord, stack))))
        self.seed = seed

    def given(self, kind: str) -> None:
        report = self.report
        report.steps += 1
        report.kinds[kind] = report.kinds.get(kind, 0) + 1
        report.stacks[self.stack] = report.stacks.get(self.stack, 0) + 1

    def crash(self, kind: str, value: Any, what: str) -> None:
        self.report.crashes += 1
        if len(self.report.examples) < 20:
            self.report.examples.append(
                f"{self.env_id} [{self.stack}] {kind} input {brief(value)}: {what}"
            )

    def call(
        self, kind: str, value: Any, step: Callable[[], Any], must_refuse: tuple = ()
    ) -> tuple[bool, Any]:
        """Give one input; ``(taken, result)``. A refusal is judged against the rules above."""
        self.given(kind)
        try:
            result = step()
        except Exception as exc:  # noqa: BLE001 - judging what was raised is the point
            allowed = must_refuse or ((UsageError,) if kind in MAY_REFUSE else ())
            if allowed and isinstance(exc, allowed) and readable(exc):
                self.report.refused += 1
            else:
                self.crash(kind, value, f"raised {type(exc).__name__}: {brief(exc)}")
            return False, None
        if must_refuse:
            self.crash(kind, value, f"was taken, but {must_refuse[0].__name__} was due")
            return False, None
        return True, result


# -- AEC stacks ---------------------------------------------------------------------------


def _fuzz_aec(env: Any, run: _Run, steps: int) -> None:
    """Play an AEC stack with hostile inputs, steps after the end and dead steps included."""
    base = env.unwrapped
    run.call("before_reset", 0, lambda: env.step(0), (ResetNeeded,))
    env.reset(seed=run.seed)
    run.report.episodes += 1
    rng = run.rng
    while run.report.stacks.get(run.stack, 0) < steps:
        if not env.agents:
            if rng.random() < 0.5:
                kind, value = hostile_input(rng, env, base.possible_agents[0], run.size)
                run.call("after_end", value, lambda v=value: env.step(v), (ResetNeeded,))
            env.reset(seed=run.seed + run.report.episodes)
            run.report.episodes += 1
            continue
        agent = env.agent_selection
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            if rng.random() < 0.2:
                run.call("dead_step", 1, lambda: env.step(1), (AgentDone,))
            env.step(None)
            continue
        kind, value = hostile_input(rng, env, agent, run.size)
        before = base.invalid_actions
        taken, _ = run.call(kind, value, lambda v=value: env.step(v))
        if taken:
            _check_aec_step(env, run, kind, value, agent, before)


def _check_aec_step(env: Any, run: _Run, kind: str, value: Any, agent: str, before: int) -> None:
    """After a step: the tracker reads it, a reason is given, the next view is in its space."""
    base = env.unwrapped
    try:
        base.knowledge()  # the knowledge tracker reads every message's claims
    except Exception as exc:  # noqa: BLE001
        run.crash(kind, value, f"then reading who knows what raised {type(exc).__name__}")
        return
    try:  # no hostile object survives into what the agent is told
        repr(base.infos.get(agent))
    except Exception:  # noqa: BLE001
        run.crash(kind, value, f"then {agent}'s info could not be shown")
    if base.invalid_actions > before:
        run.report.invalid += 1
        reason = base.infos.get(agent, {}).get("invalid_action") if agent in base.infos else ""
        if agent in base.infos and not (isinstance(reason, str) and reason.strip()):
            run.crash(kind, value, "was invalid with no reason")
    if env.agents:
        other = env.agent_selection
        if not env.observation_space(other).contains(env.observe(other)):
            run.crash(kind, value, f"then {other}'s observation left its space")


def _channel(env_id: str, **kw: Any) -> Any:
    from mase.wrappers import MessageChannel  # the wrappers import the task core, not back

    return MessageChannel(make(env_id, **kw), topology="direct")


def _broadcast_recorder(env_id: str, **kw: Any) -> Any:
    from mase.wrappers import MessageChannel, Recorder

    return Recorder(MessageChannel(make(env_id, **kw)))


def _belief(env_id: str, **kw: Any) -> Any:
    from mase.task import TaskEnv
    from mase.wrappers import BeliefState

    env = _channel(env_id, **kw)
    if type(env.unwrapped).belief_template is TaskEnv.belief_template:
        return None  # the task writes no belief states
    return _Beliefs(BeliefState(env))


def _tom(env_id: str, **kw: Any) -> Any:
    from mase.wrappers import ToMProbe

    try:
        return ToMProbe(_channel(env_id, **kw))
    except (TypeError, ValueError):  # the task has no probes or no true facts
        return None


def _text_actions(env_id: str, **kw: Any) -> Any:
    from mase.wrappers import TextActions

    return TextActions(_channel(env_id, **kw))


def _recorder(env_id: str, **kw: Any) -> Any:
    from mase.wrappers import Recorder

    return Recorder(make(env_id, **kw))


class _Beliefs:
    """A BeliefState stack whose dict inputs carry a belief of any kind as well."""

    def __init__(self, env: Any):
        self._env = env
        self._n = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def step(self, action: Any) -> None:
        self._n += 1
        if isinstance(action, dict) and len(action) and self._n % 2:
            beliefs = ("Bomb 1: red", 10**5000, HostileStr("x"), None, ["a"], "")
            action = {**action, "belief": beliefs[self._n % len(beliefs)]}
        self._env.step(action)


# -- the other views ----------------------------------------------------------------------


def _fuzz_single(env_id: str, run: _Run, steps: int, **kw: Any) -> None:
    """The single-agent gymnasium view: the learner's hostile inputs, steps after its end."""
    env = gymnasium.make(env_id, **kw)
    aec = env.unwrapped.aec
    refusals = (ResetNeeded, gymnasium.error.ResetNeeded)
    run.call("before_reset", 0, lambda: env.step(0), refusals)
    env.reset(seed=run.seed)
    run.report.episodes += 1
    learner = env.unwrapped.agent
    while run.report.stacks.get(run.stack, 0) < steps:
        kind, value = hostile_input(run.rng, aec, learner, run.size)
        before = aec.unwrapped.invalid_actions
        taken, result = run.call(kind, value, lambda v=value: env.step(v))
        if not taken:
            continue
        obs, _, terminated, truncated, _ = result
        run.report.invalid += aec.unwrapped.invalid_actions > before
        if not env.observation_space.contains(obs):
            run.crash(kind, value, "then the learner's observation left its space")
        if terminated or truncated:
            if run.rng.random() < 0.5:
                run.call("after_end", 0, lambda: env.step(0), (ResetNeeded,))
            env.reset(seed=run.seed + run.report.episodes)
            run.report.episodes += 1
    env.close()


def _bad_mapping(rng: np.random.Generator, live: list[str], actions: dict) -> Any:
    """A parallel step's actions that are not one for every live agent."""
    first = live[0]
    forms = (
        lambda: {},
        lambda: {a: v for a, v in actions.items() if a != first},
        lambda: {**actions, "nobody": 0},
        lambda: {**actions, 10**5000: 0, None: 1, (1,): 2},
        lambda: {**actions, HostileKey(): 0},
        lambda: {**actions, HostileStr("nobody"): 0},
        lambda: list(actions.values()),
        lambda: None,
        lambda: 10**5000,
        Hostile,
    )
    return forms[int(rng.integers(len(forms)))]()


def _fuzz_parallel(env_id: str, run: _Run, steps: int, **kw: Any) -> None:
    """The parallel view: every live agent's hostile input at once, and malformed mappings."""
    env = make_parallel(env_id, **kw)
    aec = env.aec_env
    run.call("before_reset", {}, lambda: env.step({}), (ResetNeeded,))
    env.reset(seed=run.seed)
    run.report.episodes += 1
    rng = run.rng
    while run.report.stacks.get(run.stack, 0) < steps:
        if not env.agents:
            if rng.random() < 0.5:
                run.call("after_end", {}, lambda: env.step({}), (ResetNeeded,))
            env.reset(seed=run.seed + run.report.episodes)
            run.report.episodes += 1
            continue
        live = list(env.agents)
        draws = {a: hostile_input(rng, aec, a, run.size) for a in live}
        actions = {a: value for a, (_, value) in draws.items()}
        if rng.random() < 0.15:
            bad = _bad_mapping(rng, live, actions)
            run.call("mapping", bad, lambda b=bad: env.step(b), (ActionDictError,))
            continue
        kind = "dict" if any(k == "dict" for k, _ in draws.values()) else draws[live[0]][0]
        before = aec.unwrapped.invalid_actions
        taken, result = run.call(kind, actions, lambda a=actions: env.step(a))
        if not taken:
            continue
        run.report.invalid += aec.unwrapped.invalid_actions > before
        for agent, obs in result[0].items():
            if not env.observation_space(agent).contains(obs):
                run.crash(kind, actions, f"then {agent}'s observation left its space")


def _bad_actions(rng: np.random.Generator, n: int, k: int) -> tuple[str, Any, bool]:
    """A batch's actions: ``(kind, actions, whether they are indices the batch takes)``."""
    forms = (
        ("indices", lambda: rng.integers(0, k, n), True),
        ("out_of_range", lambda: rng.integers(-(2**62), 2**62, n), True),
        ("int_extremes", lambda: np.array([2**63 - 1, -(2**63)] * n)[:n], True),
        ("uint64", lambda: np.full(n, 2**64 - 1, dtype=np.uint64), True),
        ("whole_floats", lambda: rng.integers(0, k, n).astype(np.float64), True),
        ("huge_floats", lambda: np.full(n, 1e300), True),
        ("list", lambda: [int(i) for i in rng.integers(0, k, n)], True),
        ("nan", lambda: np.full(n, np.nan), False),
        ("fractions", lambda: rng.random(n) + 0.25, False),
        ("objects", lambda: np.array([10**5000] * n, dtype=object), False),
        ("text", lambda: np.array(["go"] * n), False),
        ("shape", lambda: rng.integers(0, k, (n, 2)), False),
        ("none", lambda: None, False),
        ("hostile", Hostile, False),
    )
    kind, make_actions, taken = forms[int(rng.integers(len(forms)))]
    return kind, make_actions(), taken


def _fuzz_batch(env_id: str, run: _Run, steps: int, **kw: Any) -> None:
    """A batch of worlds: action arrays of every dtype and shape, out-of-range indices."""
    from mase.batch import make_vec  # the batch module imports the registry, as this does

    batch = make_vec(env_id, 4, **kw)
    run.call("before_reset", 0, lambda: batch.step(np.zeros(4, dtype=np.int64)), (ResetNeeded,))
    batch.reset(seed=run.seed)
    run.report.episodes += 4
    while run.report.stacks.get(run.stack, 0) < steps:
        kind, actions, indices = _bad_actions(run.rng, batch.num_envs, batch.n_actions)
        refusal = () if indices else (ActionDictError,)
        taken, result = run.call(f"batch_{kind}", actions, lambda a=actions: batch.step(a), refusal)
        if not taken:
            continue
        run.report.episodes += len(result.metrics)
        obs, mask = batch.observe()
        if obs.shape != (batch.num_envs, batch.observation_size) or not np.isfinite(obs).all():
            run.crash(kind, actions, f"then the observations had shape {obs.shape} or NaN")
    batch.close()


def _parallel_task(env_id: str, **kw: Any) -> bool:
    return not refusal(make(env_id, **kw))


def _batched_task(env_id: str, **kw: Any) -> bool:
    """Whether the task's seats act by indices and an episode has a decision (not all speech)."""
    env = make(env_id, **kw)
    discrete = isinstance(env.action_space(env.possible_agents[0]), gymnasium.spaces.Discrete)
    return discrete and decides(env_id, **kw)


def decides(env_id: str, **kw: Any) -> bool:
    """Whether an episode of the task (empty text played) has a turn that is not speech.

    A task whose every turn is speech (the utterance is the move) gives a batch nothing to step.
    """
    env = make(env_id, **kw)
    env.reset(seed=0)
    for _ in range(10_000):
        if not env.agents:
            return False
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        elif not env.unwrapped.phase.speech:
            return True
        else:
            env.step("")
    return False


#: The AEC stacks: name -> builder (``None`` where the task does not support it).
_AEC = {
    "channel": _channel,
    "broadcast+recorder": _broadcast_recorder,
    "belief": _belief,
    "tom": _tom,
    "text-actions": _text_actions,
    "recorder": _recorder,
}
#: Every view :func:`fuzz_task` drives.
STACKS = (*_AEC, "single-agent", "parallel", "batch")


def fuzz_task(
    env_id: str,
    steps: int = 1_000,
    seed: int = 0,
    size: int = 2_000,
    stacks: tuple[str, ...] = STACKS,
    raise_on_crash: bool = True,
    **kwargs: Any,
) -> FuzzReport:
    """Give ``steps`` hostile inputs to the task, shared among its views, and judge each.

    Args:
        env_id: a registered task id.
        steps: inputs to give in all, over as many episodes as it takes.
        seed: seeds the inputs and the episodes.
        size: the longest random text.
        stacks: the views to drive (of :data:`STACKS`; one the task lacks is skipped).
        raise_on_crash: raise at the end of the run when anything crashed.
        **kwargs: task arguments.

    Raises:
        AssertionError: something crashed (the message lists the first crashes).
    """
    report = FuzzReport()
    start = time.perf_counter()
    playable = [s for s in stacks if _plays(env_id, s, **kwargs)]
    share = -(-steps // len(playable))
    for stack in playable:
        run = _Run(env_id, stack, report, seed, size)
        goal = min(share, steps - report.steps)
        if goal <= 0:
            break
        if stack in _AEC:
            _fuzz_aec(_AEC[stack](env_id, **kwargs), run, goal)
        elif stack == "single-agent":
            _fuzz_single(env_id, run, goal, **kwargs)
        elif stack == "parallel":
            _fuzz_parallel(env_id, run, goal, **kwargs)
        else:
            _fuzz_batch(env_id, run, goal, **kwargs)
    report.seconds = time.perf_counter() - start
    if raise_on_crash and report.crashes:
        raise AssertionError(
            f"{report.crashes} of {report.steps} hostile inputs crashed:\n"
            + "\n".join(report.examples)
        )
    return report


def _plays(env_id: str, stack: str, **kw: Any) -> bool:
    """Whether the task has this view."""
    if stack in _AEC:
        return _AEC[stack](env_id, **kw) is not None
    if stack == "parallel":
        return _parallel_task(env_id, **kw)
    if stack == "batch":
        return _batched_task(env_id, **kw)
    return stack == "single-agent"
