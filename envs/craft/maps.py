"""The crafting world's maps: the fixed one and random ones on the same places.

A map is the part of a :class:`~mase.envs.craft.world.Layout` that says where things are:
the places and the paths between them, where each resource is gathered, where each station
stands.
"""

from __future__ import annotations

import numpy as np

from mase.envs.craft.recipes import Book
from mase.envs.craft.world import Layout

PLACES = ("village", "forest", "river", "meadow", "mine", "workshop")
#: Paths of the fixed map: the village is the hub; the workshop is a step from the forest and
#: the mine, two from the river and the meadow.
FIXED_PATHS = (
    ("village", "forest"),
    ("village", "river"),
    ("village", "meadow"),
    ("village", "workshop"),
    ("forest", "mine"),
    ("forest", "workshop"),
    ("river", "meadow"),
    ("mine", "workshop"),
)
#: Where each resource of the fixed map is gathered (cows for leather graze at the meadow).
FIXED_SOURCES = {
    "wood": "forest",
    "reed": "river",
    "leather": "meadow",
    "stone": "mine",
    "iron_ore": "mine",
}
FIXED_STATIONS = {"workbench": "workshop", "furnace": "workshop"}


def neighbours_of(places: tuple[str, ...], paths: tuple[tuple[str, str], ...]) -> dict:
    """Adjacency sets from a list of paths."""
    table: dict[str, set[str]] = {p: set() for p in places}
    for a, b in paths:
        table[a].add(b)
        table[b].add(a)
    return {p: frozenset(n) for p, n in table.items()}


def fixed_layout(book: Book, goal: str, agents: tuple[str, ...]) -> Layout:
    """The fixed map (:data:`FIXED_PATHS`, :data:`FIXED_SOURCES`, :data:`FIXED_STATIONS`)."""
    sources = {r: FIXED_SOURCES[r] for r in book.resources}
    stations = {s: FIXED_STATIONS[s] for s in book.stations}
    return Layout(PLACES, neighbours_of(PLACES, FIXED_PATHS), sources, stations, agents, book, goal)


def random_layout(
    book: Book, goal: str, agents: tuple[str, ...], rng: np.random.Generator
) -> Layout:
    """A random map on the same places.

    A random spanning tree plus extra paths (as many as the fixed map has), each resource at a
    random place other than the village, each station at a random place.
    """
    order = [PLACES[i] for i in rng.permutation(len(PLACES))]
    index = {p: i for i, p in enumerate(PLACES)}
    edges: set[tuple[str, str]] = set()
    for k in range(1, len(order)):
        other = order[int(rng.integers(k))]
        edges.add(tuple(sorted((order[k], other), key=index.get)))
    spare = [(a, b) for i, a in enumerate(PLACES) for b in PLACES[i + 1 :] if (a, b) not in edges]
    extra = max(0, len(FIXED_PATHS) - len(edges))
    for j in rng.choice(len(spare), size=extra, replace=False) if extra else ():
        edges.add(spare[int(j)])
    wild = PLACES[1:]
    sources = {r: wild[int(rng.integers(len(wild)))] for r in book.resources}
    stations = {s: PLACES[int(rng.integers(len(PLACES)))] for s in book.stations}
    paths = tuple(sorted(edges, key=lambda e: (index[e[0]], index[e[1]])))
    return Layout(PLACES, neighbours_of(PLACES, paths), sources, stations, agents, book, goal)
