"""The crafting world's words for its things: items, stations, places and counts.

One table of names (:data:`ITEM_NAMES`) serves every sentence the task writes and every
reader: the fact sentences, the recipe book, the action parser.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mase.claims import NUMBER_WORDS as CLAIM_NUMBERS

#: item -> (singular, plural); a mass noun has the same word twice.
ITEM_NAMES = {
    "wood": ("wood", "wood"),
    "reed": ("reed", "reeds"),
    "leather": ("leather", "leather"),
    "stone": ("stone", "stone"),
    "iron_ore": ("iron ore", "iron ore"),
    "plank": ("plank", "planks"),
    "stick": ("stick", "sticks"),
    "paper": ("paper", "paper"),
    "book": ("book", "books"),
    "bookshelf": ("bookshelf", "bookshelves"),
    "wooden_pickaxe": ("wooden pickaxe", "wooden pickaxes"),
    "stone_pickaxe": ("stone pickaxe", "stone pickaxes"),
    "iron_ingot": ("iron ingot", "iron ingots"),
    "iron_pickaxe": ("iron pickaxe", "iron pickaxes"),
    "bucket": ("bucket", "buckets"),
}
#: Other words a reply may use for an item (read by the action parser only).
ITEM_ALIASES = {
    "wood": ("logs", "log", "trees", "tree"),
    "reed": ("sugar cane", "sugarcane"),
    "leather": ("cows", "cow", "hides", "hide"),
    "plank": ("wooden planks", "wood planks"),
    "iron_ore": ("iron",),
}
#: Counts in words: "a"/"an" and one to ten (the core's number words, :mod:`mase.claims`).
NUMBER_WORDS = {"a": 1, "an": 1, **{w: n for w, n in CLAIM_NUMBERS.items() if 1 <= n <= 10}}


def mass(item: str) -> bool:
    """Whether the item's name is a mass noun ("wood", "paper")."""
    singular, plural = ITEM_NAMES[item]
    return singular == plural


def count_text(item: str, count: int) -> str:
    """``"4 planks"``, ``"1 plank"``, ``"3 wood"``."""
    singular, plural = ITEM_NAMES[item]
    return f"{count} {singular if count == 1 else plural}"


def article(item: str) -> str:
    """``"a bookshelf"``, ``"an iron pickaxe"``, ``"paper"``."""
    name = ITEM_NAMES[item][0]
    if mass(item):
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def plural(item: str) -> str:
    """The plural name (the mass noun itself)."""
    return ITEM_NAMES[item][1]


def singular(item: str) -> str:
    """The singular name."""
    return ITEM_NAMES[item][0]


def craft_name(item: str, count: int) -> str:
    """How a recipe is named in a command: ``"planks"`` (makes 4), ``"book"`` (makes 1)."""
    return plural(item) if count > 1 else singular(item)


def listing(words: Iterable[str], last: str = "and") -> str:
    """``"a, b and c"``."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def the_places(places: Iterable[str]) -> str:
    """``"the forest, the mine and the workshop"``."""
    return listing(f"the {p}" for p in places)


def name_pattern(names: Iterable[str]) -> str:
    """A regex alternation of fixed names, longest first (so "planks" beats "plank")."""
    ordered = sorted(set(names), key=lambda n: (-len(n), n))
    return "(?:" + "|".join(re.escape(n).replace(r"\ ", r"\s++") for n in ordered) + ")"


def item_lookup(items: Iterable[str], aliases: bool = False) -> dict[str, str]:
    """Name (singular, plural, and aliases when asked) -> item, for the given items."""
    table: dict[str, str] = {}
    for item in items:
        for name in ITEM_NAMES[item]:
            table[name] = item
        if aliases:
            for name in ITEM_ALIASES.get(item, ()):
                table.setdefault(name, item)
    return table
