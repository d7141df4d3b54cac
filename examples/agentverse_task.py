"""The AgentVerse protocol over a task of your own: it plays the task's episode as its execution.

Tally: two agents take turns adding 1, 2 or 3 to a counter that must end at exactly the target.
The protocol recruits, plans, plays Tally for some rounds, evaluates by the task's ``progress``
and replans; its scripted experts act in Tally with the task's scripted policy. Tally's vector
says what it holds (`vector_layout`), and both views read back the counter and the target.
Run: python examples/agentverse_task.py
"""

import re
from pathlib import Path

import numpy as np
from gymnasium import spaces

import mase
from mase.agents.base import Policy
from mase.envs.agentverse.config import AgentVerseConfig
from mase.layout import Block, VectorLayout
from mase.task import ActionParse, TaskEnv


class TallyBot(Policy):  # the task's scripted seat: the protocol's scripted experts act with it
    def act(self, observation, info):
        env = self.env.unwrapped
        return min(3, env.target - env.count) - 1


class TallyEnv(TaskEnv):
    """Add 1, 2 or 3 in turn; the team wins when the counter ends at exactly ``target``."""

    # it ends after the move that reaches the target, mid-round: not PettingZoo's
    # parallelizable (a round is no parallel step; mase.make_parallel plays a turn a step)
    metadata = {"name": "tally_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    scripted_policy = TallyBot

    def __init__(self, target: int = 10, max_cycles: int = 10, obs_mode="both", render_mode=None):
        super().__init__(obs_mode, render_mode, max_cycles)
        self.possible_agents, self.target = ["ann", "bob"], target
        self.layout = VectorLayout([
            Block("progress", 1, "min(counter / target, 1)"),
            Block("counter", 1, "counter / (target + 2): the counter ends at most 2 past it"),
            Block("target", 1, "1 / target"),
        ])  # fmt: skip
        self.set_spaces(self.layout.size, spaces.Discrete(3))

    def new_episode(self, options):
        self.count = 0

    def apply(self, agent, action):
        self.count += int(action) + 1
        if self.count >= self.target:
            self.finish("reached" if self.count == self.target else "overshot")
        # everyone sees the counter, so everyone is the audience of the move that changed it
        added = self.event("add", agent, {("counter",): self.count}, note=f"+{int(action) + 1}")
        return [added], float(self.count == self.target)

    def progress(self):  # what the protocol's evaluation reads: a share and words
        return float(self.count == self.target), f"The counter is at {self.count} of {self.target}."

    def metrics(self):
        return {**super().metrics(), "score": float(self.count == self.target)}

    def _vector(self, agent):
        progress = min(self.count / self.target, 1.0)
        counter, target = self.count / (self.target + 2), 1 / self.target
        return self.layout.pack({"progress": [progress], "counter": [counter], "target": [target]})

    def _text(self, agent):
        return f"The counter is at {self.count}; the target is {self.target}."

    def vector_layout(self, agent):
        return self.layout

    def text_knowledge(self, agent, text):  # the facts the text states
        count, target = re.match(r"The counter is at (\d+); the target is (\d+)\.", text).groups()
        return {("counter",): int(count), ("target",): int(target)}

    def vector_knowledge(self, agent, vector):  # the same facts, from the vector
        v = self.layout.split(vector)
        if v["target"][0] <= 0:
            raise ValueError("no target")
        target = round(1 / float(v["target"][0]))
        count = round(float(v["counter"][0]) * (target + 2))
        if not np.isclose(v["progress"][0], min(count / target, 1.0)):
            raise ValueError("progress and counter disagree")
        return {("counter",): count, ("target",): target}

    def rules_text(self, agent):
        return f"You are {agent}. In turn, add 1, 2 or 3; end at exactly {self.target}."

    def legal_actions_text(self, agent):
        return ["add 1", "add 2", "add 3"]

    def parse_action(self, agent, text):
        found = [n for n in "123" if f"add {n}" in text.lower()]
        return ActionParse(int(found[0]) - 1) if found else ActionParse(None, "say 'add N', N 1-3")


mase.register("examples/Tally-v0", TallyEnv)
if __name__ == "__main__":
    config = AgentVerseConfig.from_file(Path(__file__).with_name("agentverse_tally.toml"))
    summary = mase.evaluate(
        "mase/AgentVerse-v0", "scripted", episodes=5, env_kwargs=config.env_kwargs()
    )
    print({k: summary["metrics"][k] for k in ("score", "iterations", "task_rounds")})
