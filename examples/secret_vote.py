"""A phase-queue task with a secret, simultaneous vote: the task says who acts next.

SecretVote: four players choose among four options whose values (-3 to 3) are drawn each
episode; each player privately knows the values of two of them. Each round the leader proposes
an option still on the table, then everyone votes approve or reject at the same time: no one
sees a vote until all are cast, then the votes are revealed together. A strict majority of
approvals adopts the option and the team scores its value (a bad option costs the team); an
invalid vote approves nothing. A rejection passes the leadership on. The episode ends when
every option is adopted, or is cut off after `max_cycles` proposals.

It shows a `PhaseQueue` schedule (`next_phase` says who acts: the leader, then everyone), a
secret phase (`Phase(..., secret=True)`), one `Discrete` action space for two kinds of move
with a mask per phase, and `check_task`. Its parallel view (`mase.make_parallel`) plays the
leader's proposal as a step of its own (the others wait: any action, ignored, and a mask that
allows only action 0) and the whole secret vote as one step, every vote revealed at once. Its
vector is a `VectorLayout` of named blocks; `text_knowledge` and `vector_knowledge` read the same
facts from the two views, which `check_parity` compares.

Run: python examples/secret_vote.py
"""

import re

import numpy as np
from gymnasium import spaces

import mase
from mase.checks import check_parity, check_task
from mase.layout import Block, VectorLayout
from mase.protocol import MESSAGES_HEADER, message_line
from mase.task import ActionParse, InvalidAction, Outcome, Phase, PhaseQueue, TaskEnv

VOTES = ("reject", "approve")  # a vote is action 0 or 1
VALUES = np.arange(-3, 4)  # what an option may be worth to the team
RULES = (
    "Each round the leader proposes an option on the table; then everyone votes approve or "
    "reject at once, unseen until all have voted. A strict majority adopts the option and the "
    "team scores its value (-3 to 3); a rejection passes the leadership on. You know the values "
    "of some options."
)


class SecretVoteEnv(TaskEnv):
    """A rotating leader proposes an option; everyone votes on it at once, in secret."""

    metadata = {"name": "secret_vote_v0", "render_modes": ["ansi", "human"]}
    schedule = PhaseQueue()  # propose, then vote: next_phase says who acts

    def __init__(self, n_players=4, n_options=4, max_cycles=8, obs_mode="both", render_mode=None):
        super().__init__(obs_mode, render_mode, max_cycles)
        self.possible_agents = [f"player_{i}" for i in range(n_players)]
        self.n_options = n_options
        n, k = n_players, n_options
        self.layout = VectorLayout([
            Block("round", 1, "round / max_cycles"), Block("voting", 1, "1 in the vote phase"),
            Block("leader", n, "the leader (one-hot)"),
            Block("votes", n, "each player's vote of the last round (1 approve)"),
            Block("proposal", k, "the option proposed (one-hot; none: zeros)"),
            Block("known", k, "1 for each option whose value the player knows"),
            Block("values", k, "each known option's value, (value + 3) / 6"),
            Block("adopted", k, "1 for each option adopted (off the table)"),
            Block("voted", n, "1 for each player whose vote of the last round was revealed"),
            Block("score", 1, f"(team score + {3 * k}) / {6 * k}"),
        ])  # fmt: skip
        self.set_spaces(self.layout.size, spaces.Discrete(max(n_options, 2)))

    def new_episode(self, options):
        k = self.n_options
        self.values, self.table = self.np_random.choice(VALUES, size=k), list(range(k))
        self.sees = {a: {i % k, (i + 1) % k} for i, a in enumerate(self.possible_agents)}
        self.leader, self.proposal, self.score, self.votes, self.revealed = 0, None, 0.0, {}, {}

    def next_phase(self, previous):
        if previous is None or previous.name == "vote":
            return Phase("propose", (self.possible_agents[self.leader],), ends_round=False)
        return Phase("vote", tuple(self.agents), secret=True)  # the round ends with the vote

    def apply(self, agent, action):
        if self.phase.name == "propose":
            if action not in self.table:
                raise InvalidAction("not_on_table", f"option {action} is not on the table")
            self.proposal = action
            return [self.event("propose", agent, {("proposal", self.round): action})]
        if action not in (0, 1):
            raise InvalidAction("not_a_vote", f"{action} is neither 0 (reject) nor 1 (approve)")
        self.votes[agent] = action
        return [self.event("vote", agent, {("vote", agent): VOTES[action]})]

    def end_round(self):  # the round ends with the vote, whose votes are revealed by now
        option, self.proposal, self.revealed, self.votes = self.proposal, None, self.votes, {}
        passed = option is not None and 2 * sum(self.revealed.values()) > len(self.agents)
        gain = float(self.values[option]) if passed else 0.0
        self.score += gain
        if passed:
            self.table.remove(option)
        self.leader = (self.leader + (not passed)) % len(self.possible_agents)
        if not self.table:
            self.finish("all_adopted")
        return Outcome([self.event("result", None, {("result", self.round): VOTES[passed]})], gain)

    def metrics(self):
        return {**super().metrics(), "score": self.score, "best": float(self.values.clip(0).sum())}

    def true_facts(self):  # the ground truth Theory-of-Mind probes are scored against
        votes = {("vote", a): VOTES[v] for a, v in self.revealed.items()}
        return {**votes, **{("value", j): int(v) for j, v in enumerate(self.values)}}

    def turn_view(self, agent):  # the private values, for the knowledge tracker
        return {("value", j): int(self.values[j]) for j in self.sees[agent]}

    def _mask(self, agent):  # the legal moves of the phase being played
        legal = [0, 1] if self.phase.name == "vote" else self.table
        return np.isin(np.arange(self.action_space(agent).n), legal).astype(np.int8)

    def _vector(self, agent):
        n, k = len(self.possible_agents), self.n_options
        known = np.isin(np.arange(k), list(self.sees[agent]))
        return self.layout.pack({
            "round": [self.round / self.max_cycles], "voting": [self.phase.name == "vote"],
            "leader": np.eye(n)[self.leader],
            "votes": [self.revealed.get(a, 0) for a in self.possible_agents],
            "proposal": np.eye(k + 1)[k if self.proposal is None else self.proposal][:k],
            "known": known, "values": known * (self.values - VALUES[0]) / np.ptp(VALUES),
            "adopted": ~np.isin(range(k), self.table),
            "voted": [a in self.revealed for a in self.possible_agents],
            "score": [(self.score + 3 * k) / (6 * k)],
        })  # fmt: skip

    def _text(self, agent):
        known = ", ".join(f"option {j} is worth {self.values[j]}" for j in sorted(self.sees[agent]))
        votes = ", ".join(f"{a} {VOTES[v]}" for a, v in self.revealed.items()) or "none yet"
        said = [message_line(e.actor, e.note) for e in self.received_messages(agent)]
        return "\n".join([
            f"Round {self.round}, {self.phase.name}; leader {self.possible_agents[self.leader]}; "
            f"proposal: {'none' if self.proposal is None else self.proposal}. You know {known}. "
            f"On the table: {self.table}. Last votes: {votes}. Team score {self.score:g}."
        ] + ([MESSAGES_HEADER, *said] if said else []))  # fmt: skip

    # information parity: the facts the text states, and the same facts read from the vector
    def vector_layout(self, agent):
        return self.layout

    def text_knowledge(self, agent, text):
        head = text.partition(f"\n{MESSAGES_HEADER}\n")[0]  # messages state no facts here
        m = re.match(r"Round (\d+), (\w+); leader (\w+); proposal: (\w+)\.", head)
        table = re.search(r"On the table: \[([\d, ]*)\]", head).group(1)
        facts = {
            ("round",): int(m.group(1)), ("phase",): m.group(2), ("leader",): m.group(3),
            ("proposal",): None if m.group(4) == "none" else int(m.group(4)),
            ("table",): tuple(int(j) for j in re.findall(r"\d+", table)),
            ("score",): float(re.search(r"Team score (-?[\d.]+)\.", head).group(1)),
        }  # fmt: skip
        for j, value in re.findall(r"option (\d+) is worth (-?\d+)", head):
            facts[("value", int(j))] = int(value)
        for player, vote in re.findall(r"(player_\d+) (approve|reject)", head):
            facts[("vote", player)] = vote
        return facts

    def vector_knowledge(self, agent, vector):
        v = self.layout.split(vector)
        k = self.n_options
        if v["leader"].sum() != 1 or v["proposal"].sum() > 1:
            raise ValueError("one leader, at most one proposal")
        facts = {
            ("round",): round(float(v["round"][0]) * self.max_cycles),
            ("phase",): "vote" if v["voting"][0] else "propose",
            ("leader",): self.possible_agents[int(v["leader"].argmax())],
            ("proposal",): int(v["proposal"].argmax()) if v["proposal"].any() else None,
            ("table",): tuple(j for j in range(k) if not v["adopted"][j]),
            ("score",): round(float(v["score"][0]) * 6 * k - 3 * k),
        }
        for j in range(k):
            if v["known"][j]:
                facts[("value", j)] = round(float(v["values"][j]) * 6) + int(VALUES[0])
            elif v["values"][j]:
                raise ValueError(f"a value for option {j}, which the player does not know")
        for a, voted, vote in zip(self.possible_agents, v["voted"], v["votes"], strict=True):
            if voted:
                facts[("vote", a)] = VOTES[int(round(float(vote)))]
            elif vote:
                raise ValueError(f"a vote of {a}, whose vote was not revealed")
        return facts

    def rules_text(self, agent):
        return RULES

    def legal_actions_text(self, agent):
        voting = self.phase.name == "vote"
        return list(VOTES) if voting else [f"propose option {j}" for j in self.table]

    def parse_action(self, agent, text):
        if self.phase.name == "vote":
            found = [i for i, vote in enumerate(VOTES) if vote in text.lower()]
        else:
            found = [int(number) for number in re.findall(r"\d+", text)]
        if len(found) == 1:
            return ActionParse(found[0])
        return ActionParse(
            None, "name exactly one of: " + ", ".join(self.legal_actions_text(agent))
        )


mase.register("examples/SecretVote-v0", SecretVoteEnv)

if __name__ == "__main__":
    check_task("examples/SecretVote-v0", num_cycles=20)
    check_parity("examples/SecretVote-v0")  # the vector holds exactly what the text states
    summary = mase.evaluate("examples/SecretVote-v0", "random", episodes=5)
    score, best = (summary["metrics"][k]["mean"] for k in ("score", "best"))
    print(
        f"SecretVote passes the MASE checker suite; a random team scores "
        f"{score:.1f} of a possible {best:.1f} on average"
    )
