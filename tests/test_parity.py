"""check_parity catches each way two views can part: a fact, a message's claim, a dead number.

A small task written here states, in its text, the round, each seat's last pick and what
teammates said about the picks; its vector holds the same. Each broken copy drops one thing
from one view, and the checker must name it.
"""

import re

import numpy as np
import pytest
from gymnasium import spaces

import mase
from mase.checks import ParityError, check_parity
from mase.layout import Block, VectorLayout, inbox_told, text_told
from mase.protocol import MESSAGES_HEADER, message_line
from mase.task import ActionParse, RoundRobin, TaskEnv

COLOURS = ("red", "green", "blue")
SEATS = ("first", "second")
_PICK = re.compile(r"\b(first|second) picked (red|green|blue)\b")
_ROUND = re.compile(r"^Round (\d+)\.", re.M)


class PicksEnv(TaskEnv):
    """Two seats pick colours in turn; each sees the round, every last pick and messages."""

    metadata = {"name": "picks_v0", "render_modes": ["ansi"]}
    schedule = RoundRobin()

    def __init__(self, max_cycles: int = 6, obs_mode: str = "both", render_mode=None):
        super().__init__(obs_mode, render_mode, max_cycles)
        self.possible_agents = list(SEATS)
        self.set_spaces(self.vector_layout(None).size, spaces.Discrete(len(COLOURS)))

    layout = VectorLayout([
        Block("round", 1, "round / max_cycles"),
        Block("picks", 2 * len(COLOURS), "each seat's last pick (one-hot)"),
        Block("told", 2 * 2 * len(COLOURS), "each sender's claimed picks (one-hot)"),
    ])  # fmt: skip

    def new_episode(self, options):
        self.picks = {}

    def apply(self, agent, pick):
        self.picks[agent] = pick
        return [self.event("pick", agent, {("pick", agent): COLOURS[pick]})]

    def true_facts(self):
        return {("pick", a): COLOURS[c] for a, c in self.picks.items()}

    def parse_facts(self, text):
        return {("pick", seat): colour for seat, colour in _PICK.findall(text)}

    def facts_text(self, facts):
        return " ".join(f"{key[1]} picked {value}." for key, value in facts.items())

    def _picks(self, facts: dict) -> np.ndarray:
        v = np.zeros((2, len(COLOURS)))
        for (_, seat), colour in facts.items():
            v[SEATS.index(seat), COLOURS.index(colour)] = 1
        return v

    def _vector(self, agent):
        told = np.zeros((2, 2, len(COLOURS)))
        for (_, sender, *key), value in inbox_told(self, agent).items():
            told[SEATS.index(sender)] += self._picks({tuple(key): value})
        return self.layout.pack({
            "round": [self.round / self.max_cycles],
            "picks": self._picks(self.true_facts()),
            "told": told,
        })  # fmt: skip

    def _text(self, agent):
        lines = [f"Round {self.round}. {self.facts_text(self.true_facts()) or 'No picks yet.'}"]
        said = [message_line(e.actor, e.note) for e in self.received_messages(agent)]
        return "\n".join(lines + ([MESSAGES_HEADER, *said] if said else []))

    def vector_layout(self, agent):
        return self.layout

    def text_knowledge(self, agent, text):
        head = text.partition(f"\n{MESSAGES_HEADER}\n")[0]
        return {
            ("round",): int(_ROUND.search(text).group(1)),
            **self.parse_facts(head),
            **text_told(self, text),
        }

    def vector_knowledge(self, agent, vector):
        parts = self.layout.split(vector)
        facts = {("round",): round(float(parts["round"][0]) * self.max_cycles)}
        facts |= _decoded_picks(parts["picks"].reshape(2, -1))
        for s, sender in enumerate(SEATS):
            for key, value in _decoded_picks(parts["told"].reshape(2, 2, -1)[s]).items():
                facts[("told", sender, *key)] = value
        return facts

    def rules_text(self, agent):
        return "Pick red, green or blue."

    def legal_actions_text(self, agent):
        return list(COLOURS)

    def parse_action(self, agent, text):
        found = [i for i, c in enumerate(COLOURS) if c in text.lower()]
        return ActionParse(found[0]) if len(found) == 1 else ActionParse(None, "one colour")


def _decoded_picks(block: np.ndarray) -> dict:
    facts = {}
    for i, row in enumerate(block):
        if row.sum() > 1:
            raise ValueError("two colours for one pick")
        if row.any():
            facts[("pick", SEATS[i])] = COLOURS[int(row.argmax())]
    return facts


class DropsAPick(PicksEnv):
    def _vector(self, agent):  # the vector forgets the second seat's pick
        v = super()._vector(agent)
        v[self.layout.slices["picks"]][len(COLOURS) :] = 0
        return v


class DropsMessages(PicksEnv):
    def _vector(self, agent):
        v = super()._vector(agent)
        v[self.layout.slices["told"]] = 0
        return v


class DeadNumber(PicksEnv):
    def vector_layout(self, agent):
        return VectorLayout([*self.layout, Block("spare", 1, "read by nothing")])

    def _vector(self, agent):
        return np.concatenate([super()._vector(agent), [0.0]]).astype(np.float32)

    def vector_knowledge(self, agent, vector):
        return super().vector_knowledge(agent, vector[:-1])


class ShortLayout(PicksEnv):
    def vector_layout(self, agent):
        return VectorLayout(list(self.layout)[:-1])


for _cls in (PicksEnv, DropsAPick, DropsMessages, ShortLayout, DeadNumber):
    mase.register(f"tests/{_cls.__name__}-v0", _cls)


def test_a_task_whose_views_agree_passes():
    assert check_parity("tests/PicksEnv-v0", episodes=4) > 20


@pytest.mark.parametrize(
    ("env_id", "said"),
    [
        ("tests/DropsAPick-v0", "only the text states ('pick', 'second')"),
        ("tests/DropsMessages-v0", "only the text states ('told', "),
        ("tests/ShortLayout-v0", "layout holds 7 numbers, its vector 19"),
    ],
)
def test_a_fact_missing_from_one_view_is_named(env_id, said):
    with pytest.raises(ParityError) as caught:
        check_parity(env_id, episodes=4)
    assert said in str(caught.value)


def test_a_number_the_decoder_never_reads_is_named():
    with pytest.raises(ParityError, match=r"spare\[0\] change nothing"):
        check_parity("tests/DeadNumber-v0", episodes=4)
