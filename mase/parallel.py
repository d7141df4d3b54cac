"""The parallel view of a task: every seat's action at once, a step each set of moves made together.

:func:`mase.make_parallel` returns a :class:`ParallelView`, a PettingZoo ``ParallelEnv`` over
the task's AEC env. Each parallel step plays the moves the rules let be made at once
(:func:`moves_at_once`):

=========================================  ==================================================
where play is                              one parallel step
=========================================  ==================================================
a secret phase (``Phase(secret=True)``:    the whole phase: every listed seat moves, each
a vote, hidden cards, sealed answers)      from the observation its turn would show it (no
                                           move of the phase reaches it before:
                                           ``TaskEnv.observe_at_turn``), and the step returns
                                           the observations after the reveal, so every seat
                                           sees the phase's moves at once
a round of a task whose metadata sets      the rest of the round: every live seat moves
``is_parallelizable`` (PettingZoo's mark:  (PettingZoo's own ``aec_to_parallel`` converter
a round's moves may be chosen at once)     does the same)
any other phase (a leader's proposal,      one turn: the seat to act now moves, as in the
open discussion, turns taken in order)     AEC env, since the next seat must see its move
=========================================  ==================================================

**Seats that do not act in a step.** PettingZoo's parallel API takes an action for every live
agent (``env.agents``), and a seat that is not done stays in ``env.agents`` (an agent that
left it may not come back), so a seat whose turn this is not still gives an action. Its action
is ignored: any value is taken, it is no move, spends nothing and is not counted invalid.
``infos[agent]["acting"]`` says whether the agent's action counts in the next step. Where
the observation has an ``action_mask`` (``Discrete`` action spaces), an idle seat's mask
allows exactly the space's first action (index 0, the action ``space.start``), which stands
for "wait": a masked sampler then picks it (TorchRL's masked sampling fails on a mask with no
legal action, "invalid multinomial distribution"; gymnasium's ``Space.sample(mask)`` returns
the first action then anyway). The action spaces are the AEC env's own. An acting seat's mask
is the task's own: in a speech phase whose move is text (an open discussion) it may allow no
index at all, so an index-only learner plays such a task with its speech phases turned off.

**Checked before anyone moves.** The mapping must hold one action for every live agent and
no other: a missing agent is a clear :class:`~mase.actions.ActionDictError`, not a pass, as is
an unknown one, a dict action with keys no wrapper of the AEC env takes, or a value that is no
mapping. An acting seat's action is what the AEC env takes (an invalid one is an invalid
action with a reason, never an exception).

A plain PettingZoo AEC env (no MASE turn schedule) has a view only when its metadata sets
``is_parallelizable``; then a step is a cycle of every live agent, as PettingZoo converts it.

**TorchRL and BenchMARL.** TorchRL's ``PettingZooWrapper`` builds its info spec from the infos
``reset`` gives and makes a tensor of every info value of every step, so a task's text infos
(an invalid action's reason, messages) and the episode's ``metrics`` dict stop it; wrap the
view in :class:`NumericInfos` first::

    PettingZooWrapper(NumericInfos(mase.make_parallel(id, obs_mode="vector")), use_mask=True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import BaseParallelWrapper

from mase.actions import (
    ActionDictError,
    ResetNeeded,
    brief,
    plain_text,
    takes_key,
    unclaimed_keys,
)


def refusal(aec_env: AECEnv) -> str:
    """Why ``aec_env`` has no parallel view, in a sentence; empty when it has one."""
    base = aec_env.unwrapped
    if getattr(base, "schedule", None) is not None and hasattr(base, "to_move"):
        return ""  # a MASE task: its schedule says which moves are made at once
    if aec_env.metadata.get("is_parallelizable", False):
        return ""
    return (
        "it has no MASE turn schedule to group its moves by, and its metadata does not set "
        "is_parallelizable (PettingZoo's mark for an env whose agents each act once a cycle)"
    )


def moves_at_once(aec_env: AECEnv) -> tuple[str, ...]:
    """The seats that move in the next parallel step, in turn order (empty after the end).

    A secret phase's seats still to move, or the rest of a round of an ``is_parallelizable``
    task, or else the seat to act now alone (see the module docstring).
    """
    base = aec_env.unwrapped
    if not aec_env.agents:
        return ()
    to_move = getattr(base, "to_move", None)
    if to_move is None:  # a plain AEC env: a cycle of every live agent
        return tuple(aec_env.agents)
    if base.phase.secret or aec_env.metadata.get("is_parallelizable", False):
        return tuple(to_move)
    return tuple(to_move[:1])


class ParallelView(ParallelEnv):
    """A task as a PettingZoo ``ParallelEnv``: a step is a set of moves made at once.

    Args:
        aec_env: the AEC env (a MASE task, or an AEC env whose metadata sets
            ``is_parallelizable``).

    Raises:
        ValueError: ``aec_env`` has no parallel view (the message says why).
    """

    def __init__(self, aec_env: AECEnv):
        reason = refusal(aec_env)
        if reason:
            raise ValueError(f"no parallel view: {reason}")
        self.aec_env = aec_env
        self.possible_agents = list(aec_env.possible_agents)
        self.metadata = aec_env.metadata
        self.render_mode = getattr(aec_env, "render_mode", None)
        if hasattr(aec_env, "state_space"):
            self.state_space = aec_env.state_space
        self.agents: list[str] = []
        self._acting: tuple[str, ...] = ()
        self._started = False

    @property
    def unwrapped(self) -> AECEnv:
        """The task itself."""
        return self.aec_env.unwrapped

    def observation_space(self, agent: str) -> Any:
        """The AEC env's observation space of ``agent`` (the same object on every call)."""
        return self.aec_env.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        """The AEC env's action space of ``agent`` (the same object on every call)."""
        return self.aec_env.action_space(agent)

    @property
    def acting(self) -> tuple[str, ...]:
        """The seats whose actions the next step plays (``infos[agent]["acting"]``)."""
        return self._acting

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """Start an episode; the observations and infos of every agent."""
        aec = self.aec_env
        aec.reset(seed=seed, options=options)
        self._started = True
        self.agents = list(aec.agents)
        observations, infos = self._views()
        return observations, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every live agent's action at once; the moves of the step are played in turn order.

        Returns observations, rewards (summed over the step's moves and what they caused),
        terminations, truncations and infos, each keyed by the agents live before the step.

        Raises:
            ResetNeeded: before ``reset`` or after the episode's end.
            ActionDictError: ``actions`` is not a mapping of every live agent to its action
                (the message names the missing and the unknown agents).
        """
        aec = self.aec_env
        if not self._started:
            raise ResetNeeded("call reset() before step()")
        live = list(aec.agents)
        if not live:
            raise ResetNeeded("the episode is over; call reset() to start a new one")
        checked = self._checked(actions, live)
        rewards = dict.fromkeys(live, 0.0)
        for seat in moves_at_once(aec):
            if not aec.agents or aec.terminations[seat] or aec.truncations[seat]:
                break  # the episode ended on an earlier move of the step
            if aec.agent_selection != seat:
                raise RuntimeError(
                    f"the parallel view expected {seat} to move, but {aec.agent_selection} is to "
                    "act: a phase's seats must act in the order it lists them"
                )
            aec.step(checked[seat])
            for agent, reward in aec.rewards.items():
                if agent in rewards:
                    rewards[agent] += reward
        terminations = {a: bool(aec.terminations[a]) for a in live}
        truncations = {a: bool(aec.truncations[a]) for a in live}
        observations, infos = self._views()
        while aec.agents and (
            aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]
        ):
            aec.step(None)  # every agent is done: its dead step
        self.agents = list(aec.agents)
        if not self.agents:
            self._acting = ()
        return observations, rewards, terminations, truncations, infos

    def _views(self) -> tuple[dict[str, Any], dict[str, dict]]:
        """Every agent's observation and info now; an idle seat's mask allows only "wait"."""
        aec = self.aec_env
        self._acting = acting = moves_at_once(aec)
        observations, infos = {}, {}
        at_turn = getattr(aec.unwrapped, "observe_at_turn", None)
        if aec.unwrapped is not aec or at_turn is None:  # a wrapper's observe has the last word
            at_turn = aec.observe
        for agent in aec.agents:
            obs = at_turn(agent)
            if acting and agent not in acting and isinstance(obs, dict) and "action_mask" in obs:
                wait = np.zeros_like(obs["action_mask"])
                wait[0] = 1
                obs = {**obs, "action_mask": wait}
            observations[agent] = obs
            infos[agent] = {**aec.infos[agent], "acting": agent in acting}
        return observations, infos

    def _checked(self, actions: Any, live: list[str]) -> dict[str, Any]:
        """``actions`` as a plain dict of exactly the live agents' actions, or the error."""
        if not isinstance(actions, dict):
            raise ActionDictError(
                f"a parallel step takes a dict of every live agent's action ({live}), got "
                f"{type(actions).__name__} {brief(actions)}"
            )
        items = list(dict.items(actions))  # a dict subclass's own methods never run
        keys = [k for k, _ in items]
        names = [plain_text(k) for k in keys]  # a hostile key's __eq__ never runs
        given = {n for n in names if n is not None}
        missing = [a for a in live if a not in given]
        unknown = [brief(k) for k, n in zip(keys, names, strict=True) if n not in live]
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"no action for {missing}")
            if unknown:
                done = [n for n in given if n in self.possible_agents and n not in live]
                parts.append(
                    f"actions for {', '.join(unknown[:10])}, "
                    + ("which are done or " if done else "")
                    + "not live agents"
                )
            raise ActionDictError(
                f"a parallel step takes one action for every live agent {live}: " + "; ".join(parts)
            )
        checked = {n: v for n, (_, v) in zip(names, items, strict=True)}
        for agent, action in checked.items():  # refused before anyone moves, not halfway
            if not isinstance(action, dict):
                continue
            keys = list(dict.keys(action))
            if not keys or not all(
                type(k) is str and (k == "action" or takes_key(self.aec_env, k)) for k in keys
            ):
                raise ActionDictError(f"{agent}'s action: {unclaimed_keys(action)}")
        return checked

    def render(self) -> Any:
        """The AEC env's picture."""
        return self.aec_env.render()

    def state(self) -> np.ndarray:
        """The AEC env's global state."""
        return self.aec_env.state()

    def close(self) -> None:
        """Close the AEC env."""
        self.aec_env.close()


class NumericInfos(BaseParallelWrapper):
    """A parallel view whose infos hold only the numbers and flags ``reset`` gave keys for.

    For libraries that make tensors of infos with a spec fixed at ``reset`` (TorchRL's
    ``PettingZooWrapper``, hence BenchMARL): each agent's info keeps the keys its info had at
    ``reset`` whose values are bools or numbers (``acting``, at least), and drops the rest
    (text, lists, the end's ``metrics``, which ``env.unwrapped.metrics()`` still gives).

    Args:
        env: a parallel view (:func:`mase.make_parallel`).
    """

    def __init__(self, env: ParallelEnv):
        super().__init__(env)
        self._keys: dict[str, tuple[str, ...]] = {}

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """The view's reset, its infos cut down to numbers and flags."""
        observations, infos = self.env.reset(seed=seed, options=options)
        self._keys = {
            agent: tuple(k for k, v in info.items() if _numeric(v)) for agent, info in infos.items()
        }
        return observations, self._kept(infos)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """The view's step, its infos cut down to the keys ``reset`` gave numbers for."""
        *returned, infos = self.env.step(actions)
        return (*returned, self._kept(infos))

    def _kept(self, infos: dict[str, dict]) -> dict[str, dict]:
        return {
            agent: {k: info[k] for k in self._keys.get(agent, ()) if _numeric(info.get(k))}
            for agent, info in infos.items()
        }


def _numeric(value: Any) -> bool:
    return isinstance(value, bool | int | float | np.number | np.bool_)
