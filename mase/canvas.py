"""A frame to draw on in pixels: shapes and measured text, drawn by matplotlib's Agg renderer.

The drawing primitives of :mod:`mase.rendering` (``render_mode="rgb_array"``). Coordinates are
pixels from the top left, as in SVG, so a task's picture can follow its ``replay.js``. Text is
measured from the font's glyph advances before it is drawn, so a label can be fitted to its
place; a line is set from cached glyph bitmaps: matplotlib's own ``draw_text`` lays out and
renders every glyph anew on each call (8.2 ms of CPU for a line of 93 characters with
matplotlib 3.11, against 0.6 ms from the cache). matplotlib (the ``plot`` extra) is imported on
the first canvas.
"""

from __future__ import annotations

import functools
import types
from typing import NamedTuple

import numpy as np

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


class Face:
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

_FACES: dict[tuple[bool, bool], Face] = {}


def face_of(style: Style) -> Face:
    """The font face of ``style`` (its weight and family), loaded once."""
    key = (style.bold, style.mono)
    if key not in _FACES:
        _FACES[key] = Face(*key)
    return _FACES[key]


def measure(text: str, style: Style = PLAIN) -> float:
    """The width in pixels of one line of ``text`` drawn in ``style``."""
    face = face_of(style)
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
        face = face_of(style)
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

    def _glyphs(self, face: Face, text: str, x: float, y: float, style: Style) -> None:
        """Each character's cached bitmap set at its place on the baseline ``y``.

        matplotlib's own ``draw_text`` lays out and renders every glyph anew on each call, which
        a page of dialogue cannot afford (the module's docstring has the figures).
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
