"""The model-based claim reader: the grammar first, a model for what it left unread."""

from __future__ import annotations

import mase
from mase import protocol
from mase.claims import MODEL
from mase.envs.search_rescue.language_model import respond
from mase.llm import ChatClient, LLMConfig, OfflineServer
from mase.llm.claims import ModelClaimReader, use_model_claims
from mase.llm.server import Faults
from mase.wrappers import MessageChannel

ODD = "bomb 2 is the tricky one: crimson wire, then the jade one"


class Restater:
    """A stand-in model that reads 'crimson' as red and 'jade' as green, and counts calls."""

    def __init__(self):
        self.prompts = []

    def __call__(self, messages):
        self.prompts.append(messages)
        text = messages[-1]["content"]
        if "crimson" in text:
            return "Bomb 2 remaining sequence: red, green.\nBomb 2 is in room 3."
        return "none"


def env_with_reader(server, cache=False, **options):
    env = MessageChannel(mase.make("mase/SearchRescue-v0"))
    reader = use_model_claims(env, LLMConfig(base_url=server.base_url, cache=cache), **options)
    env.reset(seed=0)
    return env, reader


def send(env, text):
    env.step({"action": 0, "message": text})


def test_the_model_reads_what_the_grammar_left_unread(tmp_path):
    model = Restater()
    with OfflineServer(model) as server:
        env, reader = env_with_reader(server, cache=str(tmp_path / "c.sqlite"))
        send(env, "Bomb 4 is defused.")  # the grammar reads it: no call
        send(env, ODD)
        tracker = env.unwrapped.knowledge()
    assert reader.calls == 1 and len(model.prompts) == 1
    system, user = model.prompts[0]
    assert "Bomb 2 remaining sequence: red, green." in system["content"]  # the forms
    assert protocol.CLAIMS_HEADER in user["content"] and ODD in user["content"]
    claims = tracker.claims[max(tracker.claims)]
    assert claims.reader == "model" and claims.confidence == MODEL
    assert claims.facts[("bomb_remaining", 2)] == ("red", "green")
    assert tracker.belief("charlie", ("bomb_remaining", 2)).source == "bravo"
    assert tracker.unread == []


def test_the_same_message_again_comes_from_the_cache(tmp_path):
    model = Restater()
    with OfflineServer(model) as server:
        config = LLMConfig(base_url=server.base_url, cache=str(tmp_path / "c.sqlite"))
        client = ChatClient(config)
        env = MessageChannel(mase.make("mase/SearchRescue-v0"))
        reader = ModelClaimReader(env, client)
        first = reader("alpha", ODD, {})
        second = reader("alpha", ODD, {})
    assert first == second and len(model.prompts) == 1 and client.cache_hits == 1


def test_a_failed_call_leaves_the_message_flagged_with_the_error():
    with OfflineServer(Restater(), faults=Faults(error_rate_500=1.0)) as server:
        config = LLMConfig(base_url=server.base_url, cache=False, max_retries=0)
        env = MessageChannel(mase.make("mase/SearchRescue-v0"))
        reader = ModelClaimReader(env, config)
        claims = reader("alpha", ODD, {})
    assert not claims.facts and claims.unread
    assert claims.unread[-1].startswith("the claim model failed: ")


def test_the_offline_model_restates_a_message_in_the_games_sentences():
    reply = respond(
        [
            {"role": "system", "content": "forms"},
            {
                "role": "user",
                "content": f'{protocol.CLAIMS_HEADER}\nAlpha: "bomb two needs red then green"'
                f"\n\n{protocol.CLAIMS_REQUEST}",
            },
        ]
    )
    assert "Bomb 2 remaining sequence: red, green." in reply
    assert respond(
        [{"role": "user", "content": f"{protocol.CLAIMS_HEADER}\nAlpha: \"hi\"\n\n"
          f"{protocol.CLAIMS_REQUEST}"}]
    ) == "none"  # fmt: skip
