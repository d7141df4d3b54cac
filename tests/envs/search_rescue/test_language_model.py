"""The offline language model's belief rewrites, actions from a belief, and ToM answers.

The model reads only its prompt; each test builds the prompt an LLM agent would send (the
wording of mase.protocol) from a scripted episode and checks the reply against the truth
the knowledge tracker gives.
"""

import pytest

import mase
from mase import protocol
from mase.envs.search_rescue import belief as beliefs
from mase.envs.search_rescue import language_model as lm
from mase.envs.search_rescue import tom, world
from mase.envs.search_rescue.text import parse_facts
from mase.wrappers import MessageChannel

BOMBS = {1: (0, ("red",)), 2: (3, ("red", "green")), 3: (5, ("green", "blue")), 4: (6, ("blue",))}
BOMBS[5] = (8, ("red", "green", "blue"))
SEQUENCE_2 = "Does Bravo know the sequence of bomb 2?"


class Episode:
    """A messaging env placed by hand; records Alpha's observations and replies."""

    def __init__(self, alpha, bravo, charlie, witness=False):
        self.env = MessageChannel(mase.make("mase/SearchRescue-v0", witness=witness))
        self.env.reset(seed=0)
        self.base = self.env.unwrapped
        self.base.world.positions.update(alpha=alpha, bravo=bravo, charlie=charlie)
        self.base.world.bombs = [world.Bomb(i, room, seq) for i, (room, seq) in BOMBS.items()]
        self.history = []  # alpha's (observation, reply)
        self.belief = self.base.belief_template("alpha")
        self.rules = {"role": "system", "content": self.base.rules_text("alpha")}

    def play(self, *turns):
        """Turns as action words, or (action words, message)."""
        for turn in turns:
            action, message = turn if isinstance(turn, tuple) else (turn, "")
            agent = self.env.agent_selection
            if agent == "alpha":
                seen = self.base.observe_text("alpha")
                self.belief = lm.respond([self.rules, user(self.belief_prompt(seen))])
                self.history.append(
                    (seen, f"Action selection: {action}\nMessage to Team: {message}")
                )
            self.env.step({"action": action, "message": message} if message else action)

    def belief_prompt(self, seen):
        return (
            f"{protocol.BELIEF_HEADER}\n{self.belief}\n\nNew observation:\n{seen}\n\n"
            f"{protocol.BELIEF_REQUEST}"
        )

    def ask(self, question, belief, window=2):
        """The model's answer (True/False) in belief or raw-history mode."""
        window_msgs = []
        if not belief:
            for seen, reply in self.history[-window:] if window else []:
                window_msgs += [user(seen), {"role": "assistant", "content": reply}]
        current = self.base.observe_text("alpha")
        text = (
            (f"{protocol.BELIEF_HEADER}\n{self.belief}\n\n" if belief else "")
            + f"Current observation:\n{current}\n\n"
            + f"{protocol.QUESTION_HEADER}\n{question}\n{protocol.QUESTION_REQUEST}"
        )
        reply = lm.respond([self.rules, *window_msgs, user(text)])
        assert reply.startswith(("Yes. ", "No. "))
        return protocol.parse_yes_no(reply)

    def truth(self, question):
        claim = tom.parse_question(question)
        tracker, truth = self.base.knowledge(), self.base.true_facts()
        keys = tom.fact_keys(claim.kind, claim.subject, truth)
        if claim.level == "introspection":
            return all(tracker.introspection("alpha", k, truth) for k in keys)
        if claim.level == "first_order":
            return all(tracker.first_order(claim.about, k, truth) for k in keys)
        return all(tracker.second_order(claim.about, "alpha", k, truth) for k in keys)


def user(text):
    return {"role": "user", "content": text}


QUESTIONS = [
    "Do you know the sequence of bomb 2?",
    SEQUENCE_2,
    "Does Charlie know the sequence of bomb 2?",
    "Does Bravo know that you know the sequence of bomb 2?",
    "Does Charlie know that you know the sequence of bomb 2?",
]


@pytest.mark.parametrize("belief", [False, True], ids=["history", "belief"])
def test_inspection_seen_by_one_teammate(belief):
    ep = Episode(alpha=3, bravo=3, charlie=0, witness=True)
    ep.play("inspect bomb", "go to room 0", "go to room 5")
    expected = [True, True, False, True, False]
    assert [ep.truth(q) for q in QUESTIONS] == expected
    assert [ep.ask(q, belief) for q in QUESTIONS] == expected


@pytest.mark.parametrize("belief", [False, True], ids=["history", "belief"])
def test_inspection_beside_a_teammate_is_not_seen_under_the_paper_rule(belief):
    ep = Episode(alpha=3, bravo=3, charlie=0)
    ep.play("inspect bomb", "go to room 0", "go to room 5")
    expected = [True, False, False, False, False]
    assert [ep.truth(q) for q in QUESTIONS] == expected
    assert [ep.ask(q, belief) for q in QUESTIONS] == expected


@pytest.mark.parametrize("belief", [False, True], ids=["history", "belief"])
def test_inspection_alone_then_told(belief):
    ep = Episode(alpha=3, bravo=0, charlie=0)
    ep.play("inspect bomb", "go to room 5", "go to room 5")
    assert [ep.ask(q, belief) for q in QUESTIONS] == [True, False, False, False, False]
    ep.play(("go to room 8", "Bomb 2 has 2 phases. Bomb 2 remaining sequence: red, green."))
    ep.play("go to room 6", "go to room 6")
    assert [ep.truth(q) for q in QUESTIONS] == [True] * 5
    assert [ep.ask(q, belief) for q in QUESTIONS] == [True] * 5


@pytest.mark.parametrize("belief", [False, True], ids=["history", "belief"])
def test_bomb_cut_after_the_witness_left(belief):
    ep = Episode(alpha=3, bravo=3, charlie=0)
    ep.play("inspect bomb", "go to room 0", "inspect bomb")
    ep.play("apply red cutter", "go to room 5", "go to room 5")
    question = "Does Bravo know the state and remaining sequence of bomb 2?"
    assert ep.truth(question) is False
    assert ep.ask(question, belief) is False
    assert ep.ask("Do you know that a phase of bomb 2 was just defused?", belief) is True


def test_the_belief_remembers_what_the_history_window_dropped():
    ep = Episode(alpha=3, bravo=3, charlie=0, witness=True)
    ep.play("inspect bomb", "go to room 0", "go to room 5")
    for _ in range(3):
        ep.play("go to room 8", "go to room 3", "go to room 0")
        ep.play("go to room 3", "go to room 0", "go to room 5")
    assert ep.truth(SEQUENCE_2) is True
    assert ep.ask(SEQUENCE_2, belief=True) is True
    assert ep.ask(SEQUENCE_2, belief=False) is False  # the inspection is out of the window
    assert ep.ask(SEQUENCE_2, belief=False, window=20) is True


def test_answers_come_from_the_belief_statements():
    ep = Episode(alpha=3, bravo=3, charlie=0)
    content = beliefs.read(ep.belief)
    content["Bomb intel"] = (
        "Bomb 4 is in room 6. Bomb 4 has 1 phase. Bomb 4 remaining sequence: blue."
    )
    content["What Bravo knows"] = "Bravo knows the sequence of bomb 4."
    content[beliefs.ABOUT_ME] = "Charlie knows that you know the sequence of bomb 4."
    ep.belief = beliefs.write(ep.base.layout, "alpha", content)
    asked = {
        "Do you know the sequence of bomb 4?": True,
        "Do you know the sequence of bomb 3?": False,
        "Does Bravo know the sequence of bomb 4?": True,
        "Does Charlie know the sequence of bomb 4?": False,
        "Does Bravo know that you know the sequence of bomb 4?": False,
        "Does Charlie know that you know the sequence of bomb 4?": True,
    }
    text = f"{protocol.BELIEF_HEADER}\n{ep.belief}\n\n{protocol.QUESTION_HEADER}\n"
    for question, expected in asked.items():
        reply = lm.respond([ep.rules, user(text + question + "\n" + protocol.QUESTION_REQUEST)])
        assert protocol.parse_yes_no(reply) is expected, (question, reply)


def test_a_rewritten_belief_reads_back_into_the_same_facts_and_statements():
    ep = Episode(alpha=3, bravo=3, charlie=0)
    ep.play("inspect bomb", "go to room 0", "inspect bomb", "apply red cutter", "go to room 5")
    ep.play(("inspect bomb", "Bomb 1 has 1 phase. Bomb 1 remaining sequence: red."))
    assert ep.env.agent_selection == "alpha"
    written = lm.respond([ep.rules, user(ep.belief_prompt(ep.base.observe_text("alpha")))])
    sections = beliefs.read(written)
    assert list(sections) == list(beliefs.sections(ep.base.layout, "alpha"))
    facts = {}
    for header in ("Round and score", "Your location", "Room contents", "Teammate locations"):
        facts.update(parse_facts(sections[header]))
    facts.update(parse_facts(sections["Bomb intel"]))
    truth = ep.base.true_facts()
    assert facts[("bomb_remaining", 2)] == ("green",) == truth[("bomb_remaining", 2)]
    assert facts[("bomb_remaining", 1)] == ("red",)  # told by bravo
    assert all(truth[key] == value for key, value in facts.items())
    statements = tom.parse_statements(sections["What Bravo knows"] + sections[beliefs.ABOUT_ME])
    assert statements[tom.Claim("first_order", "sequence", 1, "bravo")] is True
    # what the belief says reads back into the same belief (nothing lost or invented)
    mind = lm.build_mind(
        [ep.rules, user(f"{protocol.BELIEF_HEADER}\n{written}\n\n")], "alpha", ep.rules["content"]
    )
    assert {k: v for k, v in mind.facts.items() if k in facts} == facts
    assert mind.belief() == written


def test_an_action_decided_from_the_belief_alone_is_legal():
    ep = Episode(alpha=3, bravo=0, charlie=0)
    ep.play("inspect bomb", "go to room 5", "go to room 8")
    ep.belief = lm.respond([ep.rules, user(ep.belief_prompt(ep.base.observe_text("alpha")))])
    reply = lm.respond(
        [ep.rules, user(f"{protocol.BELIEF_HEADER}\n{ep.belief}\n\n{protocol.ACTION_REQUEST}")]
    )
    parsed = ep.base.read_action("alpha", reply)
    assert parsed.action is not None, reply
    assert reply.startswith(
        "Action selection: apply red cutter"
    )  # alpha holds red, bomb 2 red first
    assert "Bomb 2 remaining sequence: red, green." in parsed.message


def test_an_unreadable_question_gets_a_no():
    reply = lm.respond([user(f"{protocol.QUESTION_HEADER}\nDoes Bravo know?")])
    assert protocol.parse_yes_no(reply) is False


def test_a_team_in_belief_mode_defuses_everything():
    from mase.agents.llm import LLMAgent
    from mase.llm import ChatClient, LLMConfig, offline_server

    env = MessageChannel(mase.make("mase/SearchRescue-v0"))
    env.reset(seed=0)
    with offline_server(env) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        team = {a: LLMAgent(client=client, belief=True) for a in env.agents}
        for seat, policy in team.items():
            policy.reset(seat, env)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, info = env.last()
            env.step(None if terminated or truncated else team[agent].act(observation, info))
    assert info["metrics"]["score"] == 90
    # the paper's rule: a cut on a sequence a teammate changed unseen is rejected, then redone
    assert info["metrics"]["valid_action_rate"] >= 0.85
