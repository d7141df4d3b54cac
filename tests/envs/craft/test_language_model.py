"""The crafting world's offline model: LLM seats on it make the bookshelf as the scripted team
does, it reads the rules, its view and its own notes from the prompt alone, and a prompt it
cannot read gets a fallback that waits.

Teams play through the real LLM path: :class:`mase.agents.LLMAgent` and the ``openai`` client
against the model's server on loopback (``offline_server``, which loads the model the env
declares).
"""

from __future__ import annotations

import random

import pytest

import mase
from mase import protocol
from mase.agents import LLMAgent
from mase.envs.craft import language_model as lm
from mase.envs.craft.scripted import ScriptedCrafter, team_plan
from mase.envs.craft.text import action_text
from mase.llm import LLMConfig, offline_server
from mase.runner import run_episode
from mase.wrappers import MessageChannel

ENV_ID = "mase/Craft-v0"


@pytest.fixture(scope="module")
def server():
    with offline_server(ENV_ID) as running:
        yield running


def llm_seat(server, **options):
    return LLMAgent(LLMConfig(base_url=server.base_url, cache=False), **options)


def play(env, team, seed):
    """One episode: its metrics and what each turn did."""
    record = run_episode(env, team, seed=seed)
    return record["metrics"], [(t["agent"], t["outcome"]) for t in record["turns"]]


def scripted(env, seed):
    return play(env, {seat: ScriptedCrafter() for seat in env.possible_agents}, seed)


# -- teams through the LLM path ------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, seeds",
    [
        ({}, range(3)),
        ({"layout": "random"}, range(6)),
        ({"layout": "random", "see_teammates": False, "n_agents": 4}, range(2)),
        ({"recipes": "small", "layout": "random"}, range(2)),
    ],
)
def test_an_offline_model_team_makes_the_bookshelf_as_the_scripted_team_does(
    server, options, seeds
):
    """Every reply names a legal action, and the team takes the scripted team's every step."""
    env = MessageChannel(mase.make(ENV_ID, obs_mode="text", **options))
    for seed in seeds:
        metrics, turns = play(env, {seat: llm_seat(server) for seat in env.possible_agents}, seed)
        assert metrics["success"] and metrics["ended_by"] == "crafted", seed
        assert metrics["valid_action_rate"] == 1.0 and metrics["llm_valid_output_rate"] == 1.0
        assert metrics["llm_errors"] == 0
        bots, bot_turns = scripted(env, seed)
        assert metrics["makespan"] == bots["makespan"] and turns == bot_turns, seed


@pytest.mark.parametrize("seat", ["alpha", "bravo", "charlie"])
@pytest.mark.parametrize("layout", ["fixed", "random"])
def test_a_mixed_team_one_offline_model_seat_and_two_scripted_makes_it(server, seat, layout):
    """Alpha assembles (the plan every seat makes alike); Bravo and Charlie hand it parts."""
    env = mase.make(ENV_ID, obs_mode="text", layout=layout)
    for seed in range(2):
        team = {a: ScriptedCrafter() for a in env.possible_agents}
        team[seat] = llm_seat(server)
        metrics, _ = play(env, team, seed)
        assert metrics["success"] and metrics["valid_action_rate"] == 1.0, seed
        assert metrics["makespan"] == scripted(env, seed)[0]["makespan"]


def test_without_its_earlier_replies_it_still_makes_it_later(server):
    """With no window its tally holds only the latest gives: the team makes parts twice."""
    env = mase.make(ENV_ID, obs_mode="text")
    metrics, _ = play(env, {seat: llm_seat(server, window=0) for seat in env.possible_agents}, 0)
    assert metrics["success"] and metrics["valid_action_rate"] == 1.0
    assert metrics["makespan"] > scripted(env, 0)[0]["makespan"]


# -- what it reads ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{}, {"layout": "random"}, {"recipes": "small", "goal": "stone_pickaxe", "n_agents": 2}],
)
def test_the_rules_text_gives_back_the_map_the_book_and_the_scripted_plan(options):
    env = mase.make(ENV_ID, **options)
    for seed in range(3):
        env.reset(seed=seed)
        base = env.unwrapped
        rules = lm.read_rules(base.rules_text("bravo"))
        got, want = rules.layout, base.layout
        assert (got.places, got.neighbours, got.sources, got.stations) == (
            want.places,
            want.neighbours,
            want.sources,
            want.stations,
        )
        assert (got.agents, got.goal, got.book.items) == (want.agents, want.goal, want.book.items)
        assert dict(got.book.recipes) == dict(want.book.recipes)
        assert dict(got.book.tools) == dict(want.book.tools)
        assert rules.plan == team_plan(base.world)


@pytest.fixture(scope="module")
def base():
    env = mase.make(ENV_ID, obs_mode="text")
    env.reset(seed=0)
    return env.unwrapped


def chat(rules, *turns):
    """The chat an LLM seat sends: the rules, earlier (observation, reply) turns, the request."""
    *earlier, now = turns
    messages = [{"role": "system", "content": rules}]
    for seen, reply in earlier:
        messages += [{"role": "user", "content": seen}, {"role": "assistant", "content": reply}]
    messages.append({"role": "user", "content": f"{now}\n\n{protocol.ACTION_REQUEST}"})
    return messages


def seen(agent, where, carries, happened="", others="Alpha is at the forest.", rnd=2):
    """An observation as the env words one (the lines the model reads)."""
    since = f"Since your last turn:\n{happened}\n" if happened else ""
    return (
        f"You are {agent}. Round {rnd} of 50.\n{since}Now:\nThe goal is a bookshelf.\n"
        f"{agent} is at the {where}. {others}\n{agent} carries {carries}.\n"
    )


def chosen(reply):
    """The action part of a reply, as the env's parser is given it."""
    return protocol.split_reply(reply).choice.strip()


def action(base, agent, reply):
    """The legal action the env reads in a reply, in words."""
    parsed = base.read_action(agent, reply)
    assert parsed.action is not None, parsed.reason
    return action_text(base.layout, parsed.action)


@pytest.mark.parametrize(
    "agent, where, carries, items, then",
    [
        ("Bravo", "forest", "nothing", {}, "gather wood"),  # planks are part of its share
        ("Bravo", "forest", "1 wood", {"wood": 1}, "craft planks"),
        ("Charlie", "forest", "nothing", {}, "move to the village"),  # a book only: to the river
        ("Alpha", "workshop", "6 planks, 3 books", {"plank": 6, "book": 3}, "craft bookshelf"),
    ],
)
def test_its_move_from_a_hand_written_observation(agent, where, carries, items, then):
    """Each seat's next step of the plan: Alpha assembles, the others make parts."""
    env = mase.make(ENV_ID)
    env.reset(seed=0)
    base, seat = env.unwrapped, agent.lower()
    base.world.positions.update({"bravo": "forest", seat: where})
    base.world.inventories[seat].update(items)
    view = seen(agent, where, carries, others="Bravo is at the forest." if seat == "alpha" else "")
    reply = lm.respond(chat(base.rules_text(seat), view))
    assert chosen(reply) == then == action(base, seat, reply)  # and legal in that world
    assert reply.endswith(f"Message to Team: {agent} is at the {where}. {agent} carries {carries}.")


def test_it_reads_back_its_tally_of_gives_from_its_own_notes(base):
    """Bravo's part is 2 planks and a book: the notes say the planks went, the view the book."""
    rules = base.rules_text("bravo")
    at_workshop = "Alpha is at the workshop."
    before = seen("Bravo", "workshop", "2 planks, 1 book", others=at_workshop, rnd=9)
    notes = "Plan: Alpha assembles at the workshop; my part is 2 planks and 1 book. "
    earlier = (before, f"{notes}Handed to Alpha so far: nothing.\nAction selection: give ...")
    earlier_2 = (before, f"{notes}Handed to Alpha so far: 2 planks.\nAction selection: give ...")
    gave = "- Your last action: you gave 1 book to Alpha. Bravo has no books. Alpha has 1 book."
    now = seen("Bravo", "workshop", "nothing", gave, others=at_workshop, rnd=11)
    reply = lm.respond(chat(rules, earlier, earlier_2, now))
    assert "Handed to Alpha so far: 2 planks, 1 book." in reply
    assert chosen(reply) == "wait"
    alone = lm.respond(chat(rules, now))  # without its notes it knows only of the book
    assert "Handed to Alpha so far: 1 book." in alone
    assert chosen(alone) == "move to the forest"


# -- prompts it cannot read ------------------------------------------------------------------------

FIXED_PATHS = (
    "village-forest, village-river, village-meadow, village-workshop, forest-mine, "
    "forest-workshop, river-meadow, mine-workshop"
)


@pytest.mark.parametrize(
    "old, new",
    [
        ("You are Bravo, one of 3 agents", "You are Bravo, a member of a team of 3"),
        ("planks: 1 wood -> 4 planks", "planks: one wood makes four planks"),
        ("Wood is at the forest.", "Trees grow in the forest."),
        (FIXED_PATHS, "village-forest, river-meadow"),  # a map in pieces
        ("(Alpha, Bravo, Charlie)", "(Alpha, Bravo, Zed)"),
        ("Places: village, ", "Places: "),  # nobody's start
        ("bookshelf (at a workbench): 6 planks", "bookshelf (at a workbench): 6 bookshelves"),
    ],
)
def test_rules_it_cannot_read_get_the_fallback_that_waits(base, old, new):
    rules = base.rules_text("bravo")
    assert old in rules
    reply = lm.respond(chat(rules.replace(old, new), seen("Bravo", "forest", "nothing")))
    assert reply == lm.UNREADABLE_RULES
    assert action(base, "bravo", reply) == "wait"


@pytest.mark.parametrize(
    "observation",
    [
        "",
        "Bravo stands in the forest with empty hands.",
        seen("Bravo", "forest", "nothing").replace("Bravo carries nothing.", ""),
        seen("Bravo", "forest", "nothing").replace("Now:\n", ""),
        seen("Bravo", "forest", "nothing").replace("Bravo is at the forest.", ""),
    ],
)
def test_an_observation_it_cannot_read_gets_the_fallback_that_waits(base, observation):
    reply = lm.respond(chat(base.rules_text("bravo"), observation))
    assert reply == lm.NO_OBSERVATION.format(name="Bravo")
    assert action(base, "bravo", reply) == "wait"


def test_no_rules_at_all_get_the_fallback(base):
    reply = lm.respond([{"role": "user", "content": seen("Bravo", "forest", "nothing")}])
    assert reply == lm.UNREADABLE_RULES


def test_perturbed_prompts_get_a_reply_in_the_format_never_a_crash(base):
    """Seeded cuts, insertions and replacements in the rules and the observation."""
    rng = random.Random(0)
    rules, view = base.rules_text("bravo"), seen("Bravo", "forest", "1 wood")
    pieces = ["Bravo", "forest", "3", "planks", "->", "; ", ", ", ". ", "\n", "Now:\n", "-"]
    for _ in range(300):
        texts = [rules, view]
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(2)
            text = texts[k]
            i = rng.randrange(len(text) + 1)
            texts[k] = rng.choice(
                [
                    text[:i],
                    text[:i] + text[i + rng.randrange(1, 40) :],
                    text[:i] + rng.choice(pieces) + text[i:],
                    text[:i] + text[i:].upper(),
                ]
            )
        reply = lm.respond(chat(*texts))
        assert "\nAction selection: " in reply
        assert base.read_action("bravo", reply) is not None
