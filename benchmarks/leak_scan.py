"""Leak scan: no observation states a fact its agent could not know, under both observation rules.

Search and rescue is played for many seeded episodes with a direct-message channel, under the
paper's observation rule (the default) and under ``witness=True``. Seats are a mix of the
scripted rescuer (which reports what it sees) and a whisperer (random moves, a secret sent to
one teammate each turn). At every turn, every fact the agent's observation states — the text
view (outside its Messages part) and the decoded vector view — must be one the agent could
know: a fact of an event it saw (a view's parts as the task says who sees them together, with
what they imply) or a claim of a message it received. Any other is a leak, printed with the
episode and turn. Secrets must reach only their addressee. And the events themselves keep to
the rule, checked from the rules, not from the code: a view shows only the scoreboard, the
tools, where the agents are and the agent's own room (its bomb and that bomb's status); under
the paper's rule an action's consequences reach only the actor, under ``witness=True`` only
the agents in the room.

Run: python benchmarks/leak_scan.py [--episodes 300]  (per rule)
"""

import argparse
import re
import time

import numpy as np

import mase
from mase.agents import RandomPolicy
from mase.envs.search_rescue.scripted import ScriptedRescuer
from mase.protocol import MESSAGES_HEADER
from mase.wrappers import MessageChannel


class Whisperer(RandomPolicy):
    """Random legal moves; each turn a secret sent directly to one teammate."""

    def act(self, observation, info):
        """A random legal move, and a secret for one teammate."""
        mates = [a for a in self.env.possible_agents if a != self.agent]
        turns = self.env.unwrapped.turns
        target = mates[turns % len(mates)]
        return {
            "action": super().act(observation, info),
            "message": f"secret-{turns}-{target}. Bomb {1 + turns % 5} is in room {turns % 9}.",
            "to": [target],
        }


_VIEW_KINDS = frozenset(("round", "score", "cutters", "agent_room"))
_ROOM_KINDS = frozenset(("room_bomb", "bomb_room", "bomb_status"))


def broken_rule(base, event, witness: bool, present: frozenset | None) -> str | None:
    """Why ``event`` shows more than the rule allows (``present``: who was in the actor's room)."""
    if event.kind == "observe":
        room = event.facts.get(("agent_room", event.actor))
        bomb = base.world.bomb_in(room) if room is not None else None
        for key in event.facts:
            if key[0] in _VIEW_KINDS:
                continue
            if key[0] in _ROOM_KINDS and key[1] in (room, bomb.id if bomb else None):
                continue
            return f"a view shows {key}"
    elif event.kind in ("inspect", "cut", "explode", "invalid", "move"):
        allowed = present if witness else frozenset((event.actor,))
        if event.kind == "move" and witness:
            allowed = allowed | frozenset(base.world.agents_in(base.world.positions[event.actor]))
        if not event.audience <= allowed:
            return f"{event.kind} by {event.actor} reached {sorted(event.audience - allowed)}"
    return None


def scan(witness: bool, episodes: int) -> dict:
    turns = leaks = secrets = broken = 0
    first = []
    for seed in range(episodes):
        env = MessageChannel(
            mase.make("mase/SearchRescue-v0", obs_mode="both", witness=witness), topology="direct"
        )
        rng = np.random.default_rng(seed)
        team = {
            seat: ScriptedRescuer() if rng.random() < 0.5 else Whisperer()
            for seat in env.possible_agents
        }
        env.reset(seed=seed)
        base = env.unwrapped
        for seat, policy in team.items():
            policy.reset(seat, env, seed=seed)
        allowed: dict[str, set] = {seat: set() for seat in env.possible_agents}
        read = 0
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            tracker = base.knowledge()  # logs what the agent sees at the start of its turn
            for index, event in enumerate(base.event_log[read:], start=read):
                if event.kind == "observe" and (why := broken_rule(base, event, witness, None)):
                    broken += 1
                    if len(first) < 5:
                        first.append((seed, base.turns, agent, why))
                if event.kind == "message":
                    claims = tracker.claims.get(index)
                    facts = base.implied_facts(claims.facts) if claims else {}
                    for seat in event.audience:
                        allowed[seat] |= {(k, repr(v)) for k, v in facts.items()}
                    continue
                for audience, facts in base.seen_together(event):
                    for seat in audience:
                        closed = base.implied_facts(facts)
                        allowed[seat] |= {(k, repr(v)) for k, v in closed.items()}
            read = len(base.event_log)
            own_text = obs["text"].split("\n" + MESSAGES_HEADER)[0]
            for secret in re.findall(r"secret-\d+-(\w+)\.", obs["text"]):
                secrets += secret != agent
            stated = {(k, repr(v)) for k, v in base.parse_facts(own_text).items()}
            seen, _ = base.observation_facts(agent)
            stated |= {(k, repr(v)) for k, v in seen.items()}
            extra = stated - allowed[agent]
            if extra:
                leaks += 1
                if len(first) < 5:
                    first.append((seed, base.turns, agent, sorted(extra)[:3]))
            turns += 1
            present = frozenset(base.world.agents_in(base.world.positions[agent]))
            start = len(base.event_log)
            env.step(team[agent].act(obs, info))
            for event in base.event_log[start:]:
                why = event.kind != "observe" and broken_rule(base, event, witness, present)
                if why:
                    broken += 1
                    if len(first) < 5:
                        first.append((seed, base.turns, agent, why))
    return {
        "episodes": episodes,
        "turns": turns,
        "leaks": leaks,
        "secrets": secrets,
        "broken": broken,
        "first": first,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=300, help="episodes per rule")
    args = parser.parse_args()
    total = 0
    for name, witness in (("paper (default)", False), ("witness=True", True)):
        started = time.perf_counter()
        result = scan(witness, args.episodes)
        total += result["episodes"]
        print(
            f"{name:<16} {result['episodes']} episodes, {result['turns']:,} observations: "
            f"{result['leaks']} with a fact the agent could not know, {result['secrets']} "
            f"secrets shown to the wrong seat, {result['broken']} events beyond the rule "
            f"({time.perf_counter() - started:.0f} s)"
        )
        for case in result["first"]:
            print("   leak: seed {} turn {} {} {}".format(*case))
    print(f"{total} episodes in all")


if __name__ == "__main__":
    main()
