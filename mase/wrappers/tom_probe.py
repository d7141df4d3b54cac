"""Theory-of-Mind probes: ask agents what they and their teammates know, and score exactly.

:class:`ToMProbe` wraps any MASE task. After every step it runs its probe hooks on the step's
new events; each hook yields :class:`~mase.probes.Question` records (who is asked, the level,
the kind, the teammate asked about, the fact keys, the question text). A question is put to the
asked agent at its next turn (and to everyone when the episode ends): its true answer is
computed then from the task's knowledge tracker (``env.unwrapped.knowledge()``) and true facts
(:func:`mase.probes.true_answer`; the levels and their ground truth are in :mod:`mase.probes`),
and the question appears in ``infos[agent]["tom_questions"]`` as ``{"id", "question"}``
(ids ``tom-<seat>-N``, counted per seat; each seat's choices come from its own generator). The
caller answers with :meth:`ToMProbe.answer_questions`; :meth:`ToMProbe.episode_record` gives
the accuracy per level and every probe with its truth, reply and score.

A probe hook is a function ``hook(context) -> iterable of Question``; the task's built-in
hooks are named by its ``tom_probes`` attribute (a task from a paper asks the paper's
questions). ``examples/custom_probe.py`` adds one.
The probe types live in :mod:`mase.probes`, below tasks and wrappers; this module re-exports
them for code that imports them from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium.envs.registration import load_env_creator
from pettingzoo.utils.wrappers import BaseWrapper

from mase.probes import (
    LEVELS,
    Holds,
    Probe,
    ProbeContext,
    Question,
    evidence,
    true_answer,
    unread_messages,
)
from mase.protocol import cut, parse_yes_no
from mase.task import TaskEnv

__all__ = [
    "LEVELS",
    "Holds",
    "Probe",
    "ProbeContext",
    "Question",
    "ToMProbe",
    "seat_generator",
    "true_answer",
]


class ToMProbe(BaseWrapper):
    """Asks Theory-of-Mind questions after events and scores the answers exactly.

    Nothing is added to observations; questions travel in ``infos[agent]["tom_questions"]``
    (see the module docstring), so the wrapped env passes PettingZoo's ``api_test``.

    Args:
        env: a MASE task, possibly wrapped.
        probes: probe hooks; ``None`` loads the task's built-in hooks (its ``tom_probes``).
        seed: seeds the generators hooks draw from (combined with each ``reset`` seed): one
            per seat (:func:`seat_generator`), so a seat's questions, their ids
            (``tom-<seat>-N``, counted per seat) and when they are asked depend only on what
            that seat saw and the seeds, never on another seat's unseen moves.
        rate: the share of the hooks' questions actually asked, drawn per question from the
            asked seat's generator (1.0: all; lower it to spend fewer model calls on probes).

    Example:
        >>> import mase
        >>> from mase.probes import Question
        >>> def did_you_see(context):  # after each action that showed its actor facts, ask it
        ...     for event in context.events:
        ...         if event.actor == context.agent and event.facts and event.kind != "observe":
        ...             yield Question(context.agent, "introspection", event.kind,
        ...                            "Did you see it?", tuple(event.facts))
        >>> task = mase.list_envs("mase", declaring="tom_probes")[0]  # a task with probes
        >>> env = ToMProbe(mase.make(task), probes=[did_you_see])
        >>> env.reset(seed=0)
        >>> for agent in env.agent_iter(12):
        ...     obs, _, ended, cut, _ = env.last()
        ...     env.step(None if ended or cut else int(obs["action_mask"].argmax()))
        >>> records = env.episode_record()["probes"]
        >>> len(records) > 0, all(r["truth"] for r in records)  # each saw its own action
        (True, True)
    """

    def __init__(
        self, env: Any, probes: Sequence[Probe] | None = None, seed: int = 0, rate: float = 1.0
    ):
        super().__init__(env)
        if not 0.0 < rate <= 1.0:
            raise ValueError(f"rate must be in (0, 1], got {rate}")
        self.rate = rate
        base = env.unwrapped
        if type(base).true_facts is TaskEnv.true_facts:
            raise TypeError(
                f"{type(base).__name__} does not implement true_facts(), which ToMProbe "
                "scores answers against"
            )
        if probes is None:
            spec = getattr(base, "tom_probes", None)
            if not spec:
                raise ValueError(
                    f"{type(base).__name__} has no built-in Theory-of-Mind probes (its "
                    "tom_probes attribute is empty); pass probes=[hook, ...]"
                )
            probes = load_env_creator(spec)
        self.probes = tuple(probes)
        if not self.probes:
            raise ValueError("ToMProbe needs at least one probe hook")
        self.seed = seed
        self._rngs = self._generators(None)
        self._clear()

    def _generators(self, seed: int | None) -> dict[str, np.random.Generator]:
        seeds = (self.seed,) if seed is None else (self.seed, seed % 2**63)
        return {a: seat_generator(seeds, a) for a in self.env.unwrapped.possible_agents}

    def _clear(self) -> None:
        self._pending: dict[str, list[tuple[int, Question]]] = {}
        self._records: dict[str, dict[str, Any]] = {}
        self._asked: dict[str, set[str]] = {}
        self._count: dict[str, int] = {}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the task and forget every question."""
        super().reset(seed=seed, options=options)
        if seed is not None:
            self._rngs = self._generators(seed)
        self._clear()

    def step(self, action: Any) -> None:
        """Take the action, run the probe hooks on its events, and ask due questions."""
        base = self.env.unwrapped
        agent = base.agent_selection
        live = not (base.terminations.get(agent, True) or base.truncations.get(agent, True))
        if not live:
            self.env.step(action)
            return
        base.infos[agent].pop("tom_questions", None)  # asked before this turn: answered or not
        start = len(base.event_log)
        self.env.step(action)
        events = tuple(base.event_log[start:])
        tracker, truth = base.knowledge(), base.true_facts()
        context = ProbeContext(agent, events, base, tracker, truth, self._rngs)
        for hook in self.probes:
            for question in hook(context):
                if self.rate < 1.0 and self._rngs[question.asked].random() >= self.rate:
                    continue
                self._pending.setdefault(question.asked, []).append((base.round, question))
        ended = not base.agents or all(
            base.terminations.get(a) or base.truncations.get(a) for a in base.agents
        )
        due = list(self._pending) if ended else [base.agent_selection]
        for asked in due:
            self._ask(asked)

    def _ask(self, agent: str) -> None:
        """Put the agent's pending questions to it: evaluate their truth now, list them."""
        pending = self._pending.pop(agent, None)
        base = self.env.unwrapped
        if not pending or agent not in base.infos:
            return
        tracker, truth = base.knowledge(), base.true_facts()
        listed = []
        for rnd, question in pending:
            holds, stale = true_answer(question, tracker, truth)
            rows = evidence(question, tracker)
            for row in rows:
                row["because"] = _describe(base.event_log, row["event"])
            self._count[agent] = number = self._count.get(agent, 0) + 1
            qid = f"tom-{agent}-{number}"
            self._records[qid] = {
                "id": qid,
                "round": rnd,
                "level": question.level,
                "kind": question.kind,
                "asked": question.asked,
                "about": question.about,
                "facts": [list(key) for key in question.facts],
                "question": question.question,
                "truth": holds,
                "false_belief": stale,
                "evidence": rows,
                "unread_messages": [
                    _describe(base.event_log, i) for i in unread_messages(question, tracker)
                ],
                "reply": None,
                "answer": None,
                "correct": None,
            }
            self._asked.setdefault(agent, set()).add(qid)
            listed.append({"id": qid, "question": question.question})
        base.infos[agent]["tom_questions"] = listed

    def answer_questions(self, agent: str, replies: Mapping[str, str | None]) -> list[dict]:
        """Score ``agent``'s replies to its questions (``{question id: reply text}``).

        Each reply is read as yes/no (:func:`mase.protocol.parse_yes_no`); a reply that
        says neither counts as answered and wrong. Returns the scored records.
        """
        mine = self._asked.get(agent, set())
        scored = []
        for qid, reply in replies.items():
            if qid not in mine:
                raise ValueError(
                    f"question {qid!r} was not asked to {agent!r}; answer the ids listed in "
                    f"infos[{agent!r}]['tom_questions']"
                )
            record = self._records[qid]
            record["reply"], record_cut = cut(reply) if isinstance(reply, str) else (reply, None)
            if record_cut is not None:
                record["reply_truncated"] = record_cut
            answer = parse_yes_no(reply) if reply is not None else None
            record["answer"] = answer
            record["correct"] = None if reply is None else answer == record["truth"]
            scored.append(record)
        return scored

    def metrics(self) -> dict[str, Any]:
        """Accuracy per level (correct / answered; ``None`` when none was answered), counts."""
        out: dict[str, Any] = {}
        levels = list(LEVELS) + sorted({r["level"] for r in self._records.values()} - set(LEVELS))
        for level in levels:
            answered = [
                r for r in self._records.values() if r["level"] == level and r["reply"] is not None
            ]
            correct = sum(bool(r["correct"]) for r in answered)
            out[f"tom_{level}"] = correct / len(answered) if answered else None
        out["tom_questions"] = len(self._records)
        out["tom_answered"] = sum(r["reply"] is not None for r in self._records.values())
        return out

    def episode_record(self) -> dict[str, Any]:
        """The episode's probe metrics and every question asked, in order."""
        return {
            "metrics": self.metrics(),
            "probes": [dict(r) for r in self._records.values()],
        }


def seat_generator(seeds: Sequence[int], seat: str) -> np.random.Generator:
    """The generator of ``seat``'s questions: its own stream of ``seeds``, keyed on its name.

    A :class:`numpy.random.SeedSequence` child whose spawn key is the seat name's bytes, so
    every seat's stream is independent of the others' and of the order seats are listed in.
    """
    key = tuple(seat.encode())
    return np.random.default_rng(np.random.SeedSequence(list(seeds), spawn_key=key))


def _describe(log: Sequence[Any], index: int | None) -> dict[str, Any] | None:
    """An event of the log, as a record: its index, kind, actor, round, audience and text."""
    if index is None or not 0 <= index < len(log):
        return None
    event = log[index]
    out = {
        "event": index,
        "kind": event.kind,
        "actor": event.actor,
        "round": event.round,
        "audience": sorted(event.audience),
    }
    if event.note:
        out["text"], _ = cut(event.note)
    return out
