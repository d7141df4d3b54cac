"""The AgentVerse loop over a registered task: the execution stage plays the task's episode.

From the paper's Minecraft case (Chen et al. 2023, §4): the recruiter assigns sub-goals, the
group plans, the agents act in the world, the evaluator compares the state with the goal and
its feedback starts the next iteration; the world goes on from where it was.
"""

import pytest

import mase
from mase.agents import LLMAgent
from mase.envs.agentverse.behaviours import destructive_acts, volunteering
from mase.envs.agentverse.bots import GroupBot
from mase.envs.agentverse.env import AgentVerseEnv, Executed
from mase.envs.craft.scripted import ScriptedCrafter
from mase.llm import LLMConfig, offline_server
from mase.runner import run_episode


def group(env, **kwargs):
    return {seat: GroupBot(**kwargs) for seat in env.possible_agents}


def phases(env, team, seed=0):
    """Play one episode; the stages in the order they were played (repeats merged)."""
    env.reset(seed=seed)
    for seat, policy in team.items():
        policy.reset(seat, env, seed=seed)
    order = []
    for seat in env.agent_iter(20_000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        name = env.unwrapped.phase.name
        if not order or order[-1] != name:
            order.append(name)
        env.step(team[seat].act(obs, info))
    return order


def test_the_minecraft_case_runs_recruit_plan_execute_evaluate_and_goes_on_from_the_world():
    env = mase.make("mase/AgentVerseCraft-v0")
    order = phases(env, group(env))
    # iteration 1: 10 rounds of crafting are not enough; iteration 2 finishes the bookshelf
    assert order == ["recruit", "propose", "review", "execute"] * 2
    av = env.unwrapped
    assert len(av.history) == 2 and av.history[-1].accepted
    assert av.inner.round == 17 and av.inner.ended_by == "crafted"
    assert [len(it.executed) for it in av.history] == [30, 21]  # three crafters, one move each
    assert "is not made yet after 10 round(s)" in av.history[0].feedback  # the evaluation's words


def test_the_scripted_group_plays_the_world_as_the_scripted_team_does():
    """Execution changes nothing about how the team acts: the same rounds, seed for seed."""
    kwargs = {"layout": "random"}
    protocol = mase.make("mase/AgentVerse-v0", task="mase/Craft-v0", experts=3, task_kwargs=kwargs)
    craft = mase.make("mase/Craft-v0", **kwargs)
    for seed in range(8):
        m = run_episode(protocol, group(protocol), seed=seed)["metrics"]
        alone = run_episode(craft, {a: ScriptedCrafter() for a in craft.possible_agents}, seed=seed)
        assert m["solved"] == 1 and m["task_ended_by"] == "crafted"
        assert m["task_rounds"] == alone["metrics"]["makespan"]
        assert m["executed_valid_rate"] == 1.0 and m["destructive_acts"] == 0
        assert m["volunteering"] == 0  # every crafter kept to the sub-goal it was assigned


def test_the_recruiter_sees_the_tasks_split_and_assigns_it():
    env = mase.make("mase/AgentVerseCraft-v0")
    env.reset(seed=0)
    view = env.unwrapped.observe_text("recruiter")
    assert "A possible split of the work" in view and "- Alpha: make 1 book and 4 planks" in view
    assert "Expert 1 acts for Alpha." in view
    env.step(GroupBot().mind.reply(view))
    roles = env.unwrapped.current.roles
    assert "for Bravo: make 1 book and 2 planks" in roles["reviewer_1"]


@pytest.mark.parametrize("structure", ["vertical", "horizontal"])
@pytest.mark.parametrize("evaluator", ["auto", "seat"])
def test_both_structures_and_both_evaluations_reach_the_goal(structure, evaluator):
    env = mase.make("mase/AgentVerse-v0", task="mase/Craft-v0", experts=3,
                    structure=structure, evaluator=evaluator)  # fmt: skip
    order = phases(env, group(env))
    decide = ["propose", "review"] if structure == "vertical" else ["discuss", "integrate"]
    judge = ["evaluate"] if evaluator == "seat" else []
    assert order == (["recruit", *decide, "execute", *judge]) * 2
    assert env.unwrapped.history[-1].accepted and env.unwrapped.inner.ended_by == "crafted"


def test_the_evaluator_seat_judges_the_progress_and_what_is_left():
    env = mase.make("mase/AgentVerse-v0", task="mase/Craft-v0", experts=3, evaluator="seat")
    env.reset(seed=0)
    team = group(env)
    for seat, policy in team.items():
        policy.reset(seat, env, seed=0)
    for seat in env.agent_iter(5_000):
        if env.unwrapped.phase.name == "evaluate":
            break
        obs, _, _, _, info = env.last()
        env.step(team[seat].act(obs, info))
    view = env.unwrapped.observe_text("evaluator")
    assert "Progress: 78%." in view and "Still to do: craft 6 paper" in view
    assert "Verdict: accept" not in team["evaluator"].mind.reply(view)


def test_the_task_ends_the_run_even_when_iterations_remain():
    """The world's own end (its round limit) ends the protocol, whatever the evaluation."""
    env = mase.make("mase/AgentVerse-v0", task="mase/Craft-v0", experts=3, iterations=5,
                    task_kwargs={"max_cycles": 12})  # fmt: skip
    m = run_episode(env, group(env), seed=0)["metrics"]
    assert m["task_ended_by"] == "round_limit" and m["ended_by"] == "task_round_limit"
    assert m["iterations"] == 2 and m["solved"] == 0 and 0 < m["progress"] < 1


def test_a_move_the_task_cannot_read_is_refused_with_its_reason_then_spends_its_turn():
    env = mase.make("mase/AgentVerseCraft-v0", recruit=False)
    env.reset(seed=0)
    av = env.unwrapped
    env.step("Plan: every expert follows the sub-goal in its role.")
    for _ in ("reviewer_1", "reviewer_2"):
        env.step("Verdict: accept")
    assert av.phase.name == "execute" and env.agent_selection == "solver"
    # an LLM seat checks its reply first: the task's parser answers, in the task's words
    parsed = av.read_action("solver", "dance a jig")
    assert parsed.action is None and "move to the forest" in parsed.reason
    assert av.read_action("solver", "Action selection: go to the forest").action is not None
    env.step("dance a jig")
    assert av.infos["solver"]["invalid_action"] == parsed.reason
    assert av.inner.agent_selection == "bravo"  # the task spent alpha's turn by its own rule
    assert av.inner.infos["alpha"]["invalid_action"]
    env.step(av.inner.layout.action_index("move", "forest"))  # an RL seat: the task's index
    assert av.inner.world.positions["bravo"] == "forest"
    env.step(10**400)  # no action at all: refused, and charlie's turn is spent
    assert av.inner.agent_selection == "alpha" and av.inner.round == 2
    steps = av.current.executed
    assert [s.valid for s in steps] == [False, True, False]
    assert env.agent_selection == "solver" and av.phase.name == "execute"


def test_llm_seats_on_the_offline_model_play_a_task_without_hooks():
    """The protocol wraps any task: search and rescue has no goal hooks; its own offline model
    acts for each agent through the protocol's prompts."""
    env = mase.make("mase/AgentVerse-v0", task="mase/SearchRescue-v0", experts=3,
                    execute_rounds=5)  # fmt: skip
    with offline_server("mase/AgentVerse-v0") as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        m = run_episode(env, {a: LLMAgent(config) for a in env.possible_agents}, seed=0)["metrics"]
    assert m["llm_errors"] == 0 and m["llm_valid_output_rate"] == 1.0
    assert m["executed"] == 45 and m["executed_valid_rate"] > 0.9
    assert m["task_rounds"] == 15 and m["iterations"] == 3
    assert m["task_score"] > 0  # the team defused something while the protocol ran


def test_the_protocol_refuses_a_task_kwargs_without_a_task_and_an_unknown_task():
    with pytest.raises(ValueError, match="give task too"):
        AgentVerseEnv(task_kwargs={"layout": "random"})
    with pytest.raises(mase.registry.UnknownEnvError):
        AgentVerseEnv(task="mase/NoSuchTask-v0")
    with pytest.raises(ValueError, match="execute_rounds"):
        AgentVerseEnv(task="mase/Craft-v0", execute_rounds=0)


# -- the detectors, on hand-built records ------------------------------------------------------


def step(agent, made=(), before=0.5, after=0.5, valid=True):
    return Executed("solver", agent, "an action", valid, made, before, after)


def test_volunteering_is_making_what_only_a_teammates_sub_goal_needs():
    needs = {"alpha": frozenset({"wood", "plank"}), "bravo": frozenset({"reed", "paper"})}
    steps = [
        step("alpha", ("wood",)),  # its own work
        step("alpha", ("reed",)),  # bravo's: volunteering
        step("alpha", ("reed",), valid=False),  # a failed move made nothing
        step("bravo", ("leather",)),  # nobody's sub-goal: not volunteering
        step("bravo", ()),  # a move makes nothing
        step("charlie", ("paper",)),  # charlie had no assignment: not counted
    ]
    assert volunteering(steps, needs) == 1
    shared = {"alpha": frozenset({"plank"}), "bravo": frozenset({"plank"})}
    assert volunteering([step("alpha", ("plank",))], shared) == 0  # its own too


def test_a_destructive_act_is_a_valid_move_after_which_the_goal_is_further_away():
    steps = [
        step("alpha", before=0.2, after=0.3),
        step("alpha", before=0.3, after=0.25),  # used up what the goal needed
        step("bravo", before=0.25, after=0.25),
        step("bravo", before=0.25, after=0.1, valid=False),  # not a move the task took
    ]
    assert destructive_acts(steps) == 1


def test_crafting_sticks_from_the_planks_the_bookshelf_needs_is_destructive():
    """In the world: alpha makes 4 planks, then turns them into sticks nobody needs.

    The first 2 planks used leave the work as it was (a craft makes 4 planks, so the 2 still
    missing take one wood and one craft either way); the next 2 add a gather and a craft.
    """
    env = mase.make("mase/AgentVerseCraft-v0", recruit=False)
    env.reset(seed=0)
    av = env.unwrapped
    env.step("Plan: alpha makes planks.")
    env.step("Verdict: accept")
    env.step("Verdict: accept")
    moves = {"alpha": ["go to the forest", "gather wood", "craft planks", "craft sticks",
                       "craft sticks"]}  # fmt: skip
    for k in range(5):
        for agent in ("alpha", "bravo", "charlie"):
            env.step(moves[agent][k] if agent == "alpha" else "wait")
    assert av.inner.world.inventories["alpha"]["stick"] == 8
    progress = [(s.before, s.after) for s in av.current.executed if s.agent == "alpha"]
    assert progress[3][1] == progress[3][0] and progress[4][1] < progress[4][0]
    assert av.metrics()["destructive_acts"] == 1


@pytest.mark.parametrize("layout", ["fixed", "random"])
def test_llm_seats_on_the_offline_model_play_the_minecraft_case_as_the_scripted_group(layout):
    """Every stage through the openai client: the group mind plans, the crafting world's own
    offline model acts for each crafter; the same rounds as the scripted group, seed for seed."""
    env = mase.make("mase/AgentVerseCraft-v0", task_kwargs={"layout": layout})
    with offline_server("mase/AgentVerse-v0") as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        for seed in range(3):
            team = {a: LLMAgent(config) for a in env.possible_agents}
            m = run_episode(env, team, seed=seed)["metrics"]
            bots = run_episode(env, group(env), seed=seed)["metrics"]
            assert m["solved"] == 1 and m["llm_valid_output_rate"] == 1.0
            assert m["executed_valid_rate"] == 1.0 and m["task_rounds"] == bots["task_rounds"]
