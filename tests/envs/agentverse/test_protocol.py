"""The AgentVerse protocol's stages, from the paper's rules (Chen et al. 2023, §2)."""

from dataclasses import dataclass

import pytest

from mase.envs.agentverse.env import AgentVerseEnv, accepts, read_roles


@dataclass
class Words:
    """A problem scored by the share of its words a reply uses."""

    id: str
    prompt: str
    words: tuple

    def score(self, reply):
        return sum(w in reply.lower() for w in self.words) / len(self.words)

    def explain(self, reply):
        missing = [w for w in self.words if w not in reply.lower()]
        return f"missing: {', '.join(missing)}" if missing else "every word used"


PROBLEMS = [Words("p0", "Use the words cat, dog, sun.", ("cat", "dog", "sun"))]


def play(env, say):
    """Each seat says ``say(env, seat)``; the seats in the order they acted."""
    env.reset(seed=0)
    order = []
    for agent in env.agent_iter():
        _, _, done, cut, _ = env.last()
        if done or cut:
            env.step(None)
            continue
        order.append((env.unwrapped.phase.name, agent))
        env.step(say(env.unwrapped, agent))
        assert len(order) < 200
    return order


def test_vertical_the_solver_revises_until_every_reviewer_accepts():
    env = AgentVerseEnv(PROBLEMS, experts=3, evaluator="auto", review_rounds=3)

    def say(base, seat):
        if seat == "recruiter":
            return "Expert 1: a writer\nExpert 2: an editor\nExpert 3: a poet"
        if seat == "solver":
            return ["The cat.", "The cat and the dog.", "The cat, the dog, the sun."][
                len(base.current.proposals)
            ]
        latest = base.current.proposals[-1][1]
        return "Verdict: accept" if base.problem.score(latest) == 1 else "Not every word is used."

    order = play(env, say)
    stages = [s for s, _ in order]
    assert stages == ["recruit", "propose", "review", "review", "propose", "review", "review",
                      "propose", "review", "review"]  # fmt: skip
    m = env.metrics()
    assert m["score"] == 1 and m["solved"] == 1 and m["iterations"] == 1 and m["revisions"] == 2
    assert m["unanimous"] == 1 and m["ended_by"] == "accepted"
    assert env.current.roles == {"solver": "a writer", "reviewer_1": "an editor",
                                 "reviewer_2": "a poet"}  # fmt: skip


def test_reviews_are_secret_until_every_reviewer_has_spoken():
    env = AgentVerseEnv(PROBLEMS, experts=3, recruit=False)
    env.reset(seed=0)
    env.step("The cat.")
    assert env.agent_selection == "reviewer_1"
    env.step("A SECRET CRITIQUE.")
    assert "A SECRET CRITIQUE" not in env.unwrapped.observe_text("reviewer_2")
    env.step("Verdict: accept")
    assert "A SECRET CRITIQUE" in env.unwrapped.observe_text("reviewer_2")


def test_an_unaccepted_decision_goes_back_to_recruitment_with_the_feedback():
    env = AgentVerseEnv(PROBLEMS, experts=2, evaluator="auto", iterations=3, review_rounds=1)

    def say(base, seat):
        if seat == "recruiter":
            return "Expert 1: a writer\nExpert 2: an editor"
        if seat == "solver":
            return "The cat and the dog." if len(base.history) < 3 else "cat dog sun"
        return "Verdict: accept"

    order = play(env, say)
    assert [s for s, _ in order].count("recruit") == 3
    assert env.history[0].feedback == "missing: sun" and not env.history[0].accepted
    assert "Its evaluation: missing: sun" in env.unwrapped.observe_text("solver")
    assert env.metrics()["score"] == 1 and env.metrics()["iterations"] == 3


def test_the_iteration_limit_ends_an_unsolved_problem_with_the_last_decision():
    env = AgentVerseEnv(PROBLEMS, experts=2, iterations=2, review_rounds=1, recruit=False)
    play(env, lambda base, seat: "The cat." if seat == "solver" else "Verdict: accept")
    m = env.metrics()
    assert m["ended_by"] == "iterations" and m["iterations"] == 2
    assert m["score"] == pytest.approx(1 / 3)


def test_horizontal_experts_take_turns_then_expert_1_integrates():
    env = AgentVerseEnv(PROBLEMS, structure="horizontal", experts=3, evaluator="none",
                        review_rounds=2, recruit=False)  # fmt: skip
    said = {"expert_1": "cat", "expert_2": "dog", "expert_3": "sun"}

    def say(base, seat):
        if base.phase.name == "integrate":
            return " ".join(said.values())
        return said[seat]

    order = play(env, say)
    assert order == [
        ("discuss", "expert_1"),
        ("discuss", "expert_2"),
        ("discuss", "expert_3"),
    ] * 2 + [("integrate", "expert_1")]
    assert env.metrics()["score"] == 1 and env.metrics()["ended_by"] == "decided"


def test_an_evaluator_seat_judges_and_its_feedback_is_read():
    env = AgentVerseEnv(PROBLEMS, experts=1, recruit=False, evaluator="seat", iterations=2)
    verdicts = iter(["The sun is missing.", "Verdict: accept"])
    play(env, lambda base, seat: "cat dog" if seat == "solver" else next(verdicts))
    assert env.history[0].feedback == "The sun is missing." and env.history[1].accepted
    assert env.metrics()["iterations"] == 2 and env.metrics()["evaluator_accepted"] == 1


def test_a_single_agent_answers_once():
    env = AgentVerseEnv(PROBLEMS, experts=1, recruit=False, evaluator="none", cot=True)
    env.reset(seed=0)
    assert "Think step by step" in env.observe_text("solver")  # chain of thought, asked for
    order = play(env, lambda base, seat: "cat dog sun")
    assert order == [("propose", "solver")]
    assert env.metrics()["score"] == 1


@pytest.mark.parametrize(
    ("text", "verdict"),
    [("Verdict: accept", True), ("**Verdict:** Accepted.", True), ("[Agree]", True),
     ("I accept most of it, but the dog is missing.", False), ("Looks wrong.", False)],
)  # fmt: skip
def test_verdicts_are_lines_of_their_own(text, verdict):
    assert accepts(text) is verdict


def test_roles_are_read_one_line_an_expert():
    roles = read_roles("Sure!\nExpert 1: a mathematician\n**Expert 2** - a checker\nExpert 9: x",
                       ("solver", "reviewer_1"))  # fmt: skip
    assert roles == {"solver": "a mathematician", "reviewer_1": "a checker"}


def test_bad_settings_say_what_is_allowed():
    with pytest.raises(ValueError, match="structure must be one of"):
        AgentVerseEnv(PROBLEMS, structure="diagonal")
    with pytest.raises(ValueError, match="experts must be a whole number"):
        AgentVerseEnv(PROBLEMS, experts=0)


# -- behaviours, on hand-built runs ---------------------------------------------------------


def run(*iterations):
    from mase.envs.agentverse.env import Iteration

    out = []
    for proposals, reviews, decision, accepted in iterations:
        out.append(Iteration(proposals=[("solver", p) for p in proposals],
                             reviews=[{"reviewer_1": (t, ok)} for t, ok in reviews],
                             decision=decision, accepted=accepted))  # fmt: skip
    return out


def test_conformity_is_a_revision_after_criticism():
    from mase.envs.agentverse.behaviours import behaviours

    history = run(
        (["x = 1", "x = 2"], [("wrong", False), ("Verdict: accept", True)], "x = 2", True)
    )
    assert behaviours(history) == {"conformity": 1, "ignored_feedback": 0, "loops": 0}


def test_an_unchanged_revision_or_decision_ignores_the_feedback():
    from mase.envs.agentverse.behaviours import behaviours

    history = run(
        (["x = 1", "x  =  1"], [("wrong", False), ("still wrong", False)], "x = 1", False),
        (["x = 1"], [("Verdict: accept", True)], "x = 1", False),
    )
    counts = behaviours(history)
    assert counts["ignored_feedback"] == 2 and counts["conformity"] == 0
    assert counts["loops"] == 1  # the second decision repeats the first


def test_a_loop_is_a_decision_the_group_made_before():
    from mase.envs.agentverse.behaviours import behaviours

    history = run((["a"], [], "a", False), (["b"], [], "b", False), (["a"], [], "a", False))
    assert behaviours(history)["loops"] == 1
    assert behaviours(run((["a"], [], "a", True)))["loops"] == 0


def test_named_sources_load_and_a_missing_file_is_said():
    from mase.envs.agentverse.env import load_problems

    assert len(load_problems("samples")) == 10
    assert len(load_problems("math", n=5)) == 5  # the debate task's own GSM8K-format sample
    with pytest.raises(FileNotFoundError, match="logic_grid.path=FILE"):
        load_problems("logic_grid")
    with pytest.raises(ValueError, match="unknown problem source 'poetry'"):
        load_problems("poetry")


def test_the_preset_runs_its_settings_with_the_papers_numbers_beside():
    from mase.presets import load_preset

    preset = load_preset("agentverse-table1")
    assert [t.label for t in preset.teams] == ["single agent", "chain of thought",
                                               "group, vertical", "group, horizontal"]  # fmt: skip
    assert preset.paper["group (GPT-4)"]["solved@humaneval"] == 0.890
    for team in preset.teams:
        for condition in preset.conditions:
            if condition.name in ("logic_grid", "fed"):  # they need a file (and FED a judge)
                continue
            env = AgentVerseEnv(**{**condition.env_kwargs, **team.env_kwargs, "n_problems": 2})
            assert env.possible_agents
