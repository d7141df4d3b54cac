"""The recipe books of the crafting world: items, recipes, tools, and what a goal takes.

A :class:`Book` is data: the resources that are gathered (and the tool each needs), and one
:class:`Recipe` per craftable item (its inputs, how many it makes, and the station it needs).
:func:`shortfall` is the bill of materials: what still has to be gathered and crafted to
hold some items, given a stock; the scripted team, the planner's bounds and the optional
reward shaping all read it. Nothing here knows about places or agents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from math import ceil


@dataclass(frozen=True)
class Recipe:
    """One way to make an item.

    Attributes:
        output: the item made.
        count: how many one craft makes.
        inputs: ``(item, quantity)`` pairs taken from the crafter's inventory.
        station: the station that must be at the crafter's place (``None``: anywhere).
    """

    output: str
    count: int
    inputs: tuple[tuple[str, int], ...]
    station: str | None = None


@dataclass(frozen=True)
class Book:
    """A recipe book: what can be gathered, what can be crafted, and the tools it takes.

    Attributes:
        name: the preset's name.
        resources: items gathered one at a time at their place, in action order.
        tools: resource -> the tool that must be in the gatherer's inventory (tools are kept).
        recipes: item -> its recipe, in action order.
        stations: the stations the recipes name, in order.
        items: every item, resources first, then crafted items in recipe order.
    """

    name: str
    resources: tuple[str, ...]
    tools: Mapping[str, str]
    recipes: Mapping[str, Recipe]
    stations: tuple[str, ...] = field(init=False)
    items: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        stations = []
        for recipe in self.recipes.values():
            if recipe.station is not None and recipe.station not in stations:
                stations.append(recipe.station)
        object.__setattr__(self, "stations", tuple(stations))
        object.__setattr__(self, "items", (*self.resources, *self.recipes))
        for item, recipe in self.recipes.items():
            if item != recipe.output or item in self.resources:
                raise ValueError(f"recipe {item!r} must make {item!r} and not be a resource")
            for needed, quantity in recipe.inputs:
                if needed not in self.items or quantity < 1:
                    raise ValueError(f"recipe {item!r} takes an unknown item {needed!r}")
        for resource, tool in self.tools.items():
            if resource not in self.resources or tool not in self.recipes:
                raise ValueError(f"gathering {resource!r} needs {tool!r}, which is not crafted")

    def closure(self, goal: str) -> tuple[str, ...]:
        """Every item that can matter for making ``goal`` (inputs and tools, recursively).

        In item order. The planner ignores every other item: having one changes nothing.
        """
        seen: set[str] = set()
        todo = [goal]
        while todo:
            item = todo.pop()
            if item in seen:
                continue
            seen.add(item)
            if item in self.recipes:
                todo.extend(needed for needed, _ in self.recipes[item].inputs)
            elif item in self.tools:
                todo.append(self.tools[item])
        return tuple(i for i in self.items if i in seen)


@dataclass(frozen=True)
class Needs:
    """What is still to be done to hold some items: gathers and crafts, by item.

    Attributes:
        gathers: resource -> how many to gather.
        crafts: item -> how many times to craft it.
    """

    gathers: Mapping[str, int]
    crafts: Mapping[str, int]

    @property
    def ops(self) -> int:
        """Gathers plus crafts: the actions it takes, not counting moves and gives."""
        return sum(self.gathers.values()) + sum(self.crafts.values())

    def __bool__(self) -> bool:
        return bool(self.gathers or self.crafts)


def shortfall(book: Book, stock: Mapping[str, int], demand: Mapping[str, int]) -> Needs:
    """What must be gathered and crafted to hold ``demand`` on top of using ``stock``.

    A bill of materials: items are netted against the stock from the top of the recipe graph
    down, each shortfall becomes whole crafts (a craft makes ``Recipe.count``), and their
    inputs join the demand. A resource whose tool is not in stock adds one tool to the
    demand (tools are not used up). The stock is treated as one pile; who holds what is the
    caller's business.
    """
    gross = {item: 0 for item in book.items}
    for item, quantity in demand.items():
        gross[item] += quantity
    gathers: dict[str, int] = {}
    crafts: dict[str, int] = {}
    for item in top_down(book):
        net = gross[item] - stock.get(item, 0)
        if net <= 0:
            continue
        if item in book.recipes:
            recipe = book.recipes[item]
            times = ceil(net / recipe.count)
            crafts[item] = times
            for needed, quantity in recipe.inputs:
                gross[needed] += times * quantity
        else:
            gathers[item] = net
            tool = book.tools.get(item)
            if tool is not None and gross[tool] < 1:
                gross[tool] = 1
    return Needs(
        {i: gathers[i] for i in book.items if i in gathers},
        {i: crafts[i] for i in book.items if i in crafts},
    )


def production_caps(book: Book, goal: str, n_agents: int) -> dict[str, int]:
    """The most of each item a plan without needless steps ever holds, team-wide.

    A gather whose unit is never used, a craft none of whose output is used, or a tool that no
    gather of its holder needs can be replaced by a wait: the rest of the plan still works
    (having fewer unused items stops no action), and it ends no later. In a plan with no such
    step the goal is crafted once, an item is crafted at most as often as units of it are
    used and gathered at most as often, and a tool is made at most once for each agent that
    gathers with it; items outside the goal's recipe tree are never made.
    """
    used = dict.fromkeys(book.items, 0)
    steps = dict.fromkeys(book.items, 0)
    caps: dict[str, int] = {}
    for item in top_down(book):
        times = 1 if item == goal else used[item]
        gatherers = sum(steps[r] for r, tool in book.tools.items() if tool == item)
        times += min(n_agents, gatherers)
        steps[item] = times
        if item in book.recipes:
            recipe = book.recipes[item]
            for needed, quantity in recipe.inputs:
                used[needed] += times * quantity
            caps[item] = times * recipe.count
        else:
            caps[item] = times
    return caps


def top_down(book: Book) -> tuple[str, ...]:
    """The items, each after every item whose recipe or gathering may need it."""
    found = book.__dict__.get("_top_down")
    if found is not None:
        return found
    users = _users(book)
    order: list[str] = []
    pending = list(book.items)
    while pending:
        for item in pending:
            if users[item] <= set(order):
                break
        else:
            raise ValueError(f"the recipes of {book.name!r} have a cycle")
        pending.remove(item)
        order.append(item)
    object.__setattr__(book, "_top_down", tuple(order))  # frozen: a cache, not a field
    return tuple(order)


def _users(book: Book) -> dict[str, set[str]]:
    """For each item, the items whose recipe or gathering may need it."""
    users: dict[str, set[str]] = {item: set() for item in book.items}
    for item, recipe in book.recipes.items():
        for needed, _ in recipe.inputs:
            users[needed].add(item)
    for resource, tool in book.tools.items():
        users[tool].add(resource)
    return users


# -- the presets --------------------------------------------------------------------------------

#: Minecraft's recipes for the paper's bookshelf and a few tools (counts as in the game).
DEFAULT = Book(
    name="default",
    resources=("wood", "reed", "leather", "stone", "iron_ore"),
    tools={"stone": "wooden_pickaxe", "iron_ore": "stone_pickaxe"},
    recipes={
        "plank": Recipe("plank", 4, (("wood", 1),)),
        "stick": Recipe("stick", 4, (("plank", 2),)),
        "paper": Recipe("paper", 3, (("reed", 3),), "workbench"),
        "book": Recipe("book", 1, (("paper", 3), ("leather", 1))),
        "bookshelf": Recipe("bookshelf", 1, (("plank", 6), ("book", 3)), "workbench"),
        "wooden_pickaxe": Recipe("wooden_pickaxe", 1, (("plank", 3), ("stick", 2)), "workbench"),
        "stone_pickaxe": Recipe("stone_pickaxe", 1, (("stone", 3), ("stick", 2)), "workbench"),
        "iron_ingot": Recipe("iron_ingot", 1, (("iron_ore", 1),), "furnace"),
        "iron_pickaxe": Recipe("iron_pickaxe", 1, (("iron_ingot", 3), ("stick", 2)), "workbench"),
        "bucket": Recipe("bucket", 1, (("iron_ingot", 3),), "workbench"),
    },
)

#: The same world with the smallest counts: the goals the exact planner solves quickly.
SMALL = Book(
    name="small",
    resources=("wood", "reed", "leather", "stone"),
    tools={"stone": "wooden_pickaxe"},
    recipes={
        "plank": Recipe("plank", 2, (("wood", 1),)),
        "paper": Recipe("paper", 1, (("reed", 1),), "workbench"),
        "book": Recipe("book", 1, (("paper", 1), ("leather", 1))),
        "bookshelf": Recipe("bookshelf", 1, (("plank", 2), ("book", 1)), "workbench"),
        "wooden_pickaxe": Recipe("wooden_pickaxe", 1, (("plank", 2),), "workbench"),
        "stone_pickaxe": Recipe("stone_pickaxe", 1, (("stone", 1), ("plank", 1)), "workbench"),
    },
)

#: Recipe presets by name (the env's ``recipes`` argument).
PRESETS: dict[str, Book] = {"default": DEFAULT, "small": SMALL}
