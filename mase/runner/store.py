"""An evaluation's output directory: ``config.json``, ``episodes.jsonl``, ``summary.json``.

Episodes are appended one JSON line each as they finish (flushed and synced), so an
interrupted evaluation loses nothing finished; a torn last line is dropped when read back.
Resuming checks that the set-up is the same and keeps the finished episodes; failed ones are
played again. ``config.json`` also says what the run was (:mod:`mase.provenance`, under
``"provenance"``): that is not part of the set-up, so a run resumes under another version or
commit, and each session that resumed it adds its own under ``"resumed"``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def read_records(path: Path) -> list[dict]:
    """Records of a JSONL file, one per line.

    Blank lines are skipped; a line that is not a record (a torn last line from an interrupted
    write, or a damaged one) is dropped, and every other line is still read, so only the
    episodes on such lines are played again.
    """
    records = []
    if not path.exists():
        return records
    for line in path.read_text(errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("episode"), int):
            records.append(record)
    return records


def _replace(path: Path, text: Iterable[str]) -> None:
    """Write ``text`` to a fresh file beside ``path``, then move it onto ``path`` atomically.

    Each writer has a file of its own (two processes resuming one run each write whole files,
    and the last move wins), so an interruption leaves the old file or the new.
    """
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.writelines(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON atomically: an interruption leaves the old file or the new."""
    _replace(path, [json.dumps(data, indent=2)])


def write_records(path: Path, records: list[dict]) -> None:
    """Replace ``path`` by ``records`` atomically: an interruption leaves the old or the new."""
    _replace(path, (json.dumps(r) + "\n" for r in records))


#: Keys of ``config.json`` that are not the set-up a resumed run must match.
_NOT_SETUP = ("episodes", "provenance", "resumed")


class RunStore:
    """The records of one evaluation in ``out`` (or in memory when ``out`` is ``None``).

    Args:
        out: the output directory (created), or ``None`` to write nothing.
        config: the evaluation's set-up, written to ``config.json`` with ``episodes``.
        episodes: how many episodes the evaluation has in all.
        resume: continue the evaluation ``out`` holds; without it an ``out`` that already
            holds episodes is an error, so nothing is overwritten by accident.

    Raises:
        FileExistsError: ``out`` holds episodes and ``resume`` is false.
        ValueError: ``out`` holds an evaluation with a different set-up.
    """

    def __init__(
        self,
        out: str | os.PathLike | None,
        config: dict[str, Any],
        episodes: int,
        resume: bool = False,
    ):
        self.out = Path(out) if out is not None else None
        self.records: list[dict] = []
        self.path: Path | None = None
        #: ``{"provenance": first session's, "resumed": [each later session's]}`` (no
        #: ``"resumed"`` before a session resumes it): what ``config.json`` says the run was.
        self.provenance: dict[str, Any] = {}
        self._config = {**config, "episodes": episodes}
        self._earlier: dict[str, Any] | None = None  # the provenance of the finished episodes
        if self.out is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        self.path = self.out / "episodes.jsonl"
        existing = read_records(self.path)
        if existing and not resume:
            raise FileExistsError(
                f"{self.path} already holds {len(existing)} episodes; pass resume=True "
                "(--resume) to continue it, or choose another output directory"
            )
        config_path = self.out / "config.json"
        previous: Any = None
        if existing and config_path.exists():
            try:
                previous = json.loads(config_path.read_text())
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise ValueError(
                    f"{config_path} is unreadable, so the set-up of the {len(existing)} "
                    "episodes there cannot be checked; they are kept: delete config.json to "
                    "resume them with these arguments, or choose another output directory"
                ) from None
            setup = (
                {k: v for k, v in previous.items() if k not in _NOT_SETUP}
                if isinstance(previous, dict)
                else previous
            )
            if not isinstance(previous, dict) or setup != config:
                raise ValueError(
                    f"{self.out} holds an evaluation with a different set-up ({setup}); "
                    "resume it with the same arguments or choose another output directory"
                )
        finished = [r for r in existing if not r.get("failed")]  # failed ones are retried
        if len({r["episode"] for r in finished}) > episodes:
            raise ValueError(
                f"{self.out} holds {len(finished)} finished episodes, more than the {episodes} "
                f"asked for: ask for {len(finished)} or more, or choose another output directory"
            )
        self.records = finished
        write_records(self.path, self.records)  # drops torn lines and failures before appending
        if isinstance(previous, dict) and finished:
            # the finished episodes were played by earlier sessions: they stay first (a run
            # from before provenance was recorded has ``None``)
            self._earlier = {k: previous.get(k) for k in ("provenance", "resumed")}
            self.provenance = {k: v for k, v in self._earlier.items() if v is not None}
        write_json(config_path, {**self._config, **self.provenance})

    def describe(self, provenance: dict[str, Any]) -> None:
        """Say what this session is (:func:`mase.provenance.run_provenance`) in ``config.json``.

        The first session's is ``"provenance"``; a session resuming a run adds its own to
        ``"resumed"``.
        """
        if self._earlier is None:
            self.provenance = {"provenance": provenance}
        else:
            resumed = [*(self._earlier.get("resumed") or []), provenance]
            self.provenance = {"provenance": self._earlier.get("provenance"), "resumed": resumed}
        if self.out is not None:
            write_json(self.out / "config.json", {**self._config, **self.provenance})

    def done(self) -> set[int]:
        """The episode numbers already finished."""
        return {r["episode"] for r in self.records}

    def add(self, record: dict) -> None:
        """Keep a finished (or failed) episode's record, appended to ``episodes.jsonl`` now."""
        self.records.append(record)
        if self.path is not None:
            with self.path.open("a") as f:
                f.write(json.dumps(record) + "\n")
                f.flush()
                os.fsync(f.fileno())

    def close(self, summary: dict) -> None:
        """Rewrite the records in episode order and write ``summary.json``."""
        self.records.sort(key=lambda r: r["episode"])
        if self.out is not None:
            write_records(self.path, self.records)
            write_json(self.out / "summary.json", summary)
