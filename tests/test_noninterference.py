"""Non-interference, for every registered task: a seat learns nothing it was not shown.

Twin episodes differ only in something seat X cannot know; until X is in the audience of an
event that differs between them, X must be given byte-identical observations (text and
vector), action masks, rewards, endings, infos (its Theory-of-Mind questions included; the
episode's metrics, handed over with the last step for the records, aside), prompts (what an
LLM seat would send for its move and for each question), its own replay page (``mase replay
--seat X``) and, after every move, the state its web page is sent (``mase play --web``,
:class:`mase.web.SeatViews`); and until an event every seat saw differs, the default replay page
(:mod:`mase.replay`, the common view) must be the same. Parametrized over
:data:`test_task_contract.TASKS`, so a new task inherits it, and played through every wrapper
that adds to what a seat is shown (``MessageChannel``, ``BeliefState`` where the task writes
beliefs, ``ToMProbe`` where it has probes), so a new wrapper in :func:`stack` inherits it too.

The twins, made the same way for every task: seeded random seats play episode A; in episode B
the seat to move at step T takes another move (another legal index, or other words), and every
other seat plays on with its own policy. A task whose hidden state can be dealt by reset
options (``TaskEnv.hidden_twins``) also gets twins that differ only in that (:data:`HIDDEN_TWINS`).
"""

import json

import numpy as np
import pytest
from test_task_contract import TASKS, task_class

import mase
from mase.agents import LLMAgent, RandomPolicy
from mase.llm import LLMConfig
from mase.replay import replay_html
from mase.replay.views import COMMON, page_record
from mase.task import TaskEnv
from mase.web import SeatViews
from mase.wrappers import BeliefState, MessageChannel, Recorder, ToMProbe
from mase.wrappers.recorder import event_dict

#: Twin episodes per task: seeds x deviation steps.
SEEDS = (0, 1)
STEPS = (0, 3, 8)
#: Moves played per episode at most (the views are compared until the difference shows).
MOVES = 120


def stack(env_id: str):
    """The task in every wrapper that adds to what a seat is shown, recorded."""
    env = mase.make(env_id, obs_mode="both")
    env = MessageChannel(env)
    if task_class(env_id).belief_template is not TaskEnv.belief_template:
        env = BeliefState(env)
    if getattr(task_class(env_id), "tom_probes", None):
        env = ToMProbe(env)
    return Recorder(env)


def _other(action, observation, rng):
    """A different move than ``action``: another legal index, or other words."""
    if isinstance(action, str):
        return action + " Or not."
    if isinstance(action, np.ndarray):  # a vector of choices: change one of them
        other = action.copy()
        other[0] = 1 - other[0] if other[0] in (0, 1) else 0
        return other
    if isinstance(action, int | np.integer):
        mask = observation.get("action_mask") if isinstance(observation, dict) else None
        legal = [int(i) for i in np.flatnonzero(mask)] if mask is not None else []
        others = [i for i in legal if i != int(action)]
        return int(rng.choice(others)) if others else None
    return None


def _seat_info(info):
    """The info a seat acts on: without the episode's result, handed over once it has ended.

    ``info["metrics"]`` (the team's score, invalid actions, how it ended) comes with the last
    step, for the runner's records; no move can depend on it any more.
    """
    return {k: v for k, v in info.items() if k != "metrics"}


def _prompts(agent: LLMAgent, text: str, questions) -> str:
    """What an LLM seat would send: its move's prompt and each question's."""
    messages = [agent._action_prompt(text)]
    messages += [agent._answer_prompt(q["question"]) for q in questions or ()]
    return json.dumps(messages, sort_keys=True)


def play(env_id, seed, deviate_at=None, options=None):
    """One episode: each seat's views in order, the event log, and the recorded episode.

    Returns ``(views, log, record, deviated)``: ``views[seat]["turns"]`` is a list of
    ``(visible events so far, view)`` at each of its turns, ``views[seat]["web"]`` the same
    with its web page's state after every move.
    """
    env = stack(env_id)
    env.reset(seed=seed, options=options)
    base = env.unwrapped
    seats = list(env.possible_agents)
    team = {s: RandomPolicy() for s in seats}
    readers = {s: LLMAgent(LLMConfig(base_url="http://127.0.0.1:9/v1", api_key="-")) for s in seats}
    for i, s in enumerate(seats):
        team[s].reset(s, env, seed=1000 * seed + i)
        readers[s].reset(s, env)
    views = {s: [] for s in seats}
    web = {s: [] for s in seats}  # after every move: (what the seat has seen, its page's state)
    pages = SeatViews()
    turns, moves, deviated, cut = [], 0, False, False
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter(4 * MOVES):
        obs, reward, terminated, truncated, info = env.last()
        base.knowledge()  # logs what the task says the agent sees at the start of its turn
        seen = tuple(
            json.dumps(event_dict(e), sort_keys=True, default=str)
            for e in base.event_log
            if agent in e.audience
        )
        text = obs.get("text", "")
        view = (
            text,
            np.asarray(obs.get("observation", ())).tobytes(),
            np.asarray(obs.get("action_mask", ())).tobytes(),
            float(reward),
            bool(terminated),
            bool(truncated),
            json.dumps(_seat_info(info), sort_keys=True, default=str),
            _prompts(readers[agent], text, info.get("tom_questions")),
        )
        views[agent].append((seen, view))
        for s in seats:
            _web_view(web[s], base, env, s, pages)
        if terminated or truncated:
            env.step(None)
            continue
        if moves >= MOVES:
            cut = True
            break
        action = team[agent].act(obs, info)
        if moves == deviate_at:
            other = _other(action, obs, rng)
            deviated = other is not None
            action = other if deviated else action
        recorded = action.tolist() if isinstance(action, np.ndarray) else action
        turn = {"round": base.round, "agent": agent, "action": recorded, "observation": text}
        env.step(action)
        turns.append(turn)
        moves += 1
    views = {s: {"turns": views[s], "web": web[s]} for s in seats}
    record = {"episode": 0, "turns": turns, "cut": cut, **env.episode_record()}
    record["frames"] = record["frames"][: len(turns) + 1]
    return views, base.event_log, record, deviated


def _web_view(views, base, env, seat, pages):
    """The state of ``seat``'s web page now, with what the seat has seen so far."""
    seen = tuple(
        json.dumps(event_dict(e), sort_keys=True, default=str)
        for e in base.event_log
        if seat in e.audience
    )
    views.append((seen, json.dumps(pages.state(env, seat), sort_keys=True)))


def _visible(record, watchers):
    return [e for e in record["events"] if set(watchers) <= set(e["audience"])]


def check_page(env_id, rec_a, rec_b, seats, view):
    """The replay page of ``view`` is the same until an event of that view differs."""
    watchers = seats if view == COMMON else [view]
    seen_a, seen_b = _visible(rec_a, watchers), _visible(rec_b, watchers)
    same = next(
        (i for i, (x, y) in enumerate(zip(seen_a, seen_b, strict=False)) if x != y),
        min(len(seen_a), len(seen_b)),
    )
    page_a, page_b = page_record(rec_a, seats, view), page_record(rec_b, seats, view)
    ends = [rec["frames"][-1]["round"] for rec in (rec_a, rec_b)] + [rec_a["cut"], rec_b["cut"]]
    if ends[0] != ends[1] or True in ends[2:]:  # the end, which every seat sees, differs
        page_a["frames"], page_b["frames"] = page_a["frames"][:-1], page_b["frames"][:-1]
    frames = [
        (fa, fb)
        for fa, fb in zip(page_a["frames"], page_b["frames"], strict=False)
        if fa["events"] <= same and fb["events"] <= same
    ]
    for k, (fa, fb) in enumerate(frames):
        assert fa == fb, f"{env_id}: the {view} page's step {k} shows a secret"
        if k:
            assert page_a["turns"][k - 1] == page_b["turns"][k - 1], f"{env_id}: {view}, move {k}"
    if view == COMMON and rec_a["events"] == rec_b["events"] and ends[0] == ends[1]:
        config = {"env_id": env_id, "team": "random"}
        html_a = replay_html(rec_a, config, seats=seats)
        assert html_a == replay_html(rec_b, config, seats=seats)
    return len(frames)


def check_twins(env_id, a, b, skip=()):
    """Every seat not in ``skip`` sees the same until the difference is shown to it."""
    (views_a, _, rec_a, _), (views_b, _, rec_b, _) = a, b
    seats = list(views_a)
    compared = 0
    for seat in seats:
        if seat in skip:
            continue
        for kind in ("turns", "web"):
            pairs = zip(views_a[seat][kind], views_b[seat][kind], strict=False)
            for (seen_a, view_a), (seen_b, view_b) in pairs:
                if seen_a != seen_b:
                    break  # the difference is shown to it now
                assert view_a == view_b, f"{env_id}: {seat}'s {kind} show what it did not see"
                compared += 1
    # the default page, and each seat's page of its own view
    for view in [COMMON, *(seat for seat in seats if seat not in skip)]:
        compared += check_page(env_id, rec_a, rec_b, seats, view)
    return compared


@pytest.mark.parametrize("env_id", TASKS)
def test_another_seats_unseen_move_changes_nothing_a_seat_is_shown(env_id):
    compared = twins = 0
    for seed in SEEDS:
        a = play(env_id, seed)
        for step in STEPS:
            b = play(env_id, seed, deviate_at=step)
            if not b[3]:
                continue  # no other move there
            twins += 1
            mover = b[2]["turns"][step]["agent"]
            compared += check_twins(env_id, a, b, skip=(mover,))
    assert twins >= 2, f"{env_id}: only {twins} twin episodes"
    assert compared > 0


#: The tasks whose hidden state reset options can deal (``TaskEnv.hidden_twins``).
HIDDEN_TWINS = [i for i in TASKS if task_class(i).hidden_twins is not TaskEnv.hidden_twins]


def test_a_task_that_deals_hidden_roles_declares_its_twins():
    assert "mase/Avalon-v0" in HIDDEN_TWINS


@pytest.mark.parametrize("env_id", HIDDEN_TWINS)
def test_hidden_state_a_seat_was_not_shown_changes_nothing_it_is_shown(env_id):
    compared = 0
    base = mase.make(env_id).unwrapped
    seats = list(base.possible_agents)
    for seed in SEEDS:
        for blind, options_a, options_b in base.hidden_twins(seed):
            assert options_a != options_b
            a = play(env_id, seed, options=options_a)
            b = play(env_id, seed, options=options_b)
            compared += check_twins(env_id, a, b, skip=set(seats) - {blind})
    assert compared > 0
