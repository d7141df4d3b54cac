"""Deliberation in words: the rules, the views, the fact sentences, and the reply reader.

Every sentence that states a number an agent holds has one form, written by :func:`facts_text`
and read back by :func:`parse_facts`; the views use the same forms, so an agent that repeats
its view to a partner states facts the partner (and the knowledge tracker) can read::

    Stock held by internet_agent: cream 3, wheat flour 1, eggs 0.
    Guest 1 values: Pad Thai 9.83, Satay 6.72.
    Guest 2 as home_agent sees them: {"Name": "Fatima", "Food Allergies": []}
    Private resources of worker_0: Time 6, Mental energy 4.6.
    Public resources seen by worker_0: Ingredients budget 54, Serving capacity 2.
    Task values for worker_0: T1 19.6, T2 4.94.

**Replies.** A turn is one reply: whatever it says is heard by every partner (cut at the
message limit), and labelled lines in it are the move (:func:`read_reply`)::

    Proposal: Gulab Jamun; BBQ Pork; Naan          (menu design: dish names)
    Proposal: T1 -> worker_0; T4 -> leader          (task allocation: task -> agent)
    Accept                                          (accept the partner's current proposal)
    Final: T1 -> worker_0; T4 -> leader             (allocation, the leader only: decide)

A reply with none of them is talk only. Names are read without regard to case, accents or
punctuation (``Creme Brulee`` is ``Crème Brûlée``); tasks may be named by their number
(``T4``) or in full; agents by seat or by the authors' ``agent_0``..``agent_2``. A proposal
lists at most as many names as the game has dishes (an allocation, as many pairs as it has
tasks): a longer one could never be valid, and the vector view holds that many.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from mase.envs.deliberation.games import (
    ALLOCATION_SEATS,
    AUTHORS_AGENTS,
    MENU_SEATS,
    AllocationGame,
    MenuGame,
)

#: The default limit of a turn's message (the released code's ``max_character``).
MESSAGE_LIMIT = 3000

# -- names --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def shown(name: str) -> str:
    """A name in plain ASCII, as the views write it (``Crème Brûlée`` -> ``Creme Brulee``)."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@functools.lru_cache(maxsize=8192)  # the vector reads every claim's names at every turn
def fold(name: str) -> str:
    """The key a name is read by: ASCII, lowercase, words separated by single spaces."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", shown(name).lower()).split())


def number(value: float) -> str:
    """A number as the views write it (``4.6``, ``54``): at most 6 significant digits."""
    return f"{float(value):.6g}"


def task_ref(index: int) -> str:
    """A task's short name in the views (``T1`` for the first)."""
    return f"T{index + 1}"


def guest_name(k: int) -> str:
    """Guest ``k`` (0-based) as the views name them."""
    return f"Guest {k + 1}"


# -- fact sentences -----------------------------------------------------------------------------

_ITEM = re.compile(r"^\s*(.+?)\s+(-?\d+(?:\.\d+)?)\s*$")
# a fact sentence may open a line or follow a dialogue prefix ("[round 1] home_agent: ...")
_FACT_LINES = {
    "stock": re.compile(r"\bstock held by ([a-z_0-9]+)\s*:\s*(.*?)\.?\s*$", re.I),
    "value": re.compile(r"\bguest (\d+) values\s*:\s*(.*?)\.?\s*$", re.I),
    "capacity": re.compile(r"\bprivate resources of ([a-z_0-9]+)\s*:\s*(.*?)\.?\s*$", re.I),
    "public_share": re.compile(r"\bpublic resources seen by ([a-z_0-9]+)\s*:\s*(.*?)\.?\s*$", re.I),
    "task_value": re.compile(r"\btask values for ([a-z_0-9]+)\s*:\s*(.*?)\.?\s*$", re.I),
}
_PROPOSAL_VALUE = re.compile(
    r"\bvalue of the current proposal\s*:\s*(-?\d+(?:\.\d+)?)\.?\s*$", re.I
)
_PROFILE = re.compile(r"\bguest (\d+) as ([a-z_0-9]+) sees them\s*:\s*(\{.*\})\s*$", re.I)


def _items(text: str) -> dict[str, float]:
    out = {}
    for part in text.split(","):
        m = _ITEM.match(part)
        if m:
            out[m.group(1).strip()] = float(m.group(2))
    return out


def _line(kind: str, who: str, items: Mapping[str, float]) -> str:
    said = ", ".join(f"{shown(k)} {number(v)}" for k, v in items.items())
    return {
        "stock": f"Stock held by {who}: {said}.",
        "value": f"{who} values: {said}.",
        "capacity": f"Private resources of {who}: {said}.",
        "public_share": f"Public resources seen by {who}: {said}.",
        "task_value": f"Task values for {who}: {said}.",
    }[kind]


def facts_text(facts: Mapping[tuple, Any]) -> str:
    """Facts as fact sentences, one line per holder and kind (:func:`parse_facts` reads them).

    Keys: ``("stock", seat, ingredient)``, ``("value", guest, dish)`` (guest 0-based),
    ``("capacity", seat, resource)``, ``("public_share", seat, resource)``,
    ``("task_value", seat, task_ref)``, ``("profile", guest, seat)`` (a JSON object),
    ``("proposal_value",)`` (what the proposal on the table earns, rounded to 0.01).
    Numbers are floats (as :func:`parse_facts` reads them back). Facts of other kinds (the
    proposal on the table, ``("proposal", seat)``, which a reply states as its move line)
    have no fact sentence and are left out.
    """
    groups: dict[tuple[str, Any], dict[str, float]] = {}
    lines = []
    for key, value in facts.items():
        kind = key[0]
        if kind == "proposal_value":
            lines.append(f"Value of the current proposal: {number(round(value, 2))}.")
            continue
        if kind == "profile":
            lines.append(f"{guest_name(key[1])} as {key[2]} sees them: {json.dumps(value)}")
            continue
        if kind in _FACT_LINES:
            groups.setdefault((kind, key[1]), {})[key[2]] = value
    for (kind, who), items in groups.items():
        holder = guest_name(who) if kind == "value" else who
        lines.append(_line(kind, holder, items))
    return "\n".join(lines)


def parse_facts(text: str) -> dict[tuple, Any]:
    """The facts stated in ``text`` in the fact sentences (keys as in :func:`facts_text`).

    Names are kept as written (ASCII); readers match them with :func:`fold`.
    """
    facts: dict[tuple, Any] = {}
    for raw in text.splitlines():
        line = raw.strip().lstrip("-*> ").strip()
        m = _PROPOSAL_VALUE.search(line)
        if m:
            facts[("proposal_value",)] = float(m.group(1))
            continue
        m = _PROFILE.search(line)
        if m:
            try:
                facts[("profile", int(m.group(1)) - 1, m.group(2))] = json.loads(m.group(3))
            except json.JSONDecodeError:
                pass
            continue
        for kind, pattern in _FACT_LINES.items():
            m = pattern.search(line)
            if m:
                who: Any = int(m.group(1)) - 1 if kind == "value" else m.group(1)
                for name, value in _items(m.group(2)).items():
                    facts[(kind, who, name)] = value
                break
    return facts


# -- private facts of a game --------------------------------------------------------------------


def private_facts(game: MenuGame | AllocationGame, seat: int, semantic: bool = False) -> dict:
    """The facts only seat ``seat`` holds at the start (what its view states)."""
    facts: dict[tuple, Any] = {}
    if isinstance(game, MenuGame):
        who = MENU_SEATS[seat]
        for ingredient, units in game.shares[seat].items():
            facts[("stock", who, shown(ingredient))] = float(units)
        if semantic:
            for k in (0, 1):
                facts[("profile", k, who)] = visible_profile(game.profiles[seat][k])
        else:
            for d, dish in enumerate(game.dishes):
                facts[("value", seat, shown(dish))] = float(game.guest_values[seat, d])
        return facts
    who = ALLOCATION_SEATS[seat]
    for r, v in game.capacity[seat].items():
        facts[("capacity", who, r)] = float(v)
    for r, v in game.shares[seat].items():
        facts[("public_share", who, r)] = float(v)
    for t in range(len(game.tasks)):
        facts[("task_value", who, task_ref(t))] = float(game.values[seat, t])
    return facts


def visible_profile(profile: Mapping[str, Any]) -> dict[str, Any]:
    """A partial profile without its hidden fields (blank ones: ``None``, ``{}``, ``[]``)."""
    return {k: v for k, v in profile.items() if v not in (None, {}, [])}


# -- public information -------------------------------------------------------------------------


def recipes_text(game: MenuGame) -> str:
    """Every candidate dish and the ingredient units it needs."""
    lines = ["Dishes and the units of each ingredient they need:"]
    for d, dish in enumerate(game.dishes):
        need = ", ".join(
            f"{shown(game.ingredients[j])} {int(u)}" for j, u in enumerate(game.recipes[d]) if u
        )
        lines.append(f"- {shown(dish)}: {need}")
    return "\n".join(lines)


def requirements_text(game: AllocationGame) -> str:
    """Every task and what it costs each agent (one list when the costs are the same)."""
    lines = ["Tasks and the resources they use:"]
    for t, task in enumerate(game.tasks):
        order = [*game.private, *game.public]
        costs = [
            {r: game.costs[a][t][r] for r in order if r in game.costs[a][t]}
            for a in range(len(ALLOCATION_SEATS))
        ]
        if all(c == costs[0] for c in costs):
            said = ", ".join(f"{r} {number(v)}" for r, v in costs[0].items() if v)
        else:
            said = "; ".join(
                f"{ALLOCATION_SEATS[a]}: "
                + ", ".join(f"{r} {number(v)}" for r, v in c.items() if v)
                for a, c in enumerate(costs)
            )
        lines.append(f"- {task_ref(t)} {task}: {said or 'nothing'}")
    return "\n".join(lines)


def menu_text(game: MenuGame, dishes: Sequence[str]) -> str:
    """A menu in words (``Satay; Naan``), names as the views write them."""
    return "; ".join(shown(d) for d in dishes) or "(no dishes)"


def allocation_text(game: AllocationGame, pairs: Sequence[tuple[str, str]]) -> str:
    """An allocation in words (``T1 -> worker_0; T4 -> leader``)."""
    index = {t: i for i, t in enumerate(game.tasks)}
    said = [f"{task_ref(index[t]) if t in index else t} -> {a}" for t, a in pairs]
    return "; ".join(said) or "(no tasks assigned)"


# -- reading replies ----------------------------------------------------------------------------


class Reply(NamedTuple):
    """The move a reply makes.

    Attributes:
        kind: ``"talk"``, ``"propose"``, ``"accept"`` or ``"final"``.
        decision: the proposal or final decision: dish names (menus) or (task, agent) pairs
            (allocations), canonical where the name was read, as written where it was not.
        unknown: the names that match nothing in the game.
    """

    kind: str
    decision: tuple = ()
    unknown: tuple[str, ...] = ()


class ReplyError(ValueError):
    """A reply whose move cannot be read; the message says why, for the agent."""


# a move line may follow the suite's "Action selection:" label (a model used to other tasks)
_LABEL = re.compile(
    r"^[\s>*_#`-]*(?:action\s*selection[\s*_`]*[:\-]?[\s*_`]*)?"
    r"(proposal|propose|final decision|final|accept|decision)\b[\s*_`]*[:\-]?\s*(.*)$",
    re.I,
)
_ACCEPTS = {"", "accept", "i accept", "yes", "accepted", "accept proposal", "accept the proposal"}
#: A line that is an acceptance and nothing more ("I accept your proposal.", "We accept this
#: menu"), read after :func:`fold`.
_ACCEPT_LINE = re.compile(
    r"^(?:i|we)?\s*(?:accept|agree to|agree with)\s*(?:(?:your|the|this|that|current)\s*)?"
    r"(?:proposal|proposed menu|menu|allocation|plan)?$"
)
_PAIR = re.compile(r"\s*(?:->|=>|→|:|=|\bto\b)\s*", re.I)
_NONE = {"none", "no proposal", "nothing", "n/a", ""}


def read_reply(game: MenuGame | AllocationGame, text: str) -> Reply:
    """The move in a reply (module docstring).

    Raises:
        ReplyError: two moves in one reply, or a labelled move that names nothing readable.
    """
    moves = []
    for raw in text.splitlines():
        if _ACCEPT_LINE.match(fold(re.sub(r"(?i)^\W*action\s*selection\W*", "", raw))):
            moves.append(Reply("accept"))
            continue
        m = _LABEL.match(raw)
        if not m:
            continue
        label, rest = m.group(1).lower(), m.group(2).strip().strip("*_` ").strip()
        if label == "decision":  # "Decision: accept"
            if fold(rest) not in _ACCEPTS:
                raise ReplyError(
                    f"'Decision: {rest[:60]}' is not a move: write 'Accept' to accept the "
                    "current proposal, or 'Proposal: ...'"
                )
            label, rest = "accept", ""
        if label == "accept":
            if fold(rest) not in _ACCEPTS:
                continue  # a sentence that starts with the word ("Accepting that, ...")
            moves.append(Reply("accept"))
        elif label in ("final", "final decision"):
            moves.append(_decision(game, rest, "final"))
        else:
            moves.append(_decision(game, rest, "propose"))
    if not moves:
        return Reply("talk")
    if len(moves) > 1:
        kinds = ", ".join(m.kind for m in moves)
        raise ReplyError(
            f"one move a turn: this reply has {len(moves)} ({kinds}); write one 'Proposal:', "
            "'Accept' or 'Final:' line"
        )
    return moves[0]


def _split(rest: str) -> list[str]:
    parts = re.split(r"\s*[;\n]\s*|\s*,\s*", rest)
    return [p.strip().strip("\"'`*. ").strip() for p in parts if p.strip().strip("\"'`*. ")]


def _decision(game: MenuGame | AllocationGame, rest: str, kind: str) -> Reply:
    if fold(rest) in _NONE:
        if kind == "final":
            raise ReplyError("'Final:' needs the allocation you decide, e.g. 'Final: T1 -> leader'")
        return Reply("talk")
    if isinstance(game, MenuGame):
        return _menu_decision(game, rest, kind)
    return _allocation_decision(game, rest, kind)


def _menu_decision(game: MenuGame, rest: str, kind: str) -> Reply:
    names = {fold(d): d for d in game.dishes}
    said = _split(rest)
    if len(said) > len(game.dishes):
        raise ReplyError(
            f"a menu lists each dish at most once: at most {len(game.dishes)} names, got "
            f"{len(said)}"
        )
    dishes = tuple(names.get(fold(s), s) for s in said)
    unknown = tuple(s for s in said if fold(s) not in names)
    if len(unknown) == len(said):
        raise ReplyError(
            f"no dish in '{rest[:80]}' is on the list; name dishes as listed, separated by "
            f"semicolons (e.g. 'Proposal: {shown(game.dishes[0])}; {shown(game.dishes[1])}')"
        )
    return Reply(kind, dishes, unknown)


def _allocation_decision(game: AllocationGame, rest: str, kind: str) -> Reply:
    tasks = {fold(t): t for t in game.tasks}
    tasks.update({fold(task_ref(i)): t for i, t in enumerate(game.tasks)})
    agents = {fold(a): a for a in ALLOCATION_SEATS}
    agents.update({fold(b): a for a, b in zip(ALLOCATION_SEATS, AUTHORS_AGENTS, strict=True)})
    pairs, unknown = [], []
    for chunk in _split(rest):
        parts = _PAIR.split(chunk, maxsplit=1)
        if len(parts) != 2:
            unknown.append(chunk)
            continue
        task, agent = (p.strip().strip("\"'`*. ") for p in parts)
        t, a = tasks.get(fold(task)), agents.get(fold(agent))
        pairs.append((t or task, a or agent))
        unknown += [n for n, hit in ((task, t), (agent, a)) if hit is None]
    if len(pairs) > len(game.tasks):
        raise ReplyError(
            f"an allocation gives each task at most once: at most {len(game.tasks)} pairs, got "
            f"{len(pairs)}"
        )
    if not pairs:
        raise ReplyError(
            f"no 'task -> agent' pair in '{rest[:80]}'; write e.g. 'Proposal: T1 -> worker_0; "
            "T2 -> leader' (tasks by number or name, agents worker_0, worker_1, leader)"
        )
    return Reply(kind, tuple(pairs), tuple(unknown))


def move_text(game: MenuGame | AllocationGame, reply: Reply) -> str:
    """A move as the reply line that makes it (:func:`read_reply` reads it back)."""
    if reply.kind == "talk":
        return ""
    if reply.kind == "accept":
        return "Accept"
    label = "Final" if reply.kind == "final" else "Proposal"
    if isinstance(game, MenuGame):
        return f"{label}: {menu_text(game, reply.decision)}"
    return f"{label}: {allocation_text(game, reply.decision)}"


# -- rules --------------------------------------------------------------------------------------

_REPLY_HELP = """\
How to reply: write your message to your partners in plain words; everything you write is
heard by them (up to {limit:,} characters). Your move is one labelled line in the reply:
{moves}
A reply without such a line is talk only. One move a turn."""


def menu_rules(agent: str, round_limit: int, limit: int, level: str, full_observation: bool) -> str:
    """The menu design task as told to ``agent``."""
    partner = next(s for s in MENU_SEATS if s != agent)
    k = MENU_SEATS.index(agent)
    if full_observation and level == "semantic":
        sees = (
            "You see everything both of you know: the whole stock and both your and your "
            "partner's partial descriptions of the guests. No one sees the guests' numeric "
            "values: judge from the descriptions."
        )
    elif full_observation:
        sees = "You see everything both of you know: the whole stock and both guests' values."
    elif level == "semantic":
        sees = (
            "You see your own share of the ingredient stock and a partial description of both "
            "guests (some details are hidden from you; your partner sees other details). No one "
            "sees the guests' numeric values: judge from the descriptions."
        )
    else:
        sees = (
            f"You see your own share of the ingredient stock and {guest_name(k)}'s value of "
            f"every dish; {partner} sees the rest of the stock and {guest_name(1 - k)}'s values."
        )
    moves = (
        "  Proposal: <dish>; <dish>; ...   proposes a menu (dish names as listed)\n"
        "  Accept                          accepts your partner's current proposal"
    )
    return f"""\
You are {agent}, planning a dinner menu for two guests together with {partner}.
{sees}
The menu is a set of the listed dishes, each at most once. It earns the sum, over its dishes,
of the two guests' mean value of the dish, if the whole stock (yours and {partner}'s together)
covers every ingredient the menu needs; a menu that needs more than the stock earns nothing.
Talk in turns, {partner} and you, for at most {round_limit} rounds. The talk ends when one of
you accepts the other's current proposal: that menu is the decision. With no acceptance after
round {round_limit}, the menu is empty and earns nothing.
{_REPLY_HELP.format(limit=limit, moves=moves)}"""


def allocation_rules(agent: str, round_limit: int, limit: int, full_observation: bool) -> str:
    """The task allocation task as told to ``agent``."""
    role = "the leader" if agent == "leader" else "a worker"
    if full_observation:
        sees = "You see everything the team knows: every agent's resources and task values."
    else:
        sees = (
            "You see your own private resources, your share of each public resource (the team's "
            "total is the sum of the three shares), and your own value of each task; the tasks' "
            "resource needs are known to all."
        )
    moves = "  Proposal: T1 -> worker_0; T2 -> leader; ...  proposes an allocation"
    if agent == "leader":
        moves += (
            "\n  Final: T1 -> worker_0; ...                    decides it (ends the talk)"
            "\n  Accept                                        makes the current proposal final"
        )
    return f"""\
You are {agent}, {role} in a team of three (worker_0, worker_1 and leader) that splits tasks.
{sees}
Each task goes to at most one agent, and may stay unassigned. An allocation earns the sum of
each assigned agent's value of its task, if no agent uses more of its private resources than
it has and the team uses no more of each public resource than the three shares together; an
allocation that overuses any resource earns nothing.
Everyone talks and proposes, in turns, for at most {round_limit} rounds; only the leader decides,
which ends the talk. If the leader has not decided after round {round_limit}, the leader's last
proposal stands (else worker_1's, else worker_0's).
{_REPLY_HELP.format(limit=limit, moves=moves)}"""


# -- beliefs ------------------------------------------------------------------------------------

#: The head of a belief's last section: the latest observation, kept whole (the belief replaces
#: the history in a belief-mode prompt, so it carries what the agent sees now).
LATEST = "Latest observation:"


_DIALOGUE_END = ("\n\nNote: ", "\n\nIt is your turn", "\n\nWait: ", "\n\nThe talk is over")


def without_dialogue(observation: str) -> str:
    """An observation without its private facts and dialogue (a belief states them as facts)."""
    start = observation.find("\n\nWhat you know privately:\n")
    end = observation.find("\n\n", start + 2) if start >= 0 else -1
    if start >= 0 and end > start:
        observation = observation[:start] + observation[end:]
    start = observation.find("\n\nDialogue so far:\n")
    if start < 0:
        return observation
    ends = [observation.rfind(marker) for marker in _DIALOGUE_END]
    end = max((e for e in ends if e > start), default=len(observation))
    return observation[:start] + observation[end:]


def holder(key: tuple) -> str | None:
    """The seat whose private fact ``key`` is (``None`` for other facts)."""
    kind = key[0]
    if kind == "value":
        return MENU_SEATS[key[1]] if key[1] in (0, 1) else None
    if kind == "profile":
        return key[2]
    if kind in ("stock", "capacity", "public_share", "task_value"):
        return key[1]
    return None


def with_observation(belief: str, observation: str) -> str:
    """``belief`` with its latest-observation section set to ``observation``, less the dialogue.

    The belief replaces the history in a belief-mode prompt, so it carries what the agent sees
    now; what partners said is in the belief's fact sentences (and a belief is kept short).
    """
    seen = without_dialogue(observation).strip()
    return f"{belief.split(LATEST)[0].rstrip()}\n\n{LATEST}\n{seen}"


def belief_template(game: MenuGame | AllocationGame, seat: int, semantic: bool) -> str:
    """The belief an agent starts from: its own facts, the partners' unknown, in fact sentences.

    Rewritten as the agent learns (an LLM agent in belief mode rewrites it each turn); the
    lines that state numbers are read back with :func:`parse_facts`.
    """
    seats = MENU_SEATS if isinstance(game, MenuGame) else ALLOCATION_SEATS
    me = seats[seat]
    lines = ["What I believe about the numbers the decision depends on:"]
    lines.append(facts_text(private_facts(game, seat, semantic)))
    for k, other in enumerate(seats):
        if other == me:
            continue
        if isinstance(game, MenuGame):
            lines.append(f"Stock held by {other}: unknown.")
            if semantic:
                lines += [f"{guest_name(g)} as {other} sees them: unknown" for g in (0, 1)]
            else:
                lines.append(f"{guest_name(k)} values: unknown.")
        else:
            lines.append(f"Private resources of {other}: unknown.")
            lines.append(f"Public resources seen by {other}: unknown.")
            lines.append(f"Task values for {other}: unknown.")
    lines.append("Value of the current proposal: unknown.")
    return "\n".join(lines) + f"\n\n{LATEST}\n(none yet)"
