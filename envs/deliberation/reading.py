"""What a deliberation text view states, as facts: the parity readers of both views.

:meth:`.env.DeliberationEnv.text_knowledge` reads a text view with :func:`text_facts`;
:mod:`.vector` writes and decodes the same facts. Both views read the dialogue the same way:
the turns the text shows (:func:`shown_turns`: the newest up to :data:`DIALOGUE_CHARS`), each
turn's move with the task's reply reader (:func:`.text.read_reply`) and its claims with the
task's claim reader (the fact sentences, :func:`.text.parse_facts`).

Fact keys:

==========================================  ====================================================
key                                         value
==========================================  ====================================================
``("round",)``                              the round shown (1 to the round limit)
``("turn",)``                               who acts now (``""`` once the talk is over)
``("dishes",)`` / ``("tasks",)``            the candidate dishes / tasks, in listed order
``("needs", dish, ingredient)``             units a dish needs (every listed ingredient)
``("cost", seat, task, resource)``          what a task uses of a resource if seat does it
private fact keys (:func:`.text.facts_text`) what the seat knows privately
``("current",)``                            ``None``, or (proposer, round, decision)
``("proposed", seat)``                      (round, decision) of seat's latest proposal line in
                                            the dialogue shown
``("left_out",)``                           earlier turns the dialogue leaves out
``("told", speaker, *fact key)``            the latest claim of each fact in a speaker's turns
                                            shown (:func:`held_claim` says which are kept)
``("note",)``                               the kind of note on the seat's last move (:data:`NOTES`)
``("end",)``                                ``None`` while the talk goes on, else (decision,
                                            verdict) (:data:`VERDICTS`)
==========================================  ====================================================

A decision is a tuple of items in listed order: menus, dish names (``None`` for a name that is
not a dish of the game); allocations, (task ref, seat) pairs (``None`` for a name that is not
a task, or an agent, of the game).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from mase.envs.deliberation import mind
from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import (
    ALLOCATION_SEATS,
    AUTHORS_AGENTS,
    Game,
    MenuGame,
)

#: How much of the dialogue a text view shows, newest last (older turns are left out).
DIALOGUE_CHARS = 9_000

#: The kinds of note a view may show on the seat's last move, and how each note begins.
NOTES: dict[str, tuple[str, ...]] = {
    "flagged_unknown": ("Your proposal cannot be a valid decision: no ",),
    "flagged_repeat": ("Your proposal cannot be a valid decision: ",),
    "no_final": ("menu design has no final decision",),
    "nothing_to_accept": ("there is no proposal",),
    "not_leader": ("only the leader decides",),
    "no_such_item": ("dish slots ", "task slots "),
    "invalid": ("",),  # any other invalid move (an unreadable reply, say)
}

#: The verdicts on a decision, and the words the end of the talk says them in.
VERDICTS: dict[str, str] = {
    "valid": "valid",
    "unknown": "invalid: it names something the game does not have",
    "repeat": "invalid: it names something more than once",
    "empty": "invalid: it is empty",
    "overuse": "invalid: it needs more than there is",
    "undecided": "",
}


def note_kind(note: str) -> str:
    """The kind of a note (:data:`NOTES`); ``""`` for no note."""
    if not note:
        return ""
    return next(k for k, starts in NOTES.items() if note.startswith(starts))


def verdict_of(reason: str) -> str:
    """The verdict (:data:`VERDICTS`) of a scoring reason (:class:`.scoring.Score`)."""
    if not reason:
        return "valid"
    if reason.startswith(("no dish is called", "unknown task or agent")):
        return "unknown"
    if reason.endswith(("listed more than once", "assigned more than once")):
        return "repeat"
    if reason in ("the menu is empty", "the allocation assigns no task"):
        return "empty"
    return "overuse"


# -- the dialogue -------------------------------------------------------------------------------


def turn_line(rnd: int, who: str, said: str) -> str:
    """A turn as the dialogue shows it; later lines indented, so none can pass for a turn."""
    return f"[round {rnd}] {who}: " + said.replace("\n", "\n    ")


def shown_turns(
    dialogue: Sequence[tuple[int, str, str]], budget: int = DIALOGUE_CHARS
) -> tuple[int, list[tuple[int, str, str]]]:
    """The turns a view shows (the newest, up to ``budget`` characters) and how many it leaves."""
    kept: list[tuple[int, str, str]] = []
    used = 0
    for turn in reversed(dialogue):
        line = turn_line(*turn)
        if used + len(line) > budget:
            break
        kept.append(turn)
        used += len(line)
    return len(dialogue) - len(kept), kept[::-1]


_TURN = re.compile(r"^\[round (\d+)\] ([a-z_0-9]+): (.*)$")
_LEFT_OUT = re.compile(r"^\((\d+) earlier turns left out\)$")


def read_dialogue(section: str) -> tuple[int, list[tuple[int, str, str]]]:
    """The turns a dialogue section lists, and how many it says it leaves out."""
    if section == "No one has spoken yet.":
        return 0, []
    lines = section.split("\n")
    if lines[0] != "Dialogue so far:":
        raise ValueError(f"not a dialogue section: {section[:60]!r}")
    left, turns = 0, []
    for line in lines[1:]:
        m = _LEFT_OUT.match(line)
        if m and not turns:
            left = int(m.group(1))
            continue
        m = _TURN.match(line)
        if m:
            turns.append([int(m.group(1)), m.group(2), m.group(3)])
        elif line.startswith("    ") and turns:
            turns[-1][2] += "\n" + line[4:]
        else:
            raise ValueError(f"not a dialogue line: {line[:60]!r}")
    return left, [tuple(t) for t in turns]


# -- decisions ----------------------------------------------------------------------------------


def canonical(game: Game, decision: Iterable[Any]) -> tuple:
    """A decision as its facts hold it (module docstring): names of the game, else ``None``."""
    if isinstance(game, MenuGame):
        dishes = set(game.dishes)
        return tuple(words.shown(d) if d in dishes else None for d in decision)
    tasks = {t: words.task_ref(i) for i, t in enumerate(game.tasks)}
    return tuple((tasks.get(t), a if a in ALLOCATION_SEATS else None) for t, a in decision)


def read_decision(game: Game, said: str) -> tuple:
    """A decision as a view writes it (:func:`.text.menu_text`, :func:`.text.allocation_text`)."""
    if said in ("(no dishes)", "(no tasks assigned)"):
        return ()
    if isinstance(game, MenuGame):
        names = {words.fold(d): words.shown(d) for d in game.dishes}
        return tuple(names.get(words.fold(s)) for s in said.split("; "))
    tasks = {words.fold(words.task_ref(i)): words.task_ref(i) for i in range(len(game.tasks))}
    tasks.update({words.fold(t): words.task_ref(i) for i, t in enumerate(game.tasks)})
    seats = {words.fold(a): a for a in ALLOCATION_SEATS}
    seats.update({words.fold(b): a for a, b in zip(ALLOCATION_SEATS, AUTHORS_AGENTS, strict=True)})
    pairs = []
    for chunk in said.split("; "):
        task, sep, agent = chunk.partition(" -> ")
        if not sep:
            raise ValueError(f"not a 'task -> agent' pair: {chunk[:60]!r}")
        pairs.append((tasks.get(words.fold(task)), seats.get(words.fold(agent))))
    return tuple(pairs)


def latest_proposals(game: Game, turns: Iterable[tuple[int, str, str]]) -> dict[str, tuple]:
    """``seat -> (round, decision)`` of each seat's latest proposal line in ``turns``."""
    out: dict[str, tuple] = {}
    for rnd, who, said in turns:
        try:
            reply = words.read_reply(game, said)
        except words.ReplyError:
            continue
        if reply.kind == "propose":
            out[who] = (rnd, canonical(game, reply.decision))
    return out


# -- claims -------------------------------------------------------------------------------------


def held_claim(env: Any, speaker: str, key: tuple, value: Any) -> tuple | None:
    """A claim as the vector holds it, ``(key, value)``, or ``None`` where it holds none.

    Kept: claims about the game's seats and guests, its in-stock ingredients, dishes, tasks
    and resources (names matched as the reply reader matches them, the key written with the
    game's names, a task by its ref), with a number from 0 to C (twice the largest of its kind
    in the env's games, :mod:`.vector`), and at the semantic level a speaker's description of
    the guests as it sees them, where the vector's profile fields hold it.
    """
    codec = env.codec
    if key[0] == "profile":
        if codec.profiles is None or key[1] not in (0, 1) or str(key[2]).lower() != speaker:
            return None
        return (("profile", key[1], speaker), value) if codec.profiles.holds(value) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    item = codec.claim_item(env.game, key)
    if item is None or not 0.0 <= value <= codec.scales[item[1]]:
        return None
    return item[0], float(value)


def told(env: Any, turns: Iterable[tuple[int, str, str]]) -> dict[tuple, Any]:
    """``("told", speaker, *key) -> value``: each speaker's latest held claim of each fact."""
    out: dict[tuple, Any] = {}
    for _, who, said in turns:
        for key, value in env.read_claims(who, said, {}).facts.items():
            held = held_claim(env, who, key, value)
            if held is not None:
                out[("told", who, *held[0])] = held[1]
    return out


# -- the whole view -----------------------------------------------------------------------------

_HEADER = re.compile(r"^Round (\d+) of (\d+)\. You are ([a-z_0-9]+)\.")
_CURRENT = re.compile(r"^Current proposal \(by ([a-z_0-9]+), round (\d+)\): (.*)$")
_END = re.compile(r"^The talk is over\. Decision: (.*); it is (.*)\.$")
_WAIT = re.compile(r"^Wait: it is ([a-z_0-9]+)'s turn\.$")
_PRIVATE = "What you know privately:\n"


def text_facts(env: Any, agent: str, text: str) -> dict[tuple, Any]:
    """Every fact a deliberation text view states (module docstring), read from the text."""
    game = env.game
    parts = text.split("\n\n")
    if len(parts) < 6 or not parts[2].startswith(_PRIVATE):
        raise ValueError("not a deliberation view: its sections are missing")
    m = _HEADER.match(parts[0])
    if m is None or m.group(3) != agent:
        raise ValueError(f"not {agent}'s view: {parts[0][:60]!r}")
    facts: dict[tuple, Any] = {("round",): int(m.group(1))}
    facts.update(_public_facts(game, parts[1]))
    facts.update(words.parse_facts(parts[2][len(_PRIVATE) :]))
    facts[("current",)] = _current(game, agent, parts[3])
    left, turns = read_dialogue(parts[4])
    facts[("left_out",)] = left
    for seat, proposal in latest_proposals(game, turns).items():
        facts[("proposed", seat)] = proposal
    facts.update(told(env, turns))
    note = parts[5][len("Note: ") :] if parts[5].startswith("Note: ") and len(parts) > 6 else ""
    facts[("note",)] = note_kind(note)
    facts.update(_last_line(game, agent, parts[-1]))
    return facts


def _public_facts(game: Game, section: str) -> dict[tuple, Any]:
    lines = section.split("\n")[1:]
    facts: dict[tuple, Any] = {}
    if isinstance(game, MenuGame):
        dishes = []
        for line in lines:
            d = mind._DISH.match(line)
            if d is None:
                raise ValueError(f"not a dish line: {line[:60]!r}")
            dishes.append(d.group(1))
            for ingredient, units in mind._needs(d.group(2)).items():
                facts[("needs", d.group(1), ingredient)] = units
        facts[("dishes",)] = tuple(dishes)
        return facts
    tasks = []
    for line in lines:
        t = mind._TASK.match(line)
        if t is None:
            raise ValueError(f"not a task line: {line[:60]!r}")
        tasks.append(t.group(2))
        for seat, costs in mind._costs(t.group(3)).items():
            for resource, amount in costs.items():
                facts[("cost", seat, t.group(1), resource)] = amount
    facts[("tasks",)] = tuple(tasks)
    return facts


def _current(game: Game, agent: str, section: str) -> tuple | None:
    if section == "No proposal is on the table yet.":
        return None
    m = _CURRENT.match(section)
    if m is None:
        raise ValueError(f"not a proposal line: {section[:60]!r}")
    by = agent if m.group(1) == "you" else m.group(1)
    return by, int(m.group(2)), read_decision(game, m.group(3))


def _last_line(game: Game, agent: str, line: str) -> dict[tuple, Any]:
    if line.startswith("It is your turn"):
        return {("turn",): agent, ("end",): None}
    m = _WAIT.match(line)
    if m:
        return {("turn",): m.group(1), ("end",): None}
    if line == "The talk is over.":
        return {("turn",): "", ("end",): ((), "undecided")}
    m = _END.match(line)
    if m is None:
        raise ValueError(f"not a turn or end line: {line[:60]!r}")
    verdict = next((k for k, said in VERDICTS.items() if said == m.group(2)), None)
    if verdict is None:
        raise ValueError(f"not a verdict: {m.group(2)!r}")
    return {("turn",): "", ("end",): (read_decision(game, m.group(1)), verdict)}
