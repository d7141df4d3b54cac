"""Rule-based Avalon players for every role, in the spirit of AvalonBench's naive bots.

One policy, :class:`AvalonBot`, plays any seat from what that seat is told: the rules text once,
then each turn its own text observation (its role and what the role sees, the results, the
current team, the last revealed votes, the Lady of the Lake's holder) and its own action mask.
It never looks at the world, so two games that read the same to a seat get the same moves.
Messages from other players are ignored: the bots trust only the moderator.

From the turns it plays the bot keeps a small record: each proposal it saw (quest, leader,
team), the votes revealed on it, and the team that went on each quest. Its rules:

- **Suspicion** (every role, from what the seat knows): the players on a failed quest share its
  fail cards (``fails / candidates`` each, leaving out oneself and players known good); a set
  of candidates no larger than the fails is known evil. The *suspected* players are the most
  suspicious ones with suspicion above zero, as many as evil players still unknown.
- **Good** (Loyal Servant, Percival, Merlin): propose oneself and the least suspicious players
  who are not known evil; approve a team with no known or suspected evil player (any team on
  the fifth proposal in a row, which a rejection would lose). Merlin knows the evil he sees.
  Percival trusts the member of his Merlin/Morgana pair whose votes looked like Merlin's
  (approving teams that then succeeded, rejecting teams that then failed) and suspects the
  other.
- **Evil** (Morgana, Assassin, Minion, Mordred, Oberon): propose oneself and the least
  suspicious players who are not known evil (one evil on the team looks clean); approve a team
  with at least one evil player one knows (Oberon: with himself). On a quest the known evil on
  the team, in seat order, play exactly the fails the quest needs and the others success;
  with too few known evil on the team to fail it, everyone plays success; and no fail on a
  two-player first quest, where it would point straight at its player (Oberon, who knows no
  one, fails whenever one fail suffices and the team is larger than two).
- **Assassin**: names the player, not known evil, whose moves looked most like Merlin's:
  +1 for each vote that rejected a team with a known evil player or approved one without,
  -1 for the opposite, +1 / -1 for proposing a team without / with one; ties by the seeded
  generator.
- **Lady of the Lake**: examines the most suspicious player she may (ties by the generator).
- **Discussion**: one sentence in words, "I trust Bravo and Charlie; I would not send Delta."

Example:
    >>> import mase
    >>> from mase.agents import RandomPolicy
    >>> from mase.runner import run_episode
    >>> env = mase.make("mase/Avalon-v0", n_players=5)
    >>> record = run_episode(env, {a: AvalonBot() for a in env.possible_agents}, seed=0)
    >>> record["metrics"]["valid_action_rate"]
    1.0
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from mase.agents.base import Policy
from mase.envs.avalon.roles import FAILS_NEEDED, MAX_REJECTIONS, ROLES, SEATS, SIDE_COUNTS
from mase.envs.avalon.text import PHASE_WORDS, parse_facts
from mase.protocol import split_messages

_PLAYERS = re.compile(r"one of (\d+) players")
_ROUND = re.compile(
    r"Quest (\d) of \d: .*? Rejected proposals in a row: (\d) of \d\. Leader: (\w+)\."
)
_SIZE = re.compile(r"propose a team of (\d+)")
_LADY = re.compile(r"The Lady of the Lake is held by (\w+)\.")
#: The phase named by the "Now: ..." line of an observation.
_NOW = {f"Now: {words}.": phase for phase, words in PHASE_WORDS.items()}
#: Roles that learn their evil teammates (Oberon knows no one).
_KNOWS_TEAMMATES = frozenset({"Morgana", "Assassin", "Mordred", "Minion of Mordred"})


@dataclass
class SeenProposal:
    """A proposal as a seat saw it: the votes on it once they are revealed."""

    quest: int  # 1-based
    rejections: int  # rejected proposals in a row before it
    leader: str
    team: tuple[str, ...]
    votes: dict[str, str] | None = None

    @property
    def approved(self) -> bool | None:
        """Whether the vote sent the team on the quest (``None`` before the reveal)."""
        if self.votes is None:
            return None
        return 2 * sum(v == "approve" for v in self.votes.values()) > len(self.votes)


class AvalonBot(Policy):
    """A rule-based Avalon player for any role, from its seat's observations alone.

    Args:
        seed: the seed of the tie-breaking generator until ``reset`` gives one.
    """

    #: Suspicion for each vote that went against a quest's outcome (approving a team that
    #: failed, rejecting one that succeeded).
    vote_weight = 0.25
    #: Whether evil holds back its fail on a first quest of two players.
    quiet_first_quest = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Read the rules told to ``agent``; forget the last game; reseed."""
        super().reset(agent, env, seed)
        self.start(agent, env.unwrapped.rules_text(agent), seed)

    @classmethod
    def from_rules(cls, agent: str, rules: str, seed: int | None = None) -> AvalonBot:
        """A bot that knows only the rules text; :meth:`act` then needs text observations."""
        bot = cls(seed)
        bot.env = None
        bot.start(agent, rules, seed)
        return bot

    def start(self, agent: str, rules: str, seed: int | None = None) -> None:
        """Begin a game as ``agent`` under ``rules`` (the env's ``rules_text``)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.agent = agent
        self.n = int(_PLAYERS.search(rules).group(1))
        self.n_evil = SIDE_COUNTS[self.n][1]
        self.forced = "without a vote" in rules
        self.seats = SEATS[: self.n]
        self.role = ""
        self.sides: dict[str, str] = {}  # what the moderator told this seat
        self.pair: tuple[str, ...] = ()
        self.proposals: dict[tuple[int, int], SeenProposal] = {}
        self.last_voted: tuple[int, int] | None = None
        self.fails: dict[int, int] = {}
        self.lady_held: set[str] = set()
        self.quest, self.rejections, self.leader, self.phase = 1, 0, "", "over"

    # -- reading ------------------------------------------------------------------------------

    def observe(self, text: str) -> None:
        """Take in one observation (only its own part: other players' messages may lie)."""
        own, _ = split_messages(text)
        facts = parse_facts(own)
        for (kind, *key), value in facts.items():
            if kind == "role" and key[0] == self.agent:
                self.role = value
            elif kind == "role":
                self.sides[key[0]] = ROLES[value]
            elif kind == "side" and key[0] != self.agent:
                self.sides[key[0]] = value
            elif kind == "merlin_or_morgana":
                self.pair = value
            elif kind == "fails":
                self.fails[key[0]] = value
        heading = _ROUND.search(own)
        if heading:
            self.quest, self.rejections = int(heading.group(1)), int(heading.group(2))
            self.leader = heading.group(3).lower()
        self.phase = next((p for line, p in _NOW.items() if line in own), "over")
        team = facts.get(("team", self.quest))
        if team is not None:
            key = (self.quest, self.rejections)
            self.proposals.setdefault(key, SeenProposal(*key, self.leader, tuple(team)))
        votes = {k[1]: v for k, v in facts.items() if k[0] == "vote"}
        # everyone votes at once, so the votes shown are those of the last vote this seat cast
        if votes and self.last_voted is not None:
            self.proposals[self.last_voted].votes = votes
        holder = _LADY.search(own)
        if holder:
            self.lady_held.add(holder.group(1).lower())

    def quest_team(self, k: int) -> tuple[str, ...] | None:
        """The team that went on quest ``k``: its last proposal, unless that was rejected."""
        last = max((p for p in self.proposals.values() if p.quest == k), default=None,
                   key=lambda p: p.rejections)  # fmt: skip
        return None if last is None or last.approved is False else last.team

    # -- beliefs ------------------------------------------------------------------------------

    @property
    def evil(self) -> bool:
        """Whether this seat is on the evil side."""
        return ROLES.get(self.role) == "evil"

    def beliefs(self) -> tuple[set[str], set[str], dict[str, float]]:
        """Known good, known evil and the suspicion of every other player."""
        good = {s for s, side in self.sides.items() if side == "good"}
        evil = {s for s, side in self.sides.items() if side == "evil"}
        if not self.evil:
            good.add(self.agent)
        suspicion = dict.fromkeys(self.seats, 0.0)
        for k, fails in self.fails.items():
            team = self.quest_team(k)
            if team is None or not fails:
                continue
            candidates = [s for s in team if s != self.agent and s not in good]
            if candidates and len(candidates) <= fails and not self.evil:
                evil.update(candidates)
            for s in candidates:
                suspicion[s] += fails / len(candidates)
        for p in self._quest_proposals():
            # evil approves teams with evil and rejects clean ones: a vote against the outcome
            failed = self.fails[p.quest] > 0
            for s, vote in p.votes.items():
                if s in suspicion and (vote == "approve") == failed:
                    suspicion[s] += self.vote_weight
        if self.role == "Percival" and len(self.pair) == 2:
            a, b = sorted(self.pair, key=lambda s: self._merlin_likeness(s, suspicion))
            if self._merlin_likeness(b, suspicion) > self._merlin_likeness(a, suspicion):
                good.add(b)
                suspicion[a] += 1.0
        suspicion.pop(self.agent)
        return good, evil, suspicion

    def _quest_proposals(self) -> list[SeenProposal]:
        """The proposals that went on a finished quest, with their votes revealed."""
        went = []
        for k in self.fails:
            team = self.quest_team(k)
            went += [p for p in self.proposals.values() if p.quest == k and p.team == team
                     and p.approved]  # fmt: skip
        return went

    def _merlin_likeness(self, seat: str, suspicion: dict[str, float]) -> float:
        """Percival's reading of a pair member: votes against failed teams, less suspicion.

        A success says little (evil may play success), so it weighs a quarter of a failure.
        """
        score = -suspicion[seat]
        for p in self._quest_proposals():
            if seat in p.votes:
                failed = self.fails[p.quest] > 0
                foresaw = (p.votes[seat] == "approve") != failed
                score += (1.0 if foresaw else -1.0) * (1.0 if failed else 0.25)
        return score

    def suspected(self) -> set[str]:
        """Known evil, and the most suspicious others, as many as evil players still unknown."""
        good, evil, suspicion = self.beliefs()
        others = [s for s, v in suspicion.items() if v > 0 and s not in good | evil]
        others.sort(key=lambda s: -suspicion[s])
        return evil | set(others[: max(0, self.n_evil - len(evil))])

    def _least_suspicious(self, count: int, avoid: set[str]) -> list[str]:
        """``count`` other players, least suspicious first, not in ``avoid``; ties at random."""
        _, _, suspicion = self.beliefs()
        pool = [s for s in suspicion if s not in avoid] or list(suspicion)
        noise = self.rng.random(len(pool))
        ranked = sorted(zip(pool, noise, strict=True), key=lambda p: (suspicion[p[0]], p[1]))
        return [s for s, _ in ranked[:count]]

    def _evil_team(self) -> set[str]:
        """The evil players this seat knows (itself included when evil)."""
        _, evil, _ = self.beliefs()
        return evil | {self.agent} if self.evil else evil

    # -- deciding -----------------------------------------------------------------------------

    def propose(self, size: int) -> str:
        """Oneself and the least suspicious players who are not known evil."""
        avoid = self._evil_team() if self.evil else self.suspected()
        team = {self.agent, *self._least_suspicious(size - 1, avoid)}
        return "propose " + ", ".join(s for s in self.seats if s in team)

    def vote(self) -> str:
        """Evil: approve a team with a known evil player. Good: one with no suspected player."""
        team = set(self.proposals[(self.quest, self.rejections)].team)
        self.last_voted = (self.quest, self.rejections)
        if self.evil:
            return "approve" if team & self._evil_team() else "reject"
        last_chance = not self.forced and self.rejections == MAX_REJECTIONS - 1
        return "approve" if last_chance or not team & self.suspected() else "reject"

    def card(self) -> str:
        """Exactly the fails the quest needs, by the first known evil on the team in seat order."""
        if not self.evil:
            return "success"
        team = self.proposals[(self.quest, self.rejections)].team
        needed = FAILS_NEEDED[self.n][self.quest - 1]
        if self.quiet_first_quest and len(team) == 2 and self.quest == 1:
            return "success"  # a fail would point straight at one of two players
        if self.role not in _KNOWS_TEAMMATES:
            return "fail" if needed == 1 and len(team) > 2 else "success"
        ours = [s for s in team if s in self._evil_team()]
        return "fail" if len(ours) >= needed and self.agent in ours[:needed] else "success"

    def assassinate(self) -> str:
        """The player whose votes and proposals best avoided the known evil players."""
        ours = self._evil_team()
        score = {s: 0.0 for s in self.seats if s not in ours}
        for p in self.proposals.values():
            clean = not set(p.team) & ours
            if p.leader in score:
                score[p.leader] += 1.0 if clean else -1.0
            for seat, vote in (p.votes or {}).items():
                if seat in score:
                    score[seat] += 1.0 if (vote == "approve") == clean else -1.0
        best = max(score.values())
        tied = [s for s in score if score[s] == best]
        return f"assassinate {tied[int(self.rng.integers(len(tied)))]}"

    def examine(self, legal: list[str]) -> str:
        """The most suspicious player the Lady of the Lake may examine whose side is unknown."""
        _, _, suspicion = self.beliefs()
        unknown = [s for s in legal if s not in self.sides] or legal
        noise = self.rng.random(len(unknown))
        ranked = sorted(zip(unknown, noise, strict=True), key=lambda p: (-suspicion[p[0]], p[1]))
        return f"examine {ranked[0][0]}"

    def speak(self) -> str:
        """One sentence: the two players one trusts most, and the one one would not send.

        Merlin speaks from the quests alone, as a servant would, so as not to give himself
        away; evil players never name a teammate.
        """
        if self.role == "Merlin":
            _, _, suspicion = self._public()
            doubted = {s for s, v in suspicion.items() if v > 0}
        else:
            doubted = set() if self.evil else self.suspected()
            _, _, suspicion = self.beliefs()
            doubted |= {s for s, v in suspicion.items() if v > 0}
        if self.evil:
            doubted -= self._evil_team()
        trusted = [s.capitalize() for s in self._least_suspicious(2, doubted)]
        sentence = f"I trust {' and '.join(trusted)}"
        if not doubted:
            return sentence + "; I have no reason to doubt anyone yet."
        worst = max(sorted(doubted), key=lambda s: suspicion.get(s, 0.0))
        return f"{sentence}; I would not send {worst.capitalize()}."

    def _public(self) -> tuple[set[str], set[str], dict[str, float]]:
        """The beliefs of a seat that knew nothing but the quests (Merlin's public face)."""
        sides, self.sides = self.sides, {}
        try:
            return self.beliefs()
        finally:
            self.sides = sides

    def act(self, observation: Any, info: dict) -> str:
        """Read the observation and answer the phase's move in words."""
        text = observation.get("text") if isinstance(observation, dict) else None
        if text is None:
            text = self.env.unwrapped.observe_text(self.agent)
        self.observe(text)
        phase = self.phase
        if phase == "propose":
            return self.propose(int(_SIZE.search(text).group(1)))
        if phase == "discuss":
            return self.speak()
        if phase == "vote":
            return self.vote()
        if phase == "quest":
            return self.card()
        if phase == "assassinate":
            return self.assassinate()
        if phase == "lady":
            mask = observation.get("action_mask") if isinstance(observation, dict) else None
            if mask is not None and mask.any():
                legal = [self.seats[i] for i in np.flatnonzero(mask) if i < self.n]
            else:
                legal = [s for s in self.seats if s not in self.lady_held]
            return self.examine(legal)
        return "success"  # not this seat's turn by the text: any reply spends it
