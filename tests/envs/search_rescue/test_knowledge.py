"""The knowledge tracker against scripted search-and-rescue episodes.

Each scenario sets up an exact world, plays a scripted sequence of actions and messages, and
checks the tracker's answers against the paper's annotation criteria: was the target present
and able to observe, had it visited the room, was it communicated.
"""

from scenarios import INSPECT, place, play

import mase
from mase.envs.search_rescue import world
from mase.wrappers import MessageChannel

REMAINING_2 = ("bomb_remaining", 2)


def setup(alpha: int, bravo: int, charlie: int, witness: bool = False):
    """A messaging env with every bomb and agent placed by hand (the paper's rule by default)."""
    env = MessageChannel(mase.make("mase/SearchRescue-v0", obs_mode="vector", witness=witness))
    env.reset(seed=0)
    return place(env, alpha, bravo, charlie)


def know(env):
    """The tracker after everything so far, and the true facts now."""
    base = env.unwrapped
    return base.knowledge(), base.true_facts()


def test_inspection_seen_by_a_teammate_in_the_room_under_witness():
    env = setup(alpha=3, bravo=3, charlie=0, witness=True)
    play(env, INSPECT)
    k, truth = know(env)
    assert truth[REMAINING_2] == ("red", "green")
    assert k.introspection("alpha", REMAINING_2, truth)
    assert k.first_order("bravo", REMAINING_2, truth)
    assert k.belief("bravo", REMAINING_2).first_hand
    assert not k.first_order("charlie", REMAINING_2, truth)  # elsewhere: could not observe
    # each saw the other observe it
    assert k.second_order("bravo", "alpha", REMAINING_2, truth)
    assert k.second_order("alpha", "bravo", REMAINING_2, truth)
    assert not k.second_order("charlie", "alpha", REMAINING_2, truth)
    assert not k.second_order("alpha", "charlie", REMAINING_2, truth)


def test_inspection_beside_a_teammate_is_the_inspectors_alone_under_the_paper_rule():
    env = setup(alpha=3, bravo=3, charlie=0)
    play(env, INSPECT, INSPECT)  # both inspect: each learns it, neither sees the other learn it
    k, truth = know(env)
    assert k.introspection("alpha", REMAINING_2, truth)
    assert k.introspection("bravo", REMAINING_2, truth)
    assert not k.second_order("bravo", "alpha", REMAINING_2, truth)
    assert not k.second_order("alpha", "bravo", REMAINING_2, truth)
    # what the room shows is common ground among those present
    assert k.second_order("bravo", "alpha", ("room_bomb", 3), truth)
    assert k.second_order("alpha", "bravo", ("bomb_status", 2), truth)
    assert not k.second_order("charlie", "alpha", ("room_bomb", 3), truth)


def test_inspection_alone_is_known_only_to_the_inspector():
    env = setup(alpha=3, bravo=0, charlie=0)
    play(env, INSPECT)
    k, truth = know(env)
    assert k.introspection("alpha", REMAINING_2, truth)
    assert not k.first_order("bravo", REMAINING_2, truth)
    assert k.belief("bravo", REMAINING_2) is None
    assert not k.second_order("bravo", "alpha", REMAINING_2, truth)
    assert not k.second_order("alpha", "bravo", REMAINING_2, truth)
    assert not k.false_belief("bravo", REMAINING_2, truth)  # holding nothing is not a false belief


def test_sequence_told_by_message_is_a_claim_known_both_ways():
    env = setup(alpha=3, bravo=0, charlie=8)
    play(
        env,
        INSPECT,
        INSPECT,
        INSPECT,
        (INSPECT, "Bomb 2 remaining sequence: red, green."),
    )
    k, truth = know(env)
    held = k.belief("bravo", REMAINING_2)
    assert held.value == ("red", "green") and held.source == "alpha" and not held.first_hand
    assert held.round == 2
    assert k.first_order("bravo", REMAINING_2, truth)
    assert k.first_order("charlie", REMAINING_2, truth)  # a broadcast reaches every teammate
    # alpha told bravo: bravo knows alpha holds it
    assert k.second_order("bravo", "alpha", REMAINING_2, truth)
    # bravo was told by alpha: alpha, the teller, knows bravo holds it
    assert k.second_order("alpha", "bravo", REMAINING_2, truth)
    # telling does not change what the sender holds: still first-hand
    assert k.belief("alpha", REMAINING_2).first_hand


def test_second_order_when_the_teller_is_not_the_first_to_ask():
    # bravo inspects alone; nobody knows bravo holds it until bravo tells the others
    env = setup(alpha=0, bravo=3, charlie=8)
    play(env, ("go", 5), INSPECT, INSPECT)
    k, truth = know(env)
    assert not k.second_order("alpha", "bravo", REMAINING_2, truth)
    assert not k.second_order("bravo", "alpha", REMAINING_2, truth)
    play(env, INSPECT, (INSPECT, "Bomb 2 remaining sequence: red, green."))
    k, truth = know(env)
    assert k.second_order("alpha", "bravo", REMAINING_2, truth)  # bravo told alpha
    assert k.second_order("bravo", "alpha", REMAINING_2, truth)  # alpha was told by bravo
    assert k.belief("alpha", REMAINING_2).source == "bravo"
    assert k.belief("bravo", REMAINING_2).first_hand


def test_wrong_sequence_told_is_a_false_belief():
    env = setup(alpha=0, bravo=0, charlie=0)
    play(env, (("go", 3), "Bomb 4 remaining sequence: red."))
    k, truth = know(env)
    key = ("bomb_remaining", 4)
    assert truth[key] == ("blue",)
    assert k.false_belief("bravo", key, truth)
    assert k.belief("bravo", key).source == "alpha"
    assert not k.first_order("bravo", key, truth)
    # alpha never saw bomb 4: it holds nothing, so no one can know it holds the truth
    assert k.belief("alpha", key) is None
    assert not k.introspection("alpha", key, truth)
    assert not k.false_belief("alpha", key, truth)
    assert not k.second_order("bravo", "alpha", key, truth)


def test_bomb_changed_after_a_witness_left_is_a_false_belief():
    env = setup(alpha=3, bravo=3, charlie=0, witness=True)
    play(env, INSPECT, ("go", 0), INSPECT)  # round 1: both see the sequence; bravo leaves
    play(env, ("cut", "red"))  # round 2: alpha cuts with bravo gone
    k, truth = know(env)
    assert truth[REMAINING_2] == ("green",)
    assert k.introspection("alpha", REMAINING_2, truth)
    assert k.false_belief("bravo", REMAINING_2, truth)
    assert k.belief("bravo", REMAINING_2).value == ("red", "green")
    assert not k.first_order("bravo", REMAINING_2, truth)
    # bravo's picture of alpha is outdated; alpha knows bravo saw only the old sequence
    assert not k.second_order("bravo", "alpha", REMAINING_2, truth)
    assert not k.second_order("alpha", "bravo", REMAINING_2, truth)
    assert k.model("bravo", "alpha")[REMAINING_2] == ("red", "green")


def test_returning_shows_the_status_but_not_the_new_sequence():
    env = setup(alpha=3, bravo=3, charlie=0, witness=True)
    play(env, INSPECT, ("go", 0), INSPECT, ("cut", "red"), ("go", 3), INSPECT)
    play(env, ("go", 0), ("go", 0))  # round 3: bravo observes room 3 at its turn, then leaves
    k, truth = know(env)
    assert k.introspection("bravo", ("bomb_status", 2), truth)
    assert k.belief("bravo", ("bomb_status", 2)).round == 3
    assert k.false_belief("bravo", REMAINING_2, truth)  # only inspecting shows the sequence


def test_cut_seen_by_a_teammate_updates_both_and_their_second_order_under_witness():
    env = setup(alpha=3, bravo=3, charlie=3, witness=True)
    play(env, ("cut", "red"))
    k, truth = know(env)
    for agent in ("alpha", "bravo", "charlie"):
        assert k.introspection(agent, REMAINING_2, truth)
        assert k.belief(agent, ("bomb_remaining", 2)).round == 1
    assert k.second_order("charlie", "alpha", REMAINING_2, truth)
    assert k.second_order("bravo", "charlie", REMAINING_2, truth)


def test_observe_events_are_logged_but_not_delivered():
    env = setup(alpha=3, bravo=0, charlie=0)
    base = env.unwrapped
    before = env.observe("alpha")["observation"].copy()
    play(env, INSPECT)
    observed = [e for e in base.event_log if e.kind == "observe"]
    assert len(observed) == 1  # alpha's view, logged when it acted
    event = observed[0]
    assert event.actor == "alpha" and event.audience == frozenset({"alpha"})
    assert event.facts[("room_bomb", 3)] == 2
    assert event.facts[("agent_room", "bravo")] == 0  # teammates are visible by default
    assert all(e.kind != "observe" for a in base.agents for e in base.inbox(a))
    # what alpha observed at its turn is what its observation showed
    rest = {("seat",): "alpha", ("doors",): tuple(sorted(base.layout.neighbours[3]))}
    assert (before == base.codec.encode(event.facts, None, rest)).all()


def test_true_facts_agree_with_every_view():
    env = setup(alpha=3, bravo=5, charlie=0)
    play(env, ("cut", "red"), INSPECT, ("go", 3))
    base = env.unwrapped
    truth = base.true_facts()
    for agent in base.agents:
        view = world.view_facts(base.world, agent, base.see_teammates)
        assert {k: truth[k] for k in view} == view
    assert truth[("room_bomb", 3)] == 2 and truth[("score",)] == 10
    assert len([k for k in truth if k[0] == "bomb_remaining"]) == 5
