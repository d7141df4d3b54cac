"""Avalon leak scan of model seats: every prompt an LLM or CodeAct seat sends to the offline server.

``leak_scan_avalon.py`` plays thousands of games per role set and scans the prompts an LLM seat
would send through a stand-in client. This scan runs the real path: seats played by
``LLMAgent`` (plain, and in belief mode), ``CodeActAgent`` (memory, facts, program, program
output), the rest bots, every model request going through the
``openai`` client to an :class:`mase.llm.OfflineServer` whose model is the task's offline model
wrapped to scan each prompt before it answers (``tests/envs/avalon/leaks.py``:
``scan_model_prompt``, which reads every message's sentences and checks a CodeAct request's
JSON facts block field by field). A finding is a fact
the prompt states that the seat could not know at that moment.

Prints, per role set: games, prompts scanned (by purpose), leaks, seconds. Exits 1 on a leak.

Run: python benchmarks/leak_scan_avalon_models.py [--games 100] [--role-sets all]
"""

import argparse
import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

import mase
from mase import protocol
from mase.agents import LLMAgent
from mase.agents.codeact import CodeActAgent
from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.language_model import AvalonModel
from mase.envs.avalon.roles import ROLE_SETS
from mase.llm import LLMConfig, OfflineServer
from mase.runner import run_episode
from mase.wrappers import BeliefState

_LEAKS = Path(__file__).resolve().parents[1] / "tests" / "envs" / "avalon" / "leaks.py"
_spec = importlib.util.spec_from_file_location("avalon_leaks", _LEAKS)
leaks = sys.modules["avalon_leaks"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(leaks)


class ScanningModel(AvalonModel):
    """The offline model, scanning every prompt against the env's state before answering."""

    def __init__(self):
        self.env = None
        self.found: list[str] = []
        self.prompts: Counter = Counter()

    def __call__(self, messages):
        """Scan the prompt (when the env is set), then answer as the offline model."""
        prompt = self.read(messages)
        seat = prompt.agent
        last = messages[-1].get("content") or ""
        purpose = prompt.request
        if purpose == "action" and protocol.PROGRAM_OUTPUT in last:
            purpose = "action after a program"
        self.prompts[purpose] += 1
        if self.env is not None and seat in self.env.possible_agents:
            for leak in leaks.scan_model_prompt(self.env, seat, messages):
                self.found.append(f"{seat} ({purpose}): {leak}")
        return super().__call__(messages)


def team(env, config, seed: int) -> dict:
    """Bots, with an LLM seat and a CodeAct seat at seats set by the seed."""
    seats = list(env.possible_agents)
    players = {s: AvalonBot() for s in seats}
    k = seed % len(seats)
    players[seats[k]] = LLMAgent(config, belief=bool(seed % 2))
    players[seats[(k + 1) % len(seats)]] = CodeActAgent(config)
    return players


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per role set")
    parser.add_argument("--role-sets", default="all", help="comma-separated names, or all")
    cli = parser.parse_args()
    names = list(ROLE_SETS) if cli.role_sets == "all" else cli.role_sets.split(",")
    model = ScanningModel()
    total = 0
    print(f"{'role set':<14} {'games':>5} {'prompts':>8}  by purpose{'':<50} {'leaks':>5} {'s':>6}")
    with OfflineServer(model) as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        for name in names:
            start, before = time.time(), Counter(model.prompts)
            found = len(model.found)
            for seed in range(cli.games):
                lady = len(ROLE_SETS[name]) >= 7 and seed % 4 < 2
                env = mase.make(
                    "mase/Avalon-v0",
                    roles=name,
                    discussion=seed % 2,
                    fifth_proposal=("official", "forced")[(seed // 2) % 2],
                    lady_of_the_lake=lady,
                )
                if seed % 2:
                    env = BeliefState(env)
                model.env = env
                run_episode(env, team(env, config, seed), seed=seed)
            made = model.prompts - before
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(made.items()))
            new = len(model.found) - found
            total += new
            print(
                f"{name:<14} {cli.games:>5} {sum(made.values()):>8}  {kinds:<60} {new:>5} "
                f"{time.time() - start:>6.0f}",
                flush=True,
            )
    for leak in model.found[:20]:
        print("LEAK", leak)
    print(f"{total} leaks")
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
