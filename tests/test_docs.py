"""The documentation site builds with no warning, and its generated pages say what the code does."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mase
from mase.presets import load_preset, preset_names

DOCS = Path(__file__).resolve().parents[1] / "docs"

if not all(importlib.util.find_spec(m) for m in ("sphinx", "myst_parser")):
    pytest.skip(
        "the docs extra is not installed: pip install -e '.[docs]'", allow_module_level=True
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
         str(DOCS), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]  # -W: any warning fails the build
    return out


def text(page: Path) -> str:
    return re.sub(r"<[^>]+>", "", page.read_text())


def test_every_registered_task_has_its_page(site):
    ids = [i for package in mase.tasks.packages() for i in package.envs]
    for env_id in ids:
        page = text(site / "reference" / "tasks" / f"{env_id.split('/')[1]}.html")
        creator, _ = mase.registry.env_creator(env_id)
        summary = (creator.__doc__ or "").strip().splitlines()[0]
        assert env_id in page and summary.split(":")[0] in page
        for seat in mase.make(env_id).possible_agents:
            assert seat in page


def test_a_tasks_page_shows_its_presets_with_the_papers_numbers(site):
    for name in preset_names():
        preset = load_preset(name)
        page = text(site / "reference" / "tasks" / f"{preset.env_id.split('/')[1]}.html")
        assert f"--preset {name}" in page
        for row in preset.paper:
            assert row in page.replace("&amp;", "&")


def test_the_cli_page_is_every_commands_help(site):
    page = text(site / "reference" / "cli.html")
    for command in ("eval", "play", "train", "report", "replay", "crossplay", "serve"):
        assert f"mase {command}" in page
    assert "--policies" in page and "--episode" in page
    from mase.cli import build_parser

    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    for name, sub in commands.items():
        for action in sub._actions:
            for flag in action.option_strings:
                assert flag in page, f"mase {name} {flag}"


def test_the_api_and_contract_pages_are_there(site):
    api = text(site / "api.html")
    for name in ("TaskEnv", "evaluate", "crossplay", "write_replay", "ToMProbe", "Recorder"):
        assert name in api
    assert "scene()" in text(site / "task_contract.html")
    assert (site / "_images").is_dir() and any((site / "_images").glob("*.png"))


def section(page: str, title: str, end: str = "</section>") -> str:
    """The text of a page's section, from its heading to the section's end."""
    start = page.index(title)
    return page[start : page.index(end, start)]


def test_a_tasks_presets_tables_print_the_papers_figures_as_mase_eval_does(site):
    """No ``None`` cell: a figure the paper does not give is ``n/a``, formatted like the CLI's."""
    page = (site / "reference" / "tasks" / "SearchRescue-v0.html").read_text()
    presets = section(page, "Presets and the paper")
    assert "None" not in presets
    assert "n/a" in presets  # the paper gives MAPPO's, CBS's and random's valid actions none
    assert "43.3\u00a0±\u00a04.7" in presets and "90.0\u00a0±\u00a00.0" in presets  # {:.1f}
    assert "ToM first order" in presets and "random-unmasked" in presets  # the rows' teams


def test_every_tasks_arguments_are_a_table_of_its_constructors_parameters(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    from mase_docs import task_arguments

    for env_id in (i for package in mase.tasks.packages() for i in package.envs):
        creator, _ = mase.registry.env_creator(env_id)
        page = (site / "reference" / "tasks" / f"{env_id.split('/')[1]}.html").read_text()
        table = section(page, ">Arguments<", "</table>")
        header = re.sub(r"\s+", " ", text_of(table[: table.index("</thead>")]))
        assert "argument" in header and "default" in header, env_id
        names = set(re.findall(r'<span class="pre">(\w+)</span>', table))
        assert {p.name for p in task_arguments(creator)} <= names, env_id


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_the_footer_names_no_empty_copyright(site):
    footer = section((site / "index.html").read_text(), 'class="footer"', "</div>")
    assert "©" not in footer and "&#169;" not in footer and "Sphinx" in footer


def test_the_guides_and_every_tasks_page_are_on_the_site(site):
    for page in ("getting_started", "from_other_libraries", "evaluation", "llm", "trust"):
        assert (site / "guide" / f"{page}.html").is_file()
    for page in ("search_rescue", "avalon", "debate", "deliberation", "agentverse", "craft"):
        assert (site / "tasks" / f"{page}.html").is_file()
    index = text(site / "index.html")
    assert "Getting started" in index and "From PettingZoo, SB3 and RLlib" in index


def test_a_trainers_options_are_a_table_on_the_cli_page(site):
    pytest.importorskip("torch")
    from dataclasses import fields

    from mase.baselines.sb3.ppo import Args

    page = text(site / "reference" / "cli.html")
    assert "mase train sb3-ppo" in page
    for field in fields(Args):
        assert "--" + field.name.replace("_", "-") in page
