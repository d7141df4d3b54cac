"""A person's seat page: the seat's frame of the web table, the task's own drawing in it.

The page holds no state of the game: it has the task's name, the seat's name and the drawing
code, and gets everything else from the websocket (:mod:`mase.web.app`). The drawing is the
task's ``replay.js`` and the DOM helper is the replay viewer's ``dom.js``
(:func:`mase.replay.task_drawing`), so a task draws its scene the same way in a replay and at
the table.
"""

from __future__ import annotations

import html
from functools import lru_cache
from importlib import resources
from typing import Any

from mase.replay import REPLAY_FILES, inline_script, task_drawing

_HERE = resources.files(__package__)


@lru_cache(maxsize=32)
def _drawing(env_id: str, kwargs: tuple) -> str:
    return task_drawing(env_id, dict(kwargs))


def seat_page(
    env_id: str, seat: str, env_kwargs: dict[str, Any] | None = None, title: str = "MASE"
) -> str:
    """The HTML of ``seat``'s page at a table of ``env_id``."""
    kwargs = tuple(sorted((env_kwargs or {}).items(), key=lambda kv: kv[0]))
    try:
        drawing = _drawing(env_id, kwargs)
    except TypeError:  # task arguments that cannot be cached
        drawing = task_drawing(env_id, dict(env_kwargs or {}))
    style = (REPLAY_FILES / "viewer.css").read_text() + (_HERE / "seat.css").read_text()
    name = html.escape(f"{title}: {env_id}, seat {seat}")
    return (
        (_HERE / "seat.html").read_text()
        .replace("{{title}}", name)
        .replace("{{style}}", style)
        .replace("{{dom}}", inline_script((REPLAY_FILES / "dom.js").read_text()))
        .replace("{{drawing}}", inline_script(drawing))
        .replace("{{seat}}", inline_script((_HERE / "seat.js").read_text()))
    )  # fmt: skip
