"""Batches of worlds (``mase.make_vec``) as Stable-Baselines3 ``VecEnv`` s.

:class:`BatchVecEnv`: one slot per world, the batch's single-agent door
(:class:`mase.vector_env.BatchVectorEnv`: self-play, or one seat beside array teammates), for
SB3's PPO and sb3-contrib's MaskablePPO. :class:`SeatsVecEnv`: one slot per seat of a
round-robin task, a step a round (the parallel view), for parameter-shared PPO.

In :class:`SeatsVecEnv`, slot ``n * A + a`` is seat ``a`` of world ``n`` (SuperSuit's order for
``num_envs`` copies of a parallel env). A step is one round: every seat's action, applied in
turn order, each seat then seeing the world as it is at the round's end, as in PettingZoo's
parallel view of the task (its ``aec_to_parallel``). A seat's reward is the sum of its rewards
over the round. A world whose episode ended marks all its slots done and is already in its next
episode, whose first observations the step returns. As with SuperSuit, ``TimeLimit.truncated``
is not set, so PPO does not bootstrap past a round limit, and ``terminal_observation`` is not
given. It needs a round-robin task: every seat acts once a round, in order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from mase import vector_env
from mase.batch import Batch
from mase.registry import make
from mase.vector_env import BatchVectorEnv


class _Slots(VecEnv):
    """What both doors share: slots of arrays, none of them a wrapped gymnasium env."""

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No slot is a wrapped gymnasium env."""
        return [False] * len(self._indices(indices))

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)


class SeatsVecEnv(_Slots):
    """Every seat of every world of ``batch`` as one slot of an SB3 ``VecEnv``."""

    def __init__(self, batch: Batch, seed: int | None = None):
        probe = make(batch.spec_id, obs_mode="vector")
        if not probe.metadata.get("is_parallelizable", False):
            raise ValueError(
                f"{batch.spec_id}: seats do not act once a round in turn order, so a round of "
                "all seats is not a step"
            )
        agent = probe.possible_agents[0]
        self.batch = batch
        self.A = len(batch.possible_agents)
        self._seed = seed
        self._actions: np.ndarray | None = None
        super().__init__(
            batch.num_envs * self.A, probe.observation_space(agent), probe.action_space(agent)
        )
        assert isinstance(self.observation_space, spaces.Dict)

    def _observations(self) -> dict[str, np.ndarray]:
        views = [self.batch.observe(a) for a in range(self.A)]  # each [N, ...]
        obs = np.stack([v[0] for v in views], axis=1).reshape(self.num_envs, -1)
        mask = np.stack([v[1] for v in views], axis=1).reshape(self.num_envs, -1)
        return {"observation": obs, "action_mask": mask}

    def reset(self) -> dict[str, np.ndarray]:
        """Reset every world (seeded by the last :meth:`seed`, then from their generators)."""
        self.batch.reset(seed=self._seed)
        self._seed = None
        return self._observations()

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the round's actions (one per slot)."""
        self._actions = np.asarray(actions).reshape(self.batch.num_envs, self.A)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict]]:
        """Play the round: each seat in turn, all worlds at once."""
        if self._actions is None:
            raise RuntimeError("step_async must come before step_wait")
        N, A = self.batch.num_envs, self.A
        rewards = np.zeros((N, A), dtype=np.float32)
        ended = np.zeros(N, dtype=bool)
        metrics: dict[int, dict] = {}
        for a in range(A):
            if (self.batch.acting != a).any():
                raise RuntimeError("the batch is not at the start of a round")
            result = self.batch.step(self._actions[:, a])
            rewards += result.rewards
            ended |= result.ended
            metrics.update(result.metrics)
        self._actions = None
        dones = np.repeat(ended, A)
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        for n, m in metrics.items():
            for a in range(A):
                infos[n * A + a]["metrics"] = m
        return self._observations(), rewards.reshape(-1), dones, infos

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the next reset: world ``n`` gets ``seed + n``."""
        self._seed = seed
        return [None if seed is None else seed + n for n in range(self.batch.num_envs)]

    def close(self) -> None:
        """Close the batch."""
        self.batch.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The batch's attribute, once per slot asked for."""
        return [getattr(self.batch, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of the batch (shared by every slot)."""
        setattr(self.batch, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any):
        """Call a method of the batch, once per slot asked for."""
        return [getattr(self.batch, method_name)(*args, **kwargs)] * len(self._indices(indices))


class BatchVecEnv(_Slots):
    """A batch's single-agent door (:class:`mase.vector_env.BatchVectorEnv`) as an SB3 ``VecEnv``.

    Slot ``n`` is world ``n``; who the learner is (self-play, or one seat beside array
    teammates) and what a step and its reward are, are the door's. An ended world is already
    in its next episode: its slot is done, with ``infos[n]["terminal_observation"]`` (the
    episode's last view), ``infos[n]["TimeLimit.truncated"]`` (the episode hit a limit, so
    PPO bootstraps from that view) and ``infos[n]["metrics"]``. ``action_masks()`` gives
    sb3-contrib's ``MaskablePPO`` each world's legal actions (``[N, K]`` bool). Wrap it in
    ``VecMonitor`` for SB3's episode returns and lengths.

    >>> import mase
    >>> from mase.baselines.sb3.vec import BatchVecEnv
    >>> venv = BatchVecEnv.make("mase/SearchRescue-v0", num_envs=4)
    >>> venv.seed(0)
    [0, 1, 2, 3]
    >>> venv.reset()["action_mask"].shape == (4, venv.action_space.n)
    True
    """

    def __init__(self, door: BatchVectorEnv):
        self.door = door
        self.render_mode = None
        self._actions: np.ndarray | None = None
        super().__init__(door.num_envs, door.single_observation_space, door.single_action_space)

    @classmethod
    def make(
        cls,
        id: str,
        num_envs: int,
        agent: str | None = None,
        teammates: Any = "random",
        backend: str = "auto",
        **kwargs: Any,
    ) -> BatchVecEnv:
        """``num_envs`` worlds of ``id`` (:func:`mase.vector_env.make`'s arguments)."""
        return cls(vector_env.make(id, num_envs, agent, teammates, backend, **kwargs))

    def reset(self) -> dict[str, np.ndarray]:
        """Reset every world: world ``n`` seeded by :meth:`seed` (``seed + n``), once."""
        obs, _ = self.door.reset(seed=self._seeds[0])
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep each world's action."""
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, list[dict]]:
        """Step the door; report ended episodes as SB3 expects."""
        if self._actions is None:
            raise RuntimeError("step_async must come before step_wait")
        obs, rewards, terminated, truncated, found = self.door.step(self._actions)
        self._actions = None
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        final = found.get("final_info", {}).get("metrics", {})
        has_final = found.get("_final_obs", np.zeros(self.num_envs, dtype=bool))
        for n in np.flatnonzero(terminated | truncated).tolist():
            infos[n]["metrics"] = {k: v[n] for k, v in final.items() if not k.startswith("_")}
            if has_final[n]:
                infos[n]["terminal_observation"] = found["final_obs"][n]
                infos[n]["TimeLimit.truncated"] = bool(truncated[n] and not terminated[n])
        return obs, rewards, terminated | truncated, infos

    def action_masks(self) -> np.ndarray:
        """``[N, K]`` bool: each world's legal actions now (sb3-contrib's MaskablePPO)."""
        return self.door.action_masks()

    def close(self) -> None:
        """Close the batch."""
        self.door.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The door's attribute (or this env's), once per slot asked for."""
        owner = self.door if hasattr(self, "door") and hasattr(self.door, attr_name) else self
        return [getattr(owner, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of the door (shared by every slot)."""
        setattr(self.door, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any):
        """``action_masks``: each slot's own; another method of the door: once per slot."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self.action_masks()[idx])
        return [getattr(self.door, method_name)(*args, **kwargs)] * len(idx)
