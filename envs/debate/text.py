"""Debate in words: the rules, each round's prompt (the released code's words), the views.

The prompts are the released code's: the question as its source asks it; in later rounds
"These are the recent/updated opinions from other agents: ... One agent response: ```...```"
then "Use these opinions carefully as additional advice, can you provide an updated answer?
Make sure to state your answer at the end of the response."; a lone agent is asked to verify
and restate (reflection). ``prompt="agreeable"`` and ``prompt="stubborn"`` are MASE's own
short and long variants in the spirit of the paper's prompt study (its exact words are not in
its text): the first invites agreement, the second asks an agent to keep its answer unless it
finds a mistake in its own reasoning.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from mase.envs.debate.world import Debate
from mase.spaces import MAX_TEXT_LENGTH

OPINIONS_HEAD = "These are the recent/updated opinions from other agents: "
ONE_RESPONSE = "\n\n One agent response: ```{}```"
SUMMARY_HEAD = "This is a summary of the recent/updated opinions of the agents: ```{}```"
REQUESTS = {
    "default": (
        "\n\n Use these opinions carefully as additional advice, can you provide an updated "
        "answer? Make sure to state your answer at the end of the response."
    ),
    "agreeable": (
        "\n\n Based on the other agents' opinions, can you give an updated answer? Make sure "
        "to state your answer at the end of the response."
    ),
    "stubborn": (
        "\n\n Check the other agents' reasoning and your own step by step. Keep your answer "
        "unless you find a mistake in your own reasoning; if you do, correct it. Make sure to "
        "state your answer at the end of the response."
    ),
}
REFLECTION = (
    "Can you verify that your answer is correct. Please reiterate your answer, making sure to "
    "state your answer at the end of the response."
)
SUMMARY_REQUEST = (
    "Summarize these answers for the agents: state each different final answer, how many "
    "agents gave it, and the main reasoning behind it."
)
SUMMARIZER = "summarizer"
#: The most of one earlier reply a view quotes (its tail: the answer is asked for at the end).
QUOTE_CHARS = 3_000
#: What a view keeps for its own lines beside the question and the quotes.
_OWN_LINES = 1_500
#: The final answer's words when no answer could be read.
NO_ANSWER = "no readable answer"

FORMATS = {
    "number": "state your final answer as a number at the end of your response",
    "choice": "end your response with the answer in the form (X)",
    "square": "end your response with the destination square (such as e4)",
    "move": "end your response with the move in UCI notation (such as e2e4)",
}


def quote(reply: str | None, limit: int = QUOTE_CHARS) -> str:
    """An earlier reply as a view quotes it: its last ``limit`` characters, no code fences."""
    if reply is None:
        return "(no answer)"
    text = reply.replace("```", "'''")
    return text if len(text) <= limit else "[...]" + text[-limit:]


def quote_limit(debate: Debate) -> int:
    """The most of one reply a view quotes: :data:`QUOTE_CHARS`, less where many share a view.

    A view quotes at most one reply a debater, so with this limit the whole view fits the
    text's length limit and no quote is cut off the end (for a question of under about
    14,000 characters).
    """
    room = MAX_TEXT_LENGTH - len(debate.question.prompt) - _OWN_LINES
    return max(200, min(QUOTE_CHARS, room // len(debate.agents)))


def shown_replies(
    debate: Debate, agent: str, acting: bool, summarized: bool = False, over: bool = False
) -> dict[str, str]:
    """The replies ``agent``'s view quotes now, as quoted: its own first, then seat order.

    A debater reads its own last reply and, unless the debate is summarized, the others'; the
    summarizer, while it writes, the round's replies; no one, once the debate is over.
    """
    r, limit = debate.round, quote_limit(debate)
    if over:
        return {}
    if agent == SUMMARIZER:
        replies = debate.replies[r] if acting else {}
        return {a: quote(replies[a], limit) for a in debate.agents if replies}
    if r == 0:
        return {}
    seats = [agent] if summarized else [agent, *(a for a in debate.agents if a != agent)]
    return {a: quote(debate.replies[r - 1][a], limit) for a in seats}


def shown_summary(debate: Debate, agent: str, summarized: bool, over: bool) -> str | None:
    """The summary ``agent``'s view quotes now, as quoted (``None``: it shows none)."""
    r = debate.round
    if not summarized or over or agent == SUMMARIZER or r == 0 or len(debate.agents) == 1:
        return None
    summary = debate.summaries[r - 1] if len(debate.summaries) >= r else ""
    return quote(summary, quote_limit(debate))


def written(value: Any) -> str:
    """A read answer written so that its reader reads it back (a letter in parentheses)."""
    if isinstance(value, float):
        return format(Decimal(repr(value)), "f")  # never in exponent form
    if isinstance(value, str) and len(value) == 1:
        return f"({value})"
    return str(value)


def rules_text(
    agent: str, agents: Sequence[str], rounds: int, kind: str, persona: str = "",
    summarized: bool = False,
) -> str:  # fmt: skip
    """The task told to one seat: who debates, how rounds work, how the answer is decided.

    ``kind``: how answers are read (:attr:`.questions.Question.kind`), for the form asked.
    """
    n = len(agents)
    if agent == SUMMARIZER:
        return (
            f"You are the summarizer of a debate among {n} agents ({', '.join(agents)}) over "
            f"{rounds} rounds. After each round but the last you read every agent's answer and "
            "write a summary for all of them; the agents read your summary, not each other's "
            "answers. Your reply is the summary."
        )
    lines = [f"You are {agent.capitalize()}, one of {n} agent(s) answering a question together."]
    if persona:
        lines.append(f"Your persona: {persona}")
    if n == 1 and rounds > 1:
        lines.append(
            f"You answer {rounds} times: first alone, then asked to verify and restate your answer."
        )
    elif n > 1:
        seen = "a summary of the agents' answers" if summarized else "the other agents' answers"
        lines.append(
            f"There are {rounds} round(s). In each, every agent answers at the same time, without "
            f"seeing the others' answers of that round; from round 2 on you read {seen} of the "
            "round before and give an updated answer."
        )
        lines.append(
            "The final answer is the majority of the last round's answers (a tie goes to the "
            "answer of the lowest-numbered agent among those tied)."
        )
    lines.append(
        f"Your reply is your answer: reason as you like, and {FORMATS[kind]}. An "
        "answer that cannot be read counts as wrong."
    )
    return "\n".join(lines)


def observation_text(
    debate: Debate, agent: str, acting: bool, prompt: str = "default", over: bool = False,
    summarized: bool = False,
) -> str:  # fmt: skip
    """What ``agent`` is shown now: the question, the round, and what it may read."""
    r, total = debate.round, debate.rounds
    if agent == SUMMARIZER:
        return _summarizer_text(debate, acting, over)
    lines = [f"Round {r + 1} of {total}.", f"Question: {debate.question.prompt}"]
    if over:
        return "\n".join([*lines, _result(debate)])
    shown = shown_replies(debate, agent, acting, summarized)
    if shown:
        lines.append(f"Your answer in round {r}: ```{shown.pop(agent)}```")
        if len(debate.agents) == 1:
            lines.append(REFLECTION)
        elif summarized:
            summary = shown_summary(debate, agent, summarized, over)
            lines.append(SUMMARY_HEAD.format(summary) + REQUESTS[prompt])
        else:
            others = "".join(ONE_RESPONSE.format(said) for said in shown.values())
            lines.append(OPINIONS_HEAD + others + REQUESTS[prompt])
    if not acting:
        lines.append("Waiting for the other agents to answer.")
    return "\n".join(lines)


def _summarizer_text(debate: Debate, acting: bool, over: bool) -> str:
    r = debate.round
    lines = [f"Round {r + 1} of {debate.rounds}.", f"Question: {debate.question.prompt}"]
    if over:
        return "\n".join([*lines, _result(debate)])
    if acting:
        answers = "".join(
            f"\n\n {a.capitalize()}'s response: ```{said}```"
            for a, said in shown_replies(debate, SUMMARIZER, acting).items()
        )
        lines.append(f"The agents' answers of round {r + 1}:{answers}\n\n {SUMMARY_REQUEST}")
    else:
        lines.append("Waiting for the agents to answer.")
    return "\n".join(lines)


def _result(debate: Debate) -> str:
    final = debate.final()
    said = NO_ANSWER if final is None else written(final)
    right = "right" if debate.question.correct(final) else "wrong"
    return f"The debate is over. Final answer: {said} ({right})."


# -- reading a view back (the offline mind and the parity check read views with these) ------

ROUND = re.compile(r"^Round (\d+) of (\d+)\.$", re.M)
QUESTION = re.compile(
    r"^Question: (.*?)(?=\nYour answer in round |\nWaiting for |\nThe debate is over|"
    r"\nThe agents' answers of round |\Z)",
    re.S | re.M,
)
MINE = re.compile(r"^Your answer in round \d+: ```(.*?)```", re.S | re.M)
OTHER = re.compile(r"One agent response: ```(.*?)```", re.S)
SUMMARY = re.compile(
    r"This is a summary of the recent/updated opinions of the agents: ```(.*?)```", re.S
)
#: A count a summary states: ``2 agent(s) answer 17`` (the offline summarizer's sentence).
COUNTED = re.compile(r"(\d+) agent\(s\) answer (.+?)(?:;|\.$|\. |$)", re.M)
ANSWERS = re.compile(r"^ ([A-Z][a-z]+)'s response: ```(.*?)```", re.S | re.M)
ARITHMETIC = re.compile(r"What is the result of (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)\?")
FINAL = re.compile(r"The debate is over\. Final answer: (.*) \((right|wrong)\)\.")
_OPTION = re.compile(r"(?:^|[:,] )([A-Z])\) ")


def arithmetic_operands(question: str) -> tuple[int, ...] | None:
    """The six operands of an arithmetic question (each 0 to 29), or ``None``."""
    m = ARITHMETIC.match(question.strip())
    if m is None or any(int(x) > 29 for x in m.groups()):
        return None
    return tuple(int(x) for x in m.groups())


def options_listed(question: str) -> int:
    """How many lettered options (``A) ...``, ``B) ...``, in order) a question lists; 0 if none.

    >>> options_listed("Which? : A) red, B) blue, C) grey Explain."), options_listed("2+2?")
    (3, 0)
    """
    count = 0
    for m in _OPTION.finditer(question):
        if count < 26 and m.group(1) == chr(ord("A") + count):
            count += 1
    return count if count >= 2 else 0


def summary_counts(summary: str, read: Callable[[str], Any], most: int) -> list[tuple[Any, int]]:
    """The counts a summary states, ``(answer, agents)``, as many as the vector holds.

    Its first ``most`` counts with a readable answer and 1 to ``most`` agents (no debate of
    ``most`` agents has a larger count).
    """
    found = []
    for count, said in COUNTED.findall(summary):
        value = read(said)
        if value is not None and 1 <= int(count) <= most and len(found) < most:
            found.append((value, int(count)))
    return found


def stated(text: str, agent: str, debaters: Sequence[str], read: Callable[[str], Any]) -> dict:
    """The facts a view of ``agent`` states, each line read with the task's readers.

    ``("round",)``, ``("rounds",)``, ``("waiting",)``; of the question, ``("operands",)``
    (arithmetic) and ``("options",)`` (lettered options); ``("answer", seat)`` for each reply
    quoted, the answer ``read`` reads from the quote (``None``: none); ``("summary", i)`` for
    the summary's counts (:func:`summary_counts`); once over, ``("final",)`` and
    ``("correct",)``. The rest of the question and of the replies is free text: no facts.
    """
    lines = text.split("\n")
    played, total = ROUND.fullmatch(lines[0]).groups()
    facts: dict[tuple, Any] = {("round",): int(played), ("rounds",): int(total)}
    asked = QUESTION.search(text).group(1)
    if (operands := arithmetic_operands(asked)) is not None:
        facts[("operands",)] = operands
    if options := options_listed(asked):
        facts[("options",)] = options
    facts[("waiting",)] = lines[-1].startswith("Waiting for ")
    if final := FINAL.fullmatch(lines[-1]):
        facts[("final",)] = None if final.group(1) == NO_ANSWER else read(final.group(1))
        facts[("correct",)] = final.group(2) == "right"
    if agent == SUMMARIZER:
        for name, said in ANSWERS.findall(text):
            facts[("answer", name.lower())] = read(said)
        return facts
    if mine := MINE.search(text):
        facts[("answer", agent)] = read(mine.group(1))
    others = [a for a in debaters if a != agent]
    for seat, said in zip(others, OTHER.findall(text), strict=False):
        facts[("answer", seat)] = read(said)
    if summary := SUMMARY.search(text):
        for i, count in enumerate(summary_counts(summary.group(1), read, len(debaters))):
            facts[("summary", i)] = count
    return facts
