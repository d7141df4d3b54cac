"""The crafting world's offline model: the scripted team's rules, played from the prompt alone.

A test double with a stated behaviour, the "model" behind ``mase serve`` for
``mase/Craft-v0`` and behind LLM seats in tests: :func:`respond` (a :class:`CraftModel`) reads
the chat an :class:`mase.agents.LLMAgent` sends and answers in the reply format of
:mod:`mase.protocol`. It never sees the env; it reads:

* **the rules** (the system message, ``env.rules_text(agent)``, read by the pattern made from
  :data:`~mase.envs.craft.text.RULES_TEMPLATE`): who it is, the team in turn order, the goal,
  the places and paths, where each resource and station is, which tools gathering needs and
  the recipe book. From them it rebuilds the :class:`~mase.envs.craft.world.Layout` and the
  scripted team's plan (:func:`~mase.envs.craft.scripted.team_plan`) for the default start:
  everyone at the village with empty inventories (:func:`~mase.envs.craft.world.new_state`),
  so every seat that reads the same rules, scripted or not, makes the same plan;
* **the latest observation** (from "You are <Name>. Round N of M."): its own place and whole
  inventory (exact), the places of the teammates it sees, what it saw them hold, and the gives
  to and from it since its last turn ("Bravo gave you 2 planks.", "you gave 1 book to Alpha");
* **its own earlier replies** in the prompt's window: each starts with a line of notes, the
  plan and a running tally of what it handed to the assembler or received (:data:`NOTES`),
  which the next turn reads back and adds the newer gives to, as a model keeps a scratchpad.

It then acts as :func:`~mase.envs.craft.scripted.decide` would on that estimate of the world
and says the action in the words the env's parser reads (:func:`~.text.action_text`), with
its place and inventory as the message (the scripted seats' fact sentences)::

    Plan: Alpha assembles at the workshop; my part is 1 book. Handed to Alpha so far: nothing.
    Action selection: move to the river
    Message to Team: Charlie is at the village. Charlie carries nothing.

Its own moves are read exactly, so every action it names is legal. What it cannot see it
estimates: a teammate it does not see is not at its place, and without an earlier reply in the
prompt (a window of 0, a CodeAct prompt) its tally holds only the gives its latest observation
shows, so it may make a part twice or, as the assembler, wait for a part it already had. With
a start other than the village the rules do not say where the team began; its seats still
agree on one plan, but not with scripted seats. A prompt whose rules it cannot read gets
:data:`UNREADABLE_RULES`, one without an observation it can read :data:`NO_OBSERVATION`:
both wait, which is always legal and changes nothing.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from mase import protocol
from mase.envs.craft.maps import neighbours_of
from mase.envs.craft.names import (
    ITEM_NAMES,
    count_text,
    item_lookup,
    listing,
    name_pattern,
)
from mase.envs.craft.recipes import Book, Recipe
from mase.envs.craft.scripted import TeamPlan, decide, team_plan
from mase.envs.craft.text import (
    RULES_TEMPLATE,
    STATIONS,
    action_text,
    fact_sentence,
    inventory_sentence,
    parse_facts,
)
from mase.envs.craft.world import AGENT_NAMES, TALLY_KEYS, Layout, State, new_state
from mase.llm.offline import Item, OfflineModel, Prompt

#: Where the rules text starts; it names the agent.
RULES_HEAD = re.compile(r"You are (?P<agent>[A-Za-z]+), one of \d+ agents \(")
#: Where one of the agent's observations starts.
OBSERVATION_HEAD = r"(?mi)^You are {agent}\. Round \d+ of \d+\."

#: The line of notes that opens every reply (before ``Action selection:``, so the env's parser
#: never reads it): the plan, then the tally the next turn reads back.
NOTES = "Plan: {plan} {tally}"
PLAN_ASSEMBLER = "I assemble at the {meeting}; my part is {part}."
PLAN_MAKER = "{assembler} assembles at the {meeting}; my part is {part}."
HANDED = "Handed to {assembler} so far: {items}."
RECEIVED = "Received so far: {items}."

UNREADABLE_RULES = (
    "I cannot read the crafting rules in my prompt (they start 'You are <Name>, one of N "
    "agents'), so I wait.\nAction selection: wait\nMessage to Team: "
)
NO_OBSERVATION = (
    "I cannot read where I am and what I carry (an observation starts 'You are {name}. "
    "Round N of M.'), so I wait.\nAction selection: wait\nMessage to Team: "
)

_ITEMS = item_lookup(ITEM_NAMES)
_ITEM = name_pattern(_ITEMS)
_AGENT = name_pattern(a.capitalize() for a in AGENT_NAMES)
_COUNTS = rf"nothing|\d{{1,9}} {_ITEM}(?:, \d{{1,9}} {_ITEM})*+"
_COUNT_ITEM = re.compile(rf"(\d{{1,9}}) ({_ITEM})")
_TOOL = re.compile(rf"({_ITEM}) needs (?:an?\s)?({_ITEM})")
_RECIPE = re.compile(
    rf"({_ITEM})(?: \(at an? ({name_pattern(STATIONS)})\))?: (.+) -> (\d{{1,9}}) ({_ITEM})"
)
_INPUT = re.compile(rf"(\d{{1,9}}) ({_ITEM})")
# the gives an observation tells (the wording of mase.envs.craft.text.event_text)
_GAVE_YOU = re.compile(rf"(?m)^- ({_AGENT}) gave you (\d{{1,9}}) ({_ITEM})\.")
_YOU_GAVE = re.compile(rf"(?m)^- Your last action: you gave (\d{{1,9}}) ({_ITEM}) to ({_AGENT})\.")
_HANDED = re.compile(rf"Handed to ({_AGENT}) so far: ({_COUNTS})\.")
_RECEIVED = re.compile(rf"Received so far: ({_COUNTS})\.")
_NOW = "\nNow:\n"
_MESSAGES = f"\n{protocol.MESSAGES_HEADER}\n"
#: Every item named, read as a resource: the reader of the map's "X is at the Y." sentences.
_ANY_RESOURCE = Book("any", tuple(ITEM_NAMES), {}, {})


def _item(name: str) -> str:
    return _ITEMS[" ".join(name.lower().split())]


def _template_pattern(template: str, fields: dict[str, str]) -> re.Pattern[str]:
    """The template as a regex: its words literally, each field a group of its pattern.

    A field without a pattern of its own is any text up to the words after it, on its line;
    one such field a line keeps the match linear in the text's length.
    """
    parts, seen = [], set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is None:
            continue
        body = fields.get(field, r"[^\n]*?")
        parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>{body})")
        seen.add(field)
    return re.compile("".join(parts))


#: The rules text's fields that are names and numbers; the map's sources and its tool sentence
#: share a line with nothing between them but a space, so they are read as one field.
_RULES = _template_pattern(
    RULES_TEMPLATE.replace("{sources} {tools}", "{resources}"),
    {
        "name": r"[A-Za-z]++",
        "team_size": r"\d{1,9}+",
        "team": r"[A-Za-z]++(?:, [A-Za-z]++)*+",
        "max_rounds": r"\d{1,9}+",
        "places": r"[a-z]++(?:, [a-z]++)*+",
        "paths": r"[a-z]++-[a-z]++(?:, [a-z]++-[a-z]++)*+",
        "max_give": r"\d{1,9}+",
    },
)


# -- the rules -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """What the rules text says, rebuilt.

    Attributes:
        layout: the map, the team, the recipe book and the goal.
        plan: the scripted team's plan from the default start.
    """

    layout: Layout
    plan: TeamPlan


@lru_cache(maxsize=64)
def read_rules(text: str) -> Rules | None:
    """The rules a rules text states, or ``None`` when it does not state them all."""
    m = _RULES.match(text)
    if m is None:
        return None
    f = m.groupdict()
    agents = tuple(a.lower() for a in f["team"].split(", "))
    places = tuple(f["places"].split(", "))
    paths = tuple(tuple(p.split("-")) for p in f["paths"].split(", "))
    if (
        not set(agents) <= set(AGENT_NAMES)
        or len(set(agents)) != len(agents)
        or len(agents) != int(f["team_size"])
        or len(set(places)) != len(places)
        or "village" not in places  # where everyone starts
        or any(not set(p) <= set(places) for p in paths)
    ):
        return None
    book = read_book(f["resources"], f["recipes"])
    goal = parse_facts(f["goal"], _ANY_RESOURCE).get(("goal",))
    facts = parse_facts(f"{f['resources']} {f['stations']}", _ANY_RESOURCE)
    sources = {k[1]: v for k, v in facts.items() if k[0] == "source"}
    stations = {k[1]: v for k, v in facts.items() if k[0] == "station"}
    if (
        book is None
        or goal not in book.recipes
        or any(s not in stations for s in book.stations)
        or not set(sources.values()) | set(stations.values()) <= set(places)
    ):
        return None
    stations = {s: stations[s] for s in book.stations}
    layout = Layout(places, neighbours_of(places, paths), sources, stations, agents, book, goal)
    if any(len(reach) != len(places) for reach in layout.distances().values()):
        return None  # a map in pieces: no plan can cross it
    try:
        plan = team_plan(new_state(layout, np.random.default_rng(0), "village"))
    except ValueError:  # recipes in a cycle: no order to make them in
        return None
    return Rules(layout, plan)


def read_book(resources: str, recipes: str) -> Book | None:
    """The recipe book the rules tell, or ``None`` when a part of it cannot be read.

    The resources in the order their places are told, the tools gathering needs, and one
    recipe a clause ("paper (at a workbench): 3 reeds -> 3 paper").
    """
    sources = parse_facts(resources, _ANY_RESOURCE)
    tools = {_item(r): _item(t) for r, t in _TOOL.findall(resources)}
    book: dict[str, Recipe] = {}
    for clause in recipes.split("; "):
        r = _RECIPE.fullmatch(clause)
        inputs = [_INPUT.fullmatch(part) for part in r.group(3).split(" + ")] if r else [None]
        if r is None or None in inputs or _item(r.group(1)) != _item(r.group(5)):
            return None
        output, count = _item(r.group(5)), int(r.group(4))
        needed = tuple((_item(i.group(2)), int(i.group(1))) for i in inputs)
        if count < 1 or output in book:
            return None
        book[output] = Recipe(output, count, needed, r.group(2))
    found = tuple(k[1] for k in sources if k[0] == "source")
    try:
        return Book("read from the rules", found, tools, book)
    except ValueError:  # an input or a tool that is neither gathered nor crafted
        return None


# -- an observation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What one observation shows the agent.

    Attributes:
        round: the round.
        place: its place.
        inventory: its whole inventory.
        places: the places of the teammates it sees.
        holdings: ``(teammate, item) -> count`` for what it saw teammates hold.
    """

    round: int
    place: str
    inventory: dict[str, int]
    places: dict[str, str]
    holdings: dict[tuple[str, str], int]


def read_view(text: str, layout: Layout, agent: str) -> View | None:
    """The view one observation gives ``agent``, or ``None`` when it does not give it all."""
    happened, now = text.split(_NOW, 1) if _NOW in text else (text, None)
    if now is None:
        return None
    now = now.split(_MESSAGES, 1)[0]  # teammates' words are claims, not what it sees
    book = layout.book
    seen = parse_facts(happened, book)
    facts = parse_facts(now, book)
    place = facts.get(("place", agent))
    rnd = parse_facts(happened.split("\n", 1)[0], book).get(("round",))
    if place not in layout.places or rnd is None:
        return None
    if any(("has", agent, item) not in facts for item in book.items):
        return None
    inventory = {item: facts[("has", agent, item)] for item in book.items}
    places = {
        k[1]: v
        for k, v in facts.items()
        if k[0] == "place" and k[1] in layout.agents and k[1] != agent and v in layout.places
    }
    holdings = {
        (k[1], k[2]): v
        for k, v in seen.items()
        if k[0] == "has" and k[1] in layout.agents and k[1] != agent and k[2] in book.items
    }
    return View(rnd, place, inventory, places, holdings)


# -- the tally of gives --------------------------------------------------------------------------


def _counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n, name in _COUNT_ITEM.findall(text):
        counts[_item(name)] = counts.get(_item(name), 0) + int(n)
    return counts


def read_tally(items: tuple[Item, ...], agent: str, assembler: str) -> dict[str, int]:
    """What ``agent`` handed to the assembler (or, as the assembler, received) so far.

    The tally of its latest reply with notes, plus the gives in the observations after it
    (every observation in the prompt when no reply has notes).
    """
    own = agent == assembler
    tally: dict[str, int] = {}
    start = 0
    for i, (kind, text) in enumerate(items):
        if kind != "reply":
            continue
        m = _RECEIVED.search(text) if own else _HANDED.search(text)
        if m is not None and (own or m.group(1).lower() == assembler):
            tally, start = _counts(m.group(m.lastindex)), i + 1
    for kind, text in items[start:]:
        if kind != "observation":
            continue
        happened = text.split(_NOW, 1)[0]
        if own:
            gives = [(_item(name), int(n)) for _, n, name in _GAVE_YOU.findall(happened)]
        else:
            gives = [
                (_item(name), int(n))
                for n, name, to in _YOU_GAVE.findall(happened)
                if to.lower() == assembler
            ]
        for item, n in gives:
            tally[item] = tally.get(item, 0) + n
    return tally


# -- the decision --------------------------------------------------------------------------------


def estimated_state(
    layout: Layout, agent: str, view: View, assembler: str, tally: dict[str, int]
) -> State:
    """The world as ``agent`` can tell it: exact for itself, what it saw of the others.

    A teammate it does not see is put at another place than its own (an observation shows
    every teammate at the agent's place), and what it did not see a teammate hold at zero;
    the tally becomes the gives of the episode (from "someone", for what the assembler got).
    """
    elsewhere = next((p for p in layout.places if p != view.place), view.place)
    positions = {a: view.places.get(a, elsewhere) for a in layout.agents}
    positions[agent] = view.place
    inventories = {a: dict.fromkeys(layout.book.items, 0) for a in layout.agents}
    inventories[agent] = dict(view.inventory)
    for (mate, item), count in view.holdings.items():
        inventories[mate][item] = count
    giver, to = ("someone", agent) if agent == assembler else (agent, assembler)
    transfers = [(0, giver, to, item, n) for item, n in tally.items() if n > 0]
    tally_keys = {a: dict.fromkeys(TALLY_KEYS, 0) for a in layout.agents}
    return State(layout, positions, inventories, view.round, tally_keys, transfers)


def _listed(book: Book, counts: dict[str, int]) -> str:
    return ", ".join(count_text(i, counts[i]) for i in book.items if counts.get(i, 0) > 0)


def notes(layout: Layout, plan: TeamPlan, agent: str, tally: dict[str, int]) -> str:
    """The reply's opening line: the plan and the tally (:data:`NOTES`)."""
    book = layout.book
    share = plan.shares.get(agent, {})
    part = listing(count_text(i, share[i]) for i in book.items if share.get(i, 0) > 0)
    fields = {
        "meeting": plan.meeting,
        "part": part or "nothing",
        "assembler": plan.assembler.capitalize(),
        "items": _listed(book, tally) or "nothing",
    }
    if agent == plan.assembler:
        said = PLAN_ASSEMBLER.format(**fields), RECEIVED.format(**fields)
    else:
        said = PLAN_MAKER.format(**fields), HANDED.format(**fields)
    return NOTES.format(plan=said[0], tally=said[1])


class CraftModel(OfflineModel):
    """The crafting world's offline model (see the module docstring)."""

    rules_head: ClassVar[re.Pattern[str]] = RULES_HEAD
    observation_head: ClassVar[str] = OBSERVATION_HEAD
    cannot_act: ClassVar[str] = UNREADABLE_RULES

    def understands(self, prompt: Prompt) -> bool:
        """Whether the rules state a whole crafting world with the agent in its team."""
        rules = read_rules(prompt.rules)
        return rules is not None and prompt.agent in rules.layout.agents

    def act(self, prompt: Prompt) -> str:
        """The scripted team's move for the agent, from what the prompt shows."""
        rules = read_rules(prompt.rules)
        layout, plan, agent = rules.layout, rules.plan, prompt.agent
        view = read_view(prompt.observations[-1], layout, agent) if prompt.observations else None
        if view is None:
            return NO_OBSERVATION.format(name=agent.capitalize())
        tally = read_tally(prompt.items, agent, plan.assembler)
        state = estimated_state(layout, agent, view, plan.assembler, tally)
        action = decide(state, agent, plan)
        said = fact_sentence(("place", agent), view.place) + " "
        said += inventory_sentence(agent, view.inventory, layout.book.items)
        reply = protocol.REPLY_FORMAT.format(action=action_text(layout, action), message=said)
        return f"{notes(layout, plan, agent, tally)}\n{reply}"


#: The model ``mase serve`` runs for the crafting world.
respond = CraftModel()
