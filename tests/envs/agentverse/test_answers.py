"""Values across the sandbox's boundary, and the rounds in which the tests' calls are answered."""

import json
import math
import random
from collections import Counter, OrderedDict, namedtuple

import pytest

from mase.envs.agentverse import answers, coding
from mase.envs.agentverse.answers import MARKER, Opaque, decode, encode, read_answers
from mase.envs.agentverse.coding import CodeTask, run_tests


def through(value):
    """``value`` as the other side reads it: encoded, written as JSON, read and decoded."""
    return decode(json.loads(json.dumps(encode(value))))


# -- values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -(2**200),
        2**53,
        1.5,
        -0.0,
        math.inf,
        "héllo\ud800",
        b"\x00\xff",
        bytearray(b"ab"),
        3 - 4j,
        [1, [2, (3, "x")]],
        (),
        {"a": 1, (1, 2): [3], 4: None},
        {1, "a", (2,)},
        frozenset({1}),
    ],
    ids=lambda value: type(value).__name__ + "-" + str(len(repr(value))),  # a set's repr varies
)
def test_plain_data_arrives_equal_and_of_the_same_type(value):
    got = through(value)
    assert got == value and type(got) is type(value)
    assert repr(got) == repr(value)  # -0.0 stays negative, tuples stay tuples


def test_nan_arrives_as_nan():
    assert math.isnan(through(math.nan))


def test_subclasses_arrive_as_the_data_they_hold():
    class Yes(int):
        __hash__ = int.__hash__

        def __eq__(self, other):
            return True

        def __int__(self):
            return 99  # never called: the value is read by int's own method

    class Lying(list):
        def __iter__(self):
            return iter([1, 2, 3])

    Point = namedtuple("Point", "x y")
    assert type(through(Yes(4))) is int and through(Yes(4)) == 4 and through(Yes(4)) != 5
    assert through(Lying([7])) == [7]
    assert through(Counter("aab")) == {"a": 2, "b": 1} and type(through(Counter())) is dict
    assert through(OrderedDict(a=1)) == {"a": 1}
    assert through(Point(1, 2)) == (1, 2) and type(through(Point(1, 2))) is tuple
    assert type(through(True)) is bool and type(through(1)) is int


def test_anything_else_is_opaque_and_equals_nothing():
    class Yes:
        def __eq__(self, other):
            return True

        def __bool__(self):
            return False

    class Unsure:
        def __bool__(self):
            raise ValueError("no")

    cyclic = [1]
    cyclic.append(cyclic)
    deep = nested = []
    for _ in range(answers.MAX_DEPTH + 5):
        nested.append([])
        nested = nested[0]
    for value in (Yes(), (x for x in ()), object(), cyclic, deep):
        got = through(value)
        assert got != value or isinstance(got, Opaque)
    yes = through(Yes())
    assert isinstance(yes, Opaque) and yes != 1 and yes != yes.__class__ and not yes
    assert yes.type_name == "Yes"
    with pytest.raises(TypeError, match="truth of a Unsure"):
        bool(through(Unsure()))
    assert isinstance(through(cyclic)[1], Opaque)


@pytest.mark.parametrize(
    "data",
    [{"t": [1], "x": 2}, {"zz": []}, {"i": 5}, {"d": [[1]]}, {"s": [[1]]}, {"o": 1}, ({1: 2},)],
    ids=repr,
)
def test_what_encode_does_not_write_is_refused(data):
    with pytest.raises((ValueError, TypeError)):
        decode(data)


def test_a_call_with_an_argument_that_is_not_data_is_refused():
    assert answers.encode_call((1, [2]), {"k": "v"}) == answers.encode_call((1, [2]), {"k": "v"})
    with pytest.raises(ValueError, match="a function cannot be passed"):
        answers.encode_call((lambda: 1,), {})


# -- answer lines ---------------------------------------------------------------------------------


def line(index, answer):
    return MARKER + json.dumps([index, answer])


def test_answer_lines_are_read_and_what_else_was_printed_is_kept():
    stdout = "hello\n" + line(0, {"value": 3}) + "\nno newline" + line(1, {"value": [1]}) + "\n"
    found, printed, problem = read_answers(stdout, 2)
    assert problem == "" and found == {0: {"value": 3}, 1: {"value": [1]}}
    assert printed == "hello\nno newline\n"


@pytest.mark.parametrize(
    ("stdout", "words"),
    [
        (line(0, {"value": 1}) + "\n" + line(0, {"value": 2}), "answered twice"),
        (line(5, {"value": 1}), "no call has that index"),
        (line(-1, {"value": 1}), "no call has that index"),
        (line(0, {"value": {"zz": 1}}), "could not be read"),
        (line(0, {"value": 1, "extra": 2}), "neither a value nor an exception"),
        (MARKER + '[0, {"value": 1}] trailing', "could not be read"),
        (MARKER + "[[[[[[" * 400, "could not be read"),
    ],
    ids=["twice", "past the end", "negative", "bad value", "extra key", "trailing", "deep"],
)
def test_an_unreadable_answer_makes_the_whole_output_unreadable(stdout, words):
    found, _, problem = read_answers(stdout, 2)
    assert found == {} and words in problem


# -- rounds: the tests run here, on the answers ---------------------------------------------------

TWICE = CodeTask("t/twice", "def f(x):\n", "f", "def check(c):\n    assert c(c(1)) == 4\n")


def test_an_argument_made_of_an_answer_takes_a_second_round():
    run = run_tests(TWICE, "return 2 * x")
    wrong = run_tests(TWICE, "return x + 1")
    assert run.passed and run.runs == 2
    assert not wrong.passed and wrong.reason == "failed" and wrong.runs == 2


def test_more_rounds_than_allowed_is_an_error():
    depth = coding.ROUNDS + 1
    nested = "c(" * depth + "1" + ")" * depth
    task = CodeTask("t/deep", "def f(x):\n", "f", f"def check(c):\n    assert {nested} > 0\n")
    run = run_tests(task, "return x + 1")
    assert not run.passed and run.reason == "error" and run.runs == coding.ROUNDS
    assert f"more than {coding.ROUNDS} runs" in run.explanation


def test_a_test_that_swallows_every_exception_still_needs_every_answer():
    test = "def check(c):\n    try:\n        assert c(2) == 4\n    except:\n        pass\n"
    task = CodeTask("t/bare", "def f(x):\n", "f", test)
    assert run_tests(task, "return 2 * x").passed
    early = run_tests(task, "import os\nos._exit(0)")
    assert not early.passed and early.reason == "incomplete"


def test_the_tests_random_is_their_own_and_this_process_keeps_its_own():
    test = (
        "def check(c):\n    import random\n    from random import randint\n"
        "    for _ in range(20):\n        x = random.randint(0, 9) + randint(0, 9)\n"
        "        assert c(x) == x\n"
    )
    task = CodeTask("t/random", "def f(x):\n", "f", test)
    random.seed(1234)
    before = random.getstate()
    # the function draws from the sandbox's random: the tests' draws are not moved by it
    run = run_tests(task, "import random\nrandom.random()\nreturn x")
    assert run.passed and run.runs == 1
    assert random.getstate() == before


def test_a_function_that_answers_every_call_and_then_hangs_passes():
    prompt = 'def add(x, y):\n    """x + y"""\n'
    add = CodeTask("t/add", prompt, "add", "def check(c):\n    assert c(1, 2) == 3\n")
    hang = "\nimport atexit\natexit.register(lambda: [None for _ in iter(int, 1)])\n"
    run = run_tests(add, hang + "def add(x, y):\n    return x + y\n", timeout_s=0.5)
    assert run.passed
    assert not run_tests(add, hang + "def add(x, y):\n    return x - y\n", timeout_s=0.5).passed


def test_the_tests_call_the_function_by_its_name_too():
    test = "def check(c):\n    assert f(3) == 6 and c(3) == 6\n"
    task = CodeTask("t/name", "def f(x):\n", "f", test)
    assert run_tests(task, "return 2 * x").passed
    assert not run_tests(task, "return 3 * x").passed


def test_a_run_in_the_unconfined_child_says_so():
    task = CodeTask(
        "t/name", 'def f(x):\n    """2x"""\n', "f", "def check(c):\n    assert c(1) == 2\n"
    )
    assert run_tests(task, "return 2 * x").confined
    unconfined = run_tests(task, "return 2 * x", unconfined=True)
    assert unconfined.passed and not unconfined.confined
