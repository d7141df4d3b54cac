"""Turn schedules: who acts when, declared as data by each task.

A task sets its ``schedule`` class attribute; :class:`mase.task.TaskEnv` runs it. Play is a
sequence of :class:`Phase` records: the agents listed act one after another, in that order, and
when the last has acted the phase is over (the task's ``end_phase`` hook runs). A phase may:

- be **secret** (simultaneous moves): every listed agent acts in turn order, but what a move
  causes is seen by the mover alone until all have moved; then the events are revealed at once
  to their audience. Observations, the knowledge tracker and Theory-of-Mind probes therefore
  see a secret move only once it is revealed (votes, cards played face down, answers given at
  once). An event whose audience is the mover alone (a card face down) stays private.
- be **speech**: the move is an utterance. The text becomes a message event to the phase's
  audience (everyone by default) and is also handed to the task's ``apply`` (an answer in it
  is read there), with or without :class:`mase.wrappers.MessageChannel`.
- **end a round**: the round's end runs the task's ``end_round`` hook and the round limit.

Three schedules cover the turn structures of the suite's tasks:

================  ===================================================  ===================
schedule          who acts                                             for
================  ===================================================  ===================
RoundRobin        each live agent once per round, in ``agents`` order  turn-taking games
RoundRobin(       the same, but a round's moves stay secret until all  answers given at
secret=True)      have moved (simultaneous moves)                      once, ColourMatch
PhaseQueue        the task says who acts next: ``next_phase()``        a leader, then a
                                                                       vote; SecretVote
================  ===================================================  ===================

Every schedule has a parallel view (:func:`mase.make_parallel`, :mod:`mase.parallel`), whose
steps the phases give: a secret phase is one step (its seats move at once and see each other's
moves together, after it); a round of a round-robin task is one step (PettingZoo's
``is_parallelizable``: the task may say otherwise, as one that ends mid-round does); any
other phase is played a turn a step. A seat that does not act in a step is still a live agent:
it gives an action, which is ignored, and its ``action_mask`` allows only the first action, a
wait; ``infos[agent]["acting"]`` says which seats act.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mase.task import TaskEnv


@dataclass(frozen=True)
class Phase:
    """A stretch of play: the listed agents act once each, in order.

    Attributes:
        name: the phase in the task's words (``"turn"``, ``"propose"``, ``"vote"``).
        agents: who acts, in turn order (agents that are done are skipped).
        secret: simultaneous moves: each move's events reach others only when all have moved.
        speech: the move is an utterance (a message event to ``audience``).
        audience: who hears a speech move (``None``: every live agent).
        ends_round: the round ends with this phase.
    """

    name: str
    agents: tuple[str, ...]
    secret: bool = False
    speech: bool = False
    audience: tuple[str, ...] | None = None
    ends_round: bool = True

    def __post_init__(self) -> None:
        if len(set(self.agents)) != len(self.agents):
            raise ValueError(f"phase {self.name!r} lists an agent twice: {self.agents}")


class Schedule(Protocol):
    """Produces the phases of an episode."""

    #: Whether every round has every live agent act once, in ``agents`` order (the default of
    #: PettingZoo's ``metadata["is_parallelizable"]``): then a round's moves may be chosen at
    #: once, and a parallel step (``mase.make_parallel``) is a whole round; otherwise a step is
    #: a secret phase, or a single turn.
    parallelizable: bool

    def next_phase(self, env: TaskEnv, previous: Phase | None) -> Phase | None:
        """The phase after ``previous`` (``None`` at the start of an episode)."""


class RoundRobin:
    """Each live agent acts once per round, in ``env.agents`` order; a round is one phase.

    Args:
        secret: the round's moves are simultaneous (revealed together when all have moved).
        speech: each move is an utterance (see :class:`Phase`).
        name: the phase's name.
    """

    parallelizable = True

    def __init__(self, secret: bool = False, speech: bool = False, name: str = "turn"):
        self.secret, self.speech, self.name = secret, speech, name
        self._phases: dict[tuple[str, ...], Phase] = {}

    def next_phase(self, env: TaskEnv, previous: Phase | None) -> Phase:
        """Every live agent, in turn order."""
        agents = tuple(env.agents)
        phase = self._phases.get(agents)
        if phase is None:  # one Phase object per set of live agents: a step allocates nothing
            phase = self._phases[agents] = Phase(self.name, agents, self.secret, self.speech)
        return phase

    def __repr__(self) -> str:
        return f"RoundRobin(secret={self.secret}, speech={self.speech}, name={self.name!r})"


class PhaseQueue:
    """The task says who acts next, phase by phase: ``env.next_phase(previous)``.

    The task's ``next_phase(previous)`` returns the next :class:`Phase` (``previous`` is
    ``None`` at the start of an episode) and is asked only while the episode goes on; a task
    that has nothing left to play ends the episode (``env.finish(...)``) in the hook that
    closed the last phase.
    """

    parallelizable = False

    def next_phase(self, env: TaskEnv, previous: Phase | None) -> Phase | None:
        """Whatever the task's ``next_phase`` says."""
        return env.next_phase(previous)

    def __repr__(self) -> str:
        return "PhaseQueue()"
