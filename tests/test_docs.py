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


def test_the_api_and_contract_pages_are_there(site):
    api = text(site / "api.html")
    for name in ("TaskEnv", "evaluate", "crossplay", "write_replay", "ToMProbe", "Recorder"):
        assert name in api
    assert "scene()" in text(site / "task_contract.html")
    assert (site / "_images").is_dir() and any((site / "_images").glob("*.png"))
