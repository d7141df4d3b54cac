"""The task core keeps every search-and-rescue episode as it was: golden records, part by part.

``tests/golden/search_rescue.json`` holds digests of the records of fixed ``mase eval`` commands
(``tests/golden/golden.py``: scripted, random, random-unmasked and CBS teams over seeds 0-49,
and an offline LLM team with belief states, probes and recorded events over seeds 0-4). A
change that alters episodes on purpose regenerates them with ``python tests/golden/golden.py
--write`` and says why in its commit.
"""

import json

import pytest
from golden import golden

GOLDEN = json.loads(golden.GOLDEN.read_text())


@pytest.mark.parametrize("name", list(golden.COMMANDS))
def test_the_same_commands_give_the_same_episodes(name):
    found = golden.digests([name])[name]
    expected = GOLDEN[name]
    assert len(found) == len(expected)
    differences = [
        f"episode {i}: {', '.join(k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))}"
        for i, (a, b) in enumerate(zip(found, expected, strict=True))
        if a != b
    ]
    assert not differences, f"{name} differs from its golden records in " + "; ".join(
        differences[:5]
    )
