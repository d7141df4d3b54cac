"""The search-and-rescue claim reader against three hand-annotated corpora of teammate messages.

``claims_corpus.jsonl`` is the set the grammar was developed on; ``claims_heldout.jsonl`` and
``claims_heldout2.jsonl`` were each written without sight of the reader and measured blind once
before they too were used to improve it (see ``claims_corpus.md``). The issue's bar holds on
every set: precision at least 95% and recall at least 90%, with the grammar alone.
"""

from pathlib import Path

import numpy as np
import pytest
from claims_score import load, score

import mase
from mase.claims import GRAMMAR, TEMPLATE
from mase.envs.search_rescue import text as words
from mase.envs.search_rescue.claims import read_claims

HERE = Path(__file__).parent
SETS = ("claims_corpus.jsonl", "claims_heldout.jsonl", "claims_heldout2.jsonl")


@pytest.mark.parametrize("name", SETS)
def test_the_grammar_alone_reads_the_corpus(name):
    records = load(HERE / name)
    assert len(records) >= 190
    result = score(records)
    assert result["precision"] >= 0.95 and result["recall"] >= 0.90, result["wrong"][:5]


@pytest.mark.parametrize("name", SETS)
def test_messages_that_state_nothing_are_not_flagged(name):
    records = [r for r in load(HERE / name) if not r["facts"]]
    flagged = [r["text"] for r in records if read_claims(r["sender"], r["text"], 0).unread]
    assert len(flagged) <= 0.05 * len(records), flagged


def test_the_games_own_sentences_read_exactly_with_template_confidence():
    env = mase.make("mase/SearchRescue-v0")
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        truth = env.unwrapped.true_facts()
        keys = [k for k in truth if k[0] not in ("round", "cutters")]
        chosen = [keys[i] for i in rng.choice(len(keys), size=6, replace=False)]
        facts = {k: truth[k] for k in chosen}
        claims = read_claims("alpha", words.facts_text(facts), None)
        assert claims.unread == () and claims.confidence == TEMPLATE
        assert {k: claims.facts[k] for k in facts} == facts


def test_a_paraphrase_is_read_with_grammar_confidence_and_unread_parts_are_flagged():
    claims = read_claims("alpha", "bomb two needs red then green", 3)
    assert claims.facts[("bomb_remaining", 2)] == ("red", "green")
    assert claims.confidence == GRAMMAR and claims.readable
    odd = read_claims("alpha", "bomb 2 is the tricky one: crimson then jade", 3)
    assert not odd.facts and odd.unread and odd.confidence == 0.0


def test_a_correction_replaces_what_it_corrects_and_a_plan_states_nothing():
    fixed = read_claims("bravo", "Bomb 2 is red, green. Sorry, green, blue.", 6).facts
    assert fixed[("bomb_remaining", 2)] == ("green", "blue")
    assert read_claims("bravo", "I'll head to room 6 and inspect bomb 4.", 0).facts == {}


def test_a_relayed_claim_names_who_holds_it():
    claims = read_claims("bravo", "alpha says bomb 3 goes green then blue", 0)
    assert claims.facts[("bomb_remaining", 3)] == ("green", "blue")
    assert ("bomb_remaining", 3) in claims.holders["alpha"]
    assert "bravo" not in claims.holders
