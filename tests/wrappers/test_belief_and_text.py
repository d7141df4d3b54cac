"""BeliefState, TextActions and Recorder on search and rescue, and PettingZoo's checker on each."""

import json

import pytest
from pettingzoo.test import api_test

import mase
from mase.envs.search_rescue import belief, tom
from mase.envs.search_rescue import text as words
from mase.wrappers import BeliefState, MessageChannel, Recorder, TextActions, find_wrapper

ENV = "mase/SearchRescue-v0"


def scripted_turns(env, n, seed=0):
    """Play ``n`` turns with scripted bots (messages on); returns the policies."""
    team = {a: mase.agents.make_policy("scripted", env) for a in env.possible_agents}
    for agent, policy in team.items():
        policy.reset(agent, env, seed=seed)
    for _ in range(n):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else team[agent].act(obs, info))
    return team


@pytest.mark.parametrize(
    "wrap",
    [
        lambda e: BeliefState(MessageChannel(e)),
        lambda e: TextActions(MessageChannel(e)),
        lambda e: Recorder(MessageChannel(e)),
        lambda e: MessageChannel(e, topology="direct"),
    ],
)
def test_wrapped_envs_pass_the_api_test(wrap):
    api_test(wrap(mase.make(ENV)), num_cycles=200)


def test_template_has_every_section_and_reads_back():
    env = BeliefState(mase.make(ENV))
    env.reset(seed=0)
    text = env.template("bravo")
    sections = belief.read(text)
    assert tuple(sections) == belief.sections(env.unwrapped.layout, "bravo")
    assert sections["Your location"] == "unknown"
    assert words.parse_facts(text)[("cutters", "bravo")] == ("green", "blue")
    assert "Doors: 0-3, 0-5, 0-6, 0-8, 3-8, 5-6, 6-8." in sections["Room connectivity"]


def test_oracle_belief_is_what_the_agent_was_shown_or_told():
    env = BeliefState(MessageChannel(mase.make(ENV)))
    env.reset(seed=1)
    scripted_turns(env, 13)
    base = env.unwrapped
    agent = base.agent_selection
    tracker, truth = base.knowledge(), base.true_facts()
    oracle = env.oracle(agent)
    stated = base.belief_facts(oracle)
    held = {k: b.value for k, b in tracker.beliefs(agent).items()}
    # every fact in the oracle is one the agent holds, with the value it holds
    for key, value in stated.items():
        if key[0] != "cutters":
            assert held[key] == value
    # its own current room, seen at the start of this turn, is in it
    assert stated[("agent_room", agent)] == truth[("agent_room", agent)]
    # ToM statements are what the agent saw its teammates see (or exchanged with them), with
    # the values the agent itself holds: judged from its side, never from the truth
    statements = tom.parse_statements(oracle)
    assert statements
    for claim, holds in statements.items():
        assert holds
        keys = tom.fact_keys(claim.kind, claim.subject, held)
        if claim.level == "first_order":  # the agent knows the teammate holds it
            model = tracker.model(agent, claim.about)
        else:  # the teammate knows the agent holds it
            model = tracker.model(claim.about, agent)
        assert all(k in held and model.get(k) == held[k] for k in keys), claim


@pytest.mark.parametrize("witness", [False, True])
def test_oracle_belief_states_what_the_agent_could_know_never_the_truth(witness):
    """Two worlds that look the same to Alpha give Alpha the same oracle belief.

    All three inspect bomb 5 together in room 8; Alpha walks out; then Bravo either explodes
    bomb 5 (a wrong cutter, with wrong_cutter="explode") or only inspects it again. Alpha saw
    neither, so what it could know, and what it could know of Bravo, is the same in both.
    """
    from scenarios import place, play

    beliefs = []
    for bravo_turn in (("cut", "blue"), ("inspect",)):
        env = BeliefState(mase.make(ENV, wrong_cutter="explode", witness=witness))
        env.reset(seed=0)
        place(env, alpha=8, bravo=8, charlie=8)
        play(env, ("inspect",), ("inspect",), ("inspect",), ("go", 0), bravo_turn, ("inspect",))
        assert env.agent_selection == "alpha"
        base = env.unwrapped
        truth = base.true_facts()[("bomb_status", 5)]
        beliefs.append((base.observe_text("alpha"), env.oracle("alpha"), truth))
    (seen_a, oracle_a, truth_a), (seen_b, oracle_b, truth_b) = beliefs
    assert (truth_a, truth_b) == ("exploded", "active")  # the worlds differ
    assert seen_a == seen_b  # and look the same to Alpha
    assert oracle_a == oracle_b
    # what Alpha saw Bravo see (witness), or only what the room showed them both (the paper)
    assert ("Bravo knows the sequence of bomb 5." in oracle_a) is witness
    assert "Bravo knows what room 8 holds." in oracle_a


def test_belief_accuracy_and_recall():
    env = BeliefState(MessageChannel(mase.make(ENV)))
    env.reset(seed=1)
    scripted_turns(env, 7)
    base = env.unwrapped
    agent = base.agent_selection
    oracle = env.oracle(agent)
    perfect = env.score(agent, oracle)
    assert perfect["recall"] == 1.0
    # a belief that states one true and one false fact
    truth = base.true_facts()
    room = truth[("agent_room", agent)]
    wrong = 99
    text = f"{agent.capitalize()} is in room {room}. Bomb 1 is in room {wrong}."
    scored = env.score(agent, text)
    assert (scored["facts"], scored["true"], scored["accuracy"]) == (2, 1, 0.5)
    assert 0 < scored["recall"] < 1
    # handed in with the action, the belief is scored before the action is taken
    env.step({"action": "inspect bomb", "belief": text})
    record = env.episode_record()
    assert record["metrics"]["belief_accuracy"] == 0.5
    assert record["beliefs"][0]["agent"] == agent
    env.reset(seed=2)
    assert env.episode_record()["metrics"] == {"beliefs_scored": 0}


def test_belief_key_without_the_wrapper_is_a_clear_error():
    env = MessageChannel(mase.make(ENV))
    env.reset(seed=0)
    with pytest.raises(TypeError, match="BeliefState"):
        env.step({"action": 0, "belief": "x"})


def test_text_actions_count_valid_outputs():
    env = TextActions(MessageChannel(mase.make(ENV)))
    env.reset(seed=0)
    env.step("Action selection: inspect bomb\nMessage to Team: Alpha is here.")
    assert 'Alpha: "Alpha is here."' in env.observe("charlie")["text"]
    env.step("dance a little")
    env.step(3)  # an index passes through uncounted
    assert (env.outputs, env.valid_outputs, env.valid_action_rate) == (2, 1, 0.5)
    assert env.unwrapped.infos["bravo"]["last_parse"]["action"] is None
    assert "no action found" in env.unwrapped.infos["bravo"]["last_parse"]["reason"]
    assert env.episode_record()["metrics"]["text_valid_rate"] == 0.5


def test_recorder_keeps_every_event_and_writes_finished_episodes(tmp_path):
    path = tmp_path / "events.jsonl"
    env = Recorder(MessageChannel(mase.make(ENV)), path=path)
    env.reset(seed=0)
    scripted_turns(env, 400)  # long enough to finish the episode
    assert not env.unwrapped.agents
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["seed"] == 0
    events = lines[0]["events"]
    assert len(events) == len(env.unwrapped.event_log)
    kinds = {e["kind"] for e in events}
    assert {"observe", "move", "inspect", "cut", "message"} <= kinds
    first = next(e for e in events if e["kind"] != "message")
    assert set(first) == {"kind", "actor", "round", "audience", "facts", "note"}
    message = next(e for e in events if e["kind"] == "message")
    assert set(message["claims"]) == {"facts", "confidence", "unread", "reader", "holders"}
    assert message["claims"]["facts"] and message["claims"]["unread"] == []  # the bot's sentences
    assert find_wrapper(env, Recorder) is env and env.record_prompts


def test_direct_messages_reach_only_the_named_teammates():
    env = MessageChannel(mase.make(ENV), topology="direct")
    env.reset(seed=0)
    env.step(
        "Action selection: inspect bomb\nMessage to Bravo: Bomb 1 is in room 5.\n"
        "Message to Team: hello all"
    )
    bravo, charlie = env.observe("bravo")["text"], env.observe("charlie")["text"]
    assert 'Alpha: "Bomb 1 is in room 5."' in bravo and "Bomb 1 is in room 5." not in charlie
    assert 'Alpha: "hello all"' in bravo and 'Alpha: "hello all"' in charlie
    # the direct part never reaches the action parser: the turn was a valid inspect
    alphas = [e for e in env.unwrapped.event_log if e.actor == "alpha" and e.kind == "inspect"]
    assert len(alphas) == 1
    # the tracker credits only the recipient with the claim
    k = env.unwrapped.knowledge()
    assert k.belief("bravo", ("bomb_room", 1)).source == "alpha"
    assert (
        k.belief("charlie", ("bomb_room", 1)) is None
        or k.belief("charlie", ("bomb_room", 1)).source != "alpha"
    )
    env.step({"action": 0, "message": "to charlie only", "to": ["charlie"]})
    assert "to charlie only" in env.observe("charlie")["text"]
    assert "to charlie only" not in env.observe("alpha")["text"]


def test_topology_limits_who_reaches_whom():
    leader = {"alpha": ["bravo", "charlie"], "bravo": ["alpha"], "charlie": ["alpha"]}
    env = MessageChannel(mase.make(ENV), topology=leader)
    env.reset(seed=0)
    env.step({"action": 0, "message": "plan: all to room 0"})  # alpha reaches both
    assert "plan" in env.observe("bravo")["text"] and "plan" in env.observe("charlie")["text"]
    with pytest.raises(ValueError, match="cannot message"):
        env.step({"action": 0, "message": "psst", "to": ["charlie"]})  # bravo -> charlie
    env.step("Action selection: inspect bomb\nMessage to Charlie: psst")  # a model's slip
    assert "psst" not in env.observe("charlie")["text"]
    assert "cannot message charlie" in env.unwrapped.infos["bravo"]["message_errors"][0]
    env.step("Action selection: inspect bomb\nMessage to Team: hi")  # charlie: to alpha only
    assert 'Charlie: "hi"' in env.observe("alpha")["text"]
    assert 'Charlie: "hi"' not in env.observe("bravo")["text"]
    with pytest.raises(ValueError, match="unknown seats"):
        MessageChannel(mase.make(ENV), topology={"alpha": ["zulu"]})
    with pytest.raises(ValueError, match="broadcasts"):
        broadcast = MessageChannel(mase.make(ENV))
        broadcast.reset(seed=0)
        broadcast.step({"action": 0, "message": "x", "to": ["bravo"]})
