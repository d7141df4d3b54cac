"""The parallel view of a task: PettingZoo's converter, with the actions checked first.

:func:`mase.make_parallel` returns a :class:`ParallelView`. PettingZoo's convention for a
parallel ``step`` is a mapping with one action for every live agent (``env.agents``); the
converter itself indexes the mapping unchecked, so a missing agent is a bare ``KeyError`` deep
in it and an unknown one is silently ignored. This view refuses both before any agent moves,
with a clear :class:`~mase.actions.ActionDictError` naming the agents, as it does an action
dict with keys no wrapper of the AEC env takes: a missing agent is an error, not a pass (a
seat that means to do nothing gives the task's own no-op or an invalid action, which spends
its turn as the AEC env does). Each action itself is what the AEC env
takes (an invalid one is an invalid action with a reason, never an exception).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.conversions import aec_to_parallel_wrapper

from mase.actions import (
    ActionDictError,
    ResetNeeded,
    brief,
    plain_text,
    takes_key,
    unclaimed_keys,
)


class ParallelView(aec_to_parallel_wrapper):
    """A ``ParallelEnv`` of an AEC task whose agents act once each per round in turn order.

    Args:
        aec_env: the AEC env (``metadata["is_parallelizable"]`` true).
    """

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Every live agent's action at once (see the module docstring).

        Raises:
            ResetNeeded: before ``reset`` or after the episode's end.
            ActionDictError: ``actions`` is not a mapping of every live agent to its action
                (the message names the missing and the unknown agents).
        """
        base = self.aec_env.unwrapped
        if not getattr(base, "_started", False):
            raise ResetNeeded("call reset() before step()")
        live = list(self.aec_env.agents)
        if not live:
            raise ResetNeeded("the episode is over; call reset() to start a new one")
        return super().step(self._checked(actions, live))

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
