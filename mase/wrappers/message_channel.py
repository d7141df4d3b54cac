"""Let agents talk: each turn an agent may send text messages to its teammates."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pettingzoo.utils.wrappers import BaseWrapper

from mase.actions import ActionDictError, brief, check_playing, plain_text, take_keys
from mase.protocol import split_reply
from mase.task import TaskEnv

Topology = str | Mapping[str, Iterable[str]]


def _recipients(to: Any) -> tuple[str, ...] | None:
    """The names of an action dict's ``"to"``: a name, a list of names, or ``None`` (all)."""
    if to is None:
        return None
    name = plain_text(to)
    if name is not None:
        return (name,)
    # exact containers only: a subclass's own __iter__ never runs
    if type(to) in (list, tuple, set, frozenset):
        names = tuple(plain_text(n) for n in to)
        if None not in names:
            return names
    raise ActionDictError(
        f"'to' must be a teammate's name or a list of names, got {type(to).__name__} {brief(to)}"
    )


def _message(message: Any) -> str:
    """The text of an action dict's ``"message"`` (``""``: none); refused unless it is text."""
    if message is None:
        return ""
    text = plain_text(message)
    if text is None:
        raise ActionDictError(
            f"'message' must be text, got {type(message).__name__} {brief(message)}"
        )
    return text


class MessageChannel(BaseWrapper):
    """Adds a message channel to any MASE task.

    ``step`` accepts, besides a plain action, ``{"action": a, "message": "...", "to": [...]}``
    or a text reply whose ``Message to Team:`` part the task's parser finds. A message appears
    in each recipient's next observation (the text view, under ``Messages:``) and in its
    ``info["messages"]`` as records (sender, recipients, text, round). Every message is an
    event whose audience is the sender and its recipients, so the knowledge tracker
    (:meth:`mase.task.TaskEnv.knowledge`) credits the recipients, and only them, with the facts
    it states, as the sender's claims, right or wrong. A message is only text: it changes no
    rule and is never read as anyone's action. Messages longer than ``max_length`` characters
    are cut with a marker. A task without this wrapper is the no-communication condition.

    Topologies:
        ``"broadcast"`` (default): every message goes to every teammate (``"to"`` is refused).
        ``"direct"``: a message goes to the teammates named in ``"to"`` (all when absent); in a
        text reply, ``Message to Bravo: ...`` or ``Message to Bravo and Charlie: ...`` lines
        are direct messages and ``Message to Team: ...`` goes to everyone.
        A mapping ``sender -> teammates it may reach`` (a leader and its team, a ring): like
        ``"direct"``, restricted to those links; a message goes to all of the sender's links
        when it names none.

    A dict action naming a recipient who is not a reachable teammate, or whose ``"message"``
    is not text (``None`` is no message), is an error (a bug in the caller: an
    :class:`~mase.actions.ActionDictError`); in a text reply (a model's output) such names are
    dropped and the sender's ``info["message_errors"]`` says why, so a model's slip loses
    nothing else of its turn.

    A text reply sends at most ``max_messages`` message parts a turn; the sender's
    ``info["message_errors"]`` says how many more were dropped.

    Args:
        env: a MASE task (possibly already wrapped).
        max_length: longest message kept, in characters.
        topology: ``"broadcast"``, ``"direct"``, or a mapping as above.
        max_messages: most message parts of one text reply that are sent.
    """

    #: The keys of action dicts this wrapper takes.
    action_keys = ("message", "to")

    def __init__(
        self,
        env: Any,
        max_length: int = 1000,
        topology: Topology = "broadcast",
        max_messages: int = 8,
    ):
        super().__init__(env)
        base = env.unwrapped
        if not isinstance(base, TaskEnv):
            raise TypeError(f"MessageChannel needs a MASE task, got {type(base).__name__}")
        if max_length < 1:
            raise ValueError(f"max_length must be positive, got {max_length}")
        if max_messages < 1:
            raise ValueError(f"max_messages must be positive, got {max_messages}")
        self.max_messages = max_messages
        seats = list(base.possible_agents)
        if isinstance(topology, str):
            if topology not in ("broadcast", "direct"):
                raise ValueError(
                    f"topology must be 'broadcast', 'direct' or a mapping, got {topology!r}"
                )
            links = {a: tuple(b for b in seats if b != a) for a in seats}
        else:
            unknown = {a for a in topology if a not in seats} | {
                b for targets in topology.values() for b in targets if b not in seats
            }
            if unknown:
                raise ValueError(f"topology names unknown seats {sorted(unknown)}; seats: {seats}")
            links = {a: tuple(b for b in seats if b in set(topology.get(a, ())) and b != a)
                     for a in seats}  # fmt: skip
        base.messages_enabled = True
        base.max_message_length = max_length
        self.max_length = max_length
        self.topology = topology if isinstance(topology, str) else "custom"
        self.links = links

    def step(self, action: Any) -> None:
        """Deliver the action's messages (if any), then take the action.

        Raises:
            ResetNeeded: before ``reset`` or after the episode's end.
            ActionDictError: a dict whose ``"to"`` or ``"message"`` cannot be taken.
        """
        base = self.env.unwrapped
        check_playing(base)
        agent = base.agent_selection
        if base.terminations.get(agent) or base.truncations.get(agent):
            self.env.step(action)
            return
        taken, action = take_keys(action, ("message", "to"))
        posts: list[tuple[str, tuple[str, ...] | None]] = []
        errors: list[str] = []
        if taken:
            if "to" in taken and self.topology == "broadcast":
                raise ActionDictError(
                    "this channel broadcasts; 'to' needs MessageChannel(topology='direct')"
                )
            message = _message(taken.get("message"))
            if message:
                names = _recipients(taken.get("to"))
                if names is not None:
                    bad = [n for n in names if n not in self.links[agent]]
                    if bad:
                        raise ActionDictError(
                            f"{agent} cannot message {brief(bad)}; it reaches "
                            f"{list(self.links[agent])}"
                        )
                posts.append((message, names))
        text = plain_text(action.get("action") if isinstance(action, dict) else action)
        if text is not None and not base.phase.speech:  # an utterance is the move itself
            stripped, posts_in_text, errors = self._read_text(agent, text)
            posts += posts_in_text
            if isinstance(action, dict):
                action = {**action, "action": stripped}
            else:
                action = stripped
        for message, names in posts:
            recipients = tuple(
                b for b in self.links[agent] if b in base.agents and (names is None or b in names)
            )
            if recipients:
                base.post_message(agent, message, recipients)
        if errors:
            base.infos[agent]["message_errors"] = errors
        else:
            base.infos[agent].pop("message_errors", None)
        self.env.step(action)

    def _read_text(
        self, agent: str, text: str
    ) -> tuple[str, list[tuple[str, tuple[str, ...] | None]], list[str]]:
        """Split a text reply into the part the task parses and its messages.

        Every ``Message to ...:`` part is cut out, so the task reads only the action part (a
        message that names an action is never taken for one). ``Message to Team:`` goes to
        everyone the sender reaches; named teammates need a direct topology.
        """
        posts: list[tuple[str, tuple[str, ...] | None]] = []
        errors: list[str] = []
        reply = split_reply(text, limit=self.max_messages)
        if reply.dropped:
            errors.append(
                f"{reply.dropped} more message parts were not sent (at most "
                f"{self.max_messages} a turn)"
            )
        for part in reply.messages:
            if part.to_team:
                if part.text:
                    posts.append((part.text, None))
                continue
            names = part.names
            if self.topology == "broadcast":
                errors.append(
                    "this channel broadcasts: write 'Message to Team:' (the message to "
                    f"{', '.join(names)} was not sent)"
                )
                continue
            bad = list(dict.fromkeys(n for n in names if n not in self.links[agent]))
            good = tuple(dict.fromkeys(n for n in names if n in self.links[agent]))
            if bad:
                shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
                errors.append(
                    f"cannot message {shown}: you reach "
                    f"{', '.join(a.capitalize() for a in self.links[agent]) or 'nobody'}"
                )
            if good and part.text:
                posts.append((part.text, good))
        return reply.action, posts, errors
