"""Avalon's rule-based bots: legal moves, their stated rules, their strength, what they read.

The win-rate thresholds sit well inside the margins measured over 200 games (the README gives
the numbers); each compares bots with random play on the same seeds.
"""

import re

import pytest

import mase
from mase.agents import RandomPolicy
from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.roles import FAILS_NEEDED, ROLES
from mase.runner import run_episode

SENTENCE = re.compile(
    r"I trust [A-Z][a-z]+(?: and [A-Z][a-z]+)?; "
    r"(?:I would not send [A-Z][a-z]+|I have no reason to doubt anyone yet)\."
)

MOVE = re.compile(r"approve|reject|success|fail|propose |assassinate |examine ")
SEEN_BY_MERLIN = ("Morgana", "Assassin", "Minion of Mordred")


def play(env, good="bot", evil="bot", seed=0, record_text=False):
    """One game with each side played by bots or random policies (the deal of ``seed``)."""
    env.reset(seed=seed)
    roles = env.unwrapped.world.roles  # the test knows the deal; the bots do not
    team = {
        seat: AvalonBot() if (good if ROLES[role] == "good" else evil) == "bot" else RandomPolicy()
        for seat, role in zip(env.possible_agents, roles, strict=True)
    }
    return run_episode(env, team, seed=seed, record_text=record_text)


def good_win_rate(n, good, evil, games=200):
    env = mase.make("mase/Avalon-v0", n_players=n)
    return sum(play(env, good, evil, seed)["metrics"]["good_won"] for seed in range(games)) / games


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_players": 5},
        {"n_players": 7, "lady_of_the_lake": True, "fifth_proposal": "forced", "discussion": 0},
        {"n_players": 10, "discussion": 2, "obs_mode": "vector"},
    ],
    ids=["5", "7", "10"],
)
def test_bots_only_make_legal_moves(kwargs):
    env = mase.make("mase/Avalon-v0", **kwargs)
    for seed in range(100):
        metrics = play(env, seed=seed)["metrics"]
        assert metrics["valid_action_rate"] == 1.0, (seed, metrics)


def test_good_bots_beat_random_evil_far_more_often_than_random_good_does():
    assert good_win_rate(5, "bot", "random") >= good_win_rate(5, "random", "random") + 0.2


def test_evil_bots_beat_random_good():
    random_good = good_win_rate(5, "random", "random")
    against_bots = good_win_rate(5, "random", "bot")
    assert against_bots <= 0.05 and against_bots < random_good - 0.2


def test_the_stated_rules_hold_in_every_game():
    """Merlin never approves nor proposes a team with an evil player he sees (but on a fifth
    proposal in a row); good bots never propose a known-evil player; evil bots who see each
    other never play more fails than a quest needs; speech is one sentence in words."""
    for n in (5, 8):  # role sets without Oberon, whom his teammates cannot count on
        env = mase.make("mase/Avalon-v0", n_players=n)
        for seed in range(60):
            record = play(env, seed=seed)
            s = env.unwrapped.world
            merlin = s.seat_of("Merlin")
            seen = {j for j, r in enumerate(s.roles) if r in SEEN_BY_MERLIN}
            for p in s.proposals:
                if p.leader == merlin:
                    assert not set(p.team) & seen, (seed, p)
                if p.votes is not None and set(p.team) & seen:
                    last = [q for q in s.proposals if q.quest == p.quest].index(p) == 4
                    assert p.votes[merlin] == 0 or last, (seed, p)
            for k, fails in enumerate(s.fails):
                assert fails in (0, FAILS_NEEDED[n][k]), (seed, s.fails)
            speech = [t["action"] for t in record["turns"] if not MOVE.match(t["action"])]
            assert speech and all(SENTENCE.fullmatch(line) for line in speech), speech[:3]


def test_the_assassin_finds_a_bot_merlin_more_often_than_chance():
    env = mase.make("mase/Avalon-v0", n_players=5)
    endings = [play(env, seed=seed)["metrics"]["ended_by"] for seed in range(200)]
    named = [e for e in endings if e.startswith("assassin")]
    # the Assassin knows Morgana: a blind guess among the three others hits one time in three
    assert len(named) >= 50
    assert endings.count("assassin_hit") / len(named) >= 0.45


class WorldHidden:
    """Plays a bot with the env's world taken away for the length of each ``act``."""

    def __init__(self):
        self.bot = AvalonBot()

    def reset(self, agent, env, seed=None):
        self.base = env.unwrapped
        self.bot.reset(agent, env, seed)

    def act(self, observation, info):
        world, self.base.world = self.base.world, None
        try:
            return self.bot.act(observation, info)
        finally:
            self.base.world = world


def test_a_bot_decides_without_the_world():
    env = mase.make("mase/Avalon-v0", n_players=7, lady_of_the_lake=True)
    for seed in range(20):
        hidden = run_episode(env, {a: WorldHidden() for a in env.possible_agents}, seed=seed)
        plain = play(env, seed=seed, record_text=True)
        assert [t["action"] for t in hidden["turns"]] == [t["action"] for t in plain["turns"]]


def test_two_deals_that_look_the_same_to_a_seat_get_the_same_moves():
    """A loyal servant cannot tell who of two others is Merlin: swapping them changes nothing
    it sees, and nothing it does, until their own moves differ."""
    deal = ["Loyal Servant", "Merlin", "Percival", "Morgana", "Assassin"]
    swapped = ["Loyal Servant", "Percival", "Merlin", "Morgana", "Assassin"]
    moves = []
    for roles in (deal, swapped):
        env = mase.make("mase/Avalon-v0", roles=tuple(roles))
        env.reset(seed=3, options={"deal": roles, "leader": "alpha"})
        bot = AvalonBot()
        bot.reset("alpha", env, seed=5)
        observation, *_ = env.last()
        moves.append((observation["text"], bot.act(observation, {})))
    assert moves[0] == moves[1]
    assert moves[0][1].startswith("propose alpha")
