"""Register a new task of your own and run MASE's conformance suite on it.

ColourMatch: two agents pick a colour each round, at the same time; both score 1 when the picks
match. The picks are simultaneous secret moves: neither sees the other's pick until both have
picked. With a message channel they can agree on a colour first. The whole task is the class
below: its rules and its words. `TaskEnv` runs the AEC loop, the schedule, text and invalid
actions, rewards and the episode's end; `mase.register` makes the task available to
`mase.make`, `gymnasium.make`, the runner and the CLI, and `check_task` runs the same PettingZoo
and Gymnasium checkers as the built-in tasks. The vector view says what it holds, block by block
(`vector_layout`); `text_knowledge` and `vector_knowledge` read the same facts back from each view,
and `check_parity` checks they agree (messages here carry no facts: the task has no fact sentences).

Run: python examples/register_task.py
"""

import re

import numpy as np
from gymnasium import spaces

import mase
from mase.checks import check_parity, check_task
from mase.layout import Block, VectorLayout
from mase.protocol import MESSAGES_HEADER, message_line
from mase.task import ActionParse, Outcome, RoundRobin, TaskEnv

COLOURS = ("red", "green", "blue")
LAYOUT = VectorLayout([
    Block("round", 1, "round / max_cycles"),
    Block("picks", 2 * len(COLOURS), "each agent's pick of the last round (one-hot; none: zeros)"),
])  # fmt: skip


class ColourMatchEnv(TaskEnv):
    """Two agents try to pick the same colour each round, without seeing each other's pick."""

    metadata = {"name": "colour_match_v0", "render_modes": ["ansi", "human"]}
    schedule = RoundRobin(secret=True)  # both pick, then the picks are revealed together

    def __init__(self, max_cycles: int = 10, obs_mode: str = "both", render_mode=None):
        super().__init__(obs_mode, render_mode, max_cycles)
        self.possible_agents = ["first", "second"]
        self.set_spaces(LAYOUT.size, spaces.Discrete(len(COLOURS)))

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
        picks = np.zeros((2, len(COLOURS)))
        for i, agent_ in enumerate(self.possible_agents):
            if agent_ in self.revealed:
                picks[i, self.revealed[agent_]] = 1.0
        return LAYOUT.pack({"round": [self.round / self.max_cycles], "picks": picks})

    def _text(self, agent):
        last = ", ".join(f"{a} picked {COLOURS[c]}" for a, c in self.revealed.items()) or "none yet"
        said = [message_line(e.actor, e.note) for e in self.received_messages(agent)]
        return "\n".join([f"Round {self.round}. Last round: {last}."]
                         + ([MESSAGES_HEADER, *said] if said else []))  # fmt: skip

    # information parity: the vector's blocks, and the same facts read from either view
    def vector_layout(self, agent):
        return LAYOUT

    def text_knowledge(self, agent, text):
        head = text.partition(f"\n{MESSAGES_HEADER}\n")[0]  # messages state no facts here
        facts = {("round",): int(re.match(r"Round (\d+)\.", head).group(1))}
        for who, colour in re.findall(r"\b(first|second) picked (red|green|blue)\b", head):
            facts[("pick", who)] = colour
        return facts

    def vector_knowledge(self, agent, vector):
        parts = LAYOUT.split(vector)
        facts = {("round",): round(float(parts["round"][0]) * self.max_cycles)}
        for agent_, row in zip(self.possible_agents, parts["picks"].reshape(2, -1), strict=True):
            if row.sum() > 1:
                raise ValueError(f"{agent_} picked two colours")
            if row.any():
                facts[("pick", agent_)] = COLOURS[int(row.argmax())]
        return facts

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
    check_parity("examples/ColourMatch-v0")  # the vector holds exactly what the text states
    summary = mase.evaluate("examples/ColourMatch-v0", "random", episodes=5)
    matches = summary["metrics"]["matches"]["mean"]
    print(
        f"ColourMatch passes the MASE checker suite; a random team matches {matches:.1f} "
        "of 10 rounds on average"
    )
