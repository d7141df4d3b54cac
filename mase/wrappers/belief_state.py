"""Belief states: the prompt text for LLM agents, an oracle belief, and belief accuracy."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from mase.actions import check_playing, take_keys
from mase.task import TaskEnv


class BeliefState(BaseWrapper):
    """Explicit belief states for any MASE task that writes them.

    The paper's belief-state procedure (Li et al. 2023): an agent starts from a template with
    one section per kind of information (:meth:`template`), rewrites it after each observation
    and decides from it. This wrapper gives an agent the template, an oracle belief
    (:meth:`oracle`: what the agent really knows now, from the knowledge tracker, in the same
    format) for ablations, and scores the beliefs agents write.

    A policy hands its current belief in with the action, ``{"action": ..., "belief": text}``
    (:class:`mase.agents.LLMAgent` in belief mode does). The belief is scored before the action
    is taken, against the world the agent's observation showed:

    * accuracy: the share of the facts the belief holds (read with the task's
      ``belief_facts``) that are true now;
    * recall: the share of the facts of the oracle belief that the written belief states with
      their true value (how much of what it was shown or told it kept);
    * oracle agreement: the share of the facts the belief holds that the oracle belief states
      with the same value, true or not (where the oracle states a best guess, as an exact
      posterior over hidden roles does, this is agreement with the reference reasoning).

    ``episode_record()`` gives the episode's pooled ``belief_accuracy``, ``belief_recall`` and
    ``belief_oracle_agreement`` (over all turns) and one entry per scored turn.

    Args:
        env: a MASE task (possibly already wrapped) that implements ``belief_template``,
            ``oracle_belief``, ``parse_facts`` and ``true_facts``.
    """

    #: The keys of action dicts this wrapper takes.
    action_keys = ("belief",)

    def __init__(self, env: Any):
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, TaskEnv):
            raise TypeError(f"BeliefState needs a MASE task, got {type(base).__name__}")
        if type(base).belief_template is TaskEnv.belief_template:
            raise TypeError(f"{type(base).__name__} does not write belief states")
        self._turns: list[dict[str, Any]] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the task and forget the last episode's scores."""
        self._turns = []
        self.env.reset(seed=seed, options=options)

    def template(self, agent: str) -> str:
        """The initial belief state of ``agent``."""
        return self.env.unwrapped.belief_template(agent)

    def oracle(self, agent: str) -> str:
        """What ``agent`` really knows now, in the belief format."""
        return self.env.unwrapped.oracle_belief(agent)

    def score(self, agent: str, belief: str) -> dict[str, Any]:
        """Score a belief ``agent`` holds now: accuracy and recall (see the class docstring).

        Returns:
            ``{"agent", "round", "facts", "true", "accuracy", "oracle_facts", "recalled",
            "recall", "agreed", "oracle_agreement"}``; the rates are ``None`` when there is
            nothing to divide by.
        """
        base = self.env.unwrapped
        truth = base.true_facts()
        stated = base.belief_facts(belief)
        true = sum(1 for key, value in stated.items() if truth.get(key) == value)
        oracle = base.belief_facts(self.oracle(agent))
        known = {k: v for k, v in oracle.items() if truth.get(k) == v}
        recalled = sum(1 for key, value in known.items() if stated.get(key) == value)
        agreed = sum(1 for key, value in stated.items() if oracle.get(key) == value)
        return {
            "agent": agent,
            "round": base.round,
            "facts": len(stated),
            "true": true,
            "accuracy": true / len(stated) if stated else None,
            "oracle_facts": len(known),
            "recalled": recalled,
            "recall": recalled / len(known) if known else None,
            "agreed": agreed,
            "oracle_agreement": agreed / len(stated) if stated else None,
        }

    def step(self, action: Any) -> None:
        """Score the belief handed in with the action (if any), then take the action."""
        base = self.env.unwrapped
        check_playing(base)  # a belief handed in after the end is not scored
        agent = base.agent_selection
        taken, action = take_keys(action, ("belief",))
        live = not (base.terminations.get(agent) or base.truncations.get(agent))
        if live and isinstance(taken.get("belief"), str):
            self._turns.append(self.score(agent, taken["belief"]))
        self.env.step(action)

    def episode_record(self) -> dict[str, Any]:
        """The episode's pooled belief scores (``metrics``) and each scored turn."""
        facts = sum(t["facts"] for t in self._turns)
        known = sum(t["oracle_facts"] for t in self._turns)
        metrics: dict[str, Any] = {"beliefs_scored": len(self._turns)}
        if facts:
            metrics["belief_accuracy"] = sum(t["true"] for t in self._turns) / facts
        if known:
            metrics["belief_recall"] = sum(t["recalled"] for t in self._turns) / known
        if facts:
            metrics["belief_oracle_agreement"] = sum(t["agreed"] for t in self._turns) / facts
        return {"metrics": metrics, "beliefs": list(self._turns)}
