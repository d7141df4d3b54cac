"""Record one episode of each task, write its replay page, and take the screenshots shown here.

Run from the repository root with Chromium installed (Debian: ``apt-get install chromium``):

    .venv/bin/python docs/replay/shoot.py

Model seats are the tasks' offline models (no key, no network), so the pages show messages,
belief scores and probe answers; the episodes are seeded, so the pictures are the same each run.
"""

import shutil
import sys
import tempfile
from pathlib import Path

import mase
from mase.llm import LLMConfig, offline_server
from mase.replay import browser, write_replay

HERE = Path(__file__).resolve().parent

#: file name -> (task, team, evaluation flags, the step to show, show hidden roles)
SHOTS = {
    "search_rescue": (
        "mase/SearchRescue-v0",
        "llm-belief",
        {"probes": True, "belief": True},
        12,
        False,
    ),
    "avalon": ("mase/Avalon-v0", "llm", {"probes": True}, 40, True),
    "debate": ("mase/Debate-v0", "llm", {}, 5, False),
    "deliberation": ("mase/MenuDesign-v0", "scripted", {}, 3, False),
    "craft": ("mase/Craft-v0", "scripted", {}, 20, False),
    "agentverse": ("mase/AgentVerse-v0", "scripted", {}, 12, False),
}
#: file name -> the window of a close-up beside the full shot (the README's picture: narrow
#: enough to be shown at full size, so its text stays readable)
CLOSE_UPS = {"search_rescue": (1000, 690)}


def main() -> int:
    """Record, write and photograph each task's page; 1 when Chromium is missing."""
    if browser.find_chromium() is None:
        print("Chromium is not installed (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="mase-shots-"))
    try:
        for name, (env_id, team, flags, step, secrets) in SHOTS.items():
            out = work / name
            if team.startswith("llm"):
                with offline_server(env_id) as server:
                    config = LLMConfig(base_url=server.base_url, cache=False)
                    mase.evaluate(env_id, team, episodes=1, out=out, record=True, llm=config,
                                  **flags)  # fmt: skip
            else:
                mase.evaluate(env_id, team, episodes=1, out=out, record=True, **flags)
            page = write_replay(out, view="analyst")  # the drawings with every secret shown
            png = browser.screenshot(page, HERE / f"{name}.png", step=step, secrets=secrets or None)
            print(f"{env_id}: {png.relative_to(HERE.parents[1])}")
            if name in CLOSE_UPS:
                close = HERE / f"{name}_close.png"
                browser.screenshot(
                    page, close, step=step, size=CLOSE_UPS[name], secrets=secrets or None
                )
                print(f"{env_id}: {close.relative_to(HERE.parents[1])}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
