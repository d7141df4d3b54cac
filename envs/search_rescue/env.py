"""The search-and-rescue task as a PettingZoo AEC environment."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np
from gymnasium import spaces

from mase.claims import Claims
from mase.envs.search_rescue import belief as beliefs
from mase.envs.search_rescue import claims, world
from mase.envs.search_rescue import render as board
from mase.envs.search_rescue import text as words
from mase.envs.search_rescue.vector import ObservationCodec, StateCodec
from mase.events import Event
from mase.layout import VectorLayout, message_claims, text_told, told_facts
from mase.protocol import split_messages
from mase.stats import Metric
from mase.task import ActionParse, TaskEnv

_RESULT_KINDS = frozenset(("move", "inspect", "cut", "explode", "invalid"))
_SEEN = frozenset(words.SEEN_KINDS)
#: What the sentence about one's last action names that the vector holds in blocks of its own.
_VECTOR_LAST = (("last_colour",), ("last_target",), ("last_detour",))


class SearchRescueEnv(TaskEnv):
    """Bomb defusal in a small building: search, share what you learn, cut in the right order.

    Description:
        The search-and-rescue mission of Li et al. (2023), "Theory of Mind for Multi-Agent
        Collaboration via Large Language Models". Three agents (Alpha, Bravo, Charlie) start
        together in a random room of a five-room building (rooms 0, 3, 5, 6, 8; doors 0-3, 0-5,
        0-6, 0-8, 3-8, 5-6, 6-8). Five bombs lie one to a room: two with one phase, two with
        two, one with three. Each phase has a colour; a bomb is defused by applying cutters of
        its colours in order. Alpha holds red and green cutters, Bravo green and blue, Charlie
        blue and red, so every colour is held by two agents and most bombs need teamwork.
        Agents only see their own room, so what they learn has to be shared by message (see
        :class:`mase.wrappers.MessageChannel`; without it, the team cannot talk).

        Every step emits :class:`mase.events.Event` records with their audience; the text and
        vector observations are rendered from the events the agent witnessed since its last
        turn plus what it can see now, so both views state the same facts.

    Agents:
        ``alpha``, ``bravo``, ``charlie`` (procedural instances: ``delta``, ``echo``, ...),
        acting in that order; a round is one action each.

    Action Space:
        ``Discrete(1 + n_rooms + n_colours)`` (9 on the paper layout):

        ===========================  ==============================================
        action                       meaning
        ===========================  ==============================================
        0                            inspect the bomb in the current room
        1 .. n_rooms                 go to room ``rooms[i - 1]`` (must share a door)
        n_rooms + 1 .. + n_colours   apply the cutter of ``colours[j]`` to the bomb here
        ===========================  ==============================================

        ``action_mask`` marks what the agent may try: doors out of its room, inspect and its
        own cutters when a live bomb is here. It never reveals a bomb's hidden sequence, so a
        wrong colour is not masked. Any other action (masked, out of range, unreadable text)
        wastes the turn and the agent is told why in its next observation.

    Observation Space:
        A Dict, keys by ``obs_mode``:

        ==============  =====================================================================
        key             content
        ==============  =====================================================================
        observation     float32 vector in [0, 1] (layout in ``search_rescue.vector``): round,
                        score, own cutters, rooms of the agents it sees, the bomb here, each
                        bomb's known room/status/phases/remaining sequence, own last result;
                        then who the seat is, the doors out of its room, what its last
                        action's sentence names, teammates' actions seen and the claims of
                        the messages it was shown (506 numbers on the paper's layout)
        text            the same facts in sentences, the legal actions in words, and the
                        teammates' messages
        action_mask     int8 0/1, one per action
        ==============  =====================================================================

        ``state()`` is the full global state (every position, every sequence, progress, round,
        score, turn) for centralized critics and planners.

    Rewards:
        The team shares one reward: 10 per phase cut (``credit="phase"``), or a bomb's whole
        value when its last phase is cut (``credit="bomb"``). The maximum is 90. With
        ``shaping=True``, +1 for a correct cut and -1 for an explosion (the paper's MAPPO).

    Termination:
        Episodes end between rounds, so every agent acts once in every round. Terminated at
        the end of the round in which the last bomb was defused (its round is the episode's
        ``rounds``). Truncated after ``max_cycles`` rounds (30),
        or on deadlock: ``deadlock_rounds`` consecutive rounds (3) with identical joint
        outputs (each agent's action and message the same in all of them) that leave the
        world unchanged. ``info["metrics"]`` holds score, rounds, valid-action rate and how
        it ended (``ended_by``: ``defused``; ``exploded`` when the last live bomb blew up;
        ``round_limit``; ``deadlock``).

    Arguments:
        >>> import mase
        >>> env = mase.make("mase/SearchRescue-v0", obs_mode="text")
        >>> env.reset(seed=0)
        >>> env.agent_selection
        'alpha'
        >>> env.layout.edges
        ((0, 3), (0, 5), (0, 6), (0, 8), (3, 8), (5, 6), (6, 8))
        >>> env.step("go to room 3" if env.world.positions["alpha"] != 3 else "go to room 0")
        >>> env.agent_selection
        'bravo'

        ``layout``: ``"paper"`` (the fixed graph above, as the released code) or ``"random"``
        (a random connected graph on the same rooms each episode, as the paper describes).
        ``n_rooms``, ``n_bombs``, ``n_agents``, ``n_colours``: any of them set makes a
        procedural instance (rooms 0..n-1, a fresh random graph each episode; unset sizes
        keep the paper's 5/5/3/3). ``max_cycles`` (30): round limit. ``wrong_cutter``:
        ``"reject"`` (default; the released code, which reproduces the paper's tables) or
        ``"explode"``. ``credit``: ``"phase"`` (default; the paper's text and the better
        learning signal) or ``"bomb"`` (the released code). The two agree only on a team that
        defuses every bomb: a bomb left half cut keeps its phases' points under ``"phase"``
        and scores nothing under ``"bomb"`` (random seats, 100 seeded episodes: 64.3 against
        52.4, the same in the 7 that defused everything). ``shaping`` (False). ``see_teammates``
        (True, as the paper says; the released code hid them). ``witness`` (False, the paper's
        rule: "an agent cannot directly observe another agent's actions or their consequences
        unless that information is communicated"; agents in a room see only its state, the
        bomb there and its status). ``witness=True`` is a variant: agents in the same room
        also see each other's actions and all their results. ``deadlock_rounds`` (3; 0 turns
        the rule off). ``obs_mode`` (``"both"``), ``render_mode`` (``None``, ``"ansi"`` or
        ``"human"``, which prints).

    Version History:
        * v0: first release.
    """

    metadata = {"name": "search_rescue_v0", "render_modes": ["ansi", "human"]}
    drawing = board.DRAWING
    scripted_policy = "mase.envs.search_rescue.scripted:ScriptedRescuer"
    batched = "mase.envs.search_rescue.batched:BatchedSearchRescue"
    language_model = "mase.envs.search_rescue.language_model:respond"
    tom_probes = "mase.envs.search_rescue.tom:PAPER_PROBES"
    policies = {
        "cbs": "mase.envs.search_rescue.policies:cbs",
        "mappo": "mase.envs.search_rescue.policies:mappo",
        "sb3-ppo": "mase.envs.search_rescue.policies:sb3_ppo",
    }

    def __init__(
        self,
        layout: Literal["paper", "random"] = "paper",
        n_rooms: int | None = None,
        n_bombs: int | None = None,
        n_agents: int | None = None,
        n_colours: int | None = None,
        max_cycles: int = 30,
        wrong_cutter: world.WrongCutter = "reject",
        credit: world.Credit = "phase",
        shaping: bool = False,
        see_teammates: bool = True,
        witness: bool = False,
        deadlock_rounds: int = 3,
        obs_mode: str = "both",
        render_mode: str | None = None,
    ):
        super().__init__(obs_mode, render_mode, max_cycles)
        # constants
        if layout not in ("paper", "random"):
            raise ValueError(f"layout must be 'paper' or 'random', got {layout!r}")
        if wrong_cutter not in ("reject", "explode"):
            raise ValueError(f"wrong_cutter must be 'reject' or 'explode', got {wrong_cutter!r}")
        if credit not in ("phase", "bomb"):
            raise ValueError(f"credit must be 'phase' or 'bomb', got {credit!r}")
        if deadlock_rounds < 0:
            raise ValueError(f"deadlock_rounds must be 0 (off) or more, got {deadlock_rounds}")
        sizes = (n_rooms, n_bombs, n_agents, n_colours)
        self.procedural = any(s is not None for s in sizes)
        defaults = (
            len(world.PAPER_ROOMS),
            len(world.PAPER_PHASES),
            len(world.PAPER_AGENTS),
            len(world.PAPER_COLOURS),
        )
        # "is None", not "or": a size of 0 is invalid and must reach the checks, not the default
        self.sizes = tuple(d if s is None else s for s, d in zip(sizes, defaults, strict=True))
        self.layout_kind = layout
        self.rules = world.Rules(wrong_cutter, credit, shaping, witness)
        self.see_teammates = see_teammates
        self.deadlock_rounds = deadlock_rounds
        self.layout = self._draw_layout(self.np_random)
        self._masks: dict[tuple, np.ndarray] = {}  # legal masks, per layout
        self._explained: dict[tuple, str] = {}  # why actions failed, per layout
        self.possible_agents = list(self.layout.agents)
        self._teammate_slot = {
            a: {b: k for k, b in enumerate(b for b in self.layout.agents if b != a)}
            for a in self.layout.agents
        }

        # spaces
        self.codec = ObservationCodec(self.layout, max_cycles)
        self.state_codec = StateCodec(self.layout, max_cycles)
        n_actions = len(self.layout.actions)
        self.set_spaces(self.codec.size, spaces.Discrete(n_actions), self.state_codec.size)

        # episode state (filled by reset)
        self.world: world.State | None = None

    def _draw_layout(self, rng: np.random.Generator) -> world.Layout:
        if self.procedural:
            return world.procedural_layout(*self.sizes, rng)
        return world.paper_layout(rng, randomize_edges=self.layout_kind == "random")

    def new_episode(self, options: dict | None) -> None:
        """New placement, sequences and start room (and graph if random)."""
        if self.procedural or self.layout_kind == "random":
            self.layout = self._draw_layout(self.np_random)
            self._masks, self._explained = {}, {}
        self.world = world.new_state(self.layout, self.np_random)
        self._view_cache: tuple[str, int, dict] | None = None
        self._doors: dict[int, tuple[int, ...]] = {}  # the doors out of each room, sorted
        self._said_of_last: dict[str, tuple[Event, dict]] = {}  # per seat, its last event's
        self._claims_of: dict[tuple[str, str], dict] = {}  # each message's claims, read once
        self._round_start_key = self.world.key()
        self._previous_moves: tuple | None = None
        self._stale_rounds = 0

    def apply(self, agent: str, action: int) -> tuple[list[Event], float]:
        """Resolve the action in the world (:func:`.world.step`): its events and reward."""
        return world.step(self.world, agent, action, self.rules)

    def end_round(self) -> None:
        """Close the round: the episode ends when no bomb is left, or on deadlock.

        Episodes end only between rounds, so every agent acts once in every round (the
        parallel view relies on it). The round limit comes before deadlock.
        """
        key = self.world.key()
        moves = tuple(self.moves)
        if key == self._round_start_key:
            self._stale_rounds = self._stale_rounds + 1 if moves == self._previous_moves else 1
        else:
            self._stale_rounds = 0
        self._previous_moves = moves
        self._round_start_key = key
        if self.world.done:
            cleared = all(b.defused for b in self.world.bombs)
            self.finish("defused" if cleared else "exploded")
        elif (
            self.round < self.max_cycles
            and self.deadlock_rounds
            and self._stale_rounds >= self.deadlock_rounds
        ):
            self.finish("deadlock", truncated=True)

    def invalid_event(self, agent: str, code: str, detail: Any) -> Event:
        """The event of a failed action (:func:`.world.invalid_event`)."""
        return world.invalid_event(self.world, agent, code, detail)

    def explain_invalid(self, event: Event) -> str:
        """Why an action failed, with the way out (a detour, who holds a cutter).

        The sentence depends only on the failure, the agent's room and the facts shown, so
        it is written once per layout (the same mistakes recur).
        """
        key = (event.note, self.world.positions[event.actor], tuple(event.facts.items()))
        text = self._explained.get(key)
        if text is None:
            text = self._explained[key] = words.explain_invalid(self.layout, self.world, event)
        return text

    def rules_in_play(self) -> str:
        """The observation rule and the rule options, for tables: which rule a figure used."""
        r = self.rules
        seen = (
            "witness=True (agents in a room see each other's actions and results)"
            if r.witness
            else "the paper's (a teammate's actions and their results are seen only if told)"
        )
        return (
            f"observation rule: {seen}; wrong_cutter={r.wrong_cutter}, credit={r.credit}, "
            f"shaping={r.shaping}, see_teammates={self.see_teammates}, layout={self.layout_kind}"
        )

    def metrics(self) -> dict[str, Any]:
        """Episode measures: score, rounds, valid-action rate, bombs defused, how it ended."""
        w = self.world
        return {
            "score": w.score,
            "max_score": self.layout.max_score,
            "rounds": w.round,
            "valid_action_rate": self.valid_action_rate,
            "invalid_actions": self.invalid_actions,
            "turns": self.turns,
            "bombs_defused": sum(b.defused for b in w.bombs),
            "bombs_exploded": sum(b.exploded for b in w.bombs),
            "ended_by": self.ended_by,
        }

    def metric_specs(self) -> dict[str, Metric]:
        """The shared metrics and the score, up to this layout's points for every phase."""
        bombs = float(len(self.layout.phases))
        return {
            **super().metric_specs(),
            "score": Metric("Score (points)", "bounded", 0.0, float(self.layout.max_score)),
            "bombs_defused": Metric("Bombs defused per episode", "bounded", 0.0, bombs),
            "bombs_exploded": Metric("Bombs exploded per episode", "bounded", 0.0, bombs),
        }

    def next_round(self) -> None:
        """Count a new round, in the world too (planners and the state vector read it there)."""
        self.round += 1
        self.world.round = self.round

    # -- observations -------------------------------------------------------------------------

    def observation_facts(self, agent: str) -> tuple[dict, str | None]:
        """What ``agent`` observes now, as facts, and the result code of its last action.

        The facts of the events it witnessed since its last turn (oldest first), then what it
        sees now; later values win. Messages are not included: they are claims, not
        observations.
        """
        facts: dict = {}
        for event in self._inbox[agent]:
            if event.kind != "message":
                facts.update(event.facts)
        facts.update(self.turn_view(agent))
        last = self._last_events.get(agent)
        return facts, words.result_code(last[0]) if last else None

    def true_facts(self) -> dict:
        """Every fact of the world now, in the fact keys of events and observations.

        The ground truth that :class:`mase.knowledge.KnowledgeTracker` questions are asked
        against: round, score, each agent's cutters and room, what bomb each room holds (0 for
        none), and each bomb's room, status, phase count and remaining sequence.
        """
        if self.world is None:
            raise RuntimeError("call reset() before true_facts()")
        w = self.world
        facts: dict = {("round",): w.round, ("score",): w.score}
        for agent in self.layout.agents:
            facts[("cutters", agent)] = self.layout.cutters[agent]
            facts[("agent_room", agent)] = w.positions[agent]
        for room in self.layout.rooms:
            bomb = w.bomb_in(room)
            facts[("room_bomb", room)] = bomb.id if bomb else 0
        for bomb in w.bombs:
            facts[("bomb_room", bomb.id)] = bomb.room
            facts[("bomb_status", bomb.id)] = bomb.status
            facts[("bomb_phases", bomb.id)] = len(bomb.sequence)
            facts[("bomb_remaining", bomb.id)] = bomb.remaining
        return facts

    def turn_view(self, agent: str) -> dict:
        """What ``agent`` sees at the start of its turn (:func:`.world.view_facts`), once a turn.

        The acting agent's view is needed twice, for its observation and for the "observe"
        event logged when it acts; the world changes only in ``step`` (which counts turns) and
        ``reset``, so a view is reused until the turn count moves. The dict is shared: callers
        must not mutate it.
        """
        cache = self._view_cache
        turns = self._turns
        if cache is not None and cache[0] == agent and cache[1] == turns:
            return cache[2]
        view = world.view_facts(self.world, agent, self.see_teammates)
        self._view_cache = (agent, turns, view)
        return view

    def _vector(self, agent: str) -> np.ndarray:
        facts, result = self.observation_facts(agent)
        return self.codec.encode(facts, result, self._rest_facts(agent))

    def _rest_facts(self, agent: str) -> dict:
        """The facts of the vector's appended blocks (:mod:`.vector`), teammates by number.

        Who the seat is, the doors out of its room, what the sentence about its last action
        names, the teammates' actions it saw and the claims of the messages it was shown.
        """
        room = self.world.positions[agent]
        doors = self._doors.get(room)
        if doors is None:
            doors = self._doors[room] = tuple(sorted(self.layout.neighbours[room]))
        rest: dict = {("seat",): agent, ("doors",): doors}
        last = self._last_events.get(agent)
        if last:
            said = self._said_of_last.get(agent)
            if said is None or said[0] is not last[0]:
                facts = words.last_action_facts(self.layout, self.world, last[0])
                said = self._said_of_last[agent] = (
                    last[0],
                    {k: facts[k] for k in _VECTOR_LAST if k in facts},
                )
            rest.update(said[1])
        slot = self._teammate_slot[agent]
        for event in self._inbox[agent]:
            if event.actor != agent and event.kind in _SEEN:
                k = slot[event.actor]
                rest[("seen", k)] = event.kind
                rest.pop(("seen_colour", k), None)
                if event.kind in ("cut", "explode"):
                    rest[("seen_colour", k)] = event.note
        for key, value in self._told(agent).items():
            rest[("told", slot[key[1]], *key[2:])] = value
        return rest

    def _told(self, agent: str) -> dict:
        """``("told", sender, *key) -> value`` of the messages listed now that the vector keeps.

        The claims :func:`mase.layout.inbox_told` reads (each message's read once an episode),
        those :meth:`.vector.ClaimCodec.admits`, cutters as sets in colour order.
        """
        messages = self.received_messages(agent)
        if not messages:
            return {}
        cache = self._claims_of
        said = []
        for event in messages:
            claims = cache.get((event.actor, event.note))
            if claims is None:
                claims = cache[(event.actor, event.note)] = message_claims(
                    self, event.actor, event.note
                )
            said.append((event.actor, claims))
        return self._kept_claims(agent, told_facts(said))

    def _kept_claims(self, agent: str, told: Mapping) -> dict:
        codec, mates = self.codec.claims, self.codec.teammates[agent]
        return {
            key: codec.value(key[2:], value)
            for key, value in told.items()
            if key[1] in mates and codec.admits(key[2:], value)
        }

    # -- information parity (mase.layout) -------------------------------------------------------

    def vector_layout(self, agent: str) -> VectorLayout:
        """The observation vector's blocks (:mod:`.vector`); the same for every seat."""
        if agent not in self.codec.agent_index:
            raise ValueError(f"no seat {agent!r}; seats: {list(self.codec.agents)}")
        return self.codec.layout

    def text_knowledge(self, agent: str, text: str) -> dict:
        """The facts a text observation states (:func:`.text.parse_observation`) and its claims.

        The claims of its message lines (:func:`mase.layout.text_told`) that the vector keeps
        (the ``told`` block's bound: this game's things, values in range).
        """
        head, _ = split_messages(text)
        facts = words.parse_observation(head)
        facts.update(self._kept_claims(agent, text_told(self, text)))
        return facts

    def vector_knowledge(self, agent: str, vector: np.ndarray) -> dict:
        """The facts an observation vector holds, keyed and valued as :meth:`text_knowledge`.

        What the text restates (the room and bomb the last action's sentence names, who holds
        a colour, the legal actions in words) follows from the decoded facts and the layout.

        Raises:
            ValueError: the vector is no vector the task writes for ``agent``.
        """
        rest = self.codec.decode_rest(vector)
        seat = rest[("seat",)]
        if seat != agent:
            raise ValueError(f"the vector is {seat}'s, not {agent}'s")
        facts, code = self.codec.decode(seat, vector)
        room = facts[("agent_room", seat)]
        bomb = facts.get(("room_bomb", room))
        doors = rest[("doors",)]
        out = {**facts, ("seat",): seat, ("doors",): doors}
        out.update((k, rest[k]) for k in _VECTOR_LAST if k in rest)
        if code is not None:
            out[("last_result",)] = code
            if code in words.ROOM_NAMED:
                out[("last_room",)] = room
            if code in words.BOMB_NAMED:
                out[("last_bomb",)] = bomb
            if code == "invalid:bomb_done":
                out[("last_status",)] = facts[("bomb_status", bomb)]
            if code == "invalid:not_adjacent":
                out[("last_doors",)] = doors
            if code == "invalid:not_owned":
                out[("last_holders",)] = words.holders(self.layout, rest[("last_colour",)])
        mates = self.codec.teammates[seat]
        for key, value in rest.items():
            if key[0] == "seen":
                out[("seen", mates[key[1]])] = value
                if value != "move":
                    out[("seen_bomb", mates[key[1]])] = bomb
            elif key[0] == "seen_colour":
                out[("seen_colour", mates[key[1]])] = value
            elif key[0] == "told":
                out[("told", mates[key[1]], *key[2:])] = value
        out[("legal",)] = self._legal_words(facts[("cutters", seat)], doors, bomb, facts)
        return out

    def _legal_words(self, cutters: tuple, doors: tuple, bomb: int | None, facts: dict) -> tuple:
        """The legal actions in words (:func:`.text.legal_actions_text`) from decoded facts."""
        live = bool(bomb) and facts.get(("bomb_status", bomb)) == "active"
        out = []
        for kind, arg in self.layout.actions:
            if kind == "inspect" and live:
                out.append(f"inspect bomb {bomb}")
            elif kind == "go" and arg in doors:
                out.append(f"go to room {arg}")
            elif kind == "cut" and live and arg in cutters:
                out.append(f"apply {arg} cutter to bomb {bomb}")
        return tuple(out)

    def _text(self, agent: str) -> str:
        view = self.turn_view(agent)
        return words.observation_text(
            self.layout, self.world, agent, self._inbox[agent], view, self.max_cycles
        )

    def _mask(self, agent: str) -> np.ndarray:
        if self.terminations.get(agent) or self.truncations.get(agent):
            return np.zeros(len(self.layout.actions), dtype=np.int8)
        # the mask depends only on the seat, its room and whether a live bomb is there
        room = self.world.positions[agent]
        bomb = self.world.bomb_in(room)
        key = (agent, room, bomb is not None and bomb.live)
        mask = self._masks.get(key)
        if mask is None:
            mask = self._masks[key] = world.legal_mask(self.world, agent)
        return mask.copy()

    def state(self) -> np.ndarray:
        """The global state vector (see :class:`~mase.envs.search_rescue.vector.StateCodec`)."""
        if self.world is None:
            raise RuntimeError("call reset() before state()")
        turn = self.agent_selection if self.agents else None
        return self.state_codec.encode(self.world, turn)

    def _render(self) -> str:
        """A text picture of rooms, doors, agents and bombs."""
        turn = self.agent_selection if self.agents else None
        return board.ansi(self.world, self.max_cycles, turn)

    def scene(self) -> dict:
        """Rooms, doors, agents with their cutters, and bombs with their phases (``replay.js``).

        The map and the turn are what every agent knows; where each agent is, what it holds,
        the bombs and the score are learnt only by being there or being told, so they are
        kept under ``"secret"`` (out of the replay's common view).
        """
        layout, state = self.layout, self.world
        return {
            "rooms": layout.rooms,
            "edges": layout.edges,
            "max_score": layout.max_score,
            "round": state.round,
            "max_rounds": self.max_cycles,
            "to_act": self.agent_selection if self.agents else None,
            "secret": {
                "agents": [
                    {"name": a, "room": state.positions[a], "cutters": layout.cutters[a]}
                    for a in layout.agents
                ],
                "bombs": [
                    {
                        "id": b.id,
                        "room": b.room,
                        "sequence": b.sequence,
                        "cut": b.cut,
                        "status": b.status,
                    }
                    for b in state.bombs
                ],
                "score": state.score,
            },
        }

    # -- language interface -------------------------------------------------------------------

    def rules_text(self, agent: str) -> str:
        """The mission rules as told to ``agent`` (the map, the tools, the reply format)."""
        return words.rules_text(
            self.layout, agent, self.max_cycles, self.see_teammates, self.rules.witness
        )

    def legal_actions_text(self, agent: str) -> list[str]:
        """The agent's legal actions now, in words."""
        return words.legal_actions_text(self.layout, self.world, agent)

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Read a reply into a legal action, or say why it is not one."""
        return words.parse_action(self.layout, self.world, agent, text)

    def parse_facts(self, text: str) -> dict:
        """The facts stated in ``text`` in the game's fact sentences."""
        return words.parse_facts(text)

    def read_claims(self, sender: str, text: str, known: Mapping) -> Claims:
        """The facts a teammate's message states, in free text (see :mod:`.claims`)."""
        return claims.read_claims(sender, text, known.get(("agent_room", sender)))

    def claim_forms(self) -> list[str]:
        """The game's fact sentences, one example of each (what a claim model restates into)."""
        return words.claim_forms()

    def seen_together(self, event: Event) -> Iterable[tuple[frozenset[str], Mapping]]:
        """A turn view is seen in parts: the scoreboard by all, the room by those in it.

        Round, score, cutters (the rules tell everyone) and, with ``see_teammates``, every
        agent's room are in every agent's view; a room's contents (its bomb, that bomb's
        status, the agents there) are seen by everyone in it, who see each other see it. The
        rest of the view is the agent's own. Other events are seen whole by their audience.
        """
        if event.kind != "observe":
            return ((event.audience, event.facts),)
        return world.shared_view(event.facts, event.actor, self.layout.agents, self.see_teammates)

    def implied_facts(self, facts: Mapping) -> Mapping:
        """What follows from facts (:func:`.world.implied_facts`)."""
        return world.implied_facts(facts)

    def belief_template(self, agent: str) -> str:
        """The paper's initial belief state for ``agent`` (see :mod:`.belief`)."""
        return beliefs.template(self.layout, agent, self.max_cycles)

    def oracle_belief(self, agent: str) -> str:
        """What ``agent`` could know now, in the belief format (see :func:`.belief.oracle`)."""
        if self.world is None:
            raise RuntimeError("call reset() before oracle_belief()")
        last = next(
            (e for e in reversed(self.event_log) if e.actor == agent and e.kind in _RESULT_KINDS),
            None,
        )
        result = words.own_result_text(self.layout, self.world, last) if last else None
        messages = [(e.actor, e.note) for e in self.received_messages(agent)]
        return beliefs.oracle(
            self.layout,
            agent,
            self.knowledge(),
            self.max_cycles,
            result,
            messages,
            self.legal_actions_text(agent),
        )

    def belief_facts(self, text: str) -> dict:
        """The facts a belief state holds (its fact sections; see :func:`.belief.facts`)."""
        return beliefs.facts(text)

    def facts_text(self, facts: dict) -> str:
        """Write facts as fact sentences (:meth:`parse_facts` reads them back)."""
        return words.facts_text(facts, self.max_cycles)
