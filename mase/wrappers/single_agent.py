"""The single-agent gymnasium view of a MASE task: one seat learns, teammates are policies."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mase import rendering
from mase.actions import ResetNeeded, UsageError, check_playing
from mase.agents import PolicyProtocol, make_policy
from mase.registry import build, resolve_entry_point
from mase.task import TaskEnv
from mase.wrappers.message_channel import MessageChannel

TeammateSpec = str | PolicyProtocol | Mapping[str, "str | PolicyProtocol"] | None


class SingleAgentEnv(gymnasium.Env):
    """One seat of a multi-agent task as a ``gymnasium.Env``.

    Built by ``gymnasium.make(id, agent=..., teammates=..., **task_kwargs)``. Each ``step``
    takes the learner's action, then lets the teammates act until it is the learner's turn
    again (or the episode ends); the reward is the learner's reward summed over that span.

    The observation is the task's vector view and its action mask by default
    (``obs_mode="vector"``: a Dict of ``"observation"``, a float32 Box, and ``"action_mask"``
    where the action space is ``Discrete``), which Stable-Baselines3, sb3-contrib, RLlib and
    CleanRL-style loops all take; ``obs_mode="text"`` or ``"both"`` adds the text (a ``Text``
    space, which SB3 cannot store). An ``obs_mode`` registered as a task default applies to
    ``mase.make``, not to this view, whose default stays ``"vector"``.

    Args:
        aec_entry_point: the task's AEC constructor (set by ``mase.register``).
        agent: the learner's seat (default: the first agent).
        teammates: a policy name (``"scripted"``, ``"random"``) or policy object for every
            other seat, or a dict seat -> name/policy. Default: the task's scripted bots
            (random ones for a task without a scripted policy).
        messages: wrap the task in a :class:`MessageChannel` (default True), so scripted
            teammates can coordinate.
        aec_obs_mode: the ``obs_mode`` registered as the task's default (set by
            ``mase.register``; the multi-agent view's, not this one's).
        **env_kwargs: passed to the task (``obs_mode``: ``"vector"`` unless given;
            ``render_mode``, rule options).
    """

    metadata = {
        "render_modes": ["ansi", "human", *(["rgb_array"] if rendering.AVAILABLE else [])],
        "render_fps": rendering.FPS,
    }

    def __init__(
        self,
        aec_entry_point: str | Callable[..., Any],
        agent: str | None = None,
        teammates: TeammateSpec = None,
        messages: bool = True,
        aec_obs_mode: str | None = None,
        **env_kwargs: Any,
    ):
        env_kwargs.setdefault("obs_mode", "vector")
        self.aec = build(resolve_entry_point(aec_entry_point), env_kwargs)
        if messages:
            self.aec = MessageChannel(self.aec)
        seats = list(self.aec.possible_agents)
        self.agent = agent if agent is not None else seats[0]
        if self.agent not in seats:
            raise ValueError(f"agent must be one of {seats}, got {self.agent!r}")
        self.teammates = self._teammates(teammates, [s for s in seats if s != self.agent])
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = env_kwargs.get("render_mode")
        fps = self.aec.metadata.get("render_fps", rendering.FPS)
        self.metadata = {**type(self).metadata, "render_fps": fps}

    def _teammates(self, spec: TeammateSpec, seats: list[str]) -> dict[str, PolicyProtocol]:
        default = "scripted" if getattr(self.aec.unwrapped, "scripted_policy", None) else "random"
        if spec is None:
            spec = default
        if not isinstance(spec, Mapping):
            spec = {seat: spec for seat in seats}
        unknown = set(spec) - set(seats)
        if unknown:
            raise ValueError(f"teammates names unknown seats {sorted(unknown)}; seats: {seats}")
        team = {}
        for seat in seats:
            policy = spec.get(seat, default)
            team[seat] = make_policy(policy, self.aec) if isinstance(policy, str) else policy
        return team

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Reset the task and the teammates; teammates act until the learner's first turn."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed, options=options)
        for seat, policy in self.teammates.items():
            policy.reset(seat, self.aec, seed=int(self.np_random.integers(2**31)))
        obs, _, _, _, info = self._advance()
        return obs, info

    def step(self, action: Any):
        """Take the learner's action; teammates act; return the learner's next view.

        Raises:
            ResetNeeded: before ``reset``, or after the learner's episode ended.
        """
        base = self.aec.unwrapped
        check_playing(base)
        if base.terminations.get(self.agent) or base.truncations.get(self.agent):
            raise ResetNeeded(f"the episode is over for {self.agent}; call reset()")
        self.aec.step(action)
        return self._advance()

    def _advance(self):
        aec = self.aec
        while aec.agents:
            seat = aec.agent_selection
            obs, reward, terminated, truncated, info = aec.last()
            if seat == self.agent:
                return obs, float(reward), terminated, truncated, copy.deepcopy(info)
            if terminated or truncated:
                aec.step(None)
            else:
                aec.step(self.teammates[seat].act(obs, info))
        raise RuntimeError("the episode ended without the learner's final observation")

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, flat bool, in sb3-contrib's convention.

        sb3-contrib's ``MaskablePPO`` calls this method of the env it trains on. ``Discrete(n)``:
        ``n`` entries, the task's ``action_mask``. ``MultiDiscrete(nvec)``: each dimension's
        mask, concatenated (``sum(nvec)`` entries); ``MultiBinary(n)``: two a dimension (value
        0, value 1). A task that declares no mask for such a space (a joint rule:
        e.g. which dishes or assignments make a valid decision is a joint rule, not one per
        dimension) allows every value of every dimension, and a combination the rules refuse
        is an invalid action with its reason, as for any policy.

        Raises:
            UsageError: the action space has no mask in that convention (``Text``, ``Box``).
        """
        space = self.action_space
        if isinstance(space, spaces.Discrete):
            base = self.aec.unwrapped
            if isinstance(base, TaskEnv):  # the observation's mask, without building the rest
                return np.asarray(base._mask(self.agent), dtype=bool)
            mask = base.observe(self.agent).get("action_mask")
            return np.ones(space.n, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
        if isinstance(space, spaces.MultiDiscrete):
            return np.ones(int(space.nvec.sum()), dtype=bool)
        if isinstance(space, spaces.MultiBinary):
            return np.ones(2 * int(np.prod(space.shape)), dtype=bool)
        raise UsageError(
            f"a {type(space).__name__} action space has no action mask (sb3-contrib masks "
            "Discrete, MultiDiscrete and MultiBinary spaces); train this task with a "
            "language-model seat, not MaskablePPO"
        )

    def render(self):
        """The task's render (``"ansi"``: a string; ``"rgb_array"``: its scene's picture)."""
        return self.aec.render()

    def close(self):
        """Close the task."""
        self.aec.close()
