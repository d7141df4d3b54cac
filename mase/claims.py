"""Reading the claims a message states: the result type, and tools every task's reader shares.

A teammate's message enters the knowledge tracker (:mod:`mase.knowledge`) as the facts it
claims. A task reads them with its ``read_claims(sender, text)`` hook, which returns
:class:`Claims`: the facts, how sure the reading is, and the parts of the text that look like
claims but could not be read (flagged in the record and counted in the ToM tables, never
silently dropped).

The tools here are the task-independent half of a tolerant grammar: :func:`cut_message`
bounds how much of a message is read, :func:`normalise` writes number words as digits and
strips markdown, emoji and odd punctuation, :func:`clauses` splits a message into the clauses a
claim is read from, :func:`hedge_spans` says which parts of a clause a plan, a question, a
request, a condition or a guess covers (they state no fact), and :func:`hedged` whether all of
it is. A task adds the patterns of its own facts. Every pattern here runs in linear time.

Example:
    >>> normalise("**Bomb two** -> red then Green!")
    'bomb 2 , red then green!'
    >>> clauses(normalise("Room 5 is empty; bomb 2 needs red. Can you come?"))
    ['room 5 is empty', 'bomb 2 needs red', 'can you come?']
    >>> hedged("can you come?"), hedged("maybe bomb 3 is blue"), hedged("bomb 3 is blue")
    (True, True, False)
    >>> c = "room 5 is empty, i'll go to 6 next"
    >>> [c[a:b] for a, b in hedge_spans(c)]
    ["i'll go to 6 next"]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mase.events import FactKey

#: Confidence of a reading: the task's own fact sentences, its tolerant grammar, a model.
TEMPLATE, GRAMMAR, MODEL = 1.0, 0.9, 0.7

#: The longest part of a message a grammar reads (a teammate's message is a few sentences);
#: what follows is left unread and said so (:func:`cut_message`), so reading takes bounded
#: time however long a message is.
MAX_CLAIM_CHARS = 3_000


@dataclass(frozen=True)
class Claims:
    """What a message was read to claim.

    Attributes:
        facts: the facts it states, ``{fact key: value}`` (later statements win).
        confidence: how sure the reading is, in [0, 1]: :data:`TEMPLATE` when every fact came
            from the task's fact sentences, :data:`GRAMMAR` from its tolerant grammar,
            :data:`MODEL` from a model-based extractor, 0 when nothing was read.
        unread: parts of the text that look like claims (they name the task's things) but
            could not be read; empty when the message was read whole or states no fact.
        reader: what read it (``"grammar"`` or ``"model"``).
        holders: teammates the message says hold some of its facts, ``{agent: fact keys}``
            ("Alpha says bomb 3 is green, blue", "Bravo defused bomb 4"): everyone who reads it
            learns that the named agent holds them (the knowledge tracker's second order).
    """

    facts: Mapping[FactKey, Any] = field(default_factory=dict)
    confidence: float = TEMPLATE
    unread: tuple[str, ...] = ()
    reader: str = "grammar"
    holders: Mapping[str, tuple[FactKey, ...]] = field(default_factory=dict)

    @property
    def readable(self) -> bool:
        """Whether nothing in the message was left unread."""
        return not self.unread


def cut_message(text: str, limit: int = MAX_CLAIM_CHARS) -> tuple[str, tuple[str, ...]]:
    """The part of ``text`` a grammar reads, and the ``unread`` note for the rest (if any).

    Example:
        >>> cut_message("bomb 2 is done. " * 2, limit=16)
        ('bomb 2 is done. ', ('[16 more characters not read]',))
    """
    if len(text) <= limit:
        return text, ()
    return text[:limit], (f"[{len(text) - limit} more characters not read]",)


def from_parser(parse_facts: Callable[[str], Mapping[FactKey, Any]]) -> Callable[..., Claims]:
    """A ``read_claims(sender, text, known)`` reader from a task's plain ``parse_facts(text)``."""

    def read(sender: str, text: str, known: Mapping[FactKey, Any] | None = None) -> Claims:
        return Claims(dict(parse_facts(text)))

    return read


#: Number words and their values (read in claims; tasks' parsers read them too).
NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_NUMBER = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b")
_TENS = re.compile(r"\b(20|30|40|50|60|70|80|90)[ -]([1-9])\b")
_MARKUP = re.compile(r"[*_`#\"“”‘’\[\](){}]|(?<=\w)'(?!\w)|(?<!\w)'")
_ARROW = re.compile(r"(?<!\s)\s*+(?:->|→|=>|—|–|-{2,}+|\+(?!\d)|/|&)\s*+")
#: Anything that is neither a word, a space nor punctuation that can carry meaning (emoji,
#: box drawing, stray symbols) is dropped: "bomb 2 ✅ defused" reads as "bomb 2 defused".
_SYMBOL = re.compile(r"[^\w\s.,;:!?'\-/&=<>@%$+]")
_SPACE = re.compile(r"[ \t]+")
_COUNTING_ONE = re.compile(r"\bone\b(?=[\s-]++(?:phases?|points?|colou?rs?|cuts?|steps?|wires?)\b)")
_ONE_COUNTED = re.compile(r"(?<!-)\b(bomb|room|phase|score|round)\s++one\b")
_NUMBER_SIGN = re.compile(r"(?:#|no\.|number)\s*+(\d)")
#: Contractions typed without their apostrophe ("im", "theres", "doesnt").
_BARE_CONTRACTIONS = {
    "im": "i'm",
    "iam": "i am",
    "ive": "i've",
    "id": "i'd",
    "theres": "there's",
    "thats": "that's",
    "whats": "what's",
    "wheres": "where's",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "doesnt": "doesn't",
    "dont": "don't",
    "didnt": "didn't",
    "cant": "can't",
    "wont": "won't",
    "hasnt": "hasn't",
    "havent": "haven't",
    "youre": "you're",
}
_BARE_CONTRACTION = re.compile(r"\b(" + "|".join(_BARE_CONTRACTIONS) + r")\b")


def normalise(text: str) -> str:
    """Lower case, number words as digits, markdown and quotes gone, arrows as commas.

    ``"one"`` is read as 1 only before a noun it counts or after a word that takes a number
    ("bomb one", "one phase"); elsewhere ("the one here", "a 3-phase one") it stays a word. A
    signed number keeps its sign ("+10"). Contractions typed without an apostrophe get it back
    ("im" -> "i'm") and symbols that are not punctuation (emoji) are dropped.

    Example:
        >>> normalise("Im done ✅ -- theres one left")
        "i'm done , there's one left"
    """
    text = text.lower().replace("\r", "\n")
    text = _NUMBER_SIGN.sub(r"\1", text)
    text = _MARKUP.sub(" ", text.replace("’", "'"))
    text = _COUNTING_ONE.sub("1", text)
    text = _ONE_COUNTED.sub(r"\1 1", text)
    text = _NUMBER.sub(lambda m: "one" if m[1] == "one" else str(NUMBER_WORDS[m[1]]), text)
    text = _TENS.sub(lambda m: str(int(m[1]) + int(m[2])), text)
    text = _ARROW.sub(" , ", text)
    text = _SYMBOL.sub(" ", text)
    text = _BARE_CONTRACTION.sub(lambda m: _BARE_CONTRACTIONS[m[1]], text)
    return _SPACE.sub(" ", text).strip()


#: Where a clause ends: after ! or ?, at a full stop (not a decimal point), an ellipsis, a
#: semicolon, a line break, a spaced dash, "but" or a spaced bar.
_CLAUSE_END = re.compile(
    r"(?<=[!?])\s++|(?<![\d.])\.++\s*+|(?<!\.)\.++(?!\d)\s*+|(?<![;\n])[;\n]++"
    r"|(?<!\s)\s++-\s++|,?+(?<!\s)\s++but\s++|(?<!\s)\s++\|\s++"
)


def clauses(text: str) -> list[str]:
    """The clauses of a normalised message, in order (sentences, lines, ``;``, ``but``)."""
    return [part.strip(" ,:-") for part in _CLAUSE_END.split(text) if part.strip(" ,:-")]


# -- hedges: what states no fact ---------------------------------------------------------------

#: Where a clause divides into parts a hedge can scope over: commas, colons, and words that
#: join two statements.
_BOUNDARY = re.compile(
    r"(?<!\s)\s*+[,:]\s*+|(?<!\s)\s++(?:and|so|because|cause|since|while|whereas|though|"
    r"although)\s++"
)
#: A guess about what follows: from the part it is in to the end of the clause.
_EPISTEMIC = (
    r"i think|i guess|i believe|i suspect|i assume|i reckon|i bet|i doubt|i'm guessing|thinks|"
    r"believes|guesses|suspects|reckons|assumes|doubts|i wish|wish|hope|hoping|wonder|wondering|"
    r"guessing|not sure|unsure|not certain|uncertain|seems?|seemed|appears? to|apparently|"
    r"guess|assume|assuming|suppose|supposing|iirc|afaik"
)
#: A modal word: it hedges its own statement, up to the next part with its own subject.
_MODAL = (
    r"maybe|perhaps|probably|possibly|might|may|could|should|would|must|likely|unlikely|"
    r"supposedly|presumably|hopefully|supposed to|meant to|expected to"
)
#: A condition: what follows it is not asserted either.
_CONDITIONAL = r"if|once|unless|whenever|in case|as soon as|provided"
#: A plan, an intention or a future: up to the next part that names its own subject (a
#: heading such as "Plan:" covers all that follows it).
_PLAN = (
    r"i'll|we'll|you'll|he'll|she'll|they'll|it'll|will|won't|shall|going to|gonna|plans?|"
    r"planning|about to|heading|head to|headed to|on my way|moving to|move to|next i|let's|"
    r"lets|let me|let us|want to|wanna|intend|try to|trying to|i'd like|need help|need a hand"
)
#: A request to someone.
_REQUEST = (
    r"please|can you|could you|would you|will you|can someone|could someone|can anyone|"
    r"could anyone|can somebody|could somebody|can we|could we"
)
_INLINE = re.compile(
    r"\b(?:(?P<header>(?:the\s++)?plan|next steps?|to-?do|todo)\s*+:|"
    rf"(?:(?P<epistemic>{_EPISTEMIC})|(?P<modal>{_MODAL})|(?P<conditional>{_CONDITIONAL})|"
    rf"(?P<plan>{_PLAN})|(?P<request>{_REQUEST}))\b)"
)
#: An imperative verb opening a part ("go to room 3", "bring your cutter", "don't cut").
_IMPERATIVE = re.compile(
    r"(?:go|come|bring|tell|check|inspect|head|meet|stay|take|help|send|give|look|don't|leave|ask|"
    r"do not|never|try|find|follow|hurry|grab|explore|search|keep|make sure|remember|be|get|"
    r"wait for|hold on|when|whenever)\b"
)
#: A question opening a clause (with or without its question mark).
_QUESTION_START = re.compile(
    r"(?:can|could|would|will|shall|should|do|does|did|is|are|am|which|what|what's|where|"
    r"where's|who|who's|whose|how|when|why)\b"
)
#: Words that open a question or a request inside a clause that ends with ``?``.
_QUESTION_OPENER = re.compile(
    r"(?:can|could|would|will|shall|should|do|does|did|is|are|am|was|were|has|have|had|which|"
    r"what|what's|where|where's|who|who's|whose|how|when|why|any|anyone|anybody|someone|"
    r"somebody|please|you)\b"
)
#: A question tag: it makes the whole clause a question ("you're in 6, right?").
_TAG = re.compile(r"(?:right|correct|yes|no|ok|okay|yeah|true|agreed|isn't it|aren't you)\W*+$")


def hedge_spans(clause: str, subject: re.Pattern[str] | None = None) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of a normalised clause that assert nothing.

    A question, guess ("I think") or condition covers the rest of the clause from the part it
    is in; a guess added at the end ("bomb 3 is in 5, I think") covers all of it. A modal
    ("probably", "should"), plan, request or imperative covers the rest of the clause up to
    the next part that opens with ``subject`` (the task's things), so "I'll cut green now,
    bomb 4 is done" still states that bomb 4 is done. Parts are divided by commas, colons and
    joining words (:data:`_BOUNDARY`).

    Example:
        >>> c = "room 0 is empty, i'm heading to 5 to look there"
        >>> [c[a:b] for a, b in hedge_spans(c)]
        ["i'm heading to 5 to look there"]
    """
    size = len(clause)
    starts = [0] + [m.end() for m in _BOUNDARY.finditer(clause)]
    spans = []

    def part_of(position: int) -> int:
        return starts[bisect_right(starts, position) - 1]

    # where a plan starting in part i ends: the next part that opens with its own subject
    ends = [size] * len(starts)
    for i in range(len(starts) - 2, -1, -1):
        following = starts[i + 1]
        opens = subject is not None and subject.match(clause, following)
        ends[i] = following if opens else ends[i + 1]

    def rest_from(start: int) -> int:
        return ends[bisect_right(starts, start) - 1]

    if _QUESTION_START.match(clause):
        return [(0, size)]
    if clause.rstrip().endswith("?"):
        opener = 0
        if not _TAG.match(clause, starts[-1]):
            opener = next((s for s in reversed(starts) if _QUESTION_OPENER.match(clause, s)), 0)
        spans.append((opener, size))
    # a last part that names nothing (no number) is a guess about all that came before
    afterthought = starts[-1] > 0 and not any(c.isdigit() for c in clause[starts[-1] :])
    for m in _INLINE.finditer(clause):
        start = part_of(m.start())
        if (m["epistemic"] or m["modal"]) and start == starts[-1] and afterthought:
            start = 0  # "..., I think": the guess is about everything before it
        end = rest_from(start) if m["plan"] or m["request"] or m["modal"] else size
        if m["header"]:  # "Plan: Alpha takes bomb 1, Bravo bomb 2"
            start, end = m.start(), size
        spans.append((start, end))
    for s in starts:
        if _IMPERATIVE.match(clause, s):
            spans.append((s, rest_from(s)))
    return spans


def hedged(clause: str) -> bool:
    """Whether a normalised clause is a question, request, plan or guess (it claims nothing)."""
    return any(start == 0 and end == len(clause) for start, end in hedge_spans(clause))
