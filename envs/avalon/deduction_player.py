"""The deduction player: Avalon decided from the exact posterior of :mod:`.deduction`.

It reads only its own text observations, as the rule-based bot does, and rebuilds its
:class:`~.deduction.Evidence` from the latest one each turn (each observation states the start
knowledge, the Lady of the Lake's answers, its own quest cards and the whole proposal history).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.deduction import (
    BehaviourModel,
    Evidence,
    Posterior,
    SeenProposal,
    posterior,
)
from mase.envs.avalon.roles import (
    FAILS_NEEDED,
    MAX_REJECTIONS,
    ROLES,
    SEES_MERLIN_OR_MORGANA,
    TEAMS,
)
from mase.envs.avalon.text import LADY_HEADER, parse_facts, parse_history, parse_own_cards
from mase.protocol import split_messages

# -- reading -------------------------------------------------------------------------------

_ROLES_IN_PLAY = re.compile(r"roles in this game: ([^.]+)\.")


def roles_from_rules(rules: str) -> tuple[str, ...]:
    """The game's role set as the rules text states it (``2 Loyal Servant`` is two)."""
    m = _ROLES_IN_PLAY.search(rules)
    if not m:
        raise ValueError("the rules text does not state the roles in this game")
    roles: list[str] = []
    for part in m.group(1).split(", "):
        count, _, name = part.partition(" ")
        if count.isdigit() and name in ROLES:
            roles += [name] * int(count)
        else:
            roles.append(part)
    return tuple(sorted(roles))


@dataclass
class _Seen:
    """What the player read from its own observations."""

    start: set[str] = field(default_factory=set)  # whom its role showed it as evil
    roles: dict[str, str] = field(default_factory=dict)  # other seats' roles it was told
    lady: dict[str, str] = field(default_factory=dict)  # sides the Lady of the Lake showed it
    cards: dict[int, int] = field(default_factory=dict)  # quest (1-based) -> its own card
    history: list[dict] = field(default_factory=list)


class DeductionPlayer(AvalonBot):
    """An Avalon player that decides from the exact posterior of :func:`posterior`.

    It reads only its own text observations (as :class:`~.bots.AvalonBot` does) and rebuilds
    its :class:`Evidence` from them each turn. On the good side it proposes the team most
    likely to hold no evil player, approves a team whose chance of being clean is at least
    ``approve_ratio`` of the best team's (and any team the official fifth rejection would
    lose), examines the player whose side it is least sure of with the Lady of the Lake, and
    says whom it thinks most likely evil. On the evil side it plays as the rule-based bot,
    except that the Assassin names the player most likely to be Merlin. Merlin speaks as the
    bot's Merlin does, from the quests alone, so as not to give himself away.

    Args:
        seed: the tie-breaking seed until ``reset`` gives one.
        model: the behaviour model of the other players.
        approve_ratio: how close to the best team a team must come to be approved.
    """

    def __init__(
        self,
        seed: int | None = None,
        model: BehaviourModel | None = None,
        approve_ratio: float = 0.8,
    ):
        super().__init__(seed)
        self.model = model or BehaviourModel()
        self.approve_ratio = approve_ratio

    def start(self, agent: str, rules: str, seed: int | None = None) -> None:
        """Begin a game: the bot's reading, the role set, and a fresh record of what it saw."""
        super().start(agent, rules, seed)
        self.roles = roles_from_rules(rules)
        self.seen = _Seen()
        self._post: tuple[Evidence, Posterior] | None = None

    def observe(self, text: str) -> None:
        """Take in an observation: the bot's facts, the start knowledge, the Lady, the history.

        The observation's first line is what the role showed at the start (and, at the end,
        the roles the Assassin's act made public); the Lady of the Lake's answers have their
        own line; the proposal history is listed in full. So every observation holds all the
        evidence, and the player needs no earlier one.
        """
        super().observe(text)
        own, _ = split_messages(text)
        first, _, rest = own.partition("\n")
        start = parse_facts(first)
        sides = {k[1]: v for k, v in start.items() if k[0] == "side"}
        self.seen.start = {s for s, v in sides.items() if s != self.agent and v == "evil"}
        self.seen.roles = {
            k[1]: v for k, v in start.items() if k[0] == "role" and k[1] != self.agent
        }
        lady = next((line for line in rest.splitlines() if line.startswith(LADY_HEADER)), "")
        self.seen.lady = {k[1]: v for k, v in parse_facts(lady).items() if k[0] == "side"}
        self.seen.history = parse_history(text)
        self.seen.cards = parse_own_cards(own)

    def evidence(self) -> Evidence:
        """What this seat has seen, from its own observations."""
        index = {name: i for i, name in enumerate(self.seats)}
        seat = index[self.agent]
        seen = frozenset(index[s] for s in self.seen.start)
        pair: tuple[int, ...] = ()
        if self.role in SEES_MERLIN_OR_MORGANA:
            pair = tuple(sorted(index[s] for s in self.pair))
            if not pair:  # no Morgana in the game: Percival was shown Merlin himself
                pair = tuple(index[s] for s, r in self.seen.roles.items() if r == "Merlin")
        shown = seen | (set(pair) if len(pair) == 1 else set())
        later = tuple(
            (index[s], side) for s, side in sorted(self.seen.lady.items()) if index[s] not in shown
        )
        known_roles = tuple(sorted((index[s], r) for s, r in self.seen.roles.items()))
        proposals = tuple(
            SeenProposal(
                h["quest"] - 1,
                index[h["leader"]],
                tuple(sorted(index[s] for s in h["team"])),
                None
                if h["votes"] is None
                else tuple(int(h["votes"].get(s) == "approve") for s in self.seats),
                h["default"],
            )
            for h in self.seen.history
        )
        quests = sorted(self.fails)
        return Evidence(
            roles=self.roles,
            seat=seat,
            role=self.role,
            seen=seen,
            pair=pair,
            sides=later,
            known_roles=known_roles,
            proposals=proposals,
            fails=tuple(self.fails[k] for k in quests),
            own_cards=tuple(self.seen.cards.get(k, 0) for k in quests),
        )

    def posterior(self) -> Posterior:
        """The posterior from this seat's evidence (kept until the evidence changes)."""
        ev = self.evidence()
        if self._post is None or self._post[0] != ev:
            self._post = (ev, posterior(ev, self.model))
        return self._post[1]

    def _deciding(self) -> Posterior:
        """The posterior Merlin acts on: his own only when one more failed quest loses.

        Acting on all he sees gives him away to the Assassin, so until then he proposes and
        votes from what a loyal servant in his seat would know (the public posterior).
        """
        if self.role != "Merlin":
            return self.posterior()
        failed = sum(map(self._quest_failed, self.fails))
        if failed >= 2 or "Loyal Servant" not in self.roles:
            return self.posterior()
        ev = self.evidence()
        cover = Evidence(ev.roles, ev.seat, "Loyal Servant", proposals=ev.proposals,
                         fails=ev.fails, own_cards=ev.own_cards)  # fmt: skip
        return posterior(cover, self.model)

    def _quest_failed(self, k: int) -> bool:
        return self.fails[k] >= FAILS_NEEDED[self.n][k - 1]

    # -- deciding -----------------------------------------------------------------------------

    def _best(self, options: list[Any], scores: np.ndarray) -> Any:
        best = np.flatnonzero(np.isclose(scores, scores.max()))
        return options[int(best[self.rng.integers(len(best))])]

    def propose(self, size: int) -> str:
        """Good: the team most likely clean. Evil: as the bot."""
        if self.evil:
            return super().propose(size)
        teams = list(TEAMS[self.n][size])
        team = self._best(teams, self._deciding().p_clean(teams))
        return "propose " + ", ".join(self.seats[i] for i in team)

    def vote(self) -> str:
        """Good: approve a team nearly as likely clean as the best one. Evil: as the bot."""
        if self.evil:
            return super().vote()
        team = self.proposals[(self.quest, self.rejections)].team
        self.last_voted = (self.quest, self.rejections)
        if not self.forced and self.rejections == MAX_REJECTIONS - 1:
            return "approve"
        index = {name: i for i, name in enumerate(self.seats)}
        ours = tuple(sorted(index[s] for s in team))
        teams = list(TEAMS[self.n][len(ours)])
        clean = self._deciding().p_clean(teams)
        mine = clean[teams.index(ours)]
        return "approve" if mine >= self.approve_ratio * clean.max() - 1e-12 else "reject"

    def assassinate(self) -> str:
        """The player most likely to be Merlin."""
        p = self.posterior().p_role("Merlin")
        others = [i for i in range(self.n) if self.seats[i] != self.agent]
        target = self._best(others, p[others])
        return f"assassinate {self.seats[target]}"

    def examine(self, legal: list[str]) -> str:
        """The legal player whose side this seat is least sure of."""
        p = self.posterior().p_evil()
        index = [self.seats.index(s) for s in legal]
        return f"examine {self._best(legal, -np.abs(p[index] - 0.5))}"

    def speak(self) -> str:
        """Good (but Merlin): the players most likely evil, with the chances. Else: the bot."""
        if self.evil or self.role == "Merlin":
            return super().speak()
        p = self.posterior().p_evil()
        order = [i for i in np.argsort(-p, kind="stable") if self.seats[i] != self.agent]
        top = [i for i in order[: self.n_evil] if p[i] > 0]
        if not top:
            return "I have no reason to doubt anyone yet."
        said = ", ".join(f"{self.seats[i].capitalize()} ({p[i]:.0%})" for i in top)
        return f"Most likely evil, by my count: {said}."


def make_player(arg: str | None = None) -> DeductionPlayer:
    """The deduction player by name (``mase eval ... --team scripted,good=deduction``)."""
    if arg:
        raise ValueError(f"the deduction player takes no ':' argument, got {arg!r}")
    return DeductionPlayer()
