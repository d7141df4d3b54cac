"""Search and rescue as numbers: the observation vector, its inverse, and the global state.

The observation vector holds exactly the facts the text view states: the fact sentences, who
the seat is, its own last action's result and what the sentence about it names, the doors out
of its room, the teammates' actions it saw (``witness=True``) and the claims of the messages
it was shown. :meth:`ObservationCodec.decode` and :meth:`ObservationCodec.decode_rest` turn a
vector back into those facts, and ``SearchRescueEnv.vector_knowledge`` compares them with the
text's (:mod:`mase.layout`, :func:`mase.checks.check_parity`). All values lie in [0, 1]. The
blocks are :class:`mase.layout.Block` records (``ObservationCodec.layout``), and every offset
is read from that layout, so the table below and the vector cannot drift apart.

Layout of the observation vector (R rooms, A agents, B bombs, C colours, P longest sequence,
K = 12 result codes, T = A - 1 teammates in turn order with the seat left out, and
F = 2 + A(1 + C) + AR + R(B + 1) + BR + 3B + BP + B(1 + PC) numbers of claims per teammate):

==============  ===========  ==========================================================
block           size         meaning
==============  ===========  ==========================================================
round           1            round / max_rounds
score           1            score / max_score
cutters         C            own cutters (multi-hot)
agent_room      A * R        each agent's room if seen (one-hot, else zeros)
room_bomb       B + 1        bomb in own room (index 0: no bomb)
bomb_room       B * R        each bomb's room if known
bomb_status     B * 3        active / defused / exploded, if known
bomb_phases     B * P        number of phases, if known (one-hot at n - 1)
bomb_remaining  B * (1+P*C)  known flag, then the remaining colours slot by slot
last_result     K            result of own last action (see ``RESULT_CODES``)
seat            A            who the seat is (one-hot)
doors           R            the rooms one door from own room (multi-hot)
last_colour     C            the colour own last action named (a cut, an explosion, a
                             cutter not held, a colour rejected)
last_target     R            the room own last move aimed at when it was not next door
last_detour     R            the first room of a shortest way there (the failure names it)
seen            T * (4+C)    per teammate: the kind of its action seen since own last turn
                             (move, inspect, cut, explode) and the colour it applied
told            T * F        per teammate: the claims its messages listed now make, in
                             the fact encoding above for every subject (round and score
                             as (n + 1) / (max + 1), 0 when not claimed; each agent's
                             cutters with a flag; each agent's room; each room's bomb;
                             each bomb's room, status, phases and remaining sequence)
==============  ===========  ==========================================================

The first ten blocks are the vector of the shipped checkpoints; later blocks were appended so
that a model trained on that vector reads its prefix. The native batch (:mod:`.batched`) has
neither messages nor ``witness``: its ``seen`` and ``told`` blocks stay zero, as the AEC env's
do without them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mase.envs.search_rescue.text import RESULT_CODES, SEEN_KINDS
from mase.envs.search_rescue.world import Layout, State
from mase.layout import Block, VectorLayout

STATUSES = ("active", "defused", "exploded")


_ROUND, _SCORE = ("round",), ("score",)
#: How many blocks the shipped checkpoints' vector had (``round`` .. ``last_result``).
ORIGINAL_BLOCKS = 10

SEEN_BOUND = (
    "the latest action of each teammate seen since the seat's last turn (each teammate acts "
    "once between two of its turns)"
)
TOLD_BOUND = (
    "the claims of the messages the observation lists (those since the seat's last turn), a "
    "sender's later claims winning; a claim naming a room, bomb, colour or agent this game "
    "lacks, a round above max_rounds, a score above max_score, phases outside 1..P or a "
    "sequence longer than P is kept in neither view"
)
LAST_RESULT_BOUND = (
    "the number of an action out of range and the explanation of an unreadable reply echo "
    "the seat's input and are kept in neither view"
)


def _one(block: np.ndarray) -> int | None:
    """The index of a one-hot block's set number, ``None`` when none is set.

    Raises:
        ValueError: more than one is set (no vector the task writes).
    """
    hot = np.flatnonzero(block)
    if len(hot) > 1:
        raise ValueError(f"a one-hot block has {len(hot)} numbers set")
    return int(hot[0]) if len(hot) else None


class ObservationCodec:
    """Encode and decode observation facts for one layout's sizes and labels."""

    def __init__(self, layout: Layout, max_rounds: int):
        self.rooms, self.agents, self.colours = layout.rooms, layout.agents, layout.colours
        self.max_rounds, self.max_score = max_rounds, layout.max_score
        R, A, B, C = len(layout.rooms), len(layout.agents), len(layout.phases), len(layout.colours)
        P = max(layout.phases)
        self.R, self.A, self.B, self.C, self.P = R, A, B, C, P
        self.room_index = {r: i for i, r in enumerate(layout.rooms)}
        self.agent_index = {a: i for i, a in enumerate(layout.agents)}
        self.colour_index = {c: i for i, c in enumerate(layout.colours)}
        self.result_index = {code: i for i, code in enumerate(RESULT_CODES)}
        #: Each seat's teammates, in turn order: the order of the ``seen`` and ``told`` blocks.
        self.teammates = {a: tuple(b for b in layout.agents if b != a) for a in layout.agents}
        self.claims = ClaimCodec(layout, max_rounds)
        T, W = A - 1, len(SEEN_KINDS) + C
        self.seen_width = W
        self.layout = VectorLayout(
            [
                Block("round", 1, "round / max_rounds"),
                Block("score", 1, "team score / max_score"),
                Block("cutters", C, "own cutters (multi-hot over the colours)"),
                Block("agent_room", A * R, "each agent's room if seen (one-hot, else zeros)"),
                Block("room_bomb", B + 1, "the bomb in own room (index 0: no bomb)"),
                Block("bomb_room", B * R, "each bomb's room, if known (one-hot)"),
                Block("bomb_status", B * 3, "each bomb active / defused / exploded, if known"),
                Block("bomb_phases", B * P, "each bomb's number of phases n, if known (at n-1)"),
                Block(
                    "bomb_remaining",
                    B * (1 + P * C),
                    "each bomb: a known flag, then the colours left, slot by slot (one-hot)",
                ),
                Block(
                    "last_result",
                    len(RESULT_CODES),
                    "the result of own last action (one-hot over RESULT_CODES).",
                    LAST_RESULT_BOUND,
                ),
                Block("seat", A, "who the seat is (one-hot over the agents)"),
                Block("doors", R, "the rooms one door from own room (multi-hot)"),
                Block(
                    "last_colour",
                    C,
                    "the colour own last action named: a cut, an explosion, a cutter not "
                    "held, a colour rejected (one-hot)",
                ),
                Block("last_target", R, "the room own last move aimed at, if not next door"),
                Block("last_detour", R, "the first room of a shortest way to that room"),
                Block(
                    "seen",
                    T * W,
                    "per teammate in turn order (the seat left out): the kind of its action "
                    "seen (move, inspect, cut, explode; one-hot), then the colour it applied.",
                    SEEN_BOUND,
                ),
                Block(
                    "told",
                    T * self.claims.size,
                    "per teammate in turn order (the seat left out): the claims of its "
                    "messages, every fact kind for every subject (ClaimCodec).",
                    TOLD_BOUND,
                ),
            ]
        )
        self.offset = {name: s.start for name, s in self.layout.slices.items()}
        self.size = self.layout.size
        self._entries: dict[tuple, tuple[int, ...]] = {}
        self._round_at, self._score_at = self.offset["round"], self.offset["score"]
        self._result_at = {
            code: self.offset["last_result"] + i for code, i in self.result_index.items()
        }

    def encode(self, facts: Mapping, result: str | None, rest: Mapping | None = None) -> np.ndarray:
        """The vector for a fact dict (as built by the env), the last-result code and the rest.

        ``rest`` holds the facts of the appended blocks, keyed as :meth:`decode_rest` gives
        them: ``("seat",)``, ``("doors",)``, ``("last_colour",)``, ``("last_target",)``,
        ``("last_detour",)``, ``("seen", k)`` and ``("seen_colour", k)`` for the k-th
        teammate, and ``("told", k, *fact key)`` for its claims (:class:`ClaimCodec`; only
        claims it admits). Each (fact key, value) pair sets fixed entries; they are computed
        once per pair and cached, since a game has few distinct facts. Round and score are the
        scalar entries, and so are the told round and score.
        """
        cache = self._entries
        index: list[int] = []
        for item in facts.items():
            try:  # a subscript, not .get(): this loop runs a dozen times an observation
                index += cache[item]
            except KeyError:
                index += cache.setdefault(item, self._entries_of(*item))
        scalars = []
        if rest:
            for item in rest.items():
                key = item[0]
                if key[0] == "told" and key[2] in ("round", "score"):
                    scalars.append(self._told_scalar(key[1], key[2], item[1]))
                    continue
                try:
                    index += cache[item]
                except KeyError:
                    index += cache.setdefault(item, self._entries_of(*item))
        if result is not None:
            index.append(self._result_at[result])
        v = np.zeros(self.size, dtype=np.float32)
        v.put(index, 1.0)  # a third faster than v[index] = 1.0 for a list of indices
        v[self._round_at] = facts.get(_ROUND, 0) / self.max_rounds
        v[self._score_at] = facts.get(_SCORE, 0) / self.max_score
        for at, value in scalars:
            v[at] = value
        return v

    def _told_scalar(self, k: int, kind: str, value: int) -> tuple[int, float]:
        at = self.offset["told"] + k * self.claims.size + self.claims.offset[kind]
        return at, self.claims.scalar(kind, value)

    def _entries_of(self, key: tuple, value) -> tuple[int, ...]:
        off, R, P, C = self.offset, self.R, self.P, self.C
        kind = key[0]
        if kind in ("round", "score"):
            return ()
        if kind == "cutters":
            return tuple(off["cutters"] + self.colour_index[c] for c in value)
        if kind == "agent_room":
            return (off["agent_room"] + self.agent_index[key[1]] * R + self.room_index[value],)
        if kind == "room_bomb":
            return (off["room_bomb"] + value,)
        if kind == "bomb_room":
            return (off["bomb_room"] + (key[1] - 1) * R + self.room_index[value],)
        if kind == "bomb_status":
            return (off["bomb_status"] + (key[1] - 1) * 3 + STATUSES.index(value),)
        if kind == "bomb_phases":
            return (off["bomb_phases"] + (key[1] - 1) * P + value - 1,)
        if kind == "bomb_remaining":
            base = off["bomb_remaining"] + (key[1] - 1) * (1 + P * C)
            return (base,) + tuple(
                base + 1 + slot * C + self.colour_index[c] for slot, c in enumerate(value)
            )
        return self._rest_entries_of(key, value)

    def _rest_entries_of(self, key: tuple, value) -> tuple[int, ...]:
        off, kind = self.offset, key[0]
        if kind == "seat":
            return (off["seat"] + self.agent_index[value],)
        if kind == "doors":
            return tuple(off["doors"] + self.room_index[r] for r in value)
        if kind == "last_colour":
            return (off["last_colour"] + self.colour_index[value],)
        if kind in ("last_target", "last_detour"):
            return (off[kind] + self.room_index[value],)
        if kind == "seen":
            return (off["seen"] + key[1] * self.seen_width + SEEN_KINDS.index(value),)
        if kind == "seen_colour":
            base = off["seen"] + key[1] * self.seen_width + len(SEEN_KINDS)
            return (base + self.colour_index[value],)
        if kind == "told":
            base = off["told"] + key[1] * self.claims.size
            return tuple(base + i for i in self.claims.entries(key[2:], value))
        raise KeyError(f"no vector encoding for fact {key!r}")

    def decode(self, agent: str, v: np.ndarray) -> tuple[dict, str | None]:
        """The facts of the first blocks and the last-result code (the inverse of :meth:`encode`).

        ``agent`` is the seat (its cutters and room are its own). One-hot blocks with more
        than one number set are no vector the task writes: a ``ValueError``.
        """
        off, R, P, C, B = self.offset, self.R, self.P, self.C, self.B
        facts: dict = {
            ("round",): int(round(float(v[off["round"]]) * self.max_rounds)),
            ("score",): int(round(float(v[off["score"]]) * self.max_score)),
        }
        cut = v[off["cutters"] : off["cutters"] + C]
        facts[("cutters", agent)] = tuple(c for c, x in zip(self.colours, cut, strict=True) if x)
        for a, i in self.agent_index.items():
            room = _one(v[off["agent_room"] + i * R : off["agent_room"] + (i + 1) * R])
            if room is not None:
                facts[("agent_room", a)] = self.rooms[room]
        bomb = _one(v[off["room_bomb"] : off["room_bomb"] + B + 1])
        if bomb is not None:
            facts[("room_bomb", facts[("agent_room", agent)])] = bomb
        for b in range(1, B + 1):
            room = _one(v[off["bomb_room"] + (b - 1) * R : off["bomb_room"] + b * R])
            if room is not None:
                facts[("bomb_room", b)] = self.rooms[room]
            status = _one(v[off["bomb_status"] + (b - 1) * 3 : off["bomb_status"] + b * 3])
            if status is not None:
                facts[("bomb_status", b)] = STATUSES[status]
            phases = _one(v[off["bomb_phases"] + (b - 1) * P : off["bomb_phases"] + b * P])
            if phases is not None:
                facts[("bomb_phases", b)] = phases + 1
            base = off["bomb_remaining"] + (b - 1) * (1 + P * C)
            left = _sequence(v[base], v[base + 1 : base + 1 + P * C].reshape(P, C))
            if left is not None:
                facts[("bomb_remaining", b)] = tuple(self.colours[c] for c in left)
        code = _one(v[off["last_result"] : off["last_result"] + len(RESULT_CODES)])
        return facts, None if code is None else RESULT_CODES[code]

    def decode_rest(self, v: np.ndarray) -> dict:
        """The facts of the appended blocks, keyed as :meth:`encode`'s ``rest``.

        Teammates are numbered ``k = 0 .. T - 1`` in turn order with the seat left out; the
        seat is ``("seat",)`` (``ValueError`` when none or several are set).
        """
        parts = self.layout.split(v)
        facts: dict = {}
        seat = _one(parts["seat"])
        if seat is None:
            raise ValueError("the vector names no seat")
        facts[("seat",)] = self.agents[seat]
        facts[("doors",)] = tuple(r for r, x in zip(self.rooms, parts["doors"], strict=True) if x)
        colour = _one(parts["last_colour"])
        if colour is not None:
            facts[("last_colour",)] = self.colours[colour]
        for name in ("last_target", "last_detour"):
            room = _one(parts[name])
            if room is not None:
                facts[(name,)] = self.rooms[room]
        W, S = self.seen_width, len(SEEN_KINDS)
        for k in range(self.A - 1):
            slot = parts["seen"][k * W : (k + 1) * W]
            kind, colour = _one(slot[:S]), _one(slot[S:])
            if kind is not None:
                facts[("seen", k)] = SEEN_KINDS[kind]
            if colour is not None:
                facts[("seen_colour", k)] = self.colours[colour]
            told = parts["told"][k * self.claims.size : (k + 1) * self.claims.size]
            facts.update(((("told", k, *key), value) for key, value in self.claims.decode(told)))
        return facts


def _sequence(flag: float, slots: np.ndarray) -> tuple[int, ...] | None:
    """A sequence block: a known flag, then one one-hot slot per colour, filled from the front.

    ``None`` when not known. Raises ``ValueError`` for slots without the flag, a slot with
    several colours or a gap before a filled slot (no vector the task writes).
    """
    filled = [_one(slot) for slot in slots]
    if not flag:
        if any(c is not None for c in filled):
            raise ValueError("a sequence's colours are set without its known flag")
        return None
    n = sum(c is not None for c in filled)
    if any(c is None for c in filled[:n]):
        raise ValueError("a sequence has a gap before a set colour")
    return tuple(filled[:n])  # type: ignore[arg-type]


class ClaimCodec:
    """The claims one teammate's messages make, as numbers: every fact kind, every subject.

    Layout (F numbers, sizes as in the module docstring): ``round`` and ``score`` as
    ``(n + 1) / (max + 1)``, 0 when not claimed; ``cutters``: per agent a flag, then its
    colours (multi-hot); ``agent_room``: per agent its room; ``room_bomb``: per room its bomb
    (index 0: none); ``bomb_room``, ``bomb_status``, ``bomb_phases`` and ``bomb_remaining``:
    per bomb, as in the observation's own blocks. A claim is encoded only when
    :meth:`admits` it (this game's rooms, bombs, colours and agents, values in range).
    """

    def __init__(self, layout: Layout, max_rounds: int):
        R, A, B, C = len(layout.rooms), len(layout.agents), len(layout.phases), len(layout.colours)
        P = max(layout.phases)
        self.R, self.A, self.B, self.C, self.P = R, A, B, C, P
        self.rooms, self.agents, self.colours = layout.rooms, layout.agents, layout.colours
        self.room_index = {r: i for i, r in enumerate(layout.rooms)}
        self.agent_index = {a: i for i, a in enumerate(layout.agents)}
        self.colour_index = {c: i for i, c in enumerate(layout.colours)}
        self.maxima = {"round": max_rounds, "score": layout.max_score}
        sizes = {
            "round": 1,
            "score": 1,
            "cutters": A * (1 + C),
            "agent_room": A * R,
            "room_bomb": R * (B + 1),
            "bomb_room": B * R,
            "bomb_status": B * 3,
            "bomb_phases": B * P,
            "bomb_remaining": B * (1 + P * C),
        }
        self.offset, at = {}, 0
        for name, size in sizes.items():
            self.offset[name] = at
            at += size
        self.size = at

    def admits(self, key: tuple, value) -> bool:
        """Whether the claim ``key = value`` names this game's things, with a value in range."""
        kind, subject = key[0], key[1] if len(key) > 1 else None
        if kind in self.maxima:
            return len(key) == 1 and isinstance(value, int) and 0 <= value <= self.maxima[kind]
        if kind in ("cutters", "agent_room"):
            if subject not in self.agent_index:
                return False
            if kind == "agent_room":
                return value in self.room_index
            return all(c in self.colour_index for c in value)
        if kind == "room_bomb":
            return subject in self.room_index and isinstance(value, int) and 0 <= value <= self.B
        if not (isinstance(subject, int) and 1 <= subject <= self.B):
            return False
        if kind == "bomb_room":
            return value in self.room_index
        if kind == "bomb_status":
            return value in STATUSES
        if kind == "bomb_phases":
            return isinstance(value, int) and 1 <= value <= self.P
        if kind == "bomb_remaining":
            return len(value) <= self.P and all(c in self.colour_index for c in value)
        return False

    def value(self, key: tuple, value):
        """The claim's value as decoded: a cutters claim is a set of tools, in colour order."""
        if key[0] == "cutters":
            return tuple(c for c in self.colours if c in value)
        return value

    def scalar(self, kind: str, value: int) -> float:
        """The number a claimed round or score is written as."""
        return (value + 1) / (self.maxima[kind] + 1)

    def entries(self, key: tuple, value) -> tuple[int, ...]:
        """The offsets (within one teammate's claims) a claim sets to 1 (round, score: none)."""
        off, R, P, C = self.offset, self.R, self.P, self.C
        kind = key[0]
        if kind in self.maxima:
            return ()
        if kind == "cutters":
            base = off["cutters"] + self.agent_index[key[1]] * (1 + C)
            return (base,) + tuple(base + 1 + self.colour_index[c] for c in set(value))
        if kind == "agent_room":
            return (off["agent_room"] + self.agent_index[key[1]] * R + self.room_index[value],)
        if kind == "room_bomb":
            return (off["room_bomb"] + self.room_index[key[1]] * (self.B + 1) + value,)
        b = key[1] - 1
        if kind == "bomb_room":
            return (off["bomb_room"] + b * R + self.room_index[value],)
        if kind == "bomb_status":
            return (off["bomb_status"] + b * 3 + STATUSES.index(value),)
        if kind == "bomb_phases":
            return (off["bomb_phases"] + b * P + value - 1,)
        base = off["bomb_remaining"] + b * (1 + P * C)
        return (base,) + tuple(
            base + 1 + slot * C + self.colour_index[c] for slot, c in enumerate(value)
        )

    def decode(self, v: np.ndarray) -> list[tuple[tuple, object]]:
        """The claims one teammate's numbers hold, as ``(fact key, value)`` pairs."""
        off, R, P, C, B = self.offset, self.R, self.P, self.C, self.B
        out: list[tuple[tuple, object]] = []
        for kind, top in self.maxima.items():
            x = float(v[off[kind]])
            if x:
                out.append(((kind,), int(round(x * (top + 1))) - 1))
        for a, i in self.agent_index.items():
            base = off["cutters"] + i * (1 + C)
            held = v[base + 1 : base + 1 + C]
            if v[base]:
                out.append(
                    (("cutters", a), tuple(c for c, x in zip(self.colours, held, strict=True) if x))
                )
            elif held.any():
                raise ValueError("a cutters claim's colours are set without its flag")
            room = _one(v[off["agent_room"] + i * R : off["agent_room"] + (i + 1) * R])
            if room is not None:
                out.append((("agent_room", a), self.rooms[room]))
        for r, i in self.room_index.items():
            at = off["room_bomb"] + i * (B + 1)
            bomb = _one(v[at : at + B + 1])
            if bomb is not None:
                out.append((("room_bomb", r), bomb))
        for b in range(1, B + 1):
            room = _one(v[off["bomb_room"] + (b - 1) * R : off["bomb_room"] + b * R])
            if room is not None:
                out.append((("bomb_room", b), self.rooms[room]))
            status = _one(v[off["bomb_status"] + (b - 1) * 3 : off["bomb_status"] + b * 3])
            if status is not None:
                out.append((("bomb_status", b), STATUSES[status]))
            phases = _one(v[off["bomb_phases"] + (b - 1) * P : off["bomb_phases"] + b * P])
            if phases is not None:
                out.append((("bomb_phases", b), phases + 1))
            base = off["bomb_remaining"] + (b - 1) * (1 + P * C)
            left = _sequence(v[base], v[base + 1 : base + 1 + P * C].reshape(P, C))
            if left is not None:
                out.append((("bomb_remaining", b), tuple(self.colours[c] for c in left)))
        return out


class StateCodec:
    """The global state vector for centralized critics and planners.

    Each agent's room (one-hot), each bomb's room, full sequence, phases cut and explosion
    flag, the round and score, and whose turn it is.
    """

    def __init__(self, layout: Layout, max_rounds: int):
        self.room_index = {r: i for i, r in enumerate(layout.rooms)}
        self.colour_index = {c: i for i, c in enumerate(layout.colours)}
        self.agent_index = {a: i for i, a in enumerate(layout.agents)}
        self.R, self.A, self.C, self.P = (
            len(layout.rooms),
            len(layout.agents),
            len(layout.colours),
            max(layout.phases),
        )
        self.B = len(layout.phases)
        self.per_bomb = self.R + self.P * self.C + self.P + 1 + 1
        self.size = self.A * self.R + self.B * self.per_bomb + 2 + self.A
        self.max_rounds, self.max_score = max_rounds, layout.max_score
        self._entries: dict[tuple, list[int]] = {}  # per-bomb entries, computed once each

    def encode(self, state: State, turn: str | None) -> np.ndarray:
        """The state vector; ``turn`` is the agent to act (``None`` once the episode is over)."""
        cache = self._entries
        index = [
            i * self.R + self.room_index[state.positions[a]] for a, i in self.agent_index.items()
        ]
        for k, bomb in enumerate(state.bombs):
            item = (k, bomb.room, bomb.sequence, bomb.cut, bomb.exploded)
            entries = cache.get(item)
            if entries is None:
                entries = cache[item] = self._bomb_entries(*item)
            index += entries
        tail = self.A * self.R + self.B * self.per_bomb
        if turn is not None:
            index.append(tail + 2 + self.agent_index[turn])
        v = np.zeros(self.size, dtype=np.float32)
        v.put(index, 1.0)  # a third faster than v[index] = 1.0 for a list of indices
        v[tail] = min(state.round, self.max_rounds) / self.max_rounds
        v[tail + 1] = state.score / self.max_score
        return v

    def _bomb_entries(self, k: int, room: int, sequence: tuple, cut: int, exploded: bool) -> list:
        R, P, C = self.R, self.P, self.C
        base = self.A * R + k * self.per_bomb
        index = [base + self.room_index[room], base + R + P * C + cut]
        index += [base + R + slot * C + self.colour_index[c] for slot, c in enumerate(sequence)]
        if exploded:
            index.append(base + R + P * C + P + 1)
        return index
