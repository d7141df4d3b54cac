"""The debate env: ``mase/Debate-v0``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from mase.actions import ActionParse
from mase.envs.debate import questions as sources
from mase.envs.debate import text as words
from mase.envs.debate import vector
from mase.envs.debate.questions import READERS, Question
from mase.envs.debate.world import Debate
from mase.events import Event
from mase.layout import VectorLayout
from mase.schedules import Phase, PhaseQueue
from mase.spaces import CHARSET, MAX_TEXT_LENGTH
from mase.stats import Metric, proportion, rate
from mase.task import Outcome, TaskEnv

SEATS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliett")  # fmt: skip
SOURCES = ("arithmetic", "gsm8k", "mmlu", "bigbench", "chess", "chess_moves")
#: The package's own small sets in the public formats, for runs without the data sets (12
#: GSM8K-style problems; two MMLU-style files of 6 and 5 rows, the first row of each a header
#: as the released code reads them). Point ``path`` at the real files to ask the paper's.
SAMPLES = {
    "gsm8k": Path(__file__).parent / "data" / "gsm8k_mini.jsonl",
    "mmlu": Path(__file__).parent / "data" / "mmlu",
}


def load_questions(
    source: str, path: str | Path | None, n: int | None, seed: int
) -> list[Question]:
    """The questions of ``source`` (see :mod:`.questions`), ``n`` of them."""
    if source == "arithmetic":
        return sources.arithmetic(100 if n is None else n, seed)
    if source == "chess":
        from mase.envs.debate.chess_tasks import validity_questions

        return validity_questions(100 if n is None else n, seed)
    if source == "chess_moves":
        from mase.envs.debate.chess_tasks import games_of, move_questions

        games = games_of(path) if path is not None else ()
        return move_questions(100 if n is None else n, seed, games=games)
    if path is None and source in SAMPLES:
        path = SAMPLES[source]
    if path is None:
        raise ValueError(f"source {source!r} reads a file: pass path=...")
    if source == "gsm8k":
        return sources.gsm8k(path, n, seed)
    if source == "mmlu":
        return sources.mmlu(path, 100 if n is None else n, seed)
    if source == "bigbench":
        return sources.bigbench(path, n)
    raise ValueError(f"unknown question source {source!r}; sources: {', '.join(SOURCES)}")


class DebateEnv(TaskEnv):
    """Multiagent debate (Du et al. 2023): agents answer, read each other, revise; majority wins.

    Description:
        ``agents`` agents answer one question over ``rounds`` rounds, counted as the released
        code counts them (the first answer is round 1; the default 2 is the paper's "two
        rounds of debate": answer alone, then read and revise). Each round every agent answers
        at once: the answers are speech, secret until every agent has answered, then revealed.
        From round 2 each agent reads the other agents' answers of the round before, verbatim
        (or, with ``summarize=True``, a summary a ``summarizer`` seat writes of them) and
        answers again. A lone agent with more rounds is asked to verify and restate its answer
        (the paper's reflection). The final answer is the majority of the last round's readable
        answers, a tie going to the answer given first in seat order (the released code's "first
        most frequent"); an answer that cannot be read is left out of the vote, and a debate
        with none readable has no answer, which is wrong (the released evaluator counted it as
        right).

        The paper's baselines are settings: single agent ``agents=1, rounds=1``; reflection
        ``agents=1, rounds=2``; majority vote ``agents=3, rounds=1``; debate ``agents=3,
        rounds=2``; debate with summaries ``summarize=True``.

        ``personas``: one line for each debater, in seat order, that its rules text tells it as
        "Your persona: ..." (none by default, as in the paper). ``prompt``: the request that
        follows the answers a debater reads (``text.REQUESTS``): ``"default"`` the released
        code's ("use these opinions carefully as additional advice"), ``"agreeable"`` (give an
        updated answer based on them) or ``"stubborn"`` (keep the answer unless one's own
        reasoning has a mistake).

    Questions:
        ``source`` (:mod:`.questions`): ``"arithmetic"`` (the released generator's problems),
        ``"gsm8k"``, ``"mmlu"`` and ``"bigbench"`` (files at ``path``, chosen as the released code
        chooses; without ``path``, GSM8K and MMLU ask the package's own small samples,
        :data:`SAMPLES`), ``"chess"`` (fresh BIG-bench-style move validity questions),
        ``"chess_moves"`` (move quality: the next move of a game, the games of a BIG-bench
        ``chess_state_tracking`` file at ``path`` or random ones, scored by Stockfish:
        ``pawn_score`` and ``delta_pawn`` in the metrics, for a legal final move); or
        ``questions``,
        a list of :class:`.questions.Question`. ``n_questions`` and ``question_seed`` choose them.
        Episode ``seed`` asks question ``seed`` (modulo their number): an evaluation of 100
        episodes from seed 0 asks the 100 questions in order; ``reset(options={"question": i})``
        asks question ``i``.

    Agents:
        ``alpha``, ``bravo``, ... (the debaters, in seat order), and ``summarizer`` when
        ``summarize``.

    Actions:
        Speech: the reply is the answer, read by the source's strict reader. Where the source
        has a finite answer set (MMLU letters, chess squares, the arithmetic range) the action
        space is ``Discrete`` over it and an index is said as that answer, so RL and scripted
        seats can sit at the table; otherwise the space is ``Text``.

    Observations:
        Text: the round, the question, the agent's own previous answer and the others' (or the
        summary), with the released code's request; each earlier reply is quoted by its last
        3,000 characters (fewer where many debaters share a view, so that a view is never cut
        off). Vector (:mod:`.vector`, a table a block; ``vector_layout``): the round as a
        fraction, the question's six integers over 29 (arithmetic; zeros otherwise), then for
        each debater (the agent first, then the others in seat order) whether the reply its
        text quotes reads as an answer and that answer scaled to [0, 1] (the index in the
        answer set, else ``(tanh(x / 1000) + 1) / 2``); then, appended, the number of rounds,
        whether the seat waits, whether the question is arithmetic, how many lettered options
        it lists, which replies are quoted, each quoted reply's answer exactly, the counts a
        summary states (summarized debates) and, once over, the final answer and whether it is
        right. The replies and the question are free text: they enter the vector as what the
        task's readers read from them as shown. The summarizer's slots are the debaters in
        seat order; in a summarized debate a debater's text quotes only its own answer.

    Rewards:
        At the end, every seat gets 1 if the final answer is right, else 0.

    Metrics:
        ``correct``, ``unreadable`` (no readable final answer), ``unreadable_answers`` (replies
        that could not be read, every round), ``consensus`` (the last round agreed), rounds to
        consensus (``rounds_to_consensus``: the first agreeing round, 0 for none), answer changes
        per round (``right_to_wrong``, ``wrong_to_right``), and per round ``round<k>_correct``
        (the majority of that round) and ``round<k>_agents_correct`` (the share of agents
        right), for accuracy by round.

    Version history:
        * v0: first release.
    """

    metadata = {"name": "debate_v0", "render_modes": ["ansi", "human"]}
    drawing = "mase.envs.debate.render:DRAWING"
    schedule = PhaseQueue()
    language_model = "mase.envs.debate.language_model:respond"
    scripted_policy = "mase.envs.debate.bots:DebateBot"
    table_columns = (
        ("correct", "accuracy", "{:.1%}"),
        ("unreadable", "unreadable", "{:.1%}"),
        ("consensus", "consensus", "{:.1%}"),
        ("right_to_wrong", "right to wrong", "{:.2f}"),
        ("wrong_to_right", "wrong to right", "{:.2f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    )
    metric_kinds = {
        "correct": proportion("Accuracy (share of questions)"),
        "unreadable": proportion("Unreadable final answers (share of questions)"),
        "consensus": proportion("Consensus reached (share of debates)"),
        "right_to_wrong": Metric("Changes from right to wrong per debate", "bounded", 0.0, None),
        "wrong_to_right": Metric("Changes from wrong to right per debate", "bounded", 0.0, None),
    }

    def __init__(
        self,
        source: str = "arithmetic",
        path: str | Path | None = None,
        n_questions: int | None = None,
        question_seed: int = 0,
        questions: Sequence[Question] | None = None,
        agents: int = 3,
        rounds: int = 2,
        summarize: bool = False,
        personas: Sequence[str] | None = None,
        prompt: str = "default",
        max_cycles: int | None = None,
        obs_mode: str = "both",
        render_mode: str | None = None,
    ):
        super().__init__(obs_mode, render_mode, max_cycles)
        if isinstance(agents, bool) or not isinstance(agents, int) or not 1 <= agents <= len(SEATS):
            raise ValueError(f"agents must be 1 to {len(SEATS)}, got {agents!r}")
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ValueError(f"rounds must be 1 or more (the first answer counts), got {rounds!r}")
        if prompt not in words.REQUESTS:
            raise ValueError(f"prompt must be one of {sorted(words.REQUESTS)}, got {prompt!r}")
        if summarize and agents < 2:
            raise ValueError("summarize needs 2 or more agents: a lone agent has no one to read")
        if personas is not None and len(personas) != agents:
            raise ValueError(f"personas: one per agent ({agents}), got {len(personas)}")
        self.questions = list(questions) if questions is not None else load_questions(
            source, path, n_questions, question_seed
        )  # fmt: skip
        if not self.questions:
            raise ValueError("no questions to ask")
        from mase.envs.debate.language_model import ANSWER_KEY

        ANSWER_KEY.update((q.prompt.strip(), q) for q in self.questions)  # the offline key
        self.source = self.questions[0].source
        kinds = {q.kind for q in self.questions}
        if len(kinds) > 1:
            raise ValueError(f"one kind of answer a debate, got {sorted(kinds)}")
        self.kind = kinds.pop()
        self.choices = self.questions[0].choices
        if any(q.choices != self.choices for q in self.questions):
            self.choices = None  # answer sets differ: speech only
        if self.kind == "move":  # move quality needs the engine: said now, not at the end
            from mase.envs.debate.chess_tasks import find_engine

            find_engine()
        self.n_rounds, self.summarize, self.prompt = rounds, summarize, prompt
        self.debaters = tuple(SEATS[:agents])
        self.personas = dict(zip(self.debaters, personas or [""] * agents, strict=True))
        self.possible_agents = [*self.debaters, *([words.SUMMARIZER] if summarize else [])]
        self.speech_limit = MAX_TEXT_LENGTH  # an answer is heard whole, channel or not
        if self.choices is not None:
            action = spaces.Discrete(len(self.choices))
        else:
            action = spaces.Text(MAX_TEXT_LENGTH, charset="".join(sorted(CHARSET)))
        self.layout = vector.layout(agents, self.kind, summarize)
        self.set_spaces(self.layout.size, action, self.layout.size + agents)
        self.debate: Debate | None = None
        self.question_index = 0

    # -- rules ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start the debate of question ``seed`` (see the class docstring)."""
        self._episode_seed = seed
        super().reset(seed, options)

    def new_episode(self, options: dict | None) -> None:
        """Ask question ``seed`` (modulo their number), or ``options["question"]``.

        Without a seed the question is drawn from the env's generator.
        """
        options = options or {}
        index = options.get("question")
        if index is None and self._episode_seed is not None:
            index = self._episode_seed % len(self.questions)
        elif index is None:
            index = int(self.np_random.integers(len(self.questions)))
        if not 0 <= int(index) < len(self.questions):
            raise ValueError(f"question {index} is not one of 0..{len(self.questions) - 1}")
        self.question_index = int(index)
        self.debate = Debate(self.questions[self.question_index], self.debaters, self.n_rounds)
        self._summarizing = False

    def next_phase(self, previous: Phase | None) -> Phase:
        """Every debater answers at once; between rounds, the summarizer writes (if any)."""
        if self._summarizing:
            return Phase("summarize", (words.SUMMARIZER,), speech=True, audience=self.debaters)
        last = self.debate.round + 1 == self.n_rounds
        hears = (words.SUMMARIZER,) if self.summarize and not last else self.debaters
        ends = not (self.summarize and not last)
        return Phase("answer", self.debaters, secret=True, speech=True, audience=hears,
                     ends_round=ends)  # fmt: skip

    def apply(self, agent: str, action: Any) -> list[Event]:
        """Record the reply (the speech already said it) and what it reads as."""
        d = self.debate
        if self.phase.name == "summarize":
            d.summaries.append(action)
            return []
        value = d.answer(agent, action)
        return [self.event("answer", agent, {("answer", agent, d.round + 1): value},
                           frozenset({agent}))]  # fmt: skip

    def utterance(self, agent: str, action: Any) -> str:
        """An index of the answer set, said as that answer (:meth:`.Question.say`)."""
        if self.choices is None:
            return super().utterance(agent, action)
        index = self.check_action(agent, action)
        return self.debate.question.say(self.choices[int(index)])

    def end_phase(self, phase: Phase) -> Outcome | None:
        """After the answers: summarize, open the next round, or end with the majority."""
        d = self.debate
        if phase.name == "answer" and self.summarize and d.round + 1 < self.n_rounds:
            self._summarizing = True
            return None
        self._summarizing = False
        if d.next_round():
            return None
        final = d.final()
        correct = d.question.correct(final)
        self.finish("answered" if final is not None else "unreadable")
        event = self.event("final", None, {("final",): final, ("correct",): correct},
                           frozenset(self.possible_agents))  # fmt: skip
        return Outcome([event], 1.0 if correct else 0.0)

    def next_round(self) -> None:
        """Count a new round (the debate keeps its own, 0-based)."""
        self.round += 1

    # -- metrics ------------------------------------------------------------------------------

    def metric_specs(self) -> dict[str, Metric]:
        """The shared metrics, the task's, and the accuracy after each round."""
        by_round: dict[str, Metric] = {}
        for r in range(1, self.n_rounds + 1):
            by_round[f"round{r}_correct"] = proportion(f"Accuracy after round {r}")
            by_round[f"round{r}_agents_correct"] = rate(f"Agents right after round {r}")
        return {**super().metric_specs(), **by_round}

    def metrics(self) -> dict[str, Any]:
        """Accuracy, unreadable answers, consensus and changes of mind (class docstring)."""
        d = self.debate
        q = d.question
        played = d.round + 1
        final = d.final()
        m: dict[str, Any] = {
            **super().metrics(),
            "question": q.id,
            "final_answer": final
            if final is None or isinstance(final, int | float)
            else str(final),
            "correct": float(q.correct(final)),
            "unreadable": float(final is None),
            "unreadable_answers": sum(v is None for r in range(played) for v in d.votes(r)),
            "consensus": float(d.consensus(d.round)),
        }
        agreeing = [r for r in range(played) if d.consensus(r)]
        m["rounds_to_consensus"] = agreeing[0] + 1 if agreeing else 0
        changes = {"right_to_wrong": 0, "wrong_to_right": 0}
        for r in range(1, played):
            for a in d.agents:
                before, after = q.correct(d.read[r - 1][a]), q.correct(d.read[r][a])
                if before and not after:
                    changes["right_to_wrong"] += 1
                elif after and not before:
                    changes["wrong_to_right"] += 1
        m.update(changes)
        if self.kind == "move" and self._ended_by and q.correct(final):
            from mase.envs.debate.chess_tasks import Judge

            with Judge() as judge:  # an engine a judgement: none is left running
                m["pawn_score"], m["delta_pawn"] = judge.score(q.extra["moves"], final)
        for r in range(played):
            m[f"round{r + 1}_correct"] = float(q.correct(d.final(r)))
            m[f"round{r + 1}_agents_correct"] = float(np.mean([q.correct(v) for v in d.votes(r)]))
        return m

    # -- views --------------------------------------------------------------------------------

    def _revealed(self) -> dict[str, Any]:
        """Each debater's last revealed answer (the round before the one being answered)."""
        d = self.debate
        r = d.round if self._ended_by or self._summarizing else d.round - 1
        return d.read[r] if r >= 0 else dict.fromkeys(d.agents)

    def _scaled(self, value: Any) -> float:
        if value is None:
            return 0.0
        if self.choices is not None and value in self.choices:
            return self.choices.index(value) / max(1, len(self.choices) - 1)
        try:
            return float((np.tanh(float(value) / 1000.0) + 1.0) / 2.0)
        except (TypeError, ValueError):
            return 0.0

    def _vector(self, agent: str) -> np.ndarray:
        return vector.pack(self, agent)

    def _text(self, agent: str) -> str:
        return words.observation_text(
            self.debate, agent, self.acting(agent), self.prompt, bool(self._ended_by),
            self.summarize,
        )  # fmt: skip

    def _mask(self, agent: str) -> np.ndarray:
        return np.full(self.action_space(agent).n, int(self.acting(agent)), dtype=np.int8)

    def vector_layout(self, agent: str) -> VectorLayout:
        """The vector's blocks (:mod:`.vector`): the same for every seat of a debate."""
        return self.layout

    def text_knowledge(self, agent: str, text: str) -> dict[Any, Any]:
        """The facts a view states, read with the question's reader (:func:`.text.stated`)."""
        return words.stated(text, agent, self.debaters, READERS[self.kind])

    def vector_knowledge(self, agent: str, vector_: np.ndarray) -> dict[Any, Any]:
        """The same facts, read back from the vector (:func:`.vector.read`)."""
        return vector.read(self, agent, vector_)

    def state(self) -> np.ndarray:
        """The global view: the first debater's vector, then whether each debater is right."""
        if self.debate is None:
            raise RuntimeError("call reset() before state()")
        d = self.debate
        right = [float(d.question.correct(self._revealed()[a])) for a in d.agents]
        return np.concatenate([self._vector(d.agents[0]), np.asarray(right, np.float32)])

    def scene(self) -> dict:
        """The question, its truth, and each agent's reply and answer by round (``replay.js``).

        A round's replies are secret until every agent has answered, and no agent knows the
        truth: the round being answered and the truth (with what was right) are kept under
        ``"secret"``, out of the replay's common view.
        """
        d = self.debate
        q = d.question
        answers = [{a: (None if v is None else str(v)) for a, v in row.items()} for row in d.read]
        shown = [all(v is not None for v in row.values()) for row in d.replies]
        public = [
            row if done else dict.fromkeys(row) for row, done in zip(d.replies, shown, strict=False)
        ]
        read = [
            row if done else dict.fromkeys(row) for row, done in zip(answers, shown, strict=False)
        ]
        return {
            "question": q.prompt,
            "id": q.id,
            "agents": d.agents,
            "rounds": d.rounds,
            "round": d.round,
            "replies": public,
            "answers": read,
            "summaries": d.summaries,
            "final": None if not self._ended_by else str(d.final()),
            "secret": {
                "truth": q.answer,
                "replies": d.replies,
                "answers": answers,
                "right": [
                    {a: (v is not None and bool(q.correct(v))) for a, v in row.items()}
                    for row in d.read
                ],
                "final_right": bool(self._ended_by) and bool(q.correct(d.final())),
            },
        }

    def _render(self) -> str:
        d = self.debate
        lines = [
            f"Debate, {len(d.agents)} agent(s), round {d.round + 1} of {d.rounds}: {d.question.id}"
        ]
        lines.append(f"  truth: {d.question.answer}")
        for r in range(d.round + 1):
            row = ", ".join(f"{a} {d.read[r][a]}" for a in d.agents)
            lines.append(f"  round {r + 1}: {row}")
        if self._ended_by:
            lines.append(
                f"Final: {d.final()} ({'right' if d.question.correct(d.final()) else 'wrong'})."
            )
        return "\n".join(lines)

    # -- language interface ---------------------------------------------------------------------

    def rules_text(self, agent: str) -> str:
        """The debate as told to ``agent``."""
        return words.rules_text(
            agent, self.debaters, self.n_rounds, self.kind,
            self.personas.get(agent, ""), self.summarize,
        )  # fmt: skip

    def legal_actions_text(self, agent: str) -> list[str]:
        """What may be said now: an answer in the question's form (none when not acting)."""
        if not self.acting(agent):
            return []
        if agent == words.SUMMARIZER:
            return ["a summary of the answers"]
        return [f"an answer: reason as you like, and {words.FORMATS[self.kind]}"]

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Every phase is speech: a reply is what it says (kept for the language interface)."""
        return ActionParse(text)
