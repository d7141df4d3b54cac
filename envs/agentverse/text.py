"""The AgentVerse protocol in words: the rules, each seat's view, and what each stage asks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: What a said text's later lines start with in a view: no one's words can forge a line of the
#: view (another seat's review, a header).
INDENT = "    "


def indent(text: str, first: bool = False) -> str:
    """``text`` with its later lines (and, with ``first``, its first) indented."""
    body = text.replace("\n", "\n" + INDENT)
    return INDENT + body if first else body


def dedent(text: str) -> str:
    """What :func:`indent` wrote, read back."""
    return "\n".join(line[len(INDENT):] if line.startswith(INDENT) else line
                     for line in text.split("\n"))  # fmt: skip


def role_of(env: Any, agent: str) -> str:
    """The seat's part in the protocol, in a phrase."""
    if agent == "recruiter":
        return "the recruiter: you write the experts' roles"
    if agent == "evaluator":
        return "the evaluator: you judge the group's decision against the goal"
    if agent == "solver":
        return "the solver: you propose the solution and revise it after the reviews"
    if agent.startswith("reviewer_"):
        return "a reviewer: you check the solver's proposals"
    return "an expert: you propose and refine with the others; expert_1 writes the decision"


def rules_text(env: Any, agent: str) -> str:
    """The protocol as told to ``agent``."""
    structure = (
        "The solver proposes; the reviewers review each proposal at once, unseen by each "
        "other; when every review accepts, or after the last review round, the latest proposal "
        "is the group's decision."
        if env.structure == "vertical"
        else "The experts each propose or refine in turn, for some rounds; then expert_1 merges "
        "the proposals into the group's decision."
    )
    evaluation = {
        "auto": "The decision is checked by the problem's own score; if it falls short, the "
        "feedback starts a new iteration.",
        "seat": "The evaluator judges the decision; unless it accepts, its feedback starts a new "
        "iteration.",
        "none": "The decision is final.",
    }[env.evaluator]
    text = (
        f"You are {agent}, {role_of(env, agent)}, in a group that works on one goal in at "
        f"most {env.n_iterations} iteration(s). Each iteration: "
        + ("the recruiter writes a role for each expert; " if env.recruit else "")
        + f"the experts decide. {structure} {evaluation} "
        "A review or an evaluation that accepts says so on a line of its own: 'Verdict: "
        "accept'; anything else is criticism."
    )
    if env.inner is None:
        return text
    if env.evaluator == "auto":
        text = text.replace("the problem's own score", "the task's own progress toward the goal")
    who = "; ".join(f"{seat} acts for {agent_name(a)}" for a, seat in env.plays.items())
    text += (
        f"\n\nThe goal is reached in a task ({env.task_id}). The decision is the group's plan; "
        f"then comes the execution: the experts act in the task for its agents ({who}), for "
        f"at most {env.execute_rounds} of its rounds an iteration, and the task goes on from "
        "where it is in the next iteration."
    )
    for inner_agent in env.acts_for(agent):
        text += f"\n\n{WORLD_RULES.format(task=env.task_id, agent=agent_name(inner_agent))}\n"
        text += env.inner.rules_text(inner_agent)
    return text


#: Where a seat's rules of the wrapped task start (its offline mind reads from there).
WORLD_RULES = "The task ({task}), where you act for {agent}:"
#: Where a seat's view of the wrapped task starts, in the execution stage.
WORLD_VIEW = "The task, as {agent} sees it:"


def agent_name(agent: str) -> str:
    """A task agent's name as its task writes it (``alpha`` -> ``Alpha``)."""
    return agent.capitalize()


def request(env: Any, agent: str) -> str:
    """What the seat is asked to write now."""
    stage = env.phase.name if env.phase is not None else ""
    feedback = " Take the last evaluation's feedback into account." if len(env.history) > 1 else ""
    if stage == "recruit":
        if env.inner is not None:
            return (
                f"Write the roles of {len(env.experts)} experts who together can reach the goal, "
                "each with its sub-goal in the task, one line each: 'Expert 1: <role and "
                "sub-goal>', 'Expert 2: ...'. "
                + " ".join(
                    f"Expert {env.experts.index(seat) + 1} acts for {agent_name(a)}."
                    for a, seat in env.plays.items()
                )  # fmt: skip
                + feedback
            )
        return (
            f"Write the roles of {len(env.experts)} experts who together can reach the goal, "
            "one line each: 'Expert 1: <role>', 'Expert 2: <role>', ..." + feedback
        )
    if stage == "execute":
        acting = agent_name(env.inner.agent_selection)
        return f"Choose {acting}'s action in the task, following the plan and your sub-goal."
    if stage == "propose":
        think = " Think step by step, then give the solution." if env.cot else ""
        again = (
            " Revise your last proposal in the light of the reviews."
            if env.current.proposals
            else ""
        )
        what = "the group's plan: what each agent does in the task" if env.inner else "a solution"
        return f"Propose {what} to reach the goal." + again + think + feedback
    if stage == "review":
        return (
            "Review the solver's latest proposal. If it is right, end with a line 'Verdict: "
            "accept'; otherwise say what is wrong and how to fix it."
        )
    if stage == "discuss":
        return "Give your proposal, or refine the group's so far." + feedback
    if stage == "integrate":
        return "Merge the proposals into the group's one decision: write the solution itself."
    if stage == "evaluate" and env.inner is not None:
        return (
            "Judge the execution's result against the goal. If the goal is reached, write a "
            "line 'Verdict: accept'; otherwise say what falls short and what to do next."
        )
    if stage == "evaluate":
        return (
            "Judge the group's decision against the goal. If it meets the goal, write a line "
            "'Verdict: accept'; otherwise say what falls short and how to improve it."
        )
    return ""


def observation_text(env: Any, agent: str) -> str:
    """The seat's view: the goal, its role, what this iteration has said that it may see."""
    it = env.current
    stage = env.phase.name if env.phase is not None and not env.ended_by else "over"
    rounds = "Review" if env.structure == "vertical" else "Discussion"
    lines = [
        f"Iteration {len(env.history)} of {env.n_iterations}; stage: {stage}. You are {agent}. "
        f"{rounds} rounds done: {env._review_round} of {env.review_rounds}.",
        "",
        "Goal:",
        env.problem.prompt.strip(),
    ]
    if env.inner is not None:
        lines += [f"Task: {env.task_id}, round {env.inner.round}."]
    split = getattr(env.inner, "subgoals", None)
    if agent == "recruiter" and split is not None and stage == "recruit":
        lines += ["", "A possible split of the work (the task's own plan):"]
        lines += [f"- {agent_name(a)}: {goal}" for a, goal in split().items()]
    if agent in env.experts:
        role = it.roles.get(agent) or (env.history[-2].roles.get(agent) if len(env.history) > 1
                                       else None)  # fmt: skip
        lines += ["", f"Your role: {role or 'an expert on the goal'}"]
    if len(env.history) > 1:
        last = env.history[-2]
        lines += [
            "",
            "The last iteration's decision:",
            indent(last.decision or "(none)", first=True),
        ]
        if agent != "evaluator":
            lines += [f"Its evaluation: {indent(last.feedback or '(none)')}"]
    if agent in env.experts:
        if it.roles:
            lines += ["", "The experts' roles:"] + [f"- {s}: {r}" for s, r in it.roles.items()]
        seen = [f"[{seat}] {indent(said)}" for seat, said in it.proposals]
        for r, round_reviews in enumerate(it.reviews):
            done = r < env._review_round or env.ended_by
            for seat, (said, _) in round_reviews.items():
                if done or seat == agent:
                    seen.append(f"[{seat}, review {r + 1}] {indent(said)}")
        if seen:
            lines += ["", "This iteration so far:", *seen]
    if agent == "evaluator" and it.decision is not None:
        lines += ["", "The group's decision:", indent(it.decision, first=True)]
    if env.inner is not None and it.outcome and agent in ("evaluator", "recruiter"):
        lines += ["", "The execution's result:", f"Progress: {it.score:.0%}.",
                  indent(it.outcome, first=True)]  # fmt: skip
    if stage == "execute" and env.acting(agent):
        inner_agent = env.inner.agent_selection
        lines += [
            "",
            WORLD_VIEW.format(agent=agent_name(inner_agent)),
            indent(env.inner.observe_text(inner_agent), first=True),
        ]
    if env.ended_by:
        lines += ["", f"The work is over: the decision scores {it.score:.2f}."]
    elif env.acting(agent):
        lines += ["", "Now: " + request(env, agent)]
    else:
        lines += ["", f"Wait: it is {env.agent_selection}'s turn."]
    return "\n".join(lines)


# -- what a view states, as facts (the parity hooks read views with these) --------------------


@dataclass
class Seen:
    """The facts a seat's view states (:func:`seen` from the protocol, :func:`stated` from text).

    The goal, the roles' and sub-goals' words, the proposals' and the decision's words and the
    execution's words are free text the protocol reads no claim from: only who wrote a
    proposal is a fact of it. A review or an evaluation states its verdict (:func:`.env.accepts`).
    """

    iteration: int
    iterations: int
    stage: str
    seat: str
    rounds_done: int
    rounds: int
    task_round: int | None = None
    evaluation: bool | None = None  # whether the last iteration's evaluation accepts
    roles: tuple[str, ...] = ()  # the experts the roles list names, in seat order
    proposals: tuple[str, ...] = ()  # who wrote each proposal listed, in order
    reviews: tuple[tuple[int, str, bool], ...] = ()  # (review round, reviewer, accepts)
    progress: int | None = None  # the execution's result, in percent
    task_agent: str | None = None  # whose view of the wrapped task is shown
    score: float | None = None  # the final decision's score, once the work is over
    turn: str | None = None  # whose turn it is
    task: dict = field(default_factory=dict)  # the wrapped task's view's facts

    def facts(self) -> dict[tuple, Any]:
        """The facts as the parity hooks key them."""
        out: dict[tuple, Any] = {
            ("iteration",): self.iteration, ("iterations",): self.iterations,
            ("stage",): self.stage, ("seat",): self.seat,
            ("rounds_done",): self.rounds_done, ("rounds",): self.rounds,
            ("roles",): self.roles, ("proposals",): self.proposals,
        }  # fmt: skip
        for key in ("task_round", "evaluation", "progress", "task_agent", "score", "turn"):
            if getattr(self, key) is not None:
                out[(key,)] = getattr(self, key)
        for r, seat, ok in self.reviews:
            out[("review", r, seat)] = ok
        out.update((("task", *key), value) for key, value in self.task.items())
        return out


def _accepts(text: str) -> bool:
    from mase.envs.agentverse.env import accepts
    from mase.spaces import clean_text

    return accepts(clean_text(text, 10**9))  # as the view shows it


def seen(env: Any, agent: str) -> Seen:
    """What ``agent``'s view states now, from the protocol's state.

    The same facts :func:`observation_text` writes, for the vector view.
    """
    it = env.current
    over = bool(env.ended_by)
    view = Seen(
        len(env.history), env.n_iterations,
        env.phase.name if env.phase is not None and not over else "over", agent,
        env._review_round, env.review_rounds,
    )  # fmt: skip
    if env.inner is not None:
        view.task_round = env.inner.round
    if len(env.history) > 1 and agent != "evaluator":
        view.evaluation = _accepts(env.history[-2].feedback or "(none)")
    if agent in env.experts:
        view.roles = tuple(seat for seat in env.experts if seat in it.roles)
        view.proposals = tuple(seat for seat, _ in it.proposals)
        view.reviews = tuple(
            (r + 1, seat, _accepts(said))
            for r, round_reviews in enumerate(it.reviews)
            for seat, (said, _) in round_reviews.items()
            if r < env._review_round or over or seat == agent
        )
    if env.inner is not None and it.outcome and agent in ("evaluator", "recruiter"):
        view.progress = int(f"{it.score:.0%}"[:-1])
    if view.stage == "execute" and env.acting(agent):
        view.task_agent = env.inner.agent_selection
    if over:
        view.score = float(f"{it.score:.2f}")
    else:
        view.turn = agent if env.acting(agent) else env.agent_selection
    return view


_HEADER = re.compile(
    r"Iteration (\d+) of (\d+); stage: ([a-z]+)\. You are ([a-z_0-9]+)\. "
    r"(?:Review|Discussion) rounds done: (\d+) of (\d+)\."
)
#: Where the goal ends: a blank line, then a section of the view (or the wrapped task's line).
_GOAL_END = re.compile(
    r"\n(?=Task: \S+, round \d+\.\n)|\n\n(?=Your role:|A possible split|The last iteration|"
    r"The experts'|This iteration|The group's decision|The execution's result|The task, as |"
    r"Now:|Wait:|The work is over)"
)
_ENTRY = re.compile(r"\[([a-z_0-9]+)(?:, review (\d+))?\] (.*)", re.S)


def stated(env: Any, agent: str, text: str) -> Seen:
    """The facts a view's text states, read section by section (:class:`Seen`)."""
    header, _, rest = text.partition("\n")
    m = _HEADER.fullmatch(header)
    view = Seen(int(m[1]), int(m[2]), m[3], m[4], int(m[5]), int(m[6]))
    rest = rest.split("\nGoal:\n", 1)[1]
    tail = _GOAL_END.search(rest)
    sections = rest[tail.end() :].split("\n\n") if tail else []
    for section in sections:
        head, _, body = section.partition("\n")
        if task := re.fullmatch(r"Task: \S+, round (\d+)\.", head):
            view.task_round = int(task[1])
        elif head == "The last iteration's decision:" and "\nIts evaluation: " in body:
            view.evaluation = _accepts(dedent(body.split("\nIts evaluation: ", 1)[1]))
        elif head == "The experts' roles:":
            listed = {line[2:].split(": ", 1)[0] for line in body.split("\n")}
            view.roles = tuple(seat for seat in env.experts if seat in listed)  # seat order
        elif head == "This iteration so far:":
            _read_entries(view, body)
        elif head == "The execution's result:":
            view.progress = int(re.match(r"Progress: (\d+)%\.", body)[1])
        elif task := re.fullmatch(r"The task, as (\w+) sees it:", head):
            inner = next(a for a in env.inner.possible_agents if agent_name(a) == task[1])
            view.task_agent = inner
            view.task = env.inner.text_knowledge(inner, dedent(body))
        elif over := re.fullmatch(r"The work is over: the decision scores ([\d.]+)\.", head):
            view.score = float(over[1])
        elif head.startswith("Now: "):
            view.turn = agent
        elif turn := re.fullmatch(r"Wait: it is ([a-z_0-9]+)'s turn\.", head):
            view.turn = turn[1]
    return view


def _read_entries(view: Seen, body: str) -> None:
    """The proposals' writers and the reviews' verdicts of "This iteration so far"."""
    entries: list[str] = []
    for line in body.split("\n"):
        if line.startswith(INDENT) and entries:
            entries[-1] += "\n" + line
        else:
            entries.append(line)
    proposals, reviews = [], []
    for entry in entries:
        seat, review, said = _ENTRY.fullmatch(entry).groups()
        if review is None:
            proposals.append(seat)
        else:
            reviews.append((int(review), seat, _accepts(dedent(said))))
    view.proposals, view.reviews = tuple(proposals), tuple(reviews)
