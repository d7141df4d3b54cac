"""Turns per second of a batch of worlds (``mase.make_vec``) beside one AEC env, in one run.

Contenders, for each task with a native batch (search and rescue, Avalon), all on the task's
vector view with random legal actions (drawn from the action mask):

- one AEC env, the loop of ``benchmarks/throughput.py`` (``agent_iter`` / ``last`` / ``step``,
  resetting when an episode ends): the reference;
- the AEC batch (``backend="aec"``, a loop over N AEC envs behind the batch's arrays);
- the native batch (``backend="native"``, the rules in numpy) at several N.

A turn is a decision: a batch's turns count every world (one ``step`` is N turns), and a speech
turn (Avalon's discussion, where the utterance is the move) is played with an empty utterance
and counted by no contender, as a batch plays it. Each figure is the median of timed repeats
interleaved across the contenders of a task (a busy moment of a shared machine hits all
alike); each ratio is the median of the ratios within the same repeat. The anchors for the
goal are JaxMARL's vmapped envs and PufferLib's native vectorization, which run one policy's
turns for thousands of worlds per call.

Goal: native batch >= 20x the single AEC env, for each task.

Run: python benchmarks/batched_env.py [--seconds 1.0] [--repeats 7] [--tasks SearchRescue,Avalon]
"""

import argparse
import statistics
import time

import numpy as np

import mase

#: The tasks with a native batch: name -> (id, arguments; the defaults when empty).
TASKS = {
    "SearchRescue": ("mase/SearchRescue-v0", {}),
    "Avalon": ("mase/Avalon-v0", {}),
}


def turns_per_second(env, turns: int, seed: int = 0) -> float:
    """Decisions/s of one AEC env under random legal actions (``throughput.py``'s loop).

    A speech turn is played with an empty utterance and not counted, as a batch plays it.
    """
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    base = env.unwrapped
    done = 0
    start = time.perf_counter()
    while done < turns:
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if base.phase.speech:
                env.step("")
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            done += 1
            if done >= turns:
                break
        env.reset()
    return done / (time.perf_counter() - start)


def batch_turns_per_second(batch, seconds: float, seed: int) -> float:
    """Turns/s of ``batch`` under random legal actions for about ``seconds``."""
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, mask = batch.observe()
        batch.step((rng.random(mask.shape) * mask).argmax(axis=1))  # a random legal action
        steps += 1
    return steps * batch.num_envs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per timed repeat")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats per contender")
    parser.add_argument(
        "--sizes", default="64,256,1024,4096", help="numbers of worlds of the native batch"
    )
    parser.add_argument("--tasks", default=",".join(TASKS), help=f"of {', '.join(TASKS)}")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for task in args.tasks.split(","):
        env_id, kwargs = TASKS[task]
        print(f"{env_id}:")
        compare(env_id, kwargs, sizes, args.seconds, args.repeats)


def compare(env_id: str, kwargs: dict, sizes: list[int], seconds: float, repeats: int) -> None:
    """One task's table: one AEC env, the AEC batch and the native batch at ``sizes``."""
    single = mase.make(env_id, obs_mode="vector", **kwargs)
    aec_turns = max(1000, int(20_000 * seconds))  # about a second of the single env

    def single_rate(seed: int) -> float:
        return turns_per_second(single, aec_turns, seed=seed)

    contenders = {"one AEC env (reference)": single_rate}
    aec_batch = mase.make_vec(env_id, 64, backend="aec", **kwargs)
    contenders["AEC batch, N=64"] = lambda seed: batch_turns_per_second(aec_batch, seconds, seed)
    for n in sizes:
        batch = mase.make_vec(env_id, n, backend="native", **kwargs)
        contenders[f"native batch, N={n}"] = lambda seed, batch=batch: batch_turns_per_second(
            batch, seconds, seed
        )
    for rate in contenders.values():  # warm up
        rate(repeats)
    runs: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(repeats):
        for name, rate in contenders.items():
            runs[name].append(rate(r))
    reference = runs["one AEC env (reference)"]
    print(f"{'contender':28s} {'turns/s':>12s} {'x one env':>10s}")
    for name, rates in runs.items():
        ratio = statistics.median(r / ref for r, ref in zip(rates, reference, strict=True))
        print(f"{name:28s} {statistics.median(rates):12,.0f} {ratio:10.1f}")
    best = max(
        (n for n in runs if n.startswith("native")),
        key=lambda n: statistics.median(runs[n]),
    )
    ratio = statistics.median(r / ref for r, ref in zip(runs[best], reference, strict=True))
    print(f"goal: native batch >= 20x one AEC env; best {best}: {ratio:.1f}x  "
          f"{'met' if ratio >= 20 else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
