"""Golden records of search and rescue: the same commands must keep giving the same episodes.

Each entry of :data:`COMMANDS` is a ``mase eval`` command line; its ``episodes.jsonl``, with the
wall-clock fields dropped (:func:`normalize`), is digested episode by episode into
``search_rescue.json`` beside this file. ``tests/test_golden.py`` runs the commands again and
compares. A change that alters episodes on purpose (a rule, a default, a wording) regenerates
the file in the same commit and says why:

    python tests/golden/golden.py --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from mase.cli import main

ENV = "mase/SearchRescue-v0"
GOLDEN = Path(__file__).with_name("search_rescue.json")

#: name -> ``mase eval`` arguments (``--out`` and ``--quiet`` are added).
COMMANDS = {
    "scripted": [ENV, "--team", "scripted", "--episodes", "50", "--record"],
    "random": [ENV, "--team", "random", "--episodes", "50", "--record"],
    "random-unmasked": [ENV, "--team", "random-unmasked", "--episodes", "50", "--record"],
    "cbs": [ENV, "--team", "cbs", "--episodes", "50", "--record"],
    "llm-belief-offline": [
        ENV,
        "--team",
        "llm-belief",
        "--episodes",
        "5",
        "--offline",
        "--no-cache",
        "--probes",
        "--belief-state",
        "--record",
    ],  # fmt: skip
}

#: Fields that measure wall-clock time, not what happened.
CLOCK_FIELDS = frozenset(("latency_s",))


def normalize(value: Any) -> Any:
    """``value`` without its wall-clock fields (at any depth)."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items() if k not in CLOCK_FIELDS}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


#: What a run spent on its model calls: a rerun from the response cache spends nothing, so
#: these are what its records may differ in from the first run's.
SPENT_FIELDS = frozenset(("latency_s", "cost_usd", "cached_calls", "cached"))


def unspent(value: Any) -> Any:
    """``value`` without the fields of :data:`SPENT_FIELDS` (at any depth)."""
    if isinstance(value, dict):
        return {k: unspent(v) for k, v in value.items() if k not in SPENT_FIELDS}
    if isinstance(value, list):
        return [unspent(v) for v in value]
    return value


def digest(record: dict) -> dict[str, str]:
    """A short digest of each part of a normalized record (``turns``, ``metrics``, ...)."""
    return {
        key: hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]
        for key, value in sorted(normalize(record).items())
    }


def run(name: str, out: Path) -> list[dict]:
    """Run command ``name`` into ``out``; its normalized episode records."""
    code = main(["eval", *COMMANDS[name], "--seed", "0", "--out", str(out), "--quiet"])
    if code != 0:
        raise RuntimeError(f"mase eval {' '.join(COMMANDS[name])} exited with {code}")
    lines = (out / "episodes.jsonl").read_text().splitlines()
    return [normalize(json.loads(line)) for line in lines]


def digests(names: list[str] | None = None) -> dict[str, list[dict[str, str]]]:
    """Run the commands; name -> the digests of each episode's parts."""
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or list(COMMANDS):
            found[name] = [digest(r) for r in run(name, Path(tmp) / name)]
    return found


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {GOLDEN.name}")
    args = parser.parse_args()
    result = digests()
    if args.write:
        GOLDEN.write_text(json.dumps(result, indent=0) + "\n")
        print(f"wrote {GOLDEN}")
    else:
        golden = json.loads(GOLDEN.read_text())
        for name, found in result.items():
            same = sum(a == b for a, b in zip(found, golden.get(name, []), strict=False))
            print(f"{name}: {same}/{len(found)} episodes as the golden records")
