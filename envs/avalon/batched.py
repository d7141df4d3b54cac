"""Avalon in arrays: ``num_envs`` games stepped together (:mod:`mase.batch`).

The rules of :mod:`.world` written once more, as numpy operations over a batch of games, so
that a decision in every game costs a few dozen array operations instead of a Python call
each. The observation and state vectors are those of :mod:`.vector`, laid out as it lays them
out; the consistency test steps this batch beside :class:`mase.batch.AECBatch` with the same
seeds and actions and finds the same observations, masks, states, rewards, ends and metrics at
every step, under every rule option and role set.

How a seat's view reduces to arrays: what a player knows of the others (the ``players`` block
of the observation) is fixed by the deal, except for what the Lady of the Lake shows her
holder, so each game keeps a ``[seat, player, 5]`` table built at the deal and written to by
examinations; the rest of the view is public. The Assassin's public act ends the game, so no
view ever shows it. Discussion passes are speech turns: the AEC batch plays them with an
empty utterance, which changes nothing but the turn count, so here they are counted and
skipped. Secret votes and quest cards are kept per game and revealed (votes) or counted
(cards) when the phase closes, as :func:`.world.end_vote` and :func:`.world.end_quest` do.

Deals are drawn as :func:`.world.new_state` draws them, call for call on each game's generator
(the seat permutation, then the first leader), so game ``n`` seeded ``s + n`` plays the AEC
env seeded ``s + n``. Every task argument has an array form; only ``reset(options=...)``'s
fixed deals, which a batch's ``reset`` does not take, are the AEC env's alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding

from mase.actions import ResetNeeded
from mase.batch import Batch, BatchStep, action_indices
from mase.envs.avalon import vector, world
from mase.envs.avalon.roles import (
    FAILS_NEEDED,
    LADY_AFTER,
    MAX_REJECTIONS,
    QUESTS,
    ROLE_ORDER,
    ROLES,
    SEES_EVIL,
    SEES_MERLIN_OR_MORGANA,
    TEAM_SIZES,
    TEAMS,
    TO_WIN,
)
from mase.registry import make

_PROPOSE, _VOTE, _QUEST, _ASSASSINATE, _LADY = (
    vector.PHASES.index(p) for p in ("propose", "vote", "quest", "assassinate", "lady")
)
#: How a game ended, by code (0: it goes on); the round limit truncates, the rest terminate.
_ENDINGS = ("", *world.ENDINGS, "round_limit")
_CODE = {how: i for i, how in enumerate(_ENDINGS)}
_EVIL_WINS = np.array([world.ENDINGS.get(how) == "evil" for how in _ENDINGS])
_LIMIT = _CODE["round_limit"]
#: Role tables, indexed by ``ROLE_ORDER``: the role's side; whom a role sees as evil; the
#: Merlin/Morgana pair a Percival-like role sees.
_EVIL_ROLE = np.array([ROLES[r] == "evil" for r in ROLE_ORDER])
_SEES = np.array([[r in SEES_EVIL[role] for r in ROLE_ORDER] for role in ROLE_ORDER])
_PAIR = np.array(
    [[r in SEES_MERLIN_OR_MORGANA.get(role, ()) for r in ROLE_ORDER] for role in ROLE_ORDER]
)
_MERLIN, _ASSASSIN = ROLE_ORDER.index("Merlin"), ROLE_ORDER.index("Assassin")
_ROLE_EYE = np.eye(len(ROLE_ORDER), dtype=np.float32)
_MAX_TEAM = max(max(sizes) for sizes in TEAM_SIZES.values())


class BatchedAvalon(Batch):
    """``num_envs`` Avalon games as arrays (see the module docstring).

    Takes the task's arguments (``n_players``, ``roles``, ``discussion``, ``fifth_proposal``,
    ``lady_of_the_lake``, ``quest_reward``, ``max_cycles``); ``obs_mode`` and ``render_mode``
    are accepted and ignored (a batch gives vectors only).
    """

    def __init__(self, id: str, num_envs: int, **kwargs: Any):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        kwargs = {**kwargs, "obs_mode": "vector", "render_mode": None}
        template = make(id, **kwargs).unwrapped  # checks the arguments as the task does
        rules = template.rules
        self.spec_id = id
        self.template = template
        self.num_envs = N = num_envs
        self.n = n = rules.n_players
        self.possible_agents = list(template.possible_agents)
        self.n_actions = int(template.action_space(self.possible_agents[0]).n)
        self.layout = vector.layout(n)
        self.observation_size = self.layout.size
        self.state_size = vector.state_size(n)
        self._public_size = vector._public_size(n)
        self.discussion, self.lady_rule = rules.discussion, rules.lady_of_the_lake
        self.forced = rules.fifth_proposal == "forced"
        self.quest_reward, self.max_cycles = template.quest_reward, template.max_cycles
        self.role_set = np.array([ROLE_ORDER.index(r) for r in template.role_set])
        self.has_assassin = "Assassin" in template.role_set
        self._n = np.arange(N)

        # the quest tables: each quest's teams (the proposal actions) and default teams
        self.team_size = np.array(TEAM_SIZES[n])
        self.fails_needed = np.array(FAILS_NEEDED[n])
        self.n_teams = np.array([len(TEAMS[n][size]) for size in TEAM_SIZES[n]])
        T = int(self.n_teams.max())
        self.teams = np.zeros((QUESTS, T, n), dtype=bool)
        self.members = np.zeros((QUESTS, T, _MAX_TEAM), dtype=np.int64)  # seat order
        self.default_teams = np.zeros((n, QUESTS, n), dtype=bool)  # by leader
        self.default_members = np.zeros((n, QUESTS, _MAX_TEAM), dtype=np.int64)
        for q, size in enumerate(TEAM_SIZES[n]):
            for t, team in enumerate(TEAMS[n][size]):
                self.teams[q, t, list(team)] = True
                self.members[q, t, :size] = team
            for leader in range(n):
                team = sorted((leader + i) % n for i in range(size))
                self.default_teams[leader, q, team] = True
                self.default_members[leader, q, :size] = team
        self.lady_after = np.isin(np.arange(QUESTS + 1), LADY_AFTER)  # by quests played

        # the games
        self.roles = np.zeros((N, n), dtype=np.int64)  # index into ROLE_ORDER
        self.evil = np.zeros((N, n), dtype=bool)
        self.knows = np.zeros((N, n, n, 5), dtype=np.float32)  # the observation's players
        self.assassin = np.full(N, -1, dtype=np.int64)
        self.leader = np.zeros(N, dtype=np.int64)
        self.lady = np.full(N, -1, dtype=np.int64)  # who holds her, -1: not in play
        self.held_lady = np.zeros((N, n), dtype=bool)
        self.stage = np.zeros(N, dtype=np.int64)  # index into vector.PHASES
        self.cursor = np.zeros(N, dtype=np.int64)  # who of the phase's seats acts
        self.quest = np.zeros(N, dtype=np.int64)
        self.results = np.full((N, QUESTS), -1, dtype=np.int64)  # 0 success, 1 fail
        self.fails = np.zeros((N, QUESTS), dtype=np.int64)
        self.rejections = np.zeros(N, dtype=np.int64)
        self.team = np.zeros((N, n), dtype=bool)  # the proposal's team (none: all False)
        self.team_members = np.zeros((N, _MAX_TEAM), dtype=np.int64)
        self.team_clean = np.zeros(N, dtype=bool)
        self.votes = np.zeros((N, n), dtype=np.int64)  # cast, still secret (missing: reject)
        self.revealed = np.full((N, n), -1, dtype=np.int64)  # the last vote, -1: none yet
        self.fail_cards = np.zeros(N, dtype=np.int64)  # of the quest being played
        self.target = np.full(N, -1, dtype=np.int64)  # whom the Assassin named
        # what the appended blocks hold: the history, own cards, the Lady's answers, and
        # whose last action was invalid (until their next turn)
        self.history = np.zeros((N, vector.SLOTS, vector.slot_size(n)), dtype=np.float32)
        self.team_default = np.zeros(N, dtype=bool)  # the proposal on the table's
        self.cards_now = np.zeros((N, n), dtype=np.int64)  # this quest's cards, face down
        self.own_cards = np.zeros((N, n, QUESTS, 2), dtype=np.float32)
        self.answers = np.zeros((N, n, n, 2), dtype=np.float32)  # holder, target: evil, good
        self.invalid_last = np.zeros((N, n), dtype=bool)
        self.round = np.ones(N, dtype=np.int64)
        self.turns = np.zeros(N, dtype=np.int64)
        self.invalid = np.zeros(N, dtype=np.int64)
        # the metrics' tallies
        self.proposals = np.zeros(N, dtype=np.int64)
        self.approved = np.zeros(N, dtype=np.int64)
        self.defaults = np.zeros(N, dtype=np.int64)
        self.clean_teams = np.zeros(N, dtype=np.int64)
        self.votes_cast = np.zeros(N, dtype=np.int64)
        self.approvals = np.zeros(N, dtype=np.int64)
        self.judged = np.zeros(N, dtype=np.int64)  # good players' votes
        self.judged_right = np.zeros(N, dtype=np.int64)
        self.examinations = np.zeros(N, dtype=np.int64)
        self.rngs: list[np.random.Generator] | None = None
        # one step's outcome, written by the rules of each phase
        self._ending = np.zeros(N, dtype=np.int64)
        self._rewards = np.zeros((N, n), dtype=np.float64)

    # -- the batch interface ------------------------------------------------------------------

    @property
    def acting(self) -> np.ndarray:
        """See :attr:`mase.batch.Batch.acting`."""
        self._check()
        stage = self.stage
        return np.select(
            [stage == _PROPOSE, stage == _VOTE, stage == _QUEST, stage == _ASSASSINATE],
            [
                self.leader,
                self.cursor,
                self.team_members[self._n, np.minimum(self.cursor, _MAX_TEAM - 1)],
                self.assassin,
            ],
            self.lady,
        )

    def reset(self, seed: int | None = None) -> None:
        """Reset every game; game ``n`` is seeded ``seed + n`` (``None``: its generator)."""
        if seed is not None:
            self.rngs = [seeding.np_random(seed + n)[0] for n in range(self.num_envs)]
        elif self.rngs is None:
            self.rngs = [seeding.np_random()[0] for _ in range(self.num_envs)]
        self._new_episodes(self._n)

    def observe(self, seat: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """See :meth:`mase.batch.Batch.observe`."""
        acting = self.acting
        seats = acting if seat is None else np.full(self.num_envs, seat, dtype=np.int64)
        return self._observation(seats, acting), self._mask(seats, acting)

    def state(self) -> np.ndarray:
        """See :meth:`mase.batch.Batch.state`."""
        self._check()
        N, width = self.num_envs, len(ROLE_ORDER) * self.n
        v = np.empty((N, self.state_size), dtype=np.float32)
        v[:, :width] = _ROLE_EYE[self.roles].reshape(N, width)
        v[:, width : width + self._public_size] = self._public()
        v[:, width + self._public_size :] = self.history.reshape(N, -1)
        return v

    def step(self, actions: np.ndarray) -> BatchStep:
        """See :meth:`mase.batch.Batch.step`."""
        seat = self.acting
        x = action_indices(actions, self.num_envs)
        valid = (x >= 0) & (x < self.n_actions)  # out of range: invalid in any phase
        self._ending[:] = 0
        self._rewards[:] = 0.0
        rules = {
            _PROPOSE: self._propose,
            _VOTE: self._vote,
            _QUEST: self._play_card,
            _ASSASSINATE: self._assassinate,
            _LADY: self._examine,
        }
        # each game's phase before any move: a game whose phase closes plays one move only
        playing = {stage: np.flatnonzero(self.stage == stage) for stage in rules}
        for stage, w in playing.items():
            if w.size:
                valid[w] = rules[stage](w, seat[w], x[w], valid[w])
        self.turns += 1
        self.invalid += ~valid
        self.invalid_last[self._n, seat] = ~valid
        if self.discussion:  # every seat spoke after a proposal: a new turn for each
            self.invalid_last[playing[_PROPOSE]] = False

        ending = self._ending
        terminated, truncated = (ending > 0) & (ending != _LIMIT), ending == _LIMIT
        rewards = self._rewards
        metrics: dict[int, dict] = {}
        if terminated.any():
            evil_won = _EVIL_WINS[ending[terminated]][:, None]
            rewards[terminated] += np.where(self.evil[terminated] == evil_won, 1.0, -1.0)
        ended = np.flatnonzero(ending)
        if ended.size:
            for k in ended.tolist():
                metrics[k] = self._metrics(k, _ENDINGS[ending[k]])
            self._new_episodes(ended)
        return BatchStep(rewards.astype(np.float32), terminated, truncated, metrics)

    # -- the rules of each phase (``w``: the games in the phase; each returns which moves held)

    def _propose(self, w: np.ndarray, seat, x, valid) -> np.ndarray:
        """The leader's team, or the default one (``world.propose`` and ``end_propose``).

        Then the discussion's passes and the vote, or the forced fifth proposal's quest.
        """
        q = self.quest[w]
        valid = valid & (x < self.n_teams[q])
        chosen = np.clip(x, 0, self.teams.shape[1] - 1)
        lead = self.leader[w]
        team = np.where(valid[:, None], self.teams[q, chosen], self.default_teams[lead, q])
        self.team[w] = team
        self.team_members[w] = np.where(
            valid[:, None], self.members[q, chosen], self.default_members[lead, q]
        )
        clean = ~(team & self.evil[w]).any(axis=1)
        self.team_clean[w] = clean
        self.proposals[w] += 1
        self.defaults[w] += ~valid
        self.clean_teams[w] += clean
        self.turns[w] += self.discussion * self.n  # the passes' speech turns
        forced = self.forced & (self.rejections[w] == MAX_REJECTIONS - 1)
        self.approved[w] += forced
        self.team_default[w] = ~valid
        f = w[forced]
        if f.size:  # decided at once, without a vote: into the history
            self._record(f, self.quest[f] * vector.PROPOSALS + MAX_REJECTIONS - 1, None)
        self.stage[w] = np.where(forced, _QUEST, _VOTE)
        self.cursor[w] = 0
        self.votes[w] = 0
        self.fail_cards[w] = 0
        self.cards_now[w] = 0
        return valid

    def _record(self, d: np.ndarray, slot: np.ndarray, votes: np.ndarray | None) -> None:
        """Write the decided proposal of each of ``d`` into its history ``slot``."""
        n = self.n
        row = np.zeros((len(d), vector.slot_size(n)), dtype=np.float32)
        row[np.arange(len(d)), self.leader[d]] = 1.0
        row[:, n : 2 * n] = self.team[d]
        row[:, 2 * n] = self.team_default[d]
        if votes is not None:
            row[:, 2 * n + 1] = 1.0
            row[:, 2 * n + 2 :] = votes
        self.history[d, slot] = row

    def _vote(self, w: np.ndarray, seat, x, valid) -> np.ndarray:
        """A secret vote (an invalid one is no vote: a rejection); the last seat's counts."""
        valid = valid & (x < len(world.VOTES))
        self.votes[w, seat] = np.where(valid, x, 0)
        self.cursor[w] += 1
        done = w[self.cursor[w] == self.n]
        if done.size:
            self._count_votes(done)
        return valid

    def _count_votes(self, d: np.ndarray) -> None:
        """:func:`.world.end_vote`: reveal; a strict majority approves, else the lead passes."""
        votes = self.votes[d]
        self.revealed[d] = votes
        self._record(d, self.quest[d] * vector.PROPOSALS + self.rejections[d], votes)
        approvals = votes.sum(axis=1)
        approved = 2 * approvals > self.n
        good = ~self.evil[d]
        self.votes_cast[d] += self.n
        self.approvals[d] += approvals
        self.judged[d] += good.sum(axis=1)
        self.judged_right[d] += (good & (votes == self.team_clean[d][:, None])).sum(axis=1)
        self.approved[d] += approved
        up, down = d[approved], d[~approved]
        self.stage[up] = _QUEST
        self.cursor[up] = 0
        self.rejections[down] += 1
        self.stage[down] = _PROPOSE
        self._pass_lead(down)
        self._ending[down[self.rejections[down] >= MAX_REJECTIONS]] = _CODE["five_rejections"]

    def _play_card(self, w: np.ndarray, seat, x, valid) -> np.ndarray:
        """A quest card face down (an invalid one is a success); the last member's scores."""
        valid = valid & ((x == 0) | ((x == 1) & self.evil[w, seat]))
        failing = valid & (x == 1)
        self.fail_cards[w] += failing
        self.cards_now[w, seat] = failing
        self.cursor[w] += 1
        done = w[self.cursor[w] == self.team_size[self.quest[w]]]
        if done.size:
            self._score_quest(done)
        return valid

    def _score_quest(self, d: np.ndarray) -> None:
        """:func:`.world.end_quest`, the quest's shaping reward, then the round's end."""
        q = self.quest[d]
        fails = self.fail_cards[d]
        failed = fails >= self.fails_needed[q]
        self.results[d, q] = failed
        self.fails[d, q] = fails
        team, cards = self.team[d], self.cards_now[d]  # each member sees its own card
        self.own_cards[d, :, q, 0] = team & (cards == 0)
        self.own_cards[d, :, q, 1] = team & (cards == 1)
        if self.quest_reward:  # each seat of the side that won the quest
            self._rewards[d] = np.where(self.evil[d] == failed[:, None], self.quest_reward, 0.0)
        self.quest[d] += 1
        self.rejections[d] = 0
        self._pass_lead(d)
        lost = (self.results[d] == 1).sum(axis=1) >= TO_WIN
        won = ~lost & ((self.results[d] == 0).sum(axis=1) >= TO_WIN)
        self._ending[d[lost]] = _CODE["three_fails"]
        if self.has_assassin:
            self.stage[d[won]] = _ASSASSINATE
        else:
            self._ending[d[won]] = _CODE["three_successes"]
        lady = ~lost & ~won & self.lady_rule & self.lady_after[self.quest[d]]
        self.stage[d[lady]] = _LADY
        self.stage[d[~lost & ~won & ~lady]] = _PROPOSE
        # a quest ends the round: the round limit, else the next round
        going = d[self._ending[d] == 0]
        if self.max_cycles is not None:
            cut = self.round[going] >= self.max_cycles
            self._ending[going[cut]] = _LIMIT
            going = going[~cut]
        self.round[going] += 1

    def _assassinate(self, w: np.ndarray, seat, x, valid) -> np.ndarray:
        """The Assassin names a player: Merlin wins for evil; anyone else, or no one, for good."""
        valid = valid & (x < self.n) & (x != seat)
        self.target[w] = np.where(valid, x, -1)
        hit = valid & (self.roles[w, np.clip(x, 0, self.n - 1)] == _MERLIN)
        self._ending[w] = np.where(hit, _CODE["assassin_hit"], _CODE["assassin_missed"])
        return valid

    def _examine(self, w: np.ndarray, seat, x, valid) -> np.ndarray:
        """The Lady shows her holder a side and passes on (an invalid examination is lost)."""
        target = np.clip(x, 0, self.n - 1)
        valid = valid & (x < self.n) & ~self.held_lady[w, target]
        g, holder, target = w[valid], seat[valid], target[valid]
        evil = self.evil[g, target]
        self.knows[g, holder, target, 1] = evil
        self.knows[g, holder, target, 2] = ~evil
        self.answers[g, holder, target, 0] = evil
        self.answers[g, holder, target, 1] = ~evil
        self.held_lady[g, target] = True
        self.lady[g] = target
        self.examinations[g] += 1
        self.stage[w] = _PROPOSE
        return valid

    def _pass_lead(self, d: np.ndarray) -> None:
        self.leader[d] = (self.leader[d] + 1) % self.n
        self.team[d] = False  # no proposal on the table

    # -- episodes -----------------------------------------------------------------------------

    def _metrics(self, k: int, ended_by: str) -> dict[str, Any]:
        """The ended game's measures, as the env's ``metrics()``."""
        turns, invalid = int(self.turns[k]), int(self.invalid[k])
        results = [world.CARDS[r] for r in self.results[k].tolist() if r >= 0]
        played, succeeded = len(results), results.count("success")
        winner = world.ENDINGS.get(ended_by, "")
        proposals, votes = int(self.proposals[k]), int(self.votes_cast[k])
        judged = int(self.judged[k])
        metrics: dict[str, Any] = {
            "rounds": int(self.round[k]),
            "turns": turns,
            "invalid_actions": invalid,
            "valid_action_rate": 1.0 - invalid / turns if turns else 1.0,
            "ended_by": ended_by,
            "winner": winner,
            "good_won": float(winner == "good"),
            "evil_won": float(winner == "evil"),
            "quest_success_rate": succeeded / played if played else 0.0,
        }
        for q, result in enumerate(results, 1):
            metrics[f"quest{q}_success"] = float(result == "success")
        if self.target[k] >= 0:
            metrics["assassination_accuracy"] = float(self.roles[k, self.target[k]] == _MERLIN)
        metrics.update(
            vote_accuracy=int(self.judged_right[k]) / judged if judged else 0.0,
            quests_succeeded=succeeded,
            quests_failed=played - succeeded,
            quest_results=results,
            proposals=proposals,
            approved_proposals=int(self.approved[k]),
            default_proposals=int(self.defaults[k]),
            team_selection_accuracy=int(self.clean_teams[k]) / proposals if proposals else 0.0,
            votes=votes,
            approval_rate=int(self.approvals[k]) / votes if votes else 0.0,
            merlin_assassinated=float(ended_by == "assassin_hit"),
            lady_examinations=int(self.examinations[k]),
        )
        return metrics

    def _new_episodes(self, worlds: np.ndarray) -> None:
        """The next game of each of ``worlds``, dealt as the env's ``new_episode``.

        The draws are :func:`.world.new_state`'s, call for call on the game's generator (the
        roles' seats, then the first leader); what each seat learns at the start is then the
        role tables read for every game at once, as :func:`.world.start_facts` reads them.
        """
        n = self.n
        for k in worlds.tolist():
            rng = self.rngs[k]
            self.roles[k] = self.role_set[rng.permutation(n)]
            self.leader[k] = rng.integers(n)
        roles = self.roles[worlds]
        evil = _EVIL_ROLE[roles]
        self.evil[worlds] = evil
        # what each seat knows of each player: its own role and side, the evil players its
        # role sees, and Percival's pair (or Merlin alone, and known, without Morgana)
        me = np.eye(n, dtype=bool)
        sees = _SEES[roles[:, :, None], roles[:, None, :]] & ~me
        pair = _PAIR[roles[:, :, None], roles[:, None, :]]
        one_pair = pair.sum(axis=2, keepdims=True) == 2
        merlin = (roles == _MERLIN)[:, None, :]
        knows = np.empty((len(worlds), n, n, 5), dtype=np.float32)
        knows[..., 0] = me
        knows[..., 1] = sees | (me & evil[:, None, :])
        knows[..., 2] = me & ~evil[:, None, :]
        knows[..., 3] = pair & one_pair
        knows[..., 4] = merlin & (me | (pair & ~one_pair))
        self.knows[worlds] = knows
        self.assassin[worlds] = (roles == _ASSASSIN).argmax(axis=1) if self.has_assassin else -1
        self.held_lady[worlds] = False
        if self.lady_rule:  # with the player before the first leader
            lady = (self.leader[worlds] - 1) % n
            self.lady[worlds] = lady
            self.held_lady[worlds, lady] = True
        for array, value in (
            (self.stage, _PROPOSE), (self.cursor, 0), (self.quest, 0), (self.results, -1),
            (self.fails, 0), (self.rejections, 0), (self.team, False), (self.revealed, -1),
            (self.target, -1), (self.round, 1), (self.turns, 0), (self.invalid, 0),
            (self.proposals, 0), (self.approved, 0), (self.defaults, 0), (self.clean_teams, 0),
            (self.votes_cast, 0), (self.approvals, 0), (self.judged, 0),
            (self.judged_right, 0), (self.examinations, 0), (self.history, 0.0),
            (self.own_cards, 0.0), (self.answers, 0.0), (self.invalid_last, False),
        ):  # fmt: skip
            array[worlds] = value

    # -- views --------------------------------------------------------------------------------

    def _public(self) -> np.ndarray:
        """The public part of every view (:func:`.vector._public`'s layout), ``[N, P]``."""
        N, n, rows = self.num_envs, self.n, self._n
        v = np.zeros((N, self._public_size), dtype=np.float32)
        quests = v[:, : 3 * QUESTS].reshape(N, QUESTS, 3)
        quests[:, :, 0] = self.results == 0
        quests[:, :, 1] = self.results == 1
        quests[:, :, 2] = self.fails / self.team_size
        at = 3 * QUESTS
        v[rows, at + np.minimum(self.quest, QUESTS)] = 1.0
        at += QUESTS + 1
        v[:, at] = self.rejections / MAX_REJECTIONS
        v[rows, at + 1 + self.leader] = 1.0
        at += 1 + n
        v[:, at : at + n] = self.team
        at += n
        v[rows, at + self.stage] = 1.0
        at += len(vector.PHASES)
        votes = v[:, at : at + 2 * n].reshape(N, n, 2)
        votes[:, :, 0] = self.revealed == 1  # approved
        votes[:, :, 1] = self.revealed == 0  # rejected
        at += 2 * n
        held = self.lady >= 0
        v[rows[held], at + self.lady[held]] = 1.0
        return v

    def _observation(self, seats: np.ndarray, acting: np.ndarray) -> np.ndarray:
        """Each game's ``seats[n]``'s observation vector (:func:`.vector.observation`).

        The game is never over here (a batch deals the next game at once), so the blocks only
        an ended game writes (known assassin, ending) and the messages' claims (a batch has no
        messages) stay 0.
        """
        N, n, rows = self.num_envs, self.n, self._n
        at = self.layout.slices
        v = np.zeros((N, self.observation_size), dtype=np.float32)
        v[:, at["role"]] = _ROLE_EYE[self.roles[rows, seats]]
        v[:, at["players"]] = self.knows[rows, seats].reshape(N, 5 * n)
        start = at["quests"].start
        v[:, start : start + self._public_size] = self._public()
        v[:, at["lady held"]] = (self.lady == seats)[:, None]
        v[:, at["to act"]] = (seats == acting)[:, None]
        v[:, at["invalid"]] = self.invalid_last[rows, seats][:, None]
        v[:, at["own cards"]] = self.own_cards[rows, seats].reshape(N, 2 * QUESTS)
        v[:, at["lady answers"]] = self.answers[rows, seats].reshape(N, 2 * n)
        v[:, at["history"]] = self.history.reshape(N, -1)
        return v

    def _mask(self, seats: np.ndarray, acting: np.ndarray) -> np.ndarray:
        """The legal actions of ``seats[n]`` (:func:`.world.legal`; zeros unless it acts)."""
        stage, rows = self.stage, self._n
        count = np.select(
            [stage == _PROPOSE, stage == _VOTE, stage == _QUEST],
            [
                self.n_teams[np.minimum(self.quest, QUESTS - 1)],
                len(world.VOTES),
                1 + self.evil[rows, seats],  # good players can only play success
            ],
            self.n,
        )
        mask = np.arange(self.n_actions)[None, :] < count[:, None]
        naming = np.flatnonzero(stage == _ASSASSINATE)
        mask[naming, seats[naming]] = False
        examining = np.flatnonzero(stage == _LADY)
        mask[examining, : self.n] &= ~self.held_lady[examining]
        mask &= (seats == acting)[:, None]
        return mask.view(np.int8)

    def _check(self) -> None:
        if self.rngs is None:
            raise ResetNeeded("call reset() before using the batch")
