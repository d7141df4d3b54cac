"""Avalon in words: LLM seats on the offline model, beliefs, Theory-of-Mind probes, ad hoc teams.

Every LLM path runs through the real ``openai`` client against the offline server.
"""

import pytest

import mase
from mase.agents import LLMAgent
from mase.agents.by_side import BySide
from mase.envs.avalon import beliefs, tom
from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.deduction import evidence, posterior
from mase.envs.avalon.deduction_player import DeductionPlayer
from mase.llm import LLMConfig, offline_server
from mase.runner import evaluate, run_episode
from mase.runner.teams import SideChoice, parse_team
from mase.wrappers import BeliefState, ToMProbe


@pytest.fixture(scope="module")
def server():
    with offline_server("mase/Avalon-v0") as running:
        yield running


def config(server):
    return LLMConfig(base_url=server.base_url, cache=False)


def test_a_table_of_llm_seats_plays_whole_games_with_valid_moves_only(server):
    env = mase.make("mase/Avalon-v0", roles="avalonplay-7", lady_of_the_lake=True)
    for seed in range(2):
        team = {a: LLMAgent(config(server)) for a in env.possible_agents}
        record = run_episode(env, team, seed=seed)
        assert record["metrics"]["llm_valid_output_rate"] == 1.0
        said = [m["text"] for m in record["messages"]]
        assert said and all("Action selection" not in text for text in said)


def test_llm_seats_in_belief_mode_hold_the_oracle_belief_of_what_they_saw(server):
    env = BeliefState(mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0))
    team = {a: AvalonBot() for a in env.possible_agents}
    team["alpha"] = LLMAgent(config(server), belief=True)
    scored = 0
    for seed in range(3):
        record = run_episode(env, team, seed=seed)
        metrics = record["metrics"]
        assert metrics["llm_valid_output_rate"] == 1.0
        # the offline model writes the posterior it read: as the oracle's, fact for fact
        assert metrics["belief_oracle_agreement"] == 1.0
        assert metrics["belief_recall"] == 1.0
        scored += metrics["beliefs_scored"]
    assert scored >= 10


def test_the_belief_format_reads_back_and_the_template_claims_nothing_about_others():
    env = mase.make("mase/Avalon-v0", roles="avalonplay-7")
    env.reset(seed=2)
    base = env.unwrapped
    for seat in env.possible_agents:
        held = base.belief_facts(base.belief_template(seat))
        assert set(held) == {("side", seat), ("role", seat)}
        truth = base.true_facts()
        oracle = base.belief_facts(base.oracle_belief(seat))
        certain = [k for k in oracle if "(certain)" in _line(base.oracle_belief(seat), k[1])]
        assert all(oracle[k] == truth[k] for k in certain)
    text = base.oracle_belief("alpha")
    assert beliefs.latest_observation(text) == base.observe_text("alpha")


def _line(text, seat):
    return next(line for line in text.splitlines() if line.startswith(f"- {seat.capitalize()}"))


def test_probes_ask_role_deduction_after_each_quest_with_exact_references(server):
    env = ToMProbe(mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0))
    team = {a: LLMAgent(config(server)) for a in env.possible_agents}
    record = run_episode(env, team, seed=4)
    probes = record["probes"]
    levels = {p["level"] for p in probes}
    assert levels == {"first_order", "second_order"}
    assert all(isinstance(p["truth"], bool) and p["reply"] for p in probes)
    quests = record["metrics"]["quests_succeeded"] + record["metrics"]["quests_failed"]
    assert len(probes) <= 2 * 5 * quests
    first = [p for p in probes if p["level"] == "first_order"]
    assert sum(p["correct"] for p in first) / len(first) >= 0.5


def test_second_order_reference_is_the_thinkers_exact_posterior(first_quest_fails):
    env = first_quest_fails(
        ToMProbe(mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0))
    )
    base = env.unwrapped
    # the Assassin knows the Minion is evil; a servant cannot tell who failed but alpha did not
    assert tom._thinks_evil(base, "delta", "bravo") is True
    assert tom._thinks_evil(base, "alpha", "bravo") is True
    p = posterior(evidence(base.world, 4)).p_evil()
    assert tom._thinks_evil(base, "echo", "alpha") is bool(p[0] > 0.5)


def test_questions_are_read_back_only_in_their_own_words():
    assert tom.read_question("Is Charlie on the evil side?") == ("first_order", "charlie")
    assert tom.read_question("Does Echo think you are on the evil side?") == (
        "second_order",
        "echo",
    )
    assert tom.read_question("Is Charlie evil, do you think?") is None


def test_a_team_can_name_sides_and_each_seat_plays_the_policy_of_the_side_it_is_dealt():
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5")
    seats = env.possible_agents
    parsed = parse_team("scripted,good=deduction,alpha=random", seats, env.unwrapped.sides)
    assert parsed["alpha"] == "random"
    assert parsed["bravo"] == SideChoice(good="deduction", evil="scripted")
    with pytest.raises(ValueError, match="sides: \\['good', 'evil'\\]"):
        parse_team("scripted,neutral=random", seats, env.unwrapped.sides)
    with pytest.raises(ValueError, match="no policy for side"):
        parse_team("good=deduction", seats, env.unwrapped.sides)
    env.reset(seed=5)
    player = BySide({"good": DeductionPlayer(), "evil": AvalonBot()})
    for seat in seats:
        player.reset(seat, env, 0)
        side = env.unwrapped.side_of(seat)
        assert isinstance(player.current, DeductionPlayer) is (side == "good")


def test_side_teams_run_through_evaluate(tmp_path):
    summary = evaluate(
        "mase/Avalon-v0", "scripted,good=deduction", episodes=6, out=tmp_path / "run",
        env_kwargs={"roles": "avalonbench-5"},
    )  # fmt: skip
    assert summary["episodes"] == 6


@pytest.mark.parametrize(
    "reply, phase, expected",
    [
        ("I propose Alpha and Charlie for this quest.", "propose", "alpha, charlie"),
        ("Team: 1, 3", "propose", "alpha, charlie"),
        ("Action selection: propose alpha, charlie\nMessage to Team: trust me", "propose",
         "alpha, charlie"),
        ("I will approve this team.", "vote", "approve"),
        ("Reject. Bravo looks suspicious.", "vote", "reject"),
        ("Approve or reject? Hard to say.", "vote", None),
    ],
)  # fmt: skip
def test_paraphrased_moves_are_read_or_refused_with_a_reason(reply, phase, expected):
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0)
    env.reset(seed=0, options={"leader": "alpha"})
    base = env.unwrapped
    if phase == "vote":
        env.step("propose alpha, charlie")
    agent = env.agent_selection
    parsed = base.read_action(agent, reply)
    if expected is None:
        assert parsed.action is None and parsed.reason
        return
    words = dict(zip(_legal(base, agent), base.legal_actions_text(agent), strict=True))
    assert words[parsed.action] == (f"propose {expected}" if phase == "propose" else expected)


def _legal(base, agent):
    return [int(i) for i in base.observe(agent)["action_mask"].nonzero()[0]]
