"""A new kind of Theory-of-Mind question in a few lines: "Does Bravo know where Charlie is?"

A probe is a function: given what just happened (the acting agent, the step's events, the
knowledge tracker, the true facts, a seeded generator), it yields questions. Ground truth comes
from the knowledge tracker, so the new question is scored exactly like the paper's.

Run: python examples/custom_probe.py
"""

import mase
from mase.envs.search_rescue.tom import PAPER_PROBES
from mase.wrappers import MessageChannel
from mase.wrappers.tom_probe import Question, ToMProbe


def whereabouts(context):
    """After a move, ask the mover whether a teammate knows where a third agent is."""
    for event in context.events:
        if event.kind != "move" or event.actor != context.agent:
            continue
        others = [a for a in context.env.possible_agents if a != context.agent]
        about, whom = (others[i] for i in context.rng.permutation(len(others))[:2])
        yield Question(
            asked=context.agent,
            level="first_order",
            kind="whereabouts",
            question=f"Does {about.capitalize()} know where {whom.capitalize()} is?",
            facts=(("agent_room", whom),),
            about=about,
        )


env = ToMProbe(
    MessageChannel(mase.make("mase/SearchRescue-v0")), probes=[*PAPER_PROBES, whereabouts]
)
team = {agent: mase.agents.make_policy("scripted", env) for agent in env.possible_agents}
env.reset(seed=0)
for seat, policy in team.items():
    policy.reset(seat, env, seed=0)
for agent in env.agent_iter():
    observation, reward, terminated, truncated, info = env.last()
    # a stand-in for a model: always says teammates know (an LLM would call policy.answer)
    replies = {q["id"]: "Yes." for q in info.get("tom_questions", [])}
    env.answer_questions(agent, replies)
    env.step(None if terminated or truncated else team[agent].act(observation, info))

record = env.episode_record()
mine = [p for p in record["probes"] if p["kind"] == "whereabouts"]
for probe in mine[:3]:
    asked, question, truth = probe["asked"], probe["question"], probe["truth"]
    print(f"round {probe['round']}, {asked} asked: {question} truth: {truth}")
right = sum(p["correct"] for p in mine)
print(f"whereabouts: {len(mine)} questions, always-yes accuracy {right / len(mine):.2f}")
print("always-yes accuracy per level (paper questions and whereabouts together):")
for name, value in record["metrics"].items():
    print(f"  {name}: {value if value is None or isinstance(value, int) else round(value, 3)}")
