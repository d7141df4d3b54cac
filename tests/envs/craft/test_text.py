"""The crafting world in words: the reply parser, fact sentences, and what each view shows."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import mase
from mase.envs.craft import env as craft_env
from mase.envs.craft import maps, world
from mase.envs.craft.text import REASON_TEMPLATES, action_text
from mase.wrappers import MessageChannel

ENV_ID = "mase/Craft-v0"


@pytest.fixture
def base():
    """Alpha and Bravo at the forest with some items, Charlie at the river."""
    env = mase.make(ENV_ID)
    env.reset(seed=0)
    b = env.unwrapped
    b.world.positions.update(alpha="forest", bravo="forest", charlie="river")
    b.world.inventories["alpha"].update(plank=4, book=2, wood=1)
    return b


def read(base, text, agent="alpha"):
    parsed = base.read_action(agent, text)
    return parsed if parsed.action is None else action_text(base.layout, parsed.action)


# -- the reply parser -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, action",
    [
        ("gather wood", "gather wood"),
        ("Gather some wood", "gather wood"),
        ("chop 1 wood", "gather wood"),
        ("go to the mine", "move to the mine"),
        ("Move to the workshop.", "move to the workshop"),
        ("head to the village", "move to the village"),
        ("craft planks", "craft planks"),
        ("craft 1 plank", "craft planks"),
        ("craft 4 planks", "craft planks"),  # what one craft makes
        ("make sticks", "craft sticks"),
        ("give 2 planks to bravo", "give 2 planks to Bravo"),
        ("Give Bravo 2 planks", "give 2 planks to Bravo"),
        ("give a book to Bravo", "give 1 book to Bravo"),
        ("hand bravo the books", "give 2 books to Bravo"),  # all one holds
        ("give all my planks to bravo", "give 4 planks to Bravo"),
        ("wait", "wait"),
        ("I'll stay here for now", "wait"),
        ("Action selection: chop wood\nMessage to Team: on it", "gather wood"),
    ],
)
def test_paraphrases_are_read(base, reply, action):
    assert read(base, reply) == action


@pytest.mark.parametrize(
    "reply, words",
    [
        ("gather 3 wood", "you gather one at a time; say 'gather wood'"),
        ("craft 3 planks", "one craft makes planks: 1 wood -> 4 planks"),
        ("go to the moon", "there is no place called 'moon'"),
        ("give 2 planks to zulu", "there is no teammate called 'zulu'"),
        ("give 12 planks to bravo", "you can give 1 to 9 at a time"),
        ("gather planks", "planks cannot be gathered; craft them ('craft planks')"),
        ("craft wood", "wood is gathered, not crafted"),
        ("craft iron ingot", "there are no"),  # not in the small recipe book (below)
        ("go to the mine and gather wood", "the reply names several actions"),
        ("hello there", "no action found. Answer like 'move to the forest'"),
        ("", "no action found"),
    ],
)
def test_what_cannot_be_read_is_refused_with_a_reason(base, reply, words):
    if "iron" in reply:
        env = mase.make(ENV_ID, recipes="small")
        env.reset(seed=0)
        base = env.unwrapped
    parsed = base.read_action("alpha", reply)
    assert parsed.action is None and words in parsed.reason


@pytest.mark.parametrize(
    "reply, words",
    [
        ("move to the forest", "you are already at the forest."),
        ("go to the river", "the river is not next to the forest"),
        ("craft paper", "needs a workbench, and there is none at the forest. The workbench is"),
        ("gather reeds", "reeds cannot be gathered at the forest. Reeds are at the river."),
        ("give 2 planks to charlie", "Charlie is not at your place (the forest)"),
        ("give 5 planks to bravo", "you have 4 planks, not 5 planks."),
        ("give 2 planks to alpha", "you cannot give to yourself"),
        ("craft a book", "crafting book takes 3 paper and 1 leather; you are short of 3 paper"),
    ],
)
def test_an_illegal_action_is_explained(base, reply, words):
    parsed = base.read_action("alpha", reply)
    assert parsed.action is None and words in parsed.reason


def test_every_reason_an_action_fails_has_words():
    assert set(REASON_TEMPLATES) == set(world.INVALID_REASONS)


def test_every_legal_action_in_words_reads_back_to_a_legal_action():
    env = mase.make(ENV_ID, layout="random", start="random")
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(4):
        env.reset(seed=seed)
        b = env.unwrapped
        for agent in b.possible_agents:
            for item in b.book.items:
                if item != b.goal:
                    b.world.inventories[agent][item] = int(rng.integers(0, 12))
        agent = env.agent_selection
        legal = b.legal_actions_text(agent)
        mask = b.observe(agent)["action_mask"]
        for said in legal:
            action = b.read_action(agent, said).action
            assert action is not None and mask[action], said
            assert action_text(b.layout, action) == said
            checked += 1
        # every legal index has its words, read back to the same index
        for index in np.flatnonzero(mask):
            assert b.read_action(agent, action_text(b.layout, int(index))).action == index
    assert checked > 30


# -- facts in sentences -------------------------------------------------------------------------


def test_the_fact_sentences_of_the_brief(base):
    facts = base.parse_facts(
        "Bravo has 3 planks. Iron ore is at the mine. Reeds are at the river. "
        "The workbench is at the workshop. Charlie is at the meadow. Alpha has no paper. "
        "The goal is an iron pickaxe. Round 4 of 50."
    )
    assert facts == {
        ("has", "bravo", "plank"): 3,
        ("source", "iron_ore"): "mine",
        ("source", "reed"): "river",
        ("station", "workbench"): "workshop",
        ("place", "charlie"): "meadow",
        ("has", "alpha", "paper"): 0,
        ("goal",): "iron_pickaxe",
        ("round",): 4,
    }


def test_a_carries_sentence_states_the_whole_inventory(base):
    facts = base.parse_facts("Bravo carries 4 planks, 1 wood.")
    assert len(facts) == len(base.book.items)
    assert facts[("has", "bravo", "plank")] == 4 and facts[("has", "bravo", "wood")] == 1
    assert facts[("has", "bravo", "book")] == 0
    assert all(v == 0 for v in base.parse_facts("Alpha carries nothing.").values())


@pytest.mark.parametrize("options", [{}, {"recipes": "small", "layout": "random"}])
def test_true_facts_survive_a_round_trip_through_sentences(options):
    env = mase.make(ENV_ID, **options)
    env.reset(seed=2)
    b = env.unwrapped
    b.world.inventories["bravo"].update(plank=3, book=1)
    truth = b.true_facts()
    assert b.parse_facts(b.facts_text(truth)) == truth
    for sentence in b.claim_forms():
        assert b.parse_facts(sentence)


# -- what each agent is shown -------------------------------------------------------------------


def test_an_agent_is_told_what_happened_at_its_own_place_only():
    env = mase.make(ENV_ID, obs_mode="text")
    env.reset(seed=0)
    b = env.unwrapped
    b.world.positions.update(alpha="forest", bravo="forest", charlie="river")
    la = b.layout
    env.step(la.action_index("gather", "wood"))  # alpha, watched by bravo
    assert "You saw Alpha gather 1 wood. Alpha has 1 wood." in b.observe("bravo")["text"]
    env.step(la.action_index("move", "village"))  # bravo leaves
    env.step(la.action_index("gather", "reed"))  # charlie, alone at the river
    alpha = b.observe("alpha")["text"]
    assert "Your last action: you gathered 1 wood. Alpha has 1 wood." in alpha
    assert "You saw Bravo move from the forest to the village." in alpha
    assert "Charlie" not in alpha.split("Now:")[0]  # the reed is not seen
    assert "Alpha carries 1 wood." in alpha and "Charlie is at the river." in alpha
    assert "Recipes: planks: 1 wood -> 4 planks;" in alpha
    env.step(la.action_index("move", "village"))  # alpha follows bravo
    bravo = b.observe("bravo")["text"]
    assert "You saw Alpha move from the forest to the village." in bravo
    assert "Alpha carries" not in bravo  # a teammate's inventory is not seen
    assert "Your legal actions: wait; move to the forest;" in bravo


def test_the_failed_action_is_explained_in_the_next_observation():
    env = mase.make(ENV_ID, obs_mode="text", n_agents=1)
    env.reset(seed=0)
    env.step("gather wood")
    text = env.unwrapped.observe("alpha")["text"]
    assert "Your last action failed: wood cannot be gathered at the village." in text


def test_a_teammates_gift_is_seen_and_known():
    env = MessageChannel(mase.make(ENV_ID, obs_mode="text"))
    env.reset(seed=0)
    b = env.unwrapped
    b.world.inventories["alpha"]["plank"] = 4
    b.world.positions["charlie"] = "forest"
    env.step({"action": "give 2 planks to Bravo", "message": "Alpha carries 2 planks."})
    assert (
        "Alpha gave you 2 planks. Alpha has 2 planks. Bravo has 2 planks."
        in b.observe("bravo")["text"]
    )
    env.step("wait")
    env.step("wait")
    k, truth = b.knowledge(), b.true_facts()
    key = ("has", "alpha", "plank")
    assert k.first_order("bravo", key, truth)  # there, it saw the give
    assert k.belief("bravo", key).first_hand
    assert not k.belief("charlie", key).first_hand  # elsewhere: only told


def test_the_vector_view_encodes_place_inventory_goal_and_teammates():
    env = mase.make(ENV_ID, obs_mode="vector", see_teammates=False)
    env.reset(seed=0)
    b = env.unwrapped
    b.world.positions.update(alpha="forest", bravo="forest", charlie="river")
    b.world.inventories["alpha"].update(plank=4, wood=40)
    vec = b.observe("alpha")["observation"]
    codec, off = b.codec, b.codec.offset
    assert vec.dtype == np.float32 and 0 <= vec.min() and vec.max() <= 1
    assert vec[off["place"] + maps.PLACES.index("forest")] == 1
    items = b.book.items
    assert vec[off["inventory"] + items.index("plank")] == pytest.approx(4 / 16)
    assert vec[off["inventory"] + items.index("wood")] == 1.0  # capped
    assert vec[off["goal"] + items.index("bookshelf")] == 1
    assert vec[off["resources"] + b.book.resources.index("wood")] == 1
    places = len(maps.PLACES)
    bravo = off["teammates"] + places
    charlie = off["teammates"] + 2 * places
    assert vec[bravo + maps.PLACES.index("forest")] == 1
    assert not vec[charlie : charlie + places].any()  # not seen: elsewhere
    assert vec[off["together"] : off["together"] + 3].tolist() == [1, 1, 0]
    assert codec.size == vec.shape[0]


def test_rules_text_tells_the_map_recipes_and_reply_format():
    env = mase.make(ENV_ID, layout="random")
    env.reset(seed=5)
    b = env.unwrapped
    rules = b.rules_text("bravo")
    assert rules.startswith("You are Bravo, one of 3 agents")
    facts = b.parse_facts(rules)
    truth = b.true_facts()
    for resource in b.book.resources:
        assert facts[("source", resource)] == truth[("source", resource)]
    assert facts[("goal",)] == "bookshelf"
    assert "bookshelf (at a workbench): 6 planks + 3 books -> 1 bookshelf" in rules
    assert "Action selection:" in rules


def test_the_env_docstring_examples_run():
    result = doctest.testmod(craft_env, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
