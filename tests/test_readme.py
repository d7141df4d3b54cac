"""The README is a newcomer's one screen, true to the code; the docs' Markdown pages too.

Its code block runs in ``tests/test_examples.py``; here: its length, its links, its extras and
its commands' flags, against ``pyproject.toml`` and the ``mase`` command's own parser.
"""

import argparse
import contextlib
import importlib
import io
import re
import shlex
import tomllib
from pathlib import Path

import pytest

import mase
from mase.cli import build_parser
from mase.cli.commands import add_dataclass_arguments

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
#: The README and every Markdown page of the docs: their commands are checked alike.
PAGES = [README, *sorted((REPO / "docs").rglob("*.md"))]


def test_the_readme_fits_on_a_few_screens_and_installs_before_its_first_table():
    lines = README.read_text().splitlines()
    assert len(lines) <= 300
    install = next(i for i, line in enumerate(lines) if "pip install 'mase-suite[" in line)
    first_code = next(i for i, line in enumerate(lines) if line.startswith("```python"))
    assert install < 40 and install < first_code < 80


def test_every_relative_link_in_the_readme_and_the_guides_resolves():
    pages = [README, *(REPO / "docs").rglob("*.md")]
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            resolved = (page.parent / target).resolve()
            generated = "reference" in resolved.relative_to(REPO).parts  # make docs writes it
            assert generated or resolved.exists(), f"{page.relative_to(REPO)}: {target}"


def test_the_readmes_extras_are_pyprojects():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    text = README.read_text()
    install = text[text.index("## Install") :]
    install = install[: install.index("\n## ", 1)]  # the extras' table, not the results'
    listed = set(re.findall(r"^\| `([\w-]+)`", install, re.M)) | set(
        re.findall(r"^\| `[\w-]+`, `([\w-]+)`", install, re.M)
    )
    assert listed == set(extras), sorted(listed ^ set(extras))  # each extra, and only those
    installed = re.search(r"`make test` installs\s+`([\w,]+)`", text).group(1).split(",")
    makefile = (REPO / "Makefile").read_text()
    assert f'-e ".[{",".join(installed)}]"' in makefile


def trainer_args(name: str) -> type:
    module_name, _ = mase.baselines.TRAINERS[name]
    pytest.importorskip("torch")
    return importlib.import_module(module_name).Args


def commands(page: Path) -> list[list[str]]:
    """Every ``mase ...`` command line of a page's bash blocks (continuations joined)."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", page.read_text(), re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("mase "):
                out.append(shlex.split(line)[1:])
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_mase_command_on_the_page_parses_with_the_flags_it_names(page):
    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    found = commands(page)
    for argv in found:
        assert argv[0] in subcommands, argv
        options = subcommands[argv[0]]._option_string_actions
        if argv[0] == "train":  # a trainer's options: its Args fields, as mase train adds them
            trainer = argparse.ArgumentParser()
            add_dataclass_arguments(trainer, trainer_args(argv[1]))
            options = trainer._option_string_actions
        flags = [a.split("=")[0] for a in argv if a.startswith("--")]
        unknown = [flag for flag in flags if flag not in options]
        assert not unknown, f"{page.name}: mase {' '.join(argv)}: {unknown}"


GUIDE = REPO / "docs" / "guide" / "from_other_libraries.md"


@pytest.mark.parametrize(
    "index", range(len(re.findall(r"```python\n", GUIDE.read_text()))), ids=lambda i: f"block{i}"
)
def test_every_snippet_of_the_from_other_libraries_page_runs(index):
    """The page says that every snippet on it runs as written: each does, to its end."""
    code = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)[index]
    pattern = r"^(?:from|import) (sb3_contrib|stable_baselines3|supersuit|torchrl)"
    for module in re.findall(pattern, code, re.M):
        pytest.importorskip(module)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, str(GUIDE), "exec"), {})  # noqa: S102 - our own documentation


#: Guide pages whose every Python block runs offline in a few seconds.
RUNNABLE = ("getting_started.md", "llm.md")


def python_blocks(*pages: Path) -> list:
    return [
        pytest.param(f"{page.name}:{i}", code, id=f"{page.name}:{i}")
        for page in pages
        for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S))
    ]


@pytest.mark.parametrize(
    "name, code", python_blocks(README, *(REPO / "docs" / "guide" / f for f in RUNNABLE))
)
def test_every_python_block_of_the_readme_and_the_runnable_guides_runs(name, code, monkeypatch):
    """Each block runs as written, on its own, offline (LLM seats on the offline server)."""
    if "mappo" in code:
        pytest.importorskip("torch")
    monkeypatch.setenv("MASE_CACHE", "off")
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, name, "exec"), {})  # noqa: S102 - our own documentation


def test_the_evaluation_guides_run_configuration_is_read_as_written(tmp_path):
    from mase.config import RunConfig

    guide = (REPO / "docs" / "guide" / "evaluation.md").read_text()
    path = tmp_path / "run.toml"
    path.write_text(re.search(r"```toml\n(.*?)```", guide, re.S).group(1))
    config = RunConfig.from_file(path)  # an unknown key would raise, naming itself
    assert config.env == "mase/SearchRescue-v0" and config.env_args == {"witness": True}
    assert len(config.team) == 2 and config.offline is True


def test_the_readmes_policy_names_are_the_ones_make_policy_takes():
    """Every task's names, then each task's own, as ``mase.agents.policy_names`` gives them."""
    from mase.agents import policy_names

    text = README.read_text()
    section = text[text.index("## Baselines and policies") : text.index("## Where the rest is")]
    every = section[: section.index("`mase list` shows")]
    assert set(re.findall(r"`([\w-]+)`", every)) == set(policy_names())
    for env_id in mase.list_envs("mase"):
        own = set(policy_names(mase.make(env_id))) - set(policy_names())
        assert all(f"`{name}`" in section for name in own), (env_id, own)


@pytest.mark.parametrize("page", [README, REPO / "docs" / "index.md"], ids=["README", "index"])
def test_the_task_tables_list_every_registered_task_once(page):
    rows = re.findall(r"^\| \[?`(mase/[\w-]+)`", page.read_text(), re.M)
    assert sorted(rows) == sorted(mase.list_envs("mase"))
