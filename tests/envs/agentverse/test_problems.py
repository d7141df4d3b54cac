"""AgentVerse's problem sources and scores, from the lemma rules and hand-made replies."""

import doctest
import json
from pathlib import Path

import pytest

from mase.envs.agentverse import coding, problems
from mase.envs.agentverse.problems import concepts_used, word_forms, words

DEBATE_DATA = Path(problems.__file__).parents[1] / "debate" / "data"
# the BIG-bench files of shared/ (beside the repository, as CI lays it out)
BIGBENCH = Path(__file__).resolve().parents[4] / "shared" / "data" / "bigbench"
needs_bigbench = pytest.mark.skipif(
    not BIGBENCH.is_dir(), reason=f"no shared/ beside the repository ({BIGBENCH})"
)


# -- the lemma rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "concept"),
    [
        ("running", "run"), ("runs", "run"), ("ran", "run"), ("run", "run"),
        ("dogs", "dog"), ("dog's", "dog"), ("DOGS", "dog"),
        ("wolves", "wolf"), ("knives", "knife"), ("leaves", "leaf"), ("leaves", "leave"),
        ("puppies", "puppy"), ("flies", "fly"), ("boxes", "box"), ("races", "race"),
        ("ties", "tie"), ("glasses", "glass"), ("clothes", "clothe"), ("goggles", "goggle"),
        ("jumped", "jump"), ("raced", "race"), ("stopped", "stop"), ("carried", "carry"),
        ("dried", "dry"), ("continued", "continue"), ("used", "use"), ("passed", "pass"),
        ("making", "make"), ("sitting", "sit"), ("flying", "fly"), ("seeing", "see"),
        ("children", "child"), ("feet", "foot"), ("people", "person"), ("mice", "mouse"),
        ("ate", "eat"), ("eaten", "eat"), ("sat", "sit"), ("threw", "throw"), ("lying", "lie"),
        ("lay", "lie"), ("lay", "lay"), ("caught", "catch"), ("sleds", "sle"),
    ],
)  # fmt: skip
def test_an_inflection_stands_for_its_base_form(word, concept):
    assert concept in word_forms(words(word)[0])
    assert concepts_used([concept], f"Look: {word}!") == ((concept,), ())


@pytest.mark.parametrize(
    ("text", "concept"),
    [
        ("a category of things", "cat"),  # a concept inside another word
        ("a football match", "foot"),  # a compound written as one word
        ("the scattered catalogue", "cat"),
        ("a dog", "dogs"),  # concepts are base forms; a base form is no plural
        ("sitting", "site"),  # a doubled consonant is undoubled, never given an e
        ("running", "rune"),
        ("a seed", "see"),  # no e after a vowel other than u
        ("a string", "str"),  # the stem needs a vowel
        ("a thing", "the"),
        ("a glass", "glas"),  # no -s off a stem ending in s
        ("the player", "play"),  # derived words do not count
        ("the rider", "ride"),
        ("rise up", "rose"),  # an irregular form stands for its base, not the other way
    ],
)
def test_what_does_not_count(text, concept):
    assert concepts_used([concept], text) == ((), (concept,))


def test_words_split_on_anything_but_letters_and_drop_possessives():
    assert words("The dog’s ball: an ice-cream cone, 3 cats' toys; naïve") == [
        "the", "dog", "ball", "an", "ice", "cream", "cone", "cats", "toys", "naïve",
    ]  # fmt: skip


def test_a_concept_of_several_words_needs_them_in_a_row():
    assert concepts_used(["ice cream"], "Two ice creams, please.") == (("ice cream",), ())
    assert concepts_used(["ice cream"], "Ice and cream.") == ((), ("ice cream",))
    assert concepts_used(["ice cream"], "ice-cream") == (("ice cream",), ())


# -- coverage scores on hand-made replies ---------------------------------------------------------

BENCH = problems.Problem(
    id="hand/0",
    source="commongen",
    prompt="",
    truth=("bench", "kid", "line", "ride", "sit"),
    kind="coverage",
)


@pytest.mark.parametrize(
    ("reply", "score", "missing"),
    [
        ("The kid stood in line for the ride while I chose to sit on the bench.", 1.0, ""),
        ("Kids sat on benches, waiting in lines to ride the rides.", 1.0, ""),
        ("A kid sat down.", 0.4, "bench, line, ride"),
        ("The kidney sits behind the benchmark.", 0.2, "bench, kid, line, ride"),
        ("", 0.0, "bench, kid, line, ride, sit"),
    ],
)
def test_coverage_is_the_share_of_concepts_used(reply, score, missing):
    assert BENCH.score(reply) == pytest.approx(score)
    explanation = BENCH.explain(reply)
    if missing:
        assert explanation.endswith(f"missing: {missing}.")
        assert f"uses {round(score * 5)} of 5 concepts" in explanation
    else:
        assert explanation == "The text uses every concept (5 of 5)."


def test_the_sample_sets_load_and_their_references_use_every_concept():
    sets = problems.commongen()
    assert len(sets) == 10 and problems.samples() == sets
    assert sets[0].id == "commongen_sample/0"
    assert sets[0].truth == ("anchor", "boat", "harbor", "rope", "sail")
    assert "anchor, boat, harbor, rope, sail" in sets[0].prompt
    for problem in sets:
        (reference,) = problem.extra["references"]
        assert problem.score(reference) == 1.0, (problem.id, problem.explain(reference))


def test_merged_sets_join_consecutive_concepts():
    merged = problems.commongen(merge=4)
    assert [p.id for p in merged] == [
        "commongen_sample/0-3", "commongen_sample/4-7", "commongen_sample/8-9"
    ]  # fmt: skip
    assert len(merged[0].truth) == 20 and merged[0].truth[:6] == (
        "anchor", "boat", "harbor", "rope", "sail", "bake"
    )  # fmt: skip
    assert len(merged[2].truth) == 8
    text = " ".join(merged[0].extra["references"])
    assert merged[0].score(text) == 1.0
    assert merged[0].score(merged[0].extra["references"][0]) == pytest.approx(5 / 20)
    assert len(problems.commongen(n=1, merge=3)) == 1
    with pytest.raises(ValueError, match="merge must be"):
        problems.commongen(merge=0)


@needs_bigbench
def test_commongen_reads_bigbench_and_caps_merged_sets_at_20():
    sets = problems.commongen(BIGBENCH / "common_gen.json")
    assert len(sets) == 500
    assert sets[0].truth == ("bench", "kid", "line", "ride", "sit")
    assert sets[0].id == "common_gen/0"
    merged = problems.commongen(BIGBENCH / "common_gen.json", n=20, merge=6)
    assert len(merged) == 20
    assert max(len(p.truth) for p in merged) == problems.MAX_CONCEPTS
    assert all(len(set(p.truth)) == len(p.truth) for p in merged)


@needs_bigbench
def test_every_bigbench_reference_sentence_uses_all_its_concepts():
    """The lemma rules on real text: 2,035 sentences people wrote to use the concepts."""
    sets = problems.commongen(BIGBENCH / "common_gen.json")
    references = [(p, r) for p in sets for r in p.extra["references"]]
    short = [(p.id, r, p.explain(r)) for p, r in references if p.score(r) < 1]
    assert len(references) == 2035
    assert short == []


# -- logic grid puzzles and math ------------------------------------------------------------------


@needs_bigbench
def test_logic_grid_reads_the_house_number_of_real_puzzles():
    puzzles = problems.logic_grid(BIGBENCH / "logic_grid_puzzle.json")
    assert len(puzzles) == 1000
    first = puzzles[0]
    assert first.id == "logic_grid_puzzle/0" and first.source == "logic_grid"
    assert first.truth == 4 and first.question.choices == (1, 2, 3, 4, 5)
    assert first.prompt.startswith("There are 5 houses in a row")
    assert "house numbers 1, 2, 3, 4, 5" in first.prompt and "\\boxed{N}" in first.prompt
    assert first.score("Clue 17 puts the TV in house 2, ... so stew is in \\boxed{4}.") == 1
    assert first.score("The person who had stew lives in house 4.") == 1
    assert first.score("\\boxed{3}, since 4 is taken") == 0  # the boxed answer wins
    assert first.explain("\\boxed{3}") == "The answer 3 is wrong."
    assert first.explain("\\boxed{4}") == "The answer 4 is right."
    assert first.score("I cannot tell.") == 0
    assert "No answer could be read" in first.explain("I cannot tell.")
    second = problems.logic_grid(BIGBENCH / "logic_grid_puzzle.json", n=2)[1]
    assert second.truth == 3 and second.question.choices == (1, 2, 3, 4)


def test_logic_grid_refuses_a_file_that_is_not_house_numbers(tmp_path):
    path = tmp_path / "task.json"
    path.write_text(json.dumps({"examples": [{"input": "?", "target_scores": {"red": 1}}]}))
    with pytest.raises(ValueError, match="house numbers"):
        problems.logic_grid(path)
    path.write_text(json.dumps({"examples": [{"input": "?", "target_scores": {"1": 1, "2": 1}}]}))
    with pytest.raises(ValueError, match="2 right options"):
        problems.logic_grid(path)


def test_math_reads_gsm8k_through_the_debate_loader():
    path = DEBATE_DATA / "gsm8k_mini.jsonl"
    tasks = problems.math(path, n=None)
    assert len(tasks) == 12 and all(p.source == "math" and p.kind == "answer" for p in tasks)
    by_truth = {p.truth: p for p in tasks}
    town = by_truth[1625]  # "#### 1,625": a thousands separator, read whole
    assert "1,250 houses" in town.prompt and "\\boxed{answer}" in town.prompt
    assert town.score("1,250 + 375 = 1,625, so \\boxed{1,625}") == 1
    assert town.score("The town has 1625 houses.") == 1
    assert town.score("\\boxed{1}") == 0
    assert town.explain("\\boxed{1}") == "The answer 1 is wrong."
    assert "1625" not in town.explain("\\boxed{1}")
    assert [p.id for p in problems.math(path, n=3)] == [p.id for p in tasks[:3]]


@pytest.mark.parametrize("module", [problems, coding], ids=["problems", "coding"])
def test_the_docstring_examples_run(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
