"""An LLM team in the step loop: belief states, Theory-of-Mind probes, usage.

With no arguments it starts MASE's offline model server on loopback (no key, no network), so
it runs anywhere. To use a hosted model instead, set OPENAI_BASE_URL, OPENAI_API_KEY and
MASE_MODEL and pass --hosted.

Run: python examples/llm_team.py [--hosted]
"""

import sys

import mase
from mase.agents import LLMAgent
from mase.llm import LLMConfig, offline_server
from mase.runner import run_episode
from mase.wrappers import BeliefState, MessageChannel, ToMProbe

env = ToMProbe(BeliefState(MessageChannel(mase.make("mase/SearchRescue-v0"))))
server = None
if "--hosted" in sys.argv:
    config = LLMConfig.from_env(cache=False)
else:
    server = offline_server(env).start()
    config = LLMConfig(base_url=server.base_url, cache=False)

team = {seat: LLMAgent(config, belief=True) for seat in env.possible_agents}
record = run_episode(env, team, seed=0)
if server is not None:
    server.stop()

metrics = record["metrics"]
print(f"score {metrics['score']} in {metrics['rounds']} rounds ({metrics['ended_by']})")
print(
    f"valid outputs {metrics['llm_valid_output_rate']:.1%}, belief accuracy "
    f"{metrics['belief_accuracy']:.1%}, belief recall {metrics['belief_recall']:.1%}"
)
for level in ("introspection", "first_order", "second_order"):
    print(f"ToM {level:13s} {metrics[f'tom_{level}']:.1%}")
print(
    f"{metrics['llm_calls']} model calls, {metrics['prompt_tokens']} prompt and "
    f"{metrics['completion_tokens']} completion tokens"
)
probe = record["probes"][0]
print("a probe:", probe["question"], "->", probe["reply"].split(".")[0], "| truth:", probe["truth"])
print("Alpha's belief at the end (first lines):")
print("\n".join(team["alpha"].current_belief.splitlines()[:8]))
