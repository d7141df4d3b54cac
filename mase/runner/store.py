"""An evaluation's output directory: ``config.json``, ``episodes.jsonl``, ``summary.json``.

Episodes are appended one JSON line each as they finish (flushed and synced), so an
interrupted evaluation loses nothing finished; a torn last line is dropped when read back.
Resuming checks that the set-up is the same and keeps the finished episodes; failed ones are
played again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def read_records(path: Path) -> list[dict]:
    """Records of a JSONL file; a torn last line (an interrupted write) is dropped."""
    records = []
    if not path.exists():
        return records
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return records


def write_records(path: Path, records: list[dict]) -> None:
    """Replace ``path`` by ``records`` atomically: an interruption leaves the old or the new."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


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
        if existing and config_path.exists():
            previous = json.loads(config_path.read_text())
            if previous != {**config, "episodes": previous.get("episodes")}:
                raise ValueError(
                    f"{self.out} holds an evaluation with a different set-up ({previous}); "
                    "resume it with the same arguments or choose another output directory"
                )
        self.records = [r for r in existing if not r.get("failed")]  # failed ones are retried
        write_records(self.path, self.records)  # drops torn lines and failures before appending
        config_path.write_text(json.dumps({**config, "episodes": episodes}, indent=2))

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
            (self.out / "summary.json").write_text(json.dumps(summary, indent=2))
