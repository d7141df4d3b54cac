"""A new goal type for the AgentVerse protocol: one registered task plus one configuration file.

Acrostic: write lines whose first letters spell a word, scored by the share of letters right.
Run: python examples/agentverse_new_goal.py
"""

from dataclasses import dataclass
from pathlib import Path

import mase
from mase.envs.agentverse.config import AgentVerseConfig


@dataclass(frozen=True)
class Acrostic:  # a goal: an id, a prompt, a score in [0, 1] and why
    id: str
    kind: str = "acrostic"

    @property
    def prompt(self):
        return f"Write {len(self.id)} lines whose first letters spell {self.id.upper()}."

    def score(self, reply):
        initials = "".join(line.strip()[0].lower() for line in reply.splitlines() if line.strip())
        return sum(initials[k : k + 1] == c for k, c in enumerate(self.id)) / len(self.id)

    def explain(self, reply):
        return f"{self.score(reply):.0%} of the first letters spell {self.id.upper()}."

    def solution(self):  # what the offline group mind answers when it is right (a test double)
        return "\n".join(f"{c.upper()} is a line." for c in self.id)


config = AgentVerseConfig.from_file(Path(__file__).with_name("agentverse_acrostic.toml"))
config.problems = [Acrostic(word) for word in ("team", "plan", "goal")]
mase.register("examples/Acrostic-v0", "mase.envs.agentverse.env:AgentVerseEnv", **vars(config))
if __name__ == "__main__":
    m = mase.evaluate("examples/Acrostic-v0", "scripted", episodes=3)["metrics"]
    print(f"solved {m['solved']['mean']:.0%}, iterations {m['iterations']['mean']:.2f}")
