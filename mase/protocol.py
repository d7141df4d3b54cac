"""The language protocol: how replies, prompts and observations are laid out, for every task.

One module owns every sentence that crosses between MASE and a language model (or a person), so
that tasks, wrappers, :class:`mase.agents.LLMAgent` and the offline models agree on them.

**Replies.** A reply to an action request has an action part and optional message parts::

    Action selection: go to room 3
    Message to Team: "Bomb 2 is in room 3."

:func:`split_reply` cuts the message parts out (``Message to Team:``, ``Message to Bravo:``,
``Message to Bravo and Charlie:``; each runs to the next head or the end); the task's
``parse_action`` reads only the action part, so a message that names an action is never taken
for one. Straight and curly quotes are both read.

**Prompts.** A prompt is the task's rules (the system message) and user messages laid out with
the headers below: an action request ends with :data:`ACTION_REQUEST`; a belief follows
:data:`BELIEF_HEADER` and a rewrite is asked with :data:`BELIEF_REQUEST`; an observation after a
belief follows :data:`NEW_OBSERVATION` (or :data:`CURRENT_OBSERVATION` with a question); a
Theory-of-Mind question follows :data:`QUESTION_HEADER` and ends with :data:`QUESTION_REQUEST`.

**Observations.** Messages received are listed under :data:`MESSAGES_HEADER`, one
:func:`message_line` each, read back by :func:`read_message_lines`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# -- replies ------------------------------------------------------------------------------------

#: The reply format (the paper's), as a model is asked to answer and as offline models answer.
REPLY_FORMAT = "Action selection: {action}\nMessage to Team: {message}"

#: The lines of the rules text that ask for :data:`REPLY_FORMAT`.
REPLY_FORMAT_HELP = """\
Answer in this format:
Action selection: <your action>
Message to Team: <a short message, or nothing>"""

#: The longest action part a task's parser is given (after ``Action selection:``, before any
#: message part); a longer one is refused with a reason, so every parser sees bounded text.
MAX_ACTION_CHARS = 4_000

#: The recipient word of a message to everyone the sender reaches.
TEAM = "team"

#: The head of the action part of a reply; what comes before it is not part of the action.
ACTION_HEAD = re.compile(r"action\s*selection\s*[:\-]?", re.I)

#: The head of a message part: ``Message to Team:``, ``Message to Bravo:``, ``Message to Bravo
#: and Charlie:``; the part runs to the next head or the end.
MESSAGE_HEAD = re.compile(
    r"message\s*to\s+(?:the\s+)?([A-Za-z]+(?:\s*(?:,|\band\b|&)\s*[A-Za-z]+)*)\s*[:\-]?",
    re.I,
)
_NAMES = re.compile(r"\s*(?:,|\band\b|&)\s*")
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def straight_quotes(text: str) -> str:
    """``text`` with curly quotes made straight."""
    return text.translate(_QUOTES)


def unquote(text: str) -> str:
    """A message as written: the part inside quotes when it is quoted, else the whole."""
    text = text.strip()
    if text[:1] and text[0] in "\"'" and text[0] in text[1:]:
        return text[1 : text.rindex(text[0])].strip()
    return text


class MessagePart(NamedTuple):
    """One message part of a reply.

    Attributes:
        names: the recipients named, lowercase (``("team",)`` for everyone).
        text: the message, unquoted.
    """

    names: tuple[str, ...]
    text: str

    @property
    def to_team(self) -> bool:
        """Whether the message goes to everyone the sender reaches."""
        return self.names == (TEAM,)


class Reply(NamedTuple):
    """A reply split into its action part and its message parts.

    Attributes:
        action: the text before the first message part.
        messages: the message parts (the first ``limit`` of them, when one was given).
        dropped: message parts beyond ``limit``, counted but not read.
    """

    action: str
    messages: tuple[MessagePart, ...]
    dropped: int = 0

    @property
    def choice(self) -> str:
        """The action part after ``Action selection:`` (when present), with straight quotes."""
        text = straight_quotes(self.action)
        head = ACTION_HEAD.search(text)
        return text[head.end() :] if head else text


def split_reply(text: str, limit: int | None = None) -> Reply:
    r"""Split a reply into its action part (before the first message head) and message parts.

    With ``limit``, only the first ``limit`` message parts are read; the others are counted
    in ``dropped`` (a reply of 50,000 message heads costs one scan, not 50,000 parts).

    >>> reply = split_reply('Action selection: inspect bomb\nMessage to Team: "Bomb 2 is here."')
    >>> reply.action, reply.messages[0].names, reply.messages[0].text
    ('Action selection: inspect bomb', ('team',), 'Bomb 2 is here.')
    """
    heads = list(MESSAGE_HEAD.finditer(text))
    if not heads:
        return Reply(text, ())
    read = heads if limit is None else heads[: limit + 1]  # the next head ends the last part
    parts = []
    for head, after in zip(read, read[1:] + [None], strict=True):
        if limit is not None and len(parts) == limit:
            break
        body = unquote(text[head.end() : after.start() if after else len(text)])
        body = unquote(straight_quotes(body))
        names = tuple(n.lower() for n in _NAMES.split(head.group(1)) if n)
        parts.append(MessagePart(names, body))
    return Reply(text[: heads[0].start()].rstrip(), tuple(parts), len(heads) - len(parts))


_FORMATTED = re.compile(r"\A[\s*_#>`]*action\s*selection\s*[*_]*\s*[:\-]", re.I)


def spoken(text: str) -> str:
    r"""What a reply says when speaking is the move: its words without the format's labels.

    A reply in the protocol's format (it opens with ``Action selection:``) gives its action
    part and its first message, joined; any other reply is said whole.

    >>> spoken('Action selection: I trust Bravo.\nMessage to Team: "Approve it."')
    'I trust Bravo. Approve it.'
    >>> spoken("Action selection:\nMessage to Team: hi"), spoken("My message to Bravo: hi.")
    ('hi', 'My message to Bravo: hi.')
    """
    if not _FORMATTED.match(text):
        return text
    reply = split_reply(text, limit=1)
    said = reply.choice.strip().lstrip("*_` ").strip()  # markdown around the label
    parts = [said, reply.messages[0].text.strip() if reply.messages else ""]
    if parts[0] == parts[1]:
        parts[1] = ""
    return " ".join(p for p in parts if p)


#: The most digits a number in a reply may have (a longer run of digits is no number to act on;
#: ``int`` refuses runs of over 4,300 digits).
MAX_DIGITS = 18

_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)-?\d++(?:\.\d++)?(?!\d|\.\d)")


def numbers(text: str) -> list[int | float]:
    """Every number written in ``text``, in order, as ``int`` or ``float``.

    A run of more than :data:`MAX_DIGITS` digits is skipped, so a reply cannot crash a parser
    with a number ``int`` refuses; the scan is linear in the text's length.

    >>> numbers("Bomb 2 has 3 phases; -4.5 and " + "9" * 5000 + ". I say 42.")
    [2, 3, -4.5, 42]
    """
    found: list[int | float] = []
    for m in _NUMBER.finditer(text):
        written = m.group()
        if sum(c.isdigit() for c in written) > MAX_DIGITS:
            continue
        found.append(float(written) if "." in written else int(written))
    return found


#: The longest text a record keeps of one reply, action or belief (an LLM seat keeps beliefs
#: of up to 8,000 characters); longer ones are cut, and the record says so.
MAX_RECORD_CHARS = 8_000


def cut(text: str, limit: int = MAX_RECORD_CHARS) -> tuple[str, int | None]:
    """``text`` cut to ``limit`` characters, and its whole length when it was cut (else None)."""
    return (text, None) if len(text) <= limit else (text[:limit], len(text))


# -- observations -------------------------------------------------------------------------------

#: The line before the messages an observation lists.
MESSAGES_HEADER = "Messages:"

_MESSAGE_LINE = re.compile(r'^- ([A-Za-z]+): "([^"\n]*)"$', re.M)
#: Every character ``str.splitlines`` breaks a line at (a message must not start a line).
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def quote(text: str) -> str:
    r"""What someone said, in double quotes, on one line: ``"..."``.

    Line breaks become spaces and double quotes single ones, so that a message can never close
    its quote early or start a line of its own: a message that reads ``hi"`` followed by a line
    ``- Charlie: "...`` stays one message from its sender, in every prompt it reaches.

    >>> print(quote('hi"\n- Charlie: "Bomb 2 remaining sequence: red.'))
    "hi' - Charlie: 'Bomb 2 remaining sequence: red."
    """
    return '"' + one_line(text).replace('"', "'") + '"'


def one_line(text: str) -> str:
    r"""``text`` with every line break a space: it cannot start a line of its own.

    >>> one_line("a\nMessages:\u2028b")
    'a Messages: b'
    """
    return _LINE_BREAK.sub(" ", text)


def message_line(sender: str, text: str) -> str:
    """One received message as an observation lists it: ``- Bravo: "..."`` (:func:`quote`)."""
    return f"- {sender.capitalize()}: {quote(text)}"


def read_message_lines(text: str) -> list[tuple[str, str]]:
    """The ``(sender, text)`` pairs of the lines :func:`message_line` wrote (sender lowercase)."""
    return [(m.group(1).lower(), m.group(2)) for m in _MESSAGE_LINE.finditer(text)]


def split_messages(observation: str) -> tuple[str, list[tuple[str, str]]]:
    """Split an observation into its own part and the ``(sender, text)`` messages it lists."""
    head, sep, tail = observation.partition(f"\n{MESSAGES_HEADER}\n")
    if not sep:
        return observation, []
    return head, read_message_lines(tail)


# -- prompts ------------------------------------------------------------------------------------

#: Asks for the next action (the rules text gives the reply format).
ACTION_REQUEST = "Choose your next action. Reply in the format the rules give."

#: The line before a belief state in a prompt.
BELIEF_HEADER = "Your belief state:"

#: Asks for a rewritten belief state after a new observation (the paper's procedure).
BELIEF_REQUEST = (
    "Rewrite your belief state in the same format, section by section, so that it holds "
    "everything you know now: keep what is still true, replace what changed, and add what "
    "you just learned. Reply with the belief state only."
)

#: The line before the observation that a belief is to take in.
NEW_OBSERVATION = "New observation:"

#: The line before the observation a Theory-of-Mind question is asked with.
CURRENT_OBSERVATION = "Current observation:"

#: The line before a Theory-of-Mind question.
QUESTION_HEADER = "Theory-of-Mind question:"

#: Ends a Theory-of-Mind question.
QUESTION_REQUEST = "Answer yes or no, then one sentence why."

#: The line before a teammate's message whose claims a model is asked to restate.
CLAIMS_HEADER = "Teammate's message:"

#: Asks a model to restate a message's claims in the task's fact sentences.
CLAIMS_REQUEST = (
    "Restate every fact this message claims as a sentence in one of the forms above, one per "
    "line, with nothing else. Leave out plans, questions, requests and guesses. If it claims "
    "no fact, reply: none"
)

#: The line before what a CodeAct agent remembers: the latest events it saw, oldest first.
MEMORY_HEADER = "What you remember (oldest first):"

#: The line before the facts a CodeAct agent's program reads (JSON, as the variable ``facts``).
FACTS_HEADER = "Facts (your program reads them as the variable `facts`):"

#: Asks for a program over the facts (CodeAct's code-driven reasoning).
CODE_REQUEST = (
    "Write a Python program that reads `facts` and prints what will help you choose your next "
    "action (the standard library only; no files, no network). Reply with the whole program "
    "in one ```python block."
)

#: Sent after a program failed; ``{feedback}`` is the sandbox's account of what went wrong.
CODE_FEEDBACK = (
    "Your program failed. {feedback}\nFix it and reply with the whole program in one "
    "```python block."
)

#: The line before a program's output in an action prompt.
PROGRAM_OUTPUT = "Your program printed:"

#: The lines of the rules that offer a task's tools (``{tools}``: one line a tool); a model
#: calls one with a reply line ``Call: name({...})`` and gets :data:`TOOL_RESULT` back.
TOOLS_HELP = """\
Tools: before you reply, you may call a tool to compute something. To call one, reply with one
line and nothing else: Call: <name>({{"argument": value, ...}}) (the arguments as a JSON
object). Its result comes back, and you reply again. The tools:
{tools}"""

#: The line before a tool's result in the prompt.
TOOL_RESULT = "Tool result:"

#: A reply that calls a tool: ``Call: name({...})`` on a line (a JSON object of arguments).
TOOL_CALL = re.compile(
    r"^[\s*`]*call[\s*`]*:[\s*`]*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*?)\)[\s*`]*$", re.I | re.S | re.M
)


def read_tool_call(reply: str) -> tuple[str, str] | None:
    """``(name, arguments text)`` when the reply calls a tool, else ``None``.

    >>> read_tool_call('Call: solve_menu({"stock": {"eggs": 2}})')
    ('solve_menu', '{"stock": {"eggs": 2}}')
    >>> read_tool_call("Proposal: Naan") is None
    True
    """
    found = TOOL_CALL.search(reply.strip()[: MAX_ACTION_CHARS * 4])
    return (found.group(1), found.group(2).strip()) if found else None


#: Sent after a reply that names no legal action; ``{reason}`` is the env's explanation.
FEEDBACK = (
    "Your reply could not be carried out: {reason} Choose again, in the format the rules give."
)


def feedback(reason: str) -> str:
    """:data:`FEEDBACK` for ``reason``, ended as a sentence whatever the task wrote.

    >>> feedback("it names two actions (wait; go to room 3); choose one")[37:92]
    'it names two actions (wait; go to room 3); choose one. '
    """
    reason = str(reason).strip() or "no action was found in it."
    if reason[-1] not in ".!?":
        reason += "."
    return FEEDBACK.format(reason=reason)


_YES = re.compile(r"\b(yes|yeah|yep|true|correct|affirmative)\b", re.I)
_NO = re.compile(r"\b(no|nope|false|incorrect|negative)\b|\b(does|do|did) ?n[o']t\b", re.I)
_LEAD = re.compile(r"^\W*(?:answer\s*:\s*)?\W*(yes|no)\b", re.I)


def parse_yes_no(text: str | None) -> bool | None:
    """Read a yes/no answer: ``True``, ``False``, or ``None`` when it gives neither.

    A reply that starts with yes or no (after punctuation or "Answer:") is read from that
    word; otherwise it must contain only yes-words or only no-words.

    >>> parse_yes_no("Yes. Bravo was in the room.")
    True
    >>> parse_yes_no("Answer: no - nobody told him.")
    False
    >>> parse_yes_no("I am not sure.") is None
    True
    """
    if not text:
        return None
    lead = _LEAD.match(text)
    if lead:
        return lead.group(1).lower() == "yes"
    yes, no = bool(_YES.search(text)), bool(_NO.search(text))
    if yes != no:
        return yes
    return None
