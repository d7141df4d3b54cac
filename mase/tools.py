"""Tools a task offers language agents: functions a model may call before it replies.

A task lists its tools (:meth:`mase.language.TaskLanguage.tools`, default none); an
:class:`mase.agents.LLMAgent` with ``tools=True`` (the policy ``llm-tools``) offers them in its
rules (:data:`mase.protocol.TOOLS_HELP`). A reply ``Call: name({...})`` runs the tool on those
arguments and the result goes back to the model (:data:`mase.protocol.TOOL_RESULT`), which then
replies again; a turn makes at most a few calls. A tool is a pure function of its arguments
and the task's public information: it computes, it never reveals what the agent has not seen.

Bad input is part of the game: an unknown tool, arguments that are not a JSON object, or
arguments the function refuses come back as a result that says why, never as an exception.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: The longest tool result shown to a model; a longer one is cut with a marker.
MAX_RESULT_CHARS = 4_000
#: The longest arguments text a tool call may have.
MAX_ARGUMENT_CHARS = 20_000


@dataclass(frozen=True)
class Tool:
    """A function a model may call.

    Attributes:
        name: the name it is called by.
        signature: its arguments as the model should write them (JSON, with an example).
        description: what it computes, in one sentence.
        function: called with the JSON object's fields as keyword arguments; returns anything
            JSON can write; raises ``ValueError`` or ``TypeError`` with a reason for bad input.
    """

    name: str
    signature: str
    description: str
    function: Callable[..., Any]

    def line(self) -> str:
        """The tool as the rules list it."""
        return f"- {self.name}({self.signature}): {self.description}"


def tools_text(tools: Mapping[str, Tool]) -> str:
    """The rules' lines that offer ``tools``."""
    from mase.protocol import TOOLS_HELP

    return TOOLS_HELP.format(tools="\n".join(t.line() for t in tools.values()))


def run_tool(tools: Mapping[str, Tool], name: str, arguments: str) -> str:
    """Call a tool on the arguments a model wrote; the result (or why not) as text."""
    tool = tools.get(name)
    if tool is None:
        known = ", ".join(tools) or "none"
        return f"Error: there is no tool called {name[:40]!r}; the tools: {known}."
    if len(arguments) > MAX_ARGUMENT_CHARS:
        limit = MAX_ARGUMENT_CHARS
        return f"Error: the arguments are {len(arguments):,} characters; at most {limit:,}."
    try:
        given = json.loads(arguments) if arguments.strip() else {}
    except (json.JSONDecodeError, RecursionError) as err:
        return f"Error: the arguments are not JSON ({str(err)[:120]}); write them as an object."
    if not isinstance(given, dict):
        return 'Error: write the arguments as a JSON object, {"name": value, ...}.'
    try:
        result = tool.function(**given)
    except (ValueError, TypeError, KeyError) as err:
        return f"Error: {name} cannot use these arguments: {str(err)[:300]}"
    text = json.dumps(result, ensure_ascii=True) if not isinstance(result, str) else result
    if len(text) > MAX_RESULT_CHARS:
        text = text[: MAX_RESULT_CHARS - 5] + "[...]"
    return text
