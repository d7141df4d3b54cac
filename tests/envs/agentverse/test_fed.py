"""FED dialogue problems and their judge model, against the offline judge on loopback.

The dialogues are made up for these tests; none is FED's.
"""

import copy
import doctest
import json
import pickle

import pytest

from mase.envs.agentverse import judge as judges
from mase.envs.agentverse.env import AgentVerseEnv
from mase.envs.agentverse.judge import (
    Judge,
    JudgeNotConfigured,
    offline_judge,
    overlap_rating,
    read_rating,
)
from mase.envs.agentverse.problems import Problem, dialogue_turns, fed
from mase.llm import Faults, OfflineServer

FED_RECORDS = [
    {  # turn-level: the context ends with the user, the rated response beside it
        "context": "User: I started baking bread last week.\nSystem: Nice! What kind?\n"
        "User: Sourdough, but my loaves come out flat.",
        "response": "System: Flat sourdough often means a weak starter; feed it twice a day.",
        "system": "Human",
    },
    {  # dialogue-level: no response, the dialogue ends with the system
        "context": "User: Do you like trains?\nSystem: I do, especially night trains.\n"
        "User: Where would you go\nby night train?\nSystem: Vienna, to see the opera.",
    },
]
JSONL_RECORDS = [
    {"context": ["User: Any tips for a first marathon?"], "id": "run-1"},
    {"context": ["My cat ignores me.", "Cats do that. Does she eat well?", "She eats plenty."]},
]
CONTEXT = "User: My tomato plants have yellow leaves.\nSystem: How often do you water them?"


@pytest.fixture(autouse=True)
def _no_judge_in_the_environment(monkeypatch):
    for name in ("MASE_JUDGE_MODEL", "MASE_JUDGE_BASE_URL", "MASE_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fed_file(tmp_path):
    path = tmp_path / "fed_data.json"
    path.write_text(json.dumps(FED_RECORDS), encoding="utf-8")
    return path


@pytest.fixture
def jsonl_file(tmp_path):
    path = tmp_path / "dialogues.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in JSONL_RECORDS), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server():
    with OfflineServer(offline_judge) as running:
        yield running


def judge_at(server, **settings):
    return Judge(server.base_url, "offline-judge", cache=False, **settings)


class Counting:
    """A responder that says ``reply`` (or the offline judge's words), failing its first calls."""

    def __init__(self, reply=None, fail_first=0):
        self.reply, self.fail_first, self.calls = reply, fail_first, 0

    def __call__(self, messages):
        self.calls += 1
        if self.calls <= self.fail_first:
            raise RuntimeError("the judge's host fell over")
        return offline_judge(messages) if self.reply is None else self.reply


# -- the file layouts -----------------------------------------------------------------------------


def test_feds_released_layout_asks_for_the_next_system_turn(fed_file, server):
    first, second = fed(fed_file, judge=judge_at(server))
    assert (first.id, first.source, first.kind) == ("fed/0", "fed", "dialogue")
    assert first.truth == (
        ("User", "I started baking bread last week."),
        ("System", "Nice! What kind?"),
        ("User", "Sourdough, but my loaves come out flat."),
    )
    assert "User: Sourdough, but my loaves come out flat.\n\nWrite the system's next turn" in (
        first.prompt
    )
    assert first.extra["reference"].startswith("Flat sourdough")  # its label dropped
    assert first.extra["system"] == "Human"
    # the dialogue-level record: its last system turn is the reference; a wrapped line joins
    assert second.truth[-1] == ("User", "Where would you go by night train?")
    assert second.extra["reference"] == "Vienna, to see the opera."
    assert "Vienna" not in second.prompt
    assert len(fed(fed_file, n=1, judge=judge_at(server))) == 1


def test_jsonl_turns_are_labelled_or_alternate_ending_with_the_user(jsonl_file, server):
    marathon, cat = fed(jsonl_file, judge=judge_at(server))
    assert marathon.id == "run-1" and marathon.truth == (
        ("User", "Any tips for a first marathon?"),
    )
    assert [speaker for speaker, _ in cat.truth] == ["User", "System", "User"]
    assert cat.id == "fed/1" and cat.extra["reference"] is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('[{"dialogue": "User: hi"}]', "record 0 has no 'context'"),
        ('[{"context": "hello there\\nUser: hi"}]', "starts without 'User:'"),
        ('{"context": ["User: hi", "hello"]}', "label every turn"),
        ('{"context": [1, 2]}', "turns' texts"),
        ('{"context": ["User: a"]}\n{"context": ', "line 2 is not JSON"),
        ('"a string"', "a list of records"),
        ('[{"context": ""}]', "empty context"),
    ],
)
def test_a_malformed_file_is_refused_with_the_record_named(tmp_path, server, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        fed(path, judge=judge_at(server))


def test_dialogue_turns_of_a_string_and_of_a_list_agree():
    text = "User: Hi!\nSystem: Hello.\nUser: Plans?"
    assert dialogue_turns(text) == dialogue_turns(["Hi!", "Hello.", "Plans?"])
    assert dialogue_turns(text) == dialogue_turns(text.split("\n"))


# -- no judge -------------------------------------------------------------------------------------


def test_without_a_judge_loading_says_how_to_configure_one(fed_file):
    with pytest.raises(JudgeNotConfigured) as raised:
        fed(fed_file)
    message = str(raised.value)
    assert "no judge model is named" in message
    assert "--env-arg judge=" in message and "MASE_JUDGE_MODEL" in message


def test_without_a_judge_scoring_says_how_to_configure_one():
    problem = Problem("fed/x", "fed", "Reply.", (("User", "Hi"),), "dialogue")
    with pytest.raises(JudgeNotConfigured, match="MASE_JUDGE_MODEL"):
        problem.score("Hello!")


def test_a_remote_judge_without_a_key_is_refused_before_any_call(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeNotConfigured, match="OPENAI_API_KEY"):
        Judge("https://judge.invalid/v1", "some-model")


def test_judge_settings_come_from_a_dict_or_the_variables(fed_file, server, monkeypatch):
    judge = Judge.of({"base_url": server.base_url, "model": "offline-judge", "cache": False})
    assert judge.config.temperature == 0 and judge.config.max_tokens == 300
    with pytest.raises(ValueError, match="no settings \\['modle'\\]"):
        Judge.of({"base_url": server.base_url, "modle": "x"})
    monkeypatch.setenv("MASE_JUDGE_MODEL", "offline-judge")
    monkeypatch.setenv("MASE_JUDGE_BASE_URL", server.base_url)
    (problem, _) = fed(fed_file)
    assert problem.extra["judge"].config.base_url == server.base_url
    assert problem.judge("Feed the sourdough starter; flat loaves need it.").error is None


# -- scoring through the openai client ------------------------------------------------------------


def test_a_reply_scores_the_offline_judges_rating_and_its_words_explain_it(server):
    problem = fed_problem(judge_at(server))
    reply = "Yellow tomato leaves often mean you water the plants too much."
    rating, shared, _ = overlap_rating(CONTEXT, reply)
    assert rating == 5 and set(shared) >= {"yellow", "tomato", "leaves"}
    verdict = problem.judge(reply)
    assert verdict.score == 1.0 and verdict.error is None
    assert verdict.explanation.startswith("The judge rated the response 5 of 5: The response")
    off_topic = problem.judge("System: I enjoy jazz on rainy evenings, honestly.")
    assert off_topic.score == 0.25  # no shared word, the right length: 2 of 5


def test_a_score_and_its_explanation_cost_one_call():
    responder = Counting()
    with OfflineServer(responder) as counted:
        problem = fed_problem(judge_at(counted))
        reply = "Check the leaves for spots."
        assert problem.score(reply) == problem.score(reply)
        assert "The judge rated" in problem.explain(reply)
    assert responder.calls == 1


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("I'd give it a 4 out of 5.", 0.75),
        ("Specific and kind.\n**Rating:** 5", 1.0),
        ("Rather generic.\n\n**2**", 0.25),
        ("Overall: 3/5. Fluency: 5/5.", 0.5),
    ],
)
def test_the_judges_paraphrased_ratings_are_read(reply, score):
    with OfflineServer(lambda messages: reply) as fixed:
        verdict = fed_problem(judge_at(fixed)).judge("Water them less often.")
    assert verdict.score == score and verdict.error is None


def test_an_unreadable_rating_scores_0_with_the_reason_never_a_guess():
    with OfflineServer(lambda messages: "A thoughtful answer, I would say.") as vague:
        verdict = fed_problem(judge_at(vague)).judge("Water them less often.")
    assert verdict.score == 0.0
    assert verdict.error == "unreadable rating: no rating found in the reply"
    assert "could not be read" in verdict.explanation and "thoughtful" in verdict.explanation


def test_an_empty_reply_scores_0_without_asking():
    responder = Counting()
    with OfflineServer(responder) as counted:
        verdict = fed_problem(judge_at(counted)).judge("  System:  ")
    assert (verdict.score, verdict.explanation, verdict.error) == (
        0.0,
        "The response is empty.",
        None,
    )
    assert responder.calls == 0


# -- a misbehaving judge endpoint -----------------------------------------------------------------


def test_a_500_is_retried_by_the_client():
    responder = Counting(fail_first=1)
    with OfflineServer(responder) as flaky:
        verdict = fed_problem(judge_at(flaky)).judge("Water them less often.")
    assert responder.calls == 2 and verdict.error is None and verdict.score > 0


def test_500s_past_the_retries_are_recorded_not_raised():
    with OfflineServer(offline_judge, faults=Faults(error_rate_500=1.0)) as broken:
        judge = judge_at(broken, max_retries=1)
        problem = fed_problem(judge)
        verdict = problem.judge("Water them less often.")
        assert verdict.score == 0.0 and verdict.error.startswith("judge call failed: ")
        assert "500" in verdict.error and "could not be asked" in verdict.explanation
        # the explanation of the same reply is of the same failure, not a second call
        assert problem.explain("Water them less often.") == verdict.explanation
        assert judge.client.requests == 1


@pytest.mark.parametrize("fault", ["hang", "refused"])
def test_a_dropped_or_silent_connection_is_recorded_not_raised(fault):
    faults = Faults(timeout_rate=1.0, timeout_seconds=5.0) if fault == "hang" else None
    endpoint = OfflineServer(offline_judge, faults=faults).start()
    if fault == "refused":
        endpoint.stop()
    try:
        judge = judge_at(endpoint, timeout=0.2, max_retries=0)
        verdict = fed_problem(judge).judge("Water them less often.")
    finally:
        endpoint.stop()
    assert verdict.score == 0.0 and verdict.error.startswith("judge call failed: API")


def test_a_failure_is_asked_again_after_another_request():
    responder = Counting(fail_first=2)
    with OfflineServer(responder) as flaky:
        problem = fed_problem(judge_at(flaky, max_retries=0))
        assert problem.judge("Water them less often.").error is not None
        assert problem.judge("Move them into the sun.").error is not None
        assert problem.judge("Water them less often.").error is None


# -- the rating reader ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Rating: 4", 4),
        ("4/5", 4),
        ("**4**", 4),
        ("I'd give it a 4 out of 5", 4),
        ("Relevant and warm.\nRating: 4.", 4),
        ("rating: 2\n", 2),
        ("My score is 5", 5),
        ("Score of 3.", 3),
        ("I would rate this response 2.", 2),
        ("four out of five", 4),
        ("Final rating: 3 (acceptable)", 3),
        ("Overall quality: 4/5; relevance 5/5, fluency 3/5", 4),
        ("Rating: 4.5", 4.5),
        ("Rating: 4 - good", 4),
        ("1. It answers.\n2. It is fluent.\nRating: 5", 5),
        ("The reply is fine.\n\n3", 3),
        ("On a scale of 1 to 5, I rate it 3/5.", 3),
        ("I wouldn't give it a 5; I'd give it a 3.", 3),
    ],
)
def test_paraphrases_of_a_rating_are_read(text, value):
    rating = read_rating(text)
    assert rating.value == value, rating.reason
    assert rating.score == pytest.approx((value - 1) / 4)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the reply is empty"),
        ("A fine, relevant reply.", "no rating found"),
        ("Rating: 8/10", "not on the scale of 1 to 5: Rating: 8/10"),
        ("Rating: 7", "not on the scale"),
        ("Rating: 0", "not on the scale"),
        ("Rating: 3\nOn reflection, rating: 4", "conflicting ratings: Rating: 3 and rating: 4"),
        ("Relevance 5/5, engagement 2/5.", "conflicting ratings"),
        ("Rating: 1-5", "no rating found"),
        ("someone out of 5 would say so", "no rating found"),
    ],
)
def test_an_unreadable_rating_says_why(text, reason):
    rating = read_rating(text)
    assert rating.value is None and rating.score is None
    assert reason in rating.reason


def test_the_offline_judge_rates_by_its_stated_rule_and_reads_its_own_prompt():
    judge = Judge("http://127.0.0.1:9/v1", "offline-judge", cache=False)  # never called
    reply = "Yellow leaves? Water the tomato plants less."
    said = offline_judge(judge.messages(CONTEXT, reply))
    assert read_rating(said).value == overlap_rating(CONTEXT, reply)[0] == 5
    assert overlap_rating(CONTEXT, "Yes.") == (1, (), 1)  # too short, nothing shared
    assert read_rating(offline_judge([{"role": "user", "content": "hi"}])).value is None


# -- in the protocol ------------------------------------------------------------------------------


def test_the_protocol_feeds_the_judges_words_back_and_ends_on_its_score(fed_file, server):
    problems = fed(fed_file, judge=judge_at(server))
    env = AgentVerseEnv(problems, experts=1, recruit=False, evaluator="auto", iterations=2)
    replies = iter(
        ["I like bread.", "A flat sourdough loaf needs a stronger starter and bread flour."]
    )
    env.reset(seed=0)
    for _agent in env.agent_iter():
        _, _, done, cut, _ = env.last()
        env.step(None if done or cut else next(replies))
    first, second = env.unwrapped.history
    assert first.feedback.startswith("The judge rated the response 3 of 5: The response shares")
    assert (first.score, second.score) == (0.5, 1.0)
    assert env.unwrapped.metrics()["score"] == 1.0 and env.unwrapped.metrics()["solved"] == 1.0


def test_a_problem_with_its_judge_copies_and_pickles(fed_file, server):
    problem = fed(fed_file, judge=judge_at(server))[0]
    for twin in (copy.deepcopy(problem), pickle.loads(pickle.dumps(problem))):
        assert twin.extra["judge"].config == problem.extra["judge"].config
        assert twin.judge("Feed the sourdough starter daily.") == problem.judge(
            "Feed the sourdough starter daily."
        )


def test_docstring_examples():
    result = doctest.testmod(judges, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def fed_problem(judge):
    """A problem whose conversation is :data:`CONTEXT`, judged by ``judge``."""
    turns = dialogue_turns(CONTEXT)
    return Problem("fed/tomato", "fed", "Reply.", turns, "dialogue", extra={"judge": judge})
