"""Register a new task of your own and run MASE's conformance suite on it.

ColourMatch: two agents pick a colour each round, the second without seeing the first's
pick; both score 1 when the picks match. With a message channel the first can say what it
will pick. The whole task is the class below; `mase.register` makes it available to
`mase.make`, `gymnasium.make`, the runner and the CLI, and `check_task` runs the same
PettingZoo and Gymnasium checkers as the built-in tasks.

Run: python examples/register_task.py
"""

import numpy as np
from gymnasium import spaces

import mase
from mase.checks import check_task
from mase.events import Event
from mase.spaces import observation_space
from mase.task import ActionParse, TaskEnv

COLOURS = ("red", "green", "blue")


class ColourMatchEnv(TaskEnv):
    """Two agents try to pick the same colour each round, the second not seeing the first."""

    metadata = {
        "name": "colour_match_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": True,
    }

    def __init__(self, max_cycles: int = 10, obs_mode: str = "both", render_mode=None):
        super().__init__(obs_mode, render_mode)
        self.max_cycles = max_cycles
        self.possible_agents = ["first", "second"]
        size = 1 + 2 * len(COLOURS)  # round, then last round's picks (one-hot each)
        self._obs = {
            a: observation_space(obs_mode, size, len(COLOURS)) for a in self.possible_agents
        }
        self._act = {a: spaces.Discrete(len(COLOURS)) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32)

    def observation_space(self, agent):
        return self._obs[agent]

    def action_space(self, agent):
        return self._act[agent]

    def reset(self, seed=None, options=None):
        self._start_episode()  # AEC bookkeeping and the event log, from TaskEnv
        self._round, self._picks, self._last, self._matches = 1, {}, {}, 0

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._begin_turn(agent)
        self._cumulative_rewards[agent] = 0.0
        pick = self.parse_action(agent, action).action if isinstance(action, str) else action
        self._picks[agent] = int(pick) % len(COLOURS) if pick is not None else 0
        reward = 0.0
        if agent == "second":
            reward = float(self._picks["first"] == self._picks["second"])
            self._matches += int(reward)
            self.emit(
                Event(
                    "reveal",
                    None,
                    {("picks",): dict(self._picks)},
                    frozenset(self.agents),
                    self._round,
                )
            )
            self._last, self._picks = dict(self._picks), {}
            if self._round >= self.max_cycles:
                for a in self.agents:
                    self.truncations[a] = True
                    self.infos[a]["metrics"] = {"rounds": self._round, "matches": self._matches}
            self._round += 1
        self.rewards = {a: reward for a in self.agents}
        self.agent_selection = "second" if agent == "first" else "first"
        self._accumulate_rewards()

    @property
    def round(self):
        return self._round

    def _vector(self, agent):
        v = np.zeros(1 + 2 * len(COLOURS), dtype=np.float32)
        v[0] = min(self._round, self.max_cycles) / self.max_cycles
        for i, a in enumerate(self.possible_agents):
            if a in self._last:
                v[1 + i * len(COLOURS) + self._last[a]] = 1.0
        return v

    def _text(self, agent):
        last = ", ".join(f"{a} picked {COLOURS[c]}" for a, c in self._last.items()) or "none yet"
        said = [f'{e.actor}: "{e.note}"' for e in self.received_messages(agent)]
        return f"Round {min(self._round, self.max_cycles)}. Last round: {last}. " + " ".join(said)

    def _mask(self, agent):
        return np.ones(len(COLOURS), dtype=np.int8)

    def state(self):
        return self._vector(self.agent_selection)

    def render(self):
        picture = f"round {self._round}: last picks {self._last}"
        return print(picture) if self.render_mode == "human" else picture

    def true_facts(self):  # the ground truth Theory-of-Mind probes are scored against
        return {("picks",): dict(self._last)}

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
