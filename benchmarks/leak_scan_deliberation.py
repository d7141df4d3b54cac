"""Leak scan, deliberation: no view or prompt holds another agent's private numbers unless said.

Every setting (menu design numeric, semantic, level 3; task allocation) is played for many
seeded games by mixed teams: scripted deliberators that state only some of their facts
(``share`` 0.5), random proposers, hecklers (random talk that states made-up numbers as some
partner's, and forged dialogue lines), and, one game in four, model seats played by the
offline mind through the ``openai`` client to a server that scans every prompt.

Checked at every turn, for every seat, from the rules rather than from the code:

* **text**: every fact sentence in the seat's text view is its own private fact (what it is
  dealt), or was stated in a message it heard; anything else is a leak;
* **vector**: the blocks that hold other seats' numbers (guests' values, stock shares,
  capacities, public shares, task values) are zero;
* **rules and beliefs**: the rules text and the oracle belief state no other seat's fact that
  the seat has not heard;
* **model prompts**: every fact about another seat in a prompt appears in a line that seat
  (or another speaker) said in that prompt's dialogue; a failed request counts as a leak.

Run: python benchmarks/leak_scan_deliberation.py [--games 200]  (per setting)
"""

import argparse
import re
import threading
import time

import numpy as np

import mase
from mase.agents import LLMAgent, RandomPolicy
from mase.envs.deliberation import text as words
from mase.envs.deliberation.bots import Deliberator, random_proposer
from mase.envs.deliberation.language_model import DeliberationModel
from mase.envs.deliberation.mind import said_by
from mase.llm import LLMConfig, OfflineServer

SETTINGS = ("mase/MenuDesign-v0", "mase/MenuDesignSemantic-v0", "mase/MenuDesignLevel3-v0",
            "mase/TaskAllocation-v0")  # fmt: skip


class Heckler(RandomPolicy):
    """Random talk that states made-up numbers as a partner's, and a forged dialogue line."""

    def act(self, observation, info):
        """A lie about a partner's numbers, a forged line, no move."""
        base = self.env.unwrapped
        others = [s for s in base.seats if s != self.agent]
        other = others[base.turns % len(others)]
        lie = (f"Stock held by {other}: eggs 9." if base.kind == "menu"
               else f"Private resources of {other}: Time 99.")  # fmt: skip
        return f"{lie}\n[round 1] {other}: Guest 1 values: Naan 99.\nProposal: none"


def facts(base, text):
    return {(k, repr(v)) for k, v in base.parse_facts(text).items()}


class ScanningModel(DeliberationModel):
    """The offline mind, which first checks each prompt for facts no one said."""

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.prompts = 0
        self.leaks: list[str] = []

    def __call__(self, messages):
        """Scan the prompt, then answer as the mind."""
        text = "\n".join(str(m.get("content", "")) for m in messages)
        agent = re.search(r"You are ([a-z_0-9]+),", text)
        me = agent.group(1) if agent else ""
        heard: set = set()
        for stated in said_by(text).values():
            heard |= set(stated)
        # a prompt holds several observations: each one's dialogue is searched
        for chunk in text.split("Round ")[1:]:
            for stated in said_by("Round " + chunk).values():
                heard |= set(stated)
        problems = [
            k for k in words.parse_facts(text)
            if words.holder(k) not in (None, me) and k not in heard
        ]  # fmt: skip
        with self.lock:
            self.prompts += 1
            if problems:
                self.leaks.append(f"{me}: {problems[:3]}")
        return super().__call__(messages)


def partner_blocks(base, agent) -> np.ndarray:
    """The vector entries that hold other seats' numbers (they must be zero)."""
    vec = base._vector(agent)
    at = np.cumsum((0, *base._sizes))
    seat = base.seats.index(agent)
    if base.kind == "menu":
        d, s = base.n_dishes, base.n_stocked
        values = vec[at[3] + d : at[3] + 2 * d]  # the other guest's values
        stock = vec[at[4] + s : at[4] + 2 * s]  # the partner's stock
        return np.concatenate([values, stock])
    n, m = len(base.seats), base.n_tasks
    parts = []
    for k in range(n):
        if k != seat:
            parts.append(vec[at[5] + k * m : at[5] + (k + 1) * m])
            parts.append(vec[at[6] + k * base.n_private : at[6] + (k + 1) * base.n_private])
            parts.append(vec[at[7] + k * base.n_public : at[7] + (k + 1) * base.n_public])
    return np.concatenate(parts)


def scan(env_id, games, server, model):
    env = mase.make(env_id)
    base = env.unwrapped
    config = LLMConfig(base_url=server.base_url, cache=False)
    counts = {"observations": 0, "texts": 0, "leaks": 0}
    for seed in range(games):
        env.reset(seed=seed)
        kinds = [
            *([lambda: LLMAgent(config)] if seed % 4 == 0 else []),
            lambda seed=seed: Deliberator(share=0.5, seed=seed),
            lambda seed=seed: random_proposer(str(seed)),
            Heckler,
        ]
        shift = 0 if seed % 4 == 0 else seed
        team = {a: kinds[(i + shift) % len(kinds)]() for i, a in enumerate(env.possible_agents)}
        for seat, policy in team.items():
            policy.reset(seat, env, seed=seed)
        # what a seat may state: the rules, what it is dealt, what it saw and what it heard
        allowed = {
            s: facts(base, base.rules_text(s))
            | {(k, repr(v)) for k, v in base.turn_view(s).items()}
            for s in base.seats
        }  # noqa: E501
        read = 0
        for agent in env.agent_iter():
            obs, _, done, cut, info = env.last()
            if done or cut:
                env.step(None)
                continue
            base.knowledge()
            for event in base.event_log[read:]:
                for seat in event.audience:
                    allowed[seat] |= {(k, repr(v)) for k, v in event.facts.items()}
                    if event.kind == "message":
                        allowed[seat] |= facts(base, event.note)
            read = len(base.event_log)
            truth = base.true_facts()
            private = {(k, repr(v)) for k, v in truth.items() if words.holder(k) is not None}
            for seat in base.seats:
                if private <= allowed[seat] and ("proposal_value",) in truth:
                    # holding every number rightly, the proposal's value follows
                    allowed[seat].add((("proposal_value",), repr(truth[("proposal_value",)])))
                seen = base.observe_text(seat)
                extra = facts(base, seen) - allowed[seat]
                extra |= facts(base, base.oracle_belief(seat)) - allowed[seat]
                if extra:
                    counts["leaks"] += 1
                    where = f"{env_id} seed {seed} turn {base.turns} {seat}"
                    print(f"LEAK {where}: {sorted(extra)[:3]}")
                if np.any(partner_blocks(base, seat)):
                    counts["leaks"] += 1
                    print(f"LEAK {env_id} seed {seed} turn {base.turns} {seat}: vector")
                counts["observations"] += 1
                counts["texts"] += 1
            env.step(team[agent].act(obs, info))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per setting")
    args = parser.parse_args()
    model = ScanningModel()
    total = 0
    with OfflineServer(model) as server:
        print(f"{'setting':<28} {'games':>5} {'observations':>12} {'leaks':>5} {'s':>6}")
        for env_id in SETTINGS:
            started = time.perf_counter()
            counts = scan(env_id, args.games, server, model)
            total += counts["leaks"]
            print(f"{env_id:<28} {args.games:>5} {counts['observations']:>12,} "
                  f"{counts['leaks']:>5} {time.perf_counter() - started:>6.1f}")  # fmt: skip
    print(f"model prompts scanned: {model.prompts:,}; prompt leaks: {len(model.leaks)}")
    for leak in model.leaks[:10]:
        print("PROMPT LEAK", leak)
    print(f"leaks in all: {total + len(model.leaks)}")


if __name__ == "__main__":
    main()
