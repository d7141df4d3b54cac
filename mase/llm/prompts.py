"""The task-independent wording of LLM prompts.

:class:`mase.agents.LLMAgent` writes its prompts with these lines, and the offline model finds
the parts of a prompt by them.

A prompt is a chat: a system message with the task's rules, then user messages. An action
prompt ends with :data:`ACTION_REQUEST`; in belief mode the agent's belief follows
:data:`BELIEF_HEADER`, and a rewrite is asked for with :data:`BELIEF_REQUEST`; a
Theory-of-Mind probe follows :data:`QUESTION_HEADER` and ends with :data:`QUESTION_REQUEST`.
"""

from __future__ import annotations

import re

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

#: The line before a Theory-of-Mind question.
QUESTION_HEADER = "Theory-of-Mind question:"

#: Ends a Theory-of-Mind question.
QUESTION_REQUEST = "Answer yes or no, then one sentence why."

#: Sent after a reply that names no legal action; ``{reason}`` is the env's explanation.
FEEDBACK = (
    "Your reply could not be carried out: {reason} Choose again, in the format the rules give."
)

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
