"""The sandbox's cost: bubblewrap's child beside the unconfined one, in the same run.

Three workloads, each run ``--calls`` times in each child, the two children taking turns so
that both see the same machine: a trivial program (``print(1)``: the start-up and per-call cost
of a child), a CodeAct turn (Avalon's offline model's program, ``envs/avalon/language_model.py``
``PROGRAM``, over a seat's facts after three quests: it enumerates every deal of the evil
players), and a HumanEval-style problem (a function and its check, as the coding tasks run
one). It prints the median and mean seconds per call of each, their ratio and the goal: at most
1.5 times the unconfined child's per-call time. Exits 1 when a median ratio misses the goal.

Both children start the same interpreter, set the same rlimits and run the same audit hook;
bubblewrap's adds its namespaces, mounts and the seccomp filter (``mase.sandbox``).

Run: python benchmarks/sandbox.py [--calls 30]
"""

import argparse
import statistics
import sys
import time

from mase.envs.avalon.language_model import PROGRAM as AVALON_PROGRAM
from mase.sandbox import confinement_problem, run_code

GOAL = 1.5

AVALON_FACTS = {
    "players": ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"],
    "me": "alpha",
    "my_side": "good",
    "known_sides": {},
    "evil_count": 3,
    "quests": [
        {"team": ["alpha", "bravo"], "fails": 0, "my_card": "success"},
        {"team": ["charlie", "delta", "echo"], "fails": 1, "my_card": None},
        {"team": ["alpha", "foxtrot", "golf", "bravo"], "fails": 1, "my_card": "success"},
    ],
}

HUMAN_EVAL = '''
from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    """Check if in given list of numbers, are any two numbers closer to each other than
    given threshold."""
    for i, a in enumerate(numbers):
        for j, b in enumerate(numbers):
            if i != j and abs(a - b) < threshold:
                return True
    return False


def check(candidate):
    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True
    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False
    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) == True
    assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.8) == False
    assert candidate([1.0, 2.0, 3.0, 4.0, 5.0, 2.0], 0.1) == True
    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 1.0) == True
    assert candidate([1.1, 2.2, 3.1, 4.1, 5.1], 0.5) == False


check(has_close_elements)
print("passed")
'''

WORKLOADS = (  # (name, program, facts, what it must print)
    ("trivial program", "print(1)", {}, "1"),
    ("CodeAct turn (Avalon)", AVALON_PROGRAM, AVALON_FACTS, '{"p_evil"'),
    ("HumanEval problem", HUMAN_EVAL, {}, "passed"),
)


def measure(code: str, facts: dict, expected: str, calls: int) -> dict[bool, list[float]]:
    """Seconds per call of each child (True: unconfined), the two taking turns."""
    seconds: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(calls):
        for unconfined in (False, True):
            started = time.perf_counter()
            result = run_code(code, facts, unconfined=unconfined, timeout_s=10.0)
            seconds[unconfined].append(time.perf_counter() - started)
            if not result.ok or not result.stdout.startswith(expected):
                raise SystemExit(f"the program failed ({result.reason}): {result.error}")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="calls per child and workload")
    args = parser.parse_args()
    problem = confinement_problem()
    if problem is not None:
        print(f"cannot measure: {problem}", file=sys.stderr)
        return 2
    for code, facts, expected in ((w[1], w[2], w[3]) for w in WORKLOADS):  # warm the caches
        measure(code, facts, expected, 2)
    print(f"per call, {args.calls} calls each ({sys.executable})")
    header = f"{'workload':24s} {'unconfined':>17s} {'bubblewrap':>17s} {'ratio':>7s}  goal"
    print(header + "\n" + "-" * len(header))
    missed = False
    for name, code, facts, expected in WORKLOADS:
        seconds = measure(code, facts, expected, args.calls)
        old, new = (statistics.median(seconds[flag]) for flag in (True, False))
        means = [statistics.mean(seconds[flag]) for flag in (True, False)]
        ratio = new / old
        missed |= ratio > GOAL
        pairs = zip((old, new), means, strict=True)
        cells = [f"{m * 1000:6.1f} (mean {a * 1000:5.1f})" for m, a in pairs]
        verdict = "met" if ratio <= GOAL else "MISSED"
        print(f"{name:24s} {cells[0]:>17s} {cells[1]:>17s} {ratio:6.2f}x  <= {GOAL}x {verdict}")
    print("milliseconds: median (mean)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
