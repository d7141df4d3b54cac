"""Who a replay page is for: what every seat saw in common, one seat's view, or the analyst's.

A recorded episode (``mase eval --record``) holds the whole truth: every event with its
audience, every seat's observation, belief and model calls, the probes' true answers and each
frame's omniscient text picture and scene. :func:`page_record` keeps of it only what the view
may show, built field by field from what is allowed (never by deleting what is known to be
secret), so a field a later version adds stays out of the page until a view names it:

==========  ===================================================================================
view        what the page holds
==========  ===================================================================================
common      (the default) the events whose audience is every seat, in their own order; each
            frame's scene without its ``"secret"`` part (a task's scene keeps there what not
            every seat saw); as the text picture, the latest common events; a move's action
            (as its common events say it, never the policy's raw reply, message, belief) and
            its mover only when one of the move's own events by its mover is common, and only
            the steps of such moves (and the end): the moves no one else saw are not counted;
            no probes, beliefs, metrics, rewards, seed or model calls
seat S      the same rule with "S is in the audience" for "every seat is"; S's own moves whole
            (what it saw, its belief, its reward, its outcome, its model calls when kept); S's
            questions and its replies (without their true answers); S's last observation as the
            text picture
analyst     the record as it is (every secret; the page's "show hidden roles" toggle)
==========  ===================================================================================

One mechanism for every task: the event log's audiences decide what is common, and a task's
:meth:`~mase.task.TaskEnv.scene` keeps what is not common under ``"secret"``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["ANALYST", "COMMON", "page_record", "view_label", "view_seats"]

#: The default view: what every seat saw in common.
COMMON = "common"
#: The whole record, secrets included.
ANALYST = "analyst"


def view_label(view: str) -> str:
    """The line a page shows to say whose view it is."""
    if view == COMMON:
        return "Common view: only what every seat saw (no seat's secrets are in this page)"
    if view == ANALYST:
        return "Analyst's view: everything, every seat's secrets included"
    return f"{view.capitalize()}'s view: only what {view} saw"


def view_seats(view: str, seats: Sequence[str]) -> frozenset[str]:
    """The seats that must all be in an event's audience for the view to show it."""
    if view == COMMON:
        return frozenset(seats)
    if view not in seats:
        raise ValueError(f"no seat {view!r} in this episode; seats: {', '.join(seats)}")
    return frozenset((view,))


def episode_seats(record: dict) -> list[str]:
    """The seats of a recorded episode: every mover and every audience member, in order seen."""
    found: dict[str, None] = {}
    for turn in record.get("turns", []):
        found.setdefault(str(turn.get("agent")), None)
    for event in record.get("events", []):
        for seat in event.get("audience", []):
            found.setdefault(str(seat), None)
    return list(found)


def page_record(record: dict, seats: Sequence[str], view: str = COMMON) -> dict[str, Any]:
    """What the page of ``view`` may hold of ``record`` (see the module docstring).

    Args:
        record: a line of ``episodes.jsonl`` recorded with ``--record``.
        seats: every seat of the task (``possible_agents``).
        view: :data:`COMMON`, :data:`ANALYST` or a seat's name.
    """
    if view == ANALYST:
        return dict(record)
    watchers = view_seats(view, seats)
    own = None if view == COMMON else view
    events = record.get("events", [])
    shown = [i for i, e in enumerate(events) if watchers <= set(e.get("audience", []))]
    frames = record.get("frames", [])
    turns = record.get("turns", [])
    kept_turns = [
        _turn(turn, _events_of(events, shown, frames, k + 1), own) for k, turn in enumerate(turns)
    ]
    drawn = _frames(frames, shown, events, kept_turns, turns, own)
    # the view steps through the moves it saw (and the end): how many moves it did not see,
    # and when, is not its to know
    steps = [k for k, f in enumerate(drawn) if k == 0 or not f["hidden"] or k == len(drawn) - 1]
    out: dict[str, Any] = {
        "episode": record.get("episode"),
        "events": [_event(events[i]) for i in shown],
        "frames": [drawn[k] for k in steps],
        "turns": [kept_turns[k - 1] for k in steps[1:]],
    }
    if own is not None:
        out["probes"] = [_question(p) for p in record.get("probes", []) if p.get("asked") == own]
        calls = (record.get("seats") or {}).get(own)
        if isinstance(calls, dict) and calls.get("calls"):
            out["seats"] = {own: {"calls": calls["calls"]}}
    return out


def _event(event: dict) -> dict[str, Any]:
    keep = ("kind", "actor", "round", "audience", "facts", "note", "revealed")
    return {k: event[k] for k in keep if k in event}


def _events_of(events: list, shown: list[int], frames: list, k: int) -> list[dict]:
    """The shown events logged during the move that made frame ``k``."""
    if k >= len(frames):
        return []
    start, end = frames[k - 1].get("events", 0), frames[k].get("events", 0)
    return [events[i] for i in shown[bisect_left(shown, start) : bisect_left(shown, end)]]


def _seen_move(turn: dict, during: Iterable[dict]) -> bool:
    """Whether the view saw the move: one of its own events by its mover is shown."""
    mover = turn.get("agent")
    return any(e.get("actor") == mover and e.get("kind") != "observe" for e in during)


def _turn(turn: dict, during: list[dict], own: str | None) -> dict[str, Any]:
    """A move as the view may show it."""
    if own is not None and turn.get("agent") == own:
        return {k: v for k, v in turn.items()}
    if not _seen_move(turn, during):
        return {"round": turn.get("round"), "hidden": True}
    # what the view saw of the move is what its events say, not the policy's raw reply
    mover = turn.get("agent")
    said = [e.get("note") or e.get("kind") for e in during if e.get("actor") == mover]
    return {"round": turn.get("round"), "agent": mover, "action": "; ".join(map(str, said))}


def _frames(
    frames: list, shown: list[int], events: list, kept: list[dict], turns: list, own: str | None
) -> list[dict]:
    """Each frame with the view's event count, mover, scene and text picture."""
    out = []
    seen_text = ""
    for k, frame in enumerate(frames):
        count = bisect_left(shown, frame.get("events", 0))
        turn = kept[k - 1] if k > 0 else {}
        scene = frame.get("scene") or {}
        if own is not None and k > 0 and turns[k - 1].get("agent") == own:
            seen_text = turns[k - 1].get("observation") or seen_text
        text = seen_text if own is not None and seen_text else _common_text(events, shown, count)
        out.append(
            {
                "round": frame.get("round"),
                "actor": None if turn.get("hidden") else (turn.get("agent") if k else None),
                "hidden": bool(turn.get("hidden")),
                "events": count,
                "text": text,
                "scene": {key: v for key, v in scene.items() if key != "secret"},
            }
        )
    return out


#: How many of the latest events a view's text picture lists (the Events panel has them all).
_TEXT_EVENTS = 12


def _common_text(events: list, shown: list[int], count: int) -> str:
    """The text picture of a view with no observation of its own: its latest events."""
    lines = []
    for i in shown[:count][-_TEXT_EVENTS:]:
        e = events[i]
        if e.get("kind") == "observe":
            continue
        who = f" by {e['actor']}" if e.get("actor") else ""
        note = f": {e['note']}" if e.get("note") else ""
        lines.append(f"round {e.get('round')}: {e.get('kind')}{who}{note}")
    return "\n".join(lines) or "Nothing every seat saw yet."


def _question(probe: dict) -> dict[str, Any]:
    """A question as its seat saw it: no true answer, no evidence."""
    keep = ("id", "round", "level", "kind", "asked", "about", "question", "reply")
    return {k: probe[k] for k in keep if k in probe}
