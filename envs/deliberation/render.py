"""The deliberation tasks' picture for ``render_mode="rgb_array"``: their ``replay.js`` page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mase import rendering
from mase.rendering import RIGHT, WRONG, Style


def draw(scene: Mapping[str, Any], canvas: rendering.Canvas) -> None:
    """The proposal on the table, the optimum, the decision's score, and the dialogue so far."""
    rows: list[list] = [["on the table", scene["proposal"] or "no proposal yet"]]
    if "optimum" in scene:
        rows.append(["optimum", f"{scene['optimum_decision']} ({scene['optimum']:.2f})"])
    if scene["ended_by"]:
        nr = scene.get("nr")
        score = "NR -" if nr is None else f"NR {nr:.1f}"
        colour = RIGHT if nr is not None and nr >= 99.95 else WRONG
        cell = [(score, Style(13, colour, bold=True)), (f" ({scene['ended_by']})", Style(13))]
        rows.append(["decision", cell if "optimum" in scene else scene["ended_by"]])
    title = f"{scene['task']} {scene['game']}, round {scene['round']} of {scene['round_limit']}"
    parts: list = [
        [
            rendering.heading(title),
            rendering.Table(rows, header=0, row_heads=True, full_width=True),
        ],
        rendering.heading("Dialogue"),
    ]
    for k, said in enumerate(scene["dialogue"]):
        who = (f"[{said['round']}] {said['who']}: ", Style(bold=True))
        spans = [who, (rendering.inline(said["said"]), rendering.PLAIN)]
        parts.append(rendering.Para(spans, indent=40, gap=2, marker=f"{k + 1}."))
    if not scene["dialogue"]:
        parts.append(rendering.note("nothing said yet"))
    rendering.flow(canvas, parts, keep=2, unit="message")


#: The picture of ``render_mode="rgb_array"``: ``replay.js``'s, 768 x 640 pixels.
DRAWING = rendering.Drawing(768, 640, draw)
