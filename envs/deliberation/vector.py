"""The deliberation tasks' vector view: its layout, how it is written, and how it reads back.

A :class:`Codec` is made once per env from its games (the sizes, scales and name lists are
constants of the env). :meth:`Codec.layout` names the blocks (the task pages print them with
``env.vector_layout(agent).markdown()``), :meth:`Codec.pack` writes a seat's vector and
:meth:`Codec.decode` reads it back into the facts of :mod:`.reading`, strictly: numbers the
view never writes (a padding slot set, a one-hot with two ones) raise ``ValueError``.

Encodings (every number in [0, 1]):

* a name: its index in the env's sorted list of such names, ``(i + 1) / (N + 1)``; 0 is none;
* a round r: ``r / round_limit`` (0: none); a count k of at most K: ``k / K``;
* a decision: one number per listed item, in order, up to the most a reply may list (the reply
  reader refuses longer ones): a dish ``(i + 1) / (D + 2)`` (dish slot i of D, ``D + 1`` a
  name that is no dish), a pair ``(1 + t (S + 1) + a) / ((T + 1) (S + 1))`` (task slot t of
  T or T for none of them, seat a of S or S for none);
* a claimed number v: ``0.5 + 0.5 v / C``, C twice the largest true number of its kind in the
  env's games (0: no claim; claims outside [0, C] are not held, :func:`.reading.held_claim`);
* what a dish needs of the ingredients not in stock: (ingredient, units) pairs in the
  ingredients' order, ``c = ingredient index * U + units``, two a number as
  ``(c1 B + c2) / B**2`` (U one more than the most units a recipe needs, B = (I + 1) U).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mase.envs.deliberation import reading
from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import Game
from mase.envs.deliberation.profiles import ProfileCodec
from mase.layout import Block


def index_of(x: float, n: int) -> int:
    """The whole number k in 0..n that ``x = k / n`` writes; ValueError for any other number."""
    k = round(float(x) * n)
    # float32 holds k / n to within n * 2**-24: for n up to 2**16, well under a half
    if abs(float(x) * n - k) > max(1e-3, n * 2.0**-21) or not 0 <= k <= n:
        raise ValueError(f"{x} is no multiple of 1/{n} in [0, 1]")
    return k


def one_hot(x: np.ndarray, none: bool = False) -> int | None:
    """The index set in a one-hot block (``None``: none set, where ``none`` allows it)."""
    ones = np.flatnonzero(x)
    if len(ones) == 0 and none:
        return None
    if len(ones) != 1 or x[ones[0]] != 1.0:
        raise ValueError(f"not a one-hot block: {x.tolist()}")
    return int(ones[0])


def zero(x: np.ndarray, what: str) -> None:
    """Raise ValueError unless the numbers ``x`` (a part the view leaves empty) are all 0."""
    if np.any(x):
        raise ValueError(f"{what} holds numbers where the view writes none")


class Names:
    """A sorted list of names, each written as ``(i + 1) / (N + 1)`` (0: none)."""

    def __init__(self, names: Sequence[str]):
        self.names = sorted(set(names))
        self._index = {n: i for i, n in enumerate(self.names)}

    def code(self, name: str | None) -> float:
        """The number of ``name`` (0 for none)."""
        return 0.0 if name is None else (self._index[name] + 1) / (len(self.names) + 1)

    def name(self, x: float) -> str | None:
        """The name ``x`` writes (``None`` for 0)."""
        k = index_of(x, len(self.names) + 1)
        if k > len(self.names):
            raise ValueError(f"{x} names no name")
        return None if k == 0 else self.names[k - 1]


class Codec:
    """What the task vectors of one env share: rounds, the dialogue, claims and the end."""

    def __init__(self, env: Any):
        self.seats = tuple(env.seats)
        self.round_limit = env.round_limit
        self.max_turns = env.round_limit * len(self.seats)
        self.profiles: ProfileCodec | None = None

    # -- the blocks every deliberation vector ends with -------------------------------------------

    def common_blocks(self, items: int, told: int) -> list[Block]:
        """The blocks after the task's own: turn, proposals, dialogue, claims, note, end."""
        n, r = len(self.seats), self.round_limit
        return [
            Block(
                "turn",
                n + 1,
                f"who acts now: one of {', '.join(self.seats)} or the talk is over (one-hot)",
            ),
            Block(
                "current",
                1 + items,
                "the proposal on the table: its round / round_limit (0: none), then its "
                "listed items",
            ),
            Block(
                "proposed",
                n * (1 + items),
                "per seat, its latest proposal line in the dialogue shown: round / "
                "round_limit (0: none) and listed items",
                "the dialogue's newest turns up to 9,000 characters, as the text",
            ),
            Block("left_out", 1, f"earlier turns the dialogue leaves out / {r * n}"),
            Block(
                "told",
                n * told,
                "per speaker (seats in order, this one too), the latest claim of each "
                "fact in its turns shown (0.5 + 0.5 v / C; 0: none)",
                "the dialogue shown; claims about the game's seats, guests and names, "
                "numbers 0 to C",
            ),
            Block(
                "note",
                len(reading.NOTES),
                f"the note on this seat's last move: {', '.join(reading.NOTES)} "
                f"(one-hot; none: no note)",
            ),
            Block(
                "end",
                len(reading.VERDICTS) + items,
                f"once the talk is over: the verdict ({', '.join(reading.VERDICTS)}, "
                f"one-hot), then the decision's listed items",
            ),
        ]

    def pack_common(self, env: Any, agent: str, parts: dict, item: Any, items: int) -> None:
        """Write the common blocks of ``agent``'s vector into ``parts``."""
        n, r = len(self.seats), self.round_limit
        turn = np.zeros(n + 1, dtype=np.float32)
        if env._ended_by:
            turn[n] = 1.0
        else:
            turn[self.seats.index(agent if env.acting(agent) else env.agent_selection)] = 1.0
        parts["turn"] = turn
        current = np.zeros(1 + items, dtype=np.float32)
        if env.current is not None:
            current[0] = env.current[2] / r
            current[1:] = self.pack_decision(env.game, env.current[1], item, items)
        parts["current"] = current
        left, turns = env.shown_turns()
        proposed = np.zeros((n, 1 + items), dtype=np.float32)
        for seat, (rnd, decision) in reading.latest_proposals(env.game, turns).items():
            proposed[self.seats.index(seat), 0] = rnd / r
            proposed[self.seats.index(seat), 1:] = self._items(decision, item, items)
        parts["proposed"] = proposed
        parts["left_out"] = [left / self.max_turns]
        parts["told"] = self.pack_told(env, reading.told(env, turns))
        note = np.zeros(len(reading.NOTES), dtype=np.float32)
        kind = reading.note_kind(env.note(agent))
        if kind:
            note[list(reading.NOTES).index(kind)] = 1.0
        parts["note"] = note
        end = np.zeros(len(reading.VERDICTS) + items, dtype=np.float32)
        if env._ended_by:
            score = env._score
            verdict = "undecided" if score is None else reading.verdict_of(score.reason)
            end[list(reading.VERDICTS).index(verdict)] = 1.0
            if score is not None:
                decision = env.decision or ()
                end[len(reading.VERDICTS) :] = self.pack_decision(env.game, decision, item, items)
        parts["end"] = end

    def pack_decision(self, game: Game, decision: Sequence, item: Any, items: int) -> np.ndarray:
        """A decision as said (names of the game or not) as its listed items."""
        return self._items(reading.canonical(game, decision), item, items)

    def _items(self, decision: tuple, item: Any, items: int) -> np.ndarray:
        out = np.zeros(items, dtype=np.float32)
        if len(decision) > items:
            raise ValueError(f"a decision lists at most {items} items, got {len(decision)}")
        out[: len(decision)] = [item(x) for x in decision]
        return out

    def decode_common(self, parts: dict, names: dict, read_item: Any) -> dict:
        """The facts of the common blocks (:mod:`.reading`'s keys)."""
        n, r = len(self.seats), self.round_limit
        facts: dict = {}
        t = one_hot(parts["turn"])
        facts[("turn",)] = "" if t == n else self.seats[t]
        rnd = index_of(parts["current"][0], r)
        if rnd:
            facts[("current",)] = (None, rnd, self._read_items(parts["current"][1:], read_item))
        else:
            zero(parts["current"], "current")
            facts[("current",)] = None
        for k, row in enumerate(parts["proposed"].reshape(n, -1)):
            rnd = index_of(row[0], r)
            if rnd:
                facts[("proposed", self.seats[k])] = (rnd, self._read_items(row[1:], read_item))
            else:
                zero(row, "proposed")
        facts[("left_out",)] = index_of(parts["left_out"][0], self.max_turns)
        facts.update(self.decode_told(parts["told"], names))
        kind = one_hot(parts["note"], none=True)
        facts[("note",)] = "" if kind is None else list(reading.NOTES)[kind]
        verdict = one_hot(parts["end"][: len(reading.VERDICTS)], none=True)
        listed = parts["end"][len(reading.VERDICTS) :]
        if verdict is None:
            zero(parts["end"], "end")
            facts[("end",)] = None
        else:
            facts[("end",)] = (self._read_items(listed, read_item), list(reading.VERDICTS)[verdict])
        return facts

    def _read_items(self, x: np.ndarray, read_item: Any) -> tuple:
        codes = list(x)
        while codes and codes[-1] == 0.0:
            codes.pop()
        if 0.0 in codes:
            raise ValueError("a decision's listed items have a gap")
        return tuple(read_item(c) for c in codes)

    # -- claims ---------------------------------------------------------------------------------

    #: C of each number of one speaker's claims, in order (set by the task's codec).
    scales: np.ndarray = np.zeros(0)

    @property
    def told_size(self) -> int:
        """Numbers of one speaker's claims: its numbers, then its own descriptions of guests."""
        return len(self.scales) + (2 * self.profiles.size if self.profiles is not None else 0)

    def claim_item(self, game: Game, key: tuple) -> tuple[tuple, int] | None:
        """A claim's key with the game's names and its number's place (``None``: none)."""
        raise NotImplementedError

    def claim_key(self, slot: int, names: dict) -> tuple:
        """The fact key of a speaker's claim number ``slot``; ValueError for a slot of none."""
        raise NotImplementedError

    def pack_told(self, env: Any, told: dict) -> np.ndarray:
        """The told block: per speaker its held claims' numbers (and descriptions)."""
        out = np.zeros((len(self.seats), self.told_size), dtype=np.float32)
        for (_, speaker, *key), value in told.items():
            row = out[self.seats.index(speaker)]
            if key[0] == "profile":
                at = len(self.scales) + key[1] * self.profiles.size
                row[at : at + self.profiles.size] = self.profiles.encode(value)
            else:
                _, slot = self.claim_item(env.game, tuple(key))
                row[slot] = 0.5 + 0.5 * value / self.scales[slot]
        return out

    def decode_told(self, x: np.ndarray, names: dict) -> dict:
        """The held claims the told block writes (``names``: the slots' names, decoded)."""
        out: dict = {}
        for k, row in enumerate(x.reshape(len(self.seats), -1)):
            speaker = self.seats[k]
            for slot in np.flatnonzero(row[: len(self.scales)]):
                if row[slot] < 0.5:
                    raise ValueError(f"told number {slot} is below 0.5")
                key = self.claim_key(int(slot), names)
                out[("told", speaker, *key)] = float((row[slot] - 0.5) * 2 * self.scales[slot])
            if self.profiles is not None:
                for guest in (0, 1):
                    at = len(self.scales) + guest * self.profiles.size
                    profile = self.profiles.decode(row[at : at + self.profiles.size])
                    if profile is not None:
                        out[("told", speaker, "profile", guest, speaker)] = profile
        return out


def ceil_half(n: int) -> int:
    """Numbers that hold ``n`` packed pairs, two a number."""
    return math.ceil(n / 2)


def shown_names(names: Sequence[str]) -> list[str]:
    """Names as the views write them (:func:`.text.shown`)."""
    return [words.shown(n) for n in names]
