"""Debate's rules as the paper and the released code state them, played move by move."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import mase
from mase.envs.debate import text as words
from mase.envs.debate.bots import DebateBot
from mase.envs.debate.questions import Question, arithmetic
from mase.runner import run_episode

_path = Path(__file__).resolve().parents[3] / "benchmarks" / "debate_offline.py"
_spec = importlib.util.spec_from_file_location("debate_offline", _path)
bench = sys.modules["debate_offline"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)  # its closed form, written from the mind's description

Q = Question(
    "hand/0", "hand", "What is 2+3? Make sure to state your answer at the end.", 5, "number"
)
LETTER = Question(
    "hand/1", "hand", "Pick (X): A) 1, B) 2, C) 3, D) 4", "C", "choice", ("A", "B", "C", "D")
)


def debate(**kwargs):
    env = mase.make("mase/Debate-v0", questions=[Q], **kwargs)
    env.reset(seed=0)
    return env, env.unwrapped


def test_a_rounds_answers_are_secret_until_every_agent_has_answered():
    env, base = debate()
    env.step("I think it is 5.")  # alpha
    assert "5." not in base.observe_text("bravo") and not base.received_messages("bravo")
    env.step("It is 6.")  # bravo
    assert "It is 6." not in base.observe_text("charlie")
    env.step("Surely 7.")  # charlie: the round is complete
    seen = base.observe_text("alpha")
    assert "Round 2 of 2." in seen
    assert "Your answer in round 1: ```I think it is 5.```" in seen
    assert words.OPINIONS_HEAD in seen and "One agent response: ```It is 6.```" in seen
    assert "One agent response: ```Surely 7.```" in seen and seen.count("One agent response") == 2
    assert "Use these opinions carefully as additional advice" in seen  # the released words


def test_the_final_answer_is_the_majority_of_the_last_round():
    env, base = debate()
    for reply in ("5", "6", "7", "6", "5", "6"):
        env.step(f"My answer is {reply}.")
    m = env.infos["alpha"]["metrics"]
    assert m["final_answer"] == 6 and m["correct"] == 0.0 and m["round1_correct"] == 1.0
    assert m["right_to_wrong"] == 1 and m["wrong_to_right"] == 1  # alpha 5 to 6, bravo 6 to 5


def test_a_tie_goes_to_the_answer_given_first_in_seat_order():
    env, base = debate(agents=4, rounds=1)
    for reply in ("6", "5", "5", "6"):
        env.step(reply)
    assert env.infos["alpha"]["metrics"]["final_answer"] == 6


def test_unreadable_answers_are_left_out_of_the_vote_and_none_readable_is_wrong():
    env, base = debate(rounds=1)
    for reply in ("no idea", "5", "I refuse"):
        env.step(reply)
    m = env.infos["alpha"]["metrics"]
    assert m["final_answer"] == 5 and m["correct"] == 1.0 and m["unreadable_answers"] == 2
    env, base = debate(rounds=1)
    for reply in ("no idea", "", "pass"):
        env.step(reply)
    m = env.infos["alpha"]["metrics"]
    assert m["final_answer"] is None and m["correct"] == 0.0 and m["unreadable"] == 1.0
    assert m["ended_by"] == "unreadable" and all(r == 0.0 for r in env.rewards.values())


def test_every_seat_is_rewarded_when_the_final_answer_is_right():
    env, base = debate(rounds=1)
    for _ in range(3):
        env.step("5")
    assert all(env._cumulative_rewards[a] == 1.0 for a in env.possible_agents)


def test_a_lone_agent_reflects_and_a_one_round_team_votes_without_debate():
    env, base = debate(agents=1, rounds=2)
    env.step("It is 4.")
    assert words.REFLECTION in base.observe_text("alpha")
    env.step("Checking again: 5.")
    assert env.infos["alpha"]["metrics"]["final_answer"] == 5
    env, base = debate(agents=3, rounds=1)  # majority vote: no reading
    env.step("4")
    env.step("5")
    env.step("5")
    assert not env.agents or all(env.terminations.values())


def test_summaries_replace_the_answers_between_rounds():
    env, base = debate(summarize=True)
    assert env.possible_agents[-1] == "summarizer"
    for reply in ("5", "6", "5"):
        env.step(reply)
    assert not base.received_messages("bravo")  # debaters do not hear each other
    blocks = base.vector_layout("bravo").split(env.observe("bravo")["observation"])
    assert blocks["answers"][2:].sum() == 0  # nor see the others' answers in the vector
    blocks = base.vector_layout("summarizer").split(base.observe("summarizer")["observation"])
    assert blocks["answers"].sum() > 0 and blocks["shown"].all()  # the summarizer does
    assert (
        env.agent_selection == "summarizer"
        and "Charlie's response: ```5```" in base.observe_text("summarizer")
    )
    env.step("Two agents say 5, one says 6.")
    seen = base.observe_text("alpha")
    assert "Two agents say 5, one says 6." in seen and "One agent response" not in seen
    for reply in ("5", "5", "5"):  # the last round is heard by the debaters: no summary after it
        env.step(reply)
    assert env.infos["alpha"]["metrics"]["correct"] == 1.0


def test_an_index_is_said_as_that_answer_where_the_answers_are_finite():
    env = mase.make("mase/Debate-v0", questions=[LETTER], rounds=1)
    env.reset(seed=0)
    assert env.action_space("alpha").n == 4 and env.observe("alpha")["action_mask"].all()
    env.step(2)  # (C)
    env.step("(B)")
    env.step(2)
    assert env.unwrapped.debate.replies[0]["alpha"] == "My answer is (C)."
    assert env.infos["alpha"]["metrics"]["final_answer"] == "C"
    arith = mase.make("mase/Debate-v0", n_questions=3)
    arith.reset(seed=1)
    truth = arith.unwrapped.debate.question.answer
    arith.step(arith.unwrapped.choices.index(truth))
    assert arith.unwrapped.debate.read[0]["alpha"] == truth


def test_episode_seed_asks_that_question_and_personas_reach_the_rules():
    env = mase.make("mase/Debate-v0", personas=["a careful mathematician", "", "a skeptic"])
    env.reset(seed=7)
    assert env.unwrapped.debate.question == arithmetic()[7]
    assert "Your persona: a careful mathematician" in env.unwrapped.rules_text("alpha")
    assert "persona" not in env.unwrapped.rules_text("bravo")
    env.reset(options={"question": 3})
    assert env.unwrapped.debate.question.id == "arithmetic/3"


BAD = [{"agents": 0}, {"rounds": 0}, {"prompt": "loud"}, {"summarize": True, "agents": 1},
       {"personas": ["x"]}, {"source": "bigbench"}, {"source": "poetry", "path": "x"}]  # fmt: skip


@pytest.mark.parametrize("bad", BAD)
def test_bad_settings_are_clear_errors(bad):
    with pytest.raises(ValueError):
        mase.make("mase/Debate-v0", **bad)


# -- the offline mind: its numbers follow from p and q --------------------------------------


@pytest.mark.parametrize(("agents", "rounds"), [(3, 2), (2, 3)])
def test_the_minds_debate_accuracy_follows_from_its_two_numbers(agents, rounds):
    p, q, n = 0.6, 0.7, 400
    env = mase.make("mase/Debate-v0", n_questions=n, agents=agents, rounds=rounds)
    team = {a: DebateBot(p, q) for a in env.possible_agents}
    correct = [run_episode(env, team, seed=s)["metrics"]["correct"] for s in range(n)]
    expected = bench.expected(agents, rounds, p, q)
    half_width = 3 * np.sqrt(expected * (1 - expected) / n)
    assert abs(np.mean(correct) - expected) < half_width
    single = mase.make("mase/Debate-v0", n_questions=n, agents=1, rounds=1)
    alone = [run_episode(single, {"alpha": DebateBot(p, q)}, seed=s)["metrics"]["correct"]
             for s in range(n)]  # fmt: skip
    assert abs(np.mean(alone) - p) < 3 * np.sqrt(p * (1 - p) / n)
