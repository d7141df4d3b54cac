"""A replay page in headless Chromium: its self-test, its DOM, a screenshot.

For the tests and the documentation's screenshots. Chromium is a system program (Debian:
``apt-get install chromium``), not a Python dependency: :func:`find_chromium` says whether it
is here. It runs headless with no sandbox (CI runs as root), no GPU and no background
networking (a machine with no network would see its connections refused), in a fresh profile.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["dom", "find_chromium", "screenshot", "selftest"]

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
)


def find_chromium() -> str | None:
    """The Chromium (or Chrome) program here, or ``None``; ``$MASE_CHROMIUM`` names one."""
    named = os.environ.get("MASE_CHROMIUM")
    if named:
        return named
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(page: Path, fragment: str, *args: str, timeout: float = 120) -> str:
    program = find_chromium()
    if program is None:
        raise FileNotFoundError("Chromium is not installed (Debian: apt-get install chromium)")
    url = Path(page).resolve().as_uri() + fragment
    with tempfile.TemporaryDirectory(prefix="mase-chromium-") as profile:
        done = subprocess.run(
            [program, *FLAGS, f"--user-data-dir={profile}", *args, url],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"Chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout


def _fragment(step: int | None, secrets: bool | None) -> str:
    """The page's ``#step=K&secrets`` part: which step it opens on, and the secrets toggle.

    ``secrets``: ``True`` ticks the toggle, ``False`` unticks it (``nosecrets``), ``None``
    leaves the page's own default (ticked on the analyst's page; the other views hold no
    secret to show).
    """
    toggle = {True: ["secrets"], False: ["nosecrets"], None: []}[secrets]
    return "#" + "&".join(([f"step={step}"] if step is not None else []) + toggle)


def dom(page: Path, step: int | None = None, secrets: bool | None = None) -> str:
    """The page's DOM after its scripts ran, showing ``step`` (default: the first)."""
    return _run(page, _fragment(step, secrets), "--virtual-time-budget=3000", "--dump-dom")


def selftest(page: Path) -> dict:
    """What the page's own self-test found (``#selftest``: see :mod:`mase.replay`).

    ``{"steps", "errors", "slider_moved", "scene_changed", "drawn_by_task", "scene_elements",
    "playing", "played_to"}``; ``errors`` holds every uncaught error and console error.
    """
    out = _run(page, "#selftest", "--virtual-time-budget=5000", "--dump-dom")
    start = out.find('<pre id="selftest-result">')
    if start < 0:
        raise RuntimeError("the page wrote no self-test result (its script did not finish)")
    end = out.index("</pre>", start)
    return json.loads(html.unescape(out[start + len('<pre id="selftest-result">') : end]))


def screenshot(
    page: Path,
    out: Path,
    step: int | None = None,
    size: tuple[int, int] = (1280, 860),
    secrets: bool | None = None,
) -> Path:
    """A PNG of the page at ``step`` (``size``: the window, in pixels)."""
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    size_flag = f"--window-size={size[0]},{size[1]}"
    _run(page, _fragment(step, secrets), size_flag, f"--screenshot={out}")
    if not out.is_file():
        raise RuntimeError(f"Chromium wrote no screenshot to {out}")
    return out
