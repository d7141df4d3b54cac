"""Replays: one recorded episode as a self-contained HTML page, to step through in a browser.

``mase eval --record`` keeps each episode's frames (:func:`mase.wrappers.recorder.frame`: the
world at the start and after every move, as the task's text picture and its
:meth:`~mase.task.TaskEnv.scene`), its events, messages with what they were read to claim,
belief scores and Theory-of-Mind probes with their true answers and evidence.
:func:`replay_html` turns one such record into a page that needs no server and no network: the
record is embedded as JSON, the viewer is plain JavaScript (``viewer.js``) and the task's
drawing is its own ``replay.js`` (``draw(scene, element, options)``, found beside the task's
module), so the shared part (slider, play button, the step's move, events, messages, beliefs
and probes, the text picture) is the same for every task.

Whose page it is (:mod:`mase.replay.views`): by default the page holds only what every seat
saw in common (public events, public moves, revealed results), so no seat's secret is in the
file at all; ``view="analyst"`` (``mase replay --analyst``) writes the whole record, and a seat's
name (``--seat NAME``) that seat's view. The page's header says which it is.

A page opened with ``#step=K`` shows step K; with ``#selftest`` it steps itself through and
writes what it found (console errors, whether the slider moved the drawing) into an element
``#selftest-result``: the browser test reads it from the page's DOM.
"""

from __future__ import annotations

import html
import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from mase.replay.views import ANALYST, COMMON, episode_seats, page_record, view_label
from mase.runner.store import read_records

__all__ = [
    "ANALYST",
    "COMMON",
    "REPLAY_FILES",
    "episode_records",
    "find_run",
    "inline_script",
    "replay_html",
    "task_drawing",
    "task_seats",
    "write_replay",
]

_HERE = resources.files(__name__)
#: The folder of the viewer's files (``viewer.html``, ``viewer.css``, ``viewer.js``, ``dom.js``).
REPLAY_FILES = _HERE


def task_drawing(env_id: str, env_kwargs: dict | None = None) -> str:
    """The JavaScript that draws ``env_id``'s scenes (its package's ``replay.js``), or ``""``."""
    from mase.registry import make

    env = make(env_id, **(env_kwargs or {}))
    try:
        module = type(env.unwrapped).__module__
    finally:
        env.close()
    package = module.rpartition(".")[0]
    if not package:  # a task defined in a script or a top-level module draws no scene
        return ""
    script = resources.files(package) / "replay.js"
    return script.read_text() if script.is_file() else ""


def task_seats(env_id: str, env_kwargs: dict | None = None) -> list[str]:
    """Every seat of ``env_id`` (its ``possible_agents``)."""
    from mase.registry import make

    env = make(env_id, **(env_kwargs or {}))
    try:
        return list(env.possible_agents)
    finally:
        env.close()


def find_run(path: str | os.PathLike) -> Path:
    """The evaluation directory at or under ``path`` (the one holding ``episodes.jsonl``).

    Raises:
        FileNotFoundError: no evaluation is there.
        ValueError: several are (a run of several teams): the message lists them.
    """
    root = Path(path)
    if (root / "episodes.jsonl").is_file():
        return root
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a directory")
    runs = sorted(p.parent for p in root.rglob("episodes.jsonl"))
    if not runs:
        raise FileNotFoundError(f"{root} holds no evaluation (no episodes.jsonl under it)")
    if len(runs) > 1:
        listed = "\n  ".join(str(p) for p in runs)
        raise ValueError(f"{root} holds {len(runs)} evaluations; replay one of them:\n  {listed}")
    return runs[0]


def episode_records(run: Path) -> list[dict]:
    """The finished episodes of the evaluation ``run``, by episode number."""
    records = [r for r in read_records(run / "episodes.jsonl") if not r.get("failed")]
    return sorted(records, key=lambda r: r["episode"])


def _slim(record: dict) -> dict:
    """The record without the model calls' prompts (the page shows each turn's reply)."""
    slim = dict(record)
    seats = record.get("seats")
    if isinstance(seats, dict):
        slim["seats"] = {
            seat: {k: v for k, v in data.items() if k != "calls"}
            if isinstance(data, dict)
            else data
            for seat, data in seats.items()
        }
    return slim


def _embedded(data: Any) -> str:
    """JSON that can sit inside a ``<script>`` element (no ``</`` or ``<!--`` in it)."""
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def inline_script(source: str) -> str:
    """``source`` as it can sit inside a ``<script>`` element."""
    return source.replace("</script", "<\\/script")


def replay_html(
    record: dict,
    config: dict,
    drawing: str = "",
    prompts: bool = False,
    view: str = COMMON,
    seats: list[str] | None = None,
) -> str:
    """The page of one episode's ``record`` from an evaluation set up as ``config``.

    Args:
        record: a line of ``episodes.jsonl`` recorded with ``--record`` (it has ``frames``).
        config: the evaluation's ``config.json`` (the task id and team, for the title).
        drawing: the task's ``replay.js`` (:func:`task_drawing`); without it the page shows
            the task's text picture alone.
        prompts: keep the model seats' calls (every prompt and reply) in the page, shown under
            each move; without it the page shows each move's reply only (a much smaller page).
            Every seat's calls in the analyst's view, the seat's own in a seat's, none in the
            common view.
        view: :data:`COMMON` (what every seat saw), :data:`ANALYST` (everything) or a seat.
        seats: every seat of the task (default: the seats the record names).

    Raises:
        ValueError: the record has no frames (the evaluation was not run with ``--record``),
            or ``view`` names no seat of the episode.
    """
    if not record.get("frames"):
        raise ValueError(
            f"episode {record.get('episode')} has no frames to replay: record the evaluation "
            "with `mase eval --record`"
        )
    env_id = str(config.get("env_id", "?"))
    team = str(config.get("team", "?"))
    kept = record if prompts else _slim(record)
    title = f"{env_id}: {team}, episode {record.get('episode')}"
    if view == ANALYST:  # the seed makes every hidden draw again: the analyst's alone
        title += f" (seed {record.get('seed')})"
    else:
        kept = page_record(kept, seats or episode_seats(record), view)
        config = {k: config[k] for k in ("env_id", "team") if k in config}
    page = {
        "title": title,
        "view": {"name": view, "label": view_label(view)},
        "config": config,
        "record": kept,
    }
    template = (_HERE / "viewer.html").read_text()
    return (
        template.replace("{{title}}", html.escape(title))
        .replace("{{style}}", (_HERE / "viewer.css").read_text())
        .replace("{{episode}}", _embedded(page))
        .replace("{{dom}}", inline_script((_HERE / "dom.js").read_text()))
        .replace("{{drawing}}", inline_script(drawing))
        .replace("{{viewer}}", inline_script((_HERE / "viewer.js").read_text()))
    )


def write_replay(
    run_dir: str | os.PathLike,
    episode: int | None = None,
    out: str | os.PathLike | None = None,
    prompts: bool = False,
    view: str = COMMON,
) -> Path:
    """Write the page of one recorded episode of the evaluation at (or under) ``run_dir``.

    Args:
        run_dir: an evaluation's output directory (``mase eval --record --out DIR``).
        episode: the episode number (default: the first recorded one).
        out: the HTML file (default: ``replay-<episode>.html`` in the evaluation's directory).
        prompts: keep the model calls' prompts and replies in the page (:func:`replay_html`).
        view: whose page: :data:`COMMON` (the default), :data:`ANALYST` or a seat's name.

    Returns:
        The path of the page written.

    Raises:
        FileNotFoundError: no evaluation is there.
        ValueError: several evaluations are there, the episode is not among the finished
            ones, or it was not recorded with ``--record``.
    """
    run = find_run(run_dir)
    records = episode_records(run)
    if not records:
        raise ValueError(f"{run} holds no finished episode")
    if episode is None:
        record = records[0]
    else:
        found = [r for r in records if r["episode"] == episode]
        if not found:
            have = ", ".join(str(r["episode"]) for r in records[:20])
            raise ValueError(f"{run} holds no finished episode {episode} (it holds: {have})")
        record = found[0]
    config_path = run / "config.json"
    config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    drawing, seats = "", None
    if config.get("env_id"):
        drawing = task_drawing(config["env_id"], config.get("env_kwargs"))
        seats = task_seats(config["env_id"], config.get("env_kwargs"))
    page = replay_html(record, config, drawing, prompts, view, seats)
    target = Path(out) if out is not None else run / f"replay-{record['episode']}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target
