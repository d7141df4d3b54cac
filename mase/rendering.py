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

Drawn with matplotlib's Agg renderer directly (no figure, no display; one frame takes a few
tens of milliseconds), in the ``plot`` extra, imported only when a picture is asked for.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import math
import re
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

#: Whether pictures can be drawn here (matplotlib is installed).
AVAILABLE = importlib.util.find_spec("matplotlib") is not None

#: The replay page's colours (``mase/replay/viewer.css``), for drawings to share.
INK, NOTE, RIGHT, WRONG, RULE, HEAD, BAR = (
    "#1d1d1f",
    "#666666",
    "#17702b",
    "#b3261e",
    "#ccccdd",
    "#eeeeff",
    "#6a8cc7",
)
#: Frames a second of a video of a task's renders (``metadata["render_fps"]``): one frame a
#: turn, near the replay page's Play speed (a step each 0.7 s).
FPS = 2
#: The smallest a page is drawn (a fraction of its sizes) before its oldest parts are left out.
MIN_SCALE = 0.6
#: The size of a task's frame when it declares no drawing (width, height in pixels).
TEXT_FRAME = (768, 576)


@functools.cache
def _matplotlib() -> types.SimpleNamespace:
    """Matplotlib's Agg renderer and its helpers, imported on first use."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import ft2font
        from matplotlib.backends.backend_agg import RendererAgg, get_hinting_flag
        from matplotlib.colors import to_rgba
        from matplotlib.font_manager import FontProperties, findfont, get_font
        from matplotlib.patches import BoxStyle
        from matplotlib.path import Path
        from matplotlib.transforms import Affine2D
    except ImportError:
        raise ImportError(
            "render_mode='rgb_array' draws with matplotlib: pip install 'mase-suite[plot]'"
        ) from None
    flags = getattr(ft2font, "LoadFlags", None)  # matplotlib 3.10 made the flags an enum
    return types.SimpleNamespace(
        RendererAgg=RendererAgg,
        to_rgba=to_rgba,
        FontProperties=FontProperties,
        findfont=findfont,
        get_font=get_font,
        BoxStyle=BoxStyle,
        Path=Path,
        Affine2D=Affine2D,
        hinting=get_hinting_flag(),
        no_hinting=flags.NO_HINTING if flags is not None else ft2font.LOAD_NO_HINTING,
    )


class Style(NamedTuple):
    """How a run of text looks: size in pixels, colour, weight, and a monospaced face or not."""

    size: float = 14.0
    colour: str = INK
    bold: bool = False
    mono: bool = False

    def scaled(self, scale: float) -> Style:
        """This style ``scale`` times the size."""
        return self._replace(size=self.size * scale)


class _Face:
    """One font face: its glyph advances at size 100 (measuring text needs no layout pass)."""

    def __init__(self, bold: bool, mono: bool):
        mpl = _matplotlib()
        self._no_hinting, self._hinting = mpl.no_hinting, mpl.hinting
        family = "monospace" if mono else "sans-serif"
        self.props = mpl.FontProperties(family=family, weight="bold" if bold else "normal")
        self._font = mpl.get_font(mpl.findfont(self.props))
        self._advance: dict[str, float] = {"\n": 0.0}
        self._glyphs: dict[tuple[str, float], tuple[np.ndarray, float, float]] = {}

    def clean(self, text: str) -> str:
        """``text`` with what the face cannot draw replaced: tabs by spaces, the rest by ``?``.

        Line breaks stay (the callers break lines there).
        """
        text = text.replace("\t", "    ")
        if all(c in self._advance for c in text):
            return text
        return "".join(c if self._learn(c) else "?" for c in text)

    def _learn(self, char: str) -> bool:
        """Whether the face draws ``char``; its advance is noted when it does."""
        if char in self._advance:
            return True
        if not char.isprintable() or self._font.get_char_index(ord(char)) == 0:
            self._learn("?")
            return False
        self._font.set_size(100, 72)
        glyph = self._font.load_char(ord(char), flags=self._no_hinting)
        self._advance[char] = glyph.linearHoriAdvance / 65536
        return True

    def glyph(self, char: str, size: float) -> tuple[np.ndarray, float, float]:
        """A clean character at ``size``: its grey bitmap, left offset and descent (cached)."""
        key = (char, size)
        if key not in self._glyphs:
            if len(self._glyphs) > 20_000:
                self._glyphs.clear()
            font = self._font
            font.clear()
            font.set_size(size, 72)
            font.set_text(char, 0, flags=self._hinting)
            font.draw_glyphs_to_bitmap(antialiased=True)
            image = font.get_image().copy()
            self._glyphs[key] = image, font.get_bitmap_offset()[0] / 64, font.get_descent() / 64
        return self._glyphs[key]

    def advance(self, char: str) -> float:
        """How far a clean character moves the pen at size 100."""
        return self._advance[char]

    def width(self, text: str, size: float) -> float:
        """The width of clean ``text`` at ``size`` pixels (kerning aside: within a percent)."""
        advance = self._advance
        return sum(advance[c] for c in text) * size / 100


#: The body text of the replay page: 14 pixels, ink colour, regular weight.
PLAIN = Style()

_FACES: dict[tuple[bool, bool], _Face] = {}


def _face(style: Style) -> _Face:
    key = (style.bold, style.mono)
    if key not in _FACES:
        _FACES[key] = _Face(*key)
    return _FACES[key]


def measure(text: str, style: Style = PLAIN) -> float:
    """The width in pixels of one line of ``text`` drawn in ``style``."""
    face = _face(style)
    return face.width(face.clean(text), style.size) * 1.02  # a margin for kerning and hinting


def wrap(text: str, width: float, style: Style = PLAIN) -> list[str]:
    """``text`` broken into lines no wider than ``width``: at spaces, inside overlong words."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if measure(candidate, style) <= width or not candidate.strip():
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word
            while measure(line, style) > width and len(line) > 1:
                cut = max(1, int(len(line) * width / measure(line, style)))
                while cut > 1 and measure(line[:cut], style) > width:
                    cut -= 1
                lines.append(line[:cut])
                line = line[cut:]
        lines.append(line)
    return lines


class Canvas:
    """A frame of ``width`` x ``height`` pixels, drawn in pixels from the top left (as SVG).

    Colours are anything matplotlib reads (``"#d62828"``, ``"white"``); ``None`` draws no
    fill or no outline. Line widths are in pixels.
    """

    def __init__(self, width: int, height: int, background: str = "#ffffff"):
        mpl = _matplotlib()
        self._rgba, self._box, self._path, self._affine = (
            mpl.to_rgba,
            mpl.BoxStyle,
            mpl.Path,
            mpl.Affine2D,
        )
        self.width, self.height = int(width), int(height)
        self._renderer = mpl.RendererAgg(self.width, self.height, 72)  # 72 dpi: 1 pt is 1 px
        self._flip = mpl.Affine2D().scale(1, -1).translate(0, self.height)
        self.rect(0, 0, self.width, self.height, fill=background)

    def _shape(self, path, fill, stroke, stroke_width, opacity) -> None:
        gc = self._renderer.new_gc()
        if stroke is None:
            gc.set_linewidth(0)
        else:
            r, g, b, a = self._rgba(stroke)
            gc.set_foreground((r, g, b, a * opacity), isRGBA=True)
            gc.set_linewidth(stroke_width)
        face = None
        if fill is not None:
            r, g, b, a = self._rgba(fill)
            face = (r, g, b, a * opacity)
        self._renderer.draw_path(gc, path, self._flip, face)
        gc.restore()

    def rect(self, x, y, w, h, fill=None, stroke=None, stroke_width=1.0, radius=0.0, opacity=1.0):
        """A rectangle with its top left corner at ``(x, y)``; ``radius`` rounds the corners."""
        if radius > 0:
            path = self._box.Round(pad=0, rounding_size=radius)(x, y, w, h, 1.0)
        else:
            corner = self._affine().scale(w, h).translate(x, y)
            path = self._path.unit_rectangle().transformed(corner)
        self._shape(path, fill, stroke, stroke_width, opacity)

    def ellipse(self, cx, cy, rx, ry, fill=None, stroke=None, stroke_width=1.0, opacity=1.0):
        """An ellipse centred on ``(cx, cy)`` with radii ``rx`` and ``ry``."""
        path = self._path.unit_circle().transformed(self._affine().scale(rx, ry).translate(cx, cy))
        self._shape(path, fill, stroke, stroke_width, opacity)

    def circle(self, cx, cy, r, fill=None, stroke=None, stroke_width=1.0, opacity=1.0):
        """A circle centred on ``(cx, cy)`` with radius ``r``."""
        self.ellipse(cx, cy, r, r, fill, stroke, stroke_width, opacity)

    def line(self, x1, y1, x2, y2, stroke=INK, stroke_width=1.0):
        """A straight line from ``(x1, y1)`` to ``(x2, y2)``."""
        self._shape(self._path([(x1, y1), (x2, y2)]), None, stroke, stroke_width, 1.0)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        style: Style = PLAIN,
        anchor: str = "start",
        max_width: float | None = None,
    ) -> float:
        """One line of ``text`` on the baseline ``y``; returns the width it took.

        ``anchor`` is where ``x`` is: ``"start"``, ``"middle"`` or ``"end"`` of the line (as
        SVG's ``text-anchor``). Text wider than ``max_width`` (default: what the frame leaves)
        is drawn smaller to fit; below half its size, the end gives way to ``…``.
        """
        face = _face(style)
        text = face.clean(text.replace("\n", " "))
        room = {"start": self.width - x, "middle": 2 * min(x, self.width - x), "end": x}[anchor]
        room = min(room, max_width) if max_width is not None else room
        width = measure(text.rstrip(), style)
        if width > room > 0:
            style = style._replace(size=max(style.size * room / width, style.size / 2))
            while text and measure(text.rstrip(), style) > room:
                text = text[: max(0, len(text) - max(1, len(text) // 20))].rstrip() + "…"
                text = text if len(text) > 1 else ""
        width = face.width(text, style.size)  # where the next run starts: no margin
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        if text.strip():
            self._glyphs(face, text, left, y, style)
        return width

    def _glyphs(self, face: _Face, text: str, x: float, y: float, style: Style) -> None:
        """Each character's cached bitmap set at its place on the baseline ``y``.

        matplotlib's own ``draw_text`` lays out and renders every glyph anew on each call
        (some 10 µs a character in 3.11), which a page of dialogue cannot afford.
        """
        gc = self._renderer.new_gc()
        gc.set_foreground(self._rgba(style.colour), isRGBA=True)
        size = round(style.size * 4) / 4
        scale = size / 100
        draw_image = self._renderer._renderer.draw_text_image
        for char in text:
            if char != " ":
                image, dx, descent = face.glyph(char, size)
                if image.size:  # draw_text_image's y is the bitmap's bottom edge
                    draw_image(image, round(x + dx), round(y + descent) + 1, 0, gc)
            x += face.advance(char) * scale
        gc.restore()

    def pixels(self) -> np.ndarray:
        """The frame as a ``(height, width, 3)`` uint8 array."""
        return np.asarray(self._renderer.buffer_rgba())[:, :, :3].copy()


# -- pages: blocks of text laid out top to bottom, as the replay page's HTML --------------------


class Laid(NamedTuple):
    """A block laid out for one width: its height and how to draw it at ``(x, y)``."""

    height: float
    draw: Callable[[Canvas, float, float], None]


Spans = Sequence[tuple[str, Style]]


class Block:
    """A part of a page (:func:`flow`): it lays itself out for a width and a scale."""

    #: Space above the block (pixels at scale 1).
    gap: float = 6.0

    def layout(self, width: float, scale: float, max_height: float = math.inf) -> Laid:
        """The block at ``width`` and ``scale``; text blocks stop (with ``…``) at ``max_height``."""
        raise NotImplementedError


def _lines(spans: Spans, width: float, scale: float) -> list[list[tuple[str, Style]]]:
    """Rich text wrapped into lines of runs (``text``, ``style``) no wider than ``width``."""
    lines: list[list[tuple[str, Style]]] = [[]]
    used = 0.0
    for words, style in spans:
        style = style.scaled(scale)
        face = _face(style)
        per_pixel = style.size / 100 * 1.02  # measure()'s margin, without cleaning each word
        space = face.width(face.clean(" "), 100) * per_pixel
        for token in re.split(r"(\n| )", face.clean(words)):
            if token == "\n":
                lines.append([])
                used = 0.0
            elif token == " ":
                if lines[-1]:
                    lines[-1].append((" ", style))
                    used += space
            elif token:
                w = face.width(token, 100) * per_pixel
                if used and used + w > width:
                    lines.append([])
                    used = 0.0
                for n, piece in enumerate(wrap(token, width, style) if w > width else [token]):
                    if n:
                        lines.append([])
                    lines[-1].append((piece, style))
                    used = measure(piece, style) if n else used + w
    return [_merged(line) for line in lines]


def _merged(line: list[tuple[str, Style]]) -> list[tuple[str, Style]]:
    """A line's runs with neighbours of one style joined: one drawing call each."""
    out: list[tuple[str, Style]] = []
    for text, style in line:
        if out and out[-1][1] == style:
            out[-1] = (out[-1][0] + text, style)
        else:
            out.append((text, style))
    while out and not out[-1][0].rstrip():  # the space a line broke at is not drawn
        out.pop()
    if out:
        out[-1] = (out[-1][0].rstrip(), out[-1][1])
    return out


@dataclass
class Para(Block):
    """A paragraph of rich text (``(text, style)`` spans), wrapped to the page's width.

    ``indent`` moves it right and ``marker`` (a list's number or bullet) goes in the indent of
    its first line; ``bar`` draws a bar of that colour down its left side on a white ground (the
    replay page's messages); ``box`` a grey frame around it (its ``pre`` blocks).
    """

    spans: Spans
    indent: float = 0.0
    bar: str | None = None
    box: bool = False
    gap: float = 6.0
    line_height: float = 1.4
    marker: str = ""

    def layout(self, width: float, scale: float, max_height: float = math.inf) -> Laid:
        """The paragraph's lines at ``width`` (less its indent and padding) and ``scale``."""
        pad = (6.0 if self.box else 8.0 if self.bar else 0.0) * scale
        pad_y = (6.0 if self.box else 2.0 if self.bar else 0.0) * scale
        inner = max(width - self.indent * scale - 2 * pad, 20.0)
        lines = _lines(self.spans, inner, scale)
        heights = [max(s.size for _, s in line) * self.line_height if line else 14 * scale
                   for line in lines]  # fmt: skip
        while len(lines) > 1 and sum(heights) + 2 * pad_y > max_height:
            lines, heights = lines[:-1], heights[:-1]
            lines[-1] = [*lines[-1], (" …", lines[-1][-1][1] if lines[-1] else Style())]
        height = sum(heights) + 2 * pad_y

        def draw(canvas: Canvas, x: float, y: float) -> None:
            left = x + self.indent * scale
            if self.box:
                canvas.rect(left, y, width - self.indent * scale, height, "#ffffff", "#dddddd")
            if self.bar:
                canvas.rect(left, y, width - self.indent * scale, height, "#ffffff")
                canvas.rect(left, y, 3 * scale, height, self.bar)
            top = y + pad_y
            for k, (line, h) in enumerate(zip(lines, heights, strict=True)):
                at = left + pad
                for text, style in line:
                    baseline = top + h / 2 + style.size * 0.36
                    if self.marker and not k and at == left + pad:
                        marker = PLAIN._replace(size=style.size)
                        canvas.text(left - 6 * scale, baseline, self.marker, marker, "end")
                    at += canvas.text(at, baseline, text, style, max_width=inner + left + pad - at)
                top += h

        return Laid(height, draw)


def inline(words: str) -> str:
    """``words`` as HTML shows text outside ``pre``: each run of white space one space."""
    return " ".join(words.split())


def text(words: str, style: Style = PLAIN, **kwargs: Any) -> Para:
    """A paragraph of one style (``kwargs``: :class:`Para`'s)."""
    return Para([(words, style)], **kwargs)


def heading(words: str, size: float = 16.0) -> Para:
    """A bold heading, as the replay page's ``h3``."""
    return Para([(words, Style(size, bold=True))], gap=12.0)


def note(words: str) -> Para:
    """A grey note in small type (the replay page's ``.note``)."""
    return Para([(words, Style(12, NOTE))])


@dataclass
class Table(Block):
    """A table with ruled cells: rows of cells, each cell rich text (spans) or plain text.

    ``header`` rows and the first column when ``row_heads`` are shaded and bold, as the replay
    page's ``th``. Columns take the width their content needs, then share what is left.
    """

    rows: Sequence[Sequence[Spans | str]]
    header: int = 1
    row_heads: bool = False
    size: float = 13.0
    gap: float = 8.0
    full_width: bool = False

    def _cell(self, cell: Spans | str, r: int, c: int) -> Spans:
        head = r < self.header or (self.row_heads and c == 0)
        if isinstance(cell, str):
            return [(cell, Style(self.size, bold=head))]
        return cell

    def layout(self, width: float, scale: float, max_height: float = math.inf) -> Laid:
        """Column widths from the content, then each row as tall as its tallest cell."""
        pad = 6.0 * scale
        cells = [
            [self._cell(x, r, c) for c, x in enumerate(row)] for r, row in enumerate(self.rows)
        ]
        n = max(len(row) for row in cells)
        natural = [0.0] * n
        for row in cells:
            for c, spans in enumerate(row):
                longest = max(
                    (measure(line, s.scaled(scale)) for t, s in spans for line in t.split("\n")),
                    default=0.0,
                )
                natural[c] = max(natural[c], longest + 2 * pad + 1)
        widths = _share(natural, width, self.full_width)
        laid = [
            [Para(spans, gap=0).layout(widths[c] - 2 * pad, scale) for c, spans in enumerate(row)]
            for row in cells
        ]
        heights = [max(p.height for p in row) + 6 * scale for row in laid]
        shown, said = list(range(len(laid))), None
        while sum(heights[r] for r in shown) + (said.height if said else 0) > max_height:
            if len(shown) <= self.header + 1:
                break
            dropped = shown.pop(self.header) - self.header + 1
            said = note(f"… {dropped} earlier row{'s' * (dropped > 1)} not shown").layout(
                width, scale
            )
        height = sum(heights[r] for r in shown) + (said.height if said else 0)

        def draw(canvas: Canvas, x: float, y: float) -> None:
            top = y
            if said:
                said.draw(canvas, x, top)
                top += said.height
            for r in shown:
                left = x
                for c, cell in enumerate(laid[r]):
                    head = r < self.header or (self.row_heads and c == 0)
                    canvas.rect(left, top, widths[c], heights[r], HEAD if head else "#fff", RULE)
                    cell.draw(canvas, left + pad, top + 3 * scale)
                    left += widths[c]
                top += heights[r]

        return Laid(height, draw)


def _share(natural: list[float], width: float, fill: bool) -> list[float]:
    """Column widths: natural ones when they fit, else narrow columns kept, wide ones shrunk."""
    if sum(natural) <= width and not fill:
        return natural
    if sum(natural) <= width:
        extra = (width - sum(natural)) / len(natural)
        return [w + extra for w in natural]
    fair = width / len(natural)
    narrow = [w for w in natural if w <= fair]
    left = width - sum(narrow)
    wide = sum(w for w in natural if w > fair)
    return [w if w <= fair else w * left / wide for w in natural]


Group = Block | Sequence[Block]


def flow(
    canvas: Canvas,
    parts: Sequence[Group],
    keep: int = 1,
    box: tuple[float, float, float, float] | None = None,
    unit: str = "part",
) -> None:
    """Draw ``parts`` top to bottom in ``box`` (default: the frame less a margin of 10 pixels).

    ``box`` is ``(x, y, width, height)``; nothing is drawn outside it. A part is a block or a
    group of blocks that stay together. When the page is too tall it is drawn smaller, down to
    :data:`MIN_SCALE`; then the oldest parts after the first ``keep`` give way, a note says how
    many (``"… 2 earlier {unit}s not shown"``), and the rest is drawn as large as it fits. A
    last part still too tall ends with ``…``.
    """
    x, top, width, room = box or (10.0, 10.0, canvas.width - 20.0, canvas.height - 20.0)
    groups = [list(p) if isinstance(p, Sequence) else [p] for p in parts]
    scale, laid = _fit(groups, width, room)
    dropped = 0
    while _height(laid) > room and len(groups) - dropped > keep + 1:
        dropped += 1
        said = note(f"… {dropped} earlier {unit}{'s' * (dropped > 1)} not shown")
        fewer = [*groups[:keep], [said], *groups[keep + dropped :]]
        laid = [[(b.gap * scale, b.layout(width, scale)) for b in g] for g in fewer]
    if dropped:
        groups = fewer
        scale, laid = _fit(groups, width, room)
    y, bottom = top, top + room
    for group, pieces in zip(groups, laid, strict=True):
        for block, (gap, piece) in zip(group, pieces, strict=True):
            y += gap if y > top else 0.0
            if y + piece.height > bottom:
                piece = block.layout(width, scale, bottom - y)
                if y + piece.height > bottom:
                    return
            piece.draw(canvas, x, y)
            y += piece.height


def _fit(groups: list[list[Block]], width: float, room: float) -> tuple[float, list]:
    """The largest scale (down to :data:`MIN_SCALE`) at which ``groups`` fit, laid out at it."""
    scale = 1.0
    while True:
        laid = [[(b.gap * scale, b.layout(width, scale)) for b in g] for g in groups]
        total = _height(laid)
        if total <= room or scale <= MIN_SCALE + 1e-9:
            return scale, laid
        # wrapped text's height goes with the square of the scale: aim there, then step down
        aim = scale * math.sqrt(room / total) * 1.02
        scale = max(MIN_SCALE, min(aim, scale * 0.95))


def _height(laid: Sequence[Sequence[tuple[float, Laid]]]) -> float:
    """The height of laid-out groups, with the gaps between blocks (none above the first)."""
    gaps = [gap for g in laid for gap, _ in g]
    return sum(piece.height for g in laid for _, piece in g) + sum(gaps[1:])


# -- a task's drawing -----------------------------------------------------------------------------


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
