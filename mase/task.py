"""The base class of every MASE task: a PettingZoo AEC env with events, messages and views.

A task subclasses :class:`TaskEnv` and supplies the rules; this class supplies what every
task shares: the ``obs_mode`` Dict observation built from three hooks (``_vector``,
``_text``, ``_mask``), the event log and per-agent inboxes (what each agent witnessed since
its last turn), message delivery for :class:`mase.wrappers.MessageChannel`, and the
language interface that LLM agents and people use (``rules_text``, ``legal_actions_text``,
``parse_action``), and who knows what (:meth:`TaskEnv.knowledge`, a knowledge tracker fed from
the event log).

Optional hooks switch on more of the suite: ``true_facts`` (the ground truth that
:class:`mase.wrappers.ToMProbe` scores against), ``parse_facts`` and ``facts_text`` (the
task's fact sentences: messages' claims enter the tracker through them), ``belief_template``,
``oracle_belief`` and ``belief_facts`` (:class:`mase.wrappers.BeliefState` and LLM belief
mode), and the class attributes ``scripted_policy``, ``language_model`` (the offline model of
``mase serve``) and ``tom_probes`` (built-in probe hooks).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from pettingzoo import AECEnv

from mase.events import Event, FactKey, Message
from mase.knowledge import KnowledgeTracker
from mase.spaces import check_obs_mode, clean_text


class ActionParse(NamedTuple):
    """What ``parse_action`` made of a text reply.

    Attributes:
        action: the action index, or ``None`` when the text names no legal action.
        reason: why ``action`` is ``None`` (empty when it is not).
        message: the message to teammates found in the text, if any.
    """

    action: int | None
    reason: str = ""
    message: str | None = None


#: The wrapper that takes each key of an action dict.
ACTION_KEYS = {
    "message": "mase.wrappers.MessageChannel",
    "to": "mase.wrappers.MessageChannel",
    "belief": "mase.wrappers.BeliefState",
}


def unclaimed_keys(action: dict) -> str:
    """The error for an action dict that reached the task with keys no wrapper took."""
    keys = sorted(k for k in action if k != "action")
    needs = sorted({ACTION_KEYS[k] for k in keys if k in ACTION_KEYS})
    unknown = [k for k in keys if k not in ACTION_KEYS]
    parts = [f"the action dict's keys {keys} were not taken by any wrapper"]
    if needs:
        parts.append(f"wrap the env with {' and '.join(needs)}")
    if unknown:
        parts.append(
            f"unknown keys {unknown} (known: 'action', {', '.join(map(repr, ACTION_KEYS))})"
        )
    return "; ".join(parts)


class TaskEnv(AECEnv):
    """Shared machinery of MASE tasks (see the module docstring).

    Subclasses set ``possible_agents``, build spaces, and implement ``reset``, ``step``,
    ``state``, ``render``, ``_vector``, ``_text``, ``_mask``, ``rules_text`` and
    ``parse_action``. They call :meth:`_start_episode` in ``reset``, :meth:`_begin_turn` at
    the start of each live step and :meth:`emit` for everything that happens.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": True}
    #: ``"module:attribute"`` of the task's scripted policy class (the default teammate).
    scripted_policy: str | None = None
    #: ``"module:function"`` of the task's offline language model: a responder for
    #: :class:`mase.llm.OfflineServer` that reads only the prompt.
    language_model: str | None = None
    #: ``"module:attribute"`` of the task's built-in Theory-of-Mind probe hooks (a sequence).
    tom_probes: str | None = None

    def __init__(self, obs_mode: str = "both", render_mode: str | None = None):
        super().__init__()
        self.obs_mode = check_obs_mode(obs_mode)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self._want_vector = obs_mode in ("vector", "both")
        self._want_text = obs_mode in ("text", "both")
        self.messages_enabled = False
        self.max_message_length = 0
        self.event_log: list[Event] = []
        self._inbox: dict[str, list[Event]] = {}
        self._turn_messages: dict[str, str] = {}
        self._tracker: KnowledgeTracker | None = None
        self._tracked = 0

    # -- observations -------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's observation: a dict with the keys ``obs_mode`` asks for."""
        obs: dict[str, Any] = {}
        if self._want_vector:
            obs["observation"] = self._vector(agent)
        if self._want_text:
            obs["text"] = self.observe_text(agent)
        obs["action_mask"] = self._mask(agent)
        return obs

    def observe_vector(self, agent: str) -> np.ndarray:
        """The vector view of the agent's observation, whatever ``obs_mode`` is."""
        return self._vector(agent)

    def observe_text(self, agent: str) -> str:
        """The text view of the agent's observation, whatever ``obs_mode`` is."""
        return clean_text(self._text(agent))

    def _vector(self, agent: str) -> np.ndarray:
        raise NotImplementedError

    def _text(self, agent: str) -> str:
        raise NotImplementedError

    def _mask(self, agent: str) -> np.ndarray:
        raise NotImplementedError

    # -- events and messages ------------------------------------------------------------------

    def _start_episode(self) -> None:
        """Start the AEC bookkeeping and the event log afresh; tasks call it from ``reset``.

        Sets ``agents``, rewards, termination and truncation flags, infos, the first agent to
        act, and empties the event log and inboxes.
        """
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.event_log = []
        self._inbox = {agent: [] for agent in self.possible_agents}
        self._turn_messages = {}
        self._tracker = None
        self._tracked = 0

    def _turn_started(self) -> None:
        """Hook: the selected agent's turn has begun and what it sees may now be read.

        Called when knowledge is asked for and (by tasks) in ``step``; a task that logs what
        an agent sees at the start of its turn does it here, once per turn. The default does
        nothing.
        """

    def _begin_turn(self, agent: str) -> None:
        """The agent acts now: what it was shown is consumed and its inbox starts afresh."""
        self._inbox[agent] = []
        self.infos[agent].pop("messages", None)

    def emit(self, event: Event, deliver: bool = True) -> None:
        """Record an event and deliver it to the inbox of every agent in its audience.

        Args:
            event: what happened.
            deliver: ``False`` logs the event for the knowledge tracker without putting it in
                any inbox, for what an agent already saw in its observation (its view at the
                start of its turn): delivering it again would change the next observation.
        """
        self.event_log.append(event)
        if deliver:
            for agent in event.audience:
                self._inbox[agent].append(event)

    def inbox(self, agent: str) -> list[Event]:
        """The events the agent witnessed since its last turn (oldest first)."""
        return self._inbox[agent]

    def post_message(self, sender: str, text: str, recipients: tuple[str, ...]) -> Message:
        """Deliver a message from ``sender``: recipients see it at their next observation.

        Used by :class:`mase.wrappers.MessageChannel`; a task without that wrapper is the
        no-communication condition.
        """
        if not self.messages_enabled:
            raise RuntimeError(
                "this env has no message channel; wrap it with mase.wrappers.MessageChannel"
            )
        limit = self.max_message_length or None
        message = Message(sender, recipients, clean_text(text, limit or 10**9), self.round)
        audience = frozenset(recipients) | {sender}
        self.emit(Event("message", sender, {}, audience, self.round, note=message.text))
        for agent in recipients:
            if agent in self.infos:
                self.infos[agent].setdefault("messages", []).append(message.to_dict())
        self._turn_messages[sender] = message.text
        return message

    def received_messages(self, agent: str) -> list[Event]:
        """Message events from teammates in the agent's inbox."""
        return [e for e in self._inbox[agent] if e.kind == "message" and e.actor != agent]

    @property
    def round(self) -> int:
        """The current round (1-based); tasks keep it in their own state."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources; the built-in tasks hold none."""

    # -- facts and knowledge ------------------------------------------------------------------

    def knowledge(self) -> KnowledgeTracker:
        """Who knows what now: the episode's tracker, brought up to date with the event log.

        Built on first use and fed incrementally, so a task that never asks pays nothing. The
        facts a message states (read with :meth:`parse_facts`) enter its recipients' knowledge
        as the sender's claims, right or wrong.
        """
        if self.agents:
            self._turn_started()
        if self._tracker is None:
            self._tracker = KnowledgeTracker(self._message_facts)
            self._tracked = 0
        log = self.event_log
        for event in log[self._tracked :]:
            self._tracker.update(event)
        self._tracked = len(log)
        return self._tracker

    def _message_facts(self, text: str) -> dict[FactKey, Any]:
        try:
            return self.parse_facts(text)
        except NotImplementedError:
            return {}

    def true_facts(self) -> dict[FactKey, Any]:
        """Every fact of the world now, in the fact keys of events (the ground truth)."""
        raise NotImplementedError

    def parse_facts(self, text: str) -> dict[FactKey, Any]:
        """The facts a text states, in the task's fact sentences."""
        raise NotImplementedError

    def belief_facts(self, text: str) -> dict[FactKey, Any]:
        """The facts a belief state holds; by default every fact sentence in it."""
        return self.parse_facts(text)

    def facts_text(self, facts: dict[FactKey, Any]) -> str:
        """Write facts as the task's fact sentences (``parse_facts`` reads them back)."""
        raise NotImplementedError

    def belief_template(self, agent: str) -> str:
        """The initial belief state an LLM agent starts from and rewrites (belief mode)."""
        raise NotImplementedError

    def oracle_belief(self, agent: str) -> str:
        """What ``agent`` really knows now, in the belief template's format."""
        raise NotImplementedError

    # -- language interface -------------------------------------------------------------------

    def rules_text(self, agent: str) -> str:
        """The rules of the task as the agent should be told them."""
        raise NotImplementedError

    def legal_actions_text(self, agent: str) -> list[str]:
        """The agent's legal actions now, in words, in action-index order."""
        raise NotImplementedError

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Turn a text reply into a legal action, or explain why it is not one."""
        raise NotImplementedError
