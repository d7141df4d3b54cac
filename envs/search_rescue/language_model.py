"""The scripted language model of search and rescue: a "model" that reads only its prompt.

:func:`respond` is a responder for :class:`mase.llm.OfflineServer`. It finds the rules text
(``env.rules_text(agent)``, starting "You are <Name>, one of ...") in the prompt, builds a
fresh :class:`~mase.envs.search_rescue.scripted.ScriptedRescuer` for that agent from it, feeds
it every observation in the user messages in order (each starts with the line
"You are <Name>."), and answers in the paper's format::

    Action selection: go to room 3
    Message to Team: Alpha is in room 3. Room 3 has bomb 2. ...

It never sees env state, so it plays as well as the prompt lets it: a prompt that carries the
agent's whole history (every observation so far, as a chat with one user message per turn or
in one message) makes it play exactly like the scripted bot; a prompt with only the latest
observation makes it forget what it learned before.

A prompt it cannot read (no rules, or no observation for the agent the rules name) still gets
a reply in the format, with the action ``inspect bomb``: it is never harmful (no cutter is
applied, nobody leaves a room), at worst invalid with feedback the caller can read, while a
guessed move or cut could waste turns or set a bomb off.
"""

from __future__ import annotations

import re
from typing import Any

from mase.envs.search_rescue.scripted import ScriptedRescuer

_RULES_HEAD = re.compile(r"You are ([A-Za-z]+), one of \d+ agents")

#: The reply format, as the rules text asks for it.
REPLY_TEMPLATE = "Action selection: {action}\nMessage to Team: {message}"

#: The safe action of a reply to a prompt the model cannot read.
SAFE_ACTION = "inspect bomb"

UNREADABLE_RULES = (
    "I could not find the mission rules in my prompt (they start 'You are <Name>, one of'), "
    "so I am staying put."
)
NO_OBSERVATION = (
    "I have not seen an observation yet (it starts 'You are {name}.'), so I am staying put."
)


def _observations(messages: list[dict[str, Any]], name: str) -> list[str]:
    """Every observation of agent ``name`` in the user messages, in order."""
    head = re.compile(rf"^You are {re.escape(name)}\.$", re.M | re.I)
    found = []
    for message in messages:
        if message.get("role") != "user" or not isinstance(message.get("content"), str):
            continue
        text = message["content"]
        starts = [m.start() for m in head.finditer(text)]
        for start, end in zip(starts, starts[1:] + [len(text)], strict=True):
            found.append(text[start:end].strip())
    return found


def _rules(messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """The agent's name (lowercase) and the rules text, from the first message holding them."""
    for message in messages:
        text = message.get("content")
        if not isinstance(text, str):
            continue
        m = _RULES_HEAD.search(text)
        if m:
            return m.group(1).lower(), text[m.start() :]
    return None


def respond(messages: list[dict[str, Any]]) -> str:
    """The reply of the scripted language model to a chat prompt."""
    found = _rules(messages)
    if found is None:
        return REPLY_TEMPLATE.format(action=SAFE_ACTION, message=UNREADABLE_RULES)
    agent, rules = found
    try:
        bot = ScriptedRescuer.from_rules(agent, rules)
    except (AttributeError, KeyError, ValueError):  # rules cut short or edited past reading
        return REPLY_TEMPLATE.format(action=SAFE_ACTION, message=UNREADABLE_RULES)
    observations = _observations(messages, agent)
    news = ""
    for text in observations:
        # replay every turn, messages included, so the bot remembers what it already told the
        # team and the last message carries only news, as the stateful bot's would
        seen = bot.observe(text)
        if agent in bot.positions:
            news = bot.news(seen)
    if agent not in bot.positions:
        message = NO_OBSERVATION.format(name=agent.capitalize())
        return REPLY_TEMPLATE.format(action=SAFE_ACTION, message=message)
    return REPLY_TEMPLATE.format(action=bot.decide(), message=news)
