"""AgentVerse's picture for ``render_mode="rgb_array"``: the page its ``replay.js`` draws."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mase import rendering
from mase.rendering import BAR, RIGHT, WRONG, Style

BOLD = Style(bold=True)
#: How a review and an evaluation read, by whether they accepted (the page's right and wrong).
REVIEWS = {True: ("agrees", Style(colour=RIGHT, bold=True)),
           False: ("objects", Style(colour=WRONG, bold=True))}  # fmt: skip
#: The latest actions an iteration's list shows (the page lists all; a frame has no scrollbar).
SHOWN_ACTIONS = 9
VERDICTS = {True: ("accepted", REVIEWS[True][1]), False: ("not accepted", REVIEWS[False][1])}


def draw(scene: Mapping[str, Any], canvas: rendering.Canvas) -> None:
    """The problem, then each iteration's stages as far as they went; older ones give way."""
    stage = f"; stage: {scene['phase']}" if scene["phase"] else "; finished"
    parts: list = [rendering.heading(f"{scene['problem']} ({scene['structure']}){stage}")]
    if scene.get("prompt"):
        parts.append(rendering.text("\u25b8 the problem", Style(14)))
    iterations = [_iteration(it, k) for k, it in enumerate(scene["iterations"])]
    if scene.get("inner"):  # the inner task's picture stays with the latest iteration
        inner = [rendering.heading("The task being solved"),
                 rendering.text(scene["inner"], Style(12, mono=True), box=True)]  # fmt: skip
        iterations = [*iterations[:-1], [*(iterations[-1] if iterations else []), *inner]]
    rendering.flow(canvas, [*parts, *iterations], keep=len(parts), unit="iteration")


def _iteration(it: Mapping[str, Any], k: int) -> list:
    """One iteration: the experts recruited, proposals, reviews, actions, decision, verdict."""
    blocks: list = [rendering.heading(f"Iteration {k + 1}")]
    roles = it.get("roles") or {}
    if roles:
        blocks.append(rendering.Table([[seat, role] for seat, role in roles.items()], header=0,
                                      row_heads=True))  # fmt: skip
    for p in it.get("proposals", []):
        blocks.append(
            _message([(f"{p['seat']}: ", BOLD), (rendering.inline(p["text"]), rendering.PLAIN)])
        )
    for r, review in enumerate(it.get("reviews", [])):
        for seat, v in review.items():
            verdict = REVIEWS[bool(v["accepted"])]
            blocks.append(_message([(f"{seat} (review {r + 1}, ", BOLD), verdict, ("): ", BOLD),
                                    (rendering.inline(v["text"]), rendering.PLAIN)]))  # fmt: skip
    executed = it.get("executed", [])
    if len(executed) > SHOWN_ACTIONS:
        blocks.append(rendering.note(f"… {len(executed) - SHOWN_ACTIONS} earlier actions"))
    for n, e in list(enumerate(executed))[-SHOWN_ACTIONS:]:
        line = f"{e['seat']} for {e['agent']}: {e['action']}" + ("" if e["valid"] else " (invalid)")
        style = rendering.PLAIN if e["valid"] else Style(colour=WRONG)
        blocks.append(rendering.Para([(line, style)], indent=40, gap=2, marker=f"{n + 1}."))
    if it.get("decision") is not None:
        blocks.append(
            rendering.Para(
                [("decision: ", BOLD), (rendering.inline(it["decision"]), rendering.PLAIN)], gap=10
            )
        )
    if it.get("score") is not None:
        verdict = VERDICTS[bool(it["accepted"])]
        feedback = f" \u2014 {rendering.inline(it['feedback'])}" if it.get("feedback") else ""
        blocks.append(rendering.Para([(f"score {it['score']:.2f}: ", rendering.PLAIN), verdict,
                                      (feedback, rendering.PLAIN)], gap=10))  # fmt: skip
    return blocks


def _message(spans: list) -> rendering.Para:
    """A message as the replay page shows one: a blue bar down its left on a white ground."""
    return rendering.Para(spans, bar=BAR, gap=4)


#: The picture of ``render_mode="rgb_array"``: ``replay.js``'s page, 768 x 768 pixels.
DRAWING = rendering.Drawing(768, 768, draw)
