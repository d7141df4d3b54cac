"""A batch of worlds (:func:`mase.make_vec`) as a Gymnasium ``VectorEnv``: the single-agent door.

:class:`mase.batch.Batch` is multi-agent: in every world one seat acts at a time. This door
turns it into ``num_envs`` single-agent environments over the same arrays, with Gymnasium 1.x's
``reset``/``step`` (batched observations, five arrays from ``step``, infos as a dict of arrays),
so any library that takes a ``gymnasium.vector.VectorEnv`` trains on the native batch. (For
Stable-Baselines3 and sb3-contrib, :class:`mase.baselines.sb3.vec.BatchVecEnv` wraps this door
as an SB3 ``VecEnv``.) Who the learner is:

==================  ==============================================================================
``agent=None``      self-play with one shared policy (the default): every decision of every world is
                    a learner step, whichever seat makes it; the observation is that seat's view
                    (a task's vector says whose view it is, e.g. search and rescue's own cutters).
                    The reward of a step is the team's: the mean of the seats' rewards from that
                    decision on to the next (every seat's, in a task whose seats share a team
                    reward). One side only: a task with sides (``TaskEnv.sides``, e.g. a hidden
                    role game's two camps) is refused, as one learner cannot play both sides' goals.
``agent=SEAT``      one seat learns in every world; the others are ``teammates``: ``"random"``
                    (a legal index drawn uniformly, from the door's generator) or a callable
                    ``policy(obs [M, D], mask [M, K], seats [M]) -> actions [M]`` acting on the
                    worlds where a teammate decides (``seats``: each world's acting seat index),
                    e.g. a MAPPO actor run on a batch of vectors. A step is the learner's action
                    then the teammates' turns up to its next decision; its reward is the
                    learner's own, summed over that span. The worlds must stay in step (every
                    seat once a round in turn order: ``metadata["is_parallelizable"]``).
==================  ==============================================================================

Observations are the single-agent view's default (``gymnasium.make(id)``): a Dict of
``"observation"`` (float32 ``[N, D]``) and ``"action_mask"`` (int8 ``[N, K]``); actions are
indices ``[N]`` (``single_action_space`` is ``Discrete(K)``). A world whose episode ends is
reset within the same step (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``):
the step returns the next episode's first observation, with ``infos["final_obs"]`` (an object
array, the ended episode's last view where ``infos["_final_obs"]``; its mask all zeros, as
the AEC env's for a seat that is done) and ``infos["final_info"]`` (``{"metrics": ...}``, the
episode's ``info["metrics"]``). The final view is the learner's (self-play: the seat next in
turn after the one whose move ended it). ``reset(seed=s)`` seeds world ``n`` with ``s + n``.

>>> import mase
>>> from mase.vector_env import BatchVectorEnv
>>> batched = mase.list_envs("mase", declaring="batched")  # tasks with a native batch
>>> task = next(t for t in batched if mase.make(t).metadata["is_parallelizable"])
>>> envs = BatchVectorEnv(mase.make_vec(task, num_envs=4))
>>> obs, infos = envs.reset(seed=0)
>>> obs["observation"].shape == (4, envs.single_observation_space["observation"].shape[0])
True
>>> obs, rewards, terminated, truncated, infos = envs.step(obs["action_mask"].argmax(axis=1))
>>> rewards.shape, terminated.dtype.name
((4,), 'bool')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from mase.actions import UsageError
from mase.batch import Batch, BatchStep
from mase.registry import env_creator
from mase.spaces import observation_space

#: An array policy for the seats that do not learn: ``(obs [M, D], mask [M, K], seats [M])``
#: -> ``actions [M]``.
ArrayPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


class BatchVectorEnv(gymnasium.vector.VectorEnv):
    """A :class:`~mase.batch.Batch` as ``num_envs`` single-agent envs (see the module docstring).

    Args:
        batch: the worlds, from :func:`mase.make_vec` (native or AEC).
        agent: the seat that learns in every world; ``None``: every seat, one shared policy.
        teammates: who plays the other seats when ``agent`` is given: ``"random"`` or an
            :data:`ArrayPolicy`.

    Raises:
        UsageError: self-play on a task with sides; a seat the task does not have; an
            ``agent`` on a task whose worlds do not stay in step; teammates that are neither.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self, batch: Batch, agent: str | None = None, teammates: str | ArrayPolicy = "random"
    ):
        creator, _ = env_creator(batch.spec_id)
        seats = list(batch.possible_agents)
        if agent is None and getattr(creator, "sides", ()):
            seat = (
                "pass agent=SEAT (a seat learns, teammates play the rest), or "
                if creator.metadata.get("is_parallelizable", False)
                else "use gymnasium.make(id, agent=SEAT) with SB3's make_vec_env, or "
            )  # a seat of a phased task is not at its turn in every world at once
            raise UsageError(
                f"{batch.spec_id} has sides {tuple(creator.sides)}: one shared learner cannot play "
                f"for both; {seat}train a side with `mase train mappo --learn SIDE` or both "
                "with `mase train selfplay`"
            )
        if agent is not None:
            if agent not in seats:
                raise UsageError(f"agent must be one of {seats}, got {agent!r}")
            if not creator.metadata.get("is_parallelizable", False):
                raise UsageError(
                    f"{batch.spec_id}: seats act when its phases say, so the worlds of a batch "
                    "are not at one seat's turn together; use agent=None (self-play, one-team "
                    "tasks) or gymnasium.make(id, agent=...) with SB3's make_vec_env"
                )
            if teammates != "random" and not callable(teammates):
                raise UsageError(
                    f"teammates must be 'random' or a callable (obs, mask, seats) -> actions, "
                    f"got {teammates!r}"
                )
        self.batch = batch
        self.agent = agent
        self.learner = None if agent is None else seats.index(agent)
        self.teammates = teammates
        self.num_envs = batch.num_envs
        self.single_observation_space = observation_space(
            "vector", batch.observation_size, batch.n_actions
        )
        self.single_action_space = gymnasium.spaces.Discrete(batch.n_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        self.render_mode = None
        self._rng = np.random.default_rng()
        self._no_mask = np.zeros(batch.n_actions, dtype=np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Reset every world (world ``n`` seeded ``seed + n``); teammates play to the learner.

        Raises:
            UsageError: ``options`` (a batch's episodes take none).
        """
        if options:
            raise UsageError(f"a batch's episodes take no reset options, got {options!r}")
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.batch.reset(seed=seed)
        if self.learner is not None:
            ended = np.zeros(self.num_envs, dtype=bool)
            self._to_learner(np.zeros(self.num_envs), ended, ended.copy(), {}, {})
        return self._observe(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner's action in every world, then (with ``agent``) the teammates' turns.

        Returns ``(obs, rewards [N] float32, terminated [N], truncated [N], infos)``; an ended
        world already shows its next episode (same-step autoreset; see the module docstring).
        """
        decider = self.batch.acting
        result = self.batch.step(actions)
        terminated, truncated = result.terminated.copy(), result.truncated.copy()
        metrics, finals = dict(result.metrics), self._finals(result, decider)
        if self.learner is None:
            rewards = result.rewards.mean(axis=1)
        else:
            rewards = result.rewards[:, self.learner].copy()
            self._to_learner(rewards, terminated, truncated, metrics, finals)
        infos: dict[str, Any] = {}
        for n in sorted(metrics):
            final = {"final_info": {"metrics": metrics[n]}}
            if n in finals:
                final["final_obs"] = {"observation": finals[n], "action_mask": self._no_mask}
            infos = self._add_info(infos, final, n)
        obs = self._observe()
        return obs, rewards.astype(np.float32), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """``[N, K]`` bool: each world's legal actions for the learner now (for MaskablePPO)."""
        return self.batch.observe()[1].astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Close the batch (if the door got as far as holding one)."""
        if hasattr(self, "batch"):
            self.batch.close()

    # -- helpers ------------------------------------------------------------------------------

    def _observe(self) -> dict[str, np.ndarray]:
        obs, mask = self.batch.observe()
        return {"observation": obs, "action_mask": mask}

    def _finals(self, result: BatchStep, decider: np.ndarray) -> dict[int, np.ndarray]:
        """The learner's last view of each ended episode (when the batch keeps them)."""
        if not result.final_observations:
            return {}
        seats = len(self.batch.possible_agents)
        return {
            n: views[self.learner if self.learner is not None else (decider[n] + 1) % seats]
            for n, views in result.final_observations.items()
        }

    def _to_learner(self, rewards, terminated, truncated, metrics: dict, finals: dict) -> None:
        """Teammates play every world on to the learner's turn; the learner's rewards add up.

        A world that ended (in the learner's step, or here) is in its next episode: the
        teammates' turns before the learner's first there earn the ended episode nothing.
        """
        ended = terminated | truncated
        while True:
            acting = self.batch.acting
            waiting = acting == self.learner
            if waiting.all():
                return
            if waiting.any():
                raise UsageError(
                    f"{self.batch.spec_id}: the worlds are no longer at one seat's turn "
                    "together (an episode ended mid-round); use agent=None (self-play)"
                )
            obs, mask = self.batch.observe()
            result = self.batch.step(self._teammate_actions(obs, mask, acting))
            if (result.ended & ended).any():
                raise RuntimeError(
                    f"{self.batch.spec_id}: an episode ended before the learner's first turn"
                )
            rewards += np.where(ended, 0.0, result.rewards[:, self.learner])
            terminated |= result.terminated
            truncated |= result.truncated
            ended |= result.ended
            metrics.update(result.metrics)
            finals.update(self._finals(result, acting))

    def _teammate_actions(self, obs: np.ndarray, mask: np.ndarray, seats: np.ndarray):
        if self.teammates == "random":
            # a uniform draw among the legal indices (any index where none is legal)
            return (self._rng.random(mask.shape) * (mask + 1e-9)).argmax(axis=1)
        return np.asarray(self.teammates(obs, mask, seats))


def make(
    id: str,
    num_envs: int,
    agent: str | None = None,
    teammates: str | ArrayPolicy = "random",
    backend: str = "auto",
    **kwargs: Any,
) -> BatchVectorEnv:
    """``num_envs`` worlds of task ``id`` behind the Gymnasium door (see the module docstring).

    Args:
        id: a registered task id with a ``Discrete`` action space.
        num_envs: the number of worlds.
        agent: the seat that learns; ``None``: self-play, every seat.
        teammates: ``"random"`` or an :data:`ArrayPolicy`, for the seats that do not learn.
        backend: :func:`mase.make_vec`'s (``"auto"``: the task's native batch if it has one).
        **kwargs: the task's arguments.
    """
    from mase.batch import make_vec

    return BatchVectorEnv(make_vec(id, num_envs, backend=backend, **kwargs), agent, teammates)
