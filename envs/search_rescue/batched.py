"""Search and rescue in arrays: ``num_envs`` worlds stepped together (:mod:`mase.batch`).

The rules of :mod:`.world` written once more, as numpy operations over a batch of worlds, so
that a turn of every world costs a few dozen array operations instead of a Python call each.
The observation and state vectors are those of :class:`.vector.ObservationCodec` and
:class:`.vector.StateCodec`, laid out by them; the consistency test steps this batch beside
:class:`mase.batch.AECBatch` with the same seeds and actions and finds the same observations,
masks, states, rewards, ends and metrics at every step.

How an AEC observation reduces to arrays: under the paper's observation rule (``witness``
off) an agent's inbox holds only the events of its own last action, and its view now (round,
score, tools, where the agents are, the bomb here and its status) overrides what those events
said about the same keys. What is left of the events is the last result's code and, after an
inspection or a cut, the bomb's phase count and the colours it had left (after an explosion:
none left), and what the sentence about that action names: the colour of a cut, an explosion,
a cutter not held or a colour rejected, and for a move to a room not next door that room and
the first room of a shortest way there. Each seat keeps exactly that. A batch has no messages
and no ``witness``, so the vector's ``seen`` and ``told`` blocks stay zero, as the AEC env's do
without them.

Episodes are drawn by the world module's own functions from each world's generator, the draws
the AEC env makes, so world ``n`` seeded ``s + n`` plays the AEC env seeded ``s + n``.
``witness=True`` (teammates' events reach each other) has no array form here; use the AEC
batch (``backend="aec"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding

from mase.actions import ResetNeeded
from mase.batch import Batch, BatchStep, action_indices
from mase.envs.search_rescue import world
from mase.envs.search_rescue.text import RESULT_CODES, detour_room
from mase.envs.search_rescue.vector import STATUSES
from mase.registry import make

_CODE = {code: i for i, code in enumerate(RESULT_CODES)}
_MOVED, _INSPECTED, _CUT, _EXPLODED = (_CODE[c] for c in ("moved", "inspected", "cut", "exploded"))
_INVALID = {reason: _CODE[f"invalid:{reason}"] for reason in world.INVALID_REASONS}
_ACTIVE, _DEFUSED, _BLOWN = (STATUSES.index(s) for s in ("active", "defused", "exploded"))


class BatchedSearchRescue(Batch):
    """``num_envs`` search-and-rescue worlds as arrays (see the module docstring).

    Takes the task's arguments (``layout``, sizes, rules, ``max_cycles``, ``see_teammates``,
    ``deadlock_rounds``); ``obs_mode`` and ``render_mode`` are accepted and ignored (a batch
    gives vectors only).
    """

    def __init__(self, id: str, num_envs: int, **kwargs: Any):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        kwargs = {**kwargs, "obs_mode": "vector", "render_mode": None}
        template = make(id, **kwargs).unwrapped  # checks the arguments as the task does
        if template.rules.witness:
            raise ValueError(
                "witness=True has no array form (teammates' events reach each other); "
                "use backend='aec'"
            )
        self.spec_id = id
        self.template = template
        self.num_envs = N = num_envs
        layout = template.layout
        self.possible_agents = list(template.possible_agents)
        self.rooms, self.colours = layout.rooms, layout.colours
        self.R, self.A, self.B, self.C = R, A, B, C = (
            len(layout.rooms), len(layout.agents), len(layout.phases), len(layout.colours),
        )  # fmt: skip
        self.P = P = max(layout.phases)
        self.n_actions = 1 + R + C
        self.codec, self.state_codec = template.codec, template.state_codec
        self.observation_size, self.state_size = self.codec.size, self.state_codec.size
        self.rules, self.max_cycles = template.rules, template.max_cycles
        self.see_teammates, self.deadlock_rounds = template.see_teammates, template.deadlock_rounds
        self.redraw_layout = template.procedural or template.layout_kind == "random"
        self.max_score = layout.max_score
        self.phases = np.array(layout.phases, dtype=np.int64)  # the same in every episode
        self.owns = np.array(
            [[c in layout.cutters[a] for c in layout.colours] for a in layout.agents], dtype=bool
        )
        self.room_index = {r: i for i, r in enumerate(layout.rooms)}
        self.colour_index = {c: i for i, c in enumerate(layout.colours)}
        self._n = np.arange(N)

        # the worlds
        self.adj = np.zeros((N, R, R), dtype=bool)
        self.detour = np.full((N, R, R), -1, dtype=np.int64)  # first room on a shortest way
        self.pos = np.zeros((N, A), dtype=np.int64)
        self.bomb_room = np.zeros((N, B), dtype=np.int64)
        self.room_bomb = np.zeros((N, R), dtype=np.int64)  # bomb id (1..B), 0: none
        self.seq = np.full((N, B, P), -1, dtype=np.int64)  # colour index, -1 past the end
        self.cut = np.zeros((N, B), dtype=np.int64)
        self.exploded = np.zeros((N, B), dtype=bool)
        self.round = np.ones(N, dtype=np.int64)
        self.score = np.zeros(N, dtype=np.int64)
        self.turns = np.zeros(N, dtype=np.int64)
        self.invalid = np.zeros(N, dtype=np.int64)
        # what each seat's last action told it (its inbox under the paper's rule)
        self.last_code = np.full((N, A), -1, dtype=np.int64)
        self.last_colour = np.full((N, A), -1, dtype=np.int64)  # colour index, -1: none named
        self.last_target = np.full((N, A), -1, dtype=np.int64)  # room index of a failed move
        self.last_detour = np.full((N, A), -1, dtype=np.int64)  # the way there, -1: none
        self.known_bomb = np.full((N, A), -1, dtype=np.int64)  # bomb index, -1: none
        self.known_phases = np.zeros((N, A), dtype=bool)
        self.known_cut = np.zeros((N, A), dtype=np.int64)
        self.known_exploded = np.zeros((N, A), dtype=bool)
        # the deadlock rule's memory: the round's start and moves, the last round's moves
        self.moves = np.full((N, A), -1, dtype=np.int64)
        self.previous_moves = np.full((N, A), -1, dtype=np.int64)
        self.has_previous = np.zeros(N, dtype=bool)
        self.start_pos = np.zeros((N, A), dtype=np.int64)
        self.start_cut = np.zeros((N, B), dtype=np.int64)
        self.start_exploded = np.zeros((N, B), dtype=bool)
        self.stale = np.zeros(N, dtype=np.int64)
        self.seat = 0
        self.rngs: list[np.random.Generator] | None = None
        self._fixed_adj = None if self.redraw_layout else self._adjacency(layout)
        self._fixed_detour = None if self.redraw_layout else self._detours(layout)

        # observation layout (offsets of the codec's blocks)
        off = self.codec.offset
        self._off = off
        self._agent_cols = off["agent_room"] + np.arange(A) * R  # + room
        self._cutter_rows = [off["cutters"] + np.flatnonzero(self.owns[a]) for a in range(A)]
        self._remaining_width = 1 + P * C
        # state layout
        sc = self.state_codec
        self._state_agent_cols = np.arange(A) * R
        self._state_bomb_base = A * R + np.arange(B) * sc.per_bomb
        self._state_tail = A * R + B * sc.per_bomb

    # -- the batch interface ------------------------------------------------------------------

    @property
    def acting(self) -> np.ndarray:
        """See :attr:`mase.batch.Batch.acting`."""
        self._check()
        return np.full(self.num_envs, self.seat, dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        """Reset every world; world ``n`` is seeded ``seed + n`` (``None``: its generator)."""
        if seed is not None:
            self.rngs = [seeding.np_random(seed + n)[0] for n in range(self.num_envs)]
        elif self.rngs is None:
            self.rngs = [seeding.np_random()[0] for _ in range(self.num_envs)]
        self.seat = 0
        if not self.redraw_layout:
            self.adj[:] = self._fixed_adj
            self.detour[:] = self._fixed_detour
        self._new_episodes(self._n)

    def observe(self, seat: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """See :meth:`mase.batch.Batch.observe`."""
        self._check()
        s = self.seat if seat is None else seat
        return self._observation(s), self._mask(s)

    def state(self) -> np.ndarray:
        """See :meth:`mase.batch.Batch.state`."""
        self._check()
        N, n = self.num_envs, self._n
        P, C, R = self.P, self.C, self.R
        sc = self.state_codec
        v = np.zeros((N, self.state_size), dtype=np.float32)
        flat = v.reshape(-1)
        row = (n * self.state_size)[:, None]
        base = self._state_bomb_base[None, :]
        index = [
            row + self._state_agent_cols[None, :] + self.pos,
            row + base + self.bomb_room,
            row + base + R + P * C + self.cut,
        ]
        slot = np.arange(P)[None, None, :]
        in_seq = self.seq >= 0
        seq_cols = row[:, :, None] + base[:, :, None] + R + slot * C + np.maximum(self.seq, 0)
        blown = row + base + R + P * C + P + 1
        flat[np.concatenate([i.ravel() for i in index])] = 1.0
        flat[seq_cols[in_seq]] = 1.0
        flat[blown[self.exploded]] = 1.0
        tail = self._state_tail
        v[:, tail] = np.minimum(self.round, sc.max_rounds) / sc.max_rounds
        v[:, tail + 1] = self.score / sc.max_score
        v[:, tail + 2 + self.seat] = 1.0
        return v

    def step(self, actions: np.ndarray) -> BatchStep:
        """See :meth:`mase.batch.Batch.step`."""
        self._check()
        x = action_indices(actions, self.num_envs)
        N, n, s, R = self.num_envs, self._n, self.seat, self.R
        rules = self.rules
        room = self.pos[:, s]
        code = np.full(N, -1, dtype=np.int64)

        out_of_range = (x < 0) | (x >= self.n_actions)
        code[out_of_range] = _INVALID["out_of_range"]
        go = (x >= 1) & (x <= R)
        dest = np.clip(x - 1, 0, R - 1)
        already = go & (dest == room)
        not_adjacent = go & ~already & ~self.adj[n, room, dest]
        moved = go & ~already & ~not_adjacent
        code[already] = _INVALID["already_there"]
        code[not_adjacent] = _INVALID["not_adjacent"]
        code[moved] = _MOVED

        bomb_id = self.room_bomb[n, room]
        b = np.maximum(bomb_id - 1, 0)
        cut_now = self.cut[n, b]
        live = (bomb_id > 0) & ~self.exploded[n, b] & (cut_now < self.phases[b])
        inspect = x == 0
        cutting = (x > R) & ~out_of_range
        at_bomb = inspect | cutting
        code[at_bomb & (bomb_id == 0)] = _INVALID["no_bomb"]
        code[at_bomb & (bomb_id > 0) & ~live] = _INVALID["bomb_done"]
        colour = np.clip(x - 1 - R, 0, self.C - 1)
        not_owned = cutting & live & ~self.owns[s, colour]
        code[not_owned] = _INVALID["not_owned"]
        inspected = inspect & live
        code[inspected] = _INSPECTED
        attempt = cutting & live & ~not_owned
        right = attempt & (self.seq[n, b, np.minimum(cut_now, self.P - 1)] == colour)
        wrong = attempt & ~right

        reward = np.zeros(N, dtype=np.float32)
        # a move
        self.pos[moved, s] = dest[moved]
        # what the seat learns (its last action's events): nothing but the code, unless...
        self.known_bomb[:, s] = -1
        self.known_phases[:, s] = False
        self.known_exploded[:, s] = False
        # ... an inspection: the phases and the colours left
        self._learn(s, inspected, b, cut_now, phases=True)
        # a right cut: one phase off, its points
        if right.any():
            self.cut[right, b[right]] += 1
            new_cut = self.cut[n, b]
            if rules.credit == "phase":
                points = np.where(right, world.POINTS_PER_PHASE, 0)
            else:
                points = np.where(
                    right & (new_cut == self.phases[b]), world.POINTS_PER_PHASE * self.phases[b], 0
                )
            self.score += points
            reward += points + (world.SHAPING_CORRECT_CUT if rules.shaping else 0.0) * right
            code[right] = _CUT
            self._learn(s, right, b, new_cut, phases=True)
        # a wrong cut: rejected, or the bomb explodes
        if rules.wrong_cutter == "reject":
            code[wrong] = _INVALID["wrong_colour"]
        elif wrong.any():
            self.exploded[wrong, b[wrong]] = True
            if rules.shaping:
                reward += world.SHAPING_EXPLOSION * wrong
            code[wrong] = _EXPLODED
            self.known_bomb[wrong, s] = b[wrong]
            self.known_exploded[wrong, s] = True

        self.last_code[:, s] = code
        # what the sentence about the action names: a colour, a room not next door, the way
        named = (code == _CUT) | (code == _EXPLODED) | (code == _INVALID["not_owned"])
        named |= code == _INVALID["wrong_colour"]
        self.last_colour[:, s] = np.where(named, colour, -1)
        self.last_target[:, s] = np.where(not_adjacent, dest, -1)
        self.last_detour[:, s] = np.where(not_adjacent, self.detour[n, room, dest], -1)
        self.invalid += code >= _INVALID[world.INVALID_REASONS[0]]
        self.turns += 1
        self.moves[:, s] = np.where(out_of_range, -1, x)

        rewards = np.repeat(reward[:, None], self.A, axis=1)
        terminated, truncated = np.zeros(N, dtype=bool), np.zeros(N, dtype=bool)
        metrics: dict[int, dict] = {}
        finals: dict[int, np.ndarray] = {}
        if s == self.A - 1:
            terminated, truncated, metrics, finals = self._end_round()
        self.seat = (s + 1) % self.A
        return BatchStep(rewards, terminated, truncated, metrics, finals)

    # -- the rules' bookkeeping ---------------------------------------------------------------

    def _learn(self, s: int, where: np.ndarray, b: np.ndarray, cut: np.ndarray, phases: bool):
        self.known_bomb[where, s] = b[where]
        self.known_phases[where, s] = phases
        self.known_cut[where, s] = cut[where]

    def _end_round(self) -> tuple[np.ndarray, np.ndarray, dict[int, dict], dict[int, np.ndarray]]:
        """Close the round in every world (the env's ``end_round`` and round limit).

        Returns the ends, the ended episodes' metrics and every seat's last view of them.
        """
        same_world = (
            (self.pos == self.start_pos).all(1)
            & (self.cut == self.start_cut).all(1)
            & (self.exploded == self.start_exploded).all(1)
        )
        same_moves = self.has_previous & (self.moves == self.previous_moves).all(1)
        self.stale = np.where(same_world, np.where(same_moves, self.stale + 1, 1), 0)
        self.previous_moves[:] = self.moves
        self.has_previous[:] = True
        self.start_pos[:], self.start_cut[:], self.start_exploded[:] = (
            self.pos, self.cut, self.exploded,
        )  # fmt: skip
        defused = self.cut == self.phases[None, :]
        done = (defused | self.exploded).all(1)
        deadlock = (
            ~done
            & (self.round < self.max_cycles)
            & (self.deadlock_rounds > 0)
            & (self.stale >= max(self.deadlock_rounds, 1))
        )
        limit = ~done & ~deadlock & (self.round >= self.max_cycles)
        terminated, truncated = done, deadlock | limit
        ended = terminated | truncated
        metrics: dict[int, dict] = {}
        finals: dict[int, np.ndarray] = {}
        if ended.any():
            worlds = np.flatnonzero(ended)
            views = np.stack([self._observation(s)[worlds] for s in range(self.A)], axis=1)
            finals = dict(zip(worlds.tolist(), views, strict=True))
            for k in worlds.tolist():
                if done[k]:
                    how = "defused" if defused[k].all() else "exploded"
                else:
                    how = "deadlock" if deadlock[k] else "round_limit"
                metrics[k] = self._metrics(k, how)
            self._new_episodes(worlds)
        self.round[~ended] += 1
        return terminated, truncated, metrics, finals

    def _metrics(self, k: int, ended_by: str) -> dict[str, Any]:
        """The ended episode's measures, as the env's ``metrics()``."""
        turns, invalid = int(self.turns[k]), int(self.invalid[k])
        return {
            "score": int(self.score[k]),
            "max_score": self.max_score,
            "rounds": int(self.round[k]),
            "valid_action_rate": 1.0 - invalid / turns if turns else 1.0,
            "invalid_actions": invalid,
            "turns": turns,
            "bombs_defused": int((self.cut[k] == self.phases).sum()),
            "bombs_exploded": int(self.exploded[k].sum()),
            "ended_by": ended_by,
        }

    def _new_episodes(self, worlds: np.ndarray) -> None:
        """The next episode of each world in ``worlds``, drawn as the env's ``new_episode``.

        The draws are :func:`.world.new_state`'s, call for call on the world's generator (the
        room order, each bomb's colours, the start room), without building its objects.
        """
        R, C = self.R, self.C
        phases = self.phases.tolist()
        for k in worlds.tolist():
            rng = self.rngs[k]
            if self.redraw_layout:
                layout = self.template._draw_layout(rng)
                self.adj[k] = self._adjacency(layout)
                self.detour[k] = self._detours(layout)
            rooms = rng.permutation(R)
            seq = self.seq[k]
            seq[:] = -1
            for j, n in enumerate(phases):
                seq[j, :n] = rng.permutation(C)[:n]
            self.pos[k] = rng.integers(R)
            placed = rooms[: self.B]
            self.bomb_room[k] = placed
            self.room_bomb[k] = 0
            self.room_bomb[k, placed] = np.arange(1, self.B + 1)
        self.cut[worlds] = 0
        self.exploded[worlds] = False
        self.round[worlds] = 1
        self.score[worlds] = 0
        self.turns[worlds] = 0
        self.invalid[worlds] = 0
        self.last_code[worlds] = -1
        self.last_colour[worlds] = -1
        self.last_target[worlds] = -1
        self.last_detour[worlds] = -1
        self.known_bomb[worlds] = -1
        self.known_phases[worlds] = False
        self.known_exploded[worlds] = False
        self.moves[worlds] = -1
        self.previous_moves[worlds] = -1
        self.has_previous[worlds] = False
        self.start_pos[worlds] = self.pos[worlds]
        self.start_cut[worlds] = 0
        self.start_exploded[worlds] = False
        self.stale[worlds] = 0

    def _detours(self, layout: world.Layout) -> np.ndarray:
        """``[room, goal]``: the index of the first room of a shortest way (``-1``: none)."""
        ri = self.room_index
        out = np.full((self.R, self.R), -1, dtype=np.int64)
        for start in layout.rooms:
            for goal in layout.rooms:
                room = detour_room(layout, start, goal)
                if room is not None:
                    out[ri[start], ri[goal]] = ri[room]
        return out

    def _adjacency(self, layout: world.Layout) -> np.ndarray:
        ri = self.room_index
        adj = np.zeros((self.R, self.R), dtype=bool)
        for room, others in layout.neighbours.items():
            for other in others:
                adj[ri[room], ri[other]] = True
        return adj

    # -- views --------------------------------------------------------------------------------

    def _mask(self, s: int) -> np.ndarray:
        n, R = self._n, self.R
        room = self.pos[:, s]
        mask = np.zeros((self.num_envs, self.n_actions), dtype=np.int8)
        mask[:, 1 : 1 + R] = self.adj[n, room]
        bomb_id = self.room_bomb[n, room]
        b = np.maximum(bomb_id - 1, 0)
        live = (bomb_id > 0) & ~self.exploded[n, b] & (self.cut[n, b] < self.phases[b])
        mask[:, 0] = live
        mask[:, 1 + R :] = live[:, None] & self.owns[s][None, :]
        return mask

    def _observation(self, s: int) -> np.ndarray:
        """Seat ``s``'s observation vector in every world (the codec's layout)."""
        N, n, R, P, C = self.num_envs, self._n, self.R, self.P, self.C
        off, D = self._off, self.observation_size
        v = np.zeros((N, D), dtype=np.float32)
        flat = v.reshape(-1)
        row = n * D
        room = self.pos[:, s]
        # own cutters
        flat[(row[:, None] + self._cutter_rows[s][None, :]).ravel()] = 1.0
        # where the agents are: all of them, or those in this room
        cols = row[:, None] + self._agent_cols[None, :] + self.pos
        seen = cols if self.see_teammates else cols[self.pos == room[:, None]]
        flat[seen.ravel()] = 1.0
        # the bomb here: its id, room and status
        bomb_id = self.room_bomb[n, room]
        flat[row + off["room_bomb"] + bomb_id] = 1.0
        here = bomb_id > 0
        b = np.maximum(bomb_id - 1, 0)
        flat[(row + off["bomb_room"] + b * R + room)[here]] = 1.0
        status = np.where(
            self.exploded[n, b],
            _BLOWN,
            np.where(self.cut[n, b] >= self.phases[b], _DEFUSED, _ACTIVE),
        )
        flat[(row + off["bomb_status"] + b * 3 + status)[here]] = 1.0
        # what its last action told it: the phase count, the colours left
        kb = self.known_bomb[:, s]
        known = kb >= 0
        k = np.maximum(kb, 0)
        phased = known & self.known_phases[:, s]
        flat[(row + off["bomb_phases"] + k * P + self.phases[k] - 1)[phased]] = 1.0
        base = row + off["bomb_remaining"] + k * self._remaining_width
        flat[base[known]] = 1.0
        slots = np.arange(P)[None, :]
        at = self.known_cut[:, s][:, None] + slots  # the sequence index of each slot
        colour = self.seq[n[:, None], k[:, None], np.minimum(at, P - 1)]
        left = (known & ~self.known_exploded[:, s])[:, None] & (at < self.phases[k][:, None])
        flat[(base[:, None] + 1 + slots * C + np.maximum(colour, 0))[left]] = 1.0
        # the last result, and what its sentence names
        code = self.last_code[:, s]
        flat[(row + off["last_result"] + code)[code >= 0]] = 1.0
        for name, named in (
            ("last_colour", self.last_colour[:, s]),
            ("last_target", self.last_target[:, s]),
            ("last_detour", self.last_detour[:, s]),
        ):
            flat[(row + off[name] + named)[named >= 0]] = 1.0
        # who the seat is, and the doors out of its room
        v[:, off["seat"] + s] = 1.0
        v[:, off["doors"] : off["doors"] + R] = self.adj[n, room]
        v[:, off["round"]] = self.round / self.codec.max_rounds
        v[:, off["score"]] = self.score / self.codec.max_score
        return v

    def _check(self) -> None:
        if self.rngs is None:
            raise ResetNeeded("call reset() before using the batch")
