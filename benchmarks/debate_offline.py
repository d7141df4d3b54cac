"""Debate's offline mind against its closed form: its accuracy follows from its two numbers.

The mind (``envs/debate/language_model.py``) is right in round 1 with chance ``p`` and, in a
later round, adopts the answer a strict majority of the others give with chance ``q``; wrong
agents are never wrong alike in round 1. From that description alone the accuracy of every
setting is exact (:func:`expected`: a Markov chain over the agents' answers, summed exactly).

For each setting the script plays ``--questions`` arithmetic questions with the scripted mind
(``DebateBot``; ``--server K`` plays the first K through the ``openai`` client and the offline
server instead, and checks they answer alike), and prints the measured accuracy with its 95%
interval beside the closed form. Exits 1 when the closed form falls outside the interval of
any setting.

Run: python benchmarks/debate_offline.py [--questions 1000] [--server 50]
"""

import argparse
import math
import sys
import time
from itertools import product

import numpy as np

import mase
from mase.agents import LLMAgent
from mase.envs.debate.bots import DebateBot
from mase.envs.debate.language_model import DebateModel
from mase.llm import LLMConfig, OfflineServer
from mase.runner import run_episode

SETTINGS = (  # (name, agents, rounds, p, q)
    ("single agent", 1, 1, 0.67, 0.6),
    ("majority vote of 3", 3, 1, 0.67, 0.6),
    ("debate, 3 agents, 2 rounds", 3, 2, 0.67, 0.6),
    ("debate, 3 agents, 3 rounds", 3, 3, 0.67, 0.6),
    ("debate, 5 agents, 2 rounds", 5, 2, 0.55, 0.8),
    ("debate, 2 agents, 3 rounds", 2, 3, 0.67, 0.6),
    ("debate, 3 agents, 2 rounds, stubborn", 3, 2, 0.67, 0.2),
)


def expected(agents: int, rounds: int, p: float, q: float) -> float:
    """The closed-form accuracy (module docstring), by exact sums over the agents' answers.

    A state is each agent's answer: 0 for the truth, ``k + 1`` for agent ``k``'s own wrong
    answer. In round 1 agent ``k`` says 0 with chance ``p``, else ``k + 1``. In each later
    round every agent, at once, looks at the others' answers of the round before: when one
    answer is given by more than half of them it takes it with chance ``q``, otherwise (and
    with chance ``1 - q``) it keeps its own. The final answer is the most frequent of the last
    round, a tie going to the one given first in seat order; the sum is the chance that it is 0.
    """
    states: dict[tuple[int, ...], float] = {}
    for pattern in product((True, False), repeat=agents):
        answers = tuple(0 if right else k + 1 for k, right in enumerate(pattern))
        states[answers] = math.prod(p if r else 1 - p for r in pattern)
    for _ in range(rounds - 1):
        after: dict[tuple[int, ...], float] = {}
        for answers, chance in states.items():
            options = []  # each agent's (answer, chance) pairs this round
            for i, own in enumerate(answers):
                others = [a for j, a in enumerate(answers) if j != i]
                top = max(set(others), key=others.count) if others else None
                if top is not None and 2 * others.count(top) > len(others) and top != own:
                    options.append(((top, q), (own, 1 - q)))
                else:
                    options.append(((own, 1.0),))
            for choice in product(*options):
                new = tuple(a for a, _ in choice)
                after[new] = after.get(new, 0.0) + chance * math.prod(c for _, c in choice)
        states = after
    total = 0.0
    for answers, chance in states.items():
        best = max(answers.count(a) for a in answers)
        final = next(a for a in answers if answers.count(a) == best)
        total += chance if final == 0 else 0.0
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000, help="questions per setting")
    parser.add_argument(
        "--server", type=int, default=50, help="questions per setting played through the server"
    )
    args = parser.parse_args()
    print(f"{'setting':<38} {'p':>5} {'q':>5} {'measured':>9} {'95% interval':>17} "
          f"{'closed form':>11} {'inside':>6} {'server agrees':>13} {'s':>5}")  # fmt: skip
    failures = 0
    for name, agents, rounds, p, q in SETTINGS:
        start = time.time()
        env = mase.make("mase/Debate-v0", n_questions=args.questions, agents=agents, rounds=rounds)
        team = {a: DebateBot(p, q) for a in env.possible_agents}
        correct = np.array([run_episode(env, team, seed=s)["metrics"]["correct"]
                            for s in range(args.questions)])  # fmt: skip
        agree = "-"
        if args.server:
            with OfflineServer(DebateModel(p, q)) as server:
                config = LLMConfig(base_url=server.base_url, cache=False)
                llm = {a: LLMAgent(config) for a in env.possible_agents}
                same = sum(
                    run_episode(env, llm, seed=s)["metrics"]["correct"] == correct[s]
                    for s in range(min(args.server, args.questions))
                )
            agree = f"{same}/{min(args.server, args.questions)}"
            failures += same != min(args.server, args.questions)
        mean = correct.mean()
        half = 1.96 * correct.std(ddof=1) / math.sqrt(len(correct))
        truth = expected(agents, rounds, p, q)
        inside = mean - half <= truth <= mean + half
        failures += not inside
        print(f"{name:<38} {p:>5.2f} {q:>5.2f} {mean:>9.1%} "
              f"{f'[{mean - half:.1%}, {mean + half:.1%}]':>17} {truth:>11.1%} "
              f"{'yes' if inside else 'NO':>6} {agree:>13} {time.time() - start:>5.1f}",
              flush=True)  # fmt: skip
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
