"""Theory of Mind in Avalon: role deduction as probes, scored exactly.

After each quest's result every player is asked two questions at its next turn:

* **first order**, "Is Charlie on the evil side?" about one other player drawn with the probe's
  seeded generator; the true answer is Charlie's side (the truth, not what one could deduce);
* **second order**, "Does Delta think you are on the evil side?" about another player drawn
  likewise; the reference answer is what Delta's exact posterior says
  (:mod:`.deduction`, from everything Delta has seen at the time of asking): yes when Delta's
  posterior gives the asked player more than even odds of being evil. An evil Delta who knows
  the asked player's side answers with certainty; a loyal servant answers from the votes and
  quests.

Questions about sides are asked of every role; the kind is ``"side"``. (AvalonPlay scores role
deduction the same way: whether each player's side is identified.)

>>> import mase
>>> from mase.wrappers import ToMProbe
>>> env = ToMProbe(mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0))
>>> env.reset(seed=0)
>>> env.step("propose alpha, bravo")
>>> for _ in range(5):
...     env.step("approve")
>>> env.step("success"); env.step("success")
>>> [q["question"] for q in env.infos[env.agent_selection]["tom_questions"]]
['Is Charlie on the evil side?', 'Does Charlie think you are on the evil side?']
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mase.envs.avalon.deduction import evidence, posterior
from mase.probes import ProbeContext, Question

FIRST = "Is {other} on the evil side?"
SECOND = "Does {other} think you are on the evil side?"
_FIRST = re.compile(r"^Is ([A-Za-z]+) on the evil side\?$")
_SECOND = re.compile(r"^Does ([A-Za-z]+) think you are on the evil side\?$")


def read_question(text: str) -> tuple[str, str] | None:
    """``("first_order" | "second_order", seat)`` for a question of this module, else ``None``."""
    text = text.strip()
    for level, pattern in (("first_order", _FIRST), ("second_order", _SECOND)):
        m = pattern.match(text)
        if m:
            return level, m.group(1).lower()
    return None


def role_questions(context: ProbeContext) -> Iterator[Question]:
    """After a quest's result: a first- and a second-order question to every player."""
    if not any(e.kind == "quest" for e in context.events):
        return
    env = context.env
    seats = list(env.possible_agents)
    for asked in seats:
        others = [s for s in seats if s != asked]
        rng = context.rng_for(asked)  # the asked seat's own stream
        about = others[int(rng.integers(len(others)))]
        yield _side_question(
            "first_order", asked, about, about,
            lambda tracker, truth, about=about: truth.get(("side", about)) == "evil",
        )  # fmt: skip
        thinker = others[int(rng.integers(len(others)))]
        yield _side_question(
            "second_order", asked, thinker, asked,
            lambda tracker, truth, j=thinker, i=asked: _thinks_evil(env, j, i),
        )  # fmt: skip


def _side_question(level: str, asked: str, about: str, whose_side: str, holds) -> Question:
    """A yes/no question to ``asked`` about ``about``, on the side of ``whose_side``."""
    template = FIRST if level == "first_order" else SECOND
    return Question(
        asked=asked,
        level=level,
        kind="side",
        question=template.format(other=about.capitalize()),
        facts=(("side", whose_side),),
        about=about,
        holds=holds,
    )


def _thinks_evil(env, thinker: str, other: str) -> bool:
    """Whether ``thinker``'s exact posterior, now, gives ``other`` more than even odds of evil."""
    seats = list(env.possible_agents)
    post = posterior(evidence(env.world, seats.index(thinker)))
    return bool(post.p_evil()[seats.index(other)] > 0.5)


#: The probe hooks ``ToMProbe`` loads from ``AvalonEnv.tom_probes``.
ROLE_PROBES = (role_questions,)
