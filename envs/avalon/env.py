"""The Resistance: Avalon as a PettingZoo AEC environment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from mase.claims import Claims
from mase.envs.avalon import beliefs, deduction, vector, world
from mase.envs.avalon import text as words
from mase.envs.avalon.roles import (
    LADY_MIN_PLAYERS,
    ROLES,
    SEATS,
    TEAM_SIZES,
    TEAMS,
    resolve_roles,
)
from mase.events import Event
from mase.layout import VectorLayout, inbox_told, text_told
from mase.stats import Metric, proportion, rate
from mase.task import ActionParse, Outcome, Phase, PhaseQueue, TaskEnv

_MOVES = {
    "propose": world.propose,
    "vote": world.vote,
    "quest": world.play_card,
    "assassinate": world.assassinate,
    "lady": world.examine,
}
_ENDS = {
    "propose": world.end_propose,
    "discuss": world.end_discuss,
    "vote": world.end_vote,
    "quest": world.end_quest,
    "assassinate": world.end_assassinate,
    "lady": world.end_lady,
}


class AvalonEnv(TaskEnv):
    """The Resistance: Avalon, official rules: hidden roles, proposals, secret votes, quests.

    Description:
        Five to ten players, good and evil, play five quests (REFERENCE §4; AvalonPlay, Shi et
        al. 2023; AvalonBench, Light et al. 2023). Roles are dealt to random seats and the
        first leader is drawn at random. Each round the leader proposes a team of the quest's
        size; the players discuss it (``discussion`` passes around the table, starting after
        the leader; the utterance is the move); everyone votes approve or reject at once, in
        secret, and the votes are shown together once all are cast; a strict majority sends
        the team on the quest, otherwise the lead passes on. Five rejected proposals in a row
        give evil the game (``fifth_proposal="forced"``: the fifth goes on the quest without a
        vote). The team plays quest cards face down (good players can only play success) and
        only the number of fails is announced; one fail fails a quest, two on quest 4 with 7 or
        more players. Three failed quests: evil wins. Three successes: the Assassin names a
        player, and naming Merlin wins the game for evil (without an Assassin, good wins).

        What each role learns at the start is dealt as events whose audience is exactly who
        the rules show it to: Merlin sees the evil players but Mordred; Percival sees Merlin and
        Morgana as a pair (Merlin alone with no Morgana); evil players see each other, together,
        but Oberon, who sees no one; loyal servants see nothing. Votes are secret moves
        (revealed at once when all have voted); quest cards are seen by their player alone.

    Agents:
        ``alpha``, ``bravo``, ... ``juliett`` (the NATO alphabet, as in search and rescue): the
        first ``n_players`` of them, in seat order; text also numbers them from 1. Who acts is
        the phase's: the leader proposes, everyone speaks (seat order from the leader's left)
        and votes, the team plays cards, the Assassin names, the Lady's holder examines.

    Action Space:
        ``Discrete(max(teams, n_players))``: the largest number of teams of one quest size (10
        for 5 players, 35 for 7, 252 for 10), with ``action_mask`` per phase:

        ============  =====================================================================
        phase         action
        ============  =====================================================================
        propose       an index into ``roles.TEAMS[n][size]`` (``itertools.combinations``)
        discuss       text: the utterance is the move (no index is legal; the mask is 0)
        vote          0 reject, 1 approve
        quest         0 success, 1 fail (masked for good players; refused if given)
        assassinate   a player index (not oneself)
        lady          a player index who has not held the Lady of the Lake
        ============  =====================================================================

        Text is read by ``parse_action``: ``propose alpha, bravo``, ``team: 1, 3``,
        ``approve``, ``reject``, ``success``, ``fail``, ``assassinate charlie``, ``examine
        delta``. An invalid move spends the turn: a leader's gives the default team (the leader
        and the players after them), a vote rejects, a card is a success, an Assassin's misses,
        an examination is lost.

    Observation Space:
        A Dict, keys by ``obs_mode``:

        ============  ===================================================================
        key           content
        ============  ===================================================================
        observation   float32 in [0, 1], ``38 + 10 n`` (layout in ``avalon.vector``): own
                      role, what it knows of each player, quests, quest index, rejections,
                      leader, team, phase, the last revealed vote, the Lady's holder
        text          the same as a moderator would say it, then the messages heard
        action_mask   int8, the legal actions of the acting seat (zeros for the others)
        ============  ===================================================================

        ``state()``: every seat's role, then the public part of the views.

    Rewards:
        At the end, +1 to each player of the winning side and -1 to each of the other; 0 on
        every other step. With ``quest_reward`` r above 0 (shaping for training), each quest
        also gives +r to each player of the side that won it (good: a success, evil: a fail);
        nothing is taken from the other side, so that stalling (five rejections) never looks
        cheaper than losing quests.

    Termination:
        Terminated when a side wins. A round is a quest (its proposals, discussion, votes and
        cards); the Assassin acts in the round after the third success, the Lady of the Lake at
        the start of the round after quests 2 to 4. ``info["metrics"]``: ``winner``, ``good_won``,
        ``evil_won``, ``ended_by`` (``three_fails``, ``five_rejections``, ``assassin_hit``,
        ``assassin_missed``, ``three_successes``), quests won and lost, ``quest_results``,
        ``quest_success_rate`` and ``quest<k>_success`` (each quest played), ``proposals``,
        ``team_selection_accuracy`` (share of proposals with no evil member),
        ``vote_accuracy`` (share of good players' votes that approve a team without evil or
        reject one with), ``votes``, ``approval_rate``, ``merlin_assassinated`` and
        ``assassination_accuracy`` (when the Assassin named someone), and the core's rounds,
        turns and valid-action rate.

    Arguments:
        >>> import mase
        >>> env = mase.make("mase/Avalon-v0", n_players=5, discussion=0, obs_mode="text")
        >>> env.reset(seed=0)
        >>> base = env.unwrapped
        >>> base.phase.name, env.agent_selection
        ('propose', 'alpha')
        >>> env.step("propose alpha, delta")
        >>> base.phase.name, base.phase.secret
        ('vote', True)
        >>> for seat in base.possible_agents:
        ...     env.step("approve")
        >>> base.phase.name, base.phase.agents
        ('quest', ('alpha', 'delta'))

        ``n_players`` (5 to 10; default: from ``roles``, else 5). ``roles``: a role set name
        (``avalonplay-7``, ``avalonbench-5``, ``official-5`` ... ``official-10``; default the
        official set of ``n_players``) or a tuple of role names, checked against the official
        split. ``discussion`` (1): passes of discussion per proposal (0: none).
        ``fifth_proposal``: ``"official"`` (five rejections: evil wins) or ``"forced"``
        (AvalonPlay, AvalonBench). ``lady_of_the_lake`` (False; 7+ players). ``quest_reward``
        (0.0): the shaping reward of each quest (see Rewards). ``max_cycles``
        (``None``): a round limit (the rules end a game within 6 rounds). ``obs_mode``
        (``"both"``), ``render_mode`` (``None``, ``"ansi"`` or ``"human"``).

    Version History:
        * v0: first release.
    """

    metadata = {"name": "avalon_v0", "render_modes": ["ansi", "human"]}
    drawing = "mase.envs.avalon.render:DRAWING"
    schedule = PhaseQueue()
    scripted_policy = "mase.envs.avalon.bots:AvalonBot"
    sides = ("good", "evil")
    tom_probes = "mase.envs.avalon.tom:ROLE_PROBES"
    batched = "mase.envs.avalon.batched:BatchedAvalon"
    language_model = "mase.envs.avalon.language_model:respond"
    table_columns = (
        ("good_won", "good wins", "{:.1%}"),
        ("quest_success_rate", "quests won", "{:.1%}"),
        ("team_selection_accuracy", "team acc.", "{:.1%}"),
        ("vote_accuracy", "vote acc.", "{:.1%}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    )
    metric_kinds = {
        "good_won": proportion("Good side's wins (share of games)"),
        "evil_won": proportion("Evil side's wins (share of games)"),
        "quest_success_rate": rate("Quests won (share of those played)"),
        **{f"quest{k}_success": proportion(f"Quest {k} won (share of games)") for k in range(1, 6)},
        "assassination_accuracy": proportion("Assassin named Merlin (share of attempts)"),
        "merlin_assassinated": proportion("Merlin assassinated (share of games)"),
        "team_selection_accuracy": rate("Team-selection accuracy (share of proposals)"),
        "vote_accuracy": rate("Good players' vote accuracy (share of votes)"),
        "approval_rate": rate("Approval rate (share of votes)"),
        "quests_succeeded": Metric("Quests won per game", "bounded", 0.0, 5.0),
        "quests_failed": Metric("Quests failed per game", "bounded", 0.0, 5.0),
    }
    policies = {
        "deduction": "mase.envs.avalon.deduction_player:make_player",
        "mappo-good": "mase.envs.avalon.policies:mappo_good",
        "mappo-good-7": "mase.envs.avalon.policies:mappo_good_7",
        "mappo-evil": "mase.envs.avalon.policies:mappo_evil",
        "selfplay-good": "mase.envs.avalon.policies:selfplay_good",
        "selfplay-evil": "mase.envs.avalon.policies:selfplay_evil",
    }

    def __init__(
        self,
        n_players: int | None = None,
        roles: str | Sequence[str] | None = None,
        discussion: int = 1,
        fifth_proposal: world.FifthProposal = "official",
        lady_of_the_lake: bool = False,
        quest_reward: float = 0.0,
        max_cycles: int | None = None,
        obs_mode: str = "both",
        render_mode: str | None = None,
    ):
        super().__init__(obs_mode, render_mode, max_cycles)
        # constants
        self.role_set = resolve_roles(n_players, roles)
        n = len(self.role_set)
        if isinstance(discussion, bool) or not isinstance(discussion, int) or discussion < 0:
            raise ValueError(
                f"discussion must be 0 (off) or a number of passes, got {discussion!r}"
            )
        if fifth_proposal not in ("official", "forced"):
            raise ValueError(
                f"fifth_proposal must be 'official' or 'forced', got {fifth_proposal!r}"
            )
        if not isinstance(lady_of_the_lake, bool):
            raise ValueError(f"lady_of_the_lake must be True or False, got {lady_of_the_lake!r}")
        if lady_of_the_lake and n < LADY_MIN_PLAYERS:
            raise ValueError(
                f"the Lady of the Lake is for {LADY_MIN_PLAYERS} or more players, not {n}"
            )
        if isinstance(quest_reward, bool) or not isinstance(quest_reward, int | float):
            raise ValueError(f"quest_reward must be a number, got {quest_reward!r}")
        if quest_reward < 0:
            raise ValueError(f"quest_reward must be 0 (off) or above, got {quest_reward!r}")
        self.quest_reward = float(quest_reward)
        self.rules = world.Rules(n, fifth_proposal, discussion, lady_of_the_lake)
        self.possible_agents = list(SEATS[:n])
        # spaces
        n_actions = max(max(len(t) for t in TEAMS[n].values()), n)
        self.set_spaces(
            vector.observation_size(n), spaces.Discrete(n_actions), vector.state_size(n)
        )
        # episode state (filled by reset)
        self.world: world.State | None = None
        self._known: tuple[str, int, dict] | None = None

    def new_episode(self, options: dict | None) -> None:
        """Deal the roles to random seats and draw the first leader.

        ``options`` may fix both, for scenarios: ``{"deal": roles in seat order, "leader":
        seat name}``.
        """
        options = options or {}
        leader = options.get("leader")
        if leader is not None:
            leader = self.possible_agents.index(leader)
        deal = options.get("deal")
        self.world = world.new_state(
            self.rules, self.role_set, self.np_random, None if deal is None else tuple(deal), leader
        )
        self._known = None

    def next_phase(self, previous: Phase | None) -> Phase:
        """The phase ``world.stage`` names; at the start, the roles are dealt first."""
        s = self.world
        if previous is None:
            for event in world.start_events(s):
                self.emit(event)
        seats = self.possible_agents
        stage = s.stage
        if stage == "propose":
            return Phase("propose", (seats[s.leader],), ends_round=False)
        if stage == "discuss":
            order = tuple(seats[(s.leader + 1 + i) % s.n] for i in range(s.n))
            return Phase("discuss", order, speech=True, ends_round=False)
        if stage == "vote":
            return Phase("vote", tuple(seats), secret=True, ends_round=False)
        if stage == "quest":
            return Phase("quest", tuple(seats[i] for i in s.proposal.team), secret=True)
        if stage == "assassinate":
            return Phase("assassinate", (seats[s.seat_of("Assassin")],))
        return Phase("lady", (seats[s.lady],), ends_round=False)

    def apply(self, agent: str, action: Any) -> list[Event] | None:
        """Play ``agent``'s move in the world (a speech move needs nothing more)."""
        move = _MOVES.get(self.phase.name)
        if move is None:
            return None  # the utterance was already said to the table
        return move(self.world, self.possible_agents.index(agent), action)

    def end_phase(self, phase: Phase) -> Outcome:
        """The rules at the end of a phase; at the end of the game, the rewards."""
        s = self.world
        events = _ENDS[phase.name](s, self.rules)
        reward = dict.fromkeys(self.possible_agents, 0.0)
        if phase.name == "quest" and self.quest_reward:  # shaping: the quest's winners gain
            gains = "good" if s.results[-1] == "success" else "evil"
            for i, a in enumerate(self.possible_agents):
                reward[a] = self.quest_reward if s.side(i) == gains else 0.0
        if s.winner is None:
            return Outcome(events, reward)
        self.finish(s.ended_by)
        for i, a in enumerate(self.possible_agents):
            reward[a] += 1.0 if s.side(i) == s.winner else -1.0
        return Outcome(events, reward)

    def next_round(self) -> None:
        """Count a new round (a quest), in the world too."""
        self.round += 1
        self.world.round = self.round

    def side_of(self, agent: str) -> str:
        """``"good"`` or ``"evil"``: the side of the role dealt to ``agent`` (hidden from play)."""
        if self.world is None:
            raise RuntimeError("call reset() before side_of()")
        return self.world.side(self.possible_agents.index(agent))

    def belief_template(self, agent: str) -> str:
        """The belief before play (:func:`.beliefs.template`): one's own role, the rest unknown."""
        return beliefs.template(self._started_world(), self.possible_agents.index(agent))

    def oracle_belief(self, agent: str) -> str:
        """What ``agent`` could believe now from its own view (:func:`.beliefs.oracle`)."""
        text = beliefs.oracle(self._started_world(), self.possible_agents.index(agent))
        return beliefs.with_observation(text, self.observe_text(agent))

    def belief_facts(self, text: str) -> dict:
        """The sides and roles a belief states (:func:`.beliefs.facts`)."""
        return beliefs.facts(text)

    def _started_world(self) -> world.State:
        if self.world is None:
            raise RuntimeError("call reset() first")
        return self.world

    def code_facts(self, agent: str) -> dict[str, Any]:
        """What ``agent`` has seen, as JSON facts for programs (:func:`.evidence_facts`)."""
        if self.world is None:
            raise RuntimeError("call reset() before code_facts()")
        seat = self.possible_agents.index(agent)
        return deduction.evidence_facts(deduction.evidence(self.world, seat), self.world.seats)

    def metrics(self) -> dict[str, Any]:
        """Who won and how, quests, proposals, team-selection accuracy, votes."""
        s = self.world
        clean = [all(s.side(i) == "good" for i in p.team) for p in s.proposals]
        votes = [v for p in s.proposals if p.votes for v in p.votes.values()]
        # a good player's vote is right when it approves a team without evil, or rejects one
        judged = [
            v == ok
            for p, ok in zip(s.proposals, clean, strict=True)
            if p.votes
            for i, v in p.votes.items()
            if s.side(i) == "good"
        ]
        played = len(s.results)
        per_quest = {f"quest{k}_success": float(r == "success") for k, r in
                     enumerate(s.results, 1)}  # fmt: skip
        if s.target is not None:
            per_quest["assassination_accuracy"] = float(s.roles[s.target] == "Merlin")
        return {
            **super().metrics(),
            "winner": s.winner or "",
            "good_won": float(s.winner == "good"),
            "evil_won": float(s.winner == "evil"),
            "quest_success_rate": s.results.count("success") / played if played else 0.0,
            **per_quest,
            "vote_accuracy": float(np.mean(judged)) if judged else 0.0,
            "quests_succeeded": s.results.count("success"),
            "quests_failed": s.results.count("fail"),
            "quest_results": list(s.results),
            "proposals": len(s.proposals),
            "approved_proposals": sum(bool(p.approved) for p in s.proposals),
            "default_proposals": sum(p.default for p in s.proposals),
            "team_selection_accuracy": float(np.mean(clean)) if clean else 0.0,
            "votes": len(votes),
            "approval_rate": float(np.mean(votes)) if votes else 0.0,
            "merlin_assassinated": float(s.ended_by == "assassin_hit"),
            "lady_examinations": len(s.lady_results),
        }

    # -- observations -------------------------------------------------------------------------

    def turn_view(self, agent: str) -> dict:
        """Every fact ``agent`` holds by the rules now (:func:`.world.known_facts`); shared."""
        key = (agent, self._turns)
        if self._known is None or self._known[:2] != key:
            self._known = (*key, world.known_facts(self.world, self.possible_agents.index(agent)))
        return self._known[2]

    def true_facts(self) -> dict:
        """Every fact of the game now: roles, sides, the Merlin/Morgana pair, quests, votes."""
        if self.world is None:
            raise RuntimeError("call reset() before true_facts()")
        s = self.world
        facts: dict = {}
        for seat, role in zip(s.seats, s.roles, strict=True):
            facts[("role", seat)] = role
            facts[("side", seat)] = ROLES[role]
        if "Merlin" in s.roles and "Morgana" in s.roles:
            pair = (s.seats[s.seat_of("Merlin")], s.seats[s.seat_of("Morgana")])
            facts[("merlin_or_morgana",)] = tuple(sorted(pair))
        for k, (result, fails) in enumerate(zip(s.results, s.fails, strict=True), 1):
            facts[("quest", k)], facts[("fails", k)] = result, fails
        for p in s.proposals:
            facts[("team", p.quest + 1)] = tuple(s.seats[i] for i in p.team)
        for j, v in s.revealed.items():
            facts[("vote", s.seats[j])] = world.VOTES[v]
        return facts

    def _acting(self, agent: str) -> bool:
        return self.acting(agent) and self.world.stage != "over"

    def _legal(self, agent: str) -> list[int]:
        if not self._acting(agent):
            return []
        return world.legal(self.world, self.possible_agents.index(agent), self.rules)

    def _vector(self, agent: str) -> np.ndarray:
        seat = self.possible_agents.index(agent)
        return vector.observation(
            self.world,
            seat,
            self.turn_view(agent),
            self.phase.name,
            self._acting(agent),
            bool(self.infos.get(agent, {}).get("invalid_action")),
            inbox_told(self, agent),
        )

    def vector_layout(self, agent: str) -> VectorLayout:
        """The observation vector's blocks (:func:`.vector.layout`, the same for every seat)."""
        if agent not in self.possible_agents:
            raise ValueError(f"no seat {agent!r} in this game: {self.possible_agents}")
        return vector.layout(len(self.possible_agents))

    def text_knowledge(self, agent: str, text: str) -> dict[Any, Any]:
        """Every fact a text observation states (:func:`.text.parse_observation`), and claims.

        The messages it lists enter as the claims :meth:`read_claims` reads from them.
        """
        return {**words.parse_observation(text), **text_told(self, text)}

    def vector_knowledge(self, agent: str, vector_: np.ndarray) -> dict[Any, Any]:
        """The facts an observation vector holds (:func:`.vector.knowledge`), same keys."""
        self.vector_layout(agent)
        return vector.knowledge(len(self.possible_agents), vector_)

    def read_claims(self, sender: str, text: str, known: Mapping[Any, Any]) -> Claims:
        """The fact sentences of a message about this game's players (:meth:`parse_facts`).

        A sentence naming a seat outside the game claims nothing; a claimed team is its set
        of players, in seat order.
        """
        seats = self.possible_agents
        facts = {}
        for key, value in words.parse_facts(text).items():
            named = [key[1]] if key[0] in ("role", "side", "vote") else []
            if key[0] in ("merlin_or_morgana", "team"):
                named = list(value)
            if not set(named) <= set(seats):
                continue
            if key[0] == "team":
                value = tuple(sorted(set(value), key=seats.index))
            facts[key] = value
        return Claims(facts)

    def _text(self, agent: str) -> str:
        return words.observation_text(
            self.world,
            self.rules,
            self.possible_agents.index(agent),
            self.turn_view(agent),
            self.phase.name,
            self._acting(agent),
            self.received_messages(agent),
            self.infos.get(agent, {}).get("invalid_action"),
        )

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.action_space(agent).n, dtype=np.int8)
        mask[self._legal(agent)] = 1
        return mask

    def state(self) -> np.ndarray:
        """The global state (:func:`.vector.state_vector`)."""
        if self.world is None:
            raise RuntimeError("call reset() before state()")
        return vector.state_vector(self.world, self.phase.name)

    def hidden_twins(self, seed: int) -> list[tuple[str, dict, dict]]:
        """Game ``seed``'s deal, and the same deal with two other roles swapped.

        A Loyal Servant knows nothing of any role but its own, so it must not tell the two
        apart; the two swapped roles are the first two that differ and are not its own.
        """
        self.reset(seed=seed)
        roles = list(self.world.roles)
        servant = roles.index("Loyal Servant")
        others = [i for i, role in enumerate(roles) if role != "Loyal Servant"]
        pairs = [(i, j) for i in others for j in others if i < j and roles[i] != roles[j]]
        i, j = pairs[0]
        swapped = list(roles)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        return [(self.possible_agents[servant], {"deal": roles}, {"deal": swapped})]

    def scene(self) -> dict:
        """The table for ``replay.js``: seats, leader, team, votes, quests; roles are secret."""
        s = self.world
        return {
            "seats": s.seats,
            "leader": s.leader,
            "lady": s.lady,
            "phase": self.phase.name,
            "round": self.round,
            "quest": s.quest,
            "team_sizes": TEAM_SIZES[s.n],
            "results": s.results,
            "fails": s.fails,
            "rejections": s.rejections,
            "team": list(s.proposal.team) if s.proposal is not None else [],
            "votes": {s.seats[i]: world.VOTES[v] for i, v in s.revealed.items()},
            "proposals": [
                {
                    "quest": p.quest,
                    "leader": s.seats[p.leader],
                    "team": [s.seats[i] for i in p.team],
                    "approved": p.approved,
                }
                for p in s.proposals
            ],
            "target": s.seats[s.target] if s.target is not None else None,
            "winner": s.winner,
            "ended_by": s.ended_by,
            "secret": {"roles": s.roles, "sides": [ROLES[r] for r in s.roles]},
        }

    def _render(self) -> str:
        """The whole table, roles included: for people watching, never for a player."""
        s = self.world
        lines = [f"Avalon, {s.n} players, round {self.round}; phase {self.phase.name}."]
        for i, (seat, role) in enumerate(zip(s.seats, s.roles, strict=True)):
            marks = ("leader " if i == s.leader else "") + ("lady " if i == s.lady else "")
            team = "on team " if s.proposal is not None and i in s.proposal.team else ""
            vote = f"voted {world.VOTES[s.revealed[i]]}" if i in s.revealed else ""
            lines.append(f"  {seat:<8} {role:<18} {ROLES[role]:<5} {marks}{team}{vote}".rstrip())
        quests = " ".join(r.upper()[0] for r in s.results) or "-"
        lines.append(f"Quests: {quests}; rejections in a row: {s.rejections}.")
        if s.winner:
            lines.append(f"Winner: {s.winner} ({s.ended_by}).")
        elif self.agents:
            lines.append(f"To act: {self.agent_selection}.")
        return "\n".join(lines)

    # -- language interface -------------------------------------------------------------------

    def rules_text(self, agent: str) -> str:
        """The rules as told to ``agent`` (the role set in play is public)."""
        return words.rules_text(self.world, self.rules, self.possible_agents.index(agent))

    def legal_actions_text(self, agent: str) -> list[str]:
        """The agent's legal actions now, in words (none when it is not its turn)."""
        if not self._acting(agent):
            return []
        seat = self.possible_agents.index(agent)
        return words.legal_actions_text(self.world, seat, self.phase.name, self._legal(agent))

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Read a reply into an action index, or say why it is not one."""
        seat = self.possible_agents.index(agent)
        name = self.phase.name if self._acting(agent) else "wait"
        return words.parse_action(self.world, seat, name, self._legal(agent), text)

    def parse_facts(self, text: str) -> dict:
        """The facts stated in ``text`` in the moderator's sentences."""
        return words.parse_facts(text)

    def facts_text(self, facts: dict) -> str:
        """Facts as the moderator's sentences (:meth:`parse_facts` reads them back)."""
        return words.facts_text(facts)

    def claim_forms(self) -> list[str]:
        """One example of each fact sentence."""
        return words.claim_forms()
