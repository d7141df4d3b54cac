"""Hostile input at the boundary: each finding of the fuzz, as a scenario, and the fuzzer itself.

The per-task checks (every task, every view) are in ``tests/test_task_contract.py``; here are
the rules on one task each, the describer every error message uses, and a fuzzer that finds
a defect when one is put back.
"""

import math

import numpy as np
import pytest

import mase
import mase.wrappers.message_channel as message_channel
from mase.actions import (
    ActionDictError,
    AgentDone,
    ResetNeeded,
    UsageError,
    brief,
    unclaimed_keys,
)
from mase.fuzz import STACKS, fuzz_task, readable
from mase.hostile import KINDS, Hostile, HostileInt, HostileKey, HostileStr
from mase.wrappers import MessageChannel

TASK = "mase/SearchRescue-v0"


def recursive() -> list:
    loop: list = [1]
    loop.append(loop)
    return loop


class ReprNotText:
    def __repr__(self):
        return 5


class ReprHuge:
    def __repr__(self):
        return "x" * 1_000_000


@pytest.mark.parametrize(
    "value",
    [
        10**5000,
        -(10**5000),
        Hostile(),
        HostileStr("text"),
        HostileInt(3),
        HostileKey(),
        recursive(),
        {10**5000: Hostile()},
        [Hostile(), 10**5000],
        ReprNotText(),
        ReprHuge(),
        math.nan,
        b"\xff" * 10_000,
    ],
    ids=lambda v: type(v).__name__,
)
def test_brief_describes_any_value_in_a_short_line(value):
    text = brief(value)
    assert type(text) is str and 0 < len(text) <= 80


def test_a_huge_integer_is_described_by_its_digits_and_a_raising_object_by_its_type():
    assert brief(10**5000) == "an integer of 5001 digits"
    assert brief(Hostile()) == "a Hostile"


def test_keys_of_mixed_types_and_a_key_of_5000_digits_are_named():
    message = unclaimed_keys({"action": 0, 1: 0, "mood": 1, None: 2, 10**5000: 3, HostileKey(): 4})
    assert "'mood'" in message and "None" in message and "an integer of 5001 digits" in message
    assert "unknown keys" in message and len(message) < 2_000


@pytest.mark.parametrize(
    "given",
    [
        {"action": 0, 1: "x", "y": 2},
        {"action": 0, 10**5000: 1},
        {"action": 0, HostileKey(): 1},
        {"message": "hi"},
        {},
    ],
    ids=["mixed", "huge", "hostile", "no-action", "empty"],
)
def test_an_action_dict_the_task_cannot_take_is_a_clear_error_and_spends_no_turn(given):
    env = mase.make(TASK)
    env.reset(seed=0)
    with pytest.raises(ActionDictError) as caught:
        env.step(given)
    assert isinstance(caught.value, TypeError) and readable(caught.value)
    assert env.unwrapped.turns == 0


@pytest.mark.parametrize(
    "message",
    [10**5000, Hostile(), b"bytes", math.nan, ["nested", ["list"]], recursive(), 7],
    ids=["huge-int", "raising", "bytes", "nan", "nested", "recursive", "int"],
)
def test_a_message_that_is_not_text_is_a_clear_error_and_nothing_is_sent(message):
    env = MessageChannel(mase.make(TASK), topology="direct")
    env.reset(seed=0)
    with pytest.raises(ActionDictError, match="'message' must be text") as caught:
        env.step({"action": 0, "message": message})
    assert readable(caught.value)
    base = env.unwrapped
    assert base.turns == 0 and not [e for e in base.event_log if e.kind == "message"]


def test_a_text_subclass_message_is_sent_as_plain_text():
    env = MessageChannel(mase.make(TASK), topology="direct")
    env.reset(seed=0)
    env.step({"action": 0, "message": HostileStr("bomb 1 is red"), "to": HostileStr("bravo")})
    sent = [e for e in env.unwrapped.event_log if e.kind == "message"]
    assert len(sent) == 1 and type(sent[0].note) is str and "bomb 1 is red" in sent[0].note
    assert sent[0].audience == {"alpha", "bravo"}


@pytest.mark.parametrize(
    "value", [Hostile(), HostileStr("go to room 3"), HostileInt(1)], ids=["obj", "str", "int"]
)
def test_an_object_whose_methods_raise_is_an_invalid_action_with_a_reason(value):
    env = mase.make(TASK)
    env.reset(seed=0)
    env.step(value)
    base = env.unwrapped
    if base.invalid_actions:  # a str or int subclass may name a legal move, read as plain data
        assert base.infos["alpha"]["invalid_action"].strip()
    assert base.turns == 1


def finish(env) -> None:
    for agent in env.agent_iter():
        _, _, ended, cut, _ = env.last(observe=False)
        env.step(None if ended or cut else 0)
        del agent


def test_a_step_after_the_end_under_a_message_channel_says_call_reset():
    env = MessageChannel(mase.make(TASK, max_cycles=1))
    env.reset(seed=0)
    finish(env)
    with pytest.raises(ResetNeeded, match="the episode is over; call reset"):
        env.step({"action": 0, "message": "still here?"})
    assert isinstance(ResetNeeded("x"), RuntimeError)  # the error it was before, too


def test_an_action_for_a_done_agent_is_a_clear_error():
    env = mase.make(TASK, max_cycles=1)
    env.reset(seed=0)
    while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
        env.step(0)
    with pytest.raises(AgentDone, match="env.step\\(None\\)"):
        env.step(3)
    env.step(None)  # the dead step itself is taken


def test_the_parallel_view_names_missing_and_unknown_agents_before_anyone_moves():
    env = mase.make_parallel(TASK)
    env.reset(seed=0)
    base = env.unwrapped
    with pytest.raises(ActionDictError, match=r"no action for \['alpha', 'bravo', 'charlie'\]"):
        env.step({})
    with pytest.raises(ActionDictError, match=r"no action for \['charlie'\]"):
        env.step({"alpha": 0, "bravo": 0})
    with pytest.raises(ActionDictError, match="'zed'.*not live agents"):
        env.step({"alpha": 0, "bravo": 0, "charlie": 0, "zed": 0})
    with pytest.raises(ActionDictError, match="an integer of 5001 digits"):
        env.step({"alpha": 0, "bravo": 0, "charlie": 0, 10**5000: 0})
    with pytest.raises(ActionDictError, match="charlie's action"):
        env.step({"alpha": 0, "bravo": 0, "charlie": {"action": 0, "message": "hi"}})
    with pytest.raises(ActionDictError, match="a dict of every live agent's action"):
        env.step([0, 0, 0])
    assert base.turns == 0  # nobody moved
    _, rewards, *_ = env.step({"alpha": 0, "bravo": 0, "charlie": 0})
    assert base.turns == 3 and set(rewards) == {"alpha", "bravo", "charlie"}


def test_the_parallel_view_after_the_end_says_call_reset():
    env = mase.make_parallel(TASK, max_cycles=1)
    env.reset(seed=0)
    env.step(dict.fromkeys(env.agents, 0))
    assert not env.agents
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step({})


def test_the_single_agent_view_after_the_end_says_call_reset():
    import gymnasium

    env = gymnasium.make(TASK, max_cycles=1)
    env.reset(seed=0)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(0)
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("backend", ["aec", "native"])
def test_a_batch_takes_index_arrays_and_refuses_anything_else_clearly(backend):
    batch = mase.make_vec(TASK, 3, backend=backend)
    with pytest.raises(ResetNeeded):
        batch.step(np.zeros(3, dtype=np.int64))
    batch.reset(seed=0)
    batch.step(np.array([0, 1, 2]))
    batch.step(np.array([0.0, 1.0, 2.0]))  # whole numbers are indices
    batch.step(np.array([10**18, -5, 2**63 - 1]))  # out of range: invalid moves
    batch.step([2**64 - 1, 0, 0])
    for bad in (np.full(3, np.nan), np.array([0.5, 1, 2]), np.array(["go"] * 3), None, Hostile()):
        with pytest.raises(ActionDictError) as caught:
            batch.step(bad)
        assert isinstance(caught.value, ValueError) and readable(caught.value)
    huge = np.empty(3, dtype=object)
    huge[:] = 10**5000
    with pytest.raises(ActionDictError, match="action indices"):
        batch.step(huge)


def test_state_and_the_vector_view_exist_with_obs_mode_text():
    text, vector = mase.make("mase/Debate-v0", obs_mode="text"), mase.make("mase/Debate-v0")
    for env in (text, vector):
        env.reset(seed=5)
    assert np.array_equal(text.state(), vector.state())
    agent = text.possible_agents[0]
    assert np.array_equal(
        text.unwrapped.observe_vector(agent), vector.observe(agent)["observation"]
    )


def test_the_fuzz_covers_every_view_and_kind_of_a_task_that_has_them():
    report = fuzz_task(TASK, steps=1_600, seed=3)
    assert report.crashes == 0 and set(report.stacks) == set(STACKS)
    assert set(KINDS) <= set(report.kinds)
    assert {"after_end", "before_reset", "dead_step", "mapping"} <= set(report.kinds)
    assert report.refused > 0 and report.invalid > 0


def test_the_fuzz_finds_a_step_after_the_end_that_is_not_a_clear_error(monkeypatch):
    """The defect the audit found, put back: the channel looks the seat up after the end."""
    monkeypatch.setattr(message_channel, "check_playing", lambda base: None)
    report = fuzz_task(TASK, steps=600, seed=0, stacks=("channel",), raise_on_crash=False)
    assert report.crashes > 0 and any("KeyError" in e for e in report.examples)
    with pytest.raises(AssertionError, match="crashed"):
        fuzz_task(TASK, steps=600, seed=0, stacks=("channel",))


def test_the_fuzz_finds_an_error_message_that_itself_fails(monkeypatch):
    monkeypatch.setattr(message_channel, "brief", repr)
    monkeypatch.setattr(message_channel, "_message", lambda m: str(m) if m is not None else "")
    report = fuzz_task(TASK, steps=800, seed=0, stacks=("channel",), raise_on_crash=False)
    assert report.crashes > 0


def test_a_clear_error_is_a_usage_error_with_a_readable_message():
    assert issubclass(ResetNeeded, UsageError) and issubclass(ActionDictError, UsageError)
    assert not readable(ActionDictError(""))
    assert not readable(ActionDictError("x" * 5_000))


def test_text_actions_read_a_text_subclass_as_plain_text_and_keep_no_hostile_object():
    from mase.wrappers import TextActions

    env = TextActions(MessageChannel(mase.make("mase/MenuDesign-v0")))
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(HostileStr("Action selection: nothing at all"))
    last = env.unwrapped.infos[agent]["last_parse"]
    assert type(last["text"]) is str and repr(env.unwrapped.infos[agent])
