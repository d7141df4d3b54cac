"""Named evaluations: a task, its settings, the teams to run and a paper's table to compare.

``mase eval --preset NAME`` runs every team of the preset and prints the table with the
paper's numbers beside the measured ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase.report import format_table, mean_std


@dataclass(frozen=True)
class Team:
    """One row of a preset: a label, a team spec and whether the team may talk."""

    label: str
    spec: str
    messages: bool = False
    paper_row: str | None = None


@dataclass(frozen=True)
class Preset:
    """An evaluation to reproduce: the task, its settings, the teams and the paper's rows.

    Attributes:
        env_id: the task.
        env_kwargs: task arguments.
        teams: the teams to run, in table order.
        columns: (metric key, header, format) of the measured columns.
        paper: paper row name -> {metric key: (mean, std) or a number}.
        source: where the paper's numbers come from.
    """

    env_id: str
    teams: tuple[Team, ...]
    columns: tuple[tuple[str, str, str], ...]
    paper: dict[str, dict[str, Any]] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    source: str = ""


#: Preset name -> ``"module:attribute"`` of its :class:`Preset` (loaded when used).
PRESETS = {"paper-table1": "mase.envs.search_rescue.paper:TABLE1"}


def load_preset(name: str) -> Preset:
    """The preset registered under ``name``."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; presets: {', '.join(sorted(PRESETS))}")
    return load_env_creator(PRESETS[name])


def _paper_cell(value: Any, fmt: str) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, tuple):
        return f"{fmt.format(value[0])} ± {fmt.format(value[1])}"
    return fmt.format(value)


def comparison_table(preset: Preset, summaries: dict[str, dict]) -> str:
    """Measured columns for each team beside the paper's numbers for the matching row."""
    header = ["team"]
    for _, name, _ in preset.columns:
        header += [name, f"paper {name}"]
    header += ["episodes", "paper row"]
    rows = []
    for team in preset.teams:
        summary = summaries.get(team.label)
        paper = preset.paper.get(team.paper_row or "", {})
        row = [team.label]
        for key, _, fmt in preset.columns:
            measured = summary["metrics"].get(key) if summary else None
            row += [mean_std(measured, fmt), _paper_cell(paper.get(key), fmt) if paper else "-"]
        row += [str(summary["episodes"]) if summary else "-", team.paper_row or "-"]
        rows.append(row)
    return format_table(header, rows)
