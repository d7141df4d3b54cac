"""One seat as a plain gymnasium env: Bravo learns or acts, scripted teammates play the rest.

Run: python examples/single_agent_gym.py
"""

import gymnasium

import mase  # noqa: F401  (registers the MASE tasks with gymnasium)

# the observation: the vector view and its action mask (obs_mode="both" adds the text)
env = gymnasium.make("mase/SearchRescue-v0", agent="bravo", teammates="scripted")
observation, info = env.reset(seed=0)
total, done = 0.0, False
while not done:
    mask = observation["action_mask"]
    action = env.action_space.sample(mask=mask)  # replace with your agent
    observation, reward, terminated, truncated, info = env.step(action)
    total += reward
    done = terminated or truncated
print(f"bravo's return: {total:.0f}; episode: {info['metrics']}")
