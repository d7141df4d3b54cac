"""A text picture of the crafting world for ``render_mode="ansi"``."""

from __future__ import annotations

from mase.envs.craft.names import count_text, plural, singular
from mase.envs.craft.world import State


def board(state: State, max_rounds: int, turn: str | None) -> str:
    """A plain-text table of places (paths, what is there, who is there) and inventories."""
    layout = state.layout
    header = f"Round {state.round}/{max_rounds}   Goal: {singular(layout.goal)}   "
    header += f"Turn: {turn or 'game over'}"
    rows = []
    for place in layout.places:
        things = [plural(r) for r in layout.resources_at(place)] + list(layout.stations_at(place))
        rows.append(
            (
                place,
                "to " + ", ".join([p for p in layout.places if p in layout.neighbours[place]]),
                ", ".join(things) or "-",
                " ".join(state.agents_at(place)) or "-",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(" | ".join(r[i].ljust(widths[i]) for i in range(3)) + " | " + r[3])
    for agent in layout.agents:
        inv = state.inventories[agent]
        held = ", ".join(count_text(i, inv[i]) for i in layout.book.items if inv[i]) or "nothing"
        lines.append(f"{agent}: {held}")
    return "\n".join(lines)
