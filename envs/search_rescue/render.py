"""Pictures of the search-and-rescue world: text for ``"ansi"``, replay.js's for ``"rgb_array"``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mase import rendering
from mase.envs.search_rescue.world import State
from mase.rendering import Style


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


# -- the replay page's picture for render_mode="rgb_array" (as replay.js draws it) --------------

#: The colours of the phases and the agents, as ``replay.js`` has them.
COLOURS = {
    "red": "#d62828",
    "green": "#2a9d3f",
    "blue": "#2563eb",
    "yellow": "#e9c400",
    "purple": "#8b3fd1",
    "orange": "#f07f13",
    "white": "#f4f4f4",
    "black": "#222",
}
AGENT_COLOURS = (
    "#264653",
    "#e76f51",
    "#8a5a00",
    "#6d597a",
    "#2a9d8f",
    "#9c6644",
    "#577590",
    "#b5179e",
)
#: The drawing's geometry (``replay.js``'s SVG): the ring's centre and radius, a room's radius.
LEFT, CX, CY, RING, ROOM = 4, 384, 300, 190, 70
STATUS_COLOURS = {"exploded": "#b3261e", "defused": "#17702b"}


def room_centres(rooms: Sequence[int]) -> dict[int, tuple[float, float]]:
    """Where each room is drawn: on a ring, the first at the top, clockwise."""
    centres = {}
    for i, room in enumerate(rooms):
        angle = -math.pi / 2 + 2 * math.pi * i / len(rooms)
        centres[room] = (CX + RING * math.cos(angle), CY + RING * math.sin(angle))
    return centres


def draw(scene: Mapping[str, Any], canvas: rendering.Canvas) -> None:
    """Rooms on a ring joined by their doors, the bombs' phases, the agents and their cutters."""
    where = room_centres(scene["rooms"])
    score = "" if "score" not in scene else f"score {scene['score']} / {scene['max_score']}   "
    turn = (f"{scene['to_act']} to act in round {scene['round']} of {scene['max_rounds']}"
            if scene["to_act"] else "the episode is over")  # fmt: skip
    canvas.text(LEFT + 10, 22, score + turn, Style(16, bold=True))
    for a, b in scene["edges"]:
        canvas.line(*where[a], *where[b], stroke="#9aa5b8", stroke_width=6)
    bombs = {b["room"]: b for b in scene.get("bombs", [])}
    for room, (x, y) in where.items():
        canvas.circle(x, y, ROOM, fill="#fdfdfd", stroke="#4a5568", stroke_width=2)
        canvas.text(x, y - ROOM + 18, f"Room {room}", Style(14, bold=True), "middle")
        if room in bombs:
            _bomb(canvas, bombs[room], x, y)
    count: dict[int, int] = {}
    for i, agent in enumerate(scene.get("agents", [])):
        x, y = where[agent["room"]]
        k = count[agent["room"]] = count.get(agent["room"], -1) + 1
        x, y = x - 36 + k * 36, y + 30
        acting = agent["name"] == scene["to_act"]
        canvas.circle(x, y, 13, AGENT_COLOURS[i % len(AGENT_COLOURS)],
                      "#f4a300" if acting else "#ffffff", 4 if acting else 2)  # fmt: skip
        canvas.text(x, y + 5, agent["name"][0].upper(), Style(13, "#ffffff", bold=True), "middle")
        for j, cutter in enumerate(agent["cutters"]):
            canvas.rect(x - 10 + j * 10, y + 16, 8, 8, COLOURS.get(cutter, "#999"), "#333")
    legend = " · ".join(f"{a['name']} ({', '.join(a['cutters'])}) in room {a['room']}"
                        for a in scene.get("agents", []))  # fmt: skip
    rendering.flow(canvas, [rendering.note(legend)], box=(LEFT + 10, 566, 740, 38))


def _bomb(canvas: rendering.Canvas, bomb: Mapping[str, Any], x: float, y: float) -> None:
    """A bomb's status over its phases: cut ones faded and crossed, all faded once exploded."""
    status = bomb["status"]
    colour = STATUS_COLOURS.get(status, "#333")
    canvas.text(x, y - 22, f"bomb {bomb['id']} {status}", Style(12, colour), "middle", 2 * ROOM - 8)
    size = 18
    x0 = x - len(bomb["sequence"]) * (size + 4) / 2
    for k, phase in enumerate(bomb["sequence"]):
        left = x0 + k * (size + 4)
        faded = k < bomb["cut"] or status == "exploded"
        canvas.rect(left, y - 14, size, size, COLOURS.get(phase, "#999"), "#333",
                    radius=3, opacity=0.3 if faded else 1.0)  # fmt: skip
        if k < bomb["cut"]:
            canvas.line(left, y - 14, left + size, y + 4, stroke="#111", stroke_width=2)


#: The picture of ``render_mode="rgb_array"``: ``replay.js``'s, 768 x 608 pixels.
DRAWING = rendering.Drawing(768, 608, draw)
