"""ToMProbe against scripted search-and-rescue episodes, from the paper's annotation criteria.

Was the target present and able to observe, had it visited the room, was it communicated:
each scenario places bombs and agents by hand, plays a scripted sequence of actions and
messages, and checks the questions put to the acting agent and their true answers.
"""

import pytest
from pettingzoo.test import api_test
from scenarios import INSPECT, place, play

import mase
from mase.probes import LEVELS, Question
from mase.wrappers import MessageChannel
from mase.wrappers.tom_probe import ToMProbe

SEQUENCE_2 = "Bomb 2 has 2 phases. Bomb 2 remaining sequence: red, green."


def setup(alpha, bravo, charlie, seed=0, probes=None, **kwargs):
    """A probed messaging env with every bomb and agent placed by hand."""
    env = ToMProbe(
        MessageChannel(mase.make("mase/SearchRescue-v0", obs_mode="vector", **kwargs)),
        probes=probes,
        seed=seed,
    )
    env.reset(seed=seed)
    return place(env, alpha, bravo, charlie)


def asked(env, agent):
    """The records of the questions now put to ``agent``, by (level, kind)."""
    ids = [q["id"] for q in env.unwrapped.infos[agent].get("tom_questions", [])]
    records = {r["id"]: r for r in env.episode_record()["probes"]}
    return {(records[i]["level"], records[i]["kind"]): records[i] for i in ids}


def over_teammates(scenario):
    """Run ``scenario(seed)`` for seeds until both teammates have been asked about."""
    seen = set()
    for seed in range(20):
        seen.add(scenario(seed))
        if len(seen) == 2:
            return seen
    raise AssertionError(f"only {seen} were asked about")


def test_inspection_seen_by_a_teammate_in_the_room_under_witness():
    def scenario(seed):
        env = setup(alpha=3, bravo=3, charlie=0, seed=seed, witness=True)
        play(env, INSPECT, ("go", 5), ("go", 5))
        q = asked(env, "alpha")
        assert set(q) == {(level, "sequence") for level in LEVELS}
        about = q["first_order", "sequence"]["about"]
        assert q["introspection", "sequence"]["truth"] is True
        # bravo was present and saw it; charlie was elsewhere
        assert q["first_order", "sequence"]["truth"] is (about == "bravo")
        assert q["second_order", "sequence"]["truth"] is (about == "bravo")
        assert not any(r["false_belief"] for r in q.values())
        return about

    assert over_teammates(scenario) == {"bravo", "charlie"}


def test_inspection_beside_a_teammate_is_unknown_to_it_under_the_paper_rule():
    def scenario(seed):
        env = setup(alpha=3, bravo=3, charlie=0, seed=seed)
        play(env, INSPECT, ("go", 5), ("go", 5))
        q = asked(env, "alpha")
        assert q["introspection", "sequence"]["truth"] is True
        # an agent cannot observe another's actions or their consequences unless told
        assert q["first_order", "sequence"]["truth"] is False
        assert q["second_order", "sequence"]["truth"] is False
        return q["first_order", "sequence"]["about"]

    assert over_teammates(scenario) == {"bravo", "charlie"}


def test_inspection_alone_is_unknown_to_both_teammates():
    def scenario(seed):
        env = setup(alpha=3, bravo=0, charlie=0, seed=seed)
        play(env, INSPECT, INSPECT, INSPECT)
        q = asked(env, "alpha")
        assert q["introspection", "sequence"]["truth"] is True
        assert q["first_order", "sequence"]["truth"] is False
        assert q["second_order", "sequence"]["truth"] is False
        assert not q["first_order", "sequence"]["false_belief"]  # holding nothing
        return q["first_order", "sequence"]["about"]

    over_teammates(scenario)


def test_sequence_told_by_message_is_known_after_delivery():
    def scenario(seed):
        env = setup(alpha=3, bravo=0, charlie=8, seed=seed)
        play(env, (INSPECT, SEQUENCE_2), INSPECT, INSPECT)
        q = asked(env, "alpha")
        # a broadcast reaches both teammates; each knows alpha told it
        assert q["first_order", "sequence"]["truth"] is True
        assert q["second_order", "sequence"]["truth"] is True
        return q["first_order", "sequence"]["about"]

    over_teammates(scenario)


def told_back(context):
    """After a message, ask each recipient whether the sender knows that it knows."""
    for event in context.events:
        if event.kind != "message":
            continue
        facts = tuple(context.env.parse_facts(event.note))
        for recipient in sorted(event.audience - {event.actor}):
            yield Question(
                recipient,
                "second_order",
                "told",
                f"Does {event.actor} know that you know?",
                facts,
                about=event.actor,
            )


def test_second_order_after_a_message_holds_in_the_other_direction():
    # bravo inspects bomb 2 alone and tells the team: the teller knows that each recipient
    # holds what it said (asked to the recipients: "does bravo know that you know?")
    env = setup(alpha=0, bravo=3, charlie=8, probes=[told_back])
    play(env, INSPECT, (INSPECT, SEQUENCE_2))
    q = asked(env, "charlie")
    assert q["second_order", "told"]["about"] == "bravo"
    assert q["second_order", "told"]["truth"] is True
    play(env, INSPECT)
    assert asked(env, "alpha")["second_order", "told"]["truth"] is True
    # a wrong claim: bravo knows what charlie was told, but that is not knowing the truth
    env = setup(alpha=0, bravo=3, charlie=8, probes=[told_back])
    play(env, INSPECT, (INSPECT, "Bomb 2 remaining sequence: blue."))
    told = asked(env, "charlie")["second_order", "told"]
    assert told["truth"] is False and told["false_belief"] is True


def test_wrong_sequence_told_is_a_false_belief():
    def scenario(seed):
        env = setup(alpha=6, bravo=0, charlie=0, seed=seed)
        # alpha inspects bomb 4 (blue) alone and tells the team it is red
        play(env, (INSPECT, "Bomb 4 has 1 phase. Bomb 4 remaining sequence: red."))
        play(env, INSPECT, INSPECT)
        q = asked(env, "alpha")
        first, second = q["first_order", "sequence"], q["second_order", "sequence"]
        assert first["truth"] is False and first["false_belief"] is True
        assert second["truth"] is False and second["false_belief"] is True
        assert q["introspection", "sequence"]["truth"] is True
        return first["about"]

    over_teammates(scenario)


def test_bomb_cut_after_a_witness_left_is_a_false_belief():
    def scenario(seed):
        env = setup(alpha=3, bravo=3, charlie=0, seed=seed, witness=True)
        play(env, INSPECT, ("go", 0), INSPECT)  # round 1: bravo sees the sequence, leaves
        play(env, ("cut", "red"), INSPECT, INSPECT)  # round 2: alpha cuts with bravo gone
        q = asked(env, "alpha")
        assert {k for _, k in q} == {"state", "phase"}
        about = q["first_order", "state"]["about"]
        assert q["introspection", "state"]["truth"] is True
        assert q["introspection", "phase"]["truth"] is True
        for kind in ("state", "phase"):
            first, second = q["first_order", kind], q["second_order", kind]
            assert first["truth"] is False and second["truth"] is False
            # bravo holds the old sequence; charlie never saw bomb 2
            assert first["false_belief"] is (about == "bravo")
            assert second["false_belief"] is (about == "bravo")
        return about

    over_teammates(scenario)


def test_move_asks_about_the_room_entered():
    env = setup(alpha=3, bravo=0, charlie=0)
    play(env, ("go", 8), INSPECT, INSPECT)
    q = asked(env, "alpha")
    assert set(q) == {(level, "room") for level in LEVELS}
    record = q["first_order", "room"]
    assert record["facts"] == [["room_bomb", 8], ["bomb_status", 5]]
    assert record["question"] == f"Does {record['about'].capitalize()} know what room 8 holds?"
    assert record["asked"] == "alpha" and record["round"] == 1
    assert q["introspection", "room"]["about"] is None
    assert q["introspection", "room"]["truth"] is True  # it stands there now and sees it


def test_explosion_asks_about_the_state_only():
    env = setup(alpha=3, bravo=0, charlie=0, wrong_cutter="explode")
    play(env, ("cut", "green"), INSPECT, INSPECT)
    q = asked(env, "alpha")
    assert set(q) == {(level, "state") for level in LEVELS}
    assert q["introspection", "state"]["truth"] is True
    assert q["first_order", "state"]["truth"] is False


@pytest.mark.parametrize(
    "action",
    [("go", 5), ("cut", "green"), ("cut", "blue"), ("go", 3)],
    ids=["no door", "wrong colour", "not owned", "already there"],
)
def test_invalid_actions_ask_nothing(action):
    env = setup(alpha=3, bravo=0, charlie=0)
    play(env, action, ("go", 3), ("go", 3))
    assert "tom_questions" not in env.unwrapped.infos["alpha"]
    assert env.episode_record()["metrics"]["tom_questions"] == 0
    # the teammates' moves into room 3 are asked to them at their next turns
    play(env, INSPECT)
    assert asked(env, "bravo") and not asked(env, "alpha")


def test_questions_wait_for_the_asked_agents_turn_and_leave_after_it():
    env = setup(alpha=3, bravo=3, charlie=0)
    play(env, INSPECT)
    assert not asked(env, "alpha") and env.episode_record()["metrics"]["tom_questions"] == 0
    play(env, ("go", 0), INSPECT)
    assert len(asked(env, "alpha")) == 3
    play(env, ("go", 0))  # alpha acts: its questions are gone from its info
    assert "tom_questions" not in env.unwrapped.infos["alpha"]
    # bravo's turn now: its move's questions are put to it
    assert set(asked(env, "bravo")) == {(level, "room") for level in LEVELS}
    assert env.episode_record()["metrics"]["tom_questions"] == 6


def test_episode_end_asks_everyone():
    env = setup(alpha=3, bravo=3, charlie=3, max_cycles=1, witness=True)
    play(env, INSPECT, INSPECT, INSPECT)
    base = env.unwrapped
    assert all(base.truncations.values())
    for agent in ("alpha", "bravo", "charlie"):
        q = asked(env, agent)
        assert set(q) == {(level, "sequence") for level in LEVELS}
        assert all(r["truth"] for r in q.values())  # all three saw all three inspections
    for _ in env.agent_iter():
        env.step(None)
    assert env.episode_record()["metrics"]["tom_questions"] == 9


def test_answers_are_scored_per_level():
    env = setup(alpha=3, bravo=3, charlie=0, seed=0)
    record = env.episode_record()["metrics"]
    assert [record[f"tom_{level}"] for level in LEVELS] == [None, None, None]
    play(env, INSPECT, ("go", 0), INSPECT)
    q = asked(env, "alpha")
    replies = {
        q["introspection", "sequence"]["id"]: "Yes, I inspected it.",
        q["first_order", "sequence"]["id"]: "No."
        if q["first_order", "sequence"]["truth"]
        else "Yes.",
        q["second_order", "sequence"]["id"]: "I cannot say.",
    }
    scored = env.answer_questions("alpha", replies)
    assert [r["correct"] for r in scored] == [True, False, False]
    assert scored[2]["answer"] is None and scored[2]["reply"] == "I cannot say."
    metrics = env.episode_record()["metrics"]
    assert metrics["tom_introspection"] == 1.0
    assert metrics["tom_first_order"] == 0.0
    assert metrics["tom_second_order"] == 0.0
    assert metrics["tom_questions"] == metrics["tom_answered"] == 3
    # unanswered questions stay in the records with no reply and count in no accuracy
    play(env, ("go", 0), ("go", 3), ("go", 5))
    env.answer_questions("bravo", {})
    metrics = env.episode_record()["metrics"]
    assert metrics["tom_answered"] == 3 and metrics["tom_questions"] > 3
    assert metrics["tom_introspection"] == 1.0
    with pytest.raises(ValueError, match="was not asked to 'bravo'"):
        env.answer_questions("bravo", {q["introspection", "sequence"]["id"]: "yes"})


def test_records_carry_everything_and_reset_clears_them():
    env = setup(alpha=3, bravo=3, charlie=0)
    play(env, INSPECT, ("go", 0), INSPECT)
    probes = env.episode_record()["probes"]
    assert probes and set(probes[0]) == {
        "id", "round", "level", "kind", "asked", "about", "facts", "question", "truth",
        "false_belief", "evidence", "unread_messages", "reply", "answer", "correct",
    }  # fmt: skip
    assert len({p["id"] for p in probes}) == len(probes)
    env.reset(seed=1)
    assert env.episode_record()["probes"] == []
    assert not any("tom_questions" in info for info in env.unwrapped.infos.values())


def test_every_answer_carries_its_evidence():
    env = setup(alpha=3, bravo=0, charlie=0)
    play(env, INSPECT, INSPECT, INSPECT)
    play(env, (INSPECT, "bomb two needs red then green"), INSPECT, INSPECT)
    play(env, INSPECT)
    probes = env.episode_record()["probes"]
    second = [p for p in probes if p["level"] == "second_order" and p["truth"]]
    assert second, "alpha told both teammates: they know it knows"
    for record in second:
        rows = {(r["agent"], r.get("knows_of")): r for r in record["evidence"]}
        own = rows["alpha", None]  # alpha's own inspection, first-hand
        assert own["because"]["kind"] == "inspect" and own["because"]["actor"] == "alpha"
        told = rows[record["about"], "alpha"]  # the teammate's picture of alpha: the message
        assert told["because"]["kind"] == "message"
        assert told["because"]["text"] == "bomb two needs red then green"
        assert record["unread_messages"] == []


def test_an_unreadable_message_is_flagged_on_the_answers_it_may_bear_on():
    env = setup(alpha=3, bravo=0, charlie=0)
    play(env, INSPECT, INSPECT, INSPECT)
    play(env, (INSPECT, "bomb 2 is the tricky one: crimson then jade"), INSPECT, INSPECT)
    play(env, INSPECT)
    tracker = env.unwrapped.knowledge()
    assert [u.text for u in tracker.unread] == ["bomb 2 is the tricky one: crimson then jade"]
    probes = env.episode_record()["probes"]
    about_bomb_2 = [p for p in probes if p["round"] >= 2 and ["bomb_remaining", 2] in p["facts"]]
    assert about_bomb_2 and all(p["unread_messages"] for p in about_bomb_2)
    others = [p for p in probes if ["bomb_remaining", 2] not in p["facts"]]
    assert others and not any(p["unread_messages"] for p in others)
    text = about_bomb_2[0]["unread_messages"][0]["text"]
    assert text == "bomb 2 is the tricky one: crimson then jade"


def test_the_drawn_teammate_is_seeded():
    def abouts(seed):
        env = setup(alpha=3, bravo=3, charlie=3, seed=seed)
        play(env, INSPECT, INSPECT, INSPECT, INSPECT, INSPECT, INSPECT)
        return [p["about"] for p in env.episode_record()["probes"]]

    assert abouts(3) == abouts(3)
    assert len({tuple(abouts(s)) for s in range(6)}) > 1


def test_a_task_without_built_in_probes_needs_them_given():
    env = mase.make("mase/SearchRescue-v0")
    env.unwrapped.tom_probes = None
    with pytest.raises(ValueError, match="pass probes="):
        ToMProbe(env)
    with pytest.raises(ValueError, match="at least one"):
        ToMProbe(env, probes=[])
    with pytest.raises(ValueError, match="holds"):
        Question("alpha", "third_order", "x", "?", (("score",),), about="bravo")


@pytest.mark.parametrize("messages", [False, True], ids=["plain", "message channel"])
def test_api_test_passes_on_the_wrapped_env(messages):
    env = mase.make("mase/SearchRescue-v0")
    env = ToMProbe(MessageChannel(env) if messages else env)
    api_test(env, num_cycles=200)


def test_rate_asks_a_seeded_share_of_the_questions():
    def asked(rate, seed=0):
        env = ToMProbe(MessageChannel(mase.make("mase/SearchRescue-v0")), rate=rate, seed=seed)
        env.reset(seed=0)
        for turn in range(60):  # a fixed mix of inspections, moves and cuts
            if not env.agents:
                break
            env.step((0, 1, 2, 0, 6, 7, 3, 8, 4, 5)[turn % 10])
        return env.episode_record()["metrics"]["tom_questions"]

    full, half = asked(1.0), asked(0.5)
    assert 0 < half < full
    assert asked(0.5) == half  # seeded
    with pytest.raises(ValueError, match="rate"):
        ToMProbe(MessageChannel(mase.make("mase/SearchRescue-v0")), rate=0.0)


def _bravo_after(alpha_turn, seed):
    """What Bravo is shown at its second turn after Alpha's first turn was ``alpha_turn``."""
    env = ToMProbe(MessageChannel(mase.make("mase/SearchRescue-v0", obs_mode="both")), seed=seed)
    env.reset(seed=seed)
    place(env, alpha=3, bravo=0, charlie=5)
    play(env, alpha_turn, INSPECT, INSPECT, ("go", 0))  # bravo and charlie inspect alone
    base = env.unwrapped
    assert base.agent_selection == "bravo"
    obs, reward, ended, cut, info = env.last()
    return {
        "text": obs["text"],
        "vector": obs["observation"].tobytes(),
        "mask": obs["action_mask"].tobytes(),
        "rewards": (reward, ended, cut),
        "questions": info.get("tom_questions"),
    }


@pytest.mark.parametrize("seed", range(12))
def test_a_teammates_unseen_action_does_not_change_the_questions(seed):
    # alone in room 3, alpha inspects bomb 2 or wastes its turn on a door that is not there:
    # bravo (in room 0) sees neither, so everything it is shown must be the same, questions too
    inspected, wasted = _bravo_after(INSPECT, seed), _bravo_after(("go", 5), seed)
    assert inspected["questions"], "bravo's inspection asks it questions"
    assert inspected == wasted


def test_question_ids_count_per_seat():
    env = setup(alpha=3, bravo=3, charlie=3, witness=True)
    play(env, INSPECT, INSPECT, INSPECT, INSPECT)
    ids = [p["id"] for p in env.episode_record()["probes"]]
    assert ids[:3] == ["tom-alpha-1", "tom-alpha-2", "tom-alpha-3"]
    assert ids[3:6] == ["tom-bravo-1", "tom-bravo-2", "tom-bravo-3"]
