"""The solver tool of the "with tools" condition: right numbers in, the optimum out."""

import json

import pytest

import mase
from mase.envs.deliberation import scoring
from mase.envs.deliberation import text as words
from mase.tools import run_tool


def test_the_menu_solver_on_the_true_numbers_gives_the_optimum():
    env = mase.make("mase/MenuDesign-v0")
    for seed in range(5):
        env.reset(seed=seed)
        game = env.unwrapped.game
        tools = env.unwrapped.tools("internet_agent")
        stock = {words.shown(i): int(game.stock[j]) for j, i in enumerate(game.ingredients)}
        values = {words.shown(d): float(game.values[i]) for i, d in enumerate(game.dishes)}
        answer = json.loads(
            run_tool(tools, "solve_menu", json.dumps({"stock": stock, "values": values}))
        )
        assert answer["value"] == pytest.approx(game.max_reward, abs=0.01)
        # the menu, said back as a proposal, is read and is the optimum
        env.unwrapped.apply("internet_agent", "Proposal: " + "; ".join(answer["menu"]))
        score = scoring.score_menu(game, list(env.unwrapped.current[1]))
        assert score.valid and score.reward == pytest.approx(game.max_reward)


def test_the_allocation_solver_on_the_true_numbers_gives_the_optimum():
    env = mase.make("mase/TaskAllocation-v0")
    seats = env.unwrapped.seats
    for seed in range(5):
        env.reset(seed=seed)
        game = env.unwrapped.game
        tools = env.unwrapped.tools("leader")
        asked = {
            "capacities": {s: game.capacity[k] for k, s in enumerate(seats)},
            "public": game.public_capacity,
            "values": {
                s: {words.task_ref(t): float(v) for t, v in enumerate(game.values[k])}
                for k, s in enumerate(seats)
            },
        }  # fmt: skip
        answer = json.loads(run_tool(tools, "solve_allocation", json.dumps(asked)))
        assert answer["value"] == pytest.approx(game.max_reward, abs=0.01)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ('{"stock": {"unobtainium": 1}, "values": {}}', "unknown names ['unobtainium']"),
        ('{"stock": {"eggs": "many"}, "values": {}}', "must be a number"),
        ('{"stock": [], "values": {}}', "are objects"),
        ('{"stock": {}}', "cannot use these arguments"),
    ],
)
def test_bad_solver_calls_say_why(arguments, says):
    env = mase.make("mase/MenuDesign-v0")
    env.reset(seed=0)
    assert says in run_tool(env.unwrapped.tools("internet_agent"), "solve_menu", arguments)
