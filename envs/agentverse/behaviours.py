"""The paper's group behaviours as measured detectors on a protocol run (Chen et al. 2023, §4).

Read from the run's history (:class:`.env.Iteration` records), never from the seats' minds:

* **conformity**: the solver changed its proposal after a review round that criticized it
  (a revision that differs from the proposal reviewed);
* **ignored feedback**: a revision identical to the proposal the reviews criticized, or an
  iteration's decision identical to the last one after its evaluation did not accept it;
* **loops**: a decision that repeats the decision of an earlier iteration (the group came back
  to where it was).

and, when the protocol wraps a task (its execution stage plays the task's episode), from the
actions executed (:class:`.env.Executed` records):

* **volunteering**: an agent made something (gathered, crafted: the task's ``made_by``) that
  only a teammate's sub-goal needs, not its own (the sub-goals as the recruiter assigned them,
  read by the task's ``needs_of``);
* **destructive acts**: a valid action after which the team was further from the goal than
  before (the task's ``progress`` fell: it consumed or destroyed what the goal needed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def volunteering(steps: Sequence[Any], needs: Mapping[str, frozenset[str]]) -> int:
    """Actions that made what a teammate's sub-goal needs and the actor's own does not.

    Args:
        steps: the executed actions (``agent``, ``valid``, ``made``), in order.
        needs: agent -> the items its sub-goal works toward; an agent without one is skipped
            (an action cannot be another's work when the actor has no assignment).
    """
    count = 0
    for step in steps:
        own = needs.get(step.agent)
        if not step.valid or own is None or not step.made:
            continue
        others = set().union(*(n for a, n in needs.items() if a != step.agent))
        if any(item in others and item not in own for item in step.made):
            count += 1
    return count


def destructive_acts(steps: Sequence[Any], tolerance: float = 1e-9) -> int:
    """Valid actions after which the task's progress toward the goal was lower than before."""
    return sum(1 for s in steps if s.valid and s.after < s.before - tolerance)
