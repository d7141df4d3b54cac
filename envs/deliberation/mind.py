"""The deliberation mind: read a turn's text, pool what has been said, solve, and reply.

One mind serves the scripted deliberator (:class:`.bots.Deliberator`) and the offline model
(:mod:`.language_model`), and it reads only text, as a language model would: the public part
of the view (recipes, or tasks and their needs), every fact sentence in the view and the
dialogue (its own private facts and whatever partners said), the current proposal and the
round. Its policy, the paper's "state your numbers, then solve" deliberator:

* it states its own private facts once, in the fact sentences (:mod:`.text`), and asks for
  the others';
* once it knows everything the decision depends on (menus: both stock shares and both guests'
  values, or at the semantic level both agents' views of the guests, read through
  :mod:`.semantic`; allocations: every seat's capacities, public shares and task values), it
  solves the integer program (``scipy.optimize.milp``) and proposes the optimum, accepts a
  partner's proposal worth as much, or, as the leader, decides it;
* in the last round it decides with what it knows (unknown stock counts as none).

Two numbers make it imperfect, for offline studies of what deliberation loses: ``share``, the
chance it states each of its fact lines in a turn (drawn per line and turn), and ``slip``, the
chance a plan of its is the greedy one (dishes or tasks by value, kept while they fit) rather
than the optimum. Both draws are seeded by the text, so a reply is a function of the prompt.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mase.envs.deliberation import text as words
from mase.envs.deliberation.games import ALLOCATION_SEATS, MENU_SEATS

_ROUND = re.compile(r"^Round (\d+) of (\d+)\. You are ([a-z_0-9]+)\.", re.M)
_DISH = re.compile(r"^- (.+?): (.*)$")
_TASK = re.compile(r"^- (T\d+) (.*?): (.*)$")
_CURRENT = re.compile(r"^Current proposal \(by ([a-z_0-9]+), round (\d+)\): (.*)$", re.M)
_SPOKE = re.compile(r"^\[round \d+\] ([a-z_0-9]+): ", re.M)
#: The fact kinds that are some agent's private numbers (or view of a guest).
PRIVATE = ("stock", "value", "capacity", "public_share", "task_value", "profile")


def said_by(text: str) -> dict[str, dict[tuple, Any]]:
    """The facts each speaker stated in the dialogue a view shows."""
    section = text.split("Dialogue so far:\n", 1)
    if len(section) < 2:
        return {}
    out: dict[str, dict[tuple, Any]] = {}
    speaker, lines = None, []
    for line in [*section[1].split("\n\n", 1)[0].splitlines(), "[round 0] end: "]:
        m = _SPOKE.match(line)
        if m:
            if speaker is not None:
                out.setdefault(speaker, {}).update(words.parse_facts("\n".join(lines)))
            speaker, lines = m.group(1), [line[m.end() :]]
        else:
            lines.append(line)
    return out


def chance(*parts: Any) -> float:
    """A uniform draw in [0, 1) fixed by ``parts``."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass
class View:
    """What a turn's text says.

    Attributes:
        seat: who is reading; kind: ``"menu"`` or ``"allocation"``.
        round, round_limit: the round and the last one.
        items: menus: dish -> {ingredient: units}; allocations: task ref -> {seat: {res: n}}.
        names: task ref -> task name (allocations).
        facts: every fact sentence in the text (:func:`.text.parse_facts`).
        current: the proposal on the table: (proposer, its text), or ``None``.
        spoke: whether the reader has spoken already; text: the whole text.
    """

    seat: str
    kind: str
    round: int
    round_limit: int
    items: dict[str, Any] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    facts: dict[tuple, Any] = field(default_factory=dict)
    current: tuple[str, str] | None = None
    spoke: bool = False
    text: str = ""


def read_view(text: str) -> View | None:
    """A turn's text, read (``None`` when it is not a deliberation view)."""
    m = _ROUND.search(text)
    if m is None:
        return None
    r, limit, seat = int(m.group(1)), int(m.group(2)), m.group(3)
    if "Dishes and the units of each ingredient they need:" in text:
        view = View(seat, "menu", r, limit, text=text)
        section = text.split("Dishes and the units of each ingredient they need:", 1)[1]
        for line in section.split("\n\n", 1)[0].splitlines():
            d = _DISH.match(line.strip())
            if d:
                view.items[d.group(1)] = _needs(d.group(2))
    elif "Tasks and the resources they use:" in text:
        view = View(seat, "allocation", r, limit, text=text)
        section = text.split("Tasks and the resources they use:", 1)[1]
        for line in section.split("\n\n", 1)[0].splitlines():
            t = _TASK.match(line.strip())
            if t:
                view.names[t.group(1)] = t.group(2)
                view.items[t.group(1)] = _costs(t.group(3))
    else:
        return None
    view.facts = words.parse_facts(text)
    c = _CURRENT.search(text)
    if c:
        view.current = (c.group(1), c.group(3).strip())
    view.spoke = seat in _SPOKE.findall(text)
    return view


def _needs(text: str) -> dict[str, float]:
    out = {}
    for part in text.split(","):
        bits = part.strip().rsplit(" ", 1)
        if len(bits) == 2:
            try:
                out[bits[0]] = float(bits[1])
            except ValueError:
                pass
    return out


def _costs(text: str) -> dict[str, dict[str, float]]:
    if any(f"{s}:" in text for s in ALLOCATION_SEATS):
        out = {}
        for chunk in text.split(";"):
            seat, _, rest = chunk.strip().partition(":")
            out[seat.strip()] = _needs(rest) if rest.strip() != "nothing" else {}
        return out
    same = _needs(text) if text.strip() != "nothing" else {}
    return dict.fromkeys(ALLOCATION_SEATS, same)


def _cookbook() -> dict[str, Any]:
    from mase.envs.deliberation.games import source_data

    book = source_data()["cooking/full_data/cookbook.json"]
    return {words.fold(name): entry for name, entry in book.items()}


class Mind:
    """The mind (module docstring).

    Args:
        share: the chance it states each of its fact lines in a turn.
        slip: the chance a plan of its is the greedy one instead of the optimum.
        seed: the seed of its draws.
    """

    def __init__(self, share: float = 1.0, slip: float = 0.0, seed: int = 0):
        for name, value in (("share", share), ("slip", slip)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a chance, between 0 and 1: got {value}")
        self.share, self.slip, self.seed = share, slip, seed

    def reply(self, text: str, tools: bool = False, tool_result: str | None = None) -> str:
        """The reply to a turn's text (talk, and at most one move line).

        With ``tools`` (the prompt offers the solver, :mod:`.tools`) it plans by calling the
        solver on the numbers it has pooled (a ``Call:`` line), then with ``tool_result``
        (the solver's answer) it plans by that answer.
        """
        view = read_view(text)
        if view is None:
            return "I cannot read the game from my view, so I only listen this turn."
        self._tools, self._result = tools, tool_result
        if view.kind == "menu":
            return self._menu(view)
        return self._allocation(view)

    # -- beliefs and questions --------------------------------------------------------------

    def belief(self, text: str) -> str:
        """The belief a view supports, in the belief's sentences.

        Every private fact the view states (its own and what partners said), and the
        proposal's value once every number it depends on is known.
        """
        view = read_view(text)
        if view is None:
            return "I cannot read the game from my view."
        held = {k: v for k, v in view.facts.items() if k[0] in PRIVATE}
        value = self._proposal_value(view)
        if value is not None:
            held[("proposal_value",)] = value
        belief = "What I believe about the numbers the decision depends on:\n"
        return words.with_observation(belief + words.facts_text(held), text)

    def answer(self, question: str, text: str, agent: str) -> str:
        """Yes or no to a probe of :mod:`.tom`: whether the fact was said.

        First order: whether I said it to the partner; second order: whether the partner said
        it to me (then it knows I heard it).
        """
        from mase.envs.deliberation import tom

        asked = tom.read_question(question)
        if asked is None:
            return "No. I cannot read the question."
        level, partner, what = asked
        if level == "first_order" and self._sees_everything(text, agent):
            return f"Yes. {partner} sees every number, as I do."
        named = tom.fact_of(what, agent, partner)
        if named is None:
            return "No. I cannot tell which number the question means."
        kind, holder, guest = named
        speaker = agent if level == "first_order" else partner
        stated = said_by(text).get(speaker, {})
        said = any(
            k[0] == kind and words.holder(k) == holder and (guest is None or k[1] == guest)
            for k in stated
        )
        who = "I told" if level == "first_order" else "told me"
        if level == "first_order":
            why = f"{'I told' if said else 'I have not told'} {partner} that."
        else:
            why = f"{partner} {who if said else 'has not told me'} that{' itself' if said else ''}."
        return f"{'Yes' if said else 'No'}. {why}"

    @staticmethod
    def _sees_everything(text: str, agent: str) -> bool:
        """Whether the view's private section holds a partner's facts (full observation)."""
        section = text.split("What you know privately:\n", 1)
        if len(section) < 2:
            return False
        own = words.parse_facts(section[1].split("\n\n", 1)[0])
        return any(words.holder(k) not in (None, agent) for k in own)

    # -- speaking ---------------------------------------------------------------------------

    def _own_lines(self, view: View) -> list[str]:
        mine = {k: v for k, v in view.facts.items() if words.holder(k) == view.seat}
        lines = [line for line in words.facts_text(mine).splitlines() if line.strip()]
        return [
            line for line in lines
            if chance(self.seed, view.text[:200], view.seat, view.round, line) < self.share
        ]  # fmt: skip

    def _talk(self, view: View, complete: bool) -> str:
        lines = [] if view.spoke and complete else self._own_lines(view)
        if view.spoke and not complete:
            lines = self._own_lines(view)
        head = "Here is what I know." if lines else "I have shared what I know."
        ask = "" if complete else " Please share your private numbers too."
        return "\n".join([head + ask, *lines])

    # -- menus ------------------------------------------------------------------------------

    def _menu(self, view: View) -> str:
        dishes = list(view.items)
        ingredients = sorted({i for need in view.items.values() for i in need})
        stock_known = {s: {k[2]: v for k, v in view.facts.items() if k[:2] == ("stock", s)}
                       for s in MENU_SEATS}  # fmt: skip
        stock = {i: sum(stock_known[s].get(i, 0) for s in MENU_SEATS) for i in ingredients}
        semantic = any(k[0] == "profile" for k in view.facts)
        values, guests_known = self._menu_values(view, dishes, semantic)
        complete = all(stock_known[s] for s in MENU_SEATS) and guests_known
        last = view.round >= view.round_limit
        talk = self._talk(view, complete)
        if not (complete or last):
            return talk
        recipes = np.array([[view.items[d].get(i, 0) for i in ingredients] for d in dishes])
        cap = np.array([stock[i] for i in ingredients], dtype=np.float64)
        if self._tools:
            asked = {
                "stock": stock,
                "values": {d: round(float(v), 3) for d, v in zip(dishes, values, strict=True)},
            }
            plan = self._by_tool(
                "solve_menu", asked, "menu", {words.fold(d): i for i, d in enumerate(dishes)}
            )
            if plan is None:
                return f"Call: solve_menu({json.dumps(asked)})"
        else:
            plan = self._plan(values, recipes, cap, view)
        best = float(values[plan].sum()) if len(plan) else 0.0
        partner = view.current is not None and view.current[0] != view.seat
        if partner:
            theirs = [words.fold(x) for x in view.current[1].split("; ")]
            index = {words.fold(d): i for i, d in enumerate(dishes)}
            chosen = [index[x] for x in theirs if x in index]
            fits = (
                len(chosen) == len(theirs)
                and len(set(chosen)) == len(chosen)
                and bool((recipes[chosen].sum(axis=0) <= cap).all() if chosen else True)
            )
            if fits and chosen and float(values[chosen].sum()) >= best - 1e-9:
                return talk + "\nYour proposal is as good as any I can find.\nAccept"
        if not len(plan):
            return talk
        menu = "; ".join(dishes[i] for i in plan)
        return f"{talk}\nBy my count this menu is worth {best:.2f}.\nProposal: {menu}"

    def _menu_values(
        self, view: View, dishes: list[str], semantic: bool
    ) -> tuple[np.ndarray, bool]:
        if not semantic:
            rows = []
            for k in (0, 1):
                given = {key[2]: v for key, v in view.facts.items() if key[:2] == ("value", k)}
                rows.append([given.get(d, 0.0) for d in dishes])
            known = all(any(key[:2] == ("value", k) for key in view.facts) for k in (0, 1))
            return np.asarray(rows, dtype=np.float64).mean(axis=0), known
        from mase.envs.deliberation import semantic as meaning

        views = {s: [view.facts.get(("profile", k, s)) for k in (0, 1)] for s in MENU_SEATS}
        known = all(all(p is not None for p in views[s]) for s in MENU_SEATS)
        # what the dishes are is common knowledge (a model knows a tiramisu has cream): the
        # cookbook's entries, by name; a dish it lacks is known by its listed ingredients
        book = _cookbook()
        entries = {d: book.get(words.fold(d), {"ingredients": view.items[d]}) for d in dishes}
        base = np.array([meaning.base_value(int(sum(view.items[d].values()))) for d in dishes])
        total = np.zeros(len(dishes))
        for k in (0, 1):
            merged: dict[str, Any] = {}
            for s in MENU_SEATS:
                if isinstance(views[s][k], dict):
                    try:
                        merged = meaning.merge_profiles(merged, views[s][k])
                    except ValueError:  # two views that name different guests: keep the first
                        pass
            total += meaning.estimate_ratings(merged, entries, dishes) * base
        return total / 2.0, known

    # -- allocations ------------------------------------------------------------------------

    def _allocation(self, view: View) -> str:
        refs = list(view.items)
        seats = ALLOCATION_SEATS
        f = view.facts

        def of(kind: str, seat: str) -> dict[str, float]:
            return {k[2]: v for k, v in f.items() if k[:2] == (kind, seat)}

        caps = {s: of("capacity", s) for s in seats}
        shares = {s: of("public_share", s) for s in seats}
        vals = {s: of("task_value", s) for s in seats}
        complete = all(caps[s] and shares[s] and vals[s] for s in seats)
        last = view.round >= view.round_limit
        leader = view.seat == "leader"
        talk = self._talk(view, complete)
        if not complete and not (last and leader):
            return talk
        private = sorted({r for s in seats for r in caps[s]})
        public = sorted({r for s in seats for r in shares[s]})
        n, m = len(seats), len(refs)
        values = np.array([[vals[s].get(t, 0.0) for t in refs] for s in seats])
        rows, upper = [], []
        for a, s in enumerate(seats):
            for r in private:
                row = np.zeros(n * m)
                for t, ref in enumerate(refs):
                    row[a * m + t] = view.items[ref].get(s, {}).get(r, 0.0)
                rows.append(row)
                upper.append(caps[s].get(r, 0.0))
        for r in public:
            row = np.zeros(n * m)
            for a, s in enumerate(seats):
                for t, ref in enumerate(refs):
                    row[a * m + t] = view.items[ref].get(s, {}).get(r, 0.0)
            rows.append(row)
            upper.append(sum(shares[s].get(r, 0.0) for s in seats))
        for t in range(m):
            row = np.zeros(n * m)
            row[[a * m + t for a in range(n)]] = 1.0
            rows.append(row)
            upper.append(1.0)
        a_matrix, cap = np.array(rows), np.array(upper) + 1e-6
        if self._tools:
            asked = {
                "capacities": {s: caps[s] for s in seats},
                "public": {r: sum(shares[s].get(r, 0.0) for s in seats) for r in public},
                "values": {s: {t: vals[s].get(t, 0.0) for t in refs} for s in seats},
            }
            index = {(t, s): a * m + i for a, s in enumerate(seats) for i, t in enumerate(refs)}
            chosen = self._by_tool("solve_allocation", asked, "allocation", index)
            if chosen is None:
                return f"Call: solve_allocation({json.dumps(asked)})"
        else:
            chosen = self._plan(values.ravel(), a_matrix.T, cap, view)
        pairs = "; ".join(
            f"{refs[i % m]} -> {seats[i // m]}" for i in sorted(chosen, key=lambda i: i % m)
        )
        if not pairs:
            return talk
        if leader:
            return f"{talk}\nThis allocation is the best I can find.\nFinal: {pairs}"
        return f"{talk}\nProposal: {pairs}"

    # -- planning ---------------------------------------------------------------------------

    def _by_tool(self, name: str, asked: dict, key: str, index: dict) -> list[int] | None:
        """The plan the solver's answer gives (``None``: no answer yet, so call it)."""
        if self._result is None:
            return None
        try:
            answer = json.loads(self._result)[key]
        except (json.JSONDecodeError, KeyError, TypeError):
            return []  # the tool failed: no plan this turn
        if key == "menu":
            return sorted(index[words.fold(d)] for d in answer if words.fold(d) in index)
        return sorted(index[(t, s)] for t, s in answer.items() if (t, s) in index)

    def _plan(
        self, values: np.ndarray, needs: np.ndarray, cap: np.ndarray, view: View
    ) -> list[int]:
        """The best items (rows of ``needs``) within ``cap``: the optimum, or greedy on a slip."""
        if chance(self.seed, view.text[:200], view.seat, view.round, "slip") < self.slip:
            kept: list[int] = []
            used = np.zeros(needs.shape[1])
            for i in np.argsort(-values, kind="stable"):
                if values[i] > 0 and (used + needs[i] <= cap + 1e-9).all():
                    kept.append(int(i))
                    used += needs[i]
            return sorted(kept)
        from mase.envs.deliberation.scoring import _milp

        x = _milp(values, needs.T.astype(np.float64), cap)
        return [int(i) for i in np.flatnonzero(x) if values[i] > 0]

    def _proposal_value(self, view: View) -> float | None:
        """What the proposal on the table earns, if every number it depends on is known."""
        if view.current is None:
            return None
        if view.kind == "menu":
            dishes = list(view.items)
            ingredients = sorted({i for need in view.items.values() for i in need})
            stock = {s: {k[2]: v for k, v in view.facts.items() if k[:2] == ("stock", s)}
                     for s in MENU_SEATS}  # fmt: skip
            semantic = any(k[0] == "profile" for k in view.facts)
            values, known = self._menu_values(view, dishes, semantic)
            if semantic or not (known and all(stock.values())):
                return None
            index = {words.fold(d): i for i, d in enumerate(dishes)}
            chosen = [index.get(words.fold(x)) for x in view.current[1].split("; ")]
            if None in chosen:
                return 0.0
            cap = np.array([sum(stock[s].get(i, 0) for s in MENU_SEATS) for i in ingredients])
            need = np.array(
                [[view.items[dishes[c]].get(i, 0) for i in ingredients] for c in chosen]
            )
            if (need.sum(axis=0) > cap).any():
                return 0.0
            return round(float(sum(values[c] for c in chosen)), 2)
        return None  # allocations: the leader's plan is checked by the env, not estimated here
