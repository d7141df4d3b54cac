"""Many worlds of one task stepped together, with numpy arrays: :func:`make_vec`.

Training a MARL policy needs millions of turns; one AEC env in a Python loop gives tens of
thousands a second. A batch holds ``num_envs`` worlds of a task and steps them as arrays:

==================  =========================================================================
member              meaning
==================  =========================================================================
``acting``          int array ``[N]``: the seat (index into ``possible_agents``) to act in each
                    world now. Round-robin tasks: the same seat everywhere.
``observe(seat)``   ``(obs [N, D] float32, mask [N, K] int8)``: each world's acting seat, or
                    the given seat in every world (its view now, as the AEC env's ``observe``)
``state()``         ``[N, S]`` float32: each world's global state (the AEC env's ``state()``)
``step(actions)``   the acting seat of every world takes ``actions[n]``; returns a
                    :class:`BatchStep`: rewards ``[N, A]``, terminated and truncated ``[N]``,
                    the metrics of each episode that ended and, where the batch gives them,
                    every seat's last view of it
==================  =========================================================================

A world whose episode ends is reset at once (its next episode drawn from its own generator, as
the AEC env's ``reset()`` without a seed), so ``acting``, ``observe`` and ``state`` always
describe live worlds; ``BatchStep.ended`` and ``BatchStep.metrics`` tell which ended and how.
``reset(seed)`` seeds world ``n`` with ``seed + n``. A turn where the acting seat has no legal
index (a speech turn: the utterance is the move) is not a decision: the batch plays it with an
empty utterance and moves on, adding its rewards to the step's.

Two kinds of batch give the same numbers, step for step (the task's consistency test checks
it): :class:`AECBatch` runs ``num_envs`` AEC envs of any task; a task whose rules allow it
supplies a native one written in arrays (class attribute ``batched`` on the task, a
``"module:attribute"`` path), far faster. :func:`make_vec` picks the native one when there is
one. RL libraries reach a batch through its single-agent doors:
:class:`mase.vector_env.BatchVectorEnv` (a Gymnasium ``VectorEnv``) and
:class:`mase.baselines.sb3.vec.BatchVecEnv` (an SB3 ``VecEnv``, for PPO and MaskablePPO).

>>> import mase
>>> task = mase.list_envs("mase", declaring="batched")[0]  # a task with a native batch
>>> batch = mase.make_vec(task, num_envs=4)
>>> batch.reset(seed=0)
>>> obs, mask = batch.observe()
>>> obs.shape == (4, batch.observation_size), mask.shape == (4, batch.n_actions)
(True, True)
>>> result = batch.step(mask.argmax(axis=1))
>>> result.rewards.shape == (4, len(batch.possible_agents))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from mase.actions import ActionDictError, ResetNeeded, brief
from mase.registry import env_creator, make


@dataclass
class BatchStep:
    """What one step of a batch gave.

    Attributes:
        rewards: ``[N, A]`` float32, each seat's reward from the step (and any speech turns
            played after it).
        terminated: ``[N]`` bool, the episode ended by the game's own end.
        truncated: ``[N]`` bool, the episode ended by a limit (rounds, deadlock).
        metrics: world index -> the ended episode's ``info["metrics"]``.
        final_observations: world index -> ``[A, D]`` float32, every seat's observation vector
            at the ended episode's end (the AEC env's ``observe`` then, before the world's
            reset); ``None`` when the batch does not keep them (a trainer then cannot
            bootstrap a truncated episode from its last view).
    """

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    metrics: dict[int, dict[str, Any]] = field(default_factory=dict)
    final_observations: dict[int, np.ndarray] | None = None

    @property
    def ended(self) -> np.ndarray:
        """``[N]`` bool: the world's episode ended at this step (it has been reset since)."""
        return self.terminated | self.truncated


class Batch:
    """What every batch offers (see the module docstring); subclasses fill it in.

    Attributes:
        num_envs: the number of worlds ``N``.
        possible_agents: the seats, in the task's order.
        observation_size: ``D``, the length of a seat's observation vector.
        n_actions: ``K``, the size of a seat's (Discrete) action space.
        state_size: ``S``, the length of the global state vector.
        spec_id: the task id the batch was made from.
    """

    num_envs: int
    possible_agents: list[str]
    observation_size: int
    n_actions: int
    state_size: int
    spec_id: str = ""
    render_mode: str | None = None  # a batch does not render

    @property
    def acting(self) -> np.ndarray:
        """``[N]`` int: the seat (index into ``possible_agents``) to act in each world."""
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Reset every world (world ``n`` seeded ``seed + n``; ``None``: from its generator)."""
        raise NotImplementedError

    def observe(self, seat: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(obs [N, D], mask [N, K])`` of each world's acting seat (or of ``seat``)."""
        raise NotImplementedError

    def state(self) -> np.ndarray:
        """``[N, S]`` float32: each world's global state (the AEC env's ``state()``)."""
        raise NotImplementedError

    def step(self, actions: np.ndarray) -> BatchStep:
        """The acting seat of every world takes ``actions[n]`` (an action index each)."""
        raise NotImplementedError

    def close(self) -> None:
        """Release what the worlds hold (nothing, for array worlds)."""


class AECBatch(Batch):
    """``num_envs`` AEC envs of any task, stepped in a loop behind the batch's arrays.

    The reference every native batch is tested against, and the batch of tasks that have no
    native one. Envs are built with ``obs_mode="vector"``.
    """

    def __init__(self, id: str, num_envs: int, **kwargs: Any):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        kwargs = {**kwargs, "obs_mode": "vector"}
        self.envs = [make(id, **kwargs).unwrapped for _ in range(num_envs)]
        first = self.envs[0]
        self.spec_id = id
        self.num_envs = num_envs
        self.possible_agents = list(first.possible_agents)
        agent = self.possible_agents[0]
        self.observation_size = int(first.observation_space(agent)["observation"].shape[0])
        space = first.action_space(agent)
        if not hasattr(space, "n"):
            raise TypeError(f"{id}: a batch needs a Discrete action space, not {space}")
        self.n_actions = int(space.n)
        self.state_size = int(first.state_space.shape[0])
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._started = False

    @property
    def acting(self) -> np.ndarray:
        """See :attr:`Batch.acting`."""
        self._check()
        return np.array([self._seat[env.agent_selection] for env in self.envs])

    def reset(self, seed: int | None = None) -> None:
        """Reset every world (world ``n`` seeded ``seed + n``; ``None``: from its generator)."""
        N, A = self.num_envs, len(self.possible_agents)
        rewards = np.zeros((N, A), dtype=np.float32)
        flags, metrics = np.zeros(N, dtype=bool), {}
        for n, env in enumerate(self.envs):
            env.reset(seed=None if seed is None else seed + n)
            self._to_decision(n, rewards, flags, flags.copy(), metrics, {})
        if metrics:
            raise RuntimeError(f"{self.spec_id}: an episode ended before its first decision")
        self._started = True

    def observe(self, seat: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """See :meth:`Batch.observe`."""
        self._check()
        views = [
            env.observe(env.agent_selection if seat is None else self.possible_agents[seat])
            for env in self.envs
        ]
        obs = np.stack([v["observation"] for v in views]).astype(np.float32, copy=False)
        return obs, np.stack([v["action_mask"] for v in views]).astype(np.int8, copy=False)

    def state(self) -> np.ndarray:
        """See :meth:`Batch.state`."""
        self._check()
        return np.stack([env.state() for env in self.envs]).astype(np.float32, copy=False)

    def step(self, actions: np.ndarray) -> BatchStep:
        """See :meth:`Batch.step`."""
        self._check()
        actions = action_indices(actions, self.num_envs)
        N, A = self.num_envs, len(self.possible_agents)
        rewards = np.zeros((N, A), dtype=np.float32)
        terminated, truncated = np.zeros(N, dtype=bool), np.zeros(N, dtype=bool)
        metrics: dict[int, dict] = {}
        finals: dict[int, np.ndarray] = {}
        for n, env in enumerate(self.envs):
            env.step(int(actions[n]))
            self._collect(env, rewards[n])
            self._to_decision(n, rewards, terminated, truncated, metrics, finals)
        return BatchStep(rewards, terminated, truncated, metrics, finals)

    def close(self) -> None:
        """Close every AEC env."""
        for env in self.envs:
            env.close()

    # -- helpers ------------------------------------------------------------------------------

    def _check(self) -> None:
        if not self._started:
            raise ResetNeeded("call reset() before using the batch")

    def _collect(self, env: Any, row: np.ndarray) -> None:
        for agent, r in env.rewards.items():
            row[self._seat[agent]] += r

    def _to_decision(self, n: int, rewards, terminated, truncated, metrics, finals) -> None:
        """Play world ``n`` on to its next decision.

        An ended episode is recorded (its metrics, every seat's last observation vector) and
        the next one started (from the world's generator);
        speech turns (the utterance is the move) are played with an empty utterance, their
        rewards added to the step's.
        """
        env = self.envs[n]
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                if n in metrics:
                    raise RuntimeError(
                        f"{self.spec_id}: an episode ended before its first decision"
                    )
                terminated[n] = bool(env.terminations[agent])
                truncated[n] = not terminated[n]
                metrics[n] = env.infos[agent]["metrics"]
                views = [env.observe_vector(a) for a in self.possible_agents]
                finals[n] = np.stack(views).astype(np.float32, copy=False)
                env.reset()  # the next episode, from the world's own generator
            elif env.phase.speech:
                env.step("")
                self._collect(env, rewards[n])
            else:
                return


def action_indices(actions: Any, num_envs: int) -> np.ndarray:
    """A batch's ``actions`` as int64 indices, one a world; refused unless they are indices.

    Integer arrays (and floats that are whole numbers) of shape ``(num_envs,)`` are taken; an
    index out of range is the world's invalid action, as in the AEC env. Anything else (other
    shapes, NaN, fractions, text, objects) is a caller's mistake: an
    :class:`~mase.actions.ActionDictError` (a ``ValueError``) that says what was given.
    """
    try:
        x = np.asarray(actions)
    except Exception:  # noqa: BLE001 - a hostile __array__ or __len__ raises anything
        x = None
    if x is None or x.shape != (num_envs,):
        shape = "no array" if x is None else f"shape {x.shape}"
        raise ActionDictError(f"actions must have shape ({num_envs},), got {shape}")
    if x.dtype.kind in "iu":
        return x.astype(np.int64, copy=False)
    if x.dtype.kind == "f" and np.isfinite(x).all() and (x == np.round(x)).all():
        # a float past int64 has no index: the out-of-range index -1 in any world
        return np.where(np.abs(x) < 2**62, x, -1).astype(np.int64)
    raise ActionDictError(
        f"actions must be action indices (whole numbers), got {x.dtype} {brief(x)}"
    )


def native_batch_class(id: str) -> type | None:
    """The task's own array batch (its class attribute ``batched``), or ``None``."""
    creator, _ = env_creator(id)
    path = getattr(creator, "batched", None)
    if path is None:
        return None
    if isinstance(path, str):
        import importlib

        module, _, name = path.partition(":")
        return getattr(importlib.import_module(module), name)
    return path


def make_vec(
    id: str,
    num_envs: int,
    backend: Literal["auto", "native", "aec"] = "auto",
    **kwargs: Any,
) -> Batch:
    """``num_envs`` worlds of task ``id`` stepped together (see the module docstring).

    Args:
        id: a registered task id.
        num_envs: the number of worlds.
        backend: ``"native"`` the task's array batch (an error if it has none), ``"aec"`` a
            loop over AEC envs (any task), ``"auto"`` native when the task has one.
        **kwargs: the task's arguments (the registration's defaults apply, as in ``make``).

    Raises:
        ValueError: ``backend="native"`` for a task without one, or arguments its native
            batch does not support (the message says which; ``backend="aec"`` takes any).
    """
    if backend not in ("auto", "native", "aec"):
        raise ValueError(f"backend must be 'auto', 'native' or 'aec', got {backend!r}")
    native = native_batch_class(id) if backend != "aec" else None
    if backend == "native" and native is None:
        raise ValueError(f"{id} has no native batch; use backend='aec' (or 'auto')")
    if native is None:
        return AECBatch(id, num_envs, **kwargs)
    return native(id, num_envs, **kwargs)


def check_batch(
    id: str,
    num_envs: int = 8,
    steps: int = 2000,
    seed: int = 0,
    policy: Any = None,
    **kwargs: Any,
) -> dict[str, int]:
    """Step the task's native batch beside the AEC batch; raise at the first difference.

    Both get the same seeds and the same actions; at every step the acting seats, every
    seat's observation and mask, the global states, the rewards, the ends and the ended
    episodes' metrics (and every seat's last view of them, where the native batch keeps it)
    must be equal. The actions: by default, each world is in one of three
    moods, drawn again when its episode ends: random legal moves; random indices, illegal ones
    included (out of range too); or one index repeated (the deadlock and stale-move rules).
    ``policy(batch, obs, mask, rng)`` may give them instead.

    Returns how the ended episodes ended (``ended_by`` -> count), so a test can check that
    the actions reached every ending it cares about.

    Raises:
        AssertionError: the first difference, with the step, the world and what differs.
        ValueError: the task has no native batch.
    """
    native = make_vec(id, num_envs, backend="native", **kwargs)
    reference = AECBatch(id, num_envs, **kwargs)
    native.reset(seed=seed)
    reference.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moods = rng.integers(3, size=num_envs)
    stubborn = rng.integers(native.n_actions, size=num_envs)
    endings: dict[str, int] = {}

    def same(what: str, t: int, a: np.ndarray, b: np.ndarray) -> None:
        if a.shape != b.shape or not np.array_equal(a, b):
            if a.shape != b.shape:
                raise AssertionError(f"{id} step {t}: {what} shapes {a.shape} != {b.shape}")
            worlds = np.flatnonzero((a != b).reshape(len(a), -1).any(axis=1))
            n = int(worlds[0])
            where = np.flatnonzero(np.ravel(a[n] != b[n]))
            raise AssertionError(
                f"{id} step {t}, world {n}: {what} differs at {where.tolist()[:10]}: native "
                f"{np.ravel(a[n])[where][:10].tolist()}, AEC {np.ravel(b[n])[where][:10].tolist()}"
            )

    for t in range(steps):
        same("acting seat", t, native.acting, reference.acting)
        obs, mask = native.observe()
        same("observation", t, obs, reference.observe()[0])
        same("action mask", t, mask, reference.observe()[1])
        same("state", t, native.state(), reference.state())
        for seat in range(len(native.possible_agents)):
            same(f"seat {seat}'s observation", t, native.observe(seat)[0],
                 reference.observe(seat)[0])  # fmt: skip
            same(f"seat {seat}'s mask", t, native.observe(seat)[1], reference.observe(seat)[1])
        if policy is not None:
            actions = np.asarray(policy(native, obs, mask, rng))
        else:
            legal = (rng.random(mask.shape) * mask).argmax(axis=1)
            anything = rng.integers(-1, native.n_actions + 1, size=num_envs)
            actions = np.select([moods == 0, moods == 1], [legal, anything], stubborn)
        a, b = native.step(actions), reference.step(actions)
        same("rewards", t, a.rewards, b.rewards)
        same("terminated", t, a.terminated, b.terminated)
        same("truncated", t, a.truncated, b.truncated)
        if a.metrics != b.metrics:
            raise AssertionError(f"{id} step {t}: metrics {a.metrics} != {b.metrics}")
        if a.final_observations is not None:  # a native batch that keeps them keeps the AEC's
            finals, wanted = a.final_observations, b.final_observations or {}
            if finals.keys() != wanted.keys():
                raise AssertionError(
                    f"{id} step {t}: final views of worlds {sorted(finals)} != {sorted(wanted)}"
                )
            for n, final in finals.items():
                same(f"world {n}'s final observations", t, final[None], wanted[n][None])
        for n, metrics in a.metrics.items():
            how = str(metrics.get("ended_by", ""))
            endings[how] = endings.get(how, 0) + 1
            moods[n] = rng.integers(3)
            stubborn[n] = rng.integers(native.n_actions)
    native.close()
    reference.close()
    return endings
