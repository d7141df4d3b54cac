"""The rules of search and rescue as a pure core: a state, its layout, and ``step``.

Nothing here does I/O or renders text. ``step`` mutates the :class:`State` it is given and
returns the :class:`~mase.events.Event` records of what happened; to look ahead (a planner,
the knowledge tracker) copy the state first with :meth:`State.copy`.

Actions are indices into :attr:`Layout.actions`: ``("inspect", None)``, then
``("go", room)`` for every room, then ``("cut", colour)`` for every colour — the paper's nine
actions on its five rooms and three colours.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from mase.events import Event

# -- the paper's world as data --------------------------------------------------------------

PAPER_ROOMS = (0, 3, 5, 6, 8)
PAPER_EDGES = ((0, 3), (0, 5), (0, 6), (0, 8), (3, 8), (5, 6), (6, 8))
PAPER_AGENTS = ("alpha", "bravo", "charlie")
PAPER_CUTTERS = {"alpha": ("red", "green"), "bravo": ("green", "blue"), "charlie": ("blue", "red")}
PAPER_COLOURS = ("red", "green", "blue")
#: Phases of the five bombs: two 1-phase, two 2-phase, one 3-phase (9 phases, 90 points).
PAPER_PHASES = (1, 1, 2, 2, 3)

#: Names for procedural instances with more agents or colours than the paper's.
AGENT_NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
COLOUR_NAMES = ("red", "green", "blue", "yellow", "purple", "orange", "white", "black")

POINTS_PER_PHASE = 10
SHAPING_CORRECT_CUT = 1.0
SHAPING_EXPLOSION = -1.0

ActionKind = Literal["inspect", "go", "cut"]
WrongCutter = Literal["reject", "explode"]
Credit = Literal["phase", "bomb"]

#: Why an action can fail; the text module words each reason for the agent.
INVALID_REASONS = (
    "already_there",
    "not_adjacent",
    "no_bomb",
    "bomb_done",
    "not_owned",
    "wrong_colour",
    "unparseable",
    "out_of_range",
)


@dataclass(frozen=True)
class Layout:
    """What stays fixed during an episode: the map, the team and the tools.

    Attributes:
        rooms: room labels, in action order.
        neighbours: for each room, the rooms one door away.
        agents: agent names, in turn order.
        cutters: for each agent, the colours of the cutters it holds (in colour order).
        colours: the colours in play, in action order.
        phases: number of phases of each bomb (bomb ids are 1, 2, ...).
    """

    rooms: tuple[int, ...]
    neighbours: dict[int, frozenset[int]]
    agents: tuple[str, ...]
    cutters: dict[str, tuple[str, ...]]
    colours: tuple[str, ...]
    phases: tuple[int, ...]
    actions: tuple[tuple[ActionKind, int | str | None], ...] = field(init=False)
    edges: tuple[tuple[int, int], ...] = field(init=False)

    def __post_init__(self) -> None:
        actions = [("inspect", None)]
        actions += [("go", room) for room in self.rooms]
        actions += [("cut", colour) for colour in self.colours]
        object.__setattr__(self, "actions", tuple(actions))
        edges = sorted({(min(a, b), max(a, b)) for a in self.rooms for b in self.neighbours[a]})
        object.__setattr__(self, "edges", tuple(edges))

    @property
    def max_score(self) -> int:
        """Points for defusing every phase of every bomb."""
        return POINTS_PER_PHASE * sum(self.phases)

    def action_index(self, kind: ActionKind, arg: int | str | None = None) -> int:
        """The index of ``(kind, arg)`` in :attr:`actions`."""
        return self.actions.index((kind, arg))

    def distances(self) -> dict[int, dict[int, int]]:
        """Shortest number of moves between every pair of rooms (breadth-first search).

        Computed once per layout; the table is shared, so callers must not change it.
        """
        table = self.__dict__.get("_distances")
        if table is not None:
            return table
        table = {}
        for start in self.rooms:
            dist, frontier = {start: 0}, [start]
            while frontier:
                nxt = []
                for room in frontier:
                    for other in self.neighbours[room]:
                        if other not in dist:
                            dist[other] = dist[room] + 1
                            nxt.append(other)
                frontier = nxt
            table[start] = dist
        object.__setattr__(self, "_distances", table)  # frozen: a cache, not a field
        return table


@dataclass
class Bomb:
    """One bomb: where it is, its colour sequence and how far it has been cut."""

    id: int
    room: int
    sequence: tuple[str, ...]
    cut: int = 0
    exploded: bool = False

    @property
    def remaining(self) -> tuple[str, ...]:
        """The colours still to apply, in order (empty once defused or exploded)."""
        return () if self.exploded else self.sequence[self.cut :]

    @property
    def defused(self) -> bool:
        """Whether every phase has been cut."""
        return self.cut == len(self.sequence)

    @property
    def live(self) -> bool:
        """Whether the bomb still has phases to cut."""
        return not self.exploded and self.cut < len(self.sequence)

    @property
    def status(self) -> str:
        """``"active"``, ``"defused"`` or ``"exploded"``."""
        return "exploded" if self.exploded else "defused" if self.defused else "active"


@dataclass
class State:
    """Everything that changes during an episode.

    Attributes:
        layout: the fixed part of the world.
        positions: the room each agent is in.
        bombs: the bombs, ``bombs[i].id == i + 1``.
        round: the current round, starting at 1.
        score: team points so far.
    """

    layout: Layout
    positions: dict[str, int]  # in turn order
    bombs: list[Bomb]
    round: int = 1
    score: int = 0

    def copy(self) -> State:
        """An independent copy (the layout is shared: it never changes)."""
        return State(
            self.layout,
            dict(self.positions),
            [Bomb(b.id, b.room, b.sequence, b.cut, b.exploded) for b in self.bombs],
            self.round,
            self.score,
        )

    def bomb_in(self, room: int) -> Bomb | None:
        """The bomb in ``room``, or ``None``."""
        for bomb in self.bombs:
            if bomb.room == room:
                return bomb
        return None

    def agents_in(self, room: int) -> tuple[str, ...]:
        """The agents in ``room``, in turn order."""
        return tuple([a for a, r in self.positions.items() if r == room])  # list: faster in 3.11

    @property
    def done(self) -> bool:
        """Whether no bomb is left to cut."""
        for b in self.bombs:
            if b.live:
                return False
        return True

    def key(self) -> tuple:
        """A hashable summary of the state (for deadlock detection and search)."""
        positions = self.positions  # lists, not generators: the planners call this per node
        return (
            tuple([positions[a] for a in self.layout.agents]),
            tuple([(b.cut, b.exploded) for b in self.bombs]),
        )


@dataclass(frozen=True)
class Rules:
    """Options that change how actions resolve (see the env docstring for each default).

    Attributes:
        wrong_cutter: ``"reject"`` (the released code: the action fails with feedback) or
            ``"explode"`` (the paper's MAPPO section: the bomb explodes, its phases are lost).
        credit: ``"phase"`` (10 points per phase as it is cut) or ``"bomb"`` (all of a bomb's
            points when its last phase is cut, as the released code did).
        shaping: add the paper's MAPPO shaping reward (+1 correct cut, -1 explosion).
        witness: agents in the same room see each other's actions and their results (a
            variant); by default (the paper's rule) they see only the room's state, and an
            action's consequences reach others only when communicated.
    """

    wrong_cutter: WrongCutter = "reject"
    credit: Credit = "phase"
    shaping: bool = False
    witness: bool = False


# -- building instances ----------------------------------------------------------------------


def paper_layout(rng: np.random.Generator | None = None, randomize_edges: bool = False) -> Layout:
    """The paper's five rooms, three agents and cutters; edges fixed or drawn from ``rng``."""
    if randomize_edges:
        if rng is None:
            raise ValueError("randomize_edges needs an rng")
        neighbours = random_graph(PAPER_ROOMS, len(PAPER_EDGES), rng)
    else:
        neighbours = _neighbours(PAPER_ROOMS, PAPER_EDGES)
    cutters = {a: tuple(c for c in PAPER_COLOURS if c in held) for a, held in PAPER_CUTTERS.items()}
    return Layout(PAPER_ROOMS, neighbours, PAPER_AGENTS, cutters, PAPER_COLOURS, PAPER_PHASES)


def procedural_layout(
    n_rooms: int, n_bombs: int, n_agents: int, n_colours: int, rng: np.random.Generator
) -> Layout:
    """A random connected instance of any size.

    Rooms are labelled ``0..n_rooms-1`` and joined by a random spanning tree plus extra doors
    (about 1.4 doors per room, as in the paper's 7 doors for 5 rooms). Each colour goes to two
    agents (round-robin) and every agent gets at least one; bombs follow the paper's phase
    pattern 1, 1, 2, 2, 3 repeated, capped at the number of colours.
    """
    if not 2 <= n_rooms:
        raise ValueError(f"n_rooms must be at least 2, got {n_rooms}")
    if not 1 <= n_bombs <= n_rooms:
        raise ValueError(f"n_bombs must be between 1 and n_rooms ({n_rooms}), got {n_bombs}")
    if not 1 <= n_agents <= len(AGENT_NAMES):
        raise ValueError(f"n_agents must be between 1 and {len(AGENT_NAMES)}, got {n_agents}")
    if not 1 <= n_colours <= len(COLOUR_NAMES):
        raise ValueError(f"n_colours must be between 1 and {len(COLOUR_NAMES)}, got {n_colours}")
    rooms = tuple(range(n_rooms))
    n_edges = min(n_rooms * (n_rooms - 1) // 2, max(n_rooms - 1, round(1.4 * n_rooms)))
    neighbours = random_graph(rooms, n_edges, rng)
    agents = AGENT_NAMES[:n_agents]
    colours = COLOUR_NAMES[:n_colours]
    phases = tuple(min(PAPER_PHASES[i % len(PAPER_PHASES)], n_colours) for i in range(n_bombs))
    return Layout(rooms, neighbours, agents, deal_cutters(agents, colours), colours, phases)


def deal_cutters(agents: tuple[str, ...], colours: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Give each colour to two agents (round-robin), then make sure nobody is empty-handed."""
    held: dict[str, list[str]] = {a: [] for a in agents}
    copies = min(2, len(agents))
    i = 0
    for colour in colours:
        for _ in range(copies):
            held[agents[i % len(agents)]].append(colour)
            i += 1
    for k, agent in enumerate(agents):
        if not held[agent]:
            held[agent].append(colours[k % len(colours)])
    return {a: tuple(c for c in colours if c in held[a]) for a in agents}


def random_graph(
    rooms: tuple[int, ...], n_edges: int, rng: np.random.Generator
) -> dict[int, frozenset[int]]:
    """A connected random graph: a random spanning tree plus random extra edges."""
    order = [rooms[i] for i in rng.permutation(len(rooms))]
    edges = set()
    for k in range(1, len(order)):
        other = order[int(rng.integers(k))]
        edges.add((min(order[k], other), max(order[k], other)))
    spare = [(a, b) for i, a in enumerate(rooms) for b in rooms[i + 1 :] if (a, b) not in edges]
    extra = max(0, min(n_edges - len(edges), len(spare)))
    for j in rng.choice(len(spare), size=extra, replace=False) if extra else ():
        edges.add(spare[int(j)])
    return _neighbours(rooms, tuple(edges))


def _neighbours(rooms: tuple[int, ...], edges: tuple[tuple[int, int], ...]) -> dict:
    table: dict[int, set[int]] = {r: set() for r in rooms}
    for a, b in edges:
        table[a].add(b)
        table[b].add(a)
    return {r: frozenset(n) for r, n in table.items()}


def new_state(layout: Layout, rng: np.random.Generator) -> State:
    """Place one bomb per room (random rooms), draw sequences, start everyone in one room."""
    rooms = [layout.rooms[i] for i in rng.permutation(len(layout.rooms))]
    bombs = []
    for i, n in enumerate(layout.phases):
        picks = rng.permutation(len(layout.colours))[:n]
        bombs.append(Bomb(i + 1, rooms[i], tuple(layout.colours[int(k)] for k in picks)))
    start = layout.rooms[int(rng.integers(len(layout.rooms)))]
    return State(layout, {a: start for a in layout.agents}, bombs)


# -- rules -----------------------------------------------------------------------------------


def invalid_reason(state: State, agent: str, action: int) -> str | None:
    """Why ``agent`` cannot take ``action`` now (a code from :data:`INVALID_REASONS`).

    Returns ``None`` when the action is legal. A wrong colour is not decided here: it is a
    legal attempt whose outcome depends on the bomb's hidden sequence.
    """
    layout = state.layout
    if not 0 <= action < len(layout.actions):
        return "out_of_range"
    kind, arg = layout.actions[action]
    room = state.positions[agent]
    if kind == "go":
        if arg == room:
            return "already_there"
        return None if arg in layout.neighbours[room] else "not_adjacent"
    bomb = state.bomb_in(room)
    if bomb is None:
        return "no_bomb"
    if not bomb.live:
        return "bomb_done"
    if kind == "cut" and arg not in layout.cutters[agent]:
        return "not_owned"
    return None


def legal_mask(state: State, agent: str) -> np.ndarray:
    """0/1 int8 mask over actions: what ``agent`` may try now.

    The mask uses only what the agent can see (its room, doors, tools, whether the bomb here
    is live), never a bomb's hidden sequence, so a wrong colour is not masked.
    """
    layout = state.layout
    mask = np.zeros(len(layout.actions), dtype=np.int8)
    room = state.positions[agent]
    for i, r in enumerate(layout.rooms, start=1):
        if r in layout.neighbours[room]:
            mask[i] = 1
    bomb = state.bomb_in(room)
    if bomb is not None and bomb.live:
        mask[0] = 1
        base = 1 + len(layout.rooms)
        for j, colour in enumerate(layout.colours):
            if colour in layout.cutters[agent]:
                mask[base + j] = 1
    return mask


def invalid_event(state: State, agent: str, reason: str, detail: int | str) -> Event:
    """The event of a failed action: only the actor sees it; the note is ``reason:detail``.

    ``detail`` is the action index, or the parser's explanation for unreadable text.
    """
    facts: dict = {}
    if reason in ("bomb_done", "wrong_colour"):
        bomb = state.bomb_in(state.positions[agent])
        if bomb is not None:
            facts = {("bomb_room", bomb.id): bomb.room, ("bomb_status", bomb.id): bomb.status}
    return Event("invalid", agent, facts, frozenset((agent,)), state.round, f"{reason}:{detail}")


def step(state: State, agent: str, action: int, rules: Rules) -> tuple[list[Event], float]:
    """Resolve one agent's action, mutating ``state``.

    Returns the events it caused and the team reward (points, plus shaping if enabled). The
    round counter is the caller's business: a round ends when the last agent has acted.
    """
    reason = invalid_reason(state, agent, action)
    if reason is not None:
        return [invalid_event(state, agent, reason, action)], 0.0
    layout, rnd = state.layout, state.round
    room = state.positions[agent]
    witnesses = frozenset(state.agents_in(room)) if rules.witness else frozenset((agent,))

    kind, arg = layout.actions[action]
    if kind == "go":
        state.positions[agent] = arg
        arrivals = frozenset(state.agents_in(arg)) if rules.witness else frozenset((agent,))
        event = Event("move", agent, {("agent_room", agent): arg}, witnesses | arrivals, rnd)
        return [event], 0.0

    bomb = state.bomb_in(room)
    assert bomb is not None  # invalid_reason checked it
    if kind == "inspect":
        facts = {
            ("bomb_room", bomb.id): bomb.room,
            ("bomb_phases", bomb.id): len(bomb.sequence),
            ("bomb_remaining", bomb.id): bomb.remaining,
        }
        return [Event("inspect", agent, facts, witnesses, rnd)], 0.0

    # a cutter: right colour advances the bomb; wrong colour is rejected or explodes it
    if bomb.remaining[0] != arg:
        if rules.wrong_cutter == "reject":
            return [invalid_event(state, agent, "wrong_colour", action)], 0.0
        bomb.exploded = True
        facts = {("bomb_remaining", bomb.id): (), ("bomb_status", bomb.id): "exploded"}
        reward = SHAPING_EXPLOSION if rules.shaping else 0.0
        return [Event("explode", agent, facts, witnesses, rnd, note=str(arg))], reward

    bomb.cut += 1
    points = 0
    if rules.credit == "phase":
        points = POINTS_PER_PHASE
    elif bomb.defused:
        points = POINTS_PER_PHASE * len(bomb.sequence)
    state.score += points
    facts = {
        ("bomb_phases", bomb.id): len(bomb.sequence),
        ("bomb_remaining", bomb.id): bomb.remaining,
        ("bomb_status", bomb.id): bomb.status,
        ("score",): state.score,
    }
    reward = points + (SHAPING_CORRECT_CUT if rules.shaping else 0.0)
    return [Event("cut", agent, facts, witnesses, rnd, note=str(arg))], float(reward)


def view_facts(state: State, agent: str, see_teammates: bool) -> dict:
    """The facts ``agent`` can see at the start of its turn, without acting.

    Its own room and tools, the round and team score, the agents present, the bomb here (id
    and whether it is active, defused or exploded — not its sequence), and, when
    ``see_teammates``, every teammate's room.
    """
    room = state.positions[agent]
    facts: dict = {
        ("round",): state.round,
        ("score",): state.score,
        ("cutters", agent): state.layout.cutters[agent],
    }
    for other in state.layout.agents:
        if see_teammates or state.positions[other] == room:
            facts[("agent_room", other)] = state.positions[other]
    bomb = state.bomb_in(room)
    facts[("room_bomb", room)] = bomb.id if bomb else 0
    if bomb is not None:
        facts[("bomb_room", bomb.id)] = room
        facts[("bomb_status", bomb.id)] = bomb.status
    return facts


# -- what is seen together, and what follows -------------------------------------------------

#: Facts every agent sees in its view at once: the scoreboard and the tools (the rules say who
#: holds what).
PUBLIC_KINDS = frozenset(("round", "score", "cutters"))
#: Facts of a room, seen by everyone in it.
ROOM_KINDS = frozenset(("room_bomb", "bomb_room", "bomb_status"))


def shared_view(
    facts: dict, agent: str, agents: tuple[str, ...], see_teammates: bool
) -> list[tuple[frozenset[str], dict]]:
    """Split ``agent``'s turn view (:func:`view_facts`) by who sees each part with it.

    The scoreboard and tools, and (``see_teammates``) every agent's room, go to all agents;
    the room's contents and who is in it go to everyone in the room, who see each other; the
    rest stays the agent's own. Read from the view alone, so the split is pure.
    """
    room = facts.get(("agent_room", agent))
    present = frozenset(a for a in agents if facts.get(("agent_room", a)) == room)
    public, local, own = {}, {}, {}
    for key, value in facts.items():
        kind = key[0]
        if kind in PUBLIC_KINDS or (kind == "agent_room" and see_teammates):
            public[key] = value
        elif kind in ROOM_KINDS or kind == "agent_room":
            local[key] = value
        else:
            own[key] = value
    parts = [(frozenset(agents), public), (present | {agent}, local), (frozenset((agent,)), own)]
    return [(audience, part) for audience, part in parts if part]


def implied_facts(facts: dict) -> dict:
    """``facts`` with what follows from them: the rules' implications between fact kinds.

    A bomb with colours left is active; a defused or exploded bomb has none left; a bomb's
    room and a room's bomb are one fact said two ways. Stated facts are never overridden.
    """
    out = dict(facts)
    for key, value in facts.items():
        kind = key[0]
        if kind == "bomb_remaining" and value:
            out.setdefault(("bomb_status", key[1]), "active")
        elif kind == "bomb_status" and value in ("defused", "exploded"):
            out.setdefault(("bomb_remaining", key[1]), ())
        elif kind == "bomb_room":
            out.setdefault(("room_bomb", value), key[1])
        elif kind == "room_bomb" and value:
            out.setdefault(("bomb_room", value), key[1])
    return out
