"""Theory of Mind in deliberation: does a partner know my numbers, and does it know I know its?

At the end of every round each agent is asked two questions at its next turn, about one of its
partners and one private fact drawn with the probe's seeded generator:

* **first order**, "Does home_agent know how many units of eggs you hold?": true when the
  partner knows the asker's own private fact (the knowledge tracker: it was in a message the
  partner received, from the asker or anyone who knew it);
* **second order**, "Does home_agent know that you know its value of T3?" (allocation) or
  "... that you know Guest 2's value of Naan?" (menus): true when the partner knows that the
  asker knows the partner's private fact (common ground: the partner said it to the asker).

Questions are about the asker's or the partner's private facts (:func:`.text.private_facts`);
at the semantic level, about a guest's profile as an agent sees it.

>>> import mase
>>> from mase.wrappers import ToMProbe
>>> env = ToMProbe(mase.make("mase/MenuDesign-v0"))
>>> env.reset(seed=0)
>>> env.step("Hello."); env.step("Hello.")
>>> for q in env.infos[env.agent_selection]["tom_questions"]:
...     print(q["question"])
Does home_agent know Guest 1's value of Shrimp Dumplings?
Does home_agent know that you know Guest 2's value of Naan?
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mase.envs.deliberation import text as words
from mase.probes import ProbeContext, Question

_FIRST = re.compile(r"^Does ([a-z_0-9]+) know (.+?)\?$")
_SECOND = re.compile(r"^Does ([a-z_0-9]+) know that you know (.+?)\?$")


def describe(key: tuple, asker: str) -> str:
    """A private fact as a question names it, from ``asker``'s side."""
    kind = key[0]
    if kind == "stock":
        whose = "you hold" if key[1] == asker else f"{key[1]} holds"
        return f"how many units of {key[2]} {whose}"
    if kind == "value":
        return f"{words.guest_name(key[1])}'s value of {key[2]}"
    if kind == "profile":
        whose = "you see" if key[2] == asker else f"{key[2]} sees"
        return f"what {whose} of {words.guest_name(key[1])}'s profile"
    if kind == "capacity":
        whose = "your" if key[1] == asker else f"{key[1]}'s"
        return f"{whose} private {key[2]}"
    if kind == "public_share":
        whose = "your" if key[1] == asker else f"{key[1]}'s"
        return f"{whose} share of {key[2]}"
    whose = "your" if key[1] == asker else f"{key[1]}'s"
    return f"{whose} value of {key[2]}"


def read_question(text: str) -> tuple[str, str, str] | None:
    """``(level, partner, what)`` for a question of this module, else ``None``."""
    text = text.strip()
    m = _SECOND.match(text)
    if m:
        return "second_order", m.group(1), m.group(2)
    m = _FIRST.match(text)
    if m:
        return "first_order", m.group(1), m.group(2)
    return None


def knowledge_questions(context: ProbeContext) -> Iterator[Question]:
    """After each round: a first- and a second-order question to every agent."""
    env = context.env
    if context.agent != env.seats[-1] or env.game is None:
        return
    semantic = getattr(env, "_semantic", False)
    seats = list(env.seats)
    for asker in seats:
        others = [s for s in seats if s != asker]
        rng = context.rng_for(asker)  # the asked seat's own stream
        partner = others[int(rng.integers(len(others)))]
        own = sorted(words.private_facts(env.game, seats.index(asker), semantic), key=repr)
        theirs = sorted(words.private_facts(env.game, seats.index(partner), semantic), key=repr)
        mine = own[int(rng.integers(len(own)))]
        yield Question(
            asked=asker, level="first_order", kind="private_fact",
            question=f"Does {partner} know {describe(mine, asker)}?",
            facts=(mine,), about=partner,
        )  # fmt: skip
        other = theirs[int(rng.integers(len(theirs)))]
        yield Question(
            asked=asker, level="second_order", kind="private_fact",
            question=f"Does {partner} know that you know {_theirs(other, partner)}?",
            facts=(other,), about=partner,
        )  # fmt: skip


def _theirs(key: tuple, partner: str) -> str:
    """A partner's fact as the asker names it (``its value of T3``)."""
    said = describe(key, partner)
    return (
        said.replace("you hold", "it holds").replace("you see", "it sees").replace("your ", "its ")
    )


def fact_of(what: str, asker: str, partner: str) -> tuple[str, str, int | None] | None:
    """What a question's words name, for the offline mind.

    The fact kind, whose fact it is (a seat), and the guest (for a guest's values or profile).
    """
    if what.startswith("how many units of "):
        return "stock", asker if what.endswith("you hold") else partner, None
    guest = re.match(r"Guest (\d+)'s value of ", what)
    if guest:
        k = int(guest.group(1)) - 1
        return "value", words.MENU_SEATS[k] if k in (0, 1) else "", k
    profile = re.match(r"what (you|it|[a-z_0-9]+) sees? of Guest (\d+)'s profile$", what)
    if profile:
        seat = asker if profile.group(1) == "you" else partner
        return "profile", seat, int(profile.group(2)) - 1
    mine = what.startswith("your ")
    if " share of " in what:
        return "public_share", asker if mine else partner, None
    if " private " in what:
        return "capacity", asker if mine else partner, None
    if " value of " in what:
        return "task_value", asker if mine else partner, None
    return None


#: The probe hooks ``ToMProbe`` loads from the deliberation envs' ``tom_probes``.
PROBES = (knowledge_questions,)
