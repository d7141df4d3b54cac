"""The crafting world as numbers: the observation vector of one agent.

It encodes what the agent sees at the start of its turn (:func:`.world.view_facts`), the
same facts its text view states; what it saw teammates do since its last turn is in the text
only. All values lie in [0, 1]. Layout (P places, I items, R resources, S stations, A agents):

===============  =========  ==========================================================
block            size       meaning
===============  =========  ==========================================================
place            P          own place (one-hot)
inventory        I          own count of each item / 16, capped at 1
goal             I          the goal item (one-hot)
resources here   R          resources gathered at own place (multi-hot)
stations here    S          stations at own place (multi-hot)
teammates        A * P      each agent's place when seen (one-hot; zeros when not seen)
together         A          which agents are at own place
round            1          round / max_rounds
failed           1          own last action was invalid
===============  =========  ==========================================================
"""

from __future__ import annotations

import numpy as np

from mase.envs.craft.world import Layout, State

#: Inventory counts are scaled by this and capped at 1.
COUNT_SCALE = 16


class ObservationCodec:
    """Encode an agent's view of the world for one recipe book, team and set of places."""

    def __init__(self, layout: Layout, max_rounds: int):
        book = layout.book
        self.max_rounds = max_rounds
        self.places, self.items, self.agents = layout.places, book.items, layout.agents
        self.place_index = {p: i for i, p in enumerate(layout.places)}
        self.item_index = {item: i for i, item in enumerate(book.items)}
        n_places, n_items, n_agents = len(layout.places), len(book.items), len(layout.agents)
        sizes = {
            "place": n_places,
            "inventory": n_items,
            "goal": n_items,
            "resources": len(book.resources),
            "stations": len(book.stations),
            "teammates": n_agents * n_places,
            "together": n_agents,
            "round": 1,
            "failed": 1,
        }
        self.offset: dict[str, int] = {}
        total = 0
        for name, size in sizes.items():
            self.offset[name] = total
            total += size
        self.size = total

    def encode(self, state: State, agent: str, see_teammates: bool, failed: bool) -> np.ndarray:
        """The vector of ``agent``'s view of ``state``."""
        layout = state.layout
        book = layout.book
        off = self.offset
        vec = np.zeros(self.size, dtype=np.float32)
        here = state.positions[agent]
        vec[off["place"] + self.place_index[here]] = 1.0
        inventory = state.inventories[agent]
        counts = np.array([inventory[i] for i in self.items], dtype=np.float32)
        vec[off["inventory"] : off["inventory"] + len(self.items)] = np.minimum(
            counts / COUNT_SCALE, 1.0
        )
        vec[off["goal"] + self.item_index[layout.goal]] = 1.0
        for k, resource in enumerate(book.resources):
            if layout.sources[resource] == here:
                vec[off["resources"] + k] = 1.0
        for k, station in enumerate(book.stations):
            if layout.stations[station] == here:
                vec[off["stations"] + k] = 1.0
        n_places = len(self.places)
        for j, other in enumerate(self.agents):
            place = state.positions[other]
            if see_teammates or place == here:
                vec[off["teammates"] + j * n_places + self.place_index[place]] = 1.0
            if place == here:
                vec[off["together"] + j] = 1.0
        vec[off["round"]] = min(state.round / self.max_rounds, 1.0)
        vec[off["failed"]] = float(failed)
        return vec
