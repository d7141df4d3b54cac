"""Task allocation's vector view (:mod:`.vector` has the encodings and the blocks it ends with)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import AllocationGame
from mase.envs.deliberation.vector import Codec, Names, index_of, one_hot, zero
from mase.layout import Block, VectorLayout


class AllocationCodec(Codec):
    """The allocation vector: :meth:`layout`, written by :meth:`pack`, read by :meth:`decode`."""

    def __init__(self, env: Any):
        super().__init__(env)
        games: list[AllocationGame] = env.games
        self.full = env.full_observation
        self.m, self.np, self.npub = env.n_tasks, env.n_private, env.n_public
        self.value_scale, self.resource_scale = env.value_scale, env.resource_scale
        self.tasks = Names([t for g in games for t in g.tasks])
        self.resources = Names([r for g in games for r in (*g.private, *g.public)])
        self.width = self.m + self.np + self.npub  # one holder's numbers in a speaker's claims
        most = max(float(g.values.max(axis=0).clip(0).sum()) for g in games)
        per_holder = [2 * self.value_scale] * self.m + [2 * x for x in self.resource_scale]
        self.scales = np.array(per_holder * len(self.seats) + [2 * most], dtype=np.float64)
        self._layout = VectorLayout(self._blocks())

    def _blocks(self) -> list[Block]:
        n, m, slots = len(self.seats), self.m, self.np + self.npub
        return [
            Block("round", 1, "(round - 1) / round_limit"),
            Block(
                "proposer",
                n + 1,
                "who made the proposal on the table: none or a seat (one-hot)",
            ),
            Block("seat", n, "this seat (one-hot)"),
            Block(
                "proposal",
                m * (n + 1),
                "per task slot, its holder in the proposal on the table: unassigned or "
                "a seat (one-hot)",
            ),
            Block("task_slots", m, "which task slots this game has"),
            Block(
                "values",
                n * m,
                "each seat's value of each task / value_scale (this seat's only, unless "
                "full observation)",
            ),
            Block(
                "capacity",
                n * self.np,
                "each seat's private resources / resource scale (this seat's only, "
                "unless full observation)",
            ),
            Block(
                "shares",
                n * self.npub,
                "each seat's share of each public resource / resource scale (likewise)",
            ),
            Block(
                "costs",
                n * m * slots,
                "each seat's use of each resource slot (private, then public) by each "
                "task / resource scale",
            ),
            Block("task_names", m, "each task slot's name (a name)"),
            Block("resource_names", slots, "each resource slot's name (a name)"),
            *self.common_blocks(m, self.told_size),
        ]

    def layout(self) -> VectorLayout:
        """The blocks of every seat's vector."""
        return self._layout

    def _names_of(self, g: AllocationGame) -> list[str | None]:
        return [*g.private, *[None] * (self.np - len(g.private)), *g.public,
                *[None] * (self.npub - len(g.public))]  # fmt: skip

    # -- writing ------------------------------------------------------------------------------

    def _item(self, game: AllocationGame, pair: tuple) -> float:
        refs = [words.task_ref(i) for i in range(len(game.tasks))]
        n = len(self.seats)
        t = refs.index(pair[0]) if pair[0] is not None else self.m
        a = self.seats.index(pair[1]) if pair[1] is not None else n
        return (1 + t * (n + 1) + a) / ((self.m + 1) * (n + 1))

    def pack(self, env: Any, agent: str) -> np.ndarray:
        """``agent``'s vector now."""
        g, seat = env.game, env.seats.index(agent)
        n, m, r = len(self.seats), self.m, self.round_limit
        parts: dict[str, Any] = {"round": [min(1.0, (min(env.round, r) - 1) / r)]}
        who = 0 if env.current is None else 1 + self.seats.index(env.current[0])
        parts["proposer"] = np.eye(n + 1)[who]
        parts["seat"] = np.eye(n)[seat]
        proposal = np.zeros((m, n + 1))
        held = dict(env.current[1]) if env.current is not None else {}
        for t, task in enumerate(g.tasks):
            holder = held.get(task)
            proposal[t, 1 + self.seats.index(holder) if holder in self.seats else 0] = 1.0
        parts["proposal"] = proposal
        parts["task_slots"] = np.arange(m) < len(g.tasks)
        values, capacity = np.zeros((n, m)), np.zeros((n, self.np))
        shares = np.zeros((n, self.npub))
        for k in range(n) if self.full else [seat]:
            values[k, : len(g.tasks)] = g.values[k] / self.value_scale
            for j, res in enumerate(g.private):
                capacity[k, j] = g.capacity[k][res] / self.resource_scale[j]
            for j, res in enumerate(g.public):
                shares[k, j] = g.shares[k].get(res, 0.0) / self.resource_scale[self.np + j]
        parts["values"], parts["capacity"], parts["shares"] = values, capacity, shares
        names = self._names_of(g)
        costs = np.zeros((n, m, len(names)))
        for k in range(n):
            for t in range(len(g.tasks)):
                for j, res in enumerate(names):
                    if res is not None:
                        costs[k, t, j] = g.costs[k][t].get(res, 0.0) / self.resource_scale[j]
        parts["costs"] = costs
        parts["task_names"] = [self.tasks.code(t) for t in g.tasks] + [0] * (m - len(g.tasks))
        parts["resource_names"] = [self.resources.code(x) for x in names]
        self.pack_common(env, agent, parts, lambda pair: self._item(g, pair), m)
        return np.clip(self._layout.pack(parts), 0.0, 1.0)

    # -- claims -------------------------------------------------------------------------------

    def claim_item(self, game: AllocationGame, key: tuple) -> tuple[tuple, int] | None:
        """A seat's value of a task, its private resources or public shares; the proposal's."""
        kind = key[0]
        if kind == "proposal_value":
            return ("proposal_value",), len(self.scales) - 1
        if len(key) != 3 or str(key[1]).lower() not in self.seats:
            return None
        seat, name = str(key[1]).lower(), words.fold(str(key[2]))
        at = self.seats.index(seat) * self.width
        if kind == "task_value":
            refs = {words.fold(words.task_ref(i)): i for i in range(len(game.tasks))}
            refs.update({words.fold(t): i for i, t in enumerate(game.tasks)})
            if name in refs:
                return ("task_value", seat, words.task_ref(refs[name])), at + refs[name]
        for kind_, offset, names in (
            ("capacity", self.m, game.private),
            ("public_share", self.m + self.np, game.public),
        ):
            found = [j for j, x in enumerate(names) if words.fold(x) == name]
            if kind == kind_ and found:
                return (kind, seat, names[found[0]]), at + offset + found[0]
        return None

    def claim_key(self, slot: int, names: dict) -> tuple:
        """The fact of a speaker's claim number ``slot``."""
        if slot == len(self.scales) - 1:
            return ("proposal_value",)
        holder, at = divmod(slot, self.width)
        seat = self.seats[holder]
        if at < self.m:
            if at >= len(names["tasks"]):
                raise ValueError(f"a task value claim on an empty task slot {at}")
            return "task_value", seat, words.task_ref(at)
        kind = "capacity" if at < self.m + self.np else "public_share"
        res = names["resources"][at - self.m]
        if res is None:
            raise ValueError(f"a resource claim on an empty resource slot {at - self.m}")
        return kind, seat, res

    # -- reading ------------------------------------------------------------------------------

    def decode(self, agent: str, vector: np.ndarray) -> dict:
        """The facts ``agent``'s vector holds (:mod:`.reading`'s keys)."""
        p = self._layout.split(np.asarray(vector, dtype=np.float64))
        n, m = len(self.seats), self.m
        rnd = index_of(p["round"][0], self.round_limit) + 1
        if rnd > self.round_limit:
            raise ValueError(f"round {rnd} is past the round limit")
        if one_hot(p["seat"]) != self.seats.index(agent):
            raise ValueError(f"the seat block is not {agent}'s")
        facts: dict = {("round",): rnd}
        tasks = [self.tasks.name(x) for x in p["task_names"]]
        if None in tasks and any(tasks[tasks.index(None) :]):
            raise ValueError("a gap in the task slots")
        tasks = [t for t in tasks if t is not None]
        if not np.array_equal(p["task_slots"], np.arange(m) < len(tasks)):
            raise ValueError("task_slots disagree with the task names")
        facts[("tasks",)] = tuple(tasks)
        resources = [self.resources.name(x) for x in p["resource_names"]]
        facts.update(self._decode_numbers(p, agent, len(tasks), resources))
        names = {"tasks": tasks, "resources": resources}
        facts.update(self.decode_common(p, names, lambda x: self._read_item(x, len(tasks))))
        current = facts[("current",)]
        who = one_hot(p["proposer"])
        if (current is None) != (who == 0):
            raise ValueError("the proposer block disagrees with the proposal on the table")
        held: dict = {}
        if current is not None:
            facts[("current",)] = (self.seats[who - 1], *current[1:])
            held = {t: a for t, a in current[2] if t is not None}
        proposal = p["proposal"].reshape(m, n + 1)
        zero(proposal[len(tasks) :], "proposal")
        for t in range(len(tasks)):
            holder = held.get(words.task_ref(t))
            if one_hot(proposal[t]) != (0 if holder is None else 1 + self.seats.index(holder)):
                raise ValueError(f"the proposal block disagrees on task {t}")
        return facts

    def _read_item(self, x: float, n_tasks: int) -> tuple:
        n = len(self.seats)
        k = index_of(x, (self.m + 1) * (n + 1))
        if k == 0:
            raise ValueError("an empty pair")
        t, a = divmod(k - 1, n + 1)
        if t >= n_tasks and t != self.m:
            raise ValueError(f"{x} names an empty task slot")
        return (None if t == self.m else words.task_ref(t), None if a == n else self.seats[a])

    def _decode_numbers(self, p: dict, agent: str, n_tasks: int, resources: list) -> dict:
        n, m = len(self.seats), self.m
        facts: dict = {}
        values = p["values"].reshape(n, m)
        capacity = p["capacity"].reshape(n, self.np)
        shares = p["shares"].reshape(n, self.npub)
        private, public = resources[: self.np], resources[self.np :]
        for k, seat in enumerate(self.seats):
            if not self.full and seat != agent:
                for x, what in ((values[k], "values"), (capacity[k], "capacity"),
                                (shares[k], "shares")):  # fmt: skip
                    zero(x, what)
                continue
            zero(values[k, n_tasks:], "values")
            for t in range(n_tasks):
                facts[("task_value", seat, words.task_ref(t))] = float(
                    values[k, t] * self.value_scale
                )
            for j, res in enumerate(private):
                self._number(facts, ("capacity", seat, res), capacity[k, j], j)
            for j, res in enumerate(public):
                self._number(facts, ("public_share", seat, res), shares[k, j], self.np + j)
        costs = p["costs"].reshape(n, m, len(resources))
        zero(costs[:, n_tasks:], "costs")
        for k, seat in enumerate(self.seats):
            for t in range(n_tasks):
                for j, res in enumerate(resources):
                    x = costs[k, t, j]
                    if res is None:
                        zero(x, "costs")
                    elif x:
                        amount = float(x * self.resource_scale[j])
                        facts[("cost", seat, words.task_ref(t), res)] = amount
        return facts

    def _number(self, facts: dict, key: tuple, x: float, slot: int) -> None:
        if key[2] is None:
            zero(x, key[0])
        else:
            facts[key] = float(x * self.resource_scale[slot])
