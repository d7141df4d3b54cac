"""Tools a task offers language agents: the call syntax, bad calls, and the agent's loop."""

import json

import pytest

import mase
from mase import protocol
from mase.agents import LLMAgent
from mase.llm import LLMConfig, offline_server
from mase.runner import run_episode
from mase.tools import Tool, run_tool, tools_text

ADD = {"add": Tool("add", '{"a": 1, "b": 2}', "their sum", lambda a, b: a + b)}


@pytest.mark.parametrize(
    ("reply", "call"),
    [
        ('Call: add({"a": 1, "b": 2})', ("add", '{"a": 1, "b": 2}')),
        ('Let me compute.\n**Call:** add({"a": 1,\n "b": 2})\n', ("add", '{"a": 1,\n "b": 2}')),
        ("call: add()", ("add", "")),
        ("Proposal: Naan; Satay", None),
        ("I will call add later (maybe).", None),
    ],
)
def test_tool_calls_are_read_from_a_line_of_the_reply(reply, call):
    assert protocol.read_tool_call(reply) == call


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("mul", "{}", "there is no tool called 'mul'; the tools: add"),
        ("add", "{a: 1}", "the arguments are not JSON"),
        ("add", "[1, 2]", "write the arguments as a JSON object"),
        ("add", '{"a": 1}', "add cannot use these arguments"),
        ("add", '{"a": 1, "b": 2, "c": 3}', "add cannot use these arguments"),
        ("add", "[" * 100_000, "characters; at most"),
        ("add", "[" * 5_000 + "]" * 5_000, "the arguments are not JSON"),
    ],
)
def test_a_bad_call_is_a_result_that_says_why_never_an_exception(name, arguments, says):
    assert says in run_tool(ADD, name, arguments)


def test_a_good_call_gives_the_result_as_json_cut_to_a_limit():
    assert run_tool(ADD, "add", '{"a": 1, "b": 2}') == "3"
    big = {"big": Tool("big", "{}", "much", lambda: "x" * 10_000)}
    assert run_tool(big, "big", "{}").endswith("[...]")
    assert 'add({"a": 1, "b": 2}): their sum' in tools_text(ADD)


def test_an_llm_seat_calls_the_deliberation_solver_and_plans_by_its_answer():
    with offline_server("mase/MenuDesign-v0") as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        for env_id in ("mase/MenuDesign-v0", "mase/TaskAllocation-v0"):
            env = mase.make(env_id)
            team = {a: LLMAgent(config, tools=True) for a in env.possible_agents}
            record = run_episode(env, team, seed=1)
            assert record["metrics"]["nr"] == pytest.approx(100)
            calls = [
                c for agent in team.values() for c in agent.episode_record()["calls"]
                if c["purpose"] == "tool"
            ]  # fmt: skip
            assert calls, "the seats planned without the solver"
            result = calls[0]["messages"][-1]["content"]
            assert result.startswith(protocol.TOOL_RESULT)
            assert json.loads(result.split("\n")[1])["value"] > 0


def test_without_tools_a_call_line_is_only_talk():
    env = mase.make("mase/MenuDesign-v0")
    env.reset(seed=0)
    env.step('Call: solve_menu({"stock": {}, "values": {}})')
    assert env.unwrapped.current is None and env.unwrapped.invalid_actions == 0
