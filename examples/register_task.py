"""Register a new task of your own and run MASE's conformance suite on it.

ColourMatch: two agents pick a colour each round, at the same time; both score 1 when the picks
match. The picks are simultaneous secret moves: neither sees the other's pick until both have
picked. With a message channel they can agree on a colour first. The whole task is the class
below: its rules and its words. `TaskEnv` runs the AEC loop, the schedule, text and invalid
actions, rewards and the episode's end; `mase.register` makes the task available to
`mase.make`, `gymnasium.make`, the runner and the CLI, and `check_task` runs the same PettingZoo
and Gymnasium checkers as the built-in tasks.

Run: python examples/register_task.py
"""

import numpy as np
from gymnasium import spaces

import mase
from mase.checks import check_task
from mase.protocol import message_line
from mase.task import ActionParse, Outcome, RoundRobin, TaskEnv

COLOURS = ("red", "green", "blue")


class ColourMatchEnv(TaskEnv):
    """Two agents try to pick the same colour each round, without seeing each other's pick."""

    metadata = {"name": "colour_match_v0", "render_modes": ["ansi", "human"]}
    schedule = RoundRobin(secret=True)  # both pick, then the picks are revealed together

    def __init__(self, max_cycles: int = 10, obs_mode: str = "both", render_mode=None):
        super().__init__(obs_mode, render_mode, max_cycles)
        self.possible_agents = ["first", "second"]
        self.set_spaces(1 + 2 * len(COLOURS), spaces.Discrete(len(COLOURS)))

    def new_episode(self, options):
        self.picks, self.revealed, self.matches = {}, {}, 0

    def apply(self, agent, pick):
        self.picks[agent] = pick
        return [self.event("pick", agent, {("pick", agent): COLOURS[pick]})]

    def end_round(self):
        first, second = (self.picks.get(a) for a in self.possible_agents)  # None: invalid
        match = first is not None and first == second
        self.matches += match
        self.revealed, self.picks = self.picks, {}
        return Outcome(reward=float(match))

    def metrics(self):
        return {**super().metrics(), "matches": self.matches}

    def true_facts(self):  # the ground truth Theory-of-Mind probes are scored against
        return {("pick", a): COLOURS[c] for a, c in self.revealed.items()}

    def _vector(self, agent):
        v = np.zeros(1 + 2 * len(COLOURS), dtype=np.float32)
        v[0] = self.round / self.max_cycles
        for i, agent_ in enumerate(self.possible_agents):
            if agent_ in self.revealed:
                v[1 + i * len(COLOURS) + self.revealed[agent_]] = 1.0
        return v

    def _text(self, agent):
        last = ", ".join(f"{a} picked {COLOURS[c]}" for a, c in self.revealed.items()) or "none yet"
        said = [message_line(e.actor, e.note) for e in self.received_messages(agent)]
        return f"Round {self.round}. Last round: {last}. " + " ".join(said)

    def rules_text(self, agent):
        return "Pick red, green or blue; you both score when your picks match."

    def legal_actions_text(self, agent):
        return list(COLOURS)

    def parse_action(self, agent, text):
        found = [i for i, c in enumerate(COLOURS) if c in text.lower()]
        if len(found) == 1:
            return ActionParse(found[0])
        return ActionParse(None, "name exactly one of red, green, blue")


mase.register("examples/ColourMatch-v0", ColourMatchEnv)

if __name__ == "__main__":
    check_task("examples/ColourMatch-v0", num_cycles=20)
    summary = mase.evaluate("examples/ColourMatch-v0", "random", episodes=5)
    matches = summary["metrics"]["matches"]["mean"]
    print(
        f"ColourMatch passes the MASE checker suite; a random team matches {matches:.1f} "
        "of 10 rounds on average"
    )
