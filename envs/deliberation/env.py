"""The deliberation envs: menu design (three settings) and task allocation.

``mase/MenuDesign-v0``, ``mase/MenuDesignSemantic-v0``, ``mase/MenuDesignLevel3-v0`` and
``mase/TaskAllocation-v0``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from mase.actions import ActionParse, InvalidAction
from mase.envs.deliberation import reading, scoring
from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import (
    ALLOCATION_SEATS,
    MENU_SEATS,
    Game,
    games_of,
)
from mase.events import Event
from mase.layout import VectorLayout
from mase.schedules import Phase, PhaseQueue
from mase.spaces import MAX_TEXT_LENGTH, clean_text
from mase.stats import Metric, proportion
from mase.task import Outcome, TaskEnv

#: How much of the dialogue a text view shows, newest last (older turns are left out).
DIALOGUE_CHARS = reading.DIALOGUE_CHARS

TALK, PROPOSE, ACCEPT, FINAL = range(4)


class DeliberationEnv(TaskEnv):
    """What menu design and task allocation share: turns of talk and proposals, one decision.

    Subclasses set ``seats``, ``kind`` and the views of their games. See
    :class:`MenuDesignEnv` and :class:`TaskAllocationEnv` for the task pages.
    """

    schedule = PhaseQueue()
    drawing = "mase.envs.deliberation.render:DRAWING"
    language_model = "mase.envs.deliberation.language_model:respond"
    tom_probes = "mase.envs.deliberation.tom:PROBES"
    scripted_policy = "mase.envs.deliberation.bots:Deliberator"
    policies = {
        "oracle": "mase.envs.deliberation.bots:oracle",
        "random-proposer": "mase.envs.deliberation.bots:random_proposer",
    }
    table_columns = (
        ("nr", "NR", "{:.1f}"),
        ("nar", "NAR", "{:.1f}"),
        ("valid", "VR", "{:.1%}"),
        ("lenient_nr", "authors' NR", "{:.1f}"),
        ("rounds", "rounds", "{:.2f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    )
    metric_kinds = {
        "nr": Metric("Normalized reward (% of the optimum)", "bounded", 0.0, 100.0),
        "nar": Metric("Normalized loose reward (% of the optimum)", "bounded", 0.0, 100.0),
        "npr2": Metric("NPR scaled by dishes kept (% of the optimum)", "bounded", 0.0, 100.0),
        "lenient_nr": Metric("Authors' lenient NR (% of the optimum)", "bounded", 0.0, None),
        "valid": proportion("Valid decisions (share of games)"),
        "agreed": proportion("Agreement reached (share of games)"),
    }
    seats: tuple[str, ...] = ()
    default_games = ""

    def __init__(
        self,
        games: str | Path | Sequence[Game] | None = None,
        round_limit: int = 6,
        message_limit: int = words.MESSAGE_LIMIT,
        full_observation: bool = False,
        max_cycles: int | None = None,
        obs_mode: str = "both",
        render_mode: str | None = None,
    ):
        super().__init__(obs_mode, render_mode, max_cycles)
        if isinstance(round_limit, bool) or not isinstance(round_limit, int) or round_limit < 1:
            raise ValueError(f"round_limit must be 1 or more, got {round_limit!r}")
        if not isinstance(message_limit, int) or message_limit < 1:
            raise ValueError(f"message_limit must be a positive number, got {message_limit!r}")
        self.games = self._games(self.default_games if games is None else games)
        if not self.games:
            raise ValueError("no games to play")
        wrong = [g.id for g in self.games if g.kind != self.kind]
        if wrong:
            raise ValueError(f"{type(self).__name__} plays {self.kind} games; got {wrong[:3]}")
        self.round_limit, self.full_observation = round_limit, full_observation
        self.speech_limit = message_limit  # the task's rule, whatever channel wraps it
        self.possible_agents = list(self.seats)
        self.game: Any = None
        self.game_index = 0
        self._configure()

    def _configure(self) -> None:
        raise NotImplementedError

    def _games(self, spec: str | Path | Sequence[Game]) -> list[Game]:
        """The games of ``spec``: a released set, a path, a list, or ``"generated:N[:SEED]"``."""
        if isinstance(spec, str) and spec.startswith("generated"):
            from mase.envs.deliberation import generate

            parts = spec.split(":")
            if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts[1:]):
                raise ValueError(
                    f"games={spec!r}: write 'generated:N' or 'generated:N:SEED' (N fresh games "
                    "from the generator, seeds SEED...SEED+N-1)"
                )
            n, seed = int(parts[1]), int(parts[2]) if len(parts) == 3 else 0
            make = generate.menu_games if self.kind == "menu" else generate.allocation_games
            return list(make(n, seed))
        return games_of(spec)

    # -- rules ----------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Play game ``seed`` (modulo the number of games), or ``options["game"]``."""
        self._episode_seed = seed
        super().reset(seed, options)

    def new_episode(self, options: dict | None) -> None:
        """Pick the game; no proposal on the table; the dialogue is empty."""
        options = options or {}
        index = options.get("game")
        if index is None and self._episode_seed is not None:
            index = self._episode_seed % len(self.games)
        elif index is None:
            index = int(self.np_random.integers(len(self.games)))
        if not 0 <= int(index) < len(self.games):
            raise ValueError(f"game {index} is not one of 0..{len(self.games) - 1}")
        self.game_index = int(index)
        self.game = self.games[self.game_index]
        self.proposals: dict[str, tuple[tuple, int]] = {}  # seat -> (decision, round)
        self.current: tuple[str, tuple, int] | None = None  # (proposer, decision, round)
        self.decision: tuple | None = None
        self.decided_by = ""
        self.dialogue: list[tuple[int, str, str]] = []
        self.notices: dict[str, str] = {}
        self.flagged = 0
        self._score: scoring.Score | None = None

    def next_phase(self, previous: Phase | None) -> Phase:
        """Each seat in turn, one turn a phase; the round ends after the last seat."""
        i = 0 if previous is None else (self.seats.index(previous.agents[0]) + 1) % len(self.seats)
        seat = self.seats[i]
        return Phase("turn", (seat,), speech=True, ends_round=i == len(self.seats) - 1)

    def speech_move(self, agent: str, reply: str, said: str) -> str:
        """The whole reply: its move line counts even when the message is cut."""
        self.dialogue.append((self.round, agent, said))
        return clean_text(reply, MAX_TEXT_LENGTH)

    def apply(self, agent: str, action: Any) -> Outcome | list[Event]:
        """Read the reply's move and play it (module docstring of :mod:`.text`)."""
        self.notices.pop(agent, None)
        try:
            reply = words.read_reply(self.game, action)
        except words.ReplyError as err:
            raise InvalidAction("unreadable_move", str(err)) from None
        if reply.kind == "talk":
            return []
        if reply.kind == "propose":
            return self._propose(agent, reply)
        return self._decide(agent, reply)

    def _propose(self, agent: str, reply: words.Reply) -> list[Event]:
        self.proposals[agent] = (reply.decision, self.round)
        self.current = (agent, reply.decision, self.round)
        said = words.move_text(self.game, reply)
        events = [self.event("proposal", agent, {("proposal", agent): said})]
        problem = self._problem(reply)
        if problem:
            self.flagged += 1
            self.notices[agent] = (
                f"Your proposal cannot be a valid decision: {problem}. It stands as said; "
                "propose again to change it."
            )
            events.append(self.event("notice", None, {}, frozenset({agent}), problem))
        return events

    def _problem(self, reply: words.Reply) -> str:
        """Why a decision could never be valid, whatever the hidden state ("" if it could)."""
        if reply.unknown:
            return (
                "no "
                + ("dish" if self.kind == "menu" else "task or agent")
                + " is called "
                + (", ".join(repr(n) for n in reply.unknown[:3]))
            )
        named = [d if isinstance(d, str) else d[0] for d in reply.decision]
        twice = sorted({n for n in named if named.count(n) > 1})
        if twice:
            return f"{', '.join(words.shown(n) for n in twice[:3])} listed more than once"
        return ""

    def _decide(self, agent: str, reply: words.Reply) -> Outcome:
        raise NotImplementedError

    def _finish(self, decision: tuple | None, decided_by: str, ended_by: str) -> Outcome:
        """End the talk with ``decision``: everyone gets NR / 100."""
        self.decision, self.decided_by = decision, decided_by
        self._score = self._score_of(decision or ())
        self.finish(ended_by)
        m = scoring.metrics(self.game, self._score)
        said = words.move_text(self.game, words.Reply("final", decision or ()))
        event = self.event(
            "decision", None,
            {("decision",): said, ("valid",): self._score.valid, ("nr",): round(m["nr"], 2)},
            frozenset(self.possible_agents), self._score.reason,
        )  # fmt: skip
        return Outcome([event], m["nr"] / 100.0)

    def _score_of(self, decision: tuple) -> scoring.Score:
        raise NotImplementedError

    def end_round(self) -> Outcome | None:
        """After the last round: the fallback decision (the task says which)."""
        if self.round >= self.round_limit and not self._ended_by:
            return self._finish(self._fallback(), "", "round_limit")
        return None

    def _fallback(self) -> tuple | None:
        raise NotImplementedError

    # -- metrics ----------------------------------------------------------------------------------

    def metrics(self) -> dict[str, Any]:
        """NR, NAR, VR's validity and the authors' lenient NR (:mod:`.scoring`), and the talk."""
        score = self._score if self._score is not None else self._score_of(())
        m: dict[str, Any] = {
            **super().metrics(),
            **scoring.metrics(self.game, score),
            "game": self.game.id,
            "agreed": float(bool(self.decided_by)),
            "proposals": len([e for e in self.event_log if e.kind == "proposal"]),
            "flagged_proposals": self.flagged,
            "invalid_reason": score.reason,
        }
        return m

    # -- views ------------------------------------------------------------------------------------

    def turn_view(self, agent: str) -> dict:
        """The private facts ``agent`` holds (all of them in the full-observation ablation)."""
        seats = range(len(self.seats)) if self.full_observation else [self.seats.index(agent)]
        facts: dict = {}
        for s in seats:
            facts.update(words.private_facts(self.game, s, self._semantic))
        return facts

    def true_facts(self) -> dict:
        """Every private fact of the game (each seat's) and the proposal on the table."""
        if self.game is None:
            raise RuntimeError("call reset() before true_facts()")
        facts: dict = {}
        for s in range(len(self.seats)):
            facts.update(words.private_facts(self.game, s, self._semantic))
        if self.current is not None:
            reply = words.Reply("propose", self.current[1])
            facts[("proposal", self.current[0])] = words.move_text(self.game, reply)
            facts[("proposal_value",)] = round(self._score_of(self.current[1]).lenient_reward, 2)
        return facts

    def tools(self, agent: str) -> dict[str, Any]:
        """The solver an ``llm-tools`` seat may call (:mod:`.tools`, the paper's tools)."""
        from mase.envs.deliberation import tools

        tool = tools.menu_tool(self) if self.kind == "menu" else tools.allocation_tool(self)
        return {tool.name: tool}

    def belief_template(self, agent: str) -> str:
        """The belief ``agent`` starts from (:func:`.text.belief_template`)."""
        game = self.game or self.games[0]
        return words.belief_template(game, self.seats.index(agent), self._semantic)

    def oracle_belief(self, agent: str) -> str:
        """What ``agent`` knows now, in the belief's sentences.

        Its own facts and every private fact it saw or was told (right or wrong, as told), and
        the value of the proposal on the table once it holds every number that value depends
        on, rightly (every seat's stock and values, or resources and task values).
        """
        if self.game is None:
            raise RuntimeError("call reset() before oracle_belief()")
        kinds = {"stock", "value", "capacity", "public_share", "task_value", "profile"}
        held = {k: b.value for k, b in self.knowledge().beliefs(agent).items() if k[0] in kinds}
        held.update(self.turn_view(agent))
        truth = self.true_facts()
        needed = [k for k in truth if k[0] in kinds]
        if self.current is not None and all(held.get(k) == truth[k] for k in needed):
            held[("proposal_value",)] = truth[("proposal_value",)]
        belief = "What I believe about the numbers the decision depends on:\n"
        return words.with_observation(belief + words.facts_text(held), self.observe_text(agent))

    def parse_facts(self, text: str) -> dict:
        """The facts stated in ``text`` in the fact sentences (:func:`.text.parse_facts`)."""
        return words.parse_facts(text)

    def facts_text(self, facts: dict) -> str:
        """Facts as the fact sentences (:func:`.text.facts_text`)."""
        return words.facts_text(facts)

    def vector_layout(self, agent: str) -> VectorLayout:
        """The vector's blocks (:mod:`.vector`; the same for every seat)."""
        self._check_seat(agent)
        return self.codec.layout()

    def text_knowledge(self, agent: str, text: str) -> dict[Any, Any]:
        """The facts a text view of ``agent`` states (:func:`.reading.text_facts`).

        The dialogue's claims are the ``("told", speaker, ...)`` facts; messages of a message
        channel are not shown in the view (the dialogue is the task's channel), so none enter.
        """
        self._check_seat(agent)
        return reading.text_facts(self, agent, text)

    def vector_knowledge(self, agent: str, vector: np.ndarray) -> dict[Any, Any]:
        """The facts a vector of ``agent`` holds, keyed as :meth:`text_knowledge`."""
        self._check_seat(agent)
        return self.codec.decode(agent, vector)

    def _check_seat(self, agent: str) -> None:
        if agent not in self.seats:
            raise ValueError(f"no seat {agent!r}; seats: {list(self.seats)}")

    def _vector(self, agent: str) -> np.ndarray:
        return self.codec.pack(self, agent)

    def claim_forms(self) -> list[str]:
        """One example of each fact sentence this task's agents hold."""
        sample = words.private_facts(self.game or self.games[0], 0, self._semantic)
        seen, out = set(), []
        for key, value in sample.items():
            if key[0] not in seen:
                seen.add(key[0])
                out.append(words.facts_text({key: value}))
        return out

    _semantic = False

    def shown_turns(self) -> tuple[int, list[tuple[int, str, str]]]:
        """The turns a view shows (the newest, up to DIALOGUE_CHARS) and how many it leaves out."""
        return reading.shown_turns(self.dialogue)

    def _dialogue_text(self) -> str:
        if not self.dialogue:
            return "No one has spoken yet."
        left, turns = self.shown_turns()
        # a turn's later lines are indented: no message can forge another speaker's line,
        # a header or a section of the view
        lines = [reading.turn_line(*turn) for turn in turns]
        if left:
            lines.insert(0, f"({left} earlier turns left out)")
        return "Dialogue so far:\n" + "\n".join(lines)

    def note(self, agent: str) -> str:
        """The note the view shows on ``agent``'s last move (``""``: none)."""
        return self.notices.get(agent) or self.infos.get(agent, {}).get("invalid_action") or ""

    def _proposal_text(self, agent: str) -> str:
        if self.current is None:
            return "No proposal is on the table yet."
        who, decision, rnd = self.current
        by = "you" if who == agent else who
        said = words.move_text(self.game, words.Reply("propose", decision))
        return f"Current proposal (by {by}, round {rnd}): {said.split(': ', 1)[1]}"

    def _text(self, agent: str) -> str:
        own = words.facts_text(self.turn_view(agent))
        parts = [
            self._header(agent),
            self._public_text(),
            "What you know privately:\n" + own,
            self._proposal_text(agent),
            self._dialogue_text(),
        ]
        notice = self.note(agent)
        if notice:
            parts.append(f"Note: {notice}")
        if self._ended_by:
            parts.append(self._end_text())
        elif self.acting(agent):
            parts.append("It is your turn: " + " ".join(self.legal_actions_text(agent)))
        else:
            parts.append(f"Wait: it is {self.agent_selection}'s turn.")
        return "\n\n".join(parts)

    def _header(self, agent: str) -> str:
        shown_round = min(self.round, self.round_limit)
        return f"Round {shown_round} of {self.round_limit}. You are {agent}."

    def _public_text(self) -> str:
        raise NotImplementedError

    def _end_text(self) -> str:
        score = self._score
        said = words.move_text(self.game, words.Reply("final", self.decision or ()))
        said = said.split(": ", 1)[1]
        if score is None:
            return "The talk is over."
        verdict = reading.VERDICTS[reading.verdict_of(score.reason)]
        return f"The talk is over. Decision: {said}; it is {verdict}."

    def scene(self) -> dict:
        """The dialogue, the proposal on the table, the optimum and the score (``replay.js``).

        The optimum and the score are computed from every seat's private values, which no
        seat sees whole: they are kept under ``"secret"``, out of the replay's common view.
        """
        g = self.game
        best = scoring.optimum(g)
        if g.kind == "menu":
            decision = tuple(g.dishes[i] for i in best.decision)
        else:
            decision = tuple((g.tasks[t], self.seats[a]) for t, a in sorted(best.decision.items()))
        optimum = words.move_text(g, words.Reply("propose", decision)).split(": ", 1)[1]
        nr = None
        if self._ended_by and self._score is not None:
            nr = scoring.metrics(g, self._score)["nr"]
        return {
            "game": g.id,
            "task": type(self).__name__,
            "round": min(self.round, self.round_limit),
            "round_limit": self.round_limit,
            "dialogue": [{"round": r, "who": who, "said": said} for r, who, said in self.dialogue],
            "proposal": None if self.current is None else self._proposal_text(""),
            "ended_by": self._ended_by or None,
            "secret": {"optimum": best.value, "optimum_decision": optimum, "nr": nr},
        }

    def _render(self) -> str:
        g = self.game
        lines = [f"{type(self).__name__} {g.id}, round {min(self.round, self.round_limit)}"]
        lines.append(f"  optimum {scoring.optimum(g).value:.2f}")
        lines.append("  " + self._proposal_text(""))
        for rnd, who, said in self.dialogue[-6:]:
            lines.append(f"  [{rnd}] {who}: {said[:160]}")
        if self._ended_by and self._score is not None:
            m = scoring.metrics(g, self._score)
            lines.append(f"  decision NR {m['nr']:.1f} ({self._ended_by})")
        return "\n".join(lines)

    # -- language interface -----------------------------------------------------------------------

    def utterance(self, agent: str, action: Any) -> str:
        """A vector move said as its reply line (the last entry: talk, propose, accept, final)."""
        a = np.asarray(self.check_action(agent, action))
        move = int(a[-1])
        if move == TALK:
            return "(talks only)"
        if move == ACCEPT:
            return "Accept"
        return self._said(a, move)

    def _said(self, a: np.ndarray, move: int) -> str:
        raise NotImplementedError

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Every turn is speech: a reply is what it says (the move is read in ``apply``)."""
        return ActionParse(text)

    def read_action(self, agent: str, text: str) -> ActionParse:
        """A reply as ``step`` will take it: the whole text, or why its move line cannot be read.

        A policy that checks its reply first (an LLM seat, with its retries) learns of an
        unreadable move line before the turn is spent; ``step`` reads the reply itself.
        """
        if self.acting(agent) and self.game is not None:
            try:
                words.read_reply(self.game, text)
            except words.ReplyError as err:
                return ActionParse(None, str(err))
        return super().read_action(agent, text)


class MenuDesignEnv(DeliberationEnv):
    """Menu design (Wang et al. 2026): two agents agree on a menu for two guests.

    Description:
        ``internet_agent`` and ``home_agent`` each hold part of the ingredient stock and know
        something about the two guests; they talk in turns until one accepts the other's
        current proposal, which is the decision. After ``round_limit`` rounds (6) with no
        acceptance the menu is empty (which scores 0). The state never changes during the talk.

        Levels: ``"numeric"`` (the paper's level 1: agent k sees its own stock share and guest
        k's numeric value of every dish), ``"semantic"`` (level 2: agent k sees its stock share
        and its partial, natural-language view of both guests' profiles, each field revealed
        with the game's per-field probability; no numbers), and level 3 (the released
        ``"menu_level3"`` games, 10 ingredients in stock instead of 8, which the authors released
        without a protocol: MASE plays them as a harder numeric setting).
        ``full_observation=True`` is the ablation in which each agent sees everything both see.

    Games:
        ``games``: a released set (``"menu"``: the 60 level 1/2 games; ``"menu_level3"``: 30), a
        path (a folder of ``game_*.json`` in the authors' format, or one file), a list of
        :class:`.games.MenuGame`, or ``"generated:N"`` / ``"generated:N:SEED"``: N fresh games
        from :func:`.generate.menu_game` (seeds SEED... ; about 0.15 s a game to make).
        Episode ``seed`` plays game ``seed`` modulo their number; ``reset(options={"game": i})``
        plays game ``i``.

    Actions:
        Speech: the reply is heard by the partner (cut at ``message_limit`` characters, 3,000);
        its ``Proposal: dish; dish`` line proposes a menu, an ``Accept`` line accepts the
        partner's current proposal (:mod:`.text`). For RL seats a ``MultiDiscrete`` vector
        (one 0/1 per dish slot, then 0 talk, 1 propose, 2 accept), said as those lines.

    Observations:
        Text: the dishes and recipes (public), the agent's private facts in the fact sentences,
        the current proposal, the dialogue, and what it may do. Vector (values in [0, 1]): round
        progress; who made the current proposal (none, self, partner); the proposal's dishes;
        which dish slots exist; the agent's guest's values and (full observation only) the
        other's; its stock of each in-stock ingredient and (full observation only) the
        partner's; each dish's needs of the in-stock ingredients; which dishes need an
        ingredient not in stock.

    Rewards:
        At the end every seat gets NR / 100: the decision's reward over the optimum (an invalid
        decision earns 0).

    Arguments:
        ``level`` (``"numeric"`` or ``"semantic"``), ``games`` (above), ``round_limit`` (6),
        ``message_limit`` (3,000 characters a turn, a rule of the task that a message channel
        does not change), ``full_observation`` (False), ``max_cycles`` (the core's round cap,
        truncating; normally unused), ``obs_mode``, ``render_mode``.

    Metrics:
        ``nr``, ``nar`` (the authors' NPR), ``npr2``, ``valid`` (VR is its mean),
        ``lenient_nr`` (the authors' evaluator: unknown dishes dropped, repeats paid),
        ``agreed``, ``proposals``, ``flagged_proposals`` (naming an unknown dish or one twice),
        ``invalid_reason``, ``reward`` and ``optimum``.

    Version history:
        * v0: first release.
    """

    metadata = {"name": "menu_design_v0", "render_modes": ["ansi", "human"]}
    seats = MENU_SEATS
    kind = "menu"
    default_games = "menu"

    def __init__(self, level: str = "numeric", **kwargs: Any):
        if level not in ("numeric", "semantic"):
            raise ValueError(f"level must be 'numeric' or 'semantic', got {level!r}")
        self.level = level
        self._semantic = level == "semantic"
        super().__init__(**kwargs)

    def _configure(self) -> None:
        self.n_dishes = max(len(g.dishes) for g in self.games)
        self.n_stocked = max(len(g.in_stock) for g in self.games)
        self.value_scale = max(float(g.guest_values.max()) for g in self.games) or 1.0
        self.unit_scale = float(max(max(g.recipes.max(), g.stock.max()) for g in self.games)) or 1.0
        from mase.envs.deliberation.menu_vector import MenuCodec, check_profiles

        self.codec = MenuCodec(self)
        check_profiles(self.codec, self.games)
        d = self.n_dishes
        self.set_spaces(self.codec.layout().size, spaces.MultiDiscrete([2] * d + [3]))

    def _decide(self, agent: str, reply: words.Reply) -> Outcome:
        if reply.kind == "final":
            raise InvalidAction(
                "no_final", "menu design has no final decision: write 'Accept' to accept your "
                "partner's current proposal, or 'Proposal: ...'",
            )  # fmt: skip
        if self.current is None or self.current[0] == agent:
            raise InvalidAction(
                "nothing_to_accept",
                "there is no proposal of your partner's to accept"
                + ("; yours is on the table" if self.current else ""),
            )
        return self._finish(self.current[1], agent, "agreed")

    def _score_of(self, decision: tuple) -> scoring.Score:
        return scoring.score_menu(self.game, list(decision))

    def _fallback(self) -> tuple | None:
        return None  # no agreement: an empty menu

    def _public_text(self) -> str:
        return words.recipes_text(self.game)

    def _header(self, agent: str) -> str:
        partner = next(s for s in self.seats if s != agent)
        return f"{super()._header(agent)} Your partner is {partner}."

    def legal_actions_text(self, agent: str) -> list[str]:
        """What a reply may do now."""
        if not self.acting(agent):
            return []
        out = ["say anything to your partner;", "'Proposal: <dish>; <dish>; ...' proposes a menu;"]
        if self.current is not None and self.current[0] != agent:
            out.append("'Accept' accepts your partner's current proposal and ends the talk.")
        return out

    def rules_text(self, agent: str) -> str:
        """The task as told to ``agent``."""
        return words.menu_rules(agent, self.round_limit, self.speech_limit, self.level,
                                self.full_observation)  # fmt: skip

    def _said(self, a: np.ndarray, move: int) -> str:
        """A proposal vector (one 0/1 per dish slot) said as its line."""
        chosen = np.flatnonzero(a[:-1])
        if (chosen >= len(self.game.dishes)).any():
            raise InvalidAction(
                "no_such_dish", f"dish slots {chosen[chosen >= len(self.game.dishes)].tolist()} "
                f"are empty in this game ({len(self.game.dishes)} dishes)",
            )  # fmt: skip
        if not len(chosen):
            return "Proposal: none"
        return words.move_text(
            self.game, words.Reply("propose", tuple(self.game.dishes[i] for i in chosen))
        )


class TaskAllocationEnv(DeliberationEnv):
    """Task allocation with a leader (Wang et al. 2026): three agents split tasks.

    Description:
        ``worker_0``, ``worker_1`` and ``leader`` each know their own private resources, their
        share of each public resource, and their own value of every task (base value times
        their efficiency); the tasks' resource needs are public. They talk in turns; anyone
        may propose, only the leader decides (``Final: ...``, or ``Accept`` of the proposal on
        the table), which ends the talk. After ``round_limit`` rounds (6) the leader's last
        proposal stands, else worker_1's, else worker_0's (the released code's order). Each task
        goes to at most one agent; tasks may stay unassigned. ``full_observation=True`` is the
        authors' full-observation ablation.

    Games:
        ``games``: ``"allocation"`` (the 100 released games), ``"allocation_demo"`` (2), a path,
        a list of :class:`.games.AllocationGame`, or ``"generated:N[:SEED]"`` (fresh games from
        :func:`.generate.allocation_game`, about 0.4 s a game to make). Episode ``seed`` plays
        game ``seed`` modulo their number.

    Actions:
        Speech, with ``Proposal: T1 -> worker_0; T4 -> leader``, ``Final: ...`` (leader) or
        ``Accept`` (leader) lines (:mod:`.text`). For RL seats a ``MultiDiscrete`` vector: per
        task slot 0 unassigned, 1 worker_0, 2 worker_1, 3 leader; then 0 talk, 1 propose,
        2 accept, 3 final.

    Observations:
        Text: the tasks and their needs (public), the agent's private facts, the current
        proposal, the dialogue. Vector (values in [0, 1]): round progress; who made the current
        proposal (none or a seat); the agent's seat; the proposal per task (one-hot over
        unassigned and the seats); which task slots exist; each seat's task values, private
        capacities and public shares (the agent's own only, unless full observation); each
        seat's cost of each task in each resource slot. Numbers are scaled by per-env constants.

    Rewards:
        At the end every seat gets NR / 100.

    Arguments:
        ``games`` (above), ``round_limit`` (6), ``message_limit`` (3,000), ``full_observation``
        (False), ``max_cycles``, ``obs_mode``, ``render_mode``.

    Metrics:
        ``nr``, ``nar`` (the authors' greedy repair), ``valid``, ``lenient_nr``, ``agreed`` (the
        leader decided), ``proposals``, ``flagged_proposals``, ``invalid_reason``, ``reward``,
        ``optimum``.

    Version history:
        * v0: first release.
    """

    metadata = {"name": "task_allocation_v0", "render_modes": ["ansi", "human"]}
    seats = ALLOCATION_SEATS
    kind = "allocation"
    default_games = "allocation"

    def _configure(self) -> None:
        self.n_tasks = max(len(g.tasks) for g in self.games)
        self.n_private = max(len(g.private) for g in self.games)
        self.n_public = max(len(g.public) for g in self.games)
        self.value_scale = max(float(g.values.max()) for g in self.games) or 1.0
        slots = self.n_private + self.n_public
        scale = np.zeros(slots)
        for g in self.games:
            for k, names in ((0, g.private), (self.n_private, g.public)):
                for j, r in enumerate(names):
                    seen = [c.get(r, 0.0) for row in g.costs for c in row]
                    seen += [cap.get(r, 0.0) for cap in g.capacity]
                    seen += [sh.get(r, 0.0) for sh in g.shares]
                    scale[k + j] = max(scale[k + j], max(seen))
        self.resource_scale = np.where(scale > 0, scale, 1.0)
        from mase.envs.deliberation.allocation_vector import AllocationCodec

        m, n = self.n_tasks, len(self.seats)
        self.codec = AllocationCodec(self)
        self.set_spaces(self.codec.layout().size, spaces.MultiDiscrete([n + 1] * m + [4]))

    def _decide(self, agent: str, reply: words.Reply) -> Outcome:
        if agent != "leader":
            raise InvalidAction(
                "not_leader", "only the leader decides; propose with 'Proposal: ...' instead"
            )
        if reply.kind == "accept":
            if self.current is None:
                raise InvalidAction("nothing_to_accept", "there is no proposal to accept")
            return self._finish(self.current[1], agent, "decided")
        problem = self._problem(reply)
        if problem:
            self.flagged += 1
        self.proposals[agent] = (reply.decision, self.round)
        return self._finish(reply.decision, agent, "decided")

    def _score_of(self, decision: tuple) -> scoring.Score:
        return scoring.score_allocation(self.game, list(decision))

    def _fallback(self) -> tuple | None:
        for seat in ("leader", "worker_1", "worker_0"):
            if seat in self.proposals:
                return self.proposals[seat][0]
        return None

    def _public_text(self) -> str:
        return words.requirements_text(self.game)

    def legal_actions_text(self, agent: str) -> list[str]:
        """What a reply may do now."""
        if not self.acting(agent):
            return []
        out = ["say anything to the team;",
               "'Proposal: T1 -> worker_0; T2 -> leader; ...' proposes an allocation;"]  # fmt: skip
        if agent == "leader":
            out.append("'Final: T1 -> ...' decides an allocation and ends the talk;")
            if self.current is not None:
                out.append("'Accept' makes the current proposal the decision.")
        return out

    def rules_text(self, agent: str) -> str:
        """The task as told to ``agent``."""
        return words.allocation_rules(agent, self.round_limit, self.speech_limit,
                                      self.full_observation)  # fmt: skip

    def _said(self, a: np.ndarray, move: int) -> str:
        """An allocation vector (per task slot: none or a seat) said as its line."""
        n = len(self.game.tasks)
        extra = np.flatnonzero(a[n:-1])
        if len(extra):
            raise InvalidAction(
                "no_such_task",
                f"task slots {(extra + n).tolist()} are empty in this game ({n} tasks)",
            )
        pairs = tuple((self.game.tasks[t], self.seats[int(a[t]) - 1]) for t in range(n) if a[t])
        if not pairs:
            return "Proposal: none" if move == PROPOSE else "Final: none"
        kind = "final" if move == FINAL else "propose"
        return words.move_text(self.game, words.Reply(kind, pairs))
