"""Avalon's picture for ``render_mode="rgb_array"``: the table as its ``replay.js`` draws it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from mase import rendering
from mase.rendering import Style

#: ``replay.js``'s SVG geometry: the table's centre, the seats' ring, the frame's left margin.
LEFT, CX, CY, RING = 4, 384, 250, 170
RESULT_COLOURS = {"success": "#1f5fbf", "fail": "#b3261e"}
SIDE_COLOURS = {"evil": "#fbe3e1", "good": "#e1ecfb"}
TEAM_FRAME = "#f4a300"
KEY = (
    "\u265b leader, \u2740 Lady of the Lake, gold frame: the team on the table; last vote: the "
    "last vote revealed (a vote in progress stays secret until all are cast)"
)


def draw(scene: Mapping[str, Any], canvas: rendering.Canvas) -> None:
    """The quest track on the table, the seats around it with roles and votes, the proposals."""
    canvas.text(LEFT + 10, 22, f"Round {scene['round']}, quest {min(scene['quest'], 4) + 1}, "
                f"phase {scene['phase']}, rejections in a row: {scene['rejections']}",
                Style(16, bold=True))  # fmt: skip
    canvas.ellipse(CX, CY, 130, 95, "#6b4f2a", "#3e2c14", 4)
    for q, size in enumerate(scene["team_sizes"]):
        x = CX - 100 + q * 50
        result = scene["results"][q] if q < len(scene["results"]) else None
        fill = RESULT_COLOURS.get(result, "#f4e4bc" if q == scene["quest"] else "#d9c7a0")
        canvas.circle(x, CY, 20, fill, "#3e2c14", 2)
        ink = "#ffffff" if result else "#3e2c14"
        canvas.text(x, CY + 5, str(size), Style(14, ink, bold=True), "middle")
    team = set(scene["team"])
    for i, seat in enumerate(scene["seats"]):
        angle = -math.pi / 2 + 2 * math.pi * i / len(scene["seats"])
        x, y = CX + RING * 1.3 * math.cos(angle), CY + RING * math.sin(angle)
        side = scene["sides"][i] if "sides" in scene else None
        on = i in team
        canvas.rect(x - 98, y - 26, 196, 52, SIDE_COLOURS.get(side, "#ffffff"),
                    TEAM_FRAME if on else "#555555", 4 if on else 1.5, radius=10)  # fmt: skip
        marks = (" \u265b" if i == scene["leader"] else "") + (
            " \u2740" if i == scene["lady"] else ""
        )
        canvas.text(x, y - 6, seat + marks, Style(14, bold=True), "middle", 188)
        vote = scene["votes"].get(seat)
        role = scene["roles"][i] if "roles" in scene else ""
        line = role + (", " if role and vote else "") + (f"last vote: {vote}" if vote else "")
        ink = rendering.WRONG if vote == "reject" else "#333333"
        canvas.text(x, y + 14, line, Style(12, ink), "middle", 188)
    if scene["winner"]:
        target = f"; the Assassin named {scene['target']}" if scene["target"] else ""
        canvas.text(CX, 488, f"{scene['winner']} wins ({scene['ended_by']}){target}",
                    Style(18, RESULT_COLOURS["success" if scene["winner"] == "good" else "fail"],
                          bold=True), "middle")  # fmt: skip
    parts: list = [rendering.note(KEY)]
    if scene["proposals"]:
        verdicts = {True: "approved", False: "rejected", None: "voting"}
        rows = [["quest", "leader", "team", "vote"]] + [
            [str(p["quest"] + 1), p["leader"], ", ".join(p["team"]), verdicts[p["approved"]]]
            for p in scene["proposals"]
        ]
        parts.append(rendering.Table(rows))
    rendering.flow(canvas, parts, keep=1, box=(LEFT + 10, 506, 740, 256))


#: The picture of ``render_mode="rgb_array"``: ``replay.js``'s, 768 x 768 pixels.
DRAWING = rendering.Drawing(768, 768, draw)
