"""AgentVerse's vector view: what a seat's text states, block by block, and read back.

A seat's view states the iteration, the stage, whose turn it is, the review (or discussion)
rounds done, the last evaluation's verdict, which experts have roles, who wrote each proposal
of the iteration, the reviews' verdicts it may see, with a wrapped task the task's round, the
execution's progress and, in the execution stage, the acting seat's view of the task, and once
the work is over the decision's score. Roles, proposals, decisions and evaluations are free
text: they enter the vector as what the protocol reads from them (a review's or an evaluation's
verdict, :func:`.env.accepts`; who spoke), nothing more. ``P`` seats, ``E`` experts, ``R``
review rounds, ``K`` proposal slots (``R`` vertically, ``E * R + 1`` horizontally: the most an
iteration makes).

==============  ====================  ============================================================
block           size                  content
==============  ====================  ============================================================
stage           7                     the stage (one-hot over ``STAGES``; zeros once over)
iteration       1                     (iteration - 1) / (iterations - 1)
review_round    1                     review (discussion) rounds done / R
seat            P                     the seat (one-hot)
proposal        1                     1 when the view lists a proposal
accepted        1                     the share of accepting reviews in the last review round the
                                      view shows
iterations      1                     1 / iterations
rounds          1                     1 / R
over            1                     1 once the work is over
score           1                     the final decision's score, as the view writes it (2
                                      decimals)
turn            P                     whose turn it is (one-hot; zeros once over)
evaluation      2                     the last iteration's evaluation shown, and whether it accepts
roles           E                     1 for each expert the roles list names
proposals       K * E                 who wrote each proposal listed, in order (one-hot a slot)
reviews         R * (E - 1) * 2       (vertical) for each review round and reviewer: shown, accepts
task_round      1                     (a task) the task's round / (iterations * (execute_rounds +
                                      1) + 1)
progress        2                     (a task) the execution's result shown, its progress in %/100
task_view       1 + A + V             (a task) shown, whose view (one-hot of the task's A agents)
                                      and that agent's vector of the task (V: the largest)
==============  ====================  ============================================================

The first six blocks are the first release's vector (16 numbers for the default five seats);
the others follow it, so a policy trained on the old vector reads its prefix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mase.envs.agentverse import text as words
from mase.layout import Block, VectorLayout


def stages() -> tuple[str, ...]:
    """The protocol's stages (the stage block's order)."""
    from mase.envs.agentverse.env import STAGES

    return STAGES


def slots(env: Any) -> int:
    """How many proposals an iteration makes at most: its proposal slots."""
    n, r = len(env.experts), env.review_rounds
    return r if env.structure == "vertical" else n * r + 1


def task_rounds(env: Any) -> int:
    """The most rounds the wrapped task can reach in a run (the task round's scale)."""
    return env.n_iterations * (env.execute_rounds + 1) + 1


def layout(env: Any) -> VectorLayout:
    """The vector's blocks for this protocol's seats (module docstring)."""
    p, e, r, k = len(env.possible_agents), len(env.experts), env.review_rounds, slots(env)
    blocks = [
        Block("stage", len(stages()), "the stage (one-hot; zeros once over)"),
        Block("iteration", 1, "(iteration - 1) / (iterations - 1)"),
        Block("review_round", 1, f"review (or discussion) rounds done / {r}"),
        Block("seat", p, "the seat (one-hot)"),
        Block("proposal", 1, "1 when the view lists a proposal"),
        Block("accepted", 1, "the share of accepting reviews in the last review round shown"),
        Block("iterations", 1, "1 / iterations"),
        Block("rounds", 1, f"1 / review rounds ({r})"),
        Block("over", 1, "1 once the work is over"),
        Block("score", 1, "the final decision's score as the view writes it (2 decimals)"),
        Block("turn", p, "whose turn it is (one-hot; zeros once over)"),
        Block("evaluation", 2, "the last iteration's evaluation shown, and whether it accepts"),
        Block("roles", e, "1 for each expert the roles list names"),
        Block("proposals", k * e, "who wrote each proposal listed, in order (one-hot a slot)",
              bound=f"{k} proposals, the most an iteration makes"),
    ]  # fmt: skip
    if env.structure == "vertical" and e > 1:
        blocks.append(Block("reviews", r * (e - 1) * 2,
                            "for each review round and reviewer: shown, accepts"))  # fmt: skip
    if env.inner is not None:
        a, v = len(env.inner.possible_agents), _task_vector_size(env)
        blocks += [
            Block("task_round", 1, f"the task's round / {task_rounds(env)}"),
            Block("progress", 2, "the execution's result shown, and its progress in % / 100"),
            Block("task_view", 1 + a + v, "the task's view shown, whose (one-hot of the task's "
                  f"agents) and that agent's vector of the task ({v} numbers, zeros after it)"),
        ]  # fmt: skip
    return VectorLayout(blocks)


def _task_vector_size(env: Any) -> int:
    return max(env.inner.vector_space(a).shape[0] for a in env.inner.possible_agents)


def _one_hot(n: int, i: int | None) -> np.ndarray:
    out = np.zeros(n)
    if i is not None:
        out[i] = 1.0
    return out


def pack(env: Any, agent: str) -> np.ndarray:
    """``agent``'s vector (:func:`layout`), from what its view states now (:func:`.text.seen`)."""
    view = words.seen(env, agent)
    seats, experts = list(env.possible_agents), list(env.experts)
    n_stages, over = len(stages()), view.stage == "over"
    e, r, k = len(experts), env.review_rounds, slots(env)
    proposals = np.zeros((k, e))
    for i, seat in enumerate(view.proposals):
        proposals[i, experts.index(seat)] = 1.0
    parts: dict[str, Any] = {
        "stage": _one_hot(n_stages, None if over else stages().index(view.stage)),
        "iteration": [(view.iteration - 1) / max(1, view.iterations - 1)],
        "review_round": [view.rounds_done / r],
        "seat": _one_hot(len(seats), seats.index(agent)),
        "proposal": [float(bool(view.proposals))],
        "accepted": [_share(view.reviews)],
        "iterations": [1 / view.iterations],
        "rounds": [1 / r],
        "over": [float(over)],
        "score": [view.score or 0.0],
        "turn": _one_hot(len(seats), None if view.turn is None else seats.index(view.turn)),
        "evaluation": [float(view.evaluation is not None), float(bool(view.evaluation))],
        "roles": [float(seat in view.roles) for seat in experts],
        "proposals": proposals,
    }
    if env.structure == "vertical" and e > 1:
        reviews = np.zeros((r, e - 1, 2))
        for round_, seat, ok in view.reviews:
            reviews[round_ - 1, experts.index(seat) - 1] = (1.0, float(ok))
        parts["reviews"] = reviews
    if env.inner is not None:
        parts.update(_pack_task(env, view))
    return env.layout.pack(parts)


def _share(reviews: tuple[tuple[int, str, bool], ...]) -> float:
    """The share of accepting reviews in the last review round listed (0 with none)."""
    if not reviews:
        return 0.0
    last = max(r for r, _, _ in reviews)
    verdicts = [ok for r, _, ok in reviews if r == last]
    return sum(verdicts) / len(verdicts)


def _pack_task(env: Any, view: words.Seen) -> dict[str, Any]:
    inner = env.inner
    agents, size = list(inner.possible_agents), _task_vector_size(env)
    shown = np.zeros(1 + len(agents) + size)
    if view.task_agent is not None:
        vector = inner.observe_vector(view.task_agent)
        shown[0], shown[1 + agents.index(view.task_agent)] = 1.0, 1.0
        shown[1 + len(agents) : 1 + len(agents) + len(vector)] = vector
    return {
        "task_round": [view.task_round / task_rounds(env)],
        "progress": [float(view.progress is not None), (view.progress or 0) / 100],
        "task_view": shown,
    }


# -- reading the vector back --------------------------------------------------------------------


def _index(x: float, top: int) -> int:
    """``x * top`` as a whole number in 0..top (``ValueError`` when it is none)."""
    i = round(float(x) * top)
    if not 0 <= i <= top or abs(float(x) * top - i) > 1e-3:
        raise ValueError(f"{float(x)} is not a multiple of 1/{top} in [0, 1]")
    return i


def _inverse(x: float) -> int:
    if not 0 < x <= 1 or abs(1 / round(1 / x) - x) > 1e-6:
        raise ValueError(f"{x} is not 1 / a whole number")
    return round(1 / x)


def _hot(values: np.ndarray, names: list[str], what: str) -> str | None:
    """The name a one-hot part holds (``None``: all zeros; ``ValueError``: not one-hot)."""
    flags = [_index(v, 1) for v in values]
    if sum(flags) > 1:
        raise ValueError(f"{what}: more than one")
    return names[flags.index(1)] if any(flags) else None


def _zeros(values: np.ndarray, what: str) -> None:
    if np.any(values):
        raise ValueError(f"{what}: numbers in a part the view does not state")


def read(env: Any, agent: str, vector: np.ndarray) -> dict:
    """The facts ``agent``'s vector holds, keyed as :meth:`.text.Seen.facts` keys them.

    Raises:
        ValueError: numbers :func:`pack` never writes.
    """
    v = env.layout.split(np.asarray(vector, dtype=np.float64))
    seats, experts = list(env.possible_agents), list(env.experts)
    iterations, r = _inverse(v["iterations"][0]), _inverse(v["rounds"][0])
    over = bool(_index(v["over"][0], 1))
    stage = _hot(v["stage"], list(stages()), "stage")
    if (stage is None) != over:
        raise ValueError("a stage, or over, not both")
    view = words.Seen(
        1 + (_index(v["iteration"][0], iterations - 1) if iterations > 1 else 0), iterations,
        stage or "over", _hot(v["seat"], seats, "seat"), _index(v["review_round"][0], r), r,
    )  # fmt: skip
    if iterations == 1:
        _zeros(v["iteration"], "iteration")
    view.score = _index(v["score"][0], 100) / 100 if over else _zeros(v["score"], "score")
    view.turn = _hot(v["turn"], seats, "turn")
    if (view.turn is None) != over:
        raise ValueError("a turn, or over, not both")
    if _index(v["evaluation"][0], 1):
        view.evaluation = bool(_index(v["evaluation"][1], 1))
    else:
        _zeros(v["evaluation"], "evaluation")
    view.roles = tuple(s for s, flag in zip(experts, v["roles"], strict=True) if _index(flag, 1))
    view.proposals = _read_proposals(v["proposals"].reshape(slots(env), len(experts)), experts)
    if "reviews" in v:
        view.reviews = _read_reviews(v["reviews"].reshape(r, len(experts) - 1, 2), experts)
    if _index(v["proposal"][0], 1) != bool(view.proposals) or abs(
        v["accepted"][0] - _share(view.reviews)
    ) > 1e-6:  # fmt: skip
        raise ValueError("the first release's blocks disagree with the later ones")
    if env.inner is not None:
        _read_task(env, v, view)
    return view.facts()


def _read_proposals(slots_: np.ndarray, experts: list[str]) -> tuple[str, ...]:
    found = [_hot(row, experts, "proposal") for row in slots_]
    listed = [seat for seat in found if seat is not None]
    if found[: len(listed)] != listed:
        raise ValueError("an empty proposal slot before a full one")
    return tuple(listed)


def _read_reviews(reviews: np.ndarray, experts: list[str]) -> tuple:
    out = []
    for r, round_ in enumerate(reviews):
        for i, (shown, ok) in enumerate(round_):
            if _index(shown, 1):
                out.append((r + 1, experts[i + 1], bool(_index(ok, 1))))
            else:
                _zeros(np.asarray([ok]), "an unshown review")
    return tuple(out)


def _read_task(env: Any, v: dict, view: words.Seen) -> None:
    inner = env.inner
    agents = list(inner.possible_agents)
    view.task_round = _index(v["task_round"][0], task_rounds(env))
    if _index(v["progress"][0], 1):
        view.progress = _index(v["progress"][1], 100)
    else:
        _zeros(v["progress"], "progress")
    shown = v["task_view"]
    if not _index(shown[0], 1):
        _zeros(shown, "the task's view")
        return
    view.task_agent = _hot(shown[1 : 1 + len(agents)], agents, "the task's agent")
    if view.task_agent is None:
        raise ValueError("a task view of no agent")
    size = inner.vector_space(view.task_agent).shape[0]
    held = shown[1 + len(agents) :]
    _zeros(held[size:], "past the task agent's vector")
    view.task = inner.vector_knowledge(view.task_agent, held[:size].astype(np.float32))
