"""The generated pages of the documentation site: one per task, and the command line's reference.

Run by Sphinx before it reads the sources (``builder-inited``): it writes ``docs/reference/``
(ignored by git) from the code, so the pages cannot drift from it. A task's page is its env
class's docstring (its ``Description:``, ``Agents:``, ``Action Space:``... sections become
headings), the arguments it is registered with, its own policies, the presets that evaluate it
with the paper's numbers, and the screenshot of its replay page when there is one. The command
line's page is each ``mase`` command's ``--help``.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path

_SECTION = re.compile(r"^([A-Z][A-Za-z /'-]+):$")
#: Task package -> the replay screenshot in docs/replay (made by docs/replay/shoot.py).
SCREENSHOTS = {
    "search_rescue": "search_rescue.png",
    "avalon": "avalon.png",
    "debate": "debate.png",
    "deliberation": "deliberation.png",
    "craft": "craft.png",
    "agentverse": "agentverse.png",
}


def heading(text: str, mark: str) -> str:
    """An RST heading."""
    return f"{text}\n{mark * len(text)}\n"


def docstring_sections(doc: str) -> str:
    """A docstring in PettingZoo's layout as RST: each ``Name:`` section becomes a heading."""
    lines = doc.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _SECTION.match(lines[i])
        if match:
            block = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            out += ["", heading(match.group(1), "-"), textwrap.dedent("\n".join(block)).strip(), ""]
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out).strip() + "\n"


def _value(value: object) -> str:
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0]} ± {value[1]}"
    if isinstance(value, float) and 0 < value <= 1:
        return f"{value:.1%}"
    return str(value)


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def paper_table(preset) -> str:
    """The preset's paper numbers as an RST csv-table (rows: the paper's rows)."""
    headers = {key: header for key, header, _ in preset.columns}
    keys = list(dict.fromkeys(k for row in preset.paper.values() for k in row))
    lines = [
        f".. csv-table:: {preset.source}",
        "   :header: "
        + ", ".join(_csv_cell(h) for h in ["paper row", *(headers.get(k, k) for k in keys)]),
        "",
    ]
    for row, values in preset.paper.items():
        cells = [row, *(_value(values[k]) if k in values else "" for k in keys)]
        lines.append("   " + ", ".join(_csv_cell(c) for c in cells))
    return "\n".join(lines) + "\n"


def task_page(env_id: str) -> str:
    """The RST page of one registered task."""
    import mase
    from mase.presets import load_preset, preset_names
    from mase.registry import env_creator

    cls, kwargs = env_creator(env_id)
    doc = inspect.getdoc(cls) or ""
    summary, _, rest = doc.partition("\n")
    parts = [heading(env_id, "="), summary.strip() + "\n"]
    env = mase.make(env_id)
    agents = ", ".join(f"``{a}``" for a in env.possible_agents)
    parts.append(f"Class ``{cls.__module__}.{cls.__qualname__}``; seats {agents}.\n")
    if kwargs:
        given = ", ".join(f"``{k}={v!r}``" for k, v in sorted(kwargs.items()))
        parts.append(f"Registered with {given}.\n")
    own = sorted(getattr(cls, "policies", {}) or {})
    if own:
        parts.append("Its own policies: " + ", ".join(f"``{p}``" for p in own) + ".\n")
    env.close()
    parts.append(docstring_sections(rest))
    mine = [(n, load_preset(n)) for n in preset_names()]
    mine = [(n, p) for n, p in mine if p.env_id == env_id]
    if mine:
        parts.append(heading("Presets and the paper's numbers", "-"))
        for name, preset in mine:
            rows = ", ".join(t.label for t in preset.teams)
            parts.append(f"``mase eval --preset {name}``: {rows}.\n")
            if preset.paper:
                parts.append(paper_table(preset))
    package = cls.__module__.split(".")[2] if cls.__module__.startswith("mase.envs.") else ""
    if package in SCREENSHOTS:
        parts.append(heading("Replay", "-"))
        parts.append("A recorded episode in ``mase replay``'s page (``docs/replay/shoot.py``):\n")
        parts.append(f".. image:: ../../replay/{SCREENSHOTS[package]}\n   :width: 100%\n")
    return "\n".join(parts)


def cli_page() -> str:
    """Every ``mase`` command's help, as the command prints it."""
    from mase.cli import build_parser

    parser = build_parser()
    parts = [
        heading("Command line", "="),
        "The ``mase`` command and its subcommands, as ``--help`` prints them.\n",
    ]
    parts.append(".. code-block:: text\n\n" + textwrap.indent(parser.format_help(), "   ") + "\n")
    action = next(a for a in parser._actions if a.dest == "command")
    for name, sub in action.choices.items():
        parts.append(heading(f"mase {name}", "-"))
        parts.append(".. code-block:: text\n\n" + textwrap.indent(sub.format_help(), "   ") + "\n")
    return "\n".join(parts)


def generate(app) -> None:
    """Write docs/reference/ (tasks, CLI) from the code."""
    import os

    os.environ.setdefault("COLUMNS", "100")  # argparse wraps help to the terminal's width
    import mase

    out = Path(app.srcdir) / "reference"
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    ids = sorted(i for package in mase.tasks.packages() for i in package.envs)
    names = []
    for env_id in ids:
        name = env_id.split("/")[1]
        names.append(name)
        _write(out / "tasks" / f"{name}.rst", task_page(env_id))
    index = [
        heading("Tasks", "="),
        "One page per registered task, from its docstring and presets.\n",
        ".. toctree::\n   :maxdepth: 1\n",
        *(f"   {n}" for n in names),
        "",
    ]
    _write(out / "tasks" / "index.rst", "\n".join(index))
    _write(out / "cli.rst", cli_page())


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:  # unchanged pages are not rebuilt
        path.write_text(text)


def setup(app):
    """The Sphinx extension."""
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "version": "1"}
