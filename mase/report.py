"""Tables from evaluation output directories (``summary.json`` files)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

#: Columns of the main results table: (metric key, header, format of mean and std).
DEFAULT_COLUMNS = (
    ("score", "score", "{:.1f}"),
    ("rounds", "rounds", "{:.1f}"),
    ("valid_action_rate", "valid action", "{:.1%}"),
)


def find_summaries(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Every ``summary.json`` in the given directories (searched recursively) or files."""
    found = []
    for p in map(Path, paths):
        if p.is_file():
            found.append(p)
        elif p.is_dir():
            found.extend(sorted(p.rglob("summary.json")))
        else:
            raise FileNotFoundError(f"{p} does not exist")
    return found


def load_summaries(paths: Iterable[str | os.PathLike]) -> list[dict]:
    """Read the summaries under ``paths``; each gets a ``"path"`` key."""
    return [{**json.loads(p.read_text()), "path": str(p.parent)} for p in find_summaries(paths)]


def mean_std(metric: dict | None, fmt: str) -> str:
    """``"43.0 ± 4.7"`` from a summary metric entry (``"-"`` when missing)."""
    if not metric:
        return "-"
    return f"{fmt.format(metric['mean'])} ± {fmt.format(metric['std'])}"


def results_table(
    summaries: Sequence[dict],
    columns: Sequence[tuple[str, str, str]] = DEFAULT_COLUMNS,
) -> str:
    """A plain-text table: one row per summary (team), mean ± std per metric, episode count."""
    header = ["team", *(h for _, h, _ in columns), "episodes", "ended by"]
    rows = []
    for s in summaries:
        ended = s.get("counts", {}).get("ended_by", {})
        rows.append(
            [
                s.get("team", "?"),
                *(mean_std(s["metrics"].get(k), fmt) for k, _, fmt in columns),
                str(s["episodes"]) + (f" ({s['failed']} failed)" if s.get("failed") else ""),
                ", ".join(f"{k} {v}" for k, v in sorted(ended.items())),
            ]
        )
    return format_table(header, rows)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Align ``rows`` under ``header`` in columns separated by two spaces."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)), line]
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)
