"""A text picture of the search-and-rescue world for ``render_mode="ansi"``."""

from __future__ import annotations

from mase.envs.search_rescue.world import State


def ansi(state: State, max_rounds: int, turn: str | None) -> str:
    """Rooms with their doors, agents and bombs, then the cutters, as a plain-text table.

    Example row: ``room 5 | doors 0, 6    | alpha bravo | bomb 3: red>[green]>blue  1/3 cut``;
    the phase in brackets is the next to cut.
    """
    layout = state.layout
    header = (
        f"Round {state.round}/{max_rounds}   "
        f"Score {state.score}/{layout.max_score}   "
        f"Turn: {turn or 'episode over'}"
    )
    rows = []
    for room in layout.rooms:
        doors = ", ".join(str(r) for r in sorted(layout.neighbours[room]))
        agents = " ".join(state.agents_in(room)) or "-"
        bomb = state.bomb_in(room)
        if bomb is None:
            contents = "no bomb"
        else:
            seq = ">".join(
                f"[{c}]" if i == bomb.cut and bomb.live else c for i, c in enumerate(bomb.sequence)
            )
            contents = f"bomb {bomb.id}: {seq}  {bomb.cut}/{len(bomb.sequence)} cut, {bomb.status}"
        rows.append((f"room {room}", f"doors {doors}", agents, contents))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(" | ".join(r[i].ljust(widths[i]) for i in range(3)) + " | " + r[3])
    tools = "   ".join(f"{a}: {'+'.join(layout.cutters[a])}" for a in layout.agents)
    lines.append("Cutters  " + tools)
    return "\n".join(lines)
