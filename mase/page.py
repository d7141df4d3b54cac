"""Pages of text for pictures: paragraphs, tables and notes laid out top to bottom in a box.

What the replay page's HTML shows (headings, messages with a bar, ``pre`` blocks, ruled
tables, grey notes) as :class:`Block` objects that lay themselves out for a width and a scale;
:func:`flow` fits a page in a fixed box: smaller first, then without its oldest parts, so
nothing runs off a fixed-size frame.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from mase.canvas import HEAD, NOTE, PLAIN, RULE, Canvas, Style, face_of, measure, wrap

#: The smallest a page is drawn (a fraction of its sizes) before its oldest parts are left out.
MIN_SCALE = 0.7


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
        face = face_of(style)
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
