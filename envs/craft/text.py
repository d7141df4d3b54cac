"""The crafting world in words: fact sentences, observations, the rules, and the reasons.

Every fact is written with one sentence form and read back by the pattern made from it, so an
observation, a scripted teammate's message and a model's reply that use the same sentences
parse to the same fact keys the events carry:

==============================  ==============================================
fact key                        sentence
==============================  ==============================================
``("round",)``                  Round 3 of 50.
``("goal",)``                   The goal is a bookshelf.
``("place", agent)``            Bravo is at the forest.
``("source", resource)``        Iron ore is at the mine. / Reeds are at the river.
``("station", station)``        The workbench is at the workshop.
``("has", agent, item)``        Bravo has 3 planks. / Bravo has no paper.
every ``("has", agent, *)``     Bravo carries 3 planks, 1 wood. / Bravo carries nothing.
==============================  ==============================================

The reply parser is :mod:`.parse`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from mase.envs.craft.maps import PLACES
from mase.envs.craft.names import (
    ITEM_NAMES,
    article,
    count_text,
    craft_name,
    item_lookup,
    listing,
    mass,
    name_pattern,
    plural,
    the_places,
)
from mase.envs.craft.recipes import Book, Recipe
from mase.envs.craft.world import AGENT_NAMES, MAX_GIVE, Layout, State
from mase.events import Event
from mase.protocol import MESSAGES_HEADER, REPLY_FORMAT_HELP, message_line, split_messages

STATIONS = ("workbench", "furnace")
_N = r"(\d{1,9})(?!\d)"
_AGENT = name_pattern(AGENT_NAMES)
_ITEM = name_pattern(n for names in ITEM_NAMES.values() for n in names)
_PLACE = name_pattern(PLACES)
_SUBJECT = name_pattern(
    [*AGENT_NAMES, *STATIONS, *(n for names in ITEM_NAMES.values() for n in names)]
)
_ITEMS = item_lookup(ITEM_NAMES)

_FACT_PATTERNS = {
    "round": re.compile(rf"\bRound {_N} of \d{{1,9}}\."),
    "goal": re.compile(rf"\bThe goal is (?:an?\s++)?({_ITEM})\.", re.I),
    "at": re.compile(rf"\b(?:the\s++)?({_SUBJECT}) (?:is|are) at the ({_PLACE})\.", re.I),
    "has": re.compile(rf"\b({_AGENT}) has (no|\d{{1,9}}) ({_ITEM})\.", re.I),
    "carries": re.compile(
        rf"\b({_AGENT}) carries (nothing|\d{{1,9}} {_ITEM}(?:, \d{{1,9}} {_ITEM})*+)\.", re.I
    ),
}
_COUNT_ITEM = re.compile(rf"(\d{{1,9}}) ({_ITEM})", re.I)


def _key_name(text: str) -> str:
    return " ".join(text.lower().split())


# -- facts as sentences ------------------------------------------------------------------------


def fact_sentence(key: tuple, value: object, max_rounds: int = 0) -> str:
    """Write one fact ``(key, value)`` as its sentence."""
    kind = key[0]
    if kind == "round":
        return f"Round {value} of {max_rounds}."
    if kind == "goal":
        return f"The goal is {article(value)}."
    if kind == "place":
        return f"{key[1].capitalize()} is at the {value}."
    if kind == "source":
        resource = key[1]
        verb = "is" if mass(resource) else "are"
        return f"{plural(resource).capitalize()} {verb} at the {value}."
    if kind == "station":
        return f"The {key[1]} is at the {value}."
    if kind == "has":
        agent, item = key[1], key[2]
        amount = f"no {plural(item)}" if value == 0 else count_text(item, value)
        return f"{agent.capitalize()} has {amount}."
    raise ValueError(f"no sentence for fact {key!r}")


def inventory_sentence(agent: str, inventory: Mapping[str, int], items: Iterable[str]) -> str:
    """The whole inventory in one sentence (every item not named is held 0 times)."""
    held = [count_text(i, inventory[i]) for i in items if inventory.get(i, 0) > 0]
    return f"{agent.capitalize()} carries {', '.join(held) if held else 'nothing'}."


def facts_text(facts: Mapping[tuple, object], book: Book, max_rounds: int = 0) -> str:
    """Write facts as sentences; an agent's whole inventory as one ``carries`` sentence."""
    whole = {
        key[1]
        for key in facts
        if key[0] == "has" and all(("has", key[1], i) in facts for i in book.items)
    }
    sentences = []
    written: set[str] = set()
    for key, value in facts.items():
        if key[0] == "has" and key[1] in whole:
            if key[1] not in written:
                written.add(key[1])
                inventory = {i: facts[("has", key[1], i)] for i in book.items}
                sentences.append(inventory_sentence(key[1], inventory, book.items))
            continue
        sentences.append(fact_sentence(key, value, max_rounds))
    return " ".join(sentences)


def parse_facts(text: str, book: Book) -> dict[tuple, object]:
    """Read every fact sentence in ``text``; later sentences win over earlier ones.

    Sentences that are not fact sentences are ignored, so this reads observations, messages
    and free text alike. A ``carries`` sentence states every item of ``book``.
    """
    found: list[tuple[int, tuple, object]] = []
    stations = set(STATIONS)
    for kind, pattern in _FACT_PATTERNS.items():
        for m in pattern.finditer(text):
            at = m.start()
            g = m.groups()
            if kind == "round":
                found.append((at, ("round",), int(g[0])))
            elif kind == "goal":
                found.append((at, ("goal",), _ITEMS[_key_name(g[0])]))
            elif kind == "at":
                subject, place = _key_name(g[0]), g[1].lower()
                if subject in AGENT_NAMES:
                    found.append((at, ("place", subject), place))
                elif subject in stations:
                    found.append((at, ("station", subject), place))
                elif _ITEMS[subject] in book.resources:
                    found.append((at, ("source", _ITEMS[subject]), place))
            elif kind == "has":
                count = 0 if g[1].lower() == "no" else int(g[1])
                found.append((at, ("has", g[0].lower(), _ITEMS[_key_name(g[2])]), count))
            else:
                agent = g[0].lower()
                counts = dict.fromkeys(book.items, 0)
                for n, name in _COUNT_ITEM.findall(g[1]):
                    counts[_ITEMS[_key_name(name)]] = int(n)
                for item, count in counts.items():
                    found.append((at, ("has", agent, item), count))
    found.sort(key=lambda entry: entry[0])
    return {key: value for _, key, value in found}


def claim_forms(book: Book) -> list[str]:
    """One example of each fact sentence a message can claim."""
    examples = {
        ("has", "bravo", "plank"): 3,
        ("has", "alpha", "paper"): 0,
        ("place", "charlie"): "river",
        ("source", book.resources[-1]): "mine",
        ("station", "workbench"): "workshop",
        ("goal",): "bookshelf",
    }
    forms = [fact_sentence(k, v) for k, v in examples.items()]
    forms.append(inventory_sentence("alpha", {"wood": 1, "plank": 4}, book.items))
    return forms


# -- the recipe book and the rules -------------------------------------------------------------


def recipe_text(recipe: Recipe) -> str:
    """``"planks: 1 wood -> 4 planks"``, with the station when one is needed."""
    inputs = " + ".join(count_text(i, n) for i, n in recipe.inputs)
    where = f" (at a {recipe.station})" if recipe.station else ""
    name = craft_name(recipe.output, recipe.count)
    return f"{name}{where}: {inputs} -> {count_text(recipe.output, recipe.count)}"


def recipes_text(book: Book) -> str:
    """Every recipe, one clause each."""
    return "; ".join(recipe_text(r) for r in book.recipes.values())


def tools_text(book: Book) -> str:
    """What gathering needs, e.g. "Gathering stone needs a wooden pickaxe (...)"."""
    if not book.tools:
        return "No resource needs a tool."
    needs = [f"{plural(r)} needs {article(t)}" for r, t in book.tools.items()]
    return f"Gathering {listing(needs)} in your inventory (tools are kept)."


RULES_TEMPLATE = """\
You are {name}, one of {team_size} agents ({team}) who craft together in a small world.
{goal} The team succeeds as soon as anyone holds it; the game ends at the end of that round, \
or after {max_rounds} rounds.
Places: {places}. Paths (move only along a path, one step a turn): {paths}.
Resources (gather one a turn where it is; it never runs out): {sources} {tools}
Stations: {stations}
Recipes (craft from your own inventory; a station must be at your place): {recipes}.
Agents act in turn ({team}); one round is one action each. Each turn choose one action: move \
to PLACE, gather RESOURCE, craft ITEM, give N ITEM to NAME (a teammate at your place; at most \
{max_give} at a time; without a number, all you hold of it, at most {max_give}), or wait.
You see your own place, your inventory, the resources and stations at your place, \
{teammates_seen} and what teammates do at your place. You do not see a teammate's inventory \
unless it acts at your place or tells you.
{reply_format}"""


def rules_text(layout: Layout, agent: str, max_rounds: int, see_teammates: bool) -> str:
    """The rules as told to ``agent``: the goal, the map, the recipe book, the turn."""
    book = layout.book
    return RULES_TEMPLATE.format(
        name=agent.capitalize(),
        team_size=len(layout.agents),
        team=", ".join(a.capitalize() for a in layout.agents),
        goal=fact_sentence(("goal",), layout.goal),
        max_rounds=max_rounds,
        places=", ".join(layout.places),
        paths=", ".join(f"{a}-{b}" for a, b in layout.paths),
        sources=" ".join(fact_sentence(("source", r), layout.sources[r]) for r in book.resources),
        tools=tools_text(book),
        stations=" ".join(fact_sentence(("station", s), layout.stations[s]) for s in book.stations)
        or "none.",
        recipes=recipes_text(book),
        max_give=MAX_GIVE,
        teammates_seen="where every teammate is" if see_teammates else "teammates at your place",
        reply_format=REPLY_FORMAT_HELP,
    )


# -- actions in words ----------------------------------------------------------------------------


def action_text(layout: Layout, action: int) -> str:
    """An action index in words, as the parser reads it back."""
    kind, *args = layout.actions[action]
    if kind == "wait":
        return "wait"
    if kind == "move":
        return f"move to the {args[0]}"
    if kind == "gather":
        return f"gather {plural(args[0])}"
    if kind == "craft":
        recipe = layout.book.recipes[args[0]]
        return f"craft {craft_name(recipe.output, recipe.count)}"
    item, to, n = args
    return f"give {count_text(item, n)} to {to.capitalize()}"


def legal_actions_text(layout: Layout, state: State, agent: str, mask: np.ndarray) -> list[str]:
    """The legal actions in words.

    A give is listed once per item and teammate, with all the agent may give (fewer are legal
    too).
    """
    out = []
    gives: dict[tuple[str, str], int] = {}
    for i in mask.nonzero()[0]:
        action = layout.actions[int(i)]
        if action[0] == "give":
            _, item, to, n = action
            gives[(item, to)] = max(n, gives.get((item, to), 0))
        else:
            out.append(action_text(layout, int(i)))
    for (item, to), n in gives.items():
        out.append(f"give {count_text(item, n)} to {to.capitalize()}")
    return out


# -- why an action failed --------------------------------------------------------------------------


REASON_TEMPLATES = {
    "already_there": "you are already at the {target}.",
    "not_adjacent": "the {target} is not next to the {here}; paths from the {here} lead to "
    "{doors}{detour}.",
    "not_here": "{resource} cannot be gathered at the {here}. {source}",
    "needs_tool": "gathering {resource} needs {tool} in your inventory; craft one or get one "
    "from a teammate.",
    "no_station": "crafting {name} needs a {station}, and there is none at the {here}. "
    "{station_at}",
    "missing_inputs": "crafting {name} takes {inputs}; you are short of {short}.",
    "self_give": "you cannot give to yourself; name a teammate at your place.",
    "not_together": "{to} is not at your place (the {here}); you can give only to a teammate "
    "at your place.",
    "not_enough": "you have {have}, not {want}.",
}


def explain(layout: Layout, state: State, agent: str, code: str, action: int) -> str:
    """The sentence that tells ``agent`` why ``action`` is illegal now (code from world)."""
    kind, *args = layout.actions[action]
    here = state.positions[agent]
    inventory = state.inventories[agent]
    fields: dict[str, object] = {"here": here}
    if kind == "move":
        target = args[0]
        fields.update(target=target, doors=the_places(_ordered(layout, layout.neighbours[here])))
        if code == "not_adjacent":
            fields["detour"] = _detour(layout, here, target)
    elif kind == "gather":
        resource = args[0]
        fields.update(
            resource=plural(resource),
            source=fact_sentence(("source", resource), layout.sources[resource]),
        )
        tool = layout.book.tools.get(resource)
        if tool is not None:
            fields["tool"] = article(tool)
    elif kind == "craft":
        recipe = layout.book.recipes[args[0]]
        name = craft_name(recipe.output, recipe.count)
        short = [count_text(i, n - inventory[i]) for i, n in recipe.inputs if inventory[i] < n]
        fields.update(
            name=name,
            station=recipe.station,
            inputs=listing(count_text(i, n) for i, n in recipe.inputs),
            short=listing(short),
        )
        if recipe.station is not None:
            fields["station_at"] = fact_sentence(
                ("station", recipe.station), layout.stations[recipe.station]
            )
    else:
        item, to, n = args
        fields.update(
            to=to.capitalize(), have=_have(item, inventory[item]), want=count_text(item, n)
        )
    return REASON_TEMPLATES[code].format(**fields)


def _have(item: str, count: int) -> str:
    return f"no {plural(item)}" if count == 0 else count_text(item, count)


def _ordered(layout: Layout, places: Iterable[str]) -> list[str]:
    chosen = set(places)
    return [p for p in layout.places if p in chosen]


def _detour(layout: Layout, start: str, goal: str) -> str:
    return f"; to reach the {goal}, go through the {layout.next_hop(start, goal)}"


# -- observations --------------------------------------------------------------------------------

_OWN = {
    "wait": "you waited.",
    "move": "you moved from the {origin} to the {place}.",
    "gather": "you gathered {amount}.",
    "craft": "you crafted {amount}.",
    "give": "you gave {amount} to {to}.",
}
_SEEN = {
    "move": "You saw {who} move from the {origin} to the {place}.",
    "gather": "You saw {who} gather {amount}.",
    "craft": "You saw {who} craft {amount}.",
    "give": "You saw {who} give {amount} to {to}.",
}


def _fields(event: Event, book: Book) -> dict:
    fields: dict = {"who": (event.actor or "someone").capitalize(), "origin": event.note}
    if event.kind == "move":
        fields["place"] = event.facts[("place", event.actor)]
    elif event.kind == "gather":
        fields["amount"] = count_text(event.note, 1)
    elif event.kind == "craft":
        fields["amount"] = count_text(event.note, book.recipes[event.note].count)
    elif event.kind == "give":
        n, item, to = event.note.split(" ")
        fields.update(amount=count_text(item, int(n)), to=to.capitalize())
    return fields


def event_text(event: Event, agent: str, book: Book, reason: str = "") -> str:
    """One event as ``agent`` is told it, with the facts it showed."""
    if event.kind == "invalid":
        return "Your last action failed: " + reason
    fields = _fields(event, book)
    if event.actor == agent:
        head = "Your last action: " + _OWN[event.kind].format(**fields)
    elif event.kind == "give" and fields["to"].lower() == agent:
        head = f"{fields['who']} gave you {fields['amount']}."
    else:
        head = _SEEN[event.kind].format(**fields)
    return head + (" " + facts_text(event.facts, book) if event.facts else "")


def observation_text(
    layout: Layout,
    state: State,
    agent: str,
    inbox: Iterable[Event],
    view: Mapping[tuple, object],
    max_rounds: int,
    legal: list[str],
    explain: Callable[[Event], str],
) -> str:
    """The text observation: what happened since the agent's last turn, then what it sees.

    ``explain`` words an invalid event of the inbox (the env's ``explain_invalid``).
    Teammates' messages come last, under ``Messages:``, apart from what the agent observed.
    """
    book = layout.book
    here = state.positions[agent]
    lines = [f"You are {agent.capitalize()}. {fact_sentence(('round',), state.round, max_rounds)}"]
    happened, messages = [], []
    for event in inbox:
        if event.kind == "message":
            if event.actor != agent:
                messages.append(message_line(event.actor, event.note))
        elif event.kind != "wait" or event.actor == agent:
            reason = explain(event) if event.kind == "invalid" else ""
            happened.append("- " + event_text(event, agent, book, reason))
    if happened:
        lines.append("Since your last turn:")
        lines.extend(happened)
    lines.append("Now:")
    lines.append(fact_sentence(("goal",), view[("goal",)]))
    places = [fact_sentence(k, v) for k, v in view.items() if k[0] == "place"]
    lines.append(" ".join(places))
    inventory = {i: view[("has", agent, i)] for i in book.items}
    lines.append(inventory_sentence(agent, inventory, book.items))
    here_facts = {k: v for k, v in view.items() if k[0] in ("source", "station")}
    lines.append(
        f"At the {here}: " + (facts_text(here_facts, book) if here_facts else "nothing to gather.")
    )
    lines.append(
        f"Paths from the {here} lead to {the_places(_ordered(layout, layout.neighbours[here]))}."
    )
    lines.append("Recipes: " + recipes_text(book) + ".")
    lines.append("Your legal actions: " + "; ".join(legal) + ".")
    if messages:
        lines.append(MESSAGES_HEADER)
        lines.extend(messages)
    return "\n".join(lines)


# -- reading an observation back -------------------------------------------------------------------

_P = rf"({_PLACE})"
_AMOUNT = rf"(\d{{1,9}}) ({_ITEM})"
_HEADS = (
    ("wait", re.compile(r"Your last action: you waited\.")),
    ("move", re.compile(rf"Your last action: you moved from the {_P} to the {_P}\.")),
    ("gather", re.compile(rf"Your last action: you gathered {_AMOUNT}\.")),
    ("craft", re.compile(rf"Your last action: you crafted {_AMOUNT}\.")),
    ("give", re.compile(rf"Your last action: you gave {_AMOUNT} to ({_AGENT})\.", re.I)),
    ("received", re.compile(rf"({_AGENT}) gave you {_AMOUNT}\.", re.I)),
    ("move", re.compile(rf"You saw ({_AGENT}) move from the {_P} to the {_P}\.", re.I)),
    ("gather", re.compile(rf"You saw ({_AGENT}) gather {_AMOUNT}\.", re.I)),
    ("craft", re.compile(rf"You saw ({_AGENT}) craft {_AMOUNT}\.", re.I)),
    ("give", re.compile(rf"You saw ({_AGENT}) give {_AMOUNT} to ({_AGENT})\.", re.I)),
)
_LISTED = re.compile(rf"the ({_PLACE})")
_HAVE = rf"(no|\d{{1,9}}) ({_ITEM})"
_REASONS = {
    "already_there": re.compile(rf"you are already at the {_P}\."),
    "not_adjacent": re.compile(
        rf"the {_P} is not next to the {_P}; paths from the {_P} lead to (.+?); to reach the "
        rf"{_P}, go through the {_P}\."
    ),
    "not_here": re.compile(rf"({_ITEM}) cannot be gathered at the {_P}\. (.+)", re.I),
    "needs_tool": re.compile(
        rf"gathering ({_ITEM}) needs (?:an? )?({_ITEM}) in your inventory; craft one or get one "
        r"from a teammate\."
    ),
    "no_station": re.compile(
        rf"crafting ({_ITEM}) needs a (\w+), and there is none at the {_P}\. (.+)"
    ),
    "missing_inputs": re.compile(rf"crafting ({_ITEM}) takes (.+?); you are short of (.+)\."),
    "self_give": re.compile(r"you cannot give to yourself; name a teammate at your place\."),
    "not_together": re.compile(
        rf"({_AGENT}) is not at your place \(the {_P}\); you can give only to a teammate at "
        r"your place\.",
        re.I,
    ),
    "not_enough": re.compile(rf"you have {_HAVE}, not {_AMOUNT}\."),
}


def _item(name: str) -> str:
    return _ITEMS[_key_name(name)]


_PATH_PAIR = re.compile(rf"({_PLACE})-({_PLACE})", re.I)


def read_rules(text: str, book: Book) -> dict[tuple, object]:
    """The map the rules text (:func:`rules_text`) states: the facts that change with it.

    ``("map",)`` the paths (a frozenset of place pairs, each in the places' order), and each
    resource's source and station's place (``("source", r)``, ``("station", s)``), keyed as
    :func:`parse_facts` reads them. The rest of the rules (the team, the recipe book, the
    round limit) is the task's configuration, the same every episode.
    """
    facts: dict[tuple, object] = {}
    order = {p: i for i, p in enumerate(PLACES)}
    for line in text.split("\n"):
        if line.startswith("Places: ") and " Paths (" in line:
            pairs = _PATH_PAIR.findall(line.split(" Paths (", 1)[1])
            edges = (tuple(sorted((a.lower(), b.lower()), key=order.get)) for a, b in pairs)
            facts[("map",)] = frozenset(edges)
        elif line.startswith(("Resources (", "Stations: ")):
            facts.update(
                (k, v) for k, v in parse_facts(line, book).items() if k[0] in ("source", "station")
            )
    return facts


def read_observation(text: str, book: Book, agent: str) -> dict[tuple, object]:
    """The facts a text observation of ``agent`` states (its messages left out).

    The round, the goal, the places seen, the own inventory, what is at the own place
    (:func:`parse_facts`), the places one path away (``("paths",)``), per agent what it was
    seen to do since the last turn (``("saw", actor)``: ``("move", origin, place)``,
    ``("gather", resource, 1)``, ``("craft", item, count)``, ``("give", item, to, n)``,
    ``("wait",)`` or ``("failed",)``) with the facts the event showed (``("saw", actor, *key)``),
    and why the last action failed (``("failure", field)``, :func:`read_reason`). The recipe
    book's line is the rules' (a task argument) and the legal actions' line the action mask.
    """
    head, _, now = split_messages(text)[0].partition("\nNow:\n")
    first, _, happened = head.partition("\nSince your last turn:\n")
    lines = now.split("\n")
    stated = [line for line in lines if not line.startswith(("Recipes: ", "Your legal actions: "))]
    facts = parse_facts(first + "\n" + "\n".join(stated), book)
    for line in lines:
        if line.startswith("Paths from the "):
            doors = line.split(" lead to ", 1)[1]
            facts[("paths",)] = frozenset(m.group(1).lower() for m in _LISTED.finditer(doors))
    for line in happened.split("\n") if happened else ():
        facts.update(read_event(line.removeprefix("- "), book, agent))
    return facts


def read_event(line: str, book: Book, agent: str) -> dict[tuple, object]:
    """The facts one line of "Since your last turn" states (see :func:`read_observation`)."""
    if line.startswith("Your last action failed: "):
        reason = read_reason(line.removeprefix("Your last action failed: "), book)
        return {("saw", agent): ("failed",), **{("failure", k): v for k, v in reason.items()}}
    for kind, pattern in _HEADS:
        m = pattern.match(line)
        if m is None:
            continue
        g = list(m.groups())
        if line.startswith("Your last action") or kind == "received":
            actor = g.pop(0).lower() if kind == "received" else agent
        else:
            actor = g.pop(0).lower()
        if kind == "wait":
            event: tuple = ("wait",)
        elif kind == "move":
            event = ("move", g[0].lower(), g[1].lower())
        elif kind in ("gather", "craft"):
            event = (kind, _item(g[1]), int(g[0]))
        elif kind == "received":
            event = ("give", _item(g[1]), agent, int(g[0]))
        else:
            event = ("give", _item(g[1]), g[2].lower(), int(g[0]))
        shown = parse_facts(line[m.end() :], book)
        return {("saw", actor): event, **{("saw", actor, *k): v for k, v in shown.items()}}
    raise ValueError(f"not an event line of the crafting world: {line!r}")


def read_reason(reason: str, book: Book) -> dict[str, object]:
    """What a reason of :func:`explain` states: ``{"code": code, field: value, ...}``.

    A reason of another kind (unreadable text, an index out of range) reads as
    ``{"code": "other"}``.
    """
    order = {item: k for k, item in enumerate(book.items)}
    for code, pattern in _REASONS.items():
        m = pattern.fullmatch(reason)
        if m is None:
            continue
        g = m.groups()
        fields: dict[str, object] = {"code": code}
        if code == "already_there":
            fields["target"] = g[0].lower()
        elif code == "not_adjacent":
            fields.update(target=g[0].lower(), via=g[5].lower())
            fields["doors"] = frozenset(x.group(1).lower() for x in _LISTED.finditer(g[3]))
        elif code == "not_here":
            fields["resource"] = _item(g[0])
            fields["source"] = parse_facts(g[2], book)[("source", fields["resource"])]
        elif code == "needs_tool":
            fields.update(resource=_item(g[0]), tool=_item(g[1]))
        elif code == "no_station":
            fields["item"] = _item(g[0])
            fields["station_at"] = parse_facts(g[3], book)[("station", g[1].lower())]
        elif code == "missing_inputs":
            short = [(_item(name), int(n)) for n, name in _COUNT_ITEM.findall(g[2])]
            fields.update(item=_item(g[0]), short=tuple(sorted(short, key=lambda p: order[p[0]])))
        elif code == "not_together":
            fields["to"] = g[0].lower()
        elif code == "not_enough":
            have = 0 if g[0] == "no" else int(g[0])
            fields.update(item=_item(g[3]), have=have, want=int(g[2]))
        return fields
    return {"code": "other"}
