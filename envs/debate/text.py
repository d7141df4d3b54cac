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

from collections.abc import Sequence

from mase.envs.debate.world import Debate

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

FORMATS = {
    "number": "state your final answer as a number at the end of your response",
    "choice": "end your response with the answer in the form (X)",
    "square": "end your response with the destination square (such as e4)",
    "move": "end your response with the move in UCI notation (such as e2e4)",
}


def quote(reply: str | None) -> str:
    """An earlier reply as a view quotes it: its last :data:`QUOTE_CHARS`, no code fences."""
    if reply is None:
        return "(no answer)"
    text = reply.replace("```", "'''")
    return text if len(text) <= QUOTE_CHARS else "[...]" + text[-QUOTE_CHARS:]


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
    if r > 0:
        mine = debate.replies[r - 1][agent]
        lines.append(f"Your answer in round {r}: ```{quote(mine)}```")
        if len(debate.agents) == 1:
            lines.append(REFLECTION)
        elif summarized:
            summary = debate.summaries[r - 1] if len(debate.summaries) >= r else ""
            lines.append(SUMMARY_HEAD.format(quote(summary)) + REQUESTS[prompt])
        else:
            others = "".join(
                ONE_RESPONSE.format(quote(debate.replies[r - 1][a]))
                for a in debate.agents
                if a != agent
            )
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
            f"\n\n {a.capitalize()}'s response: ```{quote(debate.replies[r][a])}```"
            for a in debate.agents
        )
        lines.append(f"The agents' answers of round {r + 1}:{answers}\n\n {SUMMARY_REQUEST}")
    else:
        lines.append("Waiting for the agents to answer.")
    return "\n".join(lines)


def _result(debate: Debate) -> str:
    final = debate.final()
    said = "no readable answer" if final is None else f"{final}"
    right = "right" if debate.question.correct(final) else "wrong"
    return f"The debate is over. Final answer: {said} ({right})."
