"""Scenes the Avalon tests share."""

import pytest

#: alpha and echo serve, bravo is the Minion, charlie Merlin, delta the Assassin
DEAL = ("Loyal Servant", "Minion of Mordred", "Merlin", "Assassin", "Loyal Servant")


@pytest.fixture
def first_quest_fails():
    """Play ``avalonbench-5`` (``DEAL``, alpha leading) to a failed first quest.

    Alpha proposes alpha and bravo, all approve, alpha plays success and bravo fail.
    """

    def play(env):
        env.reset(seed=0, options={"deal": DEAL, "leader": "alpha"})
        env.step("propose alpha, bravo")
        for _ in range(5):
            env.step("approve")
        env.step("success")
        env.step("fail")  # bravo, the Minion
        return env

    return play
