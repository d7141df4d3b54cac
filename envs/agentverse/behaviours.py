"""The paper's group behaviours as measured detectors on a protocol run (Chen et al. 2023, §4).

Read from the run's history (:class:`.env.Iteration` records), never from the seats' minds:

* **conformity**: the solver changed its proposal after a review round that criticized it
  (a revision that differs from the proposal reviewed);
* **ignored feedback**: a revision identical to the proposal the reviews criticized, or an
  iteration's decision identical to the last one after its evaluation did not accept it;
* **loops**: a decision that repeats the decision of an earlier iteration (the group came back
  to where it was).

Volunteering and destructive acts need an environment with sub-goals and inventories (the
crafting world); they are counted there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and " ".join(a.split()) == " ".join(b.split())


def behaviours(history: Sequence[Any]) -> dict[str, int]:
    """Counts of conformity, ignored feedback and loops in a run's iterations."""
    conformity = ignored = loops = 0
    for it in history:
        solver = [said for seat, said in it.proposals if seat == "solver"]
        for k, round_reviews in enumerate(it.reviews):
            criticized = any(not ok for _, ok in round_reviews.values())
            if not criticized or k + 1 >= len(solver):
                continue
            if _same(solver[k], solver[k + 1]):
                ignored += 1
            else:
                conformity += 1
    decisions = [it.decision for it in history]
    for i in range(1, len(history)):
        earlier = history[i - 1]
        if not earlier.accepted and _same(decisions[i - 1], decisions[i]):
            ignored += 1
        if any(_same(decisions[i], d) for d in decisions[:i]):
            loops += 1
    return {"conformity": conformity, "ignored_feedback": ignored, "loops": loops}
