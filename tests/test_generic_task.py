"""The LLM agent and the wrappers on a task that is not search and rescue (examples' ColourMatch).

Nothing in them may assume the built-in task: a researcher's own TaskEnv gets LLM seats, direct
messages, text actions, records and their own Theory-of-Mind questions.
"""

import importlib.util
from pathlib import Path

import pytest
from pettingzoo.test import api_test

import mase
from mase.agents import LLMAgent
from mase.llm import LLMConfig, OfflineServer
from mase.probes import Question
from mase.runner import run_episode
from mase.wrappers import BeliefState, MessageChannel, Recorder, TextActions, ToMProbe

_spec = importlib.util.spec_from_file_location(
    "register_task", Path(__file__).resolve().parents[1] / "examples" / "register_task.py"
)
_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_example)
ENV = "examples/ColourMatch-v0"


def picks_probe(context):
    """When the picks are revealed, ask the first agent whether the second saw its pick."""
    for event in context.events:
        if event.kind == "pick" and event.actor == "first" and "second" in event.audience:
            yield Question(
                asked="first",
                level="first_order",
                kind="pick",
                question="Does Second know your pick of the last round?",
                facts=(("pick", "first"),),
                about="second",
            )


def parrot(messages):
    """A model that always picks blue, and says so."""
    return "Action selection: blue\nMessage to Team: I pick blue."


def test_llm_seats_wrappers_and_probes_on_another_task():
    env = Recorder(ToMProbe(MessageChannel(mase.make(ENV), topology="direct"), [picks_probe]))
    with OfflineServer(parrot) as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        team = {seat: LLMAgent(config) for seat in env.possible_agents}
        record = run_episode(env, team, seed=0)
    metrics = record["metrics"]
    assert metrics["matches"] == 10  # both always pick blue
    assert metrics["llm_valid_output_rate"] == 1.0
    probes = record["probes"]
    assert len(probes) == 10 and all(p["truth"] for p in probes)  # the reveal is public
    # the first pick is seen by its picker alone until the second has picked
    first_pick = next(e for e in record["events"] if e["kind"] == "pick")
    assert first_pick["actor"] == "first" and first_pick["audience"] == ["first"]
    # the first agent's message reached the second as text in its observation
    prompts = [c["messages"][-1]["content"] for c in record["seats"]["second"]["calls"]]
    assert any('- First: "I pick blue."' in p for p in prompts)


def test_text_actions_and_the_checker_on_another_task():
    env = TextActions(MessageChannel(mase.make(ENV)))
    env.reset(seed=0)
    env.step("green, I think")
    env.step("purple")
    assert (env.outputs, env.valid_outputs) == (2, 1)
    api_test(Recorder(MessageChannel(mase.make(ENV))), num_cycles=30)


def test_belief_state_needs_a_task_that_writes_beliefs():
    with pytest.raises(TypeError, match="does not write belief states"):
        BeliefState(mase.make(ENV))
