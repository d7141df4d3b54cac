"""LLMAgent: prompts, retries, counting, belief mode and errors, through the real ``openai``
client against the offline server on loopback."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from golden.golden import unspent

import mase
from mase import protocol
from mase.agents import make_policy, policy_names
from mase.agents.llm import LLMAgent
from mase.envs.search_rescue.env import SearchRescueEnv
from mase.envs.search_rescue.language_model import respond
from mase.llm import ChatClient, Faults, LLMConfig, LLMUnavailable, OfflineServer
from mase.wrappers import MessageChannel

ENV = "mase/SearchRescue-v0"
GARBAGE = "I think we should wait and see."


class Recording:
    """A model that records every request it gets and answers with ``reply``."""

    def __init__(self, reply=respond):
        self.reply = reply
        self.requests = []
        self._lock = threading.Lock()

    def __call__(self, messages):
        with self._lock:
            self.requests.append(messages)
        return self.reply(messages)


def make_env(**kwargs):
    return MessageChannel(mase.make("mase/SearchRescue-v0", **kwargs))


def play(env, team, seed, turns=None):
    """One episode; returns the env's metrics. ``turns`` collects (agent, observation text)."""
    env.reset(seed=seed)
    for agent, policy in team.items():
        policy.reset(agent, env)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if turns is not None:
            turns.append((agent, obs["text"]))
        env.step(team[agent].act(obs, info))
    return env.unwrapped.metrics()


@pytest.fixture(scope="module")
def model():
    recording = Recording()
    with OfflineServer(recording) as server:
        recording.client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        yield recording


def team_of(client, **kwargs):
    return {a: LLMAgent(client=client, **kwargs) for a in ("alpha", "bravo", "charlie")}


# -- whole episodes -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_llm_team_with_full_history_defuses_everything(model, seed):
    team = team_of(model.client, window=30)
    metrics = play(make_env(), team, seed)
    assert (metrics["score"], metrics["ended_by"]) == (90, "defused")
    for agent in team.values():
        m = agent.episode_record()["metrics"]
        assert m["llm_outputs"] == m["llm_valid_outputs"] == m["llm_calls"] == metrics["rounds"]
        assert m["prompt_tokens"] > 0 and m["completion_tokens"] > 0 and m["latency_s"] > 0
        assert m["cost_usd"] == 0.0 and m["llm_errors"] == 0


def test_window_of_two_rounds_completes_an_episode(model):
    team = team_of(model.client, window=2)
    metrics = play(make_env(), team, seed=3)
    assert metrics["ended_by"] in ("defused", "exploded", "round_limit", "deadlock")
    outputs = sum(a.episode_record()["metrics"]["llm_outputs"] for a in team.values())
    assert outputs == metrics["turns"] == 3 * metrics["rounds"]


def test_prompt_holds_rules_the_last_window_turns_and_the_observation(model):
    env, window = make_env(max_cycles=6), 2
    team = team_of(model.client, window=window)
    seen = []
    model.requests.clear()
    play(env, team, seed=0, turns=seen)
    alpha_obs = [text for agent, text in seen if agent == "alpha"]
    calls = team["alpha"].episode_record()["calls"]
    assert len(calls) == len(alpha_obs) >= 4
    replies = [c["reply"] for c in calls]
    for turn, call in enumerate(calls):
        history = []
        for past in range(max(0, turn - window), turn):
            history.append({"role": "user", "content": alpha_obs[past]})
            history.append({"role": "assistant", "content": replies[past]})
        expected = [
            {"role": "system", "content": env.unwrapped.rules_text("alpha")},
            *history,
            {"role": "user", "content": alpha_obs[turn] + "\n\n" + protocol.ACTION_REQUEST},
        ]
        assert call["messages"] == expected
        assert (call["turn"], call["purpose"], call["error"]) == (turn + 1, "action", None)
        assert call["messages"] in model.requests  # what the model saw, word for word


def test_observation_text_comes_from_the_env_when_obs_has_none(model):
    env = make_env(obs_mode="vector")
    env.reset(seed=0)
    agent = LLMAgent(client=model.client)
    agent.reset("alpha", env)
    obs = env.observe("alpha")
    assert "text" not in obs
    agent.act(obs, {})
    prompt = agent.episode_record()["calls"][0]["messages"][-1]["content"]
    assert prompt == env.unwrapped.observe_text("alpha") + "\n\n" + protocol.ACTION_REQUEST


# -- invalid replies and retries ------------------------------------------------------------------


def garbage_first(messages):
    if messages[-1]["content"].startswith("Your reply could not be carried out"):
        return respond(messages[:-2])
    return GARBAGE


def test_invalid_reply_gets_the_envs_feedback_and_a_counted_retry():
    env = make_env(max_cycles=3, witness=True)  # every cut seen: no cut on an outdated sequence
    with OfflineServer(garbage_first) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        team = team_of(client)
        metrics = play(env, team, seed=0)
    reason = env.unwrapped.read_action("alpha", GARBAGE).reason
    assert reason
    record = team["alpha"].episode_record()
    calls = record["calls"]
    assert [c["purpose"] for c in calls] == ["action", "retry"] * metrics["rounds"]
    first, retry = calls[0], calls[1]
    assert first["reply"] == GARBAGE and first["turn"] == retry["turn"] == 1
    assert retry["messages"] == [
        *first["messages"],
        {"role": "assistant", "content": GARBAGE},
        {"role": "user", "content": protocol.feedback(reason)},
    ]
    m = record["metrics"]
    assert m["llm_outputs"] == 2 * metrics["rounds"] and m["llm_valid_outputs"] == metrics["rounds"]
    assert metrics["valid_action_rate"] == 1.0  # the env only ever got the valid retries
    # the history keeps each turn's final reply, not the rejected one
    assert calls[2]["messages"][2] == {"role": "assistant", "content": retry["reply"]}


@pytest.mark.parametrize("retries", [0, 2])
def test_valid_outputs_count_every_reply(retries):
    env = make_env(max_cycles=2)
    with OfflineServer(lambda messages: GARBAGE) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        team = team_of(client, retries=retries)
        metrics = play(env, team, seed=0)
    m = team["bravo"].episode_record()["metrics"]
    assert m["llm_outputs"] == (retries + 1) * metrics["rounds"] == m["llm_calls"]
    assert m["llm_valid_outputs"] == 0
    assert metrics["valid_action_rate"] == 0.0


# -- errors --------------------------------------------------------------------------------------


def test_failed_calls_count_as_errors_and_max_errors_gives_up():
    env = make_env()
    env.reset(seed=0)
    faults = Faults(error_rate_500=1.0, retry_after=0.001)
    with OfflineServer(respond, faults=faults) as server:
        config = LLMConfig(base_url=server.base_url, cache=False, max_retries=0, max_errors=3)
        agent = LLMAgent(config, retries=1)
        agent.reset("alpha", env)
        assert agent.act(env.observe("alpha"), {}) == ""  # two failed calls, nothing to play
        with pytest.raises(LLMUnavailable, match="3 model calls in a row.*InternalServerError"):
            agent.act(env.observe("alpha"), {})
    record = agent.episode_record()
    calls = record["calls"]
    assert [c["purpose"] for c in calls] == ["action", "retry", "action"]
    assert calls[1]["messages"] == calls[0]["messages"]  # no reply to correct: asked again
    assert all(c["error"].startswith("InternalServerError") for c in calls)
    assert record["metrics"]["llm_errors"] == 3 and record["metrics"]["llm_valid_outputs"] == 0


def test_an_error_then_a_reply_resets_the_error_count():
    failing = {"n": 0}

    def every_other(messages):
        failing["n"] += 1
        if failing["n"] % 2:
            raise RuntimeError("flaky model")  # the server answers 500
        return respond(messages)

    env = make_env(max_cycles=3)
    with OfflineServer(every_other, faults=Faults(retry_after=0.001)) as server:
        config = LLMConfig(base_url=server.base_url, cache=False, max_retries=0, max_errors=2)
        team = {a: LLMAgent(config, retries=1) for a in env.possible_agents}
        metrics = play(env, team, seed=0)
    m = team["charlie"].episode_record()["metrics"]
    assert m["llm_errors"] == metrics["rounds"] == m["llm_valid_outputs"]
    assert m["llm_outputs"] == 2 * metrics["rounds"]


def test_history_replies_are_cut_but_the_env_gets_the_whole_reply():
    env = make_env(max_cycles=3)
    with OfflineServer(respond, faults=Faults(long_rate=1.0, long_chars=3000)) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        team = team_of(client, max_reply_chars=120)
        play(env, team, seed=0)
        env.reset(seed=0)
        alpha = team["alpha"].spawn()
        alpha.reset("alpha", env)
        assert len(alpha.act(env.observe("alpha"), {})) == 3000
    calls = team["alpha"].episode_record()["calls"]
    assert (len(calls[0]["reply"]), calls[0]["reply_truncated"]) == (120, 3000)
    history = [m for c in calls for m in c["messages"] if m["role"] == "assistant"]
    assert history and all(len(m["content"]) == 120 for m in history)
    assert history[0]["content"] == calls[0]["reply"]


def test_a_runaway_reply_is_cut_in_the_retry_prompt_and_the_record():
    env = make_env()
    env.reset(seed=0)
    model = Recording(garbage_first)
    with OfflineServer(model, faults=Faults(long_rate=1.0, long_chars=120_000)) as server:
        agent = LLMAgent(LLMConfig(base_url=server.base_url, cache=False))
        agent.reset("alpha", env)
        action = agent.act(env.observe("alpha"), {})
        agent.answer("Does Bravo know where bomb 5 is?")
    assert len(action) == 120_000  # the env reads the whole (valid) retry
    record = agent.episode_record()
    first, retry, answer = record["calls"]
    assert (first["purpose"], retry["purpose"], answer["purpose"]) == ("action", "retry", "answer")
    for call in (first, retry, answer):
        assert (len(call["reply"]), call["reply_truncated"]) == (2000, 120_000)
    assert first["reply"].startswith(GARBAGE)
    # the retry shows the model the first 2000 characters of its reply, no more
    assert retry["messages"][-2] == {"role": "assistant", "content": first["reply"]}
    grown = sum(len(m["content"]) for m in retry["messages"]) - sum(
        len(m["content"]) for m in first["messages"]
    )
    assert grown < 2000 + 400
    assert model.requests[1] == retry["messages"]  # what the model was sent
    assert len(json.dumps(record)) < 30_000
    assert record["metrics"]["llm_valid_outputs"] == 1


def test_a_belief_that_keeps_failing_to_be_rewritten_stays_bounded(template):
    def no_rewrites(messages):
        if messages[-1]["content"].endswith(protocol.BELIEF_REQUEST):
            return ""
        return respond(messages)

    env = make_env(max_cycles=6)
    with OfflineServer(no_rewrites) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        team = team_of(client, belief=True, max_reply_chars=40)
        seen = []
        metrics = play(env, team, seed=0, turns=seen)
    alpha = team["alpha"]
    last_seen = [text for agent, text in seen if agent == "alpha"][-1]
    assert metrics["rounds"] >= 3  # every turn adds an observation to the belief
    assert alpha.current_belief == f"\n\n{protocol.NEW_OBSERVATION}\n{last_seen}"[-160:]
    head, tail = f"{protocol.BELIEF_HEADER}\n", f"\n\n{protocol.ACTION_REQUEST}"
    for call in alpha.episode_record()["calls"]:
        if call["purpose"] == "action":  # the belief each action was asked on: at most 4 * 40
            prompt = call["messages"][-1]["content"]
            assert prompt.startswith(head) and prompt.endswith(tail)
            assert len(prompt) - len(head) - len(tail) <= 160


def surrogate_model(messages):
    """Replies holding lone surrogates: an invalid one, then a valid one whose message has one."""
    if messages[-1]["content"].startswith("Your reply could not be carried out"):
        reply = respond(messages[:-2])
        return reply.replace("Message to Team: ", "Message to Team: \udc80 ", 1)
    return "Action selection: \ud800?"


@pytest.mark.parametrize("cache", [False, True])
def test_lone_surrogates_in_replies_are_just_outputs(tmp_path, cache):
    from mase.runner import evaluate

    llm = {"cache": tmp_path / "cache.sqlite" if cache else False}
    with OfflineServer(surrogate_model) as server:
        config = LLMConfig(base_url=server.base_url, **llm)
        summaries = [
            evaluate(ENV, "llm", episodes=2, llm=config, record=True, out=tmp_path / run)
            for run in ("first", "again")
        ]
    assert [s["failed"] for s in summaries] == [0, 0]
    text = (tmp_path / "first" / "episodes.jsonl").read_text()
    records = [json.loads(line) for line in text.splitlines()]
    assert len(records) == 2
    for record in records:
        json.dumps(record, ensure_ascii=False).encode()  # nothing UTF-8 cannot write
        assert record["metrics"]["ended_by"] in ("defused", "round_limit", "deadlock")
        assert record["metrics"]["llm_valid_output_rate"] == 0.5  # every first try is invalid
        calls = record["seats"]["bravo"]["calls"]
        assert [c["purpose"] for c in calls[:2]] == ["action", "retry"]
        assert calls[0]["reply"] == "Action selection: \ufffd?"
        assert calls[1]["messages"][-2] == {"role": "assistant", "content": calls[0]["reply"]}
        assert "Message to Team: \ufffd " in calls[1]["reply"]
        # the teammates were told the message, U+FFFD and all
        prompts = "\n".join(m["content"] for c in calls[2:] for m in c["messages"])
        assert "\ufffd" in prompts.split(protocol.ACTION_REQUEST)[-2]
    if cache:  # the rerun came from the cache: the same records
        again = [
            json.loads(x) for x in (tmp_path / "again" / "episodes.jsonl").read_text().splitlines()
        ]
        assert unspent(again) == unspent([json.loads(x) for x in text.splitlines()])


# -- probes, belief mode -------------------------------------------------------------------------


def test_answer_prompt_and_counting(model):
    env = make_env(max_cycles=2)
    team = team_of(model.client, window=1)
    play(env, team, seed=0)
    alpha = team["alpha"]
    before = alpha.episode_record()
    question = "Does Bravo know the sequence of bomb 5?"
    alpha.answer(question)
    record = alpha.episode_record()
    call = record["calls"][-1]
    assert (call["purpose"], call["turn"]) == ("answer", 2)
    last = before["calls"][-1]
    assert call["messages"] == [
        {"role": "system", "content": env.unwrapped.rules_text("alpha")},
        {"role": "user", "content": last["messages"][-1]["content"].split("\n\n")[0]},
        {"role": "assistant", "content": last["reply"]},
        {
            "role": "user",
            "content": "Current observation:\n"
            + env.unwrapped.observe_text("alpha")
            + f"\n\n{protocol.QUESTION_HEADER}\n{question}\n{protocol.QUESTION_REQUEST}",
        },
    ]
    m, m0 = record["metrics"], before["metrics"]
    assert m["probe_calls"] == 1 and m["llm_calls"] == m0["llm_calls"] + 1
    assert m["llm_outputs"] == m0["llm_outputs"]


def belief_model(messages):
    last = messages[-1]["content"]
    if last.endswith(protocol.BELIEF_REQUEST):
        n = sum(m["role"] == "user" for m in messages)
        return "" if "Round 2 of" in last else f"Belief state, rewrite {n}: {len(last)}"
    if last.endswith(protocol.ACTION_REQUEST):
        return "Action selection: inspect bomb\nMessage to Team: nothing new"
    return "Yes, I was there."


@pytest.fixture
def template(monkeypatch):
    # the task's real template may or may not be in yet: the agent only needs some text
    monkeypatch.setattr(
        SearchRescueEnv, "belief_template", lambda self, agent: f"Belief state of {agent}."
    )


def test_belief_mode_rewrites_the_belief_and_acts_on_it_alone(template):
    env = make_env(max_cycles=3)
    with OfflineServer(belief_model) as server:
        client = ChatClient(LLMConfig(base_url=server.base_url, cache=False))
        team = team_of(client, belief=True, window=5)
        seen = []
        metrics = play(env, team, seed=0, turns=seen)
        answer = team["alpha"].answer("Does Bravo know what room 3 holds?")
    alpha_obs = [text for agent, text in seen if agent == "alpha"]
    rules = env.unwrapped.rules_text("alpha")
    record = team["alpha"].episode_record()
    calls = record["calls"]
    assert [c["purpose"] for c in calls] == ["belief", "action"] * metrics["rounds"] + ["answer"]
    belief = "Belief state of alpha."
    for turn in range(metrics["rounds"]):
        rewrite, action = calls[2 * turn], calls[2 * turn + 1]
        assert rewrite["messages"] == [
            {"role": "system", "content": rules},
            {
                "role": "user",
                "content": f"{protocol.BELIEF_HEADER}\n{belief}\n\nNew observation:\n"
                f"{alpha_obs[turn]}\n\n{protocol.BELIEF_REQUEST}",
            },
        ]
        if rewrite["reply"]:
            belief = rewrite["reply"]
        else:  # an empty rewrite keeps the old belief, with the observation added
            belief = f"{belief}\n\nNew observation:\n{alpha_obs[turn]}"
        assert action["messages"] == [
            {"role": "system", "content": rules},
            {
                "role": "user",
                "content": f"{protocol.BELIEF_HEADER}\n{belief}\n\n{protocol.ACTION_REQUEST}",
            },
        ]
    assert any(not c["reply"] for c in calls if c["purpose"] == "belief")
    question = calls[-1]["messages"]
    assert len(question) == 2  # no raw history in belief mode
    assert question[1]["content"].startswith(
        f"{protocol.BELIEF_HEADER}\n{belief}\n\nCurrent observation:\n"
    )
    assert answer == "Yes, I was there."
    m = record["metrics"]
    assert (m["belief_calls"], m["llm_outputs"], m["probe_calls"]) == (3, 3, 1)


def test_belief_goes_to_the_belief_state_wrapper(model):
    from mase.wrappers.belief_state import BeliefState

    env = BeliefState(make_env(max_cycles=2))
    team = team_of(model.client, belief=True)
    play(env, team, seed=0)
    calls = team["alpha"].episode_record()["calls"]
    assert calls[0]["messages"][1]["content"].startswith(
        f"{protocol.BELIEF_HEADER}\n{env.unwrapped.belief_template('alpha')}\n\nNew observation:"
    )
    # every turn handed its belief to the wrapper, which scored it
    assert env.episode_record()["metrics"]["beliefs_scored"] == 6
    env.reset(seed=0)
    alpha = team["alpha"]
    alpha.reset("alpha", env)
    action = alpha.act(env.observe("alpha"), {})
    assert set(action) == {"action", "belief"}
    assert action["belief"] == calls[0]["reply"] and action["action"] == calls[1]["reply"]
    plain = LLMAgent(client=model.client, belief=True)
    plain_env = make_env()  # no wrapper: the reply text alone
    plain_env.reset(seed=0)
    plain.reset("alpha", plain_env)
    assert plain.act(plain_env.observe("alpha"), {}) == action["action"]


# -- concurrency and construction ----------------------------------------------------------------


def test_spawn_shares_the_client_not_the_episode(model):
    parent = LLMAgent(client=model.client, belief=False, window=5, retries=2, max_reply_chars=50)
    child = parent.spawn()
    assert child.client is parent.client and child.config == parent.config
    assert (child.window, child.retries, child.max_reply_chars, child.belief) == (5, 2, 50, False)
    env = make_env()
    env.reset(seed=0)
    child.reset("alpha", env)
    child.act(env.observe("alpha"), {})
    assert child.episode_record()["metrics"]["llm_calls"] == 1
    assert parent.episode_record()["metrics"]["llm_calls"] == 0


def test_async_play_matches_sync_play(model):
    sync_team = team_of(model.client)
    play(make_env(max_cycles=3), sync_team, seed=1)

    async def play_async():
        env = make_env(max_cycles=3)
        team = team_of(model.client)
        env.reset(seed=1)
        for agent, policy in team.items():
            policy.reset(agent, env)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(await team[agent].aact(obs, info))
        return team, await team["alpha"].aanswer("Is bomb 5 in room 3?")

    async_team, answer = asyncio.run(play_async())
    for agent in sync_team:
        sync_calls = sync_team[agent].episode_record()["calls"]
        async_calls = async_team[agent].episode_record()["calls"]
        assert [c["reply"] for c in async_calls[: len(sync_calls)]] == [
            c["reply"] for c in sync_calls
        ]
        assert [c["messages"] for c in async_calls[: len(sync_calls)]] == [
            c["messages"] for c in sync_calls
        ]
    assert isinstance(answer, str) and answer


def test_cached_rerun_replays_identical_records_with_no_requests(tmp_path):
    config_args = {"cache": tmp_path / "cache.sqlite"}
    records = []
    with OfflineServer(respond) as server:
        for _ in range(2):
            client = ChatClient(LLMConfig(base_url=server.base_url, **config_args))
            team = team_of(client)
            play(make_env(max_cycles=4), team, seed=2)
            records.append({a: p.episode_record() for a, p in team.items()})
            client.close()
    assert client.requests == 0 and client.cache_hits > 0
    assert unspent(records[0]) == unspent(records[1])  # the rerun spent nothing
    assert all(
        r["metrics"]["cached_calls"] == r["metrics"]["llm_calls"] for r in records[1].values()
    )


def test_make_policy_builds_llm_agents(monkeypatch):
    env = make_env()
    assert {"llm", "llm-belief"} <= set(policy_names())
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", cache=False)
    agent = make_policy("llm", env, llm=config)
    assert isinstance(agent, LLMAgent) and agent.config == config and not agent.belief
    belief = make_policy("llm-belief:gpt-4o", env, llm=config)
    assert belief.belief and belief.config.model == "gpt-4o"
    assert belief.config.base_url == config.base_url
    assert make_policy("random", env, llm=config).__class__.__name__ == "RandomPolicy"
    monkeypatch.setenv("MASE_MODEL", "from-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MASE_CACHE", "off")
    from_env = make_policy("llm", env)
    assert from_env.config.model == "from-env" and from_env.client.cache is None
    assert mase.agents.LLMAgent is LLMAgent
    with pytest.raises(ValueError, match="window"):
        LLMAgent(config, window=-1)


def test_oracle_belief_mode_uses_the_envs_oracle_and_no_rewrite_call():
    from mase.llm import offline_server
    from mase.runner import run_episode
    from mase.wrappers import BeliefState

    env = BeliefState(MessageChannel(mase.make("mase/SearchRescue-v0")))
    with offline_server(env) as server:
        config = LLMConfig(base_url=server.base_url, cache=False)
        team = {seat: LLMAgent(config, belief="oracle") for seat in env.possible_agents}
        record = run_episode(env, team, seed=0)
    assert record["metrics"]["score"] == 90
    assert record["metrics"]["belief_calls"] == 0
    # the belief handed in each turn is the oracle's: complete, and wrong only where the agent
    # really holds an outdated value (a teammate's report overtaken by events)
    assert record["metrics"]["belief_recall"] == 1.0
    assert 0.9 <= record["metrics"]["belief_accuracy"] <= 1.0
    with pytest.raises(ValueError, match="belief must be"):
        LLMAgent(config, belief="sometimes")
