"""Search and rescue as numbers: the observation vector, its inverse, and the global state.

The observation vector encodes exactly the facts the text view states (messages excepted):
:meth:`ObservationCodec.decode` turns a vector back into the fact dict, and a test checks it
against the facts parsed from the text. All values lie in [0, 1].

Layout of the observation vector (R rooms, A agents, B bombs, C colours, P longest sequence):

==================  ===========  ==================================================
block               size         meaning
==================  ===========  ==================================================
round               1            round / max_rounds
score               1            score / max_score
cutters             C            own cutters (multi-hot)
agent_room          A * R        each agent's room if seen (one-hot, else zeros)
room_bomb           B + 1        bomb in own room (index 0: no bomb)
bomb_room           B * R        each bomb's room if known
bomb_status         B * 3        active / defused / exploded, if known
bomb_phases         B * P        number of phases, if known (one-hot at n - 1)
bomb_remaining      B * (1+P*C)  known flag, then the remaining colours slot by slot
last_result         K            result of own last action (see ``RESULT_CODES``)
==================  ===========  ==================================================
"""

from __future__ import annotations

import numpy as np

from mase.envs.search_rescue.text import RESULT_CODES
from mase.envs.search_rescue.world import Layout, State

STATUSES = ("active", "defused", "exploded")


_ROUND, _SCORE = ("round",), ("score",)


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
        sizes = {
            "round": 1,
            "score": 1,
            "cutters": C,
            "agent_room": A * R,
            "room_bomb": B + 1,
            "bomb_room": B * R,
            "bomb_status": B * 3,
            "bomb_phases": B * P,
            "bomb_remaining": B * (1 + P * C),
            "last_result": len(RESULT_CODES),
        }
        self._entries: dict[tuple, tuple[int, ...]] = {}
        self.offset = {}
        total = 0
        for name, size in sizes.items():
            self.offset[name] = total
            total += size
        self.size = total
        self._round_at, self._score_at = self.offset["round"], self.offset["score"]
        self._result_at = {
            code: self.offset["last_result"] + i for code, i in self.result_index.items()
        }

    def encode(self, facts: dict, result: str | None) -> np.ndarray:
        """The vector for a fact dict (as built by the env) and the last-result code.

        Each (fact key, value) pair sets fixed one-hot entries; they are computed once per
        pair and cached, since a game has few distinct facts. Round and score are the two
        scalar entries.
        """
        cache = self._entries
        index: list[int] = []
        for item in facts.items():
            try:  # a subscript, not .get(): this loop runs a dozen times an observation
                index += cache[item]
            except KeyError:
                index += cache.setdefault(item, self._entries_of(*item))
        if result is not None:
            index.append(self._result_at[result])
        v = np.zeros(self.size, dtype=np.float32)
        v.put(index, 1.0)  # a third faster than v[index] = 1.0 for a list of indices
        v[self._round_at] = facts.get(_ROUND, 0) / self.max_rounds
        v[self._score_at] = facts.get(_SCORE, 0) / self.max_score
        return v

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
        raise KeyError(f"no vector encoding for fact {key!r}")

    def decode(self, agent: str, v: np.ndarray) -> tuple[dict, str | None]:
        """The facts and last-result code a vector encodes (the inverse of :meth:`encode`)."""
        off, R, P, C, B = self.offset, self.R, self.P, self.C, self.B
        facts: dict = {
            ("round",): int(round(float(v[off["round"]]) * self.max_rounds)),
            ("score",): int(round(float(v[off["score"]]) * self.max_score)),
        }
        cut = v[off["cutters"] : off["cutters"] + C]
        facts[("cutters", agent)] = tuple(c for c, x in zip(self.colours, cut, strict=True) if x)
        for a, i in self.agent_index.items():
            block = v[off["agent_room"] + i * R : off["agent_room"] + (i + 1) * R]
            if block.any():
                facts[("agent_room", a)] = self.rooms[int(block.argmax())]
        block = v[off["room_bomb"] : off["room_bomb"] + B + 1]
        if block.any():
            facts[("room_bomb", facts[("agent_room", agent)])] = int(block.argmax())
        for b in range(1, B + 1):
            block = v[off["bomb_room"] + (b - 1) * R : off["bomb_room"] + b * R]
            if block.any():
                facts[("bomb_room", b)] = self.rooms[int(block.argmax())]
            block = v[off["bomb_status"] + (b - 1) * 3 : off["bomb_status"] + b * 3]
            if block.any():
                facts[("bomb_status", b)] = STATUSES[int(block.argmax())]
            block = v[off["bomb_phases"] + (b - 1) * P : off["bomb_phases"] + b * P]
            if block.any():
                facts[("bomb_phases", b)] = int(block.argmax()) + 1
            base = off["bomb_remaining"] + (b - 1) * (1 + P * C)
            if v[base]:
                slots = v[base + 1 : base + 1 + P * C].reshape(P, C)
                facts[("bomb_remaining", b)] = tuple(
                    self.colours[int(s.argmax())] for s in slots if s.any()
                )
        block = v[off["last_result"] : off["last_result"] + len(RESULT_CODES)]
        result = RESULT_CODES[int(block.argmax())] if block.any() else None
        return facts, result


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
