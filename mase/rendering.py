"""Pictures for ``render_mode="rgb_array"``: a task's scene as RGB pixels, for video recorders.

A task's replay page draws its :meth:`~mase.task.TaskEnv.scene` in the browser with the task's
``replay.js``; ``render_mode="rgb_array"`` draws the same scene as pixels, with the same layout,
colours and labels, so a video of an episode looks like its replay page stepped through. A task
says how in a :class:`Drawing` (the frame's size and a function that draws a scene on a
:class:`Canvas`), named by its ``drawing`` class attribute. The picture shows the whole scene,
the ``"secret"`` part included: the analyst's replay page with "show secrets" ticked. A task
without a drawing gets the text of its ``ansi`` render set on a page (:func:`text_frame`).

Every frame of a task has the same size, the one its drawing declares, because video recorders
need a constant frame size. Text is measured before it is drawn and never runs off the frame: a
label too long for its place is drawn smaller (:meth:`Canvas.text`), a paragraph wraps
(:class:`Para`), and a page that would overflow (:func:`flow`) is drawn smaller, down to
:data:`MIN_SCALE`, then loses its oldest parts, with a line saying how many went.

Drawn with matplotlib's Agg renderer directly (no figure, no display), in the ``plot`` extra,
imported only when a picture is asked for. The fullest frame of a scripted episode takes 5 to
45 ms of CPU time on a two-core machine, depending on the task (``benchmarks/rendering.py``).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mase.canvas import (
    BAR,
    HEAD,
    INK,
    NOTE,
    PLAIN,
    RIGHT,
    RULE,
    WRONG,
    Canvas,
    Style,
    measure,
    wrap,
)
from mase.page import MIN_SCALE, Block, Para, Table, flow, heading, inline, note, text

__all__ = [
    "AVAILABLE",
    "BAR",
    "FPS",
    "HEAD",
    "INK",
    "MIN_SCALE",
    "NOTE",
    "PLAIN",
    "RIGHT",
    "RULE",
    "TEXT_FRAME",
    "WRONG",
    "Block",
    "Canvas",
    "Drawing",
    "Para",
    "Style",
    "Table",
    "flow",
    "heading",
    "inline",
    "measure",
    "note",
    "resolve",
    "text",
    "text_frame",
    "wrap",
]

#: Whether pictures can be drawn here (matplotlib is installed).
AVAILABLE = importlib.util.find_spec("matplotlib") is not None
#: Frames a second of a video of a task's renders (``metadata["render_fps"]``): one frame a
#: turn, near the replay page's Play speed (a step each 0.7 s).
FPS = 2
#: The size of a task's frame when it declares no drawing (width, height in pixels).
TEXT_FRAME = (768, 576)


@dataclass(frozen=True)
class Drawing:
    """How a task draws its scene: the frame's size in pixels and the drawing function.

    ``draw(scene, canvas)`` gets the scene with its ``"secret"`` part merged in (the analyst's
    view) and a blank :class:`Canvas` of ``width`` x ``height``.
    """

    width: int
    height: int
    draw: Callable[[Mapping[str, Any], Canvas], None]

    def frame(self, scene: Mapping[str, Any]) -> np.ndarray:
        """``scene`` drawn: a ``(height, width, 3)`` uint8 array.

        Raises:
            ImportError: matplotlib is missing (the message names the extra to install).
        """
        whole = {k: v for k, v in scene.items() if k != "secret"}
        whole.update(scene.get("secret") or {})
        canvas = Canvas(self.width, self.height)
        self.draw(whole, canvas)
        return canvas.pixels()


def resolve(drawing: Drawing | str | None) -> Drawing | None:
    """A task's ``drawing`` attribute: a :class:`Drawing`, or ``"module:attribute"`` naming one."""
    if isinstance(drawing, str):
        module, _, name = drawing.partition(":")
        drawing = getattr(importlib.import_module(module), name)
    return drawing


def text_frame(words: str, size: tuple[int, int] = TEXT_FRAME) -> np.ndarray:
    """``words`` set in a monospaced font on a page of ``size``, made smaller to fit."""
    canvas = Canvas(*size)
    flow(canvas, [text(line, Style(13, mono=True), gap=0, line_height=1.25)
                  for line in words.splitlines() or [""]], keep=1, unit="line")  # fmt: skip
    return canvas.pixels()
