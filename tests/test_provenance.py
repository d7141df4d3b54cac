"""What a run says it was (``mase.provenance``): config.json, resuming, ``mase report``'s head."""

import json
import platform
import shutil
import subprocess
from importlib.metadata import version

import pytest

import mase
import mase.provenance
from mase.cli import main
from mase.llm import LLMConfig, offline_server
from mase.provenance import git_commit

ENV = "mase/SearchRescue-v0"


def test_config_json_says_the_versions_the_wrappers_and_their_settings(tmp_path):
    mase.evaluate(ENV, "random", episodes=1, out=tmp_path, probes=0.5, record=True)
    provenance = json.loads((tmp_path / "config.json").read_text())["provenance"]
    found = provenance["versions"]
    assert found["mase"] == version("mase-suite")
    assert found["python"] == platform.python_version()
    assert found["gymnasium"] == version("gymnasium") and found["pettingzoo"] == version(
        "pettingzoo"
    )
    wrappers = {w["wrapper"].rpartition(":")[2]: w["settings"] for w in provenance["wrappers"]}
    assert list(wrappers) == ["MessageChannel", "ToMProbe", "Recorder"]  # innermost first
    assert wrappers["MessageChannel"]["topology"] == "broadcast"
    assert wrappers["ToMProbe"]["rate"] == 0.5
    assert "model_seats" not in provenance  # no model plays


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_commit_is_said_only_from_a_checkout_and_a_changed_tree_is_dirty(tmp_path):
    import mase as package

    here = git_commit()
    head = subprocess.run(["git", "-C", package.__path__[0], "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert (here or {}).get("commit") == (head.stdout.strip() or None)
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("x = 1\n")
    assert git_commit(str(folder)) is None  # not a checkout
    git = ["git", "-C", str(tmp_path), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "init", "-q"], check=True)
    assert git_commit(str(folder)) is None  # a repository that does not track the package
    subprocess.run([*git, "add", "pkg/__init__.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    clean = git_commit(str(folder))
    assert clean["dirty"] is False and len(clean["commit"]) == 40
    (folder / "__init__.py").write_text("x = 2\n")
    assert git_commit(str(folder)) == {"commit": clean["commit"], "dirty": True}


def test_a_run_resumes_under_another_version_and_keeps_both(tmp_path, monkeypatch):
    mase.evaluate(ENV, "random", episodes=1, out=tmp_path)
    first = json.loads((tmp_path / "config.json").read_text())["provenance"]
    monkeypatch.setattr(mase.provenance, "versions", lambda: {"mase": "9.9.9"})
    summary = mase.evaluate(ENV, "random", episodes=2, out=tmp_path, resume=True)
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["provenance"] == first  # the finished episode's
    assert [r["versions"] for r in config["resumed"]] == [{"mase": "9.9.9"}]
    assert summary["resumed"] == config["resumed"] and summary["episodes"] == 2


def test_model_seats_are_said_with_a_public_endpoint_and_never_a_key(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-written")
    with offline_server(ENV) as server:
        secret = server.base_url.replace("http://", "http://me:hunter2@")
        llm = LLMConfig(base_url=secret, api_key="sk-never-written-either", cache=False)
        team = "llm,charlie=llm:other-model,bravo=scripted"
        mase.evaluate(ENV, team, episodes=1, out=tmp_path, llm=llm)
    for name in ("config.json", "summary.json", "episodes.jsonl"):
        text = (tmp_path / name).read_text()
        assert "hunter2" not in text and "sk-never-written" not in text, name
    seats = json.loads((tmp_path / "config.json").read_text())["provenance"]["model_seats"]
    assert seats == {
        "alpha": {"model": llm.model, "endpoint": server.base_url},
        "charlie": {"model": "other-model", "endpoint": server.base_url},
    }


def test_mase_report_begins_with_what_each_run_was(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", ENV, "--team", "llm", "--offline", "--episodes", "1", "--quiet"]
    assert main([*argv, "--probe-rate", "0.5", "--out", str(out), "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"suite: mase {version('mase-suite')}")
    assert f"python {platform.python_version()}" in lines[0]
    assert lines[1] == f"run {out} (llm):"
    assert lines[2].startswith("  models: mase-offline at http://127.0.0.1:")
    assert "(alpha, bravo, charlie)" in lines[2]
    assert lines[3].startswith("  model seats: the task's offline model at http://127.0.0.1:")
    assert "ToMProbe(seed=0, rate=0.5)" in lines[4] and 'topology="broadcast"' in lines[4]
    assert main(["report", str(out), "--format", "json"]) == 0  # stdout stays one document
    printed = capsys.readouterr()
    assert json.loads(printed.out)["results"] and "suite: mase" in printed.err


def test_a_run_from_before_provenance_is_named_not_guessed(tmp_path, capsys):
    mase.evaluate(ENV, "random", episodes=1, out=tmp_path)
    for name in ("summary.json", "config.json"):
        data = json.loads((tmp_path / name).read_text())
        data.pop("provenance")
        (tmp_path / name).write_text(json.dumps(data))
    assert main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "suite:" not in out
    assert f"provenance not recorded (runs made before MASE recorded it): {tmp_path}" in out


@pytest.mark.parametrize("name", ["mase.provenance", "mase.config"])
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_session_that_plays_nothing_adds_no_provenance(tmp_path):
    mase.evaluate(ENV, "random", episodes=1, out=tmp_path)
    before = (tmp_path / "config.json").read_text()
    mase.evaluate(ENV, "random", episodes=1, out=tmp_path, resume=True)
    assert (tmp_path / "config.json").read_text() == before
