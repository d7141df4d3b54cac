"""Reading a reply into a crafting action, strictly, with a reason when it names none.

:func:`parse_action` reads the commands the rules teach ("move to the mine", "gather wood",
"craft planks", "give 2 planks to Bravo", "wait") and free phrasings of them ("go to the
mine", "Gather some wood", "craft 1 plank", "hand Bravo the books"). A reply that names
several different actions, an unknown place, item or teammate, a count the rules do not allow
("gather 3 wood": gathering gives one at a time), or an action that is illegal now is refused
with a sentence the agent can act on. Every pattern runs in linear time (possessive
quantifiers: a run of spaces is read once).
"""

from __future__ import annotations

import re

from mase.actions import ActionParse
from mase.envs.craft import text as words
from mase.envs.craft.names import (
    ITEM_ALIASES,
    ITEM_NAMES,
    NUMBER_WORDS,
    count_text,
    craft_name,
    item_lookup,
    name_pattern,
    plural,
)
from mase.envs.craft.world import MAX_GIVE, Layout, State, invalid_reason

_ALL_NAMES = item_lookup(ITEM_NAMES, aliases=True)
_ITEM = "(" + name_pattern([*_ALL_NAMES, *(a for names in ITEM_ALIASES.values() for a in names)])
_ITEM += r")\b"
_QTY = r"(?:(\d++|an?|one|two|three|four|five|six|seven|eight|nine|ten|all|some|more|another)\s++)?"
_FILL = r"(?:(?:of|the|my|your|up)\s++)*+"

_MOVE = re.compile(
    r"\b(?:go|goes|going|went|move[sd]?|moving|walk\w*+|head\w*+|travel\w*+|return\w*+|run"
    r"|runs|proceed\w*+)\b(?:\s++(?:back|over|on|straight|now))?"
    r"(?:\s++(?:to|into|towards?))?\s++(?:the\s++)?([a-z]++)"
)
_GATHER = re.compile(
    r"\b(?:gather\w*+|collect\w*+|get|gets|getting|harvest\w*+|chop\w*+|mine|mines|mining"
    r"|pick|picks|picking|hunt\w*+|fetch\w*+|cut|cutting|grab\w*+|dig|digs|digging)\b\s++"
    + _QTY
    + _FILL
    + _ITEM
)
_CRAFT = re.compile(
    r"\b(?:craft\w*+|make|makes|making|build\w*+|create[sd]?|creating|smelt\w*+|forge[sd]?"
    r"|forging|assemble[sd]?|assembling|produce[sd]?|producing|cook\w*+)\b\s++"
    + _QTY
    + _FILL
    + _ITEM
)
_GIVE_VERB = r"\b(?:give|gives|giving|hand|hands|handing|pass|passes|passing|send|sends|sending"
_GIVE = re.compile(
    _GIVE_VERB
    + r"|deliver\w*+|transfer\w*+)\b(?:\s++over)?\s++"
    + _QTY
    + _FILL
    + _ITEM
    + r"(?:\s++over)?\s++to\s++([a-z]++)"
)
_GIVE_TO = re.compile(_GIVE_VERB + r")\b\s++([a-z]++)\s++" + _QTY + _FILL + _ITEM)
_WAIT = re.compile(r"\b(?:wait\w*+|stay\w*+|idle|rest|skip|pause)\b|\bdo\s++nothing\b")

#: Counts a gather or a craft may name without naming more than one action.
_ONE = frozenset(("a", "an", "one", "some", "more", "another", "1"))

EXAMPLES = "'move to the forest', 'gather wood', 'craft planks', 'give 2 planks to Bravo' or 'wait'"


def _name(text: str) -> str:
    return " ".join(text.split())


def _count(word: str | None) -> int | None:
    """A count word as a number; ``None`` for none, "all" and the like; -1 when too long."""
    if word is None or word in ("all", "some", "more"):
        return None
    if word.isdigit():
        return int(word) if len(word) <= 9 else -1
    return NUMBER_WORDS.get(word, 1)


def parse_action(layout: Layout, state: State, agent: str, text: str) -> ActionParse:
    """Read the action part of a reply; return the legal action it names, or why none.

    ``TaskEnv.read_action`` hands it the action part of a whole reply (the message parts cut
    off, ``Action selection:`` dropped).
    """
    lowered = re.sub(r"[_\-]", " ", text.lower())
    book = layout.book
    candidates: dict[int, str] = {}
    problems: list[str] = []

    for m in _MOVE.finditer(lowered):
        place = m.group(1)
        if place in layout.places:
            candidates.setdefault(layout.action_index("move", place), m.group(0))
        else:
            problems.append(f"there is no place called '{place[:20]}' ({', '.join(layout.places)})")
    for m in _GATHER.finditer(lowered):
        item = _ALL_NAMES[_name(m.group(2))]
        if item not in book.items:
            problems.append(f"there are no {plural(item)} in this recipe book")
        elif item not in book.resources:
            problems.append(
                f"{plural(item)} cannot be gathered; craft them "
                f"('craft {craft_name(item, book.recipes[item].count)}')"
            )
        elif m.group(1) is not None and m.group(1) not in _ONE:
            problems.append(f"you gather one at a time; say 'gather {plural(item)}'")
        else:
            candidates.setdefault(layout.action_index("gather", item), m.group(0))
    for m in _CRAFT.finditer(lowered):
        item = _ALL_NAMES[_name(m.group(2))]
        if item not in book.items:
            problems.append(f"there are no {plural(item)} in this recipe book")
            continue
        if item not in book.recipes:
            problems.append(f"{plural(item)} is gathered, not crafted ('gather {plural(item)}')")
            continue
        recipe = book.recipes[item]
        count = m.group(1)
        if count is not None and count not in _ONE and _count(count) != recipe.count:
            problems.append(
                f"one craft makes {words.recipe_text(recipe)}; say "
                f"'craft {craft_name(item, recipe.count)}'"
            )
            continue
        candidates.setdefault(layout.action_index("craft", item), m.group(0))
    gives = [(m.group(1), m.group(2), m.group(3), m.group(0)) for m in _GIVE.finditer(lowered)]
    gives += [
        (m.group(2), m.group(3), m.group(1), m.group(0))
        for m in _GIVE_TO.finditer(lowered)
        if m.group(1) in layout.agents
    ]
    for count, name, to, said in gives:
        action = _give(layout, state, agent, count, _ALL_NAMES[_name(name)], to, problems)
        if action is not None:
            candidates.setdefault(action, said)
    for m in _WAIT.finditer(lowered):
        candidates.setdefault(layout.action_index("wait"), m.group(0))

    if len(candidates) > 1:
        named = "; ".join(words.action_text(layout, a) for a in sorted(candidates))
        return ActionParse(None, f"the reply names several actions ({named}); choose one")
    if not candidates:
        hint = "; ".join(dict.fromkeys(problems)) if problems else "no action found"
        return ActionParse(None, f"{hint}. Answer like {EXAMPLES}")
    action = next(iter(candidates))
    code = invalid_reason(state, agent, action)
    if code is not None:
        return ActionParse(None, words.explain(layout, state, agent, code, action))
    return ActionParse(action)


def _give(
    layout: Layout,
    state: State,
    agent: str,
    count: str | None,
    item: str,
    to: str,
    problems: list[str],
) -> int | None:
    """The give action a phrase names, or ``None`` with the problem noted."""
    if to not in layout.agents:
        team = ", ".join(a.capitalize() for a in layout.agents)
        problems.append(f"there is no teammate called '{to[:20]}' ({team})")
        return None
    if item not in layout.book.items:
        problems.append(f"there are no {plural(item)} in this recipe book")
        return None
    n = _count(count)
    if n is None:  # "give planks to Bravo": all one holds of it, at most MAX_GIVE
        n = min(state.inventories[agent][item], MAX_GIVE)
        if n == 0:
            problems.append(f"you have no {plural(item)} to give")
            return None
    if not 1 <= n <= MAX_GIVE:
        problems.append(
            f"you can give 1 to {MAX_GIVE} at a time; say 'give {count_text(item, MAX_GIVE)} "
            f"to {to.capitalize()}'"
        )
        return None
    return layout.action_index("give", item, to, n)
