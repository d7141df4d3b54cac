"""Deliberation's policies: the scripted deliberator, the centralized oracle, a random proposer.

* :class:`Deliberator`: the deliberation mind (:mod:`.mind`) as a policy: it states its
  private numbers, then solves the integer program on what it has heard; on the numeric menus
  and in task allocation a team of them reaches the optimum (NR = 100, VR = 1).
* :func:`oracle`: the centralized baseline with full information: it reads the game itself
  and decides the optimum at once (at the semantic level, the best menu by the values the
  guests' revealed descriptions suggest, :mod:`.semantic`: what an oracle that reads every
  revealed field can do, which may miss the optimum).
* :func:`random_proposer`: proposes a random menu or allocation each turn, and accepts (or,
  as the leader, decides) with chance one half.

Example:
    >>> import mase
    >>> from mase.runner import run_episode
    >>> env = mase.make("mase/MenuDesign-v0")
    >>> team = {a: Deliberator() for a in env.possible_agents}
    >>> m = run_episode(env, team, seed=0)["metrics"]
    >>> m["nr"], m["valid"], m["rounds"]
    (100.0, 1.0, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mase.agents.base import Policy
from mase.envs.deliberation import scoring
from mase.envs.deliberation import text as words
from mase.envs.deliberation.mind import Mind


class Deliberator(Policy):
    """The deliberation mind as a policy; it replies in text.

    Args:
        share: the chance it states each of its fact lines in a turn (1: all of them).
        slip: the chance a plan of its is greedy instead of optimal (0: never).
        seed: the seed of its draws.
    """

    def __init__(self, share: float = 1.0, slip: float = 0.0, seed: int = 0):
        self.mind = Mind(share, slip, seed)

    def act(self, observation: Any, info: dict) -> str:
        """The mind's reply to this seat's text view."""
        return self.mind.reply(self.env.unwrapped.observe_text(self.agent))

    def __repr__(self) -> str:
        return f"Deliberator(share={self.mind.share}, slip={self.mind.slip})"


class Oracle(Policy):
    """Centralized, full information: decide the best decision in the first possible turn."""

    def act(self, observation: Any, info: dict) -> str:
        """Menus: the first seat proposes, the other accepts; allocations: the leader decides."""
        env = self.env.unwrapped
        game = env.game
        if game.kind == "menu":
            if env.current is not None and env.current[0] != self.agent:
                return "Accept"
            return words.move_text(game, words.Reply("propose", self._menu(env)))
        if self.agent != "leader":
            return "The leader knows what to do."
        best = scoring.optimum(game).decision
        pairs = tuple((game.tasks[t], env.seats[a]) for t, a in sorted(best.items()))
        return words.move_text(game, words.Reply("final", pairs))

    @staticmethod
    def _menu(env: Any) -> tuple[str, ...]:
        game = env.game
        if getattr(env, "level", "numeric") == "semantic" and not env.full_observation:
            from mase.envs.deliberation import semantic as meaning

            chosen = meaning.semantic_menu(game, [game.profiles[0], game.profiles[1]])
        else:
            chosen = scoring.optimum(game).decision
        return tuple(game.dishes[i] for i in chosen)


def oracle(arg: str | None = None) -> Oracle:
    """The centralized oracle (module docstring); takes no argument."""
    if arg:
        raise ValueError(f"the oracle takes no argument, got {arg!r}")
    return Oracle()


class RandomProposer(Policy):
    """Propose at random; accept (or decide) with chance one half.

    Args:
        seed: the seed of its draws (mixed with the episode's seed).
    """

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Take a seat; the draws restart from the episode's seed."""
        super().reset(agent, env, seed)
        index = list(env.unwrapped.possible_agents).index(agent)
        self.rng = np.random.default_rng([self.seed, 0 if seed is None else seed, index])

    def act(self, observation: Any, info: dict) -> str:
        """A random move, said as its reply line."""
        env = self.env.unwrapped
        game = env.game
        decide = self.rng.random() < 0.5
        if game.kind == "menu":
            if decide and env.current is not None and env.current[0] != self.agent:
                return "Accept"
            size = int(self.rng.integers(1, min(5, len(game.dishes)) + 1))
            chosen = sorted(self.rng.choice(len(game.dishes), size=size, replace=False))
            return words.move_text(
                game, words.Reply("propose", tuple(game.dishes[i] for i in chosen))
            )
        owners = self.rng.integers(0, len(env.seats) + 1, size=len(game.tasks))
        pairs = tuple((game.tasks[t], env.seats[o - 1]) for t, o in enumerate(owners) if o)
        if not pairs:
            pairs = ((game.tasks[0], env.seats[0]),)
        kind = "final" if decide and self.agent == "leader" else "propose"
        return words.move_text(game, words.Reply(kind, pairs))


def random_proposer(arg: str | None = None) -> RandomProposer:
    """The random proposer; ``random-proposer:N`` seeds it with N."""
    if arg is not None and not arg.isdigit():
        raise ValueError(f"random-proposer:N takes a seed (a whole number), got {arg!r}")
    return RandomProposer(int(arg or 0))
