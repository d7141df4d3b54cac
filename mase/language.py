"""How a task describes itself to language agents and people, and states facts in words.

:class:`TaskLanguage` is the half of :class:`mase.task.TaskEnv` that speaks: the rules and the
legal actions in words, the reply parser (:meth:`TaskLanguage.read_action` applies the shared
protocol of :mod:`mase.protocol`, then the task's ``parse_action``), and the optional fact and
belief hooks that messages' claims, belief states and oracle beliefs go through.
"""

from __future__ import annotations

from typing import Any

from mase.actions import ActionParse
from mase.events import FactKey
from mase.protocol import MAX_ACTION_CHARS, split_reply


class TaskLanguage:
    """The language hooks of a task; mixed into :class:`mase.task.TaskEnv`."""

    def rules_text(self, agent: str) -> str:
        """The rules of the task as the agent should be told them."""
        raise NotImplementedError

    def legal_actions_text(self, agent: str) -> list[str]:
        """The agent's legal actions now, in words."""
        raise NotImplementedError

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Turn the action part of a reply into a legal action, or explain why it is not one."""
        raise NotImplementedError

    def read_action(self, agent: str, text: str) -> ActionParse:
        """Read a whole reply: the protocol's parts (:mod:`mase.protocol`), then ``parse_action``.

        The message parts are cut off and ``Action selection:`` dropped, so the task's parser
        sees only the action part, and at most :data:`mase.protocol.MAX_ACTION_CHARS` of it (a
        longer one is refused with a reason); the first message found is returned in
        ``message``.
        """
        reply = split_reply(text, limit=1)
        choice = reply.choice
        if len(choice) > MAX_ACTION_CHARS:
            reason = (
                f"the action part of the reply is {len(choice):,} characters long; name the "
                f"action in at most {MAX_ACTION_CHARS:,} (after 'Action selection:')"
            )
            return ActionParse(None, reason, reply.messages[0].text if reply.messages else None)
        parsed = self.parse_action(agent, choice)
        if reply.messages and reply.messages[0].text:
            return parsed._replace(message=reply.messages[0].text)
        return parsed

    def tools(self, agent: str) -> dict[str, Any]:
        """The tools the task offers ``agent`` now (:mod:`mase.tools`): name -> ``Tool``.

        None by default. A tool computes from its arguments and public information only.
        """
        return {}

    def belief_facts(self, text: str) -> dict[FactKey, Any]:
        """The facts a belief state holds; by default every fact sentence in it."""
        return self.parse_facts(text)

    def claim_forms(self) -> list[str]:
        """The task's fact sentence forms, one example each (``parse_facts`` reads them back).

        Shown to a model asked to restate a message's claims
        (:class:`mase.llm.claims.ModelClaimReader`).
        """
        raise NotImplementedError

    def facts_text(self, facts: dict[FactKey, Any]) -> str:
        """Write facts as the task's fact sentences (``parse_facts`` reads them back)."""
        raise NotImplementedError

    def belief_template(self, agent: str) -> str:
        """The initial belief state an LLM agent starts from and rewrites (belief mode)."""
        raise NotImplementedError

    def oracle_belief(self, agent: str) -> str:
        """What ``agent`` really knows now, in the belief template's format."""
        raise NotImplementedError
