"""Named evaluations: a task, its settings, the teams to run and a paper's table to compare.

A task package declares its presets (:class:`mase.tasks.TaskPackage`); ``mase eval --preset
NAME`` runs every team of the preset and prints the table with the paper's numbers beside the
measured ones (:func:`mase.report.comparison_table`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase import tasks


@dataclass(frozen=True)
class Team:
    """One row of a preset.

    Attributes:
        label: the row's name (and its output directory's).
        spec: the team spec (:func:`mase.runner.parse_team`).
        messages: the team may talk (a message channel).
        paper_row: the paper's row to compare with.
        probes: ask Theory-of-Mind questions (the ``ToMProbe`` wrapper).
        belief: keep belief states (the ``BeliefState`` wrapper).
        needs_model: run only when ``--row-model`` names a model for this row's paper row
            (a row the default model would only repeat, e.g. a second LLM of the paper).
        env_kwargs: the row's own task arguments, over the preset's (a paper's method that is
            a setting of the task: one agent, one round).
    """

    label: str
    spec: str
    messages: bool = False
    paper_row: str | None = None
    probes: bool = False
    belief: bool = False
    needs_model: bool = False
    env_kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Condition:
    """A setting every row of a preset runs under: one group of the table's columns.

    A paper's table whose columns are data sets has one condition a data set; each measured
    column ``KEY`` of the preset is then reported per condition as ``KEY@NAME`` (the keys the
    preset's columns and paper rows use).

    Attributes:
        name: the condition's name in metric keys and output folders (``gsm8k``).
        env_kwargs: its task arguments, over the preset's and under the row's.
        env_id: the task this condition runs, when it is not the preset's (a paper whose
            table spans sibling tasks, one a group of columns); model seats
            still get the preset's task's offline model.
    """

    name: str
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    env_id: str | None = None


@dataclass(frozen=True)
class Preset:
    """An evaluation to reproduce: the task, its settings, the teams and the paper's rows.

    Attributes:
        env_id: the task.
        env_kwargs: task arguments.
        teams: the teams to run, in table order.
        columns: (metric key, header, format) of the measured columns.
        paper: paper row name -> {metric key: (mean, std), a number, or words (a range the
            paper reports, shown as written)}.
        source: where the paper's numbers come from.
        prefer: column metric key -> a metric shown instead when a team has it (the paper's
            valid-action rate of LLM teams counts every model output, retries included).
        notes: lines printed under the table.
        conditions: settings every row runs under, each a group of columns (:class:`Condition`);
            none: every row runs once, under ``env_kwargs``.
        spread: what follows ``±`` in the measured columns: ``"sd"``, the standard deviation
            over episodes, or ``"se"``, the standard error of the mean (a paper that reports
            accuracy as mean ± std/√n).
        by_condition: print one table per condition, of its columns (``KEY@NAME``), for
            tables whose conditions have several columns each.
    """

    env_id: str
    teams: tuple[Team, ...]
    columns: tuple[tuple[str, str, str], ...]
    paper: dict[str, dict[str, Any]] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    prefer: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    conditions: tuple[Condition, ...] = ()
    spread: str = "sd"
    by_condition: bool = False


def preset_names() -> list[str]:
    """Every preset the loaded task packages declare (:func:`mase.tasks.presets`)."""
    return sorted(tasks.presets())


def load_preset(name: str) -> Preset:
    """The preset registered under ``name`` by a task package."""
    known = tasks.presets()
    if name not in known:
        raise ValueError(f"unknown preset {name!r}; presets: {', '.join(sorted(known))}")
    return load_env_creator(known[name])


def parse_row_models(text: str, preset: Preset) -> dict[str, str]:
    """``"GPT-4=gpt-4o,ChatGPT=gpt-3.5-turbo"`` -> {paper row: model}, checked against the preset.

    A key is a paper row or a team label of the preset.

    Raises:
        ValueError: a malformed pair, or a key that names no row of the preset.
    """
    rows = {t.paper_row: t for t in preset.teams if t.paper_row}
    rows |= {t.label: t for t in preset.teams}
    out: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        key, sep, model = (part.strip() for part in pair.partition("="))
        if not sep or not key or not model:
            raise ValueError(f"--row-model takes ROW=MODEL pairs, got {pair!r}")
        if key not in rows:
            names = ", ".join(sorted(t.paper_row or t.label for t in preset.teams))
            raise ValueError(f"--row-model: the preset has no row {key!r}; rows: {names}")
        out[rows[key].label] = model
    return out
