"""The generated pages of the documentation site: one per task, and the command line's reference.

Run by Sphinx before it reads the sources (``builder-inited``): it writes ``docs/reference/``
(ignored by git) from the code, so the pages cannot drift from it. A task's page is its env
class's docstring (its ``Description:``, ``Agents:``, ``Action Space:``... sections become
headings), the arguments it is registered with, its own policies, the presets that evaluate it
with the paper's numbers, and the screenshot of its replay page when there is one. The command
line's page is each ``mase`` command's ``--help``.
"""

from __future__ import annotations

import argparse
import inspect
import re
import textwrap
from collections.abc import Callable
from pathlib import Path

_SECTION = re.compile(r"^([A-Z][A-Za-z /'-]+):$")
#: Task package -> the replay screenshot in docs/replay (made by docs/replay/shoot.py).
SCREENSHOTS = {
    "search_rescue": "search_rescue_close.png",  # the close-up: readable at the page's width
    "avalon": "avalon.png",
    "debate": "debate.png",
    "deliberation": "deliberation.png",
    "craft": "craft.png",
    "agentverse": "agentverse.png",
}


#: Task package -> its page of the guide (docs/tasks/): the rules in words, measured figures.
GUIDES = {name: f"/tasks/{name}" for name in SCREENSHOTS}


def heading(text: str, mark: str) -> str:
    """An RST heading."""
    return f"{text}\n{mark * len(text)}\n"


def docstring_sections(doc: str, render: dict[str, Callable[[str], str]] | None = None) -> str:
    """A docstring in PettingZoo's layout as RST: each ``Name:`` section becomes a heading.

    ``render`` maps a section's name to a function that writes its block's RST (by default the
    block as it is).
    """
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
            name, body = match.group(1), textwrap.dedent("\n".join(block)).strip()
            body = (render or {}).get(name, lambda text: text)(body)
            out += ["", heading(name, "-"), body, ""]
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out).strip() + "\n"


def task_arguments(cls: type) -> list[inspect.Parameter]:
    """The task's arguments: its ``__init__``'s, following ``**kwargs`` into its bases'."""
    found: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = list(inspect.signature(init).parameters.values())[1:]
        for param in params:
            if param.kind not in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                found.setdefault(param.name, param)
        if not any(param.kind is param.VAR_KEYWORD for param in params):
            break
    return list(found.values())


def argument_meanings(paragraph: str, names: set[str]) -> list[tuple[list[str], str]]:
    """A docstring's run of arguments (``name`` (default): meaning. ``other``...) as rows.

    A row starts at an argument's name at the paragraph's start or after ``. ``, ``, `` or
    ``; `` outside parentheses; names with nothing of their own (``a``, ``b``: ...) share the
    next one's meaning. Empty when the paragraph does not start with an argument's name.
    """
    text = " ".join(paragraph.split())
    starts, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("``", i):
            end = text.find("``", i + 2)
            if end < 0:
                break
            name = text[i + 2 : end]
            after_break = i == 0 or text[:i].endswith((". ", ", ", "; "))
            if depth == 0 and name in names and after_break:
                starts.append((i, end + 2, name))
            i = end + 2
            continue
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    if not starts or starts[0][0] != 0:
        return []
    rows: list[tuple[list[str], str]] = []
    waiting: list[str] = []
    for k, (_, end, name) in enumerate(starts):
        stop = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        meaning = text[end:stop].strip().rstrip(",;.").strip().removeprefix(":").strip()
        if not meaning:
            waiting.append(name)
            continue
        rows.append(([*waiting, name], meaning))
        waiting = []
    rows += [([name], "") for name in waiting]  # a list of names with no meaning of their own
    return rows


def without_default(meaning: str, default: object) -> str:
    """A meaning without the leading ``(default, ...)`` that the default column already shows."""
    if not meaning.startswith("(") or default is inspect.Parameter.empty:
        return meaning
    depth = 0
    close = 0
    for close, char in enumerate(meaning):  # noqa: B007 - the loop finds the closing paren
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            break
    inner, rest = meaning[1:close], meaning[close + 1 :].lstrip(":.").strip()
    if inner == "above":  # "``games`` (above)": the docstring's own section on it
        inner = "see above"
    for shown in dict.fromkeys(
        [f"``{default!r}``", f'``"{default}"``', f"``{default}``", str(default)]
    ):
        if inner == shown:
            inner = ""
            break
        if inner.startswith(shown) and inner[len(shown) : len(shown) + 2] in (", ", "; "):
            inner = inner[len(shown) + 2 :]
            break
    else:
        if rest:
            return meaning
    return ". ".join(part for part in (inner, rest) if part)


def section_naming(doc: str, name: str) -> str | None:
    """The docstring section (``Questions``) that first names ``name`` as a literal."""
    section = "the summary"
    for line in doc.splitlines():
        match = _SECTION.match(line)
        if match:
            section = match.group(1)
        elif re.search(rf"``{re.escape(name)}\b", line):
            return section
    return None


#: What the core's own arguments mean, where a task's docstring says no more.
CORE_ARGUMENTS = {
    "obs_mode": '``"vector"``, ``"text"`` or ``"both"``: the parts of the observation Dict',
    "max_cycles": "the core's round limit: the episode is truncated after it",
    "render_mode": '``"ansi"`` (text), ``"human"`` (printed) or ``"rgb_array"`` (a picture)',
}


def _list_table(header: list[str], rows: list[list[str]], widths: str) -> str:
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", ""]
    for row in [header, *rows]:
        lines += [f"   * - {row[0] or ' '}", *(f"     - {cell or ' '}" for cell in row[1:])]
    return "\n".join(lines) + "\n"


def arguments_table(cls: type, registered: dict, prose: str = "") -> str:
    """The task's arguments as a table (name, default, meaning), then the rest of ``prose``.

    ``prose`` is the docstring's Arguments section: its doctests stay first, its run of
    arguments fills the meaning column, its other paragraphs follow the table.
    """
    params = task_arguments(cls)
    names = {p.name for p in params}
    before, after, meanings = [], [], {}
    for paragraph in re.split(r"\n\s*\n", prose.strip()) if prose.strip() else []:
        rows = [] if paragraph.lstrip().startswith(">>>") else argument_meanings(paragraph, names)
        if rows:
            meanings.update({tuple(group): meaning for group, meaning in rows})
        else:
            (after if meanings else before).append(paragraph)
    by_name = {name: group for group in meanings for name in group}
    empty = inspect.Parameter.empty
    default = {p.name: p.default for p in params}

    def shown(name: str) -> str:
        value = "" if default.get(name, empty) is empty else f"``{default[name]!r}``"
        if name in registered and registered[name] != default.get(name):
            value = f"``{registered[name]!r}`` here ({value or 'required'} by default)"
        return value

    table, done = [], set()
    for param in params:
        group = by_name.get(param.name, (param.name,))
        if group in done:
            continue
        done.add(group)
        cells = [", ".join(f"``{n}``" for n in group), "; ".join(dict.fromkeys(map(shown, group)))]
        meaning = without_default(meanings.get(group, ""), default.get(group[0], empty))
        if not meaning and not meanings:  # a docstring without Arguments: where it says more
            where = section_naming(inspect.getdoc(cls) or "", group[0])
            meaning = f"see `{where}`_" if where else ""  # the section, linked
        cells.append(meaning or CORE_ARGUMENTS.get(group[0], ""))
        table.append(cells)
    header = ["argument", "default", "meaning"]
    return "\n\n".join([*before, _list_table(header, table, "22 20 58"), *after])


#: Theory-of-Mind keys a paper row may state beside its columns, with their headers.
_TOM_HEADERS = {
    "tom_introspection": "ToM introspection",
    "tom_first_order": "ToM first order",
    "tom_second_order": "ToM second order",
}


def paper_cell(value: object, fmt: str) -> str:
    """A paper's figure as ``mase eval`` prints it beside the measured one."""
    if value is None:
        return "n/a"  # the paper states the metric but gives no figure for this row
    if isinstance(value, str):  # a paper's words ("55-80", "> 95")
        return value
    if isinstance(value, tuple):
        return f"{fmt.format(value[0])}\u00a0±\u00a0{fmt.format(value[1])}"  # kept on one line
    return fmt.format(value)


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def paper_table(preset) -> str:
    """The preset's paper numbers as an RST csv-table (rows: the paper's rows).

    Each column has the preset's header and format (a condition's column names its
    condition); ``n/a`` is a figure the paper does not give, ``-`` a metric its row lacks
    (escaped: a lone ``-`` in a cell is a bullet list to RST).
    """
    columns = {key: (header, fmt) for key, header, fmt in preset.columns}
    for key, header in _TOM_HEADERS.items():
        columns.setdefault(key, (header, "{:.1%}"))
    keys = list(dict.fromkeys(k for row in preset.paper.values() for k in row))

    def header(key: str) -> str:
        name = columns.get(key, (key, "{}"))[0]
        condition = key.partition("@")[2]
        return f"{name} ({condition})" if condition and condition not in name.lower() else name

    lines = [
        f".. csv-table:: {preset.source}",
        "   :header: " + ", ".join(_csv_cell(h) for h in ["paper row", *map(header, keys)]),
        "",
    ]
    for row, values in preset.paper.items():
        cells = [row]
        for key in keys:
            fmt = columns.get(key, (key, "{}"))[1]
            cells.append(paper_cell(values[key], fmt) if key in values else "\\-")
        lines.append("   " + ", ".join(_csv_cell(c) for c in cells))
    return "\n".join(lines) + "\n"


def teams_table(preset) -> str:
    """The preset's rows: each row's team, what it adds, and the paper's row it faces."""
    rows = []
    for team in preset.teams:
        adds = [name for name, on in (("messages", team.messages), ("probes", team.probes),
                                      ("belief states", team.belief)) if on]  # fmt: skip
        if team.needs_model:
            adds.append("runs when ``--row-model`` gives it a model")
        adds += [f"``{k}={v!r}``" for k, v in sorted(team.env_kwargs.items())]
        rows.append([team.label, f"``{team.spec}``", ", ".join(adds), team.paper_row or "\\-"])
    return _list_table(["row", "team", "with", "paper row"], rows, "22 30 30 18")


def layout_section(env) -> str:
    """The observation vector's blocks as a table per distinct seat layout (none: empty)."""
    env.reset(seed=0)
    base = env.unwrapped
    tables: dict[tuple, list[str]] = {}
    for agent in env.possible_agents:
        try:
            layout = base.vector_layout(agent)
        except NotImplementedError:
            return ""
        rows = tuple(tuple(row) for row in layout.rows())
        tables.setdefault(rows, []).append(agent)
    parts = [heading("Observation vector", "-")]
    parts.append(
        "What each block of a seat's ``observation`` vector holds, in order, from the task's "
        "``vector_layout``. The vector states exactly what the text view states "
        "(``mase.checks.check_parity``), messages as the claims read from them.\n"
    )
    for rows, agents in tables.items():
        size = sum(int(row[1]) for row in rows)
        if len(tables) > 1:
            parts.append("Seats " + ", ".join(f"``{a}``" for a in agents) + ":\n")
        parts.append(f"{size} numbers under the registered arguments.\n")
        cells = [[f"``{name}``", size_, rst_text(content)] for name, size_, content in rows]
        parts.append(_list_table(["block", "size", "content"], cells, "20 10 70"))
    return "\n".join(parts)


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
    package = cls.__module__.split(".")[2] if cls.__module__.startswith("mase.envs.") else ""
    if package in GUIDES:
        guide = GUIDES[package]
        parts.append(f"In the guide, in words and with measured figures: :doc:`{guide}`.\n")
    own = sorted(getattr(cls, "policies", {}) or {})
    if own:
        parts.append("Its own policies: " + ", ".join(f"``{p}``" for p in own) + ".\n")
    layout = layout_section(env)
    env.close()

    def arguments(prose: str) -> str:
        return arguments_table(cls, kwargs, prose)

    sections = docstring_sections(rest, {"Arguments": arguments})
    if not re.search(r"^Arguments:$", rest, re.M):  # a table of them all the same
        table = heading("Arguments", "-") + "\n" + arguments("") + "\n"
        history = re.search(r"^Version [Hh]istory\n-+\n", sections, re.M)
        at = history.start() if history else len(sections)
        sections = sections[:at] + table + "\n" + sections[at:]
    parts.append(sections)
    if layout:
        parts.append(layout)
    mine = [(n, load_preset(n)) for n in preset_names()]
    mine = [(n, p) for n, p in mine if p.env_id == env_id]
    if mine:
        parts.append(heading("Presets and the paper's numbers", "-"))
        for name, preset in mine:
            parts.append(f"``mase eval --preset {name}`` plays these rows:\n")
            parts.append(teams_table(preset))
            if preset.paper:
                parts.append("The paper's numbers, which ``mase eval`` prints beside its own:\n")
                parts.append(paper_table(preset))
    if package in SCREENSHOTS:
        parts.append(heading("Replay", "-"))
        parts.append("A recorded episode in ``mase replay``'s page (``docs/replay/shoot.py``):\n")
        parts.append(f".. image:: ../../replay/{SCREENSHOTS[package]}\n   :width: 100%\n")
    return "\n".join(parts)


def rst_text(text: str) -> str:
    """Help text as RST inline text: `code` and ``code`` are literals, other markup is plain."""
    parts = re.split(r"``([^`]+)``|`([^`]+)`", " ".join(text.split()))
    out = []
    for i, part in enumerate(parts):
        if i % 3 == 0:
            out.append(re.sub(r"([\\*`|_])", r"\\\1", part))
        elif part is not None:
            out.append(f"``{part}``")
    return "".join(out)


def options_table(parser: argparse.ArgumentParser, group: argparse._ArgumentGroup) -> str:
    """One argparse group's arguments as a table: each option (with its value's name) and help.

    The help text says the defaults: several options default to ``None`` in the parser so that
    a configuration file can set them, and their real default is in their help.
    """
    rows = []
    for action in group._group_actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        choices = [str(c) for c in action.choices or ()]
        braces = "{" + ",".join(choices) + "}"
        value = action.metavar or (braces if choices and len(braces) <= 24 else None)
        takes_value = action.nargs != 0
        if action.option_strings:
            names = ", ".join(action.option_strings)
            name = f"{names} {value or action.dest.upper()}" if takes_value else names
        else:
            name = value or action.dest
        text = rst_text(parser._get_formatter()._expand_help(action) if action.help else "")
        if choices and not action.metavar and len(braces) > 24:
            text += " (one of " + ", ".join(f"``{c}``" for c in choices) + ")"
        rows.append([f"``{name}``", text])
    return _list_table(["argument", "meaning"], rows, "30 70") if rows else ""


def command_section(name: str, parser: argparse.ArgumentParser) -> str:
    """One ``mase`` command: its description, usage line and arguments, a table a group."""
    parts = [heading(f"mase {name}", "-")]
    if parser.description:
        parts.append(rst_text(parser.description) + "\n")
    usage = parser.format_usage().removeprefix("usage: ")
    parts.append(".. code-block:: text\n\n" + textwrap.indent(usage, "   ") + "\n")
    for group in parser._action_groups:
        table = options_table(parser, group)
        if table:
            title = {"positional arguments": "Arguments", "options": "Options"}.get(
                group.title or "", (group.title or "").capitalize()
            )
            parts += [f"**{rst_text(title)}**\n", table]
    return "\n".join(parts)


def cli_page() -> str:
    """Every ``mase`` command's arguments, from the parser the command runs (tables a group)."""
    from mase.cli import build_parser

    parser = build_parser()
    parts = [
        heading("Command line", "="),
        "The ``mase`` command and its subcommands, from the parser itself (``mase COMMAND "
        "--help`` prints the same). ``mase train TRAINER --help`` lists a trainer's options, "
        "the fields of its ``Args`` dataclass.\n",
        ".. code-block:: text\n\n" + textwrap.indent(parser.format_help(), "   ") + "\n",
    ]
    action = next(a for a in parser._actions if a.dest == "command")
    for name, sub in action.choices.items():
        parts.append(command_section(name, sub))
    parts.append(trainers_section())
    return "\n".join(parts)


def trainers_section() -> str:
    """Each ``mase train TRAINER``'s options: the fields of its ``Args`` dataclass."""
    import importlib

    import mase
    from mase.cli.commands import add_dataclass_arguments

    parts = [heading("Trainers", "-")]
    for name, (module_name, summary) in mase.baselines.TRAINERS.items():
        parts.append(heading(f"mase train {name}", "~"))
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # the site builds without the rl extra too
            parts.append(f"{summary}; its options need the rl extra to list ({exc.name}).\n")
            continue
        parser = argparse.ArgumentParser(prog=f"mase train {name}", description=summary)
        add_dataclass_arguments(parser, module.Args)
        parts.append(rst_text(summary) + " (``" + module_name + ".Args``).\n")
        parts += [options_table(parser, group) for group in parser._action_groups]
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
