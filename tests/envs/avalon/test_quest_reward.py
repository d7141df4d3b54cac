"""Avalon's optional quest reward: shaping for training, off by default."""

import pytest

import mase

DEAL = ("Merlin", "Loyal Servant", "Loyal Servant", "Minion of Mordred", "Assassin")


def play_first_quest(env, team, cards):
    """Propose ``team`` with alpha leading, everyone approves, the team plays ``cards``."""
    env.reset(seed=0, options={"deal": DEAL, "leader": "alpha"})
    env.step("propose " + ", ".join(team))
    for _ in env.possible_agents:
        env.step("approve")
    for card in cards[:-1]:
        env.step(card)
    assert env.unwrapped.phase.name == "quest"
    env.step(cards[-1])  # the last card ends the quest
    return dict(env.unwrapped.rewards)


@pytest.mark.parametrize(
    "team, cards, paid",
    [
        (("alpha", "bravo"), ("success", "success"), (0.25, 0.0)),
        (("alpha", "delta"), ("success", "fail"), (0.0, 0.25)),
    ],
    ids=["success", "fail"],
)
def test_each_quest_pays_the_side_that_won_it(team, cards, paid):
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0, quest_reward=0.25)
    rewards = play_first_quest(env, team, cards)
    good, evil = paid
    assert rewards == {"alpha": good, "bravo": good, "charlie": good,
                       "delta": evil, "echo": evil}  # fmt: skip


def test_no_quest_reward_by_default_and_a_bad_value_is_refused():
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0)
    rewards = play_first_quest(env, ("alpha", "bravo"), ("success", "success"))
    assert set(rewards.values()) == {0.0}
    with pytest.raises(ValueError, match="quest_reward"):
        mase.make("mase/Avalon-v0", roles="avalonbench-5", quest_reward=-1)
