"""The crafting world as numbers: the observation vector of one agent, and its decoder.

It encodes what the agent's text view states (:mod:`.text`): what it sees at the start of
its turn (:func:`.world.view_facts`), what it saw happen since its last turn, why its last
action failed, and what teammates' messages claimed. All values lie in [0, 1]. Layout (P
places, I items, R resources, S stations, A agents, C the count bound
:func:`count_bound`, G = :data:`.world.MAX_GIVE`, Q the largest input quantity of a recipe):

===============  ==========  ==========================================================
block            size        meaning
===============  ==========  ==========================================================
place            P           own place (one-hot)
inventory        I           own count of each item / 16, capped at 1
goal             I           the goal item (one-hot)
resources        R           resources gathered at own place (multi-hot)
stations         S           stations at own place (multi-hot)
teammates        A * P       each agent's place when seen (one-hot; zeros when not seen)
together         A           which agents are at own place
round            1           round / max_rounds
failed           1           own last action was invalid
counts           I           own count of each item / C (exact)
paths            P           the places one path from own place (multi-hot)
seen             A * E       per agent (turn order), what the agent saw it do since its
                             last turn (E = 6 + 2P + 2I + A + 2): the kind (move,
                             gather, craft, give, wait, failed; one-hot), the move's
                             origin and destination, the item gathered, crafted or
                             given, the recipient, the quantity / G, the actor's counts
                             of the items the event showed / C, the recipient's / C
failure          F           why own last action failed (F = 10 + 2P + 2I + A + 2): the
                             reason (the 9 codes of :data:`.world.INVALID_REASONS`, or
                             another; one-hot), the place it names (target, source or
                             station), the next place toward a target, the item, the
                             teammate, the quantity wanted / G, the quantity held / G,
                             the shortfall of each input / Q
told             (A-1) * M   per teammate (turn order, self left out), the facts its
                             messages claim (M = 2 + I + A*P + 2*A*I + R*P + S*P):
                             round (claimed, value / max_rounds), goal (one-hot),
                             each agent's place (one-hot), each agent's count of each
                             item (claimed, count / C), each resource's and station's
                             place (one-hot)
map_paths        P(P-1)/2    the map's paths as the rules text states them: one flag
                             per pair of places, in the places' order
map_sources      R * P       each resource's source (one-hot per resource)
map_stations     S * P       each station's place (one-hot per station)
===============  ==========  ==========================================================

The first nine blocks are the vector of the task's first release; the others follow them, so
an actor trained on the first release reads the same prefix. The map blocks hold what the
rules text (:func:`.text.rules_text`) tells each seat at the start, which changes with the
map on random maps (``layout="random"``); the resources, stations and paths blocks must agree
with them. :func:`decode` reads a vector
back into the fact keys :func:`.text.read_observation` reads from the text (and raises
``ValueError`` for a vector the encoder never writes). Bounds: a count is at most
:func:`count_bound` (no episode can reach more); a message's claim of a larger count, of a
round past the limit, or of an agent or item the game does not have is not read
(:meth:`ObservationCodec.readable`), in either view.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from mase.envs.craft.recipes import Book
from mase.envs.craft.world import INVALID_REASONS, MAX_GIVE, Layout, State
from mase.events import Event
from mase.layout import TOLD, Block, VectorLayout

#: The first release's inventory block scales counts by this and caps them at 1.
COUNT_SCALE = 16
#: What an agent can see another do since its last turn (the seen block's kinds, in order).
SEEN_KINDS = ("move", "gather", "craft", "give", "wait", "failed")
#: Why an action failed: the world's reasons, then any other (unreadable text, a bad index).
FAILURE_CODES = (*INVALID_REASONS, "other")


def count_bound(book: Book, n_agents: int, max_rounds: int) -> int:
    """The most of one item any agent can hold in an episode.

    Every turn adds at most ``g`` items to the team (a gather adds 1, a craft the items it
    makes less those it takes), and the team starts with none, so no count passes ``g`` times
    the turns of an episode.
    """
    gain = max([1, *(r.count - sum(q for _, q in r.inputs) for r in book.recipes.values())])
    return gain * n_agents * max_rounds


def _one_hot(n: int, index: int | None) -> np.ndarray:
    out = np.zeros(n, dtype=np.float32)
    if index is not None:
        out[index] = 1.0
    return out


def _which(values: np.ndarray, names: tuple[str, ...] | list[str], what: str) -> str | None:
    """The name a one-hot row marks, ``None`` for all zeros; ``ValueError`` otherwise."""
    hot = np.flatnonzero(values)
    if hot.size == 0:
        return None
    if hot.size > 1 or values[hot[0]] != 1.0:
        raise ValueError(f"the {what} block is not one-hot: {values.tolist()}")
    return names[int(hot[0])]


def _flags(values: np.ndarray, names: Iterable[str], what: str) -> list[str]:
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError(f"the {what} block is not 0/1: {values.tolist()}")
    return [name for name, v in zip(names, values, strict=True) if v == 1.0]


def _count(value: float, scale: int, what: str) -> int:
    count = round(float(value) * scale)
    if not 0 <= count <= scale or abs(count / scale - float(value)) > 1e-6:
        raise ValueError(f"{what} {value} is no count / {scale}")
    return count


class ObservationCodec:
    """Encode and decode an agent's view for one recipe book, team and set of places."""

    def __init__(self, layout: Layout, max_rounds: int):
        book = layout.book
        self.book, self.max_rounds = book, max_rounds
        self.places, self.items, self.agents = layout.places, book.items, layout.agents
        self.place_index = {p: i for i, p in enumerate(layout.places)}
        self.item_index = {item: i for i, item in enumerate(book.items)}
        self.agent_index = {a: i for i, a in enumerate(layout.agents)}
        self.bound = count_bound(book, len(layout.agents), max_rounds)
        self.most_input = max(q for r in book.recipes.values() for _, q in r.inputs)
        n_p, n_i, n_a = len(layout.places), len(book.items), len(layout.agents)
        n_r, n_s = len(book.resources), len(book.stations)
        self.seen_size = len(SEEN_KINDS) + 2 * n_p + 2 * n_i + n_a + 2
        self.failure_size = len(FAILURE_CODES) + 2 * n_p + 2 * n_i + n_a + 2
        self.told_size = 2 + n_i + n_a * n_p + 2 * n_a * n_i + n_r * n_p + n_s * n_p
        #: The pairs of places a path may join, in the places' order (the map_paths block).
        self.pairs = tuple(
            (a, b) for i, a in enumerate(layout.places) for b in layout.places[i + 1 :]
        )
        self._layouts: dict[str, VectorLayout] = {}
        self._map_of: tuple[Layout, np.ndarray] | None = None
        first = self.layout(layout.agents[0])
        self.size = first.size
        #: Where each block starts (the same for every agent).
        self.offset = {name: s.start for name, s in first.slices.items()}

    # -- the layout ----------------------------------------------------------------------------

    def layout(self, agent: str) -> VectorLayout:
        """``agent``'s vector, block by block (the same sizes for every agent)."""
        if agent in self._layouts:
            return self._layouts[agent]
        n_p, n_i, n_a = len(self.places), len(self.items), len(self.agents)
        book = self.book
        count = f"count / {self.bound}"
        blocks = [
            Block("place", n_p, "own place (one-hot)"),
            Block("inventory", n_i, f"own count of each item / {COUNT_SCALE}, capped at 1"),
            Block("goal", n_i, "the goal item (one-hot)"),
            Block("resources", len(book.resources), "resources gathered at own place"),
            Block("stations", len(book.stations), "stations at own place"),
            Block("teammates", n_a * n_p, "each agent's place when seen (one-hot per agent)"),
            Block("together", n_a, "which agents are at own place"),
            Block("round", 1, "round / max_rounds"),
            Block("failed", 1, "own last action was invalid"),
            Block(
                "counts", n_i, f"own count of each item, {count}",
                f"a count is at most {self.bound}, which no episode can pass",
            ),
            Block("paths", n_p, "the places one path from own place (multi-hot)"),
            Block(
                "seen", n_a * self.seen_size,
                "per agent, what this agent saw it do since its last turn: kind, origin, "
                f"destination, item, recipient, quantity / {MAX_GIVE}, the counts it showed",
                "one event per agent: each acts once between two turns of this agent",
            ),
            Block(
                "failure", self.failure_size,
                "why own last action failed: reason, place, next place, item, teammate, "
                f"quantities wanted and held / {MAX_GIVE}, shortfall / {self.most_input}",
            ),
            Block(
                "told", (n_a - 1) * self.told_size,
                "per teammate, the facts its messages claim: round, goal, places, counts, "
                "sources, stations",
                f"claims of counts over {self.bound}, rounds over {self.max_rounds}, or agents "
                "and items not in the game are not read, in either view",
            ),
            Block(
                "map_paths", len(self.pairs),
                "the map's paths, as the rules state them: one flag per pair of places",
            ),
            Block("map_sources", len(book.resources) * n_p, "each resource's source (one-hot)"),
            Block("map_stations", len(book.stations) * n_p, "each station's place (one-hot)"),
        ]  # fmt: skip
        layout = self._layouts[agent] = VectorLayout(blocks)
        return layout

    def mates(self, agent: str) -> tuple[str, ...]:
        """The told block's slots: the other agents, in turn order."""
        return tuple(a for a in self.agents if a != agent)

    def readable(self, key: tuple, value: Any) -> bool:
        """Whether the vector can hold a claimed fact (:meth:`CraftEnv.read_claims`)."""
        kind = key[0]
        if kind == "round":
            return 0 <= value <= self.max_rounds
        if kind == "goal":
            return value in self.item_index
        if kind == "place":
            return key[1] in self.agent_index
        if kind == "has":
            return key[1] in self.agent_index and key[2] in self.item_index and value <= self.bound
        return kind in ("source", "station")  # parse_facts reads only the book's

    # -- encoding ------------------------------------------------------------------------------

    def encode(
        self,
        state: State,
        agent: str,
        see_teammates: bool,
        failed: bool,
        inbox: Iterable[Event] = (),
        failure: tuple[str, dict] | None = None,
        claims: Mapping[str, Mapping[tuple, Any]] | None = None,
    ) -> np.ndarray:
        """The vector of ``agent``'s view of ``state``.

        Args:
            state: the world now.
            agent: whose view.
            see_teammates: the task's rule (every place seen, or those at own place).
            failed: whether the agent's last action was invalid.
            inbox: the events the agent saw since its last turn (messages are skipped).
            failure: the reason code of its last failed action and its fields
                (:func:`failure_fields`), when the inbox holds that failure.
            claims: per teammate, the facts its messages now listed claim (later wins).
        """
        layout, off = state.layout, self.offset
        n_p, n_i = len(self.places), len(self.items)
        here = state.positions[agent]
        vec = np.zeros(self.size, dtype=np.float32)
        vec[off["place"] + self.place_index[here]] = 1.0
        inventory = state.inventories[agent]
        counts = np.fromiter((inventory[i] for i in self.items), np.float32, n_i)
        vec[off["inventory"] : off["inventory"] + n_i] = np.minimum(counts / COUNT_SCALE, 1.0)
        vec[off["counts"] : off["counts"] + n_i] = counts / self.bound
        vec[off["goal"] + self.item_index[layout.goal]] = 1.0
        for k, resource in enumerate(self.book.resources):
            if layout.sources[resource] == here:
                vec[off["resources"] + k] = 1.0
        for k, station in enumerate(self.book.stations):
            if layout.stations[station] == here:
                vec[off["stations"] + k] = 1.0
        for j, other in enumerate(self.agents):
            place = state.positions[other]
            if see_teammates or place == here:
                vec[off["teammates"] + j * n_p + self.place_index[place]] = 1.0
            if place == here:
                vec[off["together"] + j] = 1.0
        vec[off["round"]] = min(state.round / self.max_rounds, 1.0)
        vec[off["failed"]] = float(failed)
        for place in layout.neighbours[here]:
            vec[off["paths"] + self.place_index[place]] = 1.0
        seen = vec[off["seen"] : off["seen"] + len(self.agents) * self.seen_size]
        self._seen(agent, inbox, seen.reshape(len(self.agents), self.seen_size))
        if failure is not None:
            vec[off["failure"] : off["failure"] + self.failure_size] = self._failure(failure)
        if claims:
            told = off["told"]
            vec[told : told + (len(self.agents) - 1) * self.told_size] = self._told(
                agent, claims
            ).ravel()
        vec[off["map_paths"] : off["map_stations"] + len(self.book.stations) * n_p] = self._map(
            layout
        )
        return vec

    def _map(self, layout: Layout) -> np.ndarray:
        """The map blocks: path flags, then each resource's and station's place.

        Made once per map: every observation of an episode holds the same blocks.
        """
        if self._map_of is not None and self._map_of[0] is layout:
            return self._map_of[1]
        joined = [float(b in layout.neighbours[a]) for a, b in self.pairs]
        n_p = len(self.places)
        where = [layout.sources[r] for r in self.book.resources]
        where += [layout.stations[s] for s in self.book.stations]
        blocks = np.concatenate(
            [np.asarray(joined, dtype=np.float32)]
            + [_one_hot(n_p, self.place_index[p]) for p in where]
        )
        self._map_of = (layout, blocks)
        return blocks

    def _seen(self, agent: str, inbox: Iterable[Event], out: np.ndarray) -> None:
        """Fill the seen block ``out`` (``[agent, row]``) from the inbox."""
        for event in inbox:
            if event.kind == "message" or (event.kind == "wait" and event.actor != agent):
                continue
            kind = "failed" if event.kind == "invalid" else event.kind
            row = out[self.agent_index[event.actor]]
            if row.any():
                raise ValueError(f"{event.actor} did two things since {agent}'s last turn")
            row[:] = self._event_row(kind, event)

    def _event_row(self, kind: str, event: Event) -> np.ndarray:
        n_p, n_i, n_a = len(self.places), len(self.items), len(self.agents)
        origin = dest = item = to = None
        n, shown, received = 0, {}, 0
        actor = event.actor
        if kind == "move":
            origin, dest = event.note, event.facts[("place", actor)]
        elif kind in ("gather", "craft"):
            item = event.note
        elif kind == "give":
            quantity, item, to = event.note.split(" ")
            n, received = int(quantity), event.facts[("has", to, item)]
        if kind in ("gather", "craft", "give"):
            shown = {k[2]: v for k, v in event.facts.items() if k[0] == "has" and k[1] == actor}
        actor_counts = np.zeros(n_i, dtype=np.float32)
        for name, value in shown.items():
            actor_counts[self.item_index[name]] = value / self.bound
        return np.concatenate([
            _one_hot(len(SEEN_KINDS), SEEN_KINDS.index(kind)),
            _one_hot(n_p, None if origin is None else self.place_index[origin]),
            _one_hot(n_p, None if dest is None else self.place_index[dest]),
            _one_hot(n_i, None if item is None else self.item_index[item]),
            _one_hot(n_a, None if to is None else self.agent_index[to]),
            [n / MAX_GIVE], actor_counts, [received / self.bound],
        ])  # fmt: skip

    def _failure(self, failure: tuple[str, dict] | None) -> np.ndarray:
        n_p, n_i, n_a = len(self.places), len(self.items), len(self.agents)
        if failure is None:
            return np.zeros(self.failure_size, dtype=np.float32)
        code, fields = failure
        place = fields.get("target", fields.get("source", fields.get("station_at")))
        item = fields.get("resource", fields.get("item"))
        short = np.zeros(n_i, dtype=np.float32)
        for name, n in fields.get("short", ()):
            short[self.item_index[name]] = n / self.most_input
        return np.concatenate([
            _one_hot(len(FAILURE_CODES), FAILURE_CODES.index(code)),
            _one_hot(n_p, None if place is None else self.place_index[place]),
            _one_hot(n_p, None if "via" not in fields else self.place_index[fields["via"]]),
            _one_hot(n_i, None if item is None else self.item_index[item]),
            _one_hot(n_a, None if "to" not in fields else self.agent_index[fields["to"]]),
            [fields.get("want", 0) / MAX_GIVE], [fields.get("have", 0) / MAX_GIVE], short,
        ])  # fmt: skip

    def _told_parts(self, row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Views of a told row past its round and goal: places, counts and the map.

        Places ``[agent, place]``, counts ``[agent, item, (claimed, count)]``, the map
        ``[resource or station, place]``.
        """
        n_p, n_i, n_a = len(self.places), len(self.items), len(self.agents)
        at = 2 + n_i
        places = row[at : at + n_a * n_p].reshape(n_a, n_p)
        at += n_a * n_p
        has = row[at : at + 2 * n_a * n_i].reshape(n_a, n_i, 2)
        return places, has, row[at + 2 * n_a * n_i :].reshape(-1, n_p)

    def _told(self, agent: str, claims: Mapping[str, Mapping[tuple, Any]]) -> np.ndarray:
        n_p = len(self.places)
        book = self.book
        mates = self.mates(agent)
        out = np.zeros((len(mates), self.told_size), dtype=np.float32)
        for slot, sender in enumerate(mates):
            row = out[slot]
            places, has, maps = self._told_parts(row)
            for key, value in claims.get(sender, {}).items():
                kind = key[0]
                if kind == "round":
                    row[0:2] = 1.0, value / self.max_rounds
                elif kind == "goal":
                    row[2 + self.item_index[value]] = 1.0
                elif kind == "place":
                    places[self.agent_index[key[1]]] = _one_hot(n_p, self.place_index[value])
                elif kind == "has":
                    has[self.agent_index[key[1]], self.item_index[key[2]]] = 1.0, value / self.bound
                elif kind == "source":
                    maps[book.resources.index(key[1])] = _one_hot(n_p, self.place_index[value])
                else:  # station
                    where = len(book.resources) + book.stations.index(key[1])
                    maps[where] = _one_hot(n_p, self.place_index[value])
        return out

    # -- decoding ------------------------------------------------------------------------------

    def decode(self, agent: str, vector: np.ndarray) -> dict:
        """The facts ``agent``'s vector holds, keyed as :func:`.text.read_observation` reads.

        Raises:
            ValueError: the vector is not one :meth:`encode` writes (a block disagrees with
                itself or another).
        """
        parts = self.layout(agent).split(np.asarray(vector, dtype=np.float32))
        n_p = len(self.places)
        facts: dict = {}
        here = _which(parts["place"], self.places, "place")
        if here is None:
            raise ValueError("the place block is empty")
        round_ = _count(parts["round"][0], self.max_rounds, "round")
        facts[("round",)] = round_
        facts[("goal",)] = _which(parts["goal"], self.items, "goal")
        if facts[("goal",)] is None:
            raise ValueError("the goal block is empty")
        teammates = parts["teammates"].reshape(len(self.agents), n_p)
        together = []
        for j, other in enumerate(self.agents):
            place = _which(teammates[j], self.places, f"{other}'s place")
            if place is not None:
                facts[("place", other)] = place
            together.append(float(place == here))
        if facts.get(("place", agent)) != here or not np.array_equal(parts["together"], together):
            raise ValueError("the place, teammates and together blocks disagree")
        counts = [_count(v, self.bound, "a count") for v in parts["counts"]]
        capped = np.minimum(np.asarray(counts, dtype=np.float32) / COUNT_SCALE, 1.0)
        if not np.allclose(parts["inventory"], capped, atol=1e-6):
            raise ValueError("the inventory and counts blocks disagree")
        for item, n in zip(self.items, counts, strict=True):
            facts[("has", agent, item)] = n
        facts.update(self._decode_map(parts, here))
        seen = parts["seen"].reshape(len(self.agents), self.seen_size)
        for j, actor in enumerate(self.agents):
            facts.update(self._decode_event(actor, seen[j]))
        own = facts.get(("saw", agent))
        if parts["failed"][0] not in (0.0, 1.0) or bool(parts["failed"][0]) != (own == ("failed",)):
            raise ValueError("the failed and seen blocks disagree")
        failure = self._decode_failure(parts["failure"], facts[("paths",)])
        if bool(failure) != (own == ("failed",)):
            raise ValueError("the failure and seen blocks disagree")
        facts.update(failure)
        told = parts["told"].reshape(-1, self.told_size)
        for slot, sender in enumerate(self.mates(agent)):
            facts.update(self._decode_told(sender, told[slot]))
        return facts

    def _decode_map(self, parts: dict[str, np.ndarray], here: str) -> dict:
        """The map's facts, and what of it is at own place (which must agree with it)."""
        n_p = len(self.places)
        book = self.book
        edges = frozenset(_flags(parts["map_paths"], self.pairs, "map_paths"))
        facts: dict = {("map",): edges}
        rows = np.concatenate([parts["map_sources"], parts["map_stations"]]).reshape(-1, n_p)
        names = [("source", r) for r in book.resources] + [("station", s) for s in book.stations]
        for key, row in zip(names, rows, strict=True):
            place = _which(row, self.places, f"{key[1]}'s place")
            if place is None:
                raise ValueError(f"the map places no {key[1]}")
            facts[key] = place
        doors = frozenset(b if a == here else a for a, b in edges if here in (a, b))
        facts[("paths",)] = frozenset(_flags(parts["paths"], self.places, "paths"))
        local = [facts[("source", r)] == here for r in book.resources]
        stations = [facts[("station", s)] == here for s in book.stations]
        if (
            facts[("paths",)] != doors
            or _flags(parts["resources"], book.resources, "resources")
            != [r for r, at in zip(book.resources, local, strict=True) if at]
            or _flags(parts["stations"], book.stations, "stations")
            != [s for s, at in zip(book.stations, stations, strict=True) if at]
        ):
            raise ValueError("what is at own place disagrees with the map")
        return facts

    def _decode_event(self, actor: str, row: np.ndarray) -> dict:
        n_p, n_i, n_a = len(self.places), len(self.items), len(self.agents)
        kind = _which(row[: len(SEEN_KINDS)], SEEN_KINDS, "seen kind")
        if kind is None:
            if row.any():
                raise ValueError(f"an empty seen row of {actor} holds numbers")
            return {}
        at = len(SEEN_KINDS)
        origin = _which(row[at : at + n_p], self.places, "origin")
        dest = _which(row[at + n_p : at + 2 * n_p], self.places, "destination")
        item = _which(row[at + 2 * n_p : at + 2 * n_p + n_i], self.items, "item")
        to = _which(row[at + 2 * n_p + n_i : at + 2 * n_p + n_i + n_a], self.agents, "recipient")
        at += 2 * n_p + n_i + n_a
        n = _count(row[at], MAX_GIVE, "a quantity")
        shown_counts = row[at + 1 : at + 1 + n_i]
        received = _count(row[at + 1 + n_i], self.bound, "a count")
        needs = {"move": (origin, dest), "gather": (item,), "craft": (item,), "give": (item, to)}
        if None in needs.get(kind, ()) or (kind == "craft" and item not in self.book.recipes):
            raise ValueError(f"{actor}'s seen row lacks what a {kind} names")
        facts: dict = {}
        shown: tuple[str, ...] = ()
        if kind == "move":
            facts[("saw", actor)] = ("move", origin, dest)
            facts[("saw", actor, "place", actor)] = dest
        elif kind == "gather":
            facts[("saw", actor)] = ("gather", item, 1)
            shown = (item,)
        elif kind == "craft":
            recipe = self.book.recipes[item]
            facts[("saw", actor)] = ("craft", item, recipe.count)
            shown = (*(i for i, _ in recipe.inputs), item)
        elif kind == "give":
            facts[("saw", actor)] = ("give", item, to, n)
            facts[("saw", actor, "has", to, item)] = received
            shown = (item,)
        else:
            facts[("saw", actor)] = (kind,)
        for name in shown:
            count = _count(shown_counts[self.item_index[name]], self.bound, "a count")
            facts[("saw", actor, "has", actor, name)] = count
        expected = self._event_row(kind, _event_of(actor, facts, self.book))
        if not np.allclose(expected, row, atol=1e-6):
            raise ValueError(f"{actor}'s seen row is not one the encoder writes")
        return facts

    def _decode_failure(self, row: np.ndarray, paths: frozenset) -> dict:
        n_p, n_i, n_a = len(self.places), len(self.items), len(self.agents)
        code = _which(row[: len(FAILURE_CODES)], FAILURE_CODES, "failure code")
        if code is None:
            if row.any():
                raise ValueError("an empty failure block holds numbers")
            return {}
        at = len(FAILURE_CODES)
        place = _which(row[at : at + n_p], self.places, "failure place")
        via = _which(row[at + n_p : at + 2 * n_p], self.places, "next place")
        item = _which(row[at + 2 * n_p : at + 2 * n_p + n_i], self.items, "failure item")
        to = _which(row[at + 2 * n_p + n_i : at + 2 * n_p + n_i + n_a], self.agents, "teammate")
        at += 2 * n_p + n_i + n_a
        want, have = _count(row[at], MAX_GIVE, "want"), _count(row[at + 1], MAX_GIVE, "have")
        short = tuple(
            (name, n)
            for name, v in zip(self.items, row[at + 2 :], strict=True)
            if (n := _count(v, self.most_input, "a shortfall"))
        )
        fields = failure_fields_of(code, place, via, item, to, want, have, short)
        if not np.allclose(self._failure((code, fields)), row, atol=1e-6):
            raise ValueError("the failure block is not one the encoder writes")
        facts = {("failure", k): v for k, v in fields.items()}
        facts[("failure", "code")] = code
        if code == "not_adjacent":
            facts[("failure", "doors")] = paths
        if code == "needs_tool":
            facts[("failure", "tool")] = self.book.tools.get(item)
        return facts

    def _decode_told(self, sender: str, row: np.ndarray) -> dict:
        n_i = len(self.items)
        book = self.book
        claims: dict = {}
        if row[0] == 1.0:
            claims[("round",)] = _count(row[1], self.max_rounds, "a claimed round")
        elif row[0] != 0.0 or row[1] != 0.0:
            raise ValueError("an unclaimed round holds numbers")
        goal = _which(row[2 : 2 + n_i], self.items, "claimed goal")
        if goal is not None:
            claims[("goal",)] = goal
        places, has, maps = self._told_parts(row)
        for j, other in enumerate(self.agents):
            place = _which(places[j], self.places, "claimed place")
            if place is not None:
                claims[("place", other)] = place
        for j, other in enumerate(self.agents):
            for k, item in enumerate(self.items):
                flag, value = has[j, k]
                if flag == 1.0:
                    claims[("has", other, item)] = _count(value, self.bound, "a claimed count")
                elif flag != 0.0 or value != 0.0:
                    raise ValueError("an unclaimed count holds numbers")
        names = [("source", r) for r in book.resources] + [("station", s) for s in book.stations]
        for key, values in zip(names, maps, strict=True):
            place = _which(values, self.places, "claimed place")
            if place is not None:
                claims[key] = place
        return {(TOLD, sender, *key): value for key, value in claims.items()}


def _event_of(actor: str, facts: dict, book: Book) -> Event:
    """The event a decoded seen row stands for (enough of it to encode the row again)."""
    kind, *args = facts[("saw", actor)]
    shown = {k[2:]: v for k, v in facts.items() if k[:2] == ("saw", actor) and len(k) > 2}
    if kind == "move":
        return Event("move", actor, {("place", actor): args[1]}, frozenset(), 0, note=args[0])
    if kind == "give":
        item, to, n = args
        return Event("give", actor, shown, frozenset(), 0, note=f"{n} {item} {to}")
    if kind in ("gather", "craft"):
        return Event(kind, actor, shown, frozenset(), 0, note=args[0])
    return Event("invalid" if kind == "failed" else kind, actor, {}, frozenset(), 0)


#: Which fields each reason states (the others are zero in the failure block).
FAILURE_FIELDS = {
    "already_there": ("target",),
    "not_adjacent": ("target", "via"),
    "not_here": ("resource", "source"),
    "needs_tool": ("resource",),
    "no_station": ("item", "station_at"),
    "missing_inputs": ("item", "short"),
    "self_give": (),
    "not_together": ("to",),
    "not_enough": ("item", "have", "want"),
    "other": (),
}


def failure_fields_of(
    code: str, place: str | None, via: str | None, item: str | None, to: str | None,
    want: int, have: int, short: tuple,
) -> dict:  # fmt: skip
    """The fields of a reason from the failure block's parts (those the reason states)."""
    values = {
        "target": place, "via": via, "resource": item, "source": place, "item": item,
        "station_at": place, "short": short, "to": to, "have": have, "want": want,
    }  # fmt: skip
    return {name: values[name] for name in FAILURE_FIELDS[code]}


def failure_fields(layout: Layout, state: State, agent: str, code: str, action: int) -> dict:
    """What the reason for ``agent``'s failed ``action`` states (:func:`.text.explain`)."""
    kind, *args = layout.actions[action]
    inventory = state.inventories[agent]
    if kind == "move":
        target = args[0]
        if code == "not_adjacent":
            return {"target": target, "via": layout.next_hop(state.positions[agent], target)}
        return {"target": target}
    if kind == "gather":
        fields = {"resource": args[0]}
        if code == "not_here":
            fields["source"] = layout.sources[args[0]]
        return fields
    if kind == "craft":
        recipe = layout.book.recipes[args[0]]
        if code == "no_station":
            return {"item": args[0], "station_at": layout.stations[recipe.station]}
        short = tuple((i, n - inventory[i]) for i, n in recipe.inputs if inventory[i] < n)
        order = {i: k for k, i in enumerate(layout.book.items)}
        return {"item": args[0], "short": tuple(sorted(short, key=lambda p: order[p[0]]))}
    item, to, n = args
    if code == "not_together":
        return {"to": to}
    if code == "not_enough":
        return {"item": item, "have": inventory[item], "want": n}
    return {}
