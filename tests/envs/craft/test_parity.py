"""Craft's two views carry the same facts: what the text states, the vector holds, and back."""

import numpy as np
import pytest

import mase
from mase.checks import check_parity
from mase.envs.craft.vector import count_bound
from mase.wrappers import MessageChannel

ENV_ID = "mase/Craft-v0"


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"see_teammates": False},
        {"layout": "random", "start": "random"},
        {"recipes": "small", "n_agents": 2, "max_cycles": 12},
        {"n_agents": 4, "see_teammates": False, "start": "random", "max_cycles": 20},
    ],
)
def test_check_parity_passes_where_the_arguments_change_the_views(kwargs):
    episodes = 6 if not kwargs else 2 if kwargs.get("n_agents", 3) > 3 else 4
    assert check_parity(ENV_ID, episodes=episodes, seed=3, **kwargs) > 0


def _env(**kwargs):
    env = MessageChannel(mase.make(ENV_ID, obs_mode="both", **kwargs))
    env.reset(seed=0)
    return env, env.unwrapped


def _set(b, positions=None, **inventories):
    """Move agents and fill inventories before anyone has observed (the views are fresh)."""
    b.world.positions.update(positions or {})
    for agent, items in inventories.items():
        b.world.inventories[agent].update(items)
    b._view_cache = b._mask_cache = None


def _views(b, agent):
    obs = b.observe(agent)
    text, vector = obs["text"], obs["observation"]
    stated = b.text_knowledge(agent, text)
    assert stated == b.vector_knowledge(agent, vector), text
    return stated, text


def test_what_the_agent_sees_now_is_read_from_both_views():
    env, b = _env(see_teammates=False)
    _set(b, {"alpha": "forest", "bravo": "forest", "charlie": "river"}, alpha={"wood": 40})
    facts, text = _views(b, "alpha")
    assert facts[("round",)] == 1 and facts[("goal",)] == "bookshelf"
    assert facts[("place", "alpha")] == facts[("place", "bravo")] == "forest"
    assert ("place", "charlie") not in facts  # elsewhere, and teammates are not seen
    assert facts[("has", "alpha", "wood")] == 40  # past the old cap of 16: exact
    assert facts[("has", "alpha", "plank")] == 0
    assert facts[("source", "wood")] == "forest"  # here, and on the map the rules state
    assert facts[("source", "reed")] == "river"  # elsewhere: the map the rules state
    # the fixed map's paths from the forest: village, mine, workshop
    assert facts[("paths",)] == {"village", "mine", "workshop"}
    assert "Paths from the forest lead to the village, the mine and the workshop." in text


def test_a_random_map_the_rules_state_is_in_both_views_and_changes_with_the_episode():
    maps = set()
    for seed in range(4):
        env = mase.make(ENV_ID, obs_mode="both", layout="random")
        env.reset(seed=seed)
        b, layout = env.unwrapped, env.unwrapped.layout
        rules = b.rules_text("bravo")
        facts = b.vector_knowledge("bravo", b.observe("bravo")["observation"])
        assert facts == b.text_knowledge("bravo", b.observe("bravo")["text"])
        assert facts[("map",)] == set(layout.paths)
        assert "Paths (" in rules and all(f"{a}-{b_}" in rules for a, b_ in facts[("map",)])
        for resource, place in layout.sources.items():
            assert facts[("source", resource)] == place
        for station, place in layout.stations.items():
            assert facts[("station", station)] == place
        maps.add(facts[("map",)])
    assert len(maps) > 1  # a new map each episode, in both views


def test_a_vector_whose_local_blocks_disagree_with_its_map_is_refused():
    env, b = _env()
    vector = b.observe("alpha")["observation"].copy()
    at = b.codec.offset["paths"] + b.codec.place_index["mine"]  # the village has no path there
    vector[at] = 1.0
    with pytest.raises(ValueError, match="disagrees with the map"):
        b.vector_knowledge("alpha", vector)


def test_what_an_agent_saw_teammates_do_is_in_both_views():
    env, b = _env()
    _set(b, {"alpha": "forest", "bravo": "forest", "charlie": "forest"}, bravo={"plank": 6})
    layout = b.layout
    env.step(layout.action_index("wait"))  # alpha
    env.step(layout.action_index("gather", "wood"))  # bravo, seen at the forest
    env.step(layout.action_index("move", "mine"))  # charlie leaves, seen leaving
    facts, _ = _views(b, "alpha")
    assert facts[("saw", "alpha")] == ("wait",)
    assert facts[("saw", "bravo")] == ("gather", "wood", 1)
    assert facts[("saw", "bravo", "has", "bravo", "wood")] == 1
    assert facts[("saw", "charlie")] == ("move", "forest", "mine")
    assert facts[("saw", "charlie", "place", "charlie")] == "mine"
    env.step(layout.action_index("wait"))  # alpha
    env.step(layout.action_index("give", "plank", "alpha", 2))  # bravo gives alpha 2
    env.step(layout.action_index("wait"))  # charlie, at the mine: not seen
    facts, text = _views(b, "alpha")
    assert "Bravo gave you 2 planks." in text
    assert facts[("saw", "bravo")] == ("give", "plank", "alpha", 2)
    assert facts[("saw", "bravo", "has", "bravo", "plank")] == 4
    assert facts[("saw", "bravo", "has", "alpha", "plank")] == 2
    assert ("saw", "charlie") not in facts  # a teammate's wait elsewhere shows nothing
    env.step(layout.action_index("wait"))
    env.step(layout.action_index("craft", "stick"))  # bravo: 2 of its 4 planks -> 4 sticks
    facts, _ = _views(b, "alpha")
    assert facts[("saw", "bravo")] == ("craft", "stick", 4)
    assert facts[("saw", "bravo", "has", "bravo", "plank")] == 2
    assert facts[("saw", "bravo", "has", "bravo", "stick")] == 4


# each illegal action, the state it is tried in, and what the reason states (from the rules
# and the fixed map: the village's paths lead to the forest, river, meadow and workshop)
FAILURES = [
    (("move", "village"), {}, {"code": "already_there", "target": "village"}),
    (("move", "mine"), {}, {"code": "not_adjacent", "target": "mine", "via": "forest"}),
    (("gather", "wood"), {}, {"code": "not_here", "resource": "wood", "source": "forest"}),
    (("craft", "paper"), {"reed": 3}, {"code": "no_station", "item": "paper"}),
    (
        ("craft", "book"),
        {"paper": 1},
        {"code": "missing_inputs", "item": "book", "short": (("leather", 1), ("paper", 2))},
    ),
    (("give", "plank", "alpha", 1), {"plank": 1}, {"code": "self_give"}),
    (("give", "plank", "charlie", 1), {"plank": 1}, {"code": "not_together", "to": "charlie"}),
    (
        ("give", "plank", "bravo", 3),
        {"plank": 1},
        {"code": "not_enough", "item": "plank", "have": 1, "want": 3},
    ),
]


@pytest.mark.parametrize(("action", "held", "expected"), FAILURES)
def test_why_the_last_action_failed_is_in_both_views(action, held, expected):
    env, b = _env()
    _set(b, {"charlie": "river"}, alpha=held)
    env.step(b.layout.action_index(*action))
    facts, text = _views(b, "alpha")
    assert "Your last action failed: " in text
    assert facts[("saw", "alpha")] == ("failed",)
    for field, value in expected.items():
        assert facts[("failure", field)] == value
    # the views still agree at bravo's turn: the failure is alpha's alone
    assert not any(k[0] == "failure" for k in _views(b, "bravo")[0])


def test_a_tool_and_a_station_a_reason_names_are_read():
    env, b = _env()
    _set(b, {"alpha": "mine"}, alpha={"reed": 3})
    env.step(b.layout.action_index("gather", "stone"))
    facts, _ = _views(b, "alpha")
    assert facts[("failure", "code")] == "needs_tool"
    assert facts[("failure", "tool")] == "wooden_pickaxe"
    env.step(0), env.step(0)
    env.step(b.layout.action_index("craft", "paper"))  # a workbench is at the workshop only
    facts, _ = _views(b, "alpha")
    assert facts[("failure", "station_at")] == "workshop"


def test_a_refused_text_reply_reads_the_same_in_both_views():
    env, b = _env()
    env.step("gather wood")  # named, but wood is at the forest: the rules' reason
    facts, _ = _views(b, "alpha")
    assert facts[("failure", "code")] == "not_here"
    assert facts[("failure", "source")] == "forest"
    env.step(0), env.step(0)
    env.step("dance a jig")  # no action: a reason of another kind, which states no fact
    facts, _ = _views(b, "alpha")
    assert facts[("failure", "code")] == "other"
    assert [k for k in facts if k[0] == "failure"] == [("failure", "code")]


def test_claims_are_told_facts_and_impossible_ones_are_read_by_neither_view():
    env, b = _env()
    bound = count_bound(b.book, 3, 50)
    assert bound == 3 * 3 * 50  # a craft of planks adds at most 3 items a turn
    said = (
        f"Bravo has {bound} planks. Charlie has {bound + 1} sticks. Hotel has 2 wood. "
        "Round 51 of 50. Charlie is at the mine. Reeds are at the river."
    )
    env.step({"action": 0, "message": said})  # alpha tells bravo and charlie
    facts, text = _views(b, "bravo")
    assert said in text
    told = {k[2:]: v for k, v in facts.items() if k[:2] == ("told", "alpha")}
    assert told == {
        ("has", "bravo", "plank"): bound,
        ("place", "charlie"): "mine",
        ("source", "reed"): "river",
    }


def test_the_count_bound_is_reached_exactly_and_decoded():
    # one agent, small recipes (planks: 1 wood -> 2): each turn adds one item at most
    env, b = _env(recipes="small", n_agents=1, max_cycles=6)
    assert b.codec.bound == count_bound(b.book, 1, 6) == 6
    _set(b, {"alpha": "forest"})
    gather, craft = b.layout.action_index("gather", "wood"), b.layout.action_index("craft", "plank")
    for action in (gather, craft, gather, craft, gather, craft):
        env.step(action)
    assert b.world.inventories["alpha"]["plank"] == 6
    facts = b.vector_knowledge("alpha", b.observe_vector("alpha"))
    assert facts[("has", "alpha", "plank")] == 6


def test_the_decoder_refuses_a_vector_the_encoder_never_writes():
    env, b = _env()
    vector = b.observe_vector("alpha").copy()
    layout = b.vector_layout("alpha")
    vector[layout.slices["seen"].start + 1] = 1.0  # a second kind in an empty event row
    with pytest.raises(ValueError):
        b.vector_knowledge("alpha", vector)
    vector = b.observe_vector("alpha").copy()
    vector[layout.slices["inventory"].start] = 0.5  # disagrees with the exact counts
    with pytest.raises(ValueError):
        b.vector_knowledge("alpha", vector)


def test_the_layout_keeps_the_first_release_blocks_first_and_matches_the_vector():
    env, b = _env()
    names = [block.name for block in b.vector_layout("alpha")]
    assert names[:9] == [
        "place", "inventory", "goal", "resources", "stations", "teammates", "together",
        "round", "failed",
    ]  # fmt: skip
    assert b.vector_layout("alpha").size == b.observe_vector("alpha").shape[0]
    assert b.observation_space("alpha")["observation"].shape == (b.codec.size,)
    assert np.all(b.observe_vector("alpha") <= 1.0)
    with pytest.raises(ValueError, match="no agent"):
        b.vector_layout("zulu")
