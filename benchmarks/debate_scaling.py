"""Debate accuracy by number of agents and by round: the paper's scaling figure, measured.

Du et al. (2023) report that more agents and more rounds help, with no gain beyond about four
rounds. This script plays ``--questions`` questions for each number of agents in ``--agents``
with ``--max-rounds`` rounds, and reads each round's majority answer from the same debates
(``round<k>_correct``: a debate of R rounds holds those of 1..R), so each curve is one set of
debates. Seats are the offline debate mind (``DebateBot``) unless ``--base-url``/``--model``
name a model, whose seats go through the ``openai`` client. Prints the table (accuracy with its
95% Wilson interval, and the share of agents right) and draws both with ``--plot FILE``
(matplotlib, the ``plot`` extra), the share's whiskers its percentile bootstrap (scipy): each
interval inside [0, 1].

Run: python benchmarks/debate_scaling.py [--questions 300] [--agents 1,2,3,5,7] [--max-rounds 5]
     [--source arithmetic] [--base-url URL --model NAME] [--plot scaling.png]
"""

import argparse
import time

import numpy as np

import mase
from mase.agents import LLMAgent
from mase.envs.debate.bots import DebateBot
from mase.llm import LLMConfig
from mase.report.plots import PlottingUnavailable, pyplot
from mase.runner import run_episode
from mase.stats import interval, proportion, rate

#: What each curve is: a debate's final answer right (0 or 1), the share of its agents right.
KINDS = {"final": proportion("final answer right"), "share": rate("agents right")}


def intervals(values: np.ndarray, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each round's mean and 95% interval (``values``: one row a debate, one column a round)."""
    ivs = [interval(column, KINDS[key]) for column in values.T]
    return tuple(np.array([getattr(iv, f) for iv in ivs], dtype=float)
                 for f in ("mean", "low", "high"))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--agents", default="1,2,3,5,7")
    parser.add_argument("--max-rounds", type=int, default=5)
    parser.add_argument("--source", default="arithmetic")
    parser.add_argument("--p", type=float, default=0.67, help="the offline mind's accuracy")
    parser.add_argument("--q", type=float, default=0.6, help="the offline mind's persuadability")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--model", default=None)
    parser.add_argument("--plot", default=None, help="write the figure here (PNG)")
    args = parser.parse_args()
    if args.plot:
        try:
            pyplot()
        except PlottingUnavailable as error:  # before any debate is played
            parser.error(f"--plot: {error}")
    counts = [int(a) for a in args.agents.split(",")]
    rounds = range(1, args.max_rounds + 1)
    table: dict[int, dict[str, np.ndarray]] = {}
    print(f"{'agents':>6}  " + "  ".join(f"{'round ' + str(r):>15}" for r in rounds) + "   s")
    for n in counts:
        start = time.time()
        env = mase.make("mase/Debate-v0", source=args.source, n_questions=args.questions,
                        agents=n, rounds=args.max_rounds)  # fmt: skip
        if args.base_url or args.model:
            config = LLMConfig(base_url=args.base_url, model=args.model or "default")
            team = {a: LLMAgent(config) for a in env.possible_agents}
        else:
            team = {a: DebateBot(args.p, args.q) for a in env.possible_agents}
        final, share = [], []
        for seed in range(args.questions):
            m = run_episode(env, team, seed=seed)["metrics"]
            final.append([m[f"round{r}_correct"] for r in rounds])
            share.append([m[f"round{r}_agents_correct"] for r in rounds])
        table[n] = {"final": np.array(final), "share": np.array(share)}
        mean, low, high = intervals(table[n]["final"], "final")
        cells = "  ".join(f"{m:4.0%} [{lo:3.0%}, {hi:3.0%}]".rjust(15)
                          for m, lo, hi in zip(mean, low, high, strict=True))  # fmt: skip
        print(f"{n:>6}  {cells}  {time.time() - start:4.0f}", flush=True)
    print("share of agents right, by round:")
    for n in counts:
        print(f"{n:>6}  " + "  ".join(f"{v:15.1%}" for v in table[n]["share"].mean(0)))
    print("final answer: mean [95% Wilson interval]")
    if args.plot:
        plot(args, table, counts, rounds)


def plot(args: argparse.Namespace, table: dict, counts: list[int], rounds: range) -> None:
    """Both curves, each round's whiskers its 95% interval (inside [0, 1])."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for n in counts:
        for ax, key in zip(axes, ("final", "share"), strict=True):
            mean, low, high = intervals(table[n][key], key)
            ax.errorbar(list(rounds), mean, yerr=[mean - low, high - mean], marker="o",
                        capsize=3, label=f"{n} agent(s)")  # fmt: skip
    axes[0].set_title("final answer right (majority of the round)")
    axes[1].set_title("agents right")
    for ax in axes:
        ax.set_xlabel("round")
        ax.set_xticks(list(rounds))
        ax.set_ylabel("accuracy (share), 95% interval")
        ax.set_ylim(-0.03, 1.03)
        ax.legend()
    who = args.model or f"offline mind p={args.p}, q={args.q}"
    fig.suptitle(f"Debate on {args.source}, {args.questions} questions ({who})")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=100)
    print(f"figure: {args.plot}")


if __name__ == "__main__":
    main()
