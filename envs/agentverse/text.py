"""The AgentVerse protocol in words: the rules, each seat's view, and what each stage asks."""

from __future__ import annotations

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
    lines = [
        f"Iteration {len(env.history)} of {env.n_iterations}; stage: {stage}. You are {agent}.",
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
            lines += [f"Its evaluation: {last.feedback or '(none)'}"]
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
