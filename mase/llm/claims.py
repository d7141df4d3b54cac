"""A model-based claim reader: any OpenAI-compatible endpoint restates a message as fact sentences.

A task's grammar (its ``read_claims``) reads most messages; what it cannot read it flags. A
:class:`ModelClaimReader` sends such a message to a model (temperature 0, through the
response cache like every other call), with the task's fact sentence forms
(``claim_forms()``), and reads the reply with the task's own ``parse_facts``: the model only
rewrites, the task still decides what a fact is. Install it on a task with
:func:`use_model_claims`; the knowledge tracker then reads messages with it.

A failed call loses nothing: the message stays flagged unread, with the error, and the answers
resting on it are counted in the ToM tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mase import protocol
from mase.claims import MODEL, Claims
from mase.events import FactKey
from mase.llm.client import ChatClient
from mase.llm.config import LLMConfig

SYSTEM = (
    "You read the messages teammates send each other in a game and restate the facts they "
    "claim in fixed sentence forms. The forms:\n{forms}"
)


class ModelClaimReader:
    """Reads a message's claims with the task's grammar, then a model for what it left unread.

    Args:
        env: the task (its ``read_claims``, ``claim_forms`` and ``parse_facts``).
        client: the model to ask (a :class:`ChatClient`, or an :class:`LLMConfig` to build one).
        always: ask the model about every message, not only those the grammar left unread.
    """

    def __init__(self, env: Any, client: ChatClient | LLMConfig, always: bool = False):
        self.task = env.unwrapped
        self.client = client if isinstance(client, ChatClient) else ChatClient.shared(client)
        self.forms = "\n".join(self.task.claim_forms())
        self.always = always
        self.calls = 0

    def __call__(self, sender: str, text: str, known: Mapping[FactKey, Any]) -> Claims:
        """The claims of ``text``: the grammar's, completed by the model's restatement."""
        grammar = self.task.read_claims(sender, text, known)
        if grammar.readable and not self.always:
            return grammar
        self.calls += 1
        reply = self.client.complete(self.messages(sender, text), "claims")
        if reply.error:
            reason = f"the claim model failed: {reply.error}"
            return Claims(grammar.facts, grammar.confidence, (*grammar.unread, reason), "grammar")
        facts = dict(self.task.parse_facts(reply.text))
        if not facts and reply.text.strip().lower().rstrip(".") != "none":
            return grammar  # the model restated nothing readable: the grammar's flag stands
        return Claims({**grammar.facts, **facts}, MODEL, (), "model")

    def messages(self, sender: str, text: str) -> list[dict[str, str]]:
        """The chat request for one message."""
        shown = protocol.quote(text)
        return [
            {"role": "system", "content": SYSTEM.format(forms=self.forms)},
            {
                "role": "user",
                "content": f"{protocol.CLAIMS_HEADER}\n{sender.capitalize()}: {shown}\n\n"
                f"{protocol.CLAIMS_REQUEST}",
            },
        ]


def use_model_claims(env: Any, client: ChatClient | LLMConfig, always: bool = False) -> Any:
    """Make ``env``'s knowledge tracker read messages with a :class:`ModelClaimReader`.

    Takes effect from the next ``reset`` (or the next tracker built). Returns the reader.
    """
    reader = ModelClaimReader(env, client, always)
    env.unwrapped.claim_reader = reader
    return reader
