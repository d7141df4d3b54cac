"""Search and rescue's two views carry the same facts (issue 32, item 1; :mod:`mase.layout`).

Every line of a text observation states facts that ``text_knowledge`` reads, and the vector
holds each of them (``vector_knowledge``): the fact sentences, who the seat is, the doors out
of its room, its legal actions, what the sentence about its own last action names, the
teammates' actions it saw (``witness=True``) and the claims of the messages it was shown. The
scenarios below build each kind of fact by hand and say what the rules make the text state;
``check_parity`` then plays seeded episodes under the arguments that change what a seat sees.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scenarios import place

import mase
from mase.checks import check_parity
from mase.envs.search_rescue import text as words
from mase.envs.search_rescue import vector as codec_module
from mase.envs.search_rescue import world
from mase.layout import text_told
from mase.protocol import split_messages

ID = "mase/SearchRescue-v0"


def knowledge(env, agent: str) -> dict:
    """What ``agent``'s text states; its vector must hold exactly the same."""
    base = env.unwrapped
    obs = base.observe(agent)
    stated = base.text_knowledge(agent, obs["text"])
    assert base.vector_knowledge(agent, obs["observation"]) == stated, obs["text"]
    return stated


def setup(alpha=3, bravo=0, charlie=0, messages=False, **options):
    env = mase.make(ID, **options)
    if messages:
        env = mase.wrappers.MessageChannel(env)
    env.reset(seed=0)
    return place(env, alpha, bravo, charlie)


def act(env, kind, arg=None):
    env.step(env.unwrapped.layout.action_index(kind, arg))


# -- the lines of the "Now:" part ---------------------------------------------------------------


def test_the_seat_its_doors_and_its_legal_actions_are_facts_of_both_views():
    env = setup(alpha=3)
    k = knowledge(env, "alpha")
    assert k[("seat",)] == "alpha"
    assert k[("doors",)] == (0, 8)  # the paper's doors 0-3 and 3-8
    assert k[("legal",)] == (
        "inspect bomb 2",
        "go to room 0",
        "go to room 8",
        "apply red cutter to bomb 2",
        "apply green cutter to bomb 2",
    )
    assert knowledge(env, "bravo")[("doors",)] == (3, 5, 6, 8)


def test_a_finished_bomb_leaves_only_the_doors_legal():
    env = setup(alpha=0)
    env.unwrapped.world.bombs[0].cut = 1  # bomb 1 (room 0, one phase) defused
    k = knowledge(env, "alpha")
    assert k[("bomb_status", 1)] == "defused"
    assert k[("legal",)] == tuple(f"go to room {r}" for r in (3, 5, 6, 8))


# -- the sentence about one's own last action ---------------------------------------------------

# (rule options, alpha's room, the action, what its sentence states) -- alpha holds red and
# green; bomb 2 in room 3 needs red then green; room 3's doors lead to 0 and 8
LAST_ACTIONS = {
    "moved": ({}, 3, ("go", 8), {("last_room",): 8}),
    "inspected": ({}, 3, ("inspect", None), {("last_bomb",): 2}),
    "cut": ({}, 3, ("cut", "red"), {("last_bomb",): 2, ("last_colour",): "red"}),
    "exploded": (
        {"wrong_cutter": "explode"},
        3,
        ("cut", "green"),
        {("last_bomb",): 2, ("last_colour",): "green"},
    ),
    "invalid:already_there": ({}, 3, ("go", 3), {("last_room",): 3}),
    "invalid:not_adjacent": (
        {},
        3,
        ("go", 5),
        {("last_room",): 3, ("last_target",): 5, ("last_doors",): (0, 8), ("last_detour",): 0},
    ),
    "invalid:not_owned": (
        {},
        3,
        ("cut", "blue"),
        {("last_colour",): "blue", ("last_holders",): ("bravo", "charlie")},
    ),
    "invalid:wrong_colour": (
        {},
        3,
        ("cut", "green"),
        {("last_room",): 3, ("last_colour",): "green"},
    ),
}


@pytest.mark.parametrize("code", list(LAST_ACTIONS))
def test_the_last_actions_sentence_states_its_result_and_what_it_names(code):
    options, room, (kind, arg), named = LAST_ACTIONS[code]
    env = setup(alpha=room, **options)
    act(env, kind, arg)
    k = knowledge(env, "alpha")
    assert k[("last_result",)] == code
    assert {key: k[key] for key in named} == named
    last = {key for key in k if key[0].startswith("last_")}
    assert last == {("last_result",), *named}


def test_no_bomb_and_a_finished_bomb_name_the_room_and_the_status():
    env = setup(alpha=3)
    env.unwrapped.world.bombs = [b for b in env.unwrapped.world.bombs if b.room != 3]
    act(env, "inspect")
    k = knowledge(env, "alpha")
    assert (k[("last_result",)], k[("last_room",)]) == ("invalid:no_bomb", 3)
    env = setup(alpha=3)
    env.unwrapped.world.bombs[1].exploded = True  # bomb 2, in room 3
    act(env, "cut", "red")
    k = knowledge(env, "alpha")
    assert k[("last_result",)] == "invalid:bomb_done"
    assert (k[("last_room",)], k[("last_status",)]) == (3, "exploded")


@pytest.mark.parametrize("given", ["dance a little", 99, -1])
def test_an_echo_of_the_seats_own_input_is_no_fact_in_either_view(given):
    env = setup(alpha=3)
    env.step(given)
    k = knowledge(env, "alpha")
    assert k[("last_result",)] in ("invalid:unparseable", "invalid:out_of_range")
    assert [key for key in k if key[0].startswith("last_")] == [("last_result",)]


# -- teammates' actions seen (witness=True) ------------------------------------------------------


def test_a_witness_sees_who_did_what_to_which_bomb_with_which_colour():
    env = setup(alpha=3, bravo=3, charlie=0, witness=True, wrong_cutter="explode")
    act(env, "inspect")  # alpha
    act(env, "inspect")  # bravo, in alpha's room
    act(env, "go", 3)  # charlie comes in
    k = knowledge(env, "alpha")
    assert k[("seen", "bravo")] == "inspect" and k[("seen_bomb", "bravo")] == 2
    assert k[("seen", "charlie")] == "move" and ("seen_bomb", "charlie") not in k
    act(env, "cut", "red")  # alpha, right
    act(env, "cut", "blue")  # bravo: green is next, the bomb explodes
    act(env, "cut", "red")  # charlie: the bomb is done, an invalid action only it sees
    k = knowledge(env, "alpha")
    assert (k[("seen", "bravo")], k[("seen_colour", "bravo")]) == ("explode", "blue")
    assert ("seen", "charlie") not in k
    # charlie acted after bravo: what it saw before its turn is consumed
    assert ("seen", "bravo") not in knowledge(env, "charlie")


def test_without_witness_no_teammates_action_is_seen():
    env = setup(alpha=3, bravo=3, charlie=3)
    act(env, "inspect")
    act(env, "inspect")
    k = knowledge(env, "charlie")
    assert not [key for key in k if key[0].startswith("seen")]


# -- what the seat was told -----------------------------------------------------------------------


def post(env, sender, text):
    base = env.unwrapped
    base.post_message(sender, text, tuple(a for a in base.agents if a != sender))


def test_a_messages_claims_are_facts_of_both_views_keyed_by_their_sender():
    env = setup(alpha=3, messages=True)
    act(env, "inspect")
    post(env, "bravo", "Bomb 2 is in room 3. Team score: 40. Charlie holds cutters: blue, red.")
    act(env, "go", 3)
    post(env, "charlie", "Room 8 has no bomb. Bomb 5 remaining sequence: red, green, blue.")
    act(env, "go", 3)
    k = knowledge(env, "alpha")
    told = {key: v for key, v in k.items() if key[0] == "told"}
    assert told == {
        ("told", "bravo", "bomb_room", 2): 3,
        (
            "told",
            "bravo",
            "room_bomb",
            3,
        ): 2,  # the reader keeps a bomb's room and a room's bomb one
        ("told", "bravo", "score"): 40,
        ("told", "bravo", "cutters", "charlie"): ("red", "blue"),  # a set of tools, colour order
        ("told", "charlie", "room_bomb", 8): 0,
        ("told", "charlie", "bomb_remaining", 5): ("red", "green", "blue"),
        ("told", "charlie", "bomb_status", 5): "active",
    }
    # a claim is no observation: alpha's own facts say nothing of room 8
    assert ("room_bomb", 8) not in k


def test_a_senders_later_claim_wins_and_an_older_turns_messages_are_gone():
    env = setup(alpha=3, messages=True)
    act(env, "inspect")
    post(env, "bravo", "Bomb 4 is in room 6.")
    post(env, "bravo", "Bomb 4 is in room 5.")
    k = knowledge(env, "alpha")
    assert k[("told", "bravo", "bomb_room", 4)] == 5
    act(env, "go", 3)
    act(env, "go", 3)
    act(env, "inspect")  # alpha's turn: what it was shown is consumed
    assert not [key for key in knowledge(env, "alpha") if key[0] == "told"]


def test_claims_about_what_this_game_lacks_are_kept_in_neither_view():
    env = setup(alpha=3, messages=True)
    act(env, "inspect")
    odd = (
        "Bomb 9 is in room 3. Room 7 has bomb 2. Team score: 500. Round 31 of 30. "
        "Bomb 1 has 4 phases. Delta is in room 3. Bomb 2 remaining sequence: red, yellow. "
        "Bomb 3 remaining sequence: red, green, blue, red."
    )
    post(env, "bravo", odd)
    base = env.unwrapped
    read = text_told(base, base.observe("alpha")["text"])
    assert len(read) >= 8  # the reader reads every one of them
    kept = [key for key in knowledge(env, "alpha") if key[0] == "told"]
    # only what the reader took from the sequences besides them: bombs 2 and 3 are active
    assert kept == [("told", "bravo", "bomb_status", 2), ("told", "bravo", "bomb_status", 3)]


def test_the_told_block_holds_every_claim_a_teammate_can_make_and_no_more():
    base = mase.make(ID).unwrapped
    c = base.codec
    R, A, B, C, P = 5, 3, 5, 3, 3
    per_teammate = 2 + A * (1 + C) + A * R + R * (B + 1) + B * R + 3 * B + B * P + B * (1 + P * C)
    assert c.claims.size == per_teammate == 164
    assert c.layout.blocks[-1].name == "told" and c.layout.blocks[-1].size == (A - 1) * 164
    assert "kept in neither view" in c.layout.blocks[-1].bound
    # every admitted claim of one teammate at once: its numbers decode back to all of them
    claims = dict(zip(*zip(*_every_claim(base.layout, base.max_cycles), strict=True), strict=True))
    for key, value in claims.items():
        assert c.claims.admits(key, value), key
    v = np.zeros(c.claims.size, dtype=np.float32)
    for key, value in claims.items():
        if key[0] in ("round", "score"):
            v[c.claims.offset[key[0]]] = c.claims.scalar(key[0], value)
        else:
            v[list(c.claims.entries(key, value))] = 1.0
    assert dict(c.claims.decode(v)) == claims


def _every_claim(layout, max_rounds):
    """One claim of each kind about every subject (the last value of each)."""
    yield ("round",), max_rounds
    yield ("score",), 0
    for a in layout.agents:
        yield ("cutters", a), layout.colours[:2]
        yield ("agent_room", a), layout.rooms[-1]
    for r in layout.rooms:
        yield ("room_bomb", r), 0
    for b in range(1, len(layout.phases) + 1):
        yield ("bomb_room", b), layout.rooms[0]
        yield ("bomb_status", b), "exploded"
        yield ("bomb_phases", b), max(layout.phases)
        yield ("bomb_remaining", b), (layout.colours[0],) * max(layout.phases)


# -- every line is read, and check_parity under the options that change what a seat sees --------

_STRUCTURE = {"Since your last turn:", "Now:"}


def test_every_line_of_an_observation_states_facts_its_reader_reads():
    rng = np.random.default_rng(1)
    env = mase.wrappers.MessageChannel(mase.make(ID, witness=True, wrong_cutter="explode"))
    base = env.unwrapped
    lines = 0
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter(150):
            obs, _, terminated, truncated, _ = env.last()
            head, _ = split_messages(obs["text"])
            for line in head.splitlines():
                assert line in _STRUCTURE or words.parse_observation(line), line
                lines += 1
            assert base.vector_knowledge(agent, obs["observation"]) == base.text_knowledge(
                agent, obs["text"]
            )
            if terminated or truncated:
                env.step(None)
                continue
            n = len(base.layout.actions)
            roll = rng.random()
            action = int(rng.integers(-1, n + 1)) if roll < 0.5 else "go to room 42"
            if roll < 0.3:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step({"action": action, "message": f"Bomb 1 is in room {base.layout.rooms[-1]}."})
    assert lines > 1000


VARIANTS = {
    "teammates unseen": {"see_teammates": False},
    "witness": {"witness": True},
    "random graphs, explosions": {"layout": "random", "wrong_cutter": "explode", "credit": "bomb"},
    "procedural 4 agents": {"n_rooms": 6, "n_bombs": 4, "n_agents": 4, "n_colours": 4},
    "procedural, alone": {"n_rooms": 3, "n_bombs": 2, "n_agents": 1, "n_colours": 2},
}


@pytest.mark.parametrize("kwargs", VARIANTS.values(), ids=VARIANTS.keys())
def test_check_parity_under_the_options_that_change_what_a_seat_sees(kwargs):
    assert check_parity(ID, episodes=4, max_turns=150, **kwargs) > 20


# -- the layout: its table, its old prefix, the native batch ------------------------------------


def test_the_module_docstring_table_is_the_layout():
    base = mase.make(ID).unwrapped
    table = codec_module.__doc__.split("block           size")[1]
    names = re.findall(r"^([a-z_]+) {2,}", table, re.M)
    assert names == [b.name for b in base.codec.layout]
    assert base.observation_space(base.possible_agents[0])["observation"].shape == (506,)


def test_the_first_blocks_are_the_shipped_checkpoints_vector():
    layout = mase.make(ID).unwrapped.codec.layout
    old = layout.blocks[: codec_module.ORIGINAL_BLOCKS]
    assert [b.name for b in old][-1] == "last_result"
    assert sum(b.size for b in old) == 143  # the vector mappo.pt and sb3_ppo.zip read


def test_the_native_batchs_seen_and_told_blocks_stay_zero():
    batch = mase.make_vec(ID, num_envs=8, backend="native")
    batch.reset(seed=0)
    layout = batch.template.codec.layout
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, mask = batch.observe()
        parts = layout.split(obs)
        assert not parts["seen"].any() and not parts["told"].any()
        assert (parts["seat"].argmax(1) == batch.seat).all()
        batch.step((rng.random(mask.shape) * mask).argmax(1))


def test_a_vector_with_two_rooms_for_one_agent_is_refused():
    env = setup(alpha=3)
    base = env.unwrapped
    v = base.observe("alpha")["observation"].copy()
    v[base.codec.offset["agent_room"] + base.codec.room_index[8]] = 1.0
    with pytest.raises(ValueError):
        base.vector_knowledge("alpha", v)
    with pytest.raises(ValueError):
        base.vector_knowledge("bravo", base.observe("alpha")["observation"])
    assert world.PAPER_AGENTS == ("alpha", "bravo", "charlie")
