"""The MASE step loop: a scripted Alpha with random teammates on search and rescue.

Run: python examples/quickstart.py
"""

import mase

env = mase.wrappers.MessageChannel(mase.make("mase/SearchRescue-v0", render_mode="ansi"))
team = {
    "alpha": mase.agents.make_policy("scripted", env),
    "bravo": mase.agents.RandomPolicy(),
    "charlie": mase.agents.RandomPolicy(),
}
env.reset(seed=0)
for seat, policy in team.items():
    policy.reset(seat, env, seed=0)
for agent in env.agent_iter():
    observation, reward, terminated, truncated, info = env.last()
    action = None if terminated or truncated else team[agent].act(observation, info)
    env.step(action)
print(env.render())
print("metrics:", info["metrics"])
