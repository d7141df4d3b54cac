"""Menu design's vector view (:mod:`.vector` has the encodings and the blocks it ends with)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import MenuGame
from mase.envs.deliberation.profiles import ProfileCodec
from mase.envs.deliberation.vector import Codec, Names, index_of, one_hot, zero
from mase.layout import Block, VectorLayout


class MenuCodec(Codec):
    """Menu design's vector (:meth:`layout`), written by :meth:`pack`, read by :meth:`decode`."""

    def __init__(self, env: Any):
        super().__init__(env)
        games: list[MenuGame] = env.games
        self.semantic, self.full = env._semantic, env.full_observation
        self.d, self.s = env.n_dishes, env.n_stocked
        self.value_scale, self.unit_scale = env.value_scale, env.unit_scale
        self.dishes = Names([words.shown(x) for g in games for x in g.dishes])
        self.ingredients = Names([words.shown(x) for g in games for x in g.ingredients])
        self.units = int(max(g.recipes.max() for g in games)) + 1
        self.base = (len(self.ingredients.names) + 1) * self.units
        self.pairs = max(len(self._unstocked(g, i)) for g in games for i in range(len(g.dishes)))
        self.packed = (self.pairs + 1) // 2
        if self.semantic:
            self.profiles = ProfileCodec(p for g in games for seat in g.profiles for p in seat)
        most = max(float(np.mean(g.guest_values, axis=0).clip(0).sum()) for g in games)
        self.scales = np.array(
            [2 * self.unit_scale] * (2 * self.s) + [2 * self.value_scale] * (2 * self.d)
            + [2 * most], dtype=np.float64,
        )  # fmt: skip
        self.views = 2 if self.full else 1
        self._layout = VectorLayout(self._blocks())

    def _blocks(self) -> list[Block]:
        d, s, v = self.d, self.s, self.views
        blocks = [
            Block("round", 1, "(round - 1) / round_limit"),
            Block(
                "proposer",
                3,
                "who made the proposal on the table: none, this seat, the partner (one-hot)",
            ),
            Block("proposal", d, "the dishes of the proposal on the table (0/1 per dish slot)"),
            Block("dish_slots", d, "which dish slots this game has"),
            Block(
                "values",
                2 * d,
                "numeric level: this seat's guest's value of each dish, then (full "
                "observation) the other guest's, / value_scale",
            ),
            Block(
                "stock",
                2 * s,
                "this seat's units of each in-stock ingredient, then (full observation) "
                "the partner's, / unit_scale",
            ),
            Block("needs", d * s, "each dish's units of each in-stock ingredient / unit_scale"),
            Block("unstocked", d, "which dishes need an ingredient not in stock"),
            Block("dish_names", d, "each dish slot's name (a name)"),
            Block("stock_names", s, "each in-stock ingredient slot's name (a name)"),
            Block(
                "unstocked_needs",
                d * self.packed,
                f"each dish's (ingredient, units) pairs of the ingredients not in stock, "
                f"two a number (up to {self.pairs})",
            ),
        ]
        if self.profiles is not None:
            blocks.append(
                Block(
                    "profiles",
                    v * 2 * self.profiles.size,
                    "semantic level: the guests' descriptions as this seat (then, full "
                    "observation, the partner) sees them: presence and one value index per "
                    "field",
                )
            )
        return blocks + self.common_blocks(d, self.told_size)

    def layout(self) -> VectorLayout:
        """The blocks of every seat's vector."""
        return self._layout

    @staticmethod
    def _unstocked(game: MenuGame, dish: int) -> list[tuple[int, int]]:
        stocked = set(game.in_stock)
        return [(j, int(u)) for j, u in enumerate(game.recipes[dish])
                if u and game.ingredients[j] not in stocked]  # fmt: skip

    # -- writing ------------------------------------------------------------------------------

    def _item(self, game: MenuGame, name: str | None) -> float:
        index = [words.shown(x) for x in game.dishes].index(name) if name is not None else self.d
        return (index + 1) / (self.d + 2)

    def pack(self, env: Any, agent: str) -> np.ndarray:
        """``agent``'s vector now."""
        g, seat = env.game, env.seats.index(agent)
        d, s = self.d, self.s
        parts: dict[str, Any] = {}
        r = self.round_limit
        parts["round"] = [min(1.0, (min(env.round, r) - 1) / r)]
        who = 0 if env.current is None else (1 if env.current[0] == agent else 2)
        parts["proposer"] = np.eye(3)[who]
        proposal = np.zeros(d)
        for name in env.current[1] if env.current is not None else ():
            if name in g.dishes:
                proposal[g.dishes.index(name)] = 1.0
        parts["proposal"] = proposal
        parts["dish_slots"] = np.arange(d) < len(g.dishes)
        rows = (seat, 1 - seat) if self.full else (seat,)
        values = np.zeros((2, d))
        stock = np.zeros((2, s))
        for k, row in enumerate(rows):
            if not self.semantic:
                values[k, : len(g.dishes)] = g.guest_values[row] / self.value_scale
            stock[k, : len(g.in_stock)] = [g.shares[row][i] / self.unit_scale for i in g.in_stock]
        parts["values"], parts["stock"] = values, stock
        stocked = [g.ingredients.index(i) for i in g.in_stock]
        needs = np.zeros((d, s))
        needs[: len(g.dishes), : len(stocked)] = g.recipes[:, stocked] / self.unit_scale
        parts["needs"] = needs
        others = np.ones(len(g.ingredients), dtype=bool)
        others[stocked] = False
        parts["unstocked"] = np.arange(d) < 0
        parts["unstocked"][: len(g.dishes)] = (g.recipes[:, others] > 0).any(axis=1)
        parts["dish_names"] = [self.dishes.code(words.shown(x)) for x in g.dishes] + [0] * (
            d - len(g.dishes)
        )
        parts["stock_names"] = [self.ingredients.code(words.shown(x)) for x in g.in_stock] + [0] * (
            s - len(g.in_stock)
        )
        parts["unstocked_needs"] = self._pack_unstocked(g)
        if self.profiles is not None:
            parts["profiles"] = [
                self.profiles.encode(words.visible_profile(g.profiles[row][guest]))
                for row in rows
                for guest in (0, 1)
            ]
        self.pack_common(env, agent, parts, lambda x: self._item(g, x), d)
        return np.clip(self._layout.pack(parts), 0.0, 1.0)

    def _pack_unstocked(self, g: MenuGame) -> np.ndarray:
        out = np.zeros((self.d, self.packed))
        for i in range(len(g.dishes)):
            codes = [
                (self.ingredients.names.index(words.shown(g.ingredients[j])) + 1) * self.units + u
                for j, u in self._unstocked(g, i)
            ]
            codes += [0] * (2 * self.packed - len(codes))
            for k in range(self.packed):
                out[i, k] = (codes[2 * k] * self.base + codes[2 * k + 1]) / self.base**2
        return out

    # -- claims -------------------------------------------------------------------------------

    def claim_item(self, game: MenuGame, key: tuple) -> tuple[tuple, int] | None:
        """Stock of an in-stock ingredient by a seat, a guest's value of a dish, the proposal's."""
        kind, s, d = key[0], self.s, self.d
        if kind == "proposal_value":
            return ("proposal_value",), 2 * s + 2 * d
        if kind == "stock" and str(key[1]).lower() in self.seats:
            names = {words.fold(x): words.shown(x) for x in game.in_stock}
            name = names.get(words.fold(str(key[2])))
            if name is not None:
                seat = str(key[1]).lower()
                slot = self.seats.index(seat) * s + [words.shown(x) for x in game.in_stock].index(
                    name
                )
                return ("stock", seat, name), slot
        if kind == "value" and key[1] in (0, 1):
            names = {words.fold(x): words.shown(x) for x in game.dishes}
            name = names.get(words.fold(str(key[2])))
            if name is not None:
                slot = 2 * s + key[1] * d + [words.shown(x) for x in game.dishes].index(name)
                return ("value", key[1], name), slot
        return None

    def claim_key(self, slot: int, names: dict) -> tuple:
        """The fact of a speaker's claim number ``slot``."""
        s, d = self.s, self.d
        if slot < 2 * s:
            name = names["stock"][slot % s]
            if name is None:
                raise ValueError(f"a stock claim on an empty slot {slot % s}")
            return "stock", self.seats[slot // s], name
        if slot < 2 * s + 2 * d:
            guest, i = divmod(slot - 2 * s, d)
            if names["dishes"][i] is None:
                raise ValueError(f"a value claim on an empty dish slot {i}")
            return "value", guest, names["dishes"][i]
        return ("proposal_value",)

    # -- reading ------------------------------------------------------------------------------

    def decode(self, agent: str, vector: np.ndarray) -> dict:
        """The facts ``agent``'s vector holds (:mod:`.reading`'s keys)."""
        p = self._layout.split(np.asarray(vector, dtype=np.float64))
        seat, partner = agent, next(x for x in self.seats if x != agent)
        rnd = index_of(p["round"][0], self.round_limit) + 1
        if rnd > self.round_limit:
            raise ValueError(f"round {rnd} is past the round limit")
        facts: dict = {("round",): rnd}
        dishes = self._names(p["dish_names"], self.dishes)
        stocked = self._names(p["stock_names"], self.ingredients)
        names = {"dishes": dishes, "stock": stocked}
        if not np.array_equal(p["dish_slots"], [x is not None for x in dishes]):
            raise ValueError("dish_slots disagree with the dish names")
        listed = [x for x in dishes if x is not None]
        facts[("dishes",)] = tuple(listed)
        facts.update(self._decode_public(p, listed, [x for x in stocked if x is not None]))
        facts.update(self._decode_private(p, agent, partner, listed, stocked))
        facts.update(self.decode_common(p, names, lambda x: self._read_item(x, listed)))
        current = facts[("current",)]
        who = one_hot(p["proposer"])
        if (current is None) != (who == 0):
            raise ValueError("the proposer block disagrees with the proposal on the table")
        if current is not None:
            facts[("current",)] = (seat if who == 1 else partner, *current[1:])
            chosen = {listed.index(x) for x in current[2] if x is not None}
        else:
            chosen = set()
        if not np.array_equal(p["proposal"], [i in chosen for i in range(self.d)]):
            raise ValueError("the proposal block disagrees with the proposal on the table")
        return facts

    def _read_item(self, x: float, dishes: list[str]) -> str | None:
        k = index_of(x, self.d + 2)
        if k == 0 or len(dishes) < k <= self.d:
            raise ValueError(f"{x} names no dish slot")
        return None if k == self.d + 1 else dishes[k - 1]

    @staticmethod
    def _names(x: np.ndarray, names: Names) -> list[str | None]:
        out = [names.name(v) for v in x]
        first = out.index(None) if None in out else len(out)
        if any(n is not None for n in out[first:]):
            raise ValueError("a gap in the name slots")
        return out

    def _decode_public(self, p: dict, dishes: list[str], stocked: list[str]) -> dict:
        facts: dict = {}
        needs = p["needs"].reshape(self.d, self.s)
        packed = p["unstocked_needs"].reshape(self.d, self.packed)
        zero(needs[len(dishes) :], "needs")
        zero(needs[:, len(stocked) :], "needs")
        zero(packed[len(dishes) :], "unstocked_needs")
        zero(p["unstocked"][len(dishes) :], "unstocked")
        for i, dish in enumerate(dishes):
            for j, ingredient in enumerate(stocked):
                if needs[i, j]:
                    facts[("needs", dish, ingredient)] = float(needs[i, j] * self.unit_scale)
            pairs = self._unpack(packed[i])
            if p["unstocked"][i] != float(bool(pairs)):
                raise ValueError(f"dish {i}'s unstocked flag disagrees with its needs")
            for ingredient, units in pairs:
                if ingredient in stocked or ("needs", dish, ingredient) in facts:
                    raise ValueError(f"{ingredient} is listed twice in dish {i}'s needs")
                facts[("needs", dish, ingredient)] = float(units)
        return facts

    def _unpack(self, numbers: np.ndarray) -> list[tuple[str, int]]:
        codes = []
        for x in numbers:
            k = index_of(x, self.base**2)
            codes += [k // self.base, k % self.base]
        while codes and codes[-1] == 0:
            codes.pop()
        out = []
        for c in codes:
            ingredient, units = divmod(c, self.units)
            if ingredient == 0 or units == 0 or ingredient > len(self.ingredients.names):
                raise ValueError(f"{c} is no (ingredient, units) pair")
            out.append((self.ingredients.names[ingredient - 1], units))
        return out

    def _decode_private(
        self, p: dict, agent: str, partner: str, dishes: list[str], stocked: list
    ) -> dict:
        facts: dict = {}
        k = self.seats.index(agent)
        values = p["values"].reshape(2, self.d)
        stock = p["stock"].reshape(2, self.s)
        n_stocked = len([x for x in stocked if x is not None])
        for row, (holder, guest) in enumerate(((agent, k), (partner, 1 - k))):
            seen = row == 0 or self.full
            if not seen or self.semantic:
                zero(values[row], "values")
            else:
                zero(values[row, len(dishes) :], "values")
                for i, dish in enumerate(dishes):
                    facts[("value", guest, dish)] = float(values[row, i] * self.value_scale)
            if not seen:
                zero(stock[row], "stock")
                continue
            zero(stock[row, n_stocked:], "stock")
            for j in range(n_stocked):
                facts[("stock", holder, stocked[j])] = float(stock[row, j] * self.unit_scale)
        if self.profiles is not None:
            size = self.profiles.size
            views = p["profiles"].reshape(self.views, 2, size)
            for row, viewer in enumerate((agent, partner)[: self.views]):
                for guest in (0, 1):
                    profile = self.profiles.decode(views[row, guest])
                    if profile is None:
                        raise ValueError(f"the view of guest {guest} by {viewer} is missing")
                    facts[("profile", guest, viewer)] = profile
        return facts


def check_profiles(codec: MenuCodec, games: list[MenuGame]) -> None:
    """Raise ValueError where a game's description is one the codec cannot give back."""
    if codec.profiles is None:
        return
    for g in games:
        for seat in g.profiles:
            for profile in seat:
                visible = words.visible_profile(profile)
                if not codec.profiles.holds(visible):
                    raise ValueError(f"game {g.id}: a guest description the vector cannot hold")
