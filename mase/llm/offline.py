r"""The generic part of an offline model: read a chat prompt laid out by :mod:`mase.protocol`.

A task's offline model (the "model" behind ``mase serve``) sees only the chat messages, as
:class:`mase.agents.LLMAgent` builds them. Reading them is the same for every task, so it lives
here; the task keeps only its decisions. :func:`read_prompt` turns the messages into a
:class:`Prompt`:

* **rules**: the task's rules text; by default the first system message, or, when the task
  gives a pattern for where its rules start, the text from that pattern's first match (in the
  first message holding one), whose group ``agent`` names the agent;
* **request**: what the last user message asks for: ``"question"`` (it holds
  :data:`~mase.protocol.QUESTION_HEADER`), ``"belief"`` (:data:`~mase.protocol.BELIEF_REQUEST`),
  ``"code"`` (:data:`~mase.protocol.CODE_REQUEST`, or :data:`~mase.protocol.CODE_FEEDBACK`
  after a failed program) or else ``"action"`` (:data:`~mase.protocol.ACTION_REQUEST`, or a
  retry after :data:`~mase.protocol.FEEDBACK`);
* **question**: the text of that question (after the last question header, before
  :data:`~mase.protocol.QUESTION_REQUEST`), or for ``"claims"`` (the last user message holds
  :data:`~mase.protocol.CLAIMS_REQUEST`) the message to restate;
* **items**: the prompt in order as :class:`Item` records: ``belief`` (the text after a
  :data:`~mase.protocol.BELIEF_HEADER`), ``observation``, ``reply`` (an assistant message),
  ``output`` (after :data:`~mase.protocol.PROGRAM_OUTPUT` or a tool's
  :data:`~mase.protocol.TOOL_RESULT`) and ``facts`` (after
  :data:`~mase.protocol.FACTS_HEADER`).

Where an observation starts is the task's own wording, so the task may give a pattern for it
(``{agent}`` in it stands for the agent's name, escaped); by default an observation starts at
the beginning of a user message that opens with no protocol header, and after
:data:`~mase.protocol.NEW_OBSERVATION` and :data:`~mase.protocol.CURRENT_OBSERVATION`. Every
block runs to the next header, the next observation start, or the end of its message.

:class:`OfflineModel` dispatches a request to a task's three decisions (``act``,
``rewrite_belief``, ``answer``) and answers prompts it cannot read with fallbacks the task
chooses. An instance is a :data:`mase.llm.Responder`:

>>> from mase import protocol
>>> class Echo(OfflineModel):
...     def act(self, prompt):
...         seen = prompt.observations[-1] if prompt.observations else "nothing"
...         return protocol.REPLY_FORMAT.format(action="wait", message=seen)
>>> respond = Echo()
>>> print(respond([
...     {"role": "system", "content": "You play Echo."},
...     {"role": "user", "content": f"It rains.\n\n{protocol.ACTION_REQUEST}"},
... ]))
Action selection: wait
Message to Team: It rains.
>>> respond([{"role": "user", "content": "hello"}])  # no rules: the fallback
'I cannot read my prompt, so I choose no action.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple

from mase import protocol

#: What the last user message asks for.
Request = Literal["action", "belief", "question", "claims", "code"]

#: What a block of the prompt is.
ItemKind = Literal["belief", "observation", "reply", "output", "facts"]

#: The chat messages of a request, as the OpenAI API sends them.
Messages = Sequence[Mapping[str, Any]]

_FEEDBACK_HEAD = protocol.FEEDBACK.split("{", 1)[0].strip()
_CODE_FEEDBACK_HEAD = protocol.CODE_FEEDBACK.split("{", 1)[0].strip()
#: Headers whose block is an item of its own (the rest only end the block before them).
_BLOCKS = {
    protocol.BELIEF_HEADER: "belief",
    protocol.PROGRAM_OUTPUT: "output",
    protocol.TOOL_RESULT: "output",
    protocol.FACTS_HEADER: "facts",
}

#: The headers that end a block inside a user message; a belief starts after its header.
_HEADERS = (
    protocol.BELIEF_HEADER,
    protocol.BELIEF_REQUEST,
    protocol.ACTION_REQUEST,
    protocol.QUESTION_HEADER,
    protocol.NEW_OBSERVATION,
    protocol.CURRENT_OBSERVATION,
    _FEEDBACK_HEAD,
    protocol.MEMORY_HEADER,
    protocol.FACTS_HEADER,
    protocol.CODE_REQUEST,
    _CODE_FEEDBACK_HEAD,
    protocol.PROGRAM_OUTPUT,
    protocol.TOOL_RESULT,
)

#: The headers an observation follows, for tasks that give no pattern of their own.
_OBSERVATION_HEADERS = (protocol.NEW_OBSERVATION, protocol.CURRENT_OBSERVATION)

#: Every header in one pattern, so a message is scanned once, not once per header: the
#: server's cost stays linear in the characters of the request (no header is part of
#: another, so an alternation finds what a search per header would).
_ANY_HEADER = re.compile("|".join(re.escape(h) for h in sorted(_HEADERS, key=len, reverse=True)))


class Item(NamedTuple):
    """One block of a prompt.

    Attributes:
        kind: ``"belief"``, ``"observation"`` or ``"reply"`` (the model's earlier reply).
        text: the block, stripped.
    """

    kind: ItemKind
    text: str


@dataclass(frozen=True)
class Prompt:
    """A chat prompt, read.

    Attributes:
        rules: the rules text (``None`` when the prompt holds none).
        agent: the agent the rules name, lowercase (``None`` when the task's rules pattern has
            no ``agent`` group, or it gave none).
        request: what the last user message asks for: ``"action"``, ``"belief"``,
            ``"question"``, ``"claims"`` (restate a teammate's message as fact sentences) or
            ``"code"`` (a CodeAct program).
        question: the question's text, the message whose claims are asked for, or a failed
            program's feedback (``""`` for the other requests).
        items: the beliefs, observations, replies, program outputs and facts, in order.
    """

    rules: str | None
    agent: str | None
    request: Request
    question: str
    items: tuple[Item, ...]

    @property
    def observations(self) -> tuple[str, ...]:
        """Every observation, in order."""
        return tuple(text for kind, text in self.items if kind == "observation")

    @property
    def beliefs(self) -> tuple[str, ...]:
        """Every belief, in order."""
        return tuple(text for kind, text in self.items if kind == "belief")

    @property
    def outputs(self) -> tuple[str, ...]:
        """Every program output (after :data:`~mase.protocol.PROGRAM_OUTPUT`), in order."""
        return tuple(text for kind, text in self.items if kind == "output")

    @property
    def facts(self) -> tuple[str, ...]:
        """Every facts block (after :data:`~mase.protocol.FACTS_HEADER`), in order."""
        return tuple(text for kind, text in self.items if kind == "facts")


def _text(message: Mapping[str, Any]) -> str | None:
    content = message.get("content")
    return content if isinstance(content, str) else None


def _observation_start(pattern: str | None, agent: str | None) -> re.Pattern[str] | None:
    if pattern is None or ("{agent}" in pattern and agent is None):
        return None
    return re.compile(pattern.replace("{agent}", re.escape(agent or "")))


def read_items(
    messages: Messages, observation: str | None = None, agent: str | None = None
) -> tuple[Item, ...]:
    """The prompt's beliefs, observations and replies, in order.

    Args:
        messages: the chat messages.
        observation: a regular expression matching where an observation starts (with inline
            flags, such as ``(?mi)``); ``{agent}`` in it stands for ``agent``'s name, escaped
            (names are read lowercase: add ``(?i)`` to match one capitalized). ``None``: at
            the start of a user message that opens with no header, and after the headers of
            an observation. A pattern naming ``{agent}`` finds nothing without ``agent``.
        agent: the agent whose observations are read.
    """
    start = _observation_start(observation, agent)
    found = []
    for message in messages:
        text = _text(message)
        if text is None:
            continue
        if message.get("role") == "assistant":
            found.append(Item("reply", text))
            continue
        if message.get("role") != "user":
            continue
        # (position, kind, where its text starts); an "end" anchor only ends the block before
        anchors = []
        observed = []  # where an observation starts after its header
        for m in _ANY_HEADER.finditer(text):
            anchors.append((m.start(), _BLOCKS.get(m.group(), "end"), m.end()))
            if m.group() in _OBSERVATION_HEADERS:
                observed.append((m.end(), "observation", m.end()))
        if start is not None:
            anchors += [(m.start(), "observation", m.start()) for m in start.finditer(text)]
        elif observation is None:
            anchors += observed
            opening = len(text) - len(text.lstrip())
            if text.strip() and not any(at == opening for at, _, _ in anchors):
                anchors.append((0, "observation", 0))
        if not anchors:  # a message outside the protocol's layout holds no block
            continue
        anchors.sort()
        for (_, kind, begin), (stop, _, _) in zip(
            anchors, anchors[1:] + [(len(text), "end", 0)], strict=True
        ):
            if kind != "end":
                found.append(Item(kind, text[begin:stop].strip()))
    return tuple(found)


def since_last_belief(items: Sequence[Item]) -> tuple[str | None, tuple[Item, ...]]:
    """The latest belief (``None`` when there is none) and the items after it (else all)."""
    last = max((i for i, (kind, _) in enumerate(items) if kind == "belief"), default=None)
    if last is None:
        return None, tuple(items)
    return items[last].text, tuple(items[last + 1 :])


def read_prompt(
    messages: Messages, rules: str | re.Pattern[str] | None = None, observation: str | None = None
) -> Prompt:
    """Read a chat prompt (see the module docstring).

    Args:
        messages: the chat messages.
        rules: a regular expression matching where the task's rules start; its group
            ``agent``, when it has one, names the agent. ``None``: the first system message is
            the rules.
        observation: where an observation starts, as :func:`read_items` takes it.
    """
    found_rules, agent = None, None
    if rules is None:
        found_rules = next((_text(m) for m in messages if m.get("role") == "system"), None)
    else:
        head = re.compile(rules)
        for message in messages:
            text = _text(message)
            m = head.search(text) if text is not None else None
            if m:
                found_rules = text[m.start() :]
                agent = m.group("agent").lower() if "agent" in head.groupindex else None
                break
    last = next(
        (
            text
            for m in reversed(messages)
            if m.get("role") == "user" and (text := _text(m)) is not None
        ),
        "",
    )
    request: Request = "action"
    question = ""
    if protocol.QUESTION_HEADER in last:
        request = "question"
        question = last.split(protocol.QUESTION_HEADER)[-1]
        question = question.split(protocol.QUESTION_REQUEST)[0].strip()
    elif protocol.CLAIMS_REQUEST in last and protocol.CLAIMS_HEADER in last:
        request = "claims"
        question = last.split(protocol.CLAIMS_HEADER)[-1]
        question = question.split(protocol.CLAIMS_REQUEST)[0].strip()
    elif protocol.BELIEF_REQUEST in last:
        request = "belief"
    elif protocol.CODE_REQUEST in last or _CODE_FEEDBACK_HEAD in last:
        request = "code"
        if _CODE_FEEDBACK_HEAD in last:
            question = last.split(_CODE_FEEDBACK_HEAD)[-1].strip()
    items = read_items(messages, observation, agent)
    return Prompt(found_rules, agent, request, question, items)


class OfflineModel:
    """A task's offline model: reads a prompt and answers it with the task's decisions.

    A subclass gives the task's patterns and fallbacks as class attributes and implements
    :meth:`act`, and :meth:`rewrite_belief` and :meth:`answer` when its task keeps beliefs or
    is probed (unimplemented, they give the fallbacks); calling the model with the chat
    messages returns the reply. A prompt without rules, or with rules :meth:`understands`
    rejects, gets the fallback of its request (:meth:`cannot_read`).

    Attributes:
        rules_head: where the task's rules start (see :func:`read_prompt`); ``None``: the
            first system message.
        observation_head: where an observation starts (see :func:`read_items`); ``None``: the
            protocol's layout.
        cannot_act: the reply to an action request it cannot read; the default names no
            action, so the task answers with feedback and nothing happens.
        cannot_rewrite: the reply to a belief request it cannot read; ``None`` keeps the
            latest belief in the prompt (or replies ``""``, which the agent treats as no
            rewrite).
        cannot_answer: the reply to a question it cannot read.
    """

    rules_head: ClassVar[str | re.Pattern[str] | None] = None
    observation_head: ClassVar[str | None] = None
    cannot_act: ClassVar[str] = "I cannot read my prompt, so I choose no action."
    cannot_rewrite: ClassVar[str | None] = None
    cannot_answer: ClassVar[str] = "No. I cannot read the question from my prompt."
    cannot_code: ClassVar[str] = "```python\nprint('I cannot read my prompt.')\n```"

    def __call__(self, messages: Messages) -> str:
        """The reply to a chat request."""
        prompt = self.read(messages)
        if prompt.request == "claims":  # needs no rules: the message and the forms are given
            return self.restate_claims(prompt.question)
        if prompt.rules is None or not self.understands(prompt):
            return self.cannot_read(prompt)
        if prompt.request == "question":
            return self.answer(prompt)
        if prompt.request == "belief":
            return self.rewrite_belief(prompt)
        if prompt.request == "code":
            return self.write_code(prompt)
        return self.act(prompt)

    def read(self, messages: Messages) -> Prompt:
        """The prompt, read with this task's patterns."""
        return read_prompt(messages, rules=self.rules_head, observation=self.observation_head)

    def understands(self, prompt: Prompt) -> bool:
        """Whether the prompt's rules are ones this model can play by (default: any)."""
        return True

    def cannot_read(self, prompt: Prompt) -> str:
        """The reply to a prompt this model cannot read: the fallback of its request."""
        if prompt.request == "question":
            return self.cannot_answer
        if prompt.request == "code":
            return self.cannot_code
        if prompt.request == "belief":
            if self.cannot_rewrite is not None:
                return self.cannot_rewrite
            return prompt.beliefs[-1] if prompt.beliefs else ""
        return self.cannot_act

    def act(self, prompt: Prompt) -> str:
        """The reply to an action request; every task's model implements it."""
        raise NotImplementedError(f"{type(self).__name__} must implement act(prompt)")

    def rewrite_belief(self, prompt: Prompt) -> str:
        """The rewritten belief, for a belief request (default: the fallback, as unread)."""
        return self.cannot_read(prompt)

    def answer(self, prompt: Prompt) -> str:
        """The reply to a Theory-of-Mind question, ``prompt.question`` (default: the fallback)."""
        return self.cannot_read(prompt)

    def write_code(self, prompt: Prompt) -> str:
        """A program for a CodeAct request (default: the fallback, a program saying so).

        ``prompt.facts`` holds the facts the program will read; after a failed program,
        ``prompt.question`` is the sandbox's feedback.
        """
        return self.cannot_code

    def restate_claims(self, message: str) -> str:
        """A teammate's message (``"Sender: text"``) restated as fact sentences (default: none)."""
        return "none"
