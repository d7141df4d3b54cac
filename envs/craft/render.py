"""Pictures of the crafting world: text for ``"ansi"``, replay.js's page for ``"rgb_array"``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mase import rendering
from mase.envs.craft.names import count_text, plural, singular
from mase.envs.craft.world import State
from mase.rendering import NOTE, RIGHT, Style


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


# -- the replay page's picture for render_mode="rgb_array" (as replay.js draws it) --------------

#: The bullets of a nested list by depth, as the browser draws them.
BULLETS = ("\u2022", "\u25e6", "\u25aa")


def draw(scene: Mapping[str, Any], canvas: rendering.Canvas) -> None:
    """Who is where holding what, the goal's recipe tree with what the team holds, the map."""
    held: dict[str, int] = {}
    for agent in scene.get("agents", []):
        for item, n in agent["inventory"].items():
            held[item] = held.get(item, 0) + n
    made = f" (made in round {scene['made_in']})" if scene.get("made_in") else ""
    acting = f"; {scene['to_act']} to act" if scene["to_act"] else ""
    title = f"Goal: {scene['goal']}{made}; round {scene['round']} of {scene['max_rounds']}{acting}"
    rows: list[list] = [["agent", "place", "inventory"]]
    for agent in scene.get("agents", []):
        inv = ", ".join(f"{k} \u00d7{n}" for k, n in agent["inventory"].items()) or "(nothing)"
        name = agent["name"] + (" \u25b6" if agent["name"] == scene["to_act"] else "")
        rows.append([name, agent["place"], inv])
    parts: list = [rendering.heading(title)]
    if len(rows) > 1:
        parts.append(rendering.Table(rows, row_heads=True))
    parts.append(rendering.heading("Recipe tree"))
    parts += _tree(scene, held, scene["goal"], 0)
    transfers = scene.get("transfers", [])
    if transfers:
        r, giver, taker, item, n = transfers[-1][:5]
        parts.append(rendering.note(f"{len(transfers)} hand-overs; the last: round {r}, "
                                    f"{giver} gave {n} {item} to {taker}"))  # fmt: skip
    paths = ", ".join(f"{a}\u2013{b}" for a, b in scene["paths"])
    parts.append(rendering.note(f"places: {', '.join(scene['places'])}; paths: {paths}"))
    rendering.flow(canvas, parts, keep=len(parts))


def _tree(scene: Mapping[str, Any], held: dict, item: str, depth: int) -> list:
    """The recipe of ``item`` and, indented under it, those of its inputs and tool."""
    recipe = scene["recipes"].get(item, {})
    if recipe.get("inputs"):
        how = f"craft {recipe['count']} from " + " + ".join(f"{n} {i}" for i, n in recipe["inputs"])
        if recipe.get("station"):
            at = f" ({recipe['at']})" if recipe.get("at") else ""
            how += f" at the {recipe['station']}{at}"
    else:
        how = "gather" + (f" at {recipe['gather']}" if recipe.get("gather") else "")
        how += f" with a {recipe['tool']}" if recipe.get("tool") else ""
    have = held.get(item, 0)
    name = (
        item + (f" (held: {have})" if have else ""),
        Style(colour=RIGHT if have else rendering.INK, bold=bool(have)),
    )
    line = rendering.Para([name, (f" \u2014 {how}", Style(12, NOTE))], indent=40 + 40 * depth,
                          gap=2, marker=BULLETS[min(depth, 2)])  # fmt: skip
    children = [i for i, _ in recipe.get("inputs") or []] + (
        [recipe["tool"]] if recipe.get("tool") else []
    )
    out = [line]
    if depth < 8:
        for child in children:
            out += _tree(scene, held, child, depth + 1)
    return out


#: The picture of ``render_mode="rgb_array"``: ``replay.js``'s page, 768 x 576 pixels.
DRAWING = rendering.Drawing(768, 576, draw)
