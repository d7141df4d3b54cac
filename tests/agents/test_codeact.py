"""The CodeAct agent: memory, a program over the facts, the sandbox, self-debugging, the action.

Played through the real ``openai`` client against an offline server whose model is Avalon's
offline model, or a model that first writes broken programs.
"""

import pytest

import mase
from mase import protocol
from mase.agents.codeact import CodeActAgent, extract_code
from mase.envs.avalon.bots import AvalonBot
from mase.envs.avalon.language_model import AvalonModel
from mase.llm import LLMConfig, OfflineServer
from mase.runner import run_episode

BROKEN = {
    "exception": "print(facts['no such key'])",
    "timeout": "while True:\n    pass",
    "memory": "hog = [bytearray(2**20) for _ in range(10_000)]",
    "forbidden": "open('/etc/passwd').read()",
}


class Clumsy(AvalonModel):
    """Writes a broken program first, then, shown the error, the working one."""

    def __init__(self, broken: str, fixes: bool = True):
        self.broken, self.fixes = broken, fixes
        self.feedback: list[str] = []

    def write_code(self, prompt):
        if prompt.question:  # the sandbox's account of the last failure
            self.feedback.append(prompt.question)
            if self.fixes:
                return super().write_code(prompt)
        return f"```python\n{self.broken}\n```"


def play(model, seed=0, discussion=1, **kwargs):
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=discussion)
    with OfflineServer(model) as server:
        agent = CodeActAgent(LLMConfig(base_url=server.base_url, cache=False), **kwargs)
        team = {a: AvalonBot() for a in env.possible_agents}
        team["alpha"] = agent
        record = run_episode(env, team, seed=seed)
    return record, agent


def test_a_codeact_seat_plays_a_whole_game_from_its_programs_outputs():
    record, agent = play(AvalonModel())
    metrics = record["metrics"]
    assert metrics["llm_valid_output_rate"] == 1.0
    assert metrics["code_runs"] == metrics["code_calls"] > 0
    assert metrics["code_failures"] == 0
    calls = agent.episode_record()["calls"]
    code = [c for c in calls if c["purpose"] == "code"]
    actions = [c for c in calls if c["purpose"] == "action"]
    assert len(code) == len(actions)
    prompt = code[0]["messages"][-1]["content"]
    assert protocol.MEMORY_HEADER in prompt and protocol.FACTS_HEADER in prompt
    assert '"my_role"' in prompt and protocol.CODE_REQUEST in prompt
    # the action prompt carries the program's output: each player's chance of being evil
    assert '"p_evil"' in actions[-1]["messages"][-1]["content"]
    programs = agent.episode_record()["programs"]
    assert all(p["reason"] == "ok" for p in programs)


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_failing_program_goes_back_to_the_model_with_the_sandboxs_reason(kind):
    model = Clumsy(BROKEN[kind])
    record, agent = play(model, discussion=0, timeout_s=0.5, memory_mb=64)
    metrics = record["metrics"]
    turns = metrics["code_calls"] // 2
    assert metrics["code_failures"] == turns and metrics["code_fixed"] == turns > 0
    assert metrics["llm_valid_output_rate"] == 1.0
    reasons = {p["reason"] for p in agent.episode_record()["programs"]}
    assert reasons == {kind, "ok"}
    words = {"exception": "KeyError", "timeout": "limit", "memory": "memory",
             "forbidden": "forbids"}  # fmt: skip
    assert all(words[kind] in f for f in model.feedback), model.feedback[0]


def test_a_model_that_never_fixes_its_program_acts_without_one_after_the_last_try():
    model = Clumsy(BROKEN["exception"], fixes=False)
    record, agent = play(model, discussion=0, debug_tries=2)
    metrics = record["metrics"]
    turns = metrics["code_gave_up"]
    assert turns > 0 and metrics["code_runs"] == 3 * turns  # the first try and two fixes
    assert metrics["llm_valid_output_rate"] == 1.0  # it still acts, on its own reading
    last = [c for c in agent.episode_record()["calls"] if c["purpose"] == "action"][-1]
    assert "no working program after 3 tries" in last["messages"][-1]["content"]


def test_memory_holds_the_latest_k_events_the_seat_saw_and_nothing_it_did_not():
    env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=1)
    env.reset(seed=3)
    agent = CodeActAgent(LLMConfig(base_url="http://127.0.0.1:9/v1"), memory=4)
    agent.reset("alpha", env)
    bots = {a: AvalonBot() for a in env.possible_agents}
    for a, bot in bots.items():
        bot.reset(a, env, 0)
    for _ in range(12):
        obs, _, _, _, info = env.last()
        env.step(bots[env.agent_selection].act(obs, info))
    lines = agent.remembered()
    seen = [e for e in env.unwrapped.event_log if "alpha" in e.audience]
    assert len(lines) == 4 and len(seen) > 4
    assert lines[-1].startswith(f"Round {seen[-1].round}:")
    assert not any(e.kind == "card" and e.actor != "alpha" for e in seen)


def test_code_is_taken_from_the_first_fenced_block():
    assert extract_code("Plan:\n```python\nx = 1\nprint(x)\n```\nthen ```python\ny\n```") == (
        "x = 1\nprint(x)\n"
    )
    assert extract_code("```\nprint(3)\n") == "print(3)\n"  # an unclosed block runs to the end
    assert extract_code("print(4)") == "print(4)"


class SetPrinter(AvalonModel):
    """Writes a program whose output rests on the string hash seed and on ``random``'s seed."""

    def write_code(self, prompt):
        names = "['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot']"
        return f"```python\nimport random\nprint(set({names}), random.choice({names}))\n```"


def test_a_codeact_game_replays_from_the_response_cache_with_no_model_call(tmp_path):
    """The sandbox's output is the same every run, so the second game's prompts hit the cache."""
    cache = tmp_path / "responses.sqlite"
    records, requests, outputs = [], [], []
    for _ in range(2):
        env = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=0)
        with OfflineServer(SetPrinter()) as server:  # a new port each time: cache_scope keys it
            config = LLMConfig(base_url=server.base_url, cache=cache, cache_scope="set-printer")
            agent = CodeActAgent(config)
            team = {a: AvalonBot() for a in env.possible_agents}
            team["alpha"] = agent
            records.append(run_episode(env, team, seed=4))
        requests.append(agent.client.requests)
        outputs.append([p["output"] for p in agent.episode_record()["programs"]])
    assert requests[0] > 0 and requests[1] == 0
    assert outputs[0] == outputs[1] and outputs[0]
    assert records[0]["metrics"]["code_runs"] == records[1]["metrics"]["code_runs"] > 0
