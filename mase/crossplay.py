"""Cross-play: every pairing of policies on a task, the ad hoc teamwork table.

A cell of the matrix is one evaluation (:func:`mase.evaluate`) of a team made of two policies:

- in a task whose seats are dealt sides (``env.unwrapped.sides``), the row policy plays the
  first side and the column policy the second, whichever seats they are dealt each game;
- in a cooperative task, the row policy sits in the first seat and the column policy in every
  other seat: one newcomer among partners it never trained or planned with (the diagonal is the
  team of one policy).

The rows and columns are one list of policies, or two (``columns``: a side's own policies).
Every cell plays the same seeds, so the cells are paired. Each cell is written to its own
directory under ``out`` (``config.json``, ``episodes.jsonl``, ``summary.json``), so an
interrupted matrix resumes cell by cell and episode by episode (``resume=True``), and
``crossplay.json`` holds the matrix. A pairing that cannot be seated (a checkpoint trained for
the other side) is a cell with its reason, not the end of the matrix.

Each cell's interval is the one its metric's kind calls for (:func:`mase.stats.interval`:
Wilson for a proportion such as a side's wins, the percentile bootstrap of the mean for a
score), so it never leaves the metric's range; the table's last line says which, and warns
when the episodes are too few for it to mean much.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Cell", "CrossPlay", "cell_team", "crossplay", "plot_crossplay"]


@dataclass
class Cell:
    """One pairing's result on the matrix's metric.

    Attributes:
        row, column: the two policies.
        team: the team spec played.
        mean: the metric's mean over the episodes (``None`` when the cell failed).
        ci95: its 95% interval, inside the metric's range (``None`` with one episode).
        method: how the interval was made (a key of :data:`mase.stats.METHODS`), or ``""``.
        note: why the interval means little (too few episodes), or ``""``.
        n: episodes measured.
        error: why the cell could not be played, or ``""``.
    """

    row: str
    column: str
    team: str
    mean: float | None = None
    ci95: tuple[float, float] | None = None
    n: int = 0
    error: str = ""
    method: str = ""
    note: str = ""


@dataclass
class CrossPlay:
    """The matrix: rows and columns of policies, each cell's result on ``metric``.

    ``policies`` are the rows; ``columns`` the columns (the same list unless given apart);
    ``label`` is the metric's name for people (with its unit) and ``range`` its bounds, as the
    task declares them (:meth:`mase.task.TaskEnv.metric_specs`).
    """

    env_id: str
    metric: str
    policies: list[str]
    row_role: str
    column_role: str
    episodes: int
    seed: int
    cells: list[Cell] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    label: str = ""
    range: tuple[float | None, float | None] = (None, None)

    def __post_init__(self) -> None:
        self.columns = list(self.columns or self.policies)
        self.label = self.label or self.metric

    def methods(self) -> str:
        """How the cells' intervals were made, in a line (:func:`mase.stats.methods_line`)."""
        from mase.stats import Interval, methods_line

        return methods_line(
            Interval(c.mean or 0.0, *(c.ci95 or (None, None)), c.n, c.method, c.note)
            for c in self.cells
            if c.mean is not None
        )

    def cell(self, row: str, column: str) -> Cell:
        """The cell of ``row`` with ``column``."""
        return next(c for c in self.cells if c.row == row and c.column == column)

    def table(self, fmt: str = "{:.3g}") -> str:
        """The matrix as aligned text: ``mean [low, high]`` per cell (``n/a`` with a reason)."""
        header = [f"{self.row_role} \\ {self.column_role}", *self.columns]
        lines = [header]
        for row in self.policies:
            line = [row]
            for column in self.columns:
                c = self.cell(row, column)
                if c.mean is None:
                    line.append("n/a")
                elif c.ci95 is None:
                    line.append(fmt.format(c.mean))
                else:
                    low, high = c.ci95
                    line.append(f"{fmt.format(c.mean)} [{fmt.format(low)}, {fmt.format(high)}]")
            lines.append(line)
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        text = ["  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip()
                for line in lines]  # fmt: skip
        text.insert(1, "  ".join("-" * w for w in widths))
        failed = [c for c in self.cells if c.error]
        for c in failed:
            text.append(f"n/a: {c.row} with {c.column}: {c.error}")
        if any(c.mean is not None for c in self.cells):
            text.append(textwrap.fill(self.methods(), 100))
        return "\n".join(text)

    def to_json(self) -> dict[str, Any]:
        """The matrix as plain data (``crossplay.json``)."""
        return asdict(self)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "policy"


def cell_team(env: Any, row: str, column: str) -> tuple[str, str, str]:
    """``(team spec, row role, column role)`` of a pairing on ``env`` (module docstring)."""
    sides = tuple(env.unwrapped.sides)
    if len(sides) >= 2:
        if len(sides) > 2:
            rest = ",".join(f"{s}={column}" for s in sides[2:])
            return f"{sides[0]}={row},{sides[1]}={column},{rest}", sides[0], "others"
        return f"{sides[0]}={row},{sides[1]}={column}", sides[0], sides[1]
    first = env.possible_agents[0]
    return f"{column},{first}={row}", f"{first} (one seat)", "the other seats"


def _headline(env: Any, summaries: list[dict]) -> str:
    """The task's first headline column its records hold (then score, rounds, valid actions)."""
    columns = [key for key, _, _ in getattr(env.unwrapped, "table_columns", ()) or ()]
    held = {k for s in summaries for k, v in s.get("metrics", {}).items() if isinstance(v, dict)}
    candidates = [*columns, "score", "rounds", "valid_action_rate"]
    return next((k for k in candidates if k in held), candidates[0])


def crossplay(
    env_id: str,
    policies: list[str],
    columns: list[str] | None = None,
    episodes: int = 10,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    metric: str | None = None,
    env_kwargs: dict | None = None,
    progress: bool = False,
    **evaluate_options: Any,
) -> CrossPlay:
    """Play every pairing of ``policies`` on ``env_id`` and gather the matrix.

    Args:
        env_id: a registered task.
        policies: policy names as in a team spec (``scripted``, ``random``, ``llm``, a task's
            own, a checkpoint's ``NAME:PATH``); at least one. They are the rows, and the
            columns too unless ``columns`` is given.
        columns: the columns' policies when they differ from the rows' (a task whose sides
            have policies of their own: checkpoints trained for one side).
        episodes: episodes per cell (seeds ``seed`` to ``seed + episodes - 1`` in every cell).
        seed: the first seed.
        out: the matrix's directory (a directory per cell, and ``crossplay.json``); ``None``
            writes nothing.
        resume: continue an interrupted matrix in ``out`` (finished episodes are kept).
        metric: the metric of the matrix (default: the first of the task's headline columns
            that its records hold, else ``score``, ``rounds``, ``valid_action_rate``).
        env_kwargs: task arguments.
        progress: a progress bar per cell.
        **evaluate_options: more :func:`mase.evaluate` arguments (``llm``, ``concurrency``,
            ``messages``, ``probes``, ...).

    Raises:
        ValueError: no policy, or a policy named twice.
    """
    import mase

    columns = list(columns) if columns else list(policies)
    if not policies:
        raise ValueError("cross-play needs at least one policy")
    for names in (policies, columns):
        if len(set(names)) != len(names):
            raise ValueError(f"a policy is named twice in {names}")
    env = mase.make(env_id, **(env_kwargs or {}))
    env.reset(seed=seed)
    _, row_role, column_role = cell_team(env, policies[0], policies[0])
    root = Path(out) if out is not None else None
    played: list[tuple[Cell, dict | None]] = []
    for row in policies:
        for column in columns:
            team, _, _ = cell_team(env, row, column)
            cell = Cell(row, column, team)
            where = root / f"{_slug(row)}__{_slug(column)}" if root is not None else None
            try:
                summary = mase.evaluate(
                    env_id,
                    team,
                    episodes=episodes,
                    seed=seed,
                    out=where,
                    resume=resume,
                    env_kwargs=env_kwargs,
                    progress=progress,
                    label=f"{row} with {column}",
                    **evaluate_options,
                )
            except (ValueError, ImportError, FileNotFoundError, KeyError) as exc:
                cell.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                summary = None
            played.append((cell, summary))
    metric = metric or _headline(env, [s for _, s in played if s is not None])
    declared = env.unwrapped.metric_specs().get(metric)
    result = CrossPlay(
        env_id, metric, list(policies), row_role, column_role, episodes, seed, columns=columns,
        label=declared.label if declared else metric,
        range=declared.range if declared else (None, None),
    )  # fmt: skip
    for cell, summary in played:
        if summary is not None:
            _fill(cell, summary, metric)
        result.cells.append(cell)
    env.close()
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
        (root / "crossplay.json").write_text(json.dumps(result.to_json(), indent=2) + "\n")
    return result


def _fill(cell: Cell, summary: dict, metric: str) -> None:
    """Put a cell's evaluation on ``metric`` into it (or why it has no number)."""
    failed = summary.get("failed") or 0
    stats = summary.get("metrics", {}).get(metric)
    if stats is None or stats.get("mean") is None:
        known = sorted(summary.get("metrics", {}))
        cell.error = (
            f"all {failed} episodes failed (their records say why)"
            if failed
            else f"no metric {metric!r} in its records (metrics: {known})"
        )
        return
    from mase.report.tables import entry_interval

    ci = entry_interval(stats)
    cell.mean, cell.n = float(stats["mean"]), int(stats["n"])
    if ci is not None:
        cell.ci95 = None if ci.low is None else (ci.low, ci.high)
        cell.method, cell.note = ci.method, ci.note
    if failed:
        cell.error = f"{failed} episode(s) failed and are left out"


def plot_crossplay(result: CrossPlay, out: str | os.PathLike) -> Path:
    """A heat map of the matrix: each cell's mean, and its 95% interval under it.

    The colour scale spans the metric's range where the task declares it.

    Raises:
        mase.report.plots.PlottingUnavailable: matplotlib is missing (the message names the
            ``plot`` extra).
    """
    import numpy as np

    from mase.report.plots import pyplot, save_figure

    plt = pyplot()
    rows, columns = result.policies, result.columns
    values = np.full((len(rows), len(columns)), np.nan)
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            mean = result.cell(row, column).mean
            values[i, j] = np.nan if mean is None else mean
    fig, ax = plt.subplots(figsize=(3.6 + 1.6 * len(columns), 1.9 + 1.2 * len(rows)))
    finite = values[np.isfinite(values)]
    low, high = result.range
    vmin = low if low is not None else (finite.min() if finite.size else 0.0)
    vmax = high if high is not None else (finite.max() if finite.size else 1.0)
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", aspect="auto",
                      vmin=vmin, vmax=vmax if vmax > vmin else vmin + 1)  # fmt: skip
    fig.colorbar(image, ax=ax, label=result.label)
    for i, row in enumerate(rows):
        for j, column in enumerate(columns):
            c = result.cell(row, column)
            if c.mean is None:
                text, colour = "n/a", "black"
            else:
                bounds = f"\n[{c.ci95[0]:.3g}, {c.ci95[1]:.3g}]" if c.ci95 else ""
                text = f"{c.mean:.3g}{bounds}"
                colour = "black" if c.mean > (vmin + vmax) / 2 else "white"
            ax.text(j, i, text, ha="center", va="center", color=colour, fontsize=10)
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(result.column_role)
    ax.set_ylabel(result.row_role)
    title = f"{result.env_id}: {result.label}, {result.episodes} episodes a cell"
    ax.set_title(title + "\n" + textwrap.fill(result.methods(), 70), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, out)
