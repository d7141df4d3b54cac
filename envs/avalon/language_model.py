"""Avalon's offline language model: the deduction player, reading its chat prompt.

A test double for a real model (``mase serve``, and ``--team llm`` without an endpoint): it
sees only the chat messages an :class:`~mase.agents.LLMAgent` or
:class:`~mase.agents.codeact.CodeActAgent` sends, finds the rules and the latest observation in
them, and answers as :class:`.deduction_player.DeductionPlayer` would from that observation (each
observation holds everything the seat has seen: the start knowledge, the Lady's answers, the
whole proposal history). Its replies:

* **action**: ``Action selection: <move>`` (the move alone in a discussion, where what one
  says is the move). Given a program's output (a CodeAct prompt) that states each player's
  chance of being evil, the good side proposes and votes from those numbers instead of its own
  posterior, so the program's reasoning drives the move.
* **code**: :data:`PROGRAM`, a program that enumerates every set of evil players consistent
  with the facts (sides known, fail cards on each quest, its own cards), weighs each by the
  chance of the fails seen, and prints each player's chance of being evil as JSON.
* **belief**: the belief format of :mod:`.beliefs`, from the posterior (the oracle belief of
  what it read), ending with the observation it read; given a belief alone (belief mode), it
  acts on the observation the belief holds.
* **question**: the probes of :mod:`.tom`: "Is X on the evil side?" from its posterior; "Does X
  think you are on the evil side?" from X's posterior as a loyal servant in X's seat would see
  it (it cannot know X's role), or with certainty when it knows X is evil and it is not.

Where the evidence it read admits no deal of the roles (a prompt cut short), it plays as the
rule-based bot.
"""

from __future__ import annotations

import json
import re

import numpy as np

from mase import protocol
from mase.envs.avalon import tom
from mase.envs.avalon.beliefs import describe, latest_observation, with_observation
from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.deduction import Evidence, posterior
from mase.envs.avalon.deduction_player import DeductionPlayer
from mase.envs.avalon.roles import MAX_REJECTIONS, ROLES, TEAMS
from mase.llm.offline import OfflineModel, Prompt

#: The program the offline model writes for a CodeAct request (it reads ``facts``).
PROGRAM = """\
import itertools
import json
from math import comb

players = facts["players"]
me = facts["me"]
known = facts["known_sides"]
fail = 0.75  # how often an evil player on a quest fails it
weights = {}
for evil in itertools.combinations(players, facts["evil_count"]):
    evil = set(evil)
    if (me in evil) != (facts["my_side"] == "evil"):
        continue
    if any((p in evil) != (side == "evil") for p, side in known.items()):
        continue
    w = 1.0
    for quest in facts["quests"]:
        mine = 1 if quest["my_card"] == "fail" else 0
        others = [p for p in quest["team"] if p != me]
        bad = sum(p in evil for p in others)
        f = quest["fails"] - mine
        w *= comb(bad, f) * fail**f * (1 - fail) ** (bad - f) if 0 <= f <= bad else 0.0
    if w > 0:
        weights[frozenset(evil)] = w
total = sum(weights.values())
p_evil = {p: round(sum(w for e, w in weights.items() if p in e) / total, 4) for p in players}
print(json.dumps({"p_evil": p_evil}))
"""

_P_EVIL = re.compile(r"\{.*\"p_evil\".*\}", re.S)


class Mind(DeductionPlayer):
    """The deduction player, optionally steered by a program's per-player chances of evil."""

    program: dict[str, float] | None = None

    def read_program(self, output: str) -> None:
        """Take the players' chances of being evil from a program's JSON output, if stated."""
        found = _P_EVIL.search(output)
        try:
            chances = json.loads(found.group(0))["p_evil"] if found else None
        except (ValueError, KeyError, TypeError):
            chances = None
        if isinstance(chances, dict) and all(
            s in chances and isinstance(chances[s], int | float) for s in self.seats
        ):
            self.program = {s: float(chances[s]) for s in self.seats}

    def _clean(self, teams: list[tuple[int, ...]]) -> np.ndarray:
        """Each team's chance of holding no evil player: the program's, else the posterior's."""
        if self.program is None:
            return self._deciding().p_clean(teams)
        good = np.array([1.0 - self.program[s] for s in self.seats])
        return np.array([np.prod(good[list(t)]) for t in teams])

    def propose(self, size: int) -> str:
        """The team most likely clean."""
        if self.evil:
            return AvalonBot.propose(self, size)
        teams = list(TEAMS[self.n][size])
        team = self._best(teams, self._clean(teams))
        return "propose " + ", ".join(self.seats[i] for i in team)

    def vote(self) -> str:
        """Approve a team nearly as likely clean as the best one (good); as the bot (evil)."""
        if self.evil:
            return AvalonBot.vote(self)
        team = self.proposals[(self.quest, self.rejections)].team
        self.last_voted = (self.quest, self.rejections)
        if not self.forced and self.rejections == MAX_REJECTIONS - 1:
            return "approve"
        ours = tuple(sorted(self.seats.index(s) for s in team))
        teams = list(TEAMS[self.n][len(ours)])
        clean = self._clean(teams)
        mine = clean[teams.index(ours)]
        return "approve" if mine >= self.approve_ratio * clean.max() - 1e-12 else "reject"


class AvalonModel(OfflineModel):
    """The offline model of ``mase/Avalon-v0`` (module docstring)."""

    rules_head = r"You are (?P<agent>[A-Z][a-z]+), one of \d+ players of The Resistance: Avalon"
    cannot_act = protocol.REPLY_FORMAT.format(
        action="none", message="I cannot read my prompt, so I choose no action."
    )
    observation_head = r"(?mi)^You are {agent}, seat \d+ of \d+\."

    def mind(self, prompt: Prompt) -> Mind | None:
        """The deduction player of the prompt's seat, having read its latest observation."""
        seen = self.observation(prompt)
        if seen is None or prompt.agent is None:
            return None
        mind = Mind.from_rules(prompt.agent, prompt.rules, seed=0)
        mind.observe(seen)
        if prompt.outputs:
            mind.read_program(prompt.outputs[-1])
        return mind

    @staticmethod
    def observation(prompt: Prompt) -> str | None:
        """The latest observation: the prompt's, else the one its latest belief holds."""
        if prompt.observations:
            return prompt.observations[-1]
        return latest_observation(prompt.beliefs[-1]) if prompt.beliefs else None

    def act(self, prompt: Prompt) -> str:
        """The deduction player's move, as a reply."""
        mind = self.mind(prompt)
        if mind is None:
            return self.cannot_act
        observation = {"text": self.observation(prompt)}
        try:
            move = mind.act(observation, {})
        except ValueError:  # the evidence read admits no deal: play as the bot
            move = AvalonBot.act(mind, observation, {})
        if mind.phase == "discuss":
            return move
        return protocol.REPLY_FORMAT.format(action=move, message="")

    def write_code(self, prompt: Prompt) -> str:
        """:data:`PROGRAM`, in a fenced block."""
        return f"Here is my program.\n```python\n{PROGRAM}```"

    def rewrite_belief(self, prompt: Prompt) -> str:
        """The belief the posterior supports (the format of :mod:`.beliefs`)."""
        mind, seen = self.mind(prompt), self.observation(prompt)
        if mind is None:
            return self.cannot_read(prompt)
        try:
            ev = mind.evidence()
            return with_observation(describe(ev, posterior(ev, mind.model), mind.seats), seen)
        except ValueError:  # the evidence read admits no deal: keep the last belief
            return with_observation(prompt.beliefs[-1] if prompt.beliefs else "", seen)

    def answer(self, prompt: Prompt) -> str:
        """Yes or no to a probe of :mod:`.tom`, with the chance behind it."""
        mind = self.mind(prompt)
        asked = tom.read_question(prompt.question)
        if mind is None or asked is None:
            return self.cannot_answer
        level, other = asked
        try:
            ev = mind.evidence()
            j = mind.seats.index(other)
            if level == "first_order":
                p = float(posterior(ev, mind.model).p_evil()[j])
                why = f"I put {other.capitalize()}'s chance of being evil at {p:.0%}."
            else:
                p = _their_view(mind, ev, j)
                why = f"From {other.capitalize()}'s seat I would put my chance at {p:.0%}."
        except ValueError:
            return self.cannot_answer
        return f"{'Yes' if p > 0.5 else 'No'}. {why}"


def _their_view(mind: Mind, ev: Evidence, j: int) -> float:
    """How likely seat ``j`` thinks this seat is evil, as this seat can tell.

    An evil ``j`` it knows of knows its side (evil players see each other, but Oberon); else
    ``j`` is taken for a loyal servant who saw the same public history.
    """
    me_evil = ROLES[ev.role] == "evil"
    if j in ev.seen and me_evil and ev.role != "Oberon":
        return 1.0
    if "Loyal Servant" not in ev.roles:
        return 0.5
    theirs = Evidence(
        ev.roles, j, "Loyal Servant", proposals=ev.proposals, fails=ev.fails,
        own_cards=tuple(0 for _ in ev.fails),
    )  # fmt: skip
    try:
        return float(posterior(theirs, mind.model).p_evil()[ev.seat])
    except ValueError:
        return 0.5


#: The model ``mase serve`` runs for Avalon (an :class:`~mase.llm.offline.OfflineModel`).
respond = AvalonModel()
