"""Named evaluations: a task, its settings, the teams to run and a paper's table to compare.

``mase eval --preset NAME`` runs every team of the preset and prints the table with the
paper's numbers beside the measured ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gymnasium.envs.registration import load_env_creator

from mase.report import format_table, mean_std
from mase.runner import TOM_LEVELS


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
    """

    label: str
    spec: str
    messages: bool = False
    paper_row: str | None = None
    probes: bool = False
    belief: bool = False


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
        prefer: column metric key -> a metric shown instead when a team has it (the paper's
            valid-action rate of LLM teams counts every model output, retries included).
        notes: lines printed under the table.
    """

    env_id: str
    teams: tuple[Team, ...]
    columns: tuple[tuple[str, str, str], ...]
    paper: dict[str, dict[str, Any]] = field(default_factory=dict)
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    prefer: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


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


def comparison_table(
    preset: Preset, summaries: dict[str, dict], labels: dict[str, str] | None = None
) -> str:
    """Measured columns for each team beside the paper's numbers for the matching row.

    Args:
        preset: the preset.
        summaries: team label -> its evaluation summary (teams not run show ``-``).
        labels: team label -> the name to print (default: the label).
    """
    header = ["team"]
    for _, name, _ in preset.columns:
        header += [name, f"paper {name}"]
    header += ["episodes", "paper row"]
    rows = []
    for team in preset.teams:
        summary = summaries.get(team.label)
        paper = preset.paper.get(team.paper_row or "", {})
        row = [(labels or {}).get(team.label, team.label)]
        for key, _, fmt in preset.columns:
            metrics = summary["metrics"] if summary else {}
            measured = metrics.get(preset.prefer.get(key, key), metrics.get(key))
            row += [mean_std(measured, fmt), _paper_cell(paper.get(key), fmt) if paper else "-"]
        episodes = str(summary["episodes"]) if summary else "-"
        if summary and summary.get("failed"):
            episodes += f" ({summary['failed']} failed)"
        row += [episodes, team.paper_row or "-"]
        rows.append(row)
    return format_table(header, rows)


def tom_table(summaries: list[dict], paper: dict[str, dict[str, Any]] | None = None) -> str:
    """Theory-of-Mind accuracy per level of each summary that has probes.

    The accuracy is pooled over all questions of the level (``summary["tom"]``); with
    ``paper`` (team label -> the paper's row, keys ``tom_<level>``) the paper's figure is
    printed beside each.
    """
    header = ["team"]
    for level in TOM_LEVELS:
        name = level.replace("_", " ")
        header += [name, f"paper {name}"] if paper is not None else [name]
    rows = []
    for summary in summaries:
        tom = summary.get("tom")
        if not tom:
            continue
        label = summary.get("team", "?")
        row = [label]
        for level in TOM_LEVELS:
            cell = tom.get(level)
            row.append(_tom_cell(cell))
            if paper is not None:
                value = paper.get(label, {}).get(f"tom_{level}")
                row.append(_paper_cell(value, "{:.1%}") if value is not None else "-")
        rows.append(row)
    return format_table(header, rows)


def usage_line(summary: dict) -> str:
    """One line on what a team's model seats used over the whole evaluation."""
    usage = summary.get("usage", {})
    parts = [f"{usage.get('llm_calls', 0):,.0f} calls"]
    if "llm_tokens" in usage:
        parts.append(
            f"{usage['llm_tokens']:,.0f} tokens ({usage.get('prompt_tokens', 0):,.0f} prompt, "
            f"{usage.get('completion_tokens', 0):,.0f} completion)"
        )
    if "cost_usd" in usage:
        parts.append(f"${usage['cost_usd']:.4f}")
    if "latency_s" in usage:
        parts.append(f"{usage['latency_s']:.1f} s waiting for replies")
    if usage.get("llm_errors"):
        parts.append(f"{usage['llm_errors']:.0f} failed calls")
    return f"{summary.get('team', '?')} model usage: " + ", ".join(parts)


def belief_line(summary: dict) -> str | None:
    """One line on the beliefs a team's seats wrote (``None`` when none were scored)."""
    metrics = summary.get("metrics", {})
    accuracy, recall = metrics.get("belief_accuracy"), metrics.get("belief_recall")
    if accuracy is None:
        return None
    line = f"{summary.get('team', '?')} beliefs: {accuracy['mean']:.1%} of stated facts true"
    if recall is not None:
        line += f", {recall['mean']:.1%} of what the agent was shown or told kept"
    return line + f" (mean over {accuracy['n']} episodes)"


def _tom_cell(cell: dict | None) -> str:
    """``97.2% (n=708)``: accuracy over the answered questions; unanswered ones are noted."""
    if not cell or cell.get("accuracy") is None:
        return "-"
    text = f"{cell['accuracy']:.1%} (n={cell['n']}"
    if cell.get("asked", cell["n"]) > cell["n"]:
        text += f" of {cell['asked']} asked"
    return text + ")"
