"""The generic offline prompt reader, from the protocol: what each kind of prompt reads as.

The prompts are laid out the way :class:`mase.agents.LLMAgent` lays them out (the headers of
:mod:`mase.protocol`); the last tests drive a real LLMAgent through the offline server against
a tiny responder for a made-up task, built on :class:`mase.llm.offline.OfflineModel`.
"""

from __future__ import annotations

import doctest
import re
from types import SimpleNamespace

import pytest

import mase.llm.offline
from mase import protocol
from mase.agents.llm import LLMAgent
from mase.llm import ChatClient, LLMConfig, OfflineServer
from mase.llm.offline import Item, OfflineModel, read_items, read_prompt, since_last_belief

RULES = "You are Ann, one of 2 drivers at a traffic light. Stop at red, go at green."


def system(text=RULES):
    return {"role": "system", "content": text}


def user(text):
    return {"role": "user", "content": text}


def assistant(text):
    return {"role": "assistant", "content": text}


def reply(action, message=""):
    return protocol.REPLY_FORMAT.format(action=action, message=message)


def action_request(observation):
    return user(f"{observation}\n\n{protocol.ACTION_REQUEST}")


def belief_block(belief):
    return f"{protocol.BELIEF_HEADER}\n{belief}\n\n"


def belief_request(belief, observation):
    return user(
        belief_block(belief)
        + f"{protocol.NEW_OBSERVATION}\n{observation}\n\n{protocol.BELIEF_REQUEST}"
    )


def question_request(question, observation, belief=None):
    return user(
        (belief_block(belief) if belief is not None else "")
        + f"{protocol.CURRENT_OBSERVATION}\n{observation}\n\n"
        + f"{protocol.QUESTION_HEADER}\n{question}\n{protocol.QUESTION_REQUEST}"
    )


# -- reading prompts ----------------------------------------------------------------------------


def test_an_action_prompt_with_a_window_of_earlier_turns():
    prompt = read_prompt(
        [
            system(),
            user("The light is red."),
            assistant(reply("stop")),
            user("The light is green."),
            assistant(reply("go", "Going.")),
            action_request("The light is red."),
        ]
    )
    assert prompt.rules == RULES
    assert prompt.agent is None  # no rules pattern, so nobody is named
    assert (prompt.request, prompt.question) == ("action", "")
    assert prompt.items == (
        Item("observation", "The light is red."),
        Item("reply", reply("stop")),
        Item("observation", "The light is green."),
        Item("reply", reply("go", "Going.")),
        Item("observation", "The light is red."),
    )
    assert prompt.observations == ("The light is red.", "The light is green.", "The light is red.")
    assert prompt.beliefs == ()


def test_a_retry_after_feedback_is_an_action_request_ending_with_the_refused_reply():
    feedback = protocol.FEEDBACK.format(reason="'dance' is not an action here.")
    prompt = read_prompt(
        [system(), action_request("The light is red."), assistant("dance"), user(feedback)]
    )
    assert prompt.request == "action"
    # the feedback is no observation: the model sees its refused reply last
    assert prompt.items == (Item("observation", "The light is red."), Item("reply", "dance"))


def test_a_belief_rewrite_prompt():
    prompt = read_prompt([system(), belief_request("Nothing seen yet.", "The light is green.")])
    assert prompt.request == "belief"
    assert prompt.items == (
        Item("belief", "Nothing seen yet."),
        Item("observation", "The light is green."),
    )


def test_an_action_prompt_from_a_belief_alone():
    prompt = read_prompt([system(), user(belief_block("The light is green.") + "\n")])
    assert prompt.request == "action"  # no request header: an action is the default
    prompt = read_prompt(
        [system(), user(belief_block("The light is green.") + protocol.ACTION_REQUEST)]
    )
    assert prompt.request == "action"
    assert prompt.items == (Item("belief", "The light is green."),)
    assert prompt.observations == ()


def test_a_belief_that_kept_an_unread_observation():
    # after a failed rewrite, LLMAgent keeps the old belief with the new observation appended
    kept = f"Nothing seen yet.\n\n{protocol.NEW_OBSERVATION}\nThe light is red."
    prompt = read_prompt([system(), belief_request(kept, "The light is green.")])
    assert prompt.items == (
        Item("belief", "Nothing seen yet."),
        Item("observation", "The light is red."),
        Item("observation", "The light is green."),
    )


@pytest.mark.parametrize("belief", [None, "The light was green."], ids=["history", "belief"])
def test_a_question_prompt(belief):
    question = "Does Bob know the light is red?"
    window = [user("The light is green."), assistant(reply("go"))] if belief is None else []
    prompt = read_prompt(
        [system(), *window, question_request(question, "The light is red.", belief)]
    )
    assert prompt.request == "question"
    assert prompt.question == question  # without the request that follows it
    now = Item("observation", "The light is red.")
    if belief is None:
        expected = (Item("observation", "The light is green."), Item("reply", reply("go")), now)
    else:
        expected = (Item("belief", belief), now)
    assert prompt.items == expected


def test_a_prompt_with_no_rules():
    prompt = read_prompt([action_request("The light is red.")])
    assert prompt.rules is None and prompt.agent is None
    assert prompt.observations == ("The light is red.",)
    assert read_prompt([]).rules is None
    assert read_prompt([]).request == "action"


def test_messages_outside_the_layout():
    prompt = read_prompt(
        [
            system(),
            user(""),
            user([{"type": "text", "text": "parts are not read"}]),
            {"role": "tool", "content": "ignored"},
            user("  hello"),
        ]
    )
    assert prompt.items == (Item("observation", "hello"),)


def test_the_last_user_message_decides_the_request():
    messages = [system(), belief_request("b", "The light is red."), assistant("a belief")]
    assert read_prompt(messages).request == "belief"


def test_a_task_pattern_for_its_rules_and_observations():
    rules = re.compile(r"You are (?P<agent>[A-Za-z]+), one of")
    observation = r"(?mi)^Seen by {agent}:"  # names are read lowercase
    messages = [
        system("Preamble. " + RULES),
        user("Seen by Ann: red.\nSeen by Bob: green.\nSeen by Ann: green."),
        action_request("Seen by Ann: red."),
    ]
    prompt = read_prompt(messages, rules=rules, observation=observation)
    assert prompt.rules == RULES and prompt.agent == "ann"
    # a block runs to the next observation start or header; what precedes the first is dropped
    assert prompt.observations == (
        "Seen by Ann: red.\nSeen by Bob: green.",
        "Seen by Ann: green.",
        "Seen by Ann: red.",
    )
    # a pattern naming the agent finds nothing when no agent is known
    assert read_items(messages, observation) == ()
    assert read_items(messages, observation, agent="bob") == (
        Item("observation", "Seen by Bob: green.\nSeen by Ann: green."),
    )


def test_the_rules_pattern_may_find_the_rules_in_a_user_message():
    rules = r"You are (?P<agent>[A-Za-z]+), one of"
    prompt = read_prompt([user("Play this: " + RULES)], rules=rules)
    assert (prompt.rules, prompt.agent) == (RULES, "ann")
    assert read_prompt([user("hello")], rules=rules).rules is None


def test_since_last_belief():
    items = (
        Item("observation", "a"),
        Item("belief", "b1"),
        Item("reply", "r"),
        Item("belief", "b2"),
        Item("observation", "c"),
    )
    assert since_last_belief(items) == ("b2", (Item("observation", "c"),))
    assert since_last_belief(items[:1]) == (None, items[:1])


def test_the_module_examples():
    result = doctest.testmod(mase.llm.offline)
    assert result.attempted > 0 and result.failed == 0


# -- a responder for a made-up task -----------------------------------------------------------


class TrafficModel(OfflineModel):
    """A made-up task's offline model: stop at red, go at green, by the last light it saw.

    Its first try is always "dance" (never legal), so that every turn needs the feedback; its
    belief is the last light seen; it answers "Is the light red?" from the prompt.
    """

    rules_head = r"You are (?P<agent>[A-Za-z]+), one of \d+ drivers"
    cannot_act = reply("stop", "I cannot read my prompt.")
    cannot_answer = "No. I cannot read my prompt."

    def understands(self, prompt):
        return "traffic light" in prompt.rules

    def act(self, prompt):
        if not prompt.items or prompt.items[-1].kind != "reply":
            return reply("dance")  # the first try; a retry ends with this refused reply
        belief, items = since_last_belief(prompt.items)
        seen = [text for kind, text in items if kind == "observation"] or [belief or ""]
        action = "stop" if "red" in seen[-1] else "go"
        return reply(action, f"{prompt.agent.capitalize()} will {action}.")

    def rewrite_belief(self, prompt):
        return f"The last light I saw: {prompt.observations[-1]}"

    def answer(self, prompt):
        seen = " ".join(prompt.beliefs + prompt.observations)
        if prompt.question != "Is the light red?":
            return "No. I do not understand the question."
        return "Yes. It is red." if "red" in seen.split(".")[-2] else "No. It is not red."


class Light:
    """A stand-in task for one LLMAgent seat: the light turns red, green, red, ..."""

    def __init__(self):
        self.unwrapped = self
        self.turn = 0

    def rules_text(self, agent):
        return f"You are {agent.capitalize()}, one of 2 drivers at a traffic light."

    def belief_template(self, agent):
        return "The last light I saw: none."

    def observe_text(self, agent):
        return f"Turn {self.turn}. The light is {('red', 'green')[self.turn % 2]}."

    def read_action(self, agent, text):
        action = protocol.split_reply(text).choice.strip()
        light = ("red", "green")[self.turn % 2]
        legal = {"red": "stop", "green": "go"}[light]
        if action == legal:
            return SimpleNamespace(action=action, reason="")
        return SimpleNamespace(action=None, reason=f"'{action}' is not legal at {light}.")


@pytest.fixture(scope="module")
def client():
    with OfflineServer(TrafficModel()) as server:
        yield ChatClient(LLMConfig(base_url=server.base_url, cache=False))


@pytest.mark.parametrize("belief", [False, True], ids=["history", "belief"])
def test_a_made_up_task_plays_through_llm_agent(client, belief):
    env = Light()
    agent = LLMAgent(client=client, belief=belief, retries=1)
    agent.reset("ann", env)
    replies = []
    for turn in range(4):
        env.turn = turn
        replies.append(agent.act({"text": env.observe_text("ann")}, {}))
    assert [protocol.split_reply(r).choice.strip() for r in replies] == ["stop", "go"] * 2
    assert replies[0].endswith("Message to Team: Ann will stop.")
    metrics = agent.episode_record()["metrics"]
    assert (metrics["llm_outputs"], metrics["llm_valid_outputs"]) == (8, 4)  # each after feedback
    assert metrics["belief_calls"] == (4 if belief else 0)
    if belief:
        assert agent.current_belief == "The last light I saw: Turn 3. The light is green."
    env.turn = 4  # red again
    assert agent.answer("Is the light red?") == "Yes. It is red."
    assert agent.answer("Is it raining?").startswith("No. I do not understand")


def test_fallbacks_for_prompts_the_model_cannot_read():
    model = TrafficModel()
    unknown = system("You are Ann, one of 2 drivers in a rally.")  # rules it does not play by
    for rules in ([], [unknown]):
        assert model([*rules, action_request("The light is red.")]) == TrafficModel.cannot_act
        asked = question_request("Is the light red?", "The light is red.")
        assert model([*rules, asked]) == TrafficModel.cannot_answer
        # no cannot_rewrite: the belief in the prompt is kept as it was
        assert model([*rules, belief_request("Old.", "The light is red.")]) == "Old."


def test_the_default_decisions_of_the_base_class():
    class ActsOnly(OfflineModel):
        def act(self, prompt):
            return reply("wait")

    model = ActsOnly()
    assert model([system(), action_request("Anything.")]) == reply("wait")
    assert model([system(), question_request("Is it red?", "Red.")]) == ActsOnly.cannot_answer
    rewrite = [system(), user(f"{protocol.NEW_OBSERVATION}\nRed.\n\n{protocol.BELIEF_REQUEST}")]
    assert model(rewrite) == ""  # no belief to keep: the agent keeps its own
    with pytest.raises(NotImplementedError, match="must implement act"):
        OfflineModel()([system(), action_request("Anything.")])
