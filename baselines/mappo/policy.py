"""A trained MAPPO actor as a MASE policy: any seat, any episode, through ``env.step``."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from mase.agents.base import Policy
from mase.baselines.mappo.mappo import Actor
from mase.layout import read_prefix


class MAPPOPolicy(Policy):
    """Plays a seat with a trained shared actor, carrying its GRU state across its turns.

    Load with :meth:`load`; the same object may serve several seats (each keeps its own
    recurrent state). It samples from the trained policy by default, seeded per episode by
    the runner; ``sample=False`` takes the most likely action, which can repeat itself into
    the env's deadlock rule where the stochastic policy would not. Each step is a batch of
    one: ``torch.set_num_threads(1)`` makes it several times faster on a busy machine.
    """

    def __init__(self, actor: Actor, agents: list[str], sample: bool = True):
        self.actor = actor.eval()
        self.agents = list(agents)
        self.sample = sample
        self.hidden: dict[str, torch.Tensor] = {}
        self.rng = torch.Generator().manual_seed(0)
        self.seat: dict[int, str] = {}

    @classmethod
    def load(cls, path: str | os.PathLike, sample: bool = True) -> MAPPOPolicy:
        """Load a checkpoint written by ``mase train mappo``."""
        try:
            data = torch.load(path, map_location="cpu", weights_only=False)
            actor = Actor(data["obs_dim"], len(data["agents"]), data["n_actions"], data["hidden"])
            actor.load_state_dict(data["actor"])
        except FileNotFoundError:
            raise
        except Exception as exc:  # another file, a damaged one, another network's weights
            raise ValueError(
                f"{path} is not a MAPPO checkpoint of `mase train mappo` ({type(exc).__name__})"
            ) from None
        policy = cls(actor, data["agents"], sample=sample)
        policy.checkpoint = data
        return policy

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Start the seat's recurrent state afresh for a new episode."""
        if agent not in self.agents:
            raise ValueError(f"this checkpoint was trained for seats {self.agents}, not {agent!r}")
        self.env = env
        self.hidden[agent] = torch.zeros(1, self.actor.hidden)
        if seed is not None:
            self.rng.manual_seed(seed)

    def act(self, observation: Any, info: dict) -> int | str:
        """The actor's action for the seat whose turn it is (from that seat's observation).

        On a speech turn (no index legal: the utterance is the move) it says nothing, ``""``.
        A vector longer than the actor's (blocks appended since it was trained) is read by its
        prefix (:func:`mase.layout.read_prefix`).
        """
        agent = self.env.unwrapped.agent_selection
        vector = observation.get("observation") if isinstance(observation, dict) else None
        if vector is None:
            vector = self.env.unwrapped.observe_vector(agent)
        width = self.actor.encoder[0].in_features - self.actor.n_agents
        vector = read_prefix(self.env, agent, np.asarray(vector, dtype=np.float32), width)
        obs = torch.as_tensor(vector).unsqueeze(0)
        mask = torch.as_tensor(np.asarray(observation["action_mask"])).unsqueeze(0)
        if not mask.any():
            return ""
        seat = torch.zeros(1, len(self.agents))
        seat[0, self.agents.index(agent)] = 1.0
        with torch.no_grad():
            logits, self.hidden[agent] = self.actor(obs, seat, self.hidden[agent], mask)
        if self.sample:
            return int(torch.multinomial(logits.softmax(-1), 1, generator=self.rng))
        return int(logits.argmax())
