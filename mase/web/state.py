"""What a person's seat is shown: :class:`SeatViews`, built only from what the seat may know.

The web seat's page (:mod:`mase.web`) draws nothing the server did not send, and the server
sends a seat nothing but this state and the answers to its own input. The state is built field
by field from what the seat has been shown, never by deleting what is known to be secret:

=============  ===============================================================================
field          what it holds
=============  ===============================================================================
``rules``      the rules as the seat was told them at the start (its role, the map: its start
               knowledge)
``text``       the seat's observation text as of the start, its latest turn or its end: a
               task may state in it what the seat sees at its turn (where the others went),
               so it is not read again while others move
``scene``      the task's :meth:`~mase.task.TaskEnv.scene` without its ``"secret"`` part (what
               every seat saw; the replay viewer's drawing code draws it)
``events``     the events whose audience holds the seat (messages among them), as recorded
``turn``       the round, the phase's name, whether the seat is to move, whether the move is
               speech, whether messages can go with it
``legal``      on the seat's move: its legal actions in the task's words (the buttons)
``over``       whether the seat's episode has ended; then ``reward``, the seat's own return
=============  ===============================================================================

Who else is to move is not in the state: in a phase whose movers are a secret (a move only a
hidden role makes, say) naming them would tell. ``tests/test_noninterference.py`` compares this
state after every move between twin episodes of every task, as it compares observations, so a
task or wrapper that would leak through it fails the task contract.
"""

from __future__ import annotations

from typing import Any

from mase.wrappers.recorder import event_dict, scene_data

__all__ = ["SeatViews"]


def _live(base: Any, seat: str) -> bool:
    return seat in base.agents and not (base.terminations[seat] or base.truncations[seat])


class SeatViews:
    """The states of the seats' pages through one episode; :meth:`reset` at each new one."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, str]] = {}

    def reset(self) -> None:
        """A new episode: every seat's rules and text are read again."""
        self._seen.clear()

    def state(
        self,
        env: Any,
        seat: str,
        returns: dict[str, float] | None = None,
        scene: dict | None = None,
    ) -> dict:
        """The state of ``seat``'s page now (see the module docstring); JSON-ready.

        Args:
            env: the game's env (a MASE task, possibly wrapped), after ``reset``.
            seat: one of its ``possible_agents``.
            returns: the seats' returns so far, when the caller keeps them (shown at the end).
            scene: the task's scene now (:func:`mase.wrappers.recorder.scene_data`), when the
                caller made it once for several seats.
        """
        base = env.unwrapped
        over = not base.agents or not _live(base, seat)
        phase = base.phase
        to_move = not over and base.agent_selection == seat
        if to_move or over or seat not in self._seen:
            rules = self._seen[seat][0] if seat in self._seen else base.rules_text(seat)
            self._seen[seat] = (rules, base.observe_text(seat))
        rules, text = self._seen[seat]
        speech = bool(to_move and phase is not None and phase.speech)
        scene = (scene if scene is not None else scene_data(base)) or {}
        state: dict[str, Any] = {
            "seat": seat,
            "rules": rules,
            "text": text,
            "scene": {k: v for k, v in scene.items() if k != "secret"},
            "events": [
                event_dict(e) for e in base.event_log if seat in e.audience and e.kind != "observe"
            ],
            "turn": {
                "round": int(base.round),
                "phase": None if phase is None or over else phase.name,
                "you": to_move,
                "speech": speech,
                "messages": bool(base.messages_enabled),
            },
            "legal": list(base.legal_actions_text(seat)) if to_move and not speech else [],
            "over": over,
        }
        if over and returns is not None:
            state["reward"] = float(returns.get(seat, 0.0))
        return state
