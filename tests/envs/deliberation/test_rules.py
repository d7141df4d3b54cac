"""The deliberation protocol, from the paper's rules (Algorithm 1 and the settings' rules)."""

import numpy as np
import pytest

import mase
from mase.envs.deliberation import scoring
from mase.envs.deliberation import text as words


def menu_env(**kwargs):
    env = mase.make("mase/MenuDesign-v0", **kwargs)
    env.reset(seed=0)  # level_1_and_2 game_0000
    return env


def best_menu(env):
    game = env.unwrapped.game
    return "; ".join(game.dishes[i] for i in scoring.optimum(game).decision)


def say(env, *replies):
    """Each reply in turn, by whoever is to act."""
    for reply in replies:
        env.step(reply)


def test_accepting_the_partners_proposal_ends_the_talk_with_it():
    env = menu_env()
    say(env, f"Let us try this.\nProposal: {best_menu(env)}", "Accept")
    base = env.unwrapped
    assert all(base.terminations.values()) and base.ended_by == "agreed"
    m = base.metrics()
    assert m["nr"] == pytest.approx(100) and m["valid"] == 1 and m["agreed"] == 1
    assert m["rounds"] == 1 and m["proposals"] == 1
    assert base.decided_by == "home_agent"
    # one terminal reward, NR / 100, for both
    assert base.rewards == {"internet_agent": pytest.approx(1.0), "home_agent": pytest.approx(1.0)}


def test_there_is_nothing_to_accept_before_the_partner_proposes():
    env = menu_env()
    say(env, "Accept")
    reason = env.unwrapped.infos["internet_agent"]["invalid_action"]
    assert "no proposal of your partner's" in reason
    say(env, f"Proposal: {best_menu(env)}", "Accept")  # home_agent proposes; accepting its own
    info = env.unwrapped.infos["internet_agent"]
    assert "invalid_action" not in info or "yours" not in info["invalid_action"]
    assert env.unwrapped.ended_by == "agreed"


def test_accepting_ones_own_proposal_is_refused():
    env = menu_env()
    say(env, f"Proposal: {best_menu(env)}", "Hmm.", "Accept")
    reason = env.unwrapped.infos["internet_agent"]["invalid_action"]
    assert "yours is on the table" in reason and env.agents


def test_no_acceptance_by_the_round_limit_is_an_empty_menu():
    env = menu_env(round_limit=3)
    say(env, *[f"Proposal: {best_menu(env)}"] * 6)
    base = env.unwrapped
    assert all(base.terminations.values()) and base.ended_by == "round_limit"
    m = base.metrics()
    assert m["nr"] == 0 and m["valid"] == 0 and m["agreed"] == 0 and m["rounds"] == 3
    assert m["invalid_reason"] == "the menu is empty"


def test_a_proposal_naming_an_unknown_or_repeated_dish_stands_flagged_and_is_an_invalid_decision():
    env = menu_env()
    game = env.unwrapped.game
    best = [game.dishes[i] for i in scoring.optimum(game).decision]
    say(env, f"Proposal: {'; '.join(best)}; Unicorn Stew")
    base = env.unwrapped
    notice = base.notices["internet_agent"]
    assert "no dish is called 'Unicorn Stew'" in notice
    assert "Unicorn Stew" in base.observe_text("internet_agent")  # told to the proposer...
    assert "cannot be a valid decision" not in base.observe_text("home_agent")  # ...only
    say(env, "Accept")
    m = base.metrics()
    assert m["valid"] == 0 and m["nr"] == 0 and m["flagged_proposals"] == 1
    assert m["lenient_nr"] == pytest.approx(100)  # the authors' evaluator drops the name
    assert "Unicorn Stew" in m["invalid_reason"]
    env = menu_env()
    say(env, f"Proposal: {best[0]}; {best[0]}", "Accept")
    m = env.unwrapped.metrics()
    assert m["valid"] == 0 and "listed more than once" in m["invalid_reason"]


@pytest.mark.parametrize(
    "line",
    [
        "Proposal: {a}; {b}",
        "proposal: {a}, {b}",
        "**Proposal:** {A}; {B}",
        "- Propose: '{a}', '{b}'.",
        "PROPOSAL - {a} ; {b}",
        "Action selection: Proposal: {A}; {B}\nMessage to Team: those two, please.",
    ],
)
def test_proposals_are_read_without_regard_to_case_or_punctuation(line):
    env = menu_env()
    game = env.unwrapped.game
    a, b = game.dishes[7], game.dishes[11]
    say(env, "Thinking aloud first.\n" + line.format(a=a.lower(), b=b.lower(), A=a, B=b))
    assert env.unwrapped.current[1] == (a, b)


def test_accented_names_are_read_in_plain_ascii_and_the_views_write_them_so():
    env = mase.make("mase/MenuDesign-v0")
    for seed in range(60):
        env.reset(seed=seed)
        if "Crème Brûlée" in env.unwrapped.game.dishes:
            break
    text = env.unwrapped.observe_text(env.agent_selection)
    assert "Creme Brulee" in text and "Cr?me" not in text
    say(env, "Proposal: creme brulee")
    assert env.unwrapped.current[1] == ("Crème Brûlée",)


@pytest.mark.parametrize(
    "reply",
    [
        "Accept",
        "I accept your proposal.",
        "Decision: accept",
        "We accept this menu",
        "Action selection: Accept\nMessage to Team: deal.",
    ],
)
def test_acceptances_in_several_words(reply):
    env = menu_env()
    say(env, f"Proposal: {best_menu(env)}", f"Fine by me.\n{reply}")
    assert env.unwrapped.ended_by == "agreed"


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("Proposal: the best menu we can make", "no dish in 'the best menu"),
        ("Proposal: Naan\nAccept", "one move a turn"),
        ("Final: Naan", "menu design has no final decision"),
        ("Decision: maybe later", "is not a move"),
    ],
)
def test_unreadable_moves_are_invalid_actions_with_a_reason(reply, reason):
    env = menu_env()
    say(env, "Proposal: Naan", reply)
    assert reason in env.unwrapped.infos["home_agent"]["invalid_action"]
    assert env.unwrapped.current[0] == "internet_agent"  # nothing changed


def test_talk_without_a_move_line_changes_nothing_and_is_heard():
    env = menu_env()
    say(env, "I accept that we should talk first. Proposal: none")
    base = env.unwrapped
    assert base.current is None and base.invalid_actions == 0
    assert "I accept that we should talk first" in base.observe_text("home_agent")


def test_a_long_message_is_heard_cut_but_its_move_counts():
    env = menu_env(message_limit=200)
    say(env, "blah " * 200 + f"\nProposal: {best_menu(env)}")
    base = env.unwrapped
    heard = base.received_messages("home_agent")[-1].note
    assert len(heard) <= 200 and heard.endswith("[...]")
    assert base.current is not None and base.current[0] == "internet_agent"


def test_vector_moves_are_said_as_reply_lines():
    env = menu_env()
    game = env.unwrapped.game
    space = env.action_space("internet_agent")
    action = np.zeros(space.shape, dtype=np.int64)
    for i in scoring.optimum(game).decision:
        action[i] = 1
    action[-1] = 1  # propose
    env.step(action)
    assert env.unwrapped.dialogue[-1][2].startswith("Proposal: ")
    accept = np.zeros(space.shape, dtype=np.int64)
    accept[-1] = 2
    env.step(accept)
    assert env.unwrapped.metrics()["nr"] == pytest.approx(100)
    env = menu_env()
    empty_slot = np.zeros(space.shape, dtype=np.int64)
    empty_slot[len(game.dishes)] = 1  # a slot past this game's dishes
    empty_slot[-1] = 1
    env.step(empty_slot)
    assert "are empty in this game" in env.unwrapped.infos["internet_agent"]["invalid_action"]


def test_private_numbers_reach_the_partner_only_when_said():
    env = menu_env()
    base = env.unwrapped
    assert "Stock held by home_agent" not in base.observe_text("internet_agent")
    assert "Guest 2 values" not in base.observe_text("internet_agent")
    own = words.facts_text(base.turn_view("home_agent"))
    say(env, "Nothing to say yet.", f"Here are my numbers.\n{own}")
    text = base.observe_text("internet_agent")
    assert "Stock held by home_agent" in text and "Guest 2 values" in text
    tracker = base.knowledge()
    key = next(k for k in base.turn_view("home_agent") if k[0] == "stock")
    assert tracker.belief("internet_agent", key) is not None
    assert tracker.first_order("internet_agent", key, base.true_facts())


def test_the_full_observation_ablation_shows_everything_to_everyone():
    env = menu_env(full_observation=True)
    text = env.unwrapped.observe_text("internet_agent")
    assert "Stock held by home_agent" in text and "Guest 2 values" in text


# -- task allocation ------------------------------------------------------------------------


def allocation_env(**kwargs):
    env = mase.make("mase/TaskAllocation-v0", **kwargs)
    env.reset(seed=0)
    return env


def best_allocation(env, label="Proposal"):
    game = env.unwrapped.game
    pairs = tuple((game.tasks[t], env.unwrapped.seats[a])
                  for t, a in sorted(scoring.optimum(game).decision.items()))  # fmt: skip
    return words.move_text(game, words.Reply("final" if label == "Final" else "propose", pairs))


def test_only_the_leader_decides():
    env = allocation_env()
    say(env, best_allocation(env, "Final"))
    assert "only the leader decides" in env.unwrapped.infos["worker_0"]["invalid_action"]
    say(env, best_allocation(env), "Accept")  # worker_1 proposes, the leader accepts it
    base = env.unwrapped
    assert base.ended_by == "decided" and base.decided_by == "leader"
    assert base.metrics()["nr"] == pytest.approx(100)


def test_the_leaders_final_decision_ends_the_talk_at_once():
    env = allocation_env()
    say(env, "Hello.", "Hello.", best_allocation(env, "Final"))
    assert env.unwrapped.ended_by == "decided" and env.unwrapped.metrics()["rounds"] == 1


def test_after_the_round_limit_the_leaders_last_proposal_stands_else_worker_1s_else_worker_0s():
    game_tasks = allocation_env().unwrapped.game.tasks
    w0 = f"Proposal: {game_tasks[0]} -> worker_0"
    w1 = "Proposal: T2 -> agent_1"  # the authors' name for worker_1
    lead = "Proposal: T3 -> leader"
    for replies, expected in [
        ((w0, w1, lead), ((game_tasks[2], "leader"),)),
        ((w0, w1, "Talk."), ((game_tasks[1], "worker_1"),)),
        ((w0, "Talk.", "Talk."), ((game_tasks[0], "worker_0"),)),
    ]:
        env = allocation_env(round_limit=2)
        say(env, *replies, "Talk.", "Talk.", "Talk.")
        base = env.unwrapped
        assert base.ended_by == "round_limit" and base.decision == expected
        assert base.metrics()["agreed"] == 0


def test_allocation_pairs_read_by_number_name_and_the_authors_agent_names():
    env = allocation_env()
    game = env.unwrapped.game
    say(env, f"Proposal: t1 -> Worker_0, {game.tasks[1]} => agent_2; T3: worker_1")
    assert env.unwrapped.current[1] == (
        (game.tasks[0], "worker_0"), (game.tasks[1], "leader"), (game.tasks[2], "worker_1")
    )  # fmt: skip


def test_an_allocation_of_unknown_tasks_is_refused_with_the_form_to_use():
    env = allocation_env()
    say(env, "Proposal: everyone does everything")
    assert "no 'task -> agent' pair" in env.unwrapped.infos["worker_0"]["invalid_action"]


def test_allocation_vector_moves():
    env = allocation_env()
    game = env.unwrapped.game
    best = scoring.optimum(game).decision
    say(env, "Talk.", "Talk.")
    action = np.zeros(env.action_space("leader").shape, dtype=np.int64)
    for t, a in best.items():
        action[t] = a + 1
    action[-1] = 3  # final
    env.step(action)
    assert env.unwrapped.metrics()["nr"] == pytest.approx(100)


def test_views_hold_only_the_agents_own_private_numbers():
    env = allocation_env()
    base = env.unwrapped
    for seat in base.seats:
        text = base.observe_text(seat)
        for other in base.seats:
            said = f"Private resources of {other}:" in text
            assert said == (other == seat)
