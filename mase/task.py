"""The base class of every MASE task: the AEC loop, turn schedules, events, messages and views.

A task subclasses :class:`TaskEnv` and writes its rules; this class runs everything else:
seeding, the PettingZoo AEC bookkeeping (dead steps, rewards, episode end, metrics), the turn
schedule (:mod:`mase.schedules`: round-robin, phase queue, simultaneous secret moves, speech as
the move), reading what a policy gave (an action of the task's kind, text for
``parse_action``, a dict whose keys no wrapper took), invalid actions as events with a reason
the agent can read, the event log and per-agent inboxes, message delivery, the ``obs_mode``
Dict observation, and who knows what (:meth:`TaskEnv.knowledge`).

A task writes (``docs/task_contract.md`` has the whole contract, with two examples):

==========================  =================================================================
hook                        what it does
==========================  =================================================================
``__init__``                ``super().__init__(obs_mode, render_mode, max_cycles)``, then
                            ``possible_agents`` and :meth:`TaskEnv.set_spaces`
``new_episode(options)``    build the world from ``self.np_random``
``apply(agent, action)``    the rules: change the world, return an :class:`Outcome` (events,
                            reward); ``raise InvalidAction(code, detail)`` for an illegal move
``_vector``, ``_text``      the agent's views (``_mask``: legal actions, default all)
``rules_text``,             the task in words for language agents and people; ``parse_action``
``legal_actions_text``,     reads the action part of a reply (the protocol's message parts are
``parse_action``            already cut off, :mod:`mase.protocol`)
==========================  =================================================================

and, when it needs them: ``schedule`` (class attribute, default :class:`RoundRobin`),
``next_phase`` (phase queues), ``end_phase`` and ``end_round`` (rules at those moments; call
:meth:`TaskEnv.finish` to end the episode), ``check_action`` (what counts as an action of its
kind), ``turn_view`` (what an agent sees at the start of its turn, for the knowledge tracker),
``invalid_event`` and ``explain_invalid``, ``utterance`` (what a non-text move says in a speech
phase), ``speech_move`` (what ``apply`` reads of a speech move), ``metrics`` (with
``metric_kinds`` or ``metric_specs``: what each is, its range and its name for people, which
pick its interval and draw its axis in reports), ``state``,
``_render`` and ``next_round`` (to keep ``round`` in the task's own world too), ``scene``
(the world as data for ``mase replay``, drawn by the task's ``replay.js``; ``drawing`` draws
the same picture for ``render_mode="rgb_array"``, :mod:`mase.rendering`), ``side_of``
(who plays for whom, when the seats are not all one team). Optional hooks switch on more of
the suite: ``true_facts`` (the ground truth :class:`mase.wrappers.ToMProbe` scores against),
``parse_facts`` and ``facts_text`` (messages' claims enter the tracker through them),
``belief_template``, ``oracle_belief`` and ``belief_facts`` (:class:`mase.wrappers.BeliefState`
and LLM belief mode), and the class attributes ``scripted_policy``, ``language_model`` (the
offline model of ``mase serve``), ``tom_probes`` (built-in probe hooks) and ``policies`` (named
policies, trained checkpoints among them). The parity hooks ``vector_layout``,
``text_knowledge`` and ``vector_knowledge`` (:mod:`mase.layout`) document the vector block by
block and show that it carries exactly what the text states (:func:`mase.checks.check_parity`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from mase import protocol, rendering
from mase.actions import (
    ActionParse,
    AgentDone,
    InvalidAction,
    ResetNeeded,
    bare_action,
    brief,
    check_playing,
    plain_text,
    read_value,
)
from mase.eventlog import EventLog
from mase.events import Event, FactKey
from mase.knowledge import KnowledgeTracker
from mase.language import TaskLanguage
from mase.layout import VectorLayout
from mase.schedules import Phase, PhaseQueue, RoundRobin, Schedule
from mase.spaces import check_obs_mode, clean_text, observation_space
from mase.stats import Metric, rate

__all__ = [
    "ActionParse",
    "InvalidAction",
    "Move",
    "Outcome",
    "Phase",
    "PhaseQueue",
    "RoundRobin",
    "TaskEnv",
]


class Outcome(NamedTuple):
    """What a rule did: the events it caused and the reward it gives.

    Attributes:
        events: the events, in order (the task core emits them to their audiences).
        reward: one number for the whole team, or ``{agent: reward}``.
    """

    events: Sequence[Event] = ()
    reward: float | Mapping[str, float] = 0.0


class Move(NamedTuple):
    """One turn of the current round, as the task core saw it.

    Attributes:
        agent: who moved.
        action: the action the task received (``None`` when the input was not one).
        message: the last message the agent sent during its turn (``""`` when none).
    """

    agent: str
    action: Any
    message: str


_new_tuple = tuple.__new__  # builds a NamedTuple without the Python-level call of its __new__


class TaskEnv(EventLog, TaskLanguage, AECEnv):
    """The AEC loop and the shared machinery of MASE tasks (see the module docstring).

    Args:
        obs_mode: ``"vector"``, ``"text"`` or ``"both"``.
        render_mode: ``None``, ``"ansi"`` or ``"human"`` (prints).
        max_cycles: the round limit (``None``: none); the episode is truncated at the end of
            that round with ``ended_by="round_limit"``.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human", *(["rgb_array"] if rendering.AVAILABLE else [])],
        "render_fps": rendering.FPS,
        "is_parallelizable": True,
    }
    #: The task's picture for ``render_mode="rgb_array"``: a :class:`mase.rendering.Drawing`
    #: (frame size and a function drawing :meth:`scene` as ``replay.js`` does), or
    #: ``"module:attribute"`` naming one; ``None``: the text of :meth:`_render` on a page.
    drawing: rendering.Drawing | str | None = None
    #: Who acts when (:mod:`mase.schedules`).
    schedule: Schedule = RoundRobin()
    #: ``"module:attribute"`` of the task's scripted policy class (the default teammate), or
    #: the class itself.
    scripted_policy: str | None = None
    #: ``"module:attribute"`` of the task's offline language model: a responder for
    #: :class:`mase.llm.OfflineServer` that reads only the prompt.
    language_model: str | None = None
    #: The headline columns of ``mase eval`` and ``mase report`` tables for this task:
    #: ``(metric key, header, format)``; empty: score, rounds and the valid-action rate.
    table_columns: tuple[tuple[str, str, str], ...] = ()
    #: What the task's own metrics are (:class:`mase.stats.Metric`): a name for people with
    #: its unit, a kind (a proportion of episodes, or a bounded number) and a range. They pick
    #: each metric's interval and draw its axis; :meth:`metric_specs` adds the shared ones.
    metric_kinds: Mapping[str, Metric] = {}
    #: ``"module:attribute"`` of the task's built-in Theory-of-Mind probe hooks (a sequence).
    tom_probes: str | None = None
    #: The sides :meth:`side_of` deals, when seats are dealt sides per episode (a team spec
    #: may then name a side: ``"scripted,good=deduction"``); empty for one team.
    sides: tuple[str, ...] = ()
    #: Named policies of this task (planners, trained checkpoints): name -> ``"module:factory"``;
    #: the factory takes the text after ``name:`` in a team spec (``None`` when absent).
    policies: Mapping[str, str] = {}
    #: ``"module:attribute"`` of the task's native batch (:mod:`mase.batch`): its rules in
    #: arrays, stepping many worlds at once; ``None``: :func:`mase.make_vec` loops AEC envs.
    batched: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # PettingZoo's mark that every agent acts once per round in turn order, so a round's
        # moves may be chosen at once (the parallel view then steps a round at a time): from
        # the schedule unless the task says it itself
        own = cls.__dict__.get("metadata", {})
        metadata = dict(cls.metadata)
        if "is_parallelizable" not in own:
            metadata["is_parallelizable"] = cls.schedule.parallelizable
        # a text picture can be drawn, so every task that renders text renders pixels too
        modes = list(metadata.get("render_modes", ()))
        if rendering.AVAILABLE and "ansi" in modes and "rgb_array" not in modes:
            metadata["render_modes"] = [*modes, "rgb_array"]
        if modes:
            metadata.setdefault("render_fps", rendering.FPS)
        cls.metadata = metadata

    def __init__(
        self,
        obs_mode: str = "both",
        render_mode: str | None = None,
        max_cycles: int | None = None,
    ):
        super().__init__()
        self.obs_mode = check_obs_mode(obs_mode)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            missing = render_mode == "rgb_array" and not rendering.AVAILABLE
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
                + ("; 'rgb_array' draws with matplotlib: pip install 'mase-suite[plot]'"
                   if missing else "")
            )  # fmt: skip
        if max_cycles is not None and (
            isinstance(max_cycles, bool) or not isinstance(max_cycles, int) or max_cycles < 1
        ):
            raise ValueError(f"max_cycles must be a whole number of at least 1, got {max_cycles!r}")
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self._want_vector = obs_mode in ("vector", "both")
        self._want_text = obs_mode in ("text", "both")
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.messages_enabled = False
        self.max_message_length = 0
        #: The longest utterance of a speech phase, when the task's rules set one (0: the
        #: message channel's limit, if the env has one, else the text limit).
        self.speech_limit = 0
        self.agents = []
        # before the first reset the AEC dicts are empty, so a wrapper that looks up the agent
        # to act finds no one and passes the step on to step()'s clear error
        self.agent_selection = None
        self.rewards, self._cumulative_rewards = {}, {}
        self.terminations, self.truncations, self.infos = {}, {}, {}
        #: The current round (1-based; 0 before the first reset).
        self.round = 0
        self.event_log: list[Event] = []
        self._inbox: dict[str, list[Event]] = {}
        self._index_range: tuple[int, int] | None = None
        self._ends_phases = type(self).end_phase is not TaskEnv.end_phase
        self._phase: Phase | None = None
        self._started = False
        self._tracker: KnowledgeTracker | None = None

    # -- spaces -------------------------------------------------------------------------------

    def set_spaces(
        self,
        vector_size: int | Mapping[str, int],
        action_space: spaces.Space | Mapping[str, spaces.Space],
        state_size: int | None = None,
    ) -> None:
        """Declare the spaces of every seat of ``possible_agents``.

        Args:
            vector_size: length of the float32 vector view in [0, 1] (or per seat).
            action_space: the action space (or per seat). A ``Discrete`` space gets an
                ``action_mask`` in observations (from ``_mask``); other kinds have none.
            state_size: length of ``state()`` (default: every seat's vector, concatenated,
                which is what the default ``state`` returns).
        """
        seats = list(self.possible_agents)
        sizes = (
            vector_size if isinstance(vector_size, Mapping) else dict.fromkeys(seats, vector_size)
        )
        acts = (
            action_space
            if isinstance(action_space, Mapping)
            else dict.fromkeys(seats, action_space)
        )
        self._action_spaces = {a: acts[a] for a in seats}
        # a Discrete space shared by every seat, read by the default check_action: the step
        # reads plain int actions itself (the hot path of training loops)
        kinds = {
            (type(sp), int(sp.start), int(sp.n)) if isinstance(sp, spaces.Discrete) else (type(sp),)
            for sp in acts.values()
        }
        self._index_range = None
        if len(kinds) == 1 and type(self).check_action is TaskEnv.check_action:
            kind = next(iter(kinds))
            if kind[0] is spaces.Discrete:
                self._index_range = (kind[1], kind[1] + kind[2])
        self._observation_spaces = {
            a: observation_space(self.obs_mode, sizes[a], _mask_size(acts[a])) for a in seats
        }
        # the vector view exists in every obs_mode: state() and observe_vector() read it
        self._vector_spaces = {
            a: spaces.Box(0.0, 1.0, shape=(sizes[a],), dtype=np.float32) for a in seats
        }
        self._has_mask = {a: _mask_size(acts[a]) is not None for a in seats}
        if state_size is None:
            state_size = sum(sizes[a] for a in seats)
        self.state_space = spaces.Box(0.0, 1.0, shape=(state_size,), dtype=np.float32)

    def observation_space(self, agent: str) -> spaces.Dict:
        """The Dict observation space of ``agent`` (the same object on every call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call)."""
        return self._action_spaces[agent]

    def vector_space(self, agent: str) -> spaces.Box:
        """The Box of ``agent``'s vector view, in every ``obs_mode`` (text alone included).

        ``observe_vector`` and the default ``state`` are built from it; a task's ``_vector``
        reads its shape here, not from the observation space (which has no vector part when
        ``obs_mode="text"``).
        """
        return self._vector_spaces[agent]

    # -- the episode --------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new episode: seed, let the task build its world, open the first phase."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.new_episode(options)
        self._start_episode()
        self._open(self.schedule.next_phase(self, None))

    def _start_episode(self) -> None:
        """The AEC bookkeeping, the event log and the schedule's state, afresh."""
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.event_log = []
        self._inbox = {agent: [] for agent in self.possible_agents}
        self._alone = {a: frozenset((a,)) for a in self.possible_agents}
        self._seats = frozenset(self.possible_agents)
        self._turn_messages: dict[str, str] = {}
        self._tracker = None
        self._tracked = 0
        self.round = 1
        self._turns = 0
        self._invalid = 0
        self._observed_turn = -1
        self._ended_by = ""
        self._last_events: dict[str, Sequence[Event]] = {}
        self._held: list[tuple[Event, str | None]] = []
        self.moves: list[Move] = []
        self._started = True

    def step(self, action: Any) -> None:
        """Act for ``agent_selection``.

        ``action`` is an action of the task's kind, text (read by :meth:`read_action`; in a
        speech phase, the utterance itself), or ``None`` for an agent that is done. Input that
        is not a legal move is an invalid action: an ``invalid`` event for the agent, the reason
        in ``infos[agent]["invalid_action"]``, the turn spent.

        Raises:
            ResetNeeded: before ``reset`` or after the episode's end (a ``RuntimeError``).
            AgentDone: an action other than ``None`` for an agent that is done.
            ActionDictError: a dict with keys no wrapper took (the message names the wrapper;
                a ``TypeError``).
        """
        if not self.agents:  # before the first reset or after the end: the clear error
            check_playing(self)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise AgentDone(f"{agent} is done: its step is env.step(None), not {brief(action)}")
            self._was_dead_step(action)
            return
        if action.__class__ is dict:  # a caller's mistake is refused before the turn starts
            action = bare_action(action)  # what every wrapper passes on
        if self._observed_turn != self._turns:
            self._log_turn_view(agent)  # the agent is live: _turn_started's checks hold
        self._begin_turn(agent)
        self._cumulative_rewards[agent] = 0.0
        phase = self._phase
        value = None
        try:
            if action.__class__ is int and self._index_range is not None and not phase.speech:
                # the common case, read without a call: an index of a Discrete space
                start, stop = self._index_range
                if not start <= action < stop:
                    read_value(self._action_spaces[agent], action)  # raises, with the reason
                value = action
            else:
                value = self._read(agent, action, phase)
            if phase.speech:  # the task reads what the audience hears
                speech = self._speech_event(agent, value, phase)
                self._emit_move(agent, (speech,), phase)
                value = self.speech_move(agent, value, speech.note)
            outcome = self.apply(agent, value)
        except InvalidAction as invalid:
            outcome = ((self.invalid_event(agent, invalid.code, invalid.detail),), 0.0)
        if outcome.__class__ is tuple and len(outcome) == 2 and outcome[1].__class__ is not Event:
            events, reward = outcome  # (events, reward), as an Outcome without the call
        else:
            events, reward = _outcome(outcome)
        if phase.secret:
            self._emit_move(agent, events, phase)
        else:
            for event in events:
                self.emit(event)
        self._turns += 1
        for event in events:
            if event.kind == "invalid" and event.actor == agent:
                self._invalid += 1
                self.infos[agent]["invalid_action"] = self.explain_invalid(event)
                break
        self._last_events[agent] = events
        self.moves.append(_new_tuple(Move, (agent, value, self._turn_messages.pop(agent, ""))))
        rewards = self.rewards
        if reward.__class__ is float or reward.__class__ is int:
            for a in rewards:
                rewards[a] = reward
        else:
            for a in rewards:
                rewards[a] = 0.0
            self._add_reward(reward)
        # the next agent of the phase, or the phase is over
        if not self._ended_by:
            self._cursor += 1
            if self._cursor < len(self._queue):
                self.agent_selection = self._queue[self._cursor]
            else:
                self._close_phase()
        if self._ended_by:
            # every agent is done: each takes its dead step, starting after the last mover
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        cumulative = self._cumulative_rewards  # AECEnv._accumulate_rewards, inlined
        for a, r in rewards.items():
            cumulative[a] += r

    def _read(self, agent: str, action: Any, phase: Phase) -> Any:
        """The action the policy gave, as the task takes it; :class:`InvalidAction` if none."""
        if isinstance(action, dict):  # a dict subclass
            action = bare_action(action)
        text = plain_text(action)  # a str subclass's own methods never run
        if phase.speech:
            return text if text is not None else self.utterance(agent, action)
        if text is not None:
            parsed = self.read_action(agent, text)
            if parsed.action is None:
                raise InvalidAction("unparseable", parsed.reason)
            return parsed.action
        return self.check_action(agent, action)

    def read_action(self, agent: str, text: str) -> ActionParse:
        """Read a reply as :meth:`step` will take it.

        In a speech phase the acting agent's reply is what it says (an empty one is silence,
        which :meth:`step` takes too): the whole reply, or, in the protocol's format, its action
        part and message without the labels (:func:`mase.protocol.spoken`); otherwise the
        protocol's parts, then ``parse_action`` (:meth:`mase.language.TaskLanguage.read_action`).
        """
        phase = self._phase
        if phase is not None and phase.speech and agent == self.agent_selection:
            return ActionParse(protocol.spoken(text))
        return super().read_action(agent, text)

    def speech_move(self, agent: str, reply: str, said: str) -> Any:
        """What ``apply`` gets from a move in a speech phase.

        By default what the audience heard (``said``: the reply, cut at the message limit), so
        an answer is read as it was heard. A task whose turn is an utterance plus a move (a
        labelled proposal line) reads the whole ``reply`` instead, so a long message
        never cuts its move off.
        """
        return said

    def acting(self, agent: str) -> bool:
        """Whether ``agent`` is the one to move now, in an episode still going on."""
        return (
            bool(self.agents)
            and agent == self.agent_selection
            and not (self.terminations.get(agent) or self.truncations.get(agent))
        )

    def utterance(self, agent: str, action: Any) -> str:
        """What a move that is not text says in a speech phase (an answer index, say).

        The default: nothing; the move is invalid. A task whose speech has a finite set of
        answers (multiple-choice letters) says the chosen one, so RL and scripted seats can speak.
        """
        raise InvalidAction("unparseable", f"{type(action).__name__} {brief(action)} is not text")

    def check_action(self, agent: str, action: Any) -> Any:
        """An action of the task's kind from a non-text input, or :class:`InvalidAction`.

        The default is :func:`mase.actions.read_value`: an index of a ``Discrete`` space in
        range, or a value the space contains (numbers and lists made into its arrays).
        Whether a well-formed action is legal now is ``apply``'s business.
        """
        return read_value(self.action_space(agent), action)

    def _add_reward(self, reward: float | Mapping[str, float]) -> None:
        if isinstance(reward, Mapping):
            for agent, value in reward.items():
                if agent in self.rewards:
                    self.rewards[agent] += float(value)
        elif reward:
            for agent in self.rewards:
                self.rewards[agent] += reward

    def _apply_outcome(self, outcome: Outcome | Sequence[Event] | None) -> None:
        """Emit a phase's or round's outcome (its events are public to their audience)."""
        events, reward = _outcome(outcome)
        for event in events:
            self.emit(event)
        self._add_reward(reward)

    # -- the schedule -------------------------------------------------------------------------

    def _open(self, phase: Phase | None) -> None:
        """Start ``phase``: its agents act in order (agents are done only when all are)."""
        if phase is None:
            raise RuntimeError(
                f"{type(self).__name__}.next_phase gave no phase but the episode goes on; "
                "end it with self.finish(...) in the hook that closed the last phase"
            )
        if phase is not self._phase and (
            not phase.agents or not self._seats.issuperset(phase.agents)
        ):
            raise ValueError(
                f"phase {phase.name!r} must list agents of {self.possible_agents}, got "
                f"{phase.agents}"
            )
        self._phase = phase
        self._queue = phase.agents
        self._cursor = 0
        self.agent_selection = phase.agents[0]

    @property
    def phase(self) -> Phase:
        """The phase being played."""
        return self._phase

    @property
    def to_move(self) -> tuple[str, ...]:
        """The seats still to act in this phase, the one to act now first (empty at the end).

        The parallel view (:mod:`mase.parallel`) plays a secret phase's rest as one step.
        """
        if not self._started or self._ended_by or not self.agents:
            return ()
        return self._queue[self._cursor :]

    def observe_at_turn(self, agent: str) -> dict[str, Any]:
        """``agent``'s observation as its turn in this phase will show it.

        For a seat still to move in a secret phase, the observation it gets when its turn
        comes: no move of the phase reaches it before then, so it is the same now (the
        parallel view shows it to every seat of the phase at once). Otherwise
        :meth:`observe`.
        """
        phase = self._phase
        if agent == self.agent_selection or not phase.secret or agent not in self.to_move:
            return self.observe(agent)
        saved = self.agent_selection, self._observed_turn
        self.agent_selection = agent  # the task's views read whose turn it is from this
        try:
            return self.observe(agent)
        finally:
            # a turn view logged meanwhile was this seat's; the seat to act logs its own
            self.agent_selection, self._observed_turn = saved

    def _close_phase(self) -> None:
        phase = self._phase
        if self._held:  # the secret moves of the phase, shown to their audience at once
            held, self._held = self._held, []
            for event, mover in held:
                self._reveal(event, mover)
        if self._ends_phases:
            outcome = self.end_phase(phase)
            if outcome is not None:
                self._apply_outcome(outcome)
        if not self._ended_by and phase.ends_round:
            outcome = self.end_round()
            if outcome is not None:
                self._apply_outcome(outcome)
            if not self._ended_by and self.max_cycles is not None and self.round >= self.max_cycles:
                self.finish("round_limit", truncated=True)
            if not self._ended_by:
                self.next_round()
            self.moves = []
        if not self._ended_by:
            self._open(self.schedule.next_phase(self, phase))

    def finish(self, ended_by: str, truncated: bool = False) -> None:
        """End the episode now: every agent is terminated (or truncated), metrics in infos.

        Args:
            ended_by: how it ended, in the task's words (``info["metrics"]["ended_by"]``).
            truncated: ended by a limit rather than by the game's own end.
        """
        if self._ended_by:
            return
        self._ended_by = ended_by
        # every agent's final observation shows its view now: log it for the knowledge tracker
        # (questions asked at the end are judged on what each agent was last shown)
        for agent in self.agents:
            facts = self.turn_view(agent)
            if facts:
                self.emit(Event("observe", agent, facts, self._alone[agent], self.round), False)
        flags = self.truncations if truncated else self.terminations
        metrics = self.metrics()
        for agent in self.agents:
            flags[agent] = True
            self.infos[agent]["metrics"] = metrics

    @property
    def ended_by(self) -> str:
        """How the episode ended (empty while it goes on)."""
        return self._ended_by

    def next_round(self) -> None:
        """Count a new round (a task that keeps the round in its world too extends this)."""
        self.round += 1

    # -- hooks a task writes --------------------------------------------------------------------

    def new_episode(self, options: dict | None) -> None:
        """Build the episode's world from ``self.np_random`` (``self.agents`` is set after)."""
        raise NotImplementedError

    def apply(self, agent: str, action: Any) -> Outcome | Sequence[Event] | None:
        """The rules: carry out ``agent``'s action and say what it caused.

        Raise :class:`InvalidAction` (before changing anything) for an illegal move.
        """
        raise NotImplementedError

    def next_phase(self, previous: Phase | None) -> Phase | None:
        """The next phase, for a :class:`PhaseQueue` schedule."""
        raise NotImplementedError(f"{type(self).__name__} has a PhaseQueue but no next_phase")

    def end_phase(self, phase: Phase) -> Outcome | Sequence[Event] | None:
        """Rules when a phase is over (its secret moves are revealed first); default none."""
        return None

    def end_round(self) -> Outcome | Sequence[Event] | None:
        """Rules when a round is over (before the round limit); default none."""
        return None

    def rules_in_play(self) -> str:
        """The rule options this env plays by, in a line for tables ("" when it has none)."""
        return ""

    def side_of(self, agent: str) -> str:
        """The side ``agent`` plays for this episode: seats of one side share their goal.

        Ground truth for trainers, evaluations and tests (``mase train mappo --learn SIDE``),
        never part of a player's view: in a hidden-role task it is the hidden role's side. The
        default is one side, ``"team"``, for cooperative tasks.
        """
        return "team"

    def code_facts(self, agent: str) -> dict[str, Any]:
        """The facts a CodeAct agent's program reads (JSON-ready): what ``agent`` holds now.

        The default lists the agent's :meth:`turn_view` as ``[key..., value]`` rows; a task
        gives its own, shaped for programs, from what the agent may know and nothing more.
        """
        view = self.turn_view(agent) or {}
        rows = [[*map(_plain, key), _plain(value)] for key, value in view.items()]
        return {"agent": agent, "round": self.round, "facts": rows}

    def metrics(self) -> dict[str, Any]:
        """Episode measures, in ``info["metrics"]`` at the end; tasks add their own."""
        return {
            "rounds": self.round,
            "turns": self._turns,
            "invalid_actions": self._invalid,
            "valid_action_rate": self.valid_action_rate,
            "ended_by": self._ended_by,
        }

    def metric_specs(self) -> dict[str, Metric]:
        """Every metric of :meth:`metrics` this env declares: the shared ones and the task's.

        A task whose ranges depend on its arguments (a maximum score) extends this.
        """
        limit = float(self.max_cycles) if self.max_cycles is not None else None
        return {
            "rounds": Metric("Rounds per episode", "bounded", 0.0, limit),
            "turns": Metric("Turns per episode", "bounded", 0.0, None),
            "invalid_actions": Metric("Invalid actions per episode", "bounded", 0.0, None),
            "valid_action_rate": rate("Valid-action rate (share of turns)"),
            # what a belief-writing agent's beliefs got right (mase.wrappers.BeliefState)
            "belief_accuracy": rate("Belief accuracy (share of stated facts true)"),
            "belief_recall": rate("Belief recall (share of facts seen or told kept)"),
            "belief_oracle_agreement": rate("Belief agreement with the oracle (share of facts)"),
            **self.metric_kinds,
        }

    @property
    def valid_action_rate(self) -> float:
        """The share of this episode's turns whose action was legal (1.0 before any)."""
        return 1.0 - self._invalid / self._turns if self._turns else 1.0

    @property
    def turns(self) -> int:
        """Turns taken this episode."""
        return self._turns

    @property
    def invalid_actions(self) -> int:
        """Turns this episode whose action was not legal."""
        return self._invalid

    def turn_view(self, agent: str) -> Mapping[FactKey, Any] | None:
        """The facts ``agent`` sees at the start of its turn (for the knowledge tracker)."""
        return None

    def invalid_event(self, agent: str, code: str, detail: Any) -> Event:
        """The event of an invalid action: only the actor sees it; its note is ``code:detail``."""
        return Event("invalid", agent, {}, self._alone[agent], self.round, f"{code}:{detail}")

    def explain_invalid(self, event: Event) -> str:
        """Why an action failed, in words the agent can act on (default: the event's detail)."""
        code, _, detail = event.note.partition(":")
        space = self._action_spaces.get(event.actor) if event.actor else None
        if code == "out_of_range" and isinstance(space, spaces.Discrete):
            first, last = int(space.start), int(space.start + space.n - 1)
            return f"action {detail} does not exist; actions are numbered {first} to {last}"
        return detail or event.note

    def last_events(self, agent: str) -> Sequence[Event]:
        """The events of ``agent``'s last action this episode (empty before it acted)."""
        return self._last_events.get(agent, ())

    def event(
        self,
        kind: str,
        actor: str | None,
        facts: Mapping[FactKey, Any] | None = None,
        audience: Sequence[str] | None = None,
        note: str = "",
    ) -> Event:
        """An event of this round; ``audience`` defaults to every live agent."""
        who = frozenset(self.agents if audience is None else audience)
        return Event(kind, actor, facts or {}, who, self.round, note)

    # -- observations -------------------------------------------------------------------------

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward since its last turn, flags and info."""
        if not self._started:
            raise ResetNeeded("call reset() before last()")
        agent = self.agent_selection  # PettingZoo's last(), without a second call per turn
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent: str) -> dict[str, Any]:
        """The agent's observation: a dict with the keys ``obs_mode`` asks for."""
        if not self._started:
            raise ResetNeeded("call reset() before observe()")
        if agent not in self._observation_spaces:
            raise ValueError(f"no agent {brief(agent)}; agents: {self.possible_agents}")
        obs: dict[str, Any] = {}
        if self._want_vector:
            obs["observation"] = self._vector(agent)
        if self._want_text:
            obs["text"] = self.observe_text(agent)
        if self._has_mask[agent]:
            obs["action_mask"] = self._mask(agent)
        return obs

    def observe_vector(self, agent: str) -> np.ndarray:
        """The vector view of the agent's observation, whatever ``obs_mode`` is."""
        if not self._started:
            raise ResetNeeded("call reset() before observe_vector()")
        if agent not in self._vector_spaces:
            raise ValueError(f"no agent {brief(agent)}; agents: {self.possible_agents}")
        return self._vector(agent)

    def observe_text(self, agent: str) -> str:
        """The text view of the agent's observation, whatever ``obs_mode`` is."""
        return clean_text(self._text(agent))

    def _vector(self, agent: str) -> np.ndarray:
        raise NotImplementedError

    def _text(self, agent: str) -> str:
        raise NotImplementedError

    def _mask(self, agent: str) -> np.ndarray:
        """Legal actions of a ``Discrete`` space (default: all of them while the agent acts)."""
        live = not (self.terminations.get(agent) or self.truncations.get(agent))
        return np.full(self.action_space(agent).n, int(live), dtype=np.int8)

    def state(self) -> np.ndarray:
        """The global state: by default every seat's vector view, concatenated."""
        if not self._started:
            raise ResetNeeded("call reset() before state()")
        return np.concatenate([self._vector(a) for a in self.possible_agents])

    # -- information parity (mase.layout) -----------------------------------------------------

    def vector_layout(self, agent: str) -> VectorLayout:
        """The agent's observation vector, block by block (:class:`mase.layout.VectorLayout`)."""
        raise NotImplementedError

    def text_knowledge(self, agent: str, text: str) -> dict[Any, Any]:
        """The facts a text observation of ``agent`` states, read with the task's parsers.

        Messages enter as their claims (:func:`mase.layout.text_told`); the keys and values
        are those :meth:`vector_knowledge` decodes.
        """
        raise NotImplementedError

    def vector_knowledge(self, agent: str, vector: np.ndarray) -> dict[Any, Any]:
        """The facts an observation vector of ``agent`` holds, keyed as :meth:`text_knowledge`."""
        raise NotImplementedError

    def render(self) -> str | np.ndarray | None:
        """The world as text: returned with ``"ansi"``, printed with ``"human"``.

        With ``"rgb_array"``: the task's :attr:`drawing` of :meth:`scene` as a ``(height,
        width, 3)`` uint8 array of the size the drawing declares, the picture of the replay
        page with its secrets shown (:mod:`mase.rendering`); without a drawing, the text.
        """
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode; pass render_mode='ansi'", stacklevel=2
            )
            return None
        if not self._started:
            raise ResetNeeded("call reset() before render()")
        if self.render_mode == "rgb_array":
            drawing = rendering.resolve(self.drawing)
            if drawing is None:
                return rendering.text_frame(self._render())
            return drawing.frame(self.scene())
        picture = self._render()
        if self.render_mode == "human":
            print(picture)
            return None
        return picture

    def _render(self) -> str:
        """The picture :meth:`render` shows (default: the round and the acting agent's view)."""
        agent = self.agent_selection
        return f"Round {self.round}; {agent} to act.\n{self.observe_text(agent)}"

    def scene(self) -> dict[str, Any]:
        """The world now as plain data, for the replay viewer (:mod:`mase.replay`) to draw.

        The whole truth, hidden parts included: whatever not every seat saw goes under the
        scene's ``"secret"`` key, which only the analyst's replay page holds (the default page
        is the common view, :mod:`mase.replay.views`; ``tests/test_noninterference.py`` checks
        that the rest shows nothing secret). JSON-ready values (tuples, sets and numpy
        values are converted). A task that returns a scene ships ``replay.js`` in its package:
        ``draw(scene, element, options)`` draws it (``docs/task_contract.md``). Default: no
        scene, and the viewer shows the text of :meth:`_render` alone.
        """
        return {}

    def hidden_twins(self, seed: int) -> list[tuple[str, dict, dict]]:
        """Twin deals that differ only in hidden state one seat cannot know, for the contract.

        Each is ``(seat, options A, options B)``: ``reset(seed=seed, options=A)`` and
        ``reset(seed=seed, options=B)`` deal worlds that ``seat`` cannot tell apart (a hidden
        role, a private number), so everything it is shown must be byte-identical until an
        event in its audience differs (``tests/test_noninterference.py``). Another seat's
        unseen moves are twinned for every task without this hook. Default: none.
        """
        return []

    def close(self) -> None:
        """Release resources; the built-in tasks hold none."""


def _outcome(outcome: Any) -> tuple[Sequence[Event], float | Mapping[str, float]]:
    """``(events, reward)`` of what a hook returned: an Outcome, events, or ``None``."""
    if outcome is None:
        return (), 0.0
    if isinstance(outcome, Outcome):
        return outcome
    if isinstance(outcome, Event):
        return (outcome,), 0.0
    if isinstance(outcome, tuple) and len(outcome) == 2 and not isinstance(outcome[1], Event):
        return outcome
    return tuple(outcome), 0.0


def _mask_size(space: spaces.Space) -> int | None:
    """Length of the action mask for ``space``: ``Discrete`` spaces only."""
    return int(space.n) if isinstance(space, spaces.Discrete) else None


def _plain(value: Any) -> Any:
    """A value as JSON holds it: tuples and sets as lists, other objects as text."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (tuple, list, set, frozenset)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)
