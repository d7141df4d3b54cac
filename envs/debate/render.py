"""The debate's picture for ``render_mode="rgb_array"``: the page its ``replay.js`` draws."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mase import rendering
from mase.rendering import NOTE, RIGHT, WRONG, Style


def _text(value: Any) -> str:
    """An answer as the page shows it: ``-`` for none, text as it is, the rest as JSON."""
    if value is None:
        return "-"
    return value if isinstance(value, str) else json.dumps(value)


def draw(scene: Mapping[str, Any], canvas: rendering.Canvas) -> None:
    """The question and its truth, each agent's answer by round (right or wrong), the final."""
    rounds = scene["answers"]
    head = ["agent", *(f"round {r + 1}" for r in range(len(rounds)))]
    rows: list[list] = [head]
    for agent in scene["agents"]:
        row: list = [agent]
        for r, answers in enumerate(rounds):
            reply = scene["replies"][r][agent]
            if reply is None:
                row.append([("(not yet)", Style(12, NOTE))])
                continue
            right = scene.get("right", [{}] * len(rounds))[r].get(agent)
            colour = RIGHT if right else WRONG if right is not None else rendering.INK
            row.append([(_text(answers[agent]), Style(13, colour, bold=right is not None)),
                        ("\n\u25b8 reply", Style(12, NOTE))])  # fmt: skip
        rows.append(row)
    parts: list = [
        rendering.heading(
            f"Question {scene['id']} (round {scene['round'] + 1} of {scene['rounds']})"
        ),
        rendering.text(scene["question"], Style(12, mono=True), box=True),
    ]
    if "truth" in scene:
        parts.append(rendering.Para([("truth: ", rendering.PLAIN),
                                     (_text(scene["truth"]), Style(bold=True))]))  # fmt: skip
    parts.append(rendering.Table(rows, row_heads=True))
    parts += [
        rendering.note(f"\u25b8 summary of round {r + 1}") for r in range(len(scene["summaries"]))
    ]
    if scene["final"] is not None:
        right = scene.get("final_right")
        verdict = "" if right is None else " (right)" if right else " (wrong)"
        colour = rendering.INK if right is None else RIGHT if right else WRONG
        final = (scene["final"] + verdict, Style(colour=colour, bold=True))
        parts.append(rendering.Para([("final answer: ", rendering.PLAIN), final]))
    rendering.flow(canvas, parts, keep=len(parts))


#: The picture of ``render_mode="rgb_array"``: ``replay.js``'s, 768 x 576 pixels.
DRAWING = rendering.Drawing(768, 576, draw)
