"""Reading a teammate's free-text message into search-and-rescue facts.

The game's own fact sentences (:data:`.text.FACT_TEMPLATES`) are read exactly, unless they sit
in a question, plan or guess. Everything else goes through a tolerant grammar, clause by clause
(:func:`mase.claims.clauses`), later statements winning (a correction replaces what it
corrects; a bomb's room and a room's bomb are kept one fact). Only the first
:data:`mase.claims.MAX_CLAIM_CHARS` characters are read, so reading takes bounded time; every
pattern is linear in what it reads (possessive quantifiers, bounded gaps).

Before reading, the message is normalised (:func:`mase.claims.normalise`) and put in a
canonical form: a typo one edit away from the game's words (same first letter, not itself a
word) is fixed ("bomd", "romo", "gren", "defsued", "emtpy", "neds"); abbreviations are spelt
out ("b3", "bomb4", "rm 3", "r8", "@", ">", '"bomb": 3', "grn", "blu", "omw", "w/"), and so are
colour initials in a list after a bomb or a sequence word ("seq is R then B", "b1: r,g,b",
"G-R", "b2: g"); "here", "in here", "my room", "this room", "the room I'm in", "where I am"
become the sender's room, "there" the last room named, "it"/"its"/"with it" the last bomb
named, "she's"/"he's" the last teammate named, "you"/"ur" the teammate the message opens by
naming ("Charlie, you're in 5", "Charlie you are in 6", "Bravo - ur in 0"), and "with you" that
teammate's room once said, and "you" in "Bravo, I see you"; the sender's sign-on ("Alpha here",
"Hi team, Alpha here", "I am Alpha") is dropped; a clause opening "am in 6" is the sender's;
the marks of an enumerated list ("(1) red, (2) blue") and a score's breakdown in brackets
("score is 40 (30 from bomb 1 ...)") are dropped; an alternative struck out ("30 not 40",
"defused, not exploded", "blue then red, not red then blue") is removed; where a claim came
from, said in passing ("per my inspection"), is dropped; "?" as a value ("room 5: ?") is an
unknown, not a question; a request after a statement ("..., could you check?") is a sentence of
its own; the bare numbers of a list headed "rooms ...:", "bombs ...:" or "positions:" are read
as rooms, bombs or places. A question the message answers at once reads as its answer ("Where's
bomb 1? Room 0", "What's in room 5? Bomb 2", "What's bomb 3's sequence? Red, blue"). Then:

==============================================  ==============================================
what a clause says                              facts
==============================================  ==============================================
bomb 2's sequence is red then green; bomb 2:    ``bomb_remaining 2 = (red, green)``, and
red/green; bomb two needs red, then green;      ``bomb_status 2 = active``
sequence for bomb 2: red, green; bomb 2, room
3, red > green; the wires on bomb 2 go red,
green; cut red first, then green on bomb 2;
for bomb 2 we need to cut red, then green;
first red, then green for bomb 2; bomb 2 will
take two more cuts: red, green; bomb 2 wants
red-green; bomb 2 seq is R then G; the wires
on bomb 2 have to be cut in this order: red,
green; red, then green: that's bomb 2's order;
(after naming bomb 2) phase sequence: red,
green; two phases, red and green; (after
naming it) inspection reveals: red, green;
bomb 2: (1) red, (2) green; bomb 2: first red,
second green; rm3: bomb 2. red/green (a clause
that is only colours, after one that named
only bomb 2, not as done)
... cut red on bomb 2, green left; remaining:   ``bomb_remaining 2 = (green,)`` (what is left,
green; green and blue remain; red is the only   of the last bomb named)
one left; now only green remains; one phase
remains: green; ..., one more (green); cut red
on bomb 2. green last / green then blue still
remaining sequence: none; nothing left; no      ``bomb_remaining = ()``
phases left; (after naming it) nothing remains
next cut on bomb 3 is green; blue is next;      ``bomb_status = active`` only (just the next
bomb 5 needs someone with blue / needs your     cut, or only that cuts are pending, is known)
blue / needs one more cut; two phases left on
bomb 4; bomb 4 has 2 phases left; a blue cut
from someone; (after naming it) status: active;
bomb 5 needs blue first; need a blue cutter
for bomb 5; (after naming it) next is blue,
alpha or charlie; someone needs to bring blue
I defused bomb 4; bomb 4 is done/cleared/safe;  ``bomb_status 4 = defused``, nothing remaining
we defused bombs 2 and 5; bombs 1 and 4 are
defused; all 5 bombs / every bomb is defused;
1 done, 2 done; bomb 2? defused
bomb 5 blew up / exploded / went off; lost      ``bomb_status 5 = exploded``, nothing remaining
bomb 5
bomb 3 is still active / NOT defused / still    ``bomb_status 3 = active``
live; two bombs remain active: 3 and 5; bomb
3 is defused, bomb 1 is not
bomb 2 is in room 3; room 3 has bomb 2; bomb    ``bomb_room 2 = 3`` and ``room_bomb 3 = 2``
2 @ room 3; room 3: bomb 2; found bomb 2 here;
room 3 status: bomb 2; room 3 - just bomb 2;
I moved to room 3 and found bomb 2; moved to
room 3. bomb 2, sequence red (a bomb heading
right after the sender's move);
the bomb in room 3 is bomb 2; room 3's bomb is
bomb 2; I'm in room 3 with bomb 2; there's a
bomb in room 3, it's bomb 2; bombs 1 and 2 in
rooms 0 and 3 (in that order)
room 5 is empty / has no bomb / bomb-free /     ``room_bomb 5 = 0``
turned out to be empty / does not contain any
bomb; nothing in 5; there isn't a bomb in room
5; no bombs in rooms 0 or 5; rooms 0 and 5
are empty; nothing in room 8 or room 5; no
bomb is present in room 5; room 5: none; room
5 status: no bomb; (after naming room 5) Bravo
reported it empty
I'm in room 6; Bravo's in 8; I moved to room    ``agent_room`` of the sender or the named
6; Bravo just walked into 8; arrived at room    agents (``we all``, ``everyone``: the paper's
6; Alpha and I are both in 0; Charlie is with   team; ``in room 6 with me`` adds the sender,
me; Alpha is with Charlie in room 8; location:  ``with Bravo`` adds Bravo)
room 3; Bravo: room 6; Charlie, you're in 8;
I'll stay in room 3; I was in 3, now in 8;
Charlie's room is 6; I'm in 6 with Charlie;
I'm alone in 6; Charlie remains in 6; just
left 5, now in 6; am in 6; starting in room 6;
room 6: Bravo; Bravo, I see you here; (after
naming room 6) Charlie, you are already there
bomb 5 has three phases; a 3-phase bomb;        ``bomb_phases 5 = 3`` ("N phases left" is no
phases: 3; a 3-step sequence; all three         total)
phases cut; three phases total on bomb 5;
phases for bomb 5: 3; (after naming it) just
three phases; 3 phases on bomb 5
score is 40; we're at 40 points; points: 40;    ``score = 40`` (not "+10", "10 more points"
that's 40 pts total; that puts us at 40;        or "we earned 10 points"; a bare "40 points"
we've scored 40 so far; scoreboard says 40;     only in a clause that reports no cut or bomb)
score update: 40 points; we did it, 40 points
bomb 3 is in room 5, no wait, room 6; bomb 2    the corrected value replaces the one before
is red, sorry, blue; EDIT: blue, red; has 2     it; "that was wrong", "scratch that" drop what
phases... actually 3; that was wrong, ...       came before
is bomb 1 in room 0? yes                        the question's answer: ``bomb_room 1 = 0``
Alpha says bomb 3 goes green then blue; Bravo   the facts, and ``holders``: the named teammate
told me ...; according to Charlie, ...; ...,    holds what follows (up to the clause's next
Alpha says; I told Bravo ...                    subject), or all of the clause when named last
Bravo just defused the bomb in room 6, bomb 4;  the facts, and ``holders``: the teammate holds
Charlie found bomb 2 in room 3; Alpha cut red   what the clause says of the bomb it acted on
on 5, green and blue remain; Charlie is in 5    (never the sender, who is credited anyway)
and found bomb 4 there
==============================================  ==============================================

Questions, requests, plans, conditions, guesses and third-person beliefs ("Alpha thinks ...")
state nothing (:func:`mase.claims.hedge_spans`; a question mark after a guess in a later part
is the guess's: "I'm in 8, bomb 3 might be in room 0?" still says where the sender is), nor
"nothing more to do here" said of a bomb heard of ("bomb 3 is defused, as Charlie said, nothing
more to do here": no room), nor do negations ("bomb 3 is not in room 5", "no sign of bomb 2"),
past places of agents ("Charlie was in room 3"), action reports that do not say what is left
("I cut red on bomb 2"), score deltas, or talk about one's own cutters. A clause that names a
bomb, a room, the score, a status or a bomb's colours outside all it read or understood to
state nothing is returned in ``Claims.unread``: the tracker flags the message rather than treat
it as saying nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from mase.claims import (
    GRAMMAR,
    TEMPLATE,
    Claims,
    clauses,
    cut_message,
    hedge_spans,
    hedged,
    normalise,
)
from mase.envs.search_rescue import text as words
from mase.envs.search_rescue import world

COLOURS = world.COLOUR_NAMES
AGENTS = world.AGENT_NAMES
#: Who "we all" and "everyone" are: the paper's team (a message does not say its team).
TEAM = world.PAPER_AGENTS
#: How many bombs "all bombs" are when the message does not say.
N_BOMBS = len(world.PAPER_PHASES)

_C = r"\b(?:" + "|".join(COLOURS) + r")\b"
_NAME = "(?:" + "|".join(AGENTS) + r")\b"
#: Words that may mark a colour's place in a list ("red first, green second, blue last").
_ORD = r"(?:\s++(?:first|second|third|last|next|lastly|finally)\b)?+"
_SEP = (
    r"(?:\s*+[,;/>]\s*+|\s++|-)"
    r"(?:(?:and|then|followed by|after that|finally|lastly|next|second|third|last)\s++){0,3}+"
)
#: A list of colours: "red, green", "red then green", "red and then green", "red green"
#: (bounded: a bomb has a few phases, and a bound keeps every search linear).
_LIST = rf"{_C}{_ORD}(?:{_SEP}{_C}{_ORD}){{0,7}}+"
_STATUS_WORDS = {
    "defused": r"defused|disarmed|done|cleared|finished|complete|completed|neutrali[sz]ed|"
    r"solved|safe|deactivated",
    "exploded": r"exploded|blew up|blown up|went off|gone off|detonated|blew|went boom",
    "active": r"active|live|armed|undefused|pending",
}
_STATUS = "|".join(_STATUS_WORDS.values())
_KIND_OF_STATUS = re.compile(
    "|".join(rf"(?P<{kind}>\b(?:{alternatives})\b)" for kind, alternatives in _STATUS_WORDS.items())
)


def _status_kind(word: str) -> str:
    m = _KIND_OF_STATUS.match(word)
    return m.lastgroup if m and m.lastgroup else "active"


# -- typos -------------------------------------------------------------------------------------

#: The game's words that a typo one edit away (same first letter) is read as.
_VOCABULARY = (
    "bomb",
    "room",
    "sequence",
    "defused",
    "exploded",
    "green",
    "blue",
    "empty",
    "phases",
    "remaining",
    "disarmed",
    "active",
    "needs",
)
#: Real words one edit away from those, which are left alone.
_NOT_TYPOS = frozenset(
    "bombs bob boob rooms roam roof rook rood root roomy sequences sequencer defuse defuses "
    "explode explodes exploder greens greet greed greek blues blur blub bluer phase phased "
    "phaser phrases retaining disarmer actives action nerds need needy".split()
)


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one insertion, deletion, substitution or swap."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
        return len(diff) == 1 or (swapped and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i in range(len(short)) if short[i] != long[i]), len(short))
    return short[i:] == long[i + 1 :]


#: Only words that could be a typo of the vocabulary are looked at: the same first letter and
#: a length within one of a word's.
_TYPO_CANDIDATE = re.compile(r"\b[abdegnprs][a-z]{2,9}+\b")


@lru_cache(maxsize=4096)
def _typo_of(token: str) -> str:
    """The vocabulary word ``token`` is a typo of, or ``token`` itself."""
    if token in _NOT_TYPOS or token in _VOCABULARY:
        return token
    return next((w for w in _VOCABULARY if token[0] == w[0] and _one_edit(token, w)), token)


# -- the canonical form ------------------------------------------------------------------------

_CANONICAL = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\bb(\d)\b|\bbombs?(\d)", r"bomb \1\2"),
        (r"\b(?:rm|r)(\d)\b|\b(?:rm\.?|room)\s*+[:=]?\s*+(\d)", r"room \1\2"),
        (r"\bbomb\s*+[:=]\s*+(\d)\b", r"bomb \1"),
        (
            rf"(\b(?:cut|cuts|cutting|used|using|applied|applying)\s++(?:the\s++)?{_C}(?:\s++cutter)?"
            r"\s++(?:on|to))\s++(\d)\b",
            r"\1 bomb \2",
        ),
        (r"\b(?:my|this|current|the current) room\s*+,?\s*+(?:room\s++)?(\d)\b", r"room \1"),
        (r"(?<!\s)\s*+@\s*+", " in "),
        (r"(?<!\s)\s*+>\s*+", " , "),
        (rf"({_C})\s*+;\s*+(?={_C})", r"\1, "),
        (r"(?<=\S) - (?=\S)", " , "),
        (r"\bblew\s*+up\b", "blew up"),
        (r"\bwent\s*+off\b", "went off"),
        (r"\bbomb[- ]?free\b|\bbombless\b", "empty"),
        (r"\b(?:single|one|1)[- ]phase\b", "1-phase"),
        (r"\b(\d)\s++phase\s++bomb\b", r"\1-phase bomb"),
        # what a bomb will take is what it needs now ("will take two more cuts: red, green")
        (r"\b(bomb \d) will (?:still |only |now )?(?:take|need|require)s?\b", r"\1 needs"),
        # where the speaker got it, said in passing ("bomb 5's sequence, per my inspection: ...")
        (
            r",?\s*+\b(?:per|from|according to|based on|as per)\s++(?:my|our|the)\s++"
            r"(?:own\s++)?(?:inspection|check|reading|scan|look|readout|notes)\b\s*+(?=[,:])",
            "",
        ),
        # "?" as a value is an unknown, not a question ("room 5: ?")
        (r"(?<=[:=])\s*+\?++", " unknown"),
        # the order a bomb's wires are cut in is its sequence
        (
            r"\b(?:ha(?:s|ve)\s++to|needs?\s++to|are\s++to|must|should)\s++be\s++cut\s++"
            r"(?:in\s++(?:this|that|the\s++following)\s++order|as\s++follows)\b",
            "go",
        ),
        (r"\bin\s++(?:this|the\s++following)\s++order\s*+:", ":"),
        # a request after a statement is a sentence of its own ("..., could you check it?")
        (
            "".join(rf"(?<!^{name})" for name in AGENTS)  # not after a name it opens with
            + r"\s*+,\s*+(?=(?:could|can|would|will) (?:you|someone|somebody|anyone|one of you)\b"
            r"|please\b)",
            ". ",
        ),
        # a clause opening "am in 6" is the sender's; "omw" is a plan; "w/" is "with"
        (
            r"(^|[.!?;,]\s*+)am\s++(?=(?:now\s++|currently\s++|still\s++|back\s++)?(?:in|at)\s)",
            r"\1i'm ",
        ),
        (r"\bomw\b", "on my way"),
        (r"\bw\s*+[/,]\s*+(?=[a-z])", "with "),
        # "I'll stay in room 3" says where the sender is now
        (r"\bi(?:'ll| will|'m going to| am going to|'m| am)? stay(?:ing)? (?=(?:in|at) )", "i'm "),
    )
)
#: Words written short that no typo rule reaches.
_ABBREVIATIONS = {"grn": "green", "gre": "green", "blu": "blue", "wil": "will"}
_ABBREVIATION = re.compile(r"\b(?:" + "|".join(_ABBREVIATIONS) + r")\b(?!')")
_INITIAL_COLOURS = {"r": "red", "g": "green", "b": "blue"}
#: Two or three colour initials in a list ("g-r", "r then b", "r,g,b"), each letter once.
_INITIALS = re.compile(
    r"((?:[:=]|\b(?:sequence|seq|order|remaining|needs?|is|are|goes|go|wires?|colou?rs|cuts?|"
    r"phases|steps|"
    r"bomb \d))\s*+,?\s*+)"
    r"([rgb](?:(?:\s*+[-,]\s*+(?:then\s++)?|\s++(?:and\s++)?then\s++|\s++and\s++)"
    r"[rgb]\b(?!')){1,2}+)(?![\w'-]|\s*+[-,]\s*+[rgb]\b)"
)
_INITIAL = re.compile(r"\b[rgb]\b")
#: Colour initials run together after a bomb or a sequence word ("bomb 3 rgb", "seq: gb").
_INITIALS_WORD = re.compile(
    r"((?:[:=]|\b(?:sequence|seq|order|remaining|bomb \d))\s*+)"
    r"(rgb|rbg|grb|gbr|brg|bgr|rg|rb|gr|gb|br|bg)\b(?!')(?=\s*+(?:[,;.!]|$))"
)
#: One colour initial as the value of a bomb or a sequence ("b2: g", "sequence: r").
_INITIAL_ALONE = re.compile(
    r"(\b(?:bomb \d|sequence|seq|remaining|order)\s*+[:=]\s*+)([rgb])(?![\w'-])(?=\s*+(?:[,;.!]|$))"
    r"(?!\s*+[-,]\s*+[rgb](?![\w'-]))"
)


def _spell_initials(m: re.Match[str]) -> str:
    letters = _INITIAL.findall(m[2])
    if len(set(letters)) != len(letters):
        return m[0]
    return m[1] + _INITIAL.sub(lambda i: _INITIAL_COLOURS[i[0]], m[2])


#: A header that says what the bare numbers after it are ("rooms checked: 3 ..., 5 ...").
_HEADER = re.compile(r"\b(bomb|room)s\b[^:.!?\n]{0,30}+:([^.!?\n]*+)")
_AGENT_HEADER = re.compile(
    r"\b(?:positions?|locations?|agents?|team|teammates|where(?: we are| everyone is)?)\b"
    r"[^:.!?\n]{0,20}+:[^.!?\n]*+"
)
_AGENT_ITEM_BARE = re.compile(rf"({_NAME})\s*+(?:-|=|in|at|@|:)?\s*+(?:room\s++)?(\d)\b")
_HEADER_ITEM = re.compile(
    r"(^\s*+|,\s*+|\band\s++|\s&\s)(\d)\b(?!\s*+-?\s*+(?:phases?|points|pts))"
)
#: Bare numbers before a status word are bombs ("1 done, 2 done, 4 and 5 still active"),
#: before "is empty" rooms.
_BARE_BOMBS = re.compile(
    r"(^|[,:;\n]\s*+)(\d)((?:\s*+(?:,|and|&)\s*+\d\b){0,5}+)"
    r"(?=\s++(?:is\s++|are\s++|was\s++)?(?:still\s++|now\s++|also\s++|already\s++)?"
    rf"(?:{_STATUS})\b|\s*+[:=]\s*+{_C})"
)
_DIGIT = re.compile(r"(\d)")
_BARE_ROOM = re.compile(r"(^|[,:;\n]\s*+)(\d)(?=\s++(?:is\s++|was\s++)?(?:completely\s++)?empty\b)")
#: An alternative struck out after a value of its kind: "30 not 40", "defused, not exploded".
_NOT_ALTERNATIVE = re.compile(
    rf"\b({_C})(?:\s*+,)?\s++not\s++{_LIST}(?!\s*+(?:in|at|yet)\b)"
    r"|(?<![\d.])(\d{1,3})(?:\s*+,)?\s++not\s++(?:room\s++)?\d{1,3}\b(?!\s*+(?:in|at|yet)\b)"
    rf"|\b({_STATUS})(?:\s*+,)?\s++not\s++(?:{_STATUS})\b(?!\s*+(?:in|at|yet)\b)"
)


def _canonical(text: str) -> str:
    text = _TYPO_CANDIDATE.sub(lambda m: _typo_of(m[0]), text)
    text = _ABBREVIATION.sub(lambda m: _ABBREVIATIONS[m[0]], text)
    for pattern, replacement in _CANONICAL:
        text = pattern.sub(replacement, text)
    text = _INITIALS.sub(_spell_initials, text)
    text = _INITIAL_ALONE.sub(lambda m: m[1] + _INITIAL_COLOURS[m[2]], text)
    text = _INITIALS_WORD.sub(
        lambda m: m[1] + ", ".join(_INITIAL_COLOURS[letter] for letter in m[2]), text
    )

    def items(m: re.Match[str]) -> str:
        noun = m[1]
        body = _HEADER_ITEM.sub(lambda i: f"{i[1]}{noun} {i[2]}", m[2])
        return m[0][: m.start(2) - m.start()] + body

    text = _HEADER.sub(items, text)
    text = _AGENT_HEADER.sub(lambda m: _AGENT_ITEM_BARE.sub(r"\1: room \2", m[0]), text)
    text = _BARE_BOMBS.sub(lambda m: f"{m[1]}bomb {m[2]}" + _DIGIT.sub(r"bomb \1", m[3]), text)
    text = _BARE_ROOM.sub(r"\1room \2", text)
    return _NOT_ALTERNATIVE.sub(lambda m: m[1] or m[2] or m[3], text)


_SIGN_ON = (
    r"(?:^|(?<=[.!?:,\n]))\s*+(?:{name}\s++(?:here|reporting|update|checking in)|"
    r"(?:i'm|i am|this is)\s++{name})\b\s*+[!.:,]*+\s*+"
    r"(?P<place>from\s++(?=room \d)|(?=(?:in|at)\b))?"
)
_VOCATIVE = re.compile(
    rf"^\s*+(?:(?:hey|hi|ok|okay|so|and|oh)(?:\s*+,)?\s++)?({_NAME})"
    r"(?:\s*+[,:!]\s*+(?!(?:room\s++)?\d)|\s++(?=(?:you|ur|u)\b))"
)
#: "you are" and its chat spellings ("ur", "u r"; "ur" only where it cannot be "your").
_YOU_ARE = re.compile(
    r"\b(?:you(?:'re|\s++are|\s++r)|u(?:'re|\s++are|\s++r)|"
    r"ur(?=\s++(?:in|at|now|still|currently|already|both|also|right|with)\b))\b"
)
#: The addressee's room, once said ("Bravo is in room 8"), is where "with you" is.
_ADDRESSEE_ROOM = "{name} is (?:now\\s++|currently\\s++|still\\s++)?(?:in|at) (?:room )?(\\d)\\b"
_WITH_YOU = re.compile(r"(?:\s++is|'s)?\s++(?:here\s++|right\s++|also\s++)?with you\b")
_YOU_AND_I = re.compile(rf"\byou and ((?:i|me)\b|{_NAME})")
#: "Bravo, I see you here": whoever the sentence opens by naming is who "you" is.
_SEE_ADDRESSEE = re.compile(
    rf"(?:^|(?<=[.!?;\n]))(\s*+({_NAME})\s*+,\s*+i\s++(?:can\s++)?(?:see|spot)\s++)you\b(?!')"
)


def _people(text: str, sender: str) -> str:
    """Drop the sender's sign-on ("Alpha here") and read "you" as the teammate addressed."""
    sign_on = re.compile(_SIGN_ON.format(name=re.escape(sender)))
    text = sign_on.sub(
        lambda m: " " if m["place"] is None else " i'm in " if m["place"] else " i'm ", text
    )
    text = _SEE_ADDRESSEE.sub(lambda m: m[1] + m[2], text.strip())
    m = _VOCATIVE.match(text)
    if m and m[1] != sender:
        if _YOU_ARE.match(text, m.end()):  # "Charlie, you're in 5": the name is the subject
            text = text[m.end() :]
        text = _YOU_ARE.sub(f"{m[1]} is", text)
        text = _YOU_AND_I.sub(lambda y: f"{m[1]} and {'i' if y[1] == 'me' else y[1]}", text)
        room = re.search(_ADDRESSEE_ROOM.format(name=m[1]), text)
        if room:  # "... bomb 2 is with you": in the addressee's room
            text = text[: room.end()] + _WITH_YOU.sub(f" is in room {room[1]}", text[room.end() :])
    return text


_HERE_IN = re.compile(r"\b(?:here|there)\s++(?:in|at)\s++(?:room\s++)?(\d)\b")
_SAME_ROOM_AS = re.compile(
    rf"\b(i'm|i am) in the same room as ({_NAME})(?:\s*+,?\s*+(?:in\s++)?room (\d))?"
)
_MY_ROOM = re.compile(
    r"\b((?:in|at)\s++)?(?:the\s++)?(?:same room as me|my (?:current\s++)?room|"
    r"(?<!'s )current room|the room i'm in|the room i am in|this room|the room with me|where i am|"
    r"where i'm)\b"
)
_HERE = re.compile(r"\b(?:in\s++|right\s++)?here\b(?! with me)")
_PRESENTING = re.compile(r"(?<!\s)(?:'s|\s++is|\s++are)\b")
_BOMB_WITH_ME = re.compile(
    r"\b(bomb \d)(?:'s|\s++is)?\s++(?:in\s++|right\s++)?(?:here\s++)?with me\b"
)
#: After these, "here" is where someone should come, not where something is.
_MOTION_BEFORE = re.compile(r"\b(?:come|get|over|back|wait|waiting|stay|bring|meet|to|from)\s*+$")
_THERE = re.compile(
    r"\broom (\d)\b|\b(?:is|are|'s|'m|am)(?:\s++(?:already|also|still|now|right))?+ there\b"
    r"(?=\s*+(?:now\b|too\b|also\b|as well\b|[.,!;]|$))"
    r"|\b(?P<bomb>bomb \d) there\b"
    r"|\b(?P<it>it(?:'s| is| was) (?:empty|vacant)|it (?:has|had) (?:no bombs?|nothing)|"
    r"(?:(?<=reported )|(?<=declared )|(?<=confirmed ))it (?:as )?(?:empty|vacant))\b"
)


def _deixis(text: str, here: int | None) -> str:
    """Read "here", "my room", "the room I'm in" as the sender's room, "there" as the last named."""
    text = _HERE_IN.sub(r"in room \1", text)
    if here is not None:
        text = _SAME_ROOM_AS.sub(lambda m: f"{m[1]} in room {m[3] or here} with {m[2]}", text)
        text = _MY_ROOM.sub(lambda m: f"{'in ' if m[1] else ''}room {here}", text)
        text = _BOMB_WITH_ME.sub(rf"\1 is in room {here}", text)

        def place(m: re.Match[str]) -> str:
            if _MOTION_BEFORE.search(text, max(0, m.start() - 12), m.start()):
                return m[0]
            before = text[max(0, m.start() - 2) : m.start()].strip()
            if (not before or before[-1] in ",.:;!?") and _PRESENTING.match(text, m.end()):
                return m[0]  # "here's the sequence", "here is what I know"
            return f"in room {here}"

        text = _HERE.sub(place, text)
    # "bomb 1 is there": the room named last; so is "it" in "it's empty"
    out, last_room, pos = [], None, 0
    for m in _THERE.finditer(text):
        if m[1] is not None:
            last_room = m[1]
        elif last_room is not None:
            out.append(text[pos : m.start()])
            if m["it"]:
                out.append(
                    f"room {last_room}" + m["it"][2:].replace("'s", " is", 1).replace(" as ", " ")
                )
            elif m["bomb"]:
                out.append(f"{m['bomb']} in room {last_room}")
            else:
                verb = m[0].rsplit(" ", 1)[0].replace("'s", " is").replace("'m", " am")
                out.append(f"{verb} in room {last_room}")
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


_PRONOUN = re.compile(
    r"\bbomb (\d)\b|\b(?P<subject>it(?:'s got| has got|'s| is| was| has| had| needs| still"
    r"| exploded| blew| went| just| only| reads| got| now))\b|\b(?P<its>its)\b"
    r"|\b(?P<verb>defused|disarmed|finished|"
    r"cleared|found|inspected|spotted|located|with) it\b"
    r"|\b(?P<that>that's|that is|this is)(?= a \d)"
    rf"|\b(?P<name>{_NAME})|\b(?P<person>she's|she is|he's|he is)\b"
)


def _pronouns(text: str) -> str:
    """Read "it", "its", "that's a 3-phase one" as the last bomb named, "she's" the last agent."""
    last: list[str] = []
    agent: list[str] = []

    def sub(m: re.Match[str]) -> str:
        if m[1] is not None:
            last[:] = [m[1]]
            return m[0]
        if m["name"]:
            agent[:] = [m["name"]]
            return m[0]
        if m["person"]:
            return f"{agent[0]} is" if agent else m[0]
        if not last:
            return m[0]
        bomb = f"bomb {last[0]}"
        if m["subject"]:
            rest = m["subject"][2:]
            if rest.endswith(" got"):  # "it's got 3 phases"
                return bomb + " has"
            return bomb + (" is" if rest == "'s" else rest)
        if m["its"]:
            return bomb + "'s"
        if m["verb"]:
            return f"{m['verb']} {bomb}"
        return bomb + " is"

    return _PRONOUN.sub(sub, text)


#: What the normalising drops, and so is read first: the marks of an enumerated list ("(1) red,
#: (2) blue"), and the breakdown of a score in brackets ("score is 40 (30 from bomb 1 ...)").
_RAW = (
    (re.compile(r"(?:\(\s*+[1-3]\s*+\)|\b[1-3]\))\s*+(?=(?:red|green|blue)\b)", re.I), ""),
    (re.compile(r"(\bscore\b[^()\n]{0,30}?\d{1,3}\b)\s*+\([^()\n]{0,120}+\)", re.I), r"\1"),
)


def _prepare(text: str, sender: str, here: int | None) -> str:
    """The canonical form of a message (see the module docstring)."""
    for pattern, replacement in _RAW:
        text = pattern.sub(replacement, text)
    text = _canonical(normalise(text))
    text = _people(text, sender)
    text = _deixis(text, here)
    return _pronouns(text)


# -- reading one clause ------------------------------------------------------------------------

#: One bomb or several ("bomb 2", "bombs 1 and 4", "bombs 1, 2 and 4", "bomb 1 and bomb 2").
_BOMBS = re.compile(
    r"\bbombs? (\d)\b((?:\s*+(?:,|and|&|or|, and)\s*+(?:bomb\s++)?\d\b"
    r"(?!\s*+-?\s*+(?:phases?|points|pts|more|colou?rs|cuts|steps))){0,6}+)"
)
_ONE_BOMB = re.compile(r"bomb (\d)")
_SINGULAR_VERB = re.compile(r"(?<!\s)\s++(?:is|'s|has|needs|was)\b")
_ALL_BOMBS = re.compile(r"\ball (?:(\d) )?(?:the )?bombs\b|\bevery bomb\b")
_ALL_BOMBS_STATUS = re.compile(
    rf"(?<!\s)\s*+(?:are|were|have been|is|has been|now|all)?\s*+(?:now\s++)?({_STATUS})\b"
)
#: What may stand between a bomb and what is said of it, per kind of statement.
_GLUE_COMMON = (
    r"[,:=]|'s|is|are|now|also|just|still|already|finally|definitely|currently|actually|and|"
    r"(?:in\s++|at\s++|located\s++in\s++)?room \d|(?:in|at) \d|here|there|located|found|present|"
    r"situated|placed|sitting|which is|that is|in it|on it"
)
_GLUE = {
    "status": rf"{_GLUE_COMMON}|was|were|has|have|had|been|being|fully|completely|all|both|"
    r"successfully|officially|totally|got|safely|yet|not|isn't|aren't|wasn't|hasn't|haven't|"
    r"no longer|really|remain|remains|left|status|state|dead|gone|over",
    "room": rf"{_GLUE_COMMON}|was|sits|lies|hidden|right|really|location|->|in|at|inside|"
    rf"bomb(?! \d)|located at|the one|one|\d-?\s*+phases?|{_C}|then|back|{_STATUS}",
    "list": rf"{_GLUE_COMMON}|was|were|had|reads|read|needs|need|requires|require|wants|want|"
    r"takes|take|calls for|asks for|goes|go|shows|says|looks like|only|then|has|with|which|that|"
    r"a|an|the|of|in|at|next|remaining|remain|left|to go|more|active|sequence|seq|order|"
    r"wire order|wires?|colou?rs?|cuts?|phases?|steps?|\d-(?:phases?|steps?)|\d|bomb(?! \d)|one|"
    r"total|in total|inspected|pattern|code|series|combo|combination",
    "phases": rf"{_GLUE_COMMON}|has|had|with|a|an|the|only|exactly|got|total|of|in total|"
    rf"contains|consists of|bomb(?! \d)|which has|{_C}|then",
}
_GLUE_RE = {kind: re.compile(rf"\s*+(?:{glue})(?!\w)(?:'s)?") for kind, glue in _GLUE.items()}
#: How many other words may stand there too ("bomb 4 wants red", "bomb 5 dead, exploded")...
_UNKNOWN_GLUE = {"status": 1, "room": 1, "list": 2, "phases": 1}
_GLUE_WORD = re.compile(r"(?<!\s)\s*+(\S)[a-z'-]*+")
#: ... unless they deny, doubt, plan, name someone, or talk about cutting and cutters.
_GLUE_BLOCK = re.compile(
    r"not|no|never|nor|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|hasn't|haven't|hadn't|"
    r"won't|can't|couldn't|shouldn't|wouldn't|mustn't|cannot|maybe|might|may|could|would|should|must|probably|"
    r"possibly|perhaps|if|unless|once|when|until|before|after|will|going|gonna|i|i'm|i've|i'll|"
    r"i'd|me|my|you|you're|your|we|we're|we've|our|us|he|she|they|them|his|her|their|someone|"
    r"somebody|anyone|anybody|everyone|everybody|cut|cutting|use|used|using|apply|applied|"
    r"applying|tried|try|trying|hold|holds|holding|got|bring|give|handle|do|does|did|doing|"
    r"cutter|cutters|or|than|except|without|instead|wrong|said|think|guess|believe|near|next|"
    r"beside|by|behind|opposite|across|outside|towards?|to|from|between|adjacent|close|needs?|"
    r"requires?|takes?|wants?|left|remaining|more|done|defused|disarmed|exploded|finished|"
    r"cleared|" + "|".join(AGENTS)
)
_MAX_GLUE = 70
_NEGATION = re.compile(r"\b(?:not|no longer|never|nobody|no one|noone|none of us)\b|n't\b")
_PAST = re.compile(r"\b(?:was|were|had)\b")
_STATUS_HEAD = re.compile(rf"\b(?:{_STATUS})\b")
_ROOM_HEAD = re.compile(
    r"(?:(?:in|at|inside|->)\s++(?:the\s++)?)?rooms? (\d)\b|(?:in|at) (\d)\b"
    r"(?!\s*+(?:phases?|points|pts|%|more))"
)
#: A room with a predicate of its own is not the room of a bomb named before it.
_OWN_PREDICATE = re.compile(
    r"(?<!\s)\s*+(?:[,:=]\s*+)?(?:(?:is|was)\s++(?:(?:now|still|also|completely|totally)\s++)?"
    r"(?:empty|vacant|clear|bomb-free)|has|had|contains|holds|empty|no|nothing|bomb|none|unknown|"
    r"unchecked|unexplored)\b"
)
#: A bomb named as not found or not there: nothing said of it is asserted.
_NOT_FOUND_BEFORE = re.compile(
    r"\b(?:no sign of|no trace of|not|no|without|never|haven't (?:found|seen)|didn't (?:find|see)|"
    r"can't find|cannot find|couldn't find|no idea where)\s++(?:the\s++|a\s++|any\s++)?$"
)
#: "... bomb 1 is not": the status said just before, denied.
_NOT_EITHER = re.compile(
    r"(?<!\s)\s*+(?:is\s++not|isn't|is\s++not\s++yet|isn't\s++yet|not\s++yet)\W*+$"
)
_UNSURE_ROOM = re.compile(r"(?<!\s)\s*+(?:or\b|\?)")
_MORE_ROOMS = re.compile(r"(?<!\s)(?:\s*+(?:,|and|&)\s*+(?:room\s++)?\d\b){1,6}+")
_LIST_HEAD = re.compile(_LIST)
_NONE_LEFT = re.compile(
    r"(?<!\s)(?:'s)?\s*+[:,=]?\s*+(?:(?:remaining(?:\s++(?:sequence|colou?rs|cuts|phases))?|sequence|colou?rs|cuts)"
    r"\s*+(?:left\s*+)?(?::|=|is|are)\s*+(?:none|nothing|empty)\b|(?:has|with)\s++(?:no|zero|0)\s++"
    r"(?:phases?|cuts?|colou?rs?|steps?)\s++(?:left|remaining)|(?:has\s++)?nothing\s++left\b)"
)
_PHASES_HEAD = re.compile(
    r"\b(\d)\s*+-?\s*+(?:phases?|steps?)\b(?!\s*+(?:left|remaining|remain|to go|more))"
    r"|\b(\d) (?:colou?rs|steps|wires|cuts)\b(?!\s*+(?:left|remaining|remain|to go|more))"
)
#: A cut the bomb still needs but whose colours are not given: it is active.
_PENDING = re.compile(
    r"(?<!\s)\s*+(?:still\s++)?(?:needs?\s++(?:someone|somebody|a teammate|an agent|help|"
    rf"one of you|an? {_C} cutter|the {_C} cutter|a cutter|(?:your|my|his|her|their) {_C}|"
    r"(?:\d|one|a few|some|another)\s++(?:more\s++)?(?:cuts?|phases?|steps?))"
    r"|(?:has|have|with)\s++(?:[1-9]|a few|some)\s++(?:more\s++)?"
    r"(?:cuts?|phases?|steps?)\s++(?:left|remaining|to go)\b(?!\s*+:))"
    rf"(?:\s++(?:with|who has|holding)\s++(?:a\s++|the\s++)?{_LIST}(?:\s++cutters?)?)?+"
)
#: A list that is not a bomb's colours: cutters someone holds, a choice, an object.
_NOT_SEQUENCE_AFTER = re.compile(r"(?<!\s)\s*+(?:cutters?|or\b|nor\b|one\b|wire\b|phase\b|\?)")
_FROM_SOMEONE = re.compile(
    r"(?<!\s)\s*+(?:cut\s++)?(?:from|by)\s++(?:someone|somebody|one of you|anyone|you|a teammate)"
)
#: Only the next colour is known ("next cut on bomb 3 is green", "needs green next").
_NEXT_BEFORE = re.compile(r"\bnext\s++(?:cut|colou?r|phase|wire|one|step)?\s*+(?:on|for|of)?\s*+$")
_NEXT_AFTER = re.compile(r"(?<!\s)\s*+next\b")
_NEXT = re.compile(r"\bnext\b")
_FIRST = re.compile(r"\bfirst\b")
#: What opens a part with a subject of its own (where a plan's hedge ends).
_SUBJECT = re.compile(rf"(?:and\s++)?(?:bombs? \d|room \d|{_NAME}|i'm|i am|we're|score)")
_I_OR_NAME = re.compile(rf"\b(?:i'm|i)\b|\b{_NAME}")
_WHO = re.compile(rf"{_NAME}|\b(?:i|i'm|me|my)\b")
_BOMB_ID = re.compile(r"\bbomb (\d)\b")
#: Where a no-fact part (a negation, an action report) ends: its comma or joining word.
_PART_END = re.compile(r"[,;:]|\s(?:and|so|then)\s")


#: A guess in a part of its own, and a question's opening words.
_GUESS = re.compile(r"\b(?:might|may|maybe|probably|perhaps|possibly|could)\b")
_ASKING = re.compile(
    r"(?:\w++\s*+,\s*+)?(?:can|could|would|will|shall|should|do|does|did|is|are|am|which|what|"
    r"what's|where|where's|who|who's|whose|how|when|why)\b"
)


def _hedges(text: str) -> list[tuple[int, int]]:
    """What of a clause states nothing (:func:`mase.claims.hedge_spans`).

    A question mark after a guess in a later part is the guess's ("I'm in 8, bomb 3 might be
    in room 0?"): it does not make what came before the guess a question.
    """
    spans = hedge_spans(text, _SUBJECT)
    size = len(text)
    if (0, size) in spans and text.endswith("?") and not _ASKING.match(text):
        guesses = [(a, b) for a, b in spans if 0 < a and b == size and _GUESS.search(text, a, b)]
        if guesses:
            spans = [span for span in spans if span != (0, size)]
    return spans


def _merged(spans: Iterable[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Spans merged into disjoint sorted ones: their starts and their ends."""
    starts: list[int] = []
    ends: list[int] = []
    for a, b in sorted(spans):
        if starts and a <= ends[-1]:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


def _overlaps(merged: tuple[list[int], list[int]], start: int, end: int) -> bool:
    starts, ends = merged
    i = bisect_right(starts, end - 1) - 1  # the last span starting before ``end``
    return i >= 0 and ends[i] > start


class _Clause:
    """The facts read from one canonical clause, with where each was read."""

    def __init__(
        self,
        text: str,
        sender: str,
        here: int | None,
        topic: int | None,
        before: tuple[int | None, int | None] = (None, None),
    ):
        self.text = text
        self.sender = sender
        self.here = here
        self.topic = topic  # the last bomb named before this clause
        # the one bomb the clause just before named, and the room the sender just moved to
        self.named_before, self.moved_to = before
        self.hedges = _merged(_hedges(text))
        self.facts: list[tuple[int, tuple, Any]] = []
        self.read_spans: list[tuple[int, int]] = []
        self.bombs: list[tuple[int, int, list[int]]] = []
        for m in _BOMBS.finditer(text):
            ids = [int(d) for d in _DIGIT.findall(m[0])]
            singular = _SINGULAR_VERB.match(text, m.end()) and m[0].count("bomb") > 1
            if len(set(ids)) < len(ids) or singular:  # "bomb 3 and bomb 3 is red"
                for b in _ONE_BOMB.finditer(m[0]):
                    self.bombs.append((m.start() + b.start(), m.start() + b.end(), [int(b[1])]))
            else:
                self.bombs.append((m.start(), m.end(), ids))
        self.bomb_starts = [start for start, _, _ in self.bombs]
        ends = [(m.start(), m.end()) for m in _PART_END.finditer(text)]
        self.part_starts = [0] + [b for _, b in ends]
        self.part_ends = [a for a, _ in ends] + [len(text)]

    def hedged(self, start: int, end: int) -> bool:
        return _overlaps(self.hedges, start, end)

    def add(self, span: tuple[int, int], key: tuple, value: Any) -> None:
        self.read_spans.append(span)  # read, or understood as hedged
        if not self.hedged(*span):
            self.facts.append((span[0], key, value))

    def seen(self, start: int, end: int) -> None:
        """A part understood to state nothing: all of its part of the clause."""
        self.read_spans.append(self.part(start, end))

    def part(self, start: int, end: int) -> tuple[int, int]:
        """The parts of the clause (between commas and joining words) around a span."""
        first = self.part_starts[bisect_right(self.part_starts, start) - 1]
        return first, self.part_ends[bisect_left(self.part_ends, end)]

    def topic_at(self, pos: int) -> int | None:
        """The single bomb named last before ``pos`` (in this clause or before it)."""
        i = bisect_right(self.bomb_starts, pos - 1) - 1
        if i < 0:
            return self.topic
        ids = self.bombs[i][2]
        return ids[0] if len(ids) == 1 else None

    def read(self) -> None:
        self._bomb_frames()
        self._verb_first()
        self._lists_without_bomb()
        self._rooms()
        self._agents()
        self._score()
        for m in _NO_FACT.finditer(self.text):
            self.seen(m.start(), m.end())
        if _NO_FACT_CLAUSE.search(self.text):
            self.read_spans.append((0, len(self.text)))
        retract = _RETRACT.search(self.text)
        if retract:  # what it takes back is understood
            self.read_spans.append((0, self.part(retract.start(), retract.end())[1]))

    def unread(self) -> bool:
        """Whether the clause names one of the game's things outside what was read."""
        covered = _merged(self.read_spans + list(zip(*self.hedges, strict=True)))
        # a bomb or room named again, of which the clause did state something, is read
        about = set()
        for _, key, value in self.facts:
            if key[0].startswith("bomb_"):
                about.add(f"bomb {key[1]}")
            if key[0] == "room_bomb":
                about.update((f"room {key[1]}", f"bomb {value}"))
            if key[0] in ("bomb_room", "agent_room"):
                about.add(f"room {value}")
        things = [
            (m.start(), m.end()) for m in _THINGS.finditer(self.text) if m[0].rstrip() not in about
        ]
        ties: dict[tuple[int, int], bool] = {}  # per part: does it name a bomb or a sequence?
        for m in _LIST_HEAD.finditer(self.text):  # a colour list tied to a bomb
            part = self.part(m.start(), m.end())
            if part not in ties:
                ties[part] = bool(_TIES_COLOURS.search(self.text, *part))
            if ties[part]:
                things.append((m.start(), m.end()))
        return any(not _overlaps(covered, start, end) for start, end in things)

    # -- bombs ---------------------------------------------------------------------------------

    def _glue(self, kind: str, frame: str, head: re.Match[str]) -> str | None:
        """The words between a bomb and what is said of it, if they may stand there."""
        glue = frame[: head.start()]
        if len(glue) > _MAX_GLUE:
            return None
        known, unknown, pos = _GLUE_RE[kind], 0, 0
        while glue[pos:].strip():
            m = known.match(glue, pos)
            if m and m.end() > pos:
                pos = m.end()
                continue
            word = _GLUE_WORD.match(glue, pos)
            unknown += 1
            if (
                not word
                or not word[1].isalpha()
                or _GLUE_BLOCK.fullmatch(word[0].strip())
                or unknown > _UNKNOWN_GLUE[kind]
            ):
                return None
            pos = word.end()
        return glue

    def _bomb_frames(self) -> None:
        """What is said of each bomb named, up to the next bomb named."""
        text = self.text
        for n, (start, end, ids) in enumerate(self.bombs):
            stop = self.bombs[n + 1][0] if n + 1 < len(self.bombs) else len(text)
            if _NOT_FOUND_BEFORE.search(text, max(0, start - 24), start):
                self.seen(start, end)  # "no sign of bomb 2 here": nothing about it
                continue
            frame = text[end:stop]
            self._frame_status(start, end, ids, frame)
            self._frame_room(start, end, ids, frame)
            if len(ids) == 1:
                self._frame_colours(start, end, ids[0], frame)
                m = _PHASES_HEAD.search(frame, 0, 80)
                if m and self._glue("phases", frame, m) is not None:
                    self.add((start, end + m.end()), ("bomb_phases", ids[0]), int(m[1] or m[2]))

    def _frame_status(self, start: int, end: int, ids: list[int], frame: str) -> None:
        m = _STATUS_HEAD.search(frame, 0, 80)
        if not m and _NOT_EITHER.match(frame) and self.defused_before(start):
            for bomb in ids:  # "bomb 3 is defused, bomb 1 is not"
                self.add((start, end + len(frame)), ("bomb_status", bomb), "active")
            return
        if not m or (glue := self._glue("status", frame, m)) is None:
            return
        span = (start, end + m.end())
        kind = _status_kind(m[0])
        if _NEGATION.search(glue):
            if kind != "defused":
                self.seen(*span)  # "not exploded", "isn't active": nothing positive
                return
            kind = "active"  # "NOT defused", "not yet done"
        elif kind == "active" and _PAST.search(glue):
            return
        for bomb in ids:
            self.add(span, ("bomb_status", bomb), kind)
            if kind != "active":
                self.add(span, ("bomb_remaining", bomb), ())

    def defused_before(self, pos: int) -> bool:
        """Whether the clause said before ``pos`` that a bomb is defused."""
        return any(f[0] < pos and f[2] == "defused" for f in self.facts[-4:])

    def _frame_room(self, start: int, end: int, ids: list[int], frame: str) -> None:
        m = _ROOM_HEAD.search(frame, 0, 80)
        if m and not m[0].startswith(("in", "at")) and _OWN_PREDICATE.match(frame, m.end()):
            return  # "bomb 2, room 5 empty": room 5 is said something of, not bomb 2
        if not m or (glue := self._glue("room", frame, m)) is None:
            return
        span = (start, end + m.end())
        room = int(m[1] or m[2])
        if _NEGATION.search(glue) or _UNSURE_ROOM.match(frame, m.end()):
            self.seen(*span)
        elif len(ids) == 1:
            self.add(span, ("bomb_room", ids[0]), room)
        else:  # "bombs 1 and 2 in rooms 0 and 3": the rooms in the bombs' order
            more = _MORE_ROOMS.match(frame, m.end())
            rooms = [room] + [int(d) for d in _DIGIT.findall(more[0] if more else "")]
            if len(rooms) == len(ids):
                for bomb, r in zip(ids, rooms, strict=True):
                    self.add(span, ("bomb_room", bomb), r)

    def _frame_colours(self, start: int, end: int, bomb: int, frame: str) -> None:
        none = _NONE_LEFT.match(frame)
        if none:  # "remaining sequence: none", "nothing left"
            self.add((start, end + none.end()), ("bomb_remaining", bomb), ())
            return
        if not self._frame_list(start, end, bomb, frame):
            pending = _PENDING.match(frame)
            if pending:  # "needs someone with blue", "needs one more cut"
                self.add((start, end + pending.end()), ("bomb_status", bomb), "active")

    def _frame_list(self, start: int, end: int, bomb: int, frame: str) -> bool:
        """Read the colour list said of a bomb; whether there was one."""
        m = _LIST_HEAD.search(frame, 0, 100)
        if not m or (glue := self._glue("list", frame, m)) is None:
            return False
        span = (start, end + m.end())
        colours = _colours(m[0])
        if colours is None or _NOT_SEQUENCE_AFTER.match(frame, m.end()):
            return False
        if _FROM_SOMEONE.match(frame, m.end()):  # "needs a blue cut from someone": pending
            self.add(span, ("bomb_status", bomb), "active")
            return True
        if _PAST.search(glue):
            self.seen(*span)  # what it was: "it was red last time I said"
        elif len(colours) == 1 and (
            _NEXT.search(glue)
            or _NEXT_BEFORE.search(self.text, max(0, start - 30), start)
            or _NEXT_AFTER.match(frame, m.end())
            or _NEXT.search(m[0])
            or _FIRST.search(m[0])
        ):
            self.add(span, ("bomb_status", bomb), "active")
        else:
            self.add(span, ("bomb_remaining", bomb), colours)
        return True

    def _verb_first(self) -> None:
        """Statements that name the bomb after what they say: "I defused bomb 4", "phases: 2"."""
        text = self.text
        for m in _VERB_FIRST.finditer(text):
            if _NEGATION.search(text, max(0, m.start() - 14), m.start()):
                self.seen(m.start(), m.end())
                continue
            status = "exploded" if m["exploded"] else "defused"
            for bomb in _DIGIT.findall(m["bomb"]):
                self.add((m.start(), m.end()), ("bomb_status", int(bomb)), status)
                self.add((m.start(), m.end()), ("bomb_remaining", int(bomb)), ())
        for m in _ALL_BOMBS.finditer(text):
            s = _ALL_BOMBS_STATUS.match(text, m.end(), m.end() + 40)
            if s:
                kind = _status_kind(s[1])
                for bomb in range(1, int(m[1] or N_BOMBS) + 1):
                    self.add((m.start(), s.end()), ("bomb_status", bomb), kind)
        for m in _STATUS_LED.finditer(text):
            for bomb in _DIGIT.findall(m["ids"]):
                self.add((m.start(), m.end()), ("bomb_status", int(bomb)), _status_kind(m[1]))
        m = _STATUS_ALONE.match(text)
        if m and self.topic is not None and not self.bombs:
            self.add((m.start(), m.end()), ("bomb_status", self.topic), _status_kind(m[1]))
        for m in _STATUS_FIELD.finditer(text):  # '"bomb": 2, ..., "status": "active"'
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_status", bomb), _status_kind(m[1]))
        for m in _ALL_PHASES.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_phases", bomb), int(m[1]))
        for m in _SUBJECTLESS_PHASES.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_phases", bomb), int(m[1] or m[2]))
        for m in _PHASES_FOR.finditer(text):
            bomb = int(m["bomb"] or m["bomb2"])
            self.add((m.start(), m.end()), ("bomb_phases", bomb), int(m["n"] or m["n2"]))

    def _lists_without_bomb(self) -> None:
        """Colour lists whose bomb is named after them or before them."""
        text = self.text
        for m in _LIST_BEFORE_BOMB.finditer(text):
            colours = _colours(m["list"])
            if not colours or _NOT_SEQUENCE_AFTER.match(text, m.end()):
                continue
            bomb = int(m["bomb"] or m["of_bomb"] or m["for_bomb"])
            if m["next"] and len(colours) == 1:
                self.add((m.start(), m.end()), ("bomb_status", bomb), "active")
            elif len(colours) > 1 or m["of_bomb"] or m["need"]:
                self.add((m.start(), m.end()), ("bomb_remaining", bomb), colours)
        for m in _LIST_FOR_BOMB.finditer(text):
            colours = _colours(m["list"])
            if (
                colours
                and len(colours) > 1
                and not _TOOL_BEFORE.search(text, max(0, m.start() - 24), m.start())
            ):
                self.add((m.start(), m.end()), ("bomb_remaining", int(m["bomb"])), colours)
        for m in _NEED_CUTTER.finditer(text):  # "need a green cutter for bomb 1", "someone
            # needs to bring green": a cut still to make
            bomb = int(m["bomb"]) if m["bomb"] else self.topic_at(m.start())
            if bomb is not None and not _NEGATION.search(text, max(0, m.start() - 14), m.start()):
                self.add((m.start(), m.end()), ("bomb_status", bomb), "active")
        for m in _COUNT_LEFT.finditer(text):
            bomb = int(m["bomb"]) if m["bomb"] else self.topic_at(m.start())
            if bomb is not None and int(m[1]) > 0:
                self.add((m.start(), m.end()), ("bomb_status", bomb), "active")
        for m in _NOTHING_LEFT_IN.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None and _SAYS.search(text, 0, m.start()):
                # "bomb 3 is defused, as charlie said, nothing more to do here": heard of,
                # not seen here
                self.add((m.start(), m.end()), ("bomb_remaining", bomb), ())
            elif bomb is not None:
                self.add((m.start(), m.end()), ("bomb_room", bomb), int(m["room"]))
                self.add((m.start(), m.end()), ("bomb_remaining", bomb), ())
        m = _NOTHING_REMAINS.match(text)
        if m and (bomb := self.topic_at(m.start())) is not None:
            self.add((m.start(), m.end()), ("bomb_remaining", bomb), ())
        for m in _COLOUR_NEXT.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_status", bomb), "active")
        for m in _MORE_LIST.finditer(text):  # "one more (blue)", "two more: red, green"
            colours = _colours(m["list"])
            bomb = self.topic_at(m.start())
            count = 1 if m["n"] == "one" else int(m["n"])
            if colours and bomb is not None and len(colours) == count:
                self.add((m.start(), m.end()), ("bomb_remaining", bomb), colours)
        m = _BARE_LIST.match(text)
        if m and self.named_before is not None and not self.bombs:
            colours = _colours(m["list"])  # "rm6: bomb 5. red/green": bomb 5's colours
            if colours and len(colours) == 1 and _NEXT.search(m[0]):
                self.add((m.start(), m.end()), ("bomb_status", self.named_before), "active")
            elif colours:
                self.add((m.start(), m.end()), ("bomb_remaining", self.named_before), colours)
        for pattern in (_LIST_THEN_LEFT, _SUBJECTLESS_LIST, _LIST_IS_BOMBS):
            for m in pattern.finditer(text):
                colours = _colours(m["list"] or m.groupdict().get("list2") or "")
                named = m.groupdict().get("bomb")
                bomb = int(named) if named else self.topic_at(m.start())
                if colours and bomb is not None and not _NOT_SEQUENCE_AFTER.match(text, m.end()):
                    self.add((m.start(), m.end()), ("bomb_remaining", bomb), colours)

    # -- rooms ---------------------------------------------------------------------------------

    def _rooms(self) -> None:
        text = self.text
        for m in _FOUND_ON_ARRIVAL.finditer(text):  # "moved to room 0 and found bomb 3"
            self.add((m.start(), m.end()), ("bomb_room", int(m["bomb"])), int(m["room"]))
        m = _BOMB_HEADER.match(text)
        if m and self.moved_to is not None and not _NOT_HERE.search(text):
            # "moved to room 8. bomb 3, sequence blue": what it found where it moved to
            self.add((m.start(), m.end()), ("bomb_room", int(m[1])), self.moved_to)
        for m in _ROOM_HAS_BOMB.finditer(text):
            room = m["room"] or m["room2"] or m["room3"] or m["room4"] or m["room5"] or m["room6"]
            self.add((m.start(), m.end()), ("bomb_room", int(m["bomb"])), int(room))
        for m in _ROOM_EMPTY.finditer(text):
            if not m["room3"] and _NEGATION.search(m[0]):
                self.seen(m.start(), m.end())
                continue
            rooms = m["room"] or m["room2"] or m["room3"] or m["room4"] or m["room5"]
            for room in _DIGIT.findall(rooms):
                self.add((m.start(), m.end()), ("room_bomb", int(room)), 0)
        for m in _NO_BOMB_IN.finditer(text):
            if _NEGATION.search(text, max(0, m.start() - 8), m.start()):
                continue  # "it's not true that there is no bomb in 3"
            for room in _DIGIT.findall(m["rooms"] or m["rooms2"]):
                self.add((m.start(), m.end()), ("room_bomb", int(room)), 0)

    # -- agents --------------------------------------------------------------------------------

    def _agents(self) -> None:
        text = self.text
        for pattern in (_AGENT_IN, _AGENT_MOVED, _AGENT_ITEM):
            for m in pattern.finditer(text):
                for who in self._who(m["who"]):
                    self.add((m.start(), m.end()), ("agent_room", who), int(m["room"]))
        for m in _WITH_ME.finditer(text):
            span = (m.start(), m.end())
            if m["room"] is not None:
                if _BOMB_SUBJECT_BEFORE.search(text, max(0, m.start() - 40), m.start()):
                    self.seen(*span)
                    continue
                self.add(span, ("agent_room", self.sender), int(m["room"]))
            elif self.here is not None:
                for who in self._who(m["who"]):
                    self.add(span, ("agent_room", who), self.here)
        for m in _IN_ROOM_WITH.finditer(text):
            if _WAS_BEFORE.search(text, max(0, m.start() - 20), m.start()):
                continue  # "I was in 5 with Bravo": a past place
            for name in re.findall(_NAME, m["with"]):
                self.add((m.start(), m.end()), ("agent_room", name), int(m["room"]))
            for bomb in _BOMB_ID.findall(m["with"]):
                self.add((m.start(), m.end()), ("bomb_room", int(bomb)), int(m["room"]))
        subjects = [(s.start(), s[0]) for s in _I_OR_NAME.finditer(text)]
        for m in _NOW_IN.finditer(text):  # "I was in room 3 earlier, now in 8"
            i = bisect_right(subjects, (m.start(),)) - 1
            if i >= 0:
                for who in self._who(subjects[i][1]):
                    self.add((m.start(), m.end()), ("agent_room", who), int(m["room"]))
            elif not (self.bomb_starts and self.bomb_starts[0] < m.start()):
                self.add((m.start(), m.end()), ("agent_room", self.sender), int(m["room"]))
        for m in _MOVED_ALONE.finditer(text):
            self.add((m.start(), m.end()), ("agent_room", self.sender), int(m["room"]))
        for m in _LOCATION.finditer(text):
            if not (self.bomb_starts and self.bomb_starts[0] < m.start()):
                who = m["who"] or m["who2"] or self.sender
                room = int(m["room"] or m["room2"])
                self.add((m.start(), m.end()), ("agent_room", who), room)
        for m in _ROOM_AGENTS.finditer(text):  # "room 8 - bravo"
            for who in self._who(m["who"]):
                self.add((m.start(), m.end()), ("agent_room", who), int(m["room"]))
        for m in _WE_ALL.finditer(text):
            for who in TEAM:
                self.add((m.start(), m.end()), ("agent_room", who), int(m["room"]))

    def _who(self, subject: str) -> list[str]:
        names = _WHO.findall(subject)
        return [self.sender if n in ("i", "i'm", "me", "my") else n for n in names]

    # -- score ---------------------------------------------------------------------------------

    def _score(self) -> None:
        bare = _BARE_POINTS.search(self.text)
        if bare and (_EARNED_NEAR.search(self.text) or int(bare["g"]) % 10):
            self.seen(bare.start(), bare.end())  # what a cut earned, not the score
        elif bare:
            self.add((bare.start(), bare.end()), ("score",), int(bare["g"]))
        for m in _SCORE.finditer(self.text):
            value = m["a"] or m["b"] or m["c"] or m["d"] or m["e"] or m["f"]
            if m["b"] and not m["points"] and int(value) < 10:
                continue  # "we're at 5": a room as likely as a score
            self.add((m.start(), m.end()), ("score",), int(value))


def _colours(text: str) -> tuple[str, ...] | None:
    """The colours of a list, if it is one a bomb can have (no colour twice)."""
    colours = tuple(re.findall(_C, text))
    if not colours or len(set(colours)) != len(colours):
        return None
    return colours


_VERB_FIRST = re.compile(
    r"\b(?:defused|disarmed|finished|cleared|completed|solved|neutrali[sz]ed|deactivated|"
    r"done with|(?P<exploded>blew up|exploded|detonated|lost|set off))\s++(?:the\s++|both\s++)?"
    r"(?:bomb\s++(?:in|at)\s++room\s++\d\s*+,?\s*+)?"
    r"bombs? (?P<bomb>\d\b(?:\s*+(?:,|and|&|, and)\s*+(?:bomb\s++)?\d\b){0,6}+)"
)
_STATUS_LED = re.compile(
    rf"\b({_STATUS})(?:\s++bombs?)?\s*+:\s*+(?P<ids>bomb \d(?:\s*+(?:,|and|&)\s*+"
    r"bomb \d){0,6}+)"
)
_STATUS_ALONE = re.compile(
    rf"^(?:(?:yes|yep|yeah|it's|now|all|already)\W++){{0,3}}+({_STATUS})"
    r"(?:\s++(?:now|already))?\W*+$"
)
_STATUS_FIELD = re.compile(
    rf"(?:^|[,;]\s*+)(?:status|state)\s*+(?::|=|is)\s*+({_STATUS})\b(?!\s*+(?:bombs?|:))"
)
_ALL_PHASES = re.compile(
    r"\ball (\d) (?:phases|colou?rs|cuts|wires|steps)\s++(?:are\s++|were\s++|have been\s++)?"
    r"(?:cut|done|complete|completed|defused|cleared)\b"
)
_SUBJECTLESS_PHASES = re.compile(
    r"(?:^|[,:]\s*+)(?:total\s++)?phases\s*+(?::|=|is|are)\s*+(\d)\b"
    # "just one phase", "two phases, red and blue", "3 phases total": of the bomb just named
    r"|(?:^|[,:;]\s*+)(?:(?:it's|it\s++has|just|only|exactly|a|a\s++total\s++of|total(?:\s++of)?)"
    r"\s++){0,2}+(\d)\s*+-?\s*+(?:phases?|steps?)(?:\s++(?:total|in total|overall|altogether))?"
    r"(?=\s*+(?:[,:;.!]|$))"
)
#: The phases of a bomb named after them ("phases for bomb 4: 1", "3 phases total on bomb 2").
_PHASES_FOR = re.compile(
    r"\b(?:(?:total|number of)\s++)?(?:phases|phase count|count of phases)\s++(?:total\s++)?"
    r"(?:for|on|of|in)\s++bomb (?P<bomb>\d)"
    r"\s*+(?::|=|is|are)\s*+(?P<n>\d)\b(?!\s*+-?\s*+(?:phases?\s++)?(?:left|remaining|to go|more))"
    r"|\b(?P<n2>\d)\s*+-?\s*+(?:phases?|steps?)\s++(?:(?:total|in total|overall|altogether)\s++)?"
    r"(?:on|for|of|in)\s++bomb (?P<bomb2>\d)\b"
)
_LIST_BEFORE_BOMB = re.compile(
    rf"(?:(?P<cut>\bcut\s++)|(?P<next>\bnext\s++)?\b(?:sequence|seq|order|colou?rs?|remaining|"
    r"cuts?|phases?|wires?)\s++(?:left\s++)?(?:on|for|of)\s++bomb (?P<of_bomb>\d)\s*+"
    r"(?:is|are|reads|goes|go|:|=|,)?\s*+"
    r"|\b(?:on|for|to defuse|to disarm) bomb (?P<for_bomb>\d)\s*+[,:]?\s*+(?:(?:we|you|i|one)\s++)?"
    r"(?:(?P<need>(?:need|have|got)\s++to|must)\s++)?cut\s++(?:the\s++)?)"
    rf"(?P<list>{_LIST})(?(cut)\s++(?:on|for)\s++bomb (?P<bomb>\d)|)"
)
#: An ordered list given for a bomb named after it ("first green, then blue for bomb 2").
_LIST_FOR_BOMB = re.compile(
    rf"(?:^|[,:;]\s*+)(?:first\s++)?(?P<list>{_LIST})\s++(?:for|on|of)\s++bomb (?P<bomb>\d)\b"
)
#: A list said to be a bomb's after it: "red, then green: that's bomb 2's order".
_LIST_IS_BOMBS = re.compile(
    rf"(?:^|[,:;]\s*+)(?P<list>{_LIST})(?:\s*+[:,=]\s*+|\s++)"
    r"(?:(?:that's|that is|this is|those are|these are|is|are)\s++)?(?:the\s++)?"
    r"bomb (?P<bomb>\d)'s\s++(?:remaining\s++)?"
    r"(?:order|sequence|seq|colou?rs|wires|cuts|phases)\b"
)
_TOOL_BEFORE = re.compile(r"\b(?:have|has|hold|holds|got|bring|with|use|using|cut|cutting)\b")
#: A cut a bomb still needs, said of the one who will make it.
_NEED_CUTTER = re.compile(
    rf"\bneeds?\s++(?:an?\s++|the\s++)?{_C}\s++(?:cutter|cut)\s++(?:for|on)\s++(?:the\s++)?"
    r"bomb (?P<bomb>\d)"
    r"|(?:^|[,;:]\s*+|\b(?:and|but)\s++)(?:someone|somebody|one of you|a teammate)\s++"
    rf"(?:needs?\s++to|has\s++to)\s++bring\s++(?:an?\s++|the\s++)?{_C}"
)
#: Cuts still to make, not their colours: the bomb is active ("two phases left on bomb 4").
_COUNT_LEFT = re.compile(
    r"(?:^|[,:;]\s*+)(\d)\s++(?:more\s++)?(?:phases?|cuts?|colou?rs?|steps?)\s++"
    r"(?:left|remaining|to go)"
    r"(?:\s++(?:on|for|of)\s++bomb (?P<bomb>\d))?(?!\s*+:)"
)
#: "... nothing left to cut in room 6": the bomb just named, in that room, has nothing left.
_NOTHING_LEFT_IN = re.compile(
    r"\bnothing\s++(?:more\s++|else\s++)?(?:left\s++)?to\s++(?:cut|do|defuse)\s++(?:in|at)\s++"
    r"room (?P<room>\d)\b"
)
#: "Cut green on bomb 2. Nothing remains.": the bomb just named has nothing left.
_NOTHING_REMAINS = re.compile(
    r"^(?:(?:and|now|so|then)\s++){0,2}+(?:nothing|none|no (?:more )?(?:phases|cuts|colou?rs))"
    r"\s++(?:(?:is|are)\s++)?(?:left|remains|remaining)\W*+$"
)
_COLOUR_NEXT = re.compile(
    rf"(?:^|[,:]\s*+|\band\s++)(?:{_C}\s++(?:is|comes)\s++next|next\s*+(?:is|:)\s*+{_C}"
    rf"(?!\s*+(?:,|then|and|/)\s*+(?:then\s++)?{_C}))"
)
#: Cuts still to make, with their colours: "one more (blue)", "two more cuts: red, green".
_MORE_LIST = re.compile(
    r"(?:^|[,:;]\s*+|\band\s++)(?:(?:just|only|and|then)\s++)?(?P<n>one|[1-3])\s++more"
    r"(?:\s++(?:cuts?|phases?|steps?|wires?|colou?rs?))?(?:\s++(?:left|remaining|to go))?"
    rf"\s*+[:,=]?\s*+(?P<list>{_LIST})(?:\s++(?:left|remaining|to go))?\W*+$"
)
#: A clause that is only a colour list: the colours of the one bomb the clause before named
#: ("found bomb 3 in 5. red.", "cut red on bomb 4. green then blue still", "... green last").
_BARE_LIST = re.compile(
    rf"^(?:(?:and|then|now|so|just|only)\s++)?(?P<list>{_LIST})"
    r"(?:\s++(?:still|left|remaining|remains?|to go|needed|now)){0,2}+\W*+$"
)
_LIST_THEN_LEFT = re.compile(
    rf"(?P<list>{_LIST})\s++(?:is\s++|are\s++)?(?:the\s++)?(?:only\s++|last\s++)?"
    r"(?:(?:one|ones|colou?rs?|cuts?|phases?)\s++)?(?:left|remaining|remains?|to go)\b"
    r"(?:\s++(?:on|for)\s++bomb (?P<bomb>\d))?"
)
_SUBJECTLESS_LIST = re.compile(
    r"(?:^|[,:]\s*+|\band\s++)(?:the\s++)?(?:remaining(?:\s++(?:sequence|phases|colou?rs|cuts|steps))?|"
    r"(?:(?:phase|wire|cut|colou?r|cutting|defusal|full)\s++)?(?:sequence|seq|order)|"
    r"colou?rs|needs|still needs|remaining colou?rs|"
    r"(?:inspection|inspecting|scan|readout|display|panel)\s++(?:reveals|revealed|shows|showed|"
    r"says|reads|gives)|reveals|revealed)\s*+(?:is|are|:|=|reads)?\s*+"
    rf"(?P<list>{_LIST})"
    # "two phases, red and blue": a count, then the colours
    r"|(?:^|[,:;]\s*+)\d\s*+-?\s*+(?:phases?|steps?|colou?rs|wires)"
    r"(?:\s++(?:total|in total|left|remaining|remains?|to go))?"
    rf"\s*+[,:]\s*+(?P<list2>{_LIST})"
)
_FOUND_ON_ARRIVAL = re.compile(
    r"\b(?:moved|went|walked|came|got|arrived|returned|ran)\s++(?:in\s*+to|into|to|at|in)\s++"
    r"room (?P<room>\d)\s*+,?\s*+(?:and\s++)?(?:then\s++)?(?:i\s++)?(?:just\s++|immediately\s++)?"
    r"(?:found|saw|spotted|located)\s++(?:the\s++)?bomb (?P<bomb>\d)\b"
)
#: A clause opening with a bomb as its heading ("bomb 3, sequence blue", "bomb 3: red").
_BOMB_HEADER = re.compile(r"^bomb (\d)\s*+[,:]")
#: What keeps a bomb heading from being where the sender moved: a room of its own, a denial.
_NOT_HERE = re.compile(r"\broom \d|\b(?:in|at) \d\b|\b(?:no|not|none|nothing|never)\b|n't\b")
_ROOM_HAS_BOMB = re.compile(
    r"(?:(?:^|[,:;]\s*+|\b(?:and|so|earlier|now)\s++)room (?P<room>\d)(?:\s++(?:status|contents?))?"
    r"\s*+(?:[,:=]\s*+)?"
    r"(?:has|had|holds|contains|contained|with|->|now has|also has|has only|is where|does have|"
    r"did have)?\s*+(?:a\s++bomb\s*+,\s*+(?:it's\s++|namely\s++)?)?"
    r"|\bbomb (?:in|at) room (?P<room2>\d)\s*+[,:]?\s*+(?:is|it's|=)?\s*+"
    r"|\broom (?P<room5>\d)'s bomb\s*+(?:is|=|:)?\s*+"
    r"|\bin room (?P<room3>\d)\s*+,?\s*+(?:and\s++)?(?:with|there's|there is|i found|i see|"
    r"i saw|we have|is|has)\s++|(?:^|[,;]\s*+)in room (?P<room4>\d)\s*+[:=]\s*+"
    r"|^(?P<room6>\d)\s*+:\s*+)"
    r"(?:a\s++|the\s++|only\s++|just\s++)?bomb (?P<bomb>\d)\b"
    r"(?!\s*+(?:,|and)\s*+\d\b(?!\s*+-?\s*+(?:phases?|points|pts|colou?rs|cuts)))"
)
_ROOM_EMPTY = re.compile(
    r"\b(?:rooms (?P<room>\d(?:\s*+(?:,|and|&|or)\s*+\d\b){0,5}+)"
    r"|room (?P<room4>\d(?:\s*+(?:and|&|or)\s*+(?:room\s++)?\d\b){0,5}+))"
    r"(?:\s++(?:status|contents?))?\s*+(?:[,:=]\s*+)?"
    r"(?:[a-z']++\s++){0,4}?(?:empty|vacant)\b"
    r"|\broom (?P<room3>\d)\s++(?:does not|doesn't|did not|didn't)\s++(?:have|contain|hold)\s++"
    r"(?:any|a)\s++bombs?\b"
    r"|\brooms? (?P<room2>\d(?:\s*+(?:,|and|&|or)\s*+(?:room\s++)?\d\b){0,5}+)"
    r"(?:\s++(?:status|contents?))?\s*+(?:[,:=]\s*+)?"
    r"(?:has|have|had|contains?|holds?|with)?\s*+"
    r"(?:no\s++bombs?|nothing|zero bombs|0 bombs)\b(?!\s*+(?:left|to))"
    r"|(?:^|[,;:]\s*+)room (?P<room5>\d)\s*+[:=]\s*+none\b(?!\s*+(?:left|to))"
)
_NO_BOMB_IN = re.compile(
    r"\b(?:(?:no|zero|0)|there\s++(?:isn't|is\s++not|aren't|are\s++not|wasn't|was\s++not)\s++"
    r"(?:a|any))\s++bombs?\s++(?:(?:is|are|was|were)\s++)?(?:(?:found|present|located|here|"
    r"inside)\s++)?(?:in|at)\s++(?P<rooms>(?:rooms?\s++)?\d\b"
    r"(?:\s*+(?:,|or|and|nor)\s*+(?:room\s++)?\d\b){0,5}+)"
    r"|\bnothing(?:'s|\s++is|\s++was)?\s++(?:found\s++)?(?:in|at)\s++(?P<rooms2>(?:rooms?\s++)?\d\b"
    r"(?:\s*+(?:,|or|and|nor)\s*+(?:room\s++)?\d\b){0,5}+)"
)
_SUBJECTS = rf"(?:{_NAME}|\bi\b|\bme\b)(?:\s*+(?:,|and|&)\s*+(?:{_NAME}|\bi\b|\bme\b)){{0,5}}+"
_AGENT_IN = re.compile(
    rf"(?P<who>{_SUBJECTS}(?:'s|'m|'ve been|\s++(?:is|are|am|have been|has been|remains?|stays?))?"
    r"(?:\s++(?:now|currently|still|already|just|also|both|all|together|right now|stuck|"
    r"sitting|standing|waiting|staying|located|positioned|stationed|situated|here|safely|alone|"
    rf"actually|definitely|back|(?:along\s++|together\s++)?with {_NAME}"
    rf"(?:\s*+(?:,|and|&)\s*+{_NAME})?)){{0,4}}+)"
    r"\s++(?:in|at|inside)\s++(?:room\s++)?(?P<room>\d)\b(?!\s*+(?:points|pts|%|\?))"
)
_AGENT_MOVED = re.compile(
    rf"(?P<who>{_SUBJECTS})(?:'ve|\s++(?:just|have|has|finally|now|already)){{0,3}}+\s++"
    r"(?:(?:moved|walked|went|came|got|arrived|ran|returned|stepped|made it)(?:\s++(?:back|over))?"
    r"\s++(?:in\s*+to|into|to|in|at|inside)|entered|reached)\s++(?:room\s++)?(?P<room>\d)\b"
    r"(?!\s*+(?:cutters?|points|pts|phases?|bombs?))"
)
_AGENT_ITEM = re.compile(
    rf"(?:^|[,;:]\s*+)(?P<who>{_NAME}|me|i)\s*+(?::\s*+(?:room\s++)?|[,=]?\s*+room\s++)"
    r"(?P<room>\d)\b"
)
_WITH_ME = re.compile(
    r"\bin room (?P<room>\d)\b[^,.;]{0,30}?\bwith me\b"
    rf"|(?P<who>{_SUBJECTS})(?:'s|\s++(?:is|are))\s++(?:here\s++|also\s++|still\s++)?with me\b"
)
#: "bomb 4 is in room 3 with me": the bomb's place, not news of the sender's.
_BOMB_SUBJECT_BEFORE = re.compile(
    r"\bbomb(?: \d)?(?:'s|\s++(?:is|was|sits|lies))?"
    r"(?:\s++(?:located|sitting|also|now|still|right|currently)){0,3}+\s*+$"
)
_WAS_BEFORE = re.compile(r"\b(?:was|were|had been|used to be)\s*+$")
_IN_ROOM_WITH = re.compile(
    r"\bin (?:room )?(?P<room>\d),?\s++(?:along\s++|together\s++)?with "
    rf"(?P<with>(?:[^,.;]|,(?=\s*+{_C})){{1,50}}+)"
)
_NOW_IN = re.compile(
    r"(?:,\s*+|\band\s++)(?:but\s++)?now\s++(?:(?:in|at)\s++(?:room\s++)?|room\s++)(?P<room>\d)\b"
)
#: A move with no subject opening a clause is the sender's ("Arrived at room 5", "now in 3").
_MOVED_ALONE = re.compile(
    r"^(?:just\s++|finally\s++)?(?:(?:moved|walked|went|came|got|arrived|returned|made it)"
    r"(?:\s++(?:back|over))?\s++(?:in\s*+to|into|to|in|at|inside)|entered|reached|"
    r"(?:now|currently|still|back)\s++(?:in|at)|(?:starting|started)(?:\s++off)?\s++(?:in|at)|"
    r"(?:in|at)(?=\s++(?:room\s++)?\d\W*+$))\s++"
    r"(?:room\s++)?(?P<room>\d)\b"
)
_LOCATION = re.compile(
    rf"(?:^|[,;]\s*+)(?:my\s++|(?P<who>{_NAME})'s\s++)?(?:current\s++)?location\s*+(?::|=|is)?\s*+"
    r"room (?P<room>\d)\b"
    rf"|(?:^|[,;]\s*+)(?P<who2>{_NAME})'s\s++(?:current\s++)?room\s*+(?::|=|is)?\s*+(?:room\s++)?"
    r"(?P<room2>\d)\b(?!\s*+(?:points|pts|%))"
)
#: A room headed list of who is there: "room 8: bravo", "room 8 - alpha and charlie".
_ROOM_AGENTS = re.compile(
    rf"(?:^|[,;]\s*+)room (?P<room>\d)\s*+[,:=]\s*+"
    rf"(?P<who>{_NAME}(?:\s*+(?:,|and|&)\s*+{_NAME}){{0,2}}+)\W*+$"
)
_WE_ALL = re.compile(
    r"(?:\bwe(?:'re| are)?\s++(?:now\s++)?all|\b(?:everyone|everybody|all of us|all 3 of us|"
    r"the whole team)(?:'s|\s++is|\s++are)?)(?:\s++(?:now|currently|still|here|together|are)){0,3}+"
    r"\s++(?:in|at)\s++(?:room\s++)?(?P<room>\d)\b"
)
_SCORE = re.compile(
    r"\bscore(?:board)?(?:'s|\s++is|\s++now|\s*+:|\s*+=|\s++of|\s++at|\s++stands at|"
    r"\s++currently|\s++is now|\s++so far|\s++update|\s++check|\s++report|\s++tally|\s++says|"
    r"\s++shows|\s++reads|\s++total)"
    r"{0,3}+\s*+(?P<a>\d{1,3})\b(?!\s*+(?:more|%))"
    r"|\b(?:we're|we are|we have|we've got|we now have|team has|we're now|we're still|"
    r"we are still|we're currently|we stand at|we sit at|(?:the\s++)?team(?:'s|\s++is)|we're up|"
    r"(?:puts?|brings?|brought|gets?|takes?|took)\s++(?:us|(?:our|the)\s++(?:team\s++)?(?:total|score))"
    r"(?:\s++up)?\s++(?:at|to)|our total is|we're sitting|we're standing|"
    r"score(?:'s|\s++is)?\s++(?:still|stays|remains|staying))"
    r"\s++(?:at\s++|on\s++)?(?P<b>\d{1,3})\b"
    r"(?!\s*+(?:more|bombs?|rooms?|phases?|%))(?P<points>\s*+(?:points|pts))?"
    r"|\b(?P<c>\d{1,3})\s*+(?:points|pts)\s++(?:total|in total|so far|now|overall)\b"
    r"|(?:^|[,;]\s*+)(?:points|pts)\s++(?P<e>\d{1,3})\b"
    r"|\bwe(?:'ve|\s++have)?\s++scored\s++(?P<f>\d{1,3})(?:\s*+(?:points|pts))?\s++"
    r"(?:so far|in total|total|overall)\b"
    r"|\b(?:total(?:\s++points)?|points|pts)(?:\s++so far|\s++total|\s++now)?\s*+(?::|=|is|are|of)"
    r"\s*+(?P<d>\d{1,3})\b"
    r"(?!\s*+-?\s*+(?:phases?|bombs?|rooms?|cuts?|colou?rs?|steps?|wires?|agents?|teammates?))"
)
#: A bare "90 points" as a part of its own, in a clause that reports no cut or bomb (after
#: one, it would be what the cut earned).
_BARE_POINTS = re.compile(
    r"(?:^|[,:;]\s*+)(?:(?:that's|thats|now|total|so|at|we're at)\s++)?(?P<g>\d{1,3})\s*+"
    r"(?:points|pts)\s*+[.!]*+$"
)
_EARNED_NEAR = re.compile(
    rf"\bbombs? \d|\b(?:cut|cutting|snipped|{_STATUS})\b|\+|\bmore\b|\bextra\b|\banother\b"
)
#: What makes a part of a clause understood to state nothing, though it names the game's
#: things: a negation, a past place, an action report, one's cutters, a search, a score
#: delta, a place that names no room, an unknown.
_NO_FACT = re.compile(
    r"\b(?:not|no longer|never|nor)\b|n't\b"
    rf"|\b(?:a|an|one)\s++{_C}\s++(?:cut|phase)\b"
    r"|\bcut(?:ting)?\s++(?:a|the|one|another|that|this)\s++(?:wire|phase)\b"
    rf"|\b(?:i'm|i am|we're|we are|{_NAME}(?:'s|\s++is))\s++(?:now\s++)?(?:on|working on|handling|"
    r"taking|tackling|dealing with)\s++bomb\b"
    r"|\b(?:the\s++)?(?:most|fewest|least|more|fewer)\s++(?:phases|cuts|colou?rs|steps|wires)\b"
    rf"|\b{_NAME}(?:\s*+,)?\s++(?:takes?|go(?:es)?|checks?|handles?|covers?|search(?:es)?|"
    r"inspects?|heads?|grabs?|explores?)\b"
    r"|\b(?:was|were|used to be)\s++(?:in|at)\b|\b(?:left|leaving|been in)\s++(?:room\s++)?\d"
    r"|\b(?:applied|apply|applying|used|use|using|cut|cutting|snipped|tried|trying)\s++"
    rf"(?:the\s++|my\s++|a\s++)?{_C}|\b(?:inspect|check|examin)(?:ed|ing|e)?\s++(?:the\s++)?bomb\b"
    rf"|\bcutters?\b|\b(?:i|we|you|he|she|they|{_NAME})\s++(?:only\s++)?(?:have|has|hold|"
    r"holds|got|carry|carries)\b|\bcan (?:handle|do|take|complete|finish|start)\b"
    r"|\b(?:yours|mine|theirs)\b|\bthe\s++(?:last|final|only)\s++one\b"
    r"|(?:^|[,;]\s*+|\b(?:i'm|i am|we're|we are)\s++)(?:now\s++)?(?:at|by|near)\s++bomb\b"
    r"|\bbombs? \d(?:\s*+(?:,|and|&)\s*+(?:bomb\s++)?\d\b){0,5}+\s++(?:still\s++)?"
    r"(?:remains?|left|to go)\W*+$"
    rf"|\b{_C}\s++cuts?\b|\b{_C}\s++(?:on|to)\s++bomb\b|\b\d++\s*+(?:points|pts)\s++(?:from|for)\b"
    r"|\b(?:find|finding|look(?:ing)? for|search(?:ing)? for|missing)\b"
    r"|\b(?:another|extra|more)\s++\d++\s*+(?:points|pts)|\+\d"
    r"|\b(?:need|needs|aim for|aiming for|hit|want|out of|possible|all)\s++\d++\s*+(?:points|pts)"
    r"|\b(?:earned|gained|scored|got|made|received|won|get|gain|earn)\s++(?:another\s++|us\s++)?"
    r"\d++\s*+(?:more\s++)?(?:points|pts)"
    r"|(?<!\d)\d++\s*+(?:more|extra)\s++(?:points|pts)"
    r"|\b(?:last|first|second|third|final|next|one)\s++cut\b"
    r"|\b(?:someone|somebody|anyone|anybody|one of you)\s++(?:with|who has)\b"
    r"|\b(?:nobody|no one|noone|none|either|or|was|were|had|used to|earlier|before|ago|"
    r"last (?:round|turn|time)|wants? to|wanted to|needs? to|needed to|goal|target|max|maximum|"
    r"worth|gives?|costs?|lose|lost|to win|doors?|leads? to|connected|adjacent|reach|away|"
    r"neighbou?rs?|job|task|turn)\b"
)
#: What makes a whole clause understood to state nothing: a place that names no room, a bomb
#: not yet known, a word that does not say which fact ("room 8 clear", "all good in 8").
_NO_FACT_CLAUSE = re.compile(
    r"\bnext door\b|\b(?:near|close to|next to|beside|by|across from|opposite)\s++room\b|"
    r"\bsomewhere\b|\bnearby\b|"
    r"\b\w++'s room\b|\byour room\b|\bunknowns?\b|\bnot (?:yet )?(?:known|found|inspected)\b|"
    r"\bun(?:explored|checked|visited|searched|located|seen|inspected|found|accounted)\b|"
    r"\bsame room as\b|"
    r"\b(?:i|we)\s++(?:propose|suggest|recommend)\b|"
    r"\bclear\b|\ball good\b|\bnothing to report\b|\bno idea\b|\b(?:tbd|n/a|\?\?++)"
)
#: A colour list is a bomb's when its part names a bomb or a sequence.
_TIES_COLOURS = re.compile(
    r"\bbomb \d|\b(?:sequence|seq|order|remaining|remain|left|needs?|colou?rs|phases?)\b"
)
#: The game's things a clause can name: it is unread when it names one outside what was read.
_THINGS = re.compile(
    rf"\bbombs? \d|\broom \d|\b(?:score|points|pts)\b[^\d.]{{0,12}}+\d|\d\s*+(?:points|pts)\b|"
    rf"(?<!i'm )(?<!we're )(?<!i am )(?<!you're )\b(?:{_STATUS})\b(?! with (?!bomb))"
)


# -- reading a message -------------------------------------------------------------------------


def read_claims(sender: str, text: str, sender_room: int | None = None) -> Claims:
    """The facts a teammate's message states, and who it says holds them (module docstring).

    Args:
        sender: who sent it ("I" and "me").
        text: the message (its first :data:`mase.claims.MAX_CLAIM_CHARS` characters are read).
        sender_room: the sender's room when it spoke, for "here"; ``None`` leaves "here"
            sentences unread.

    Example:
        >>> claims = read_claims("bravo", "Found bomb 4 here: red -> blue. Heading to 8.", 6)
        >>> sorted(claims.facts.items())  # doctest: +NORMALIZE_WHITESPACE
        [(('bomb_remaining', 4), ('red', 'blue')), (('bomb_room', 4), 6),
         (('bomb_status', 4), 'active'), (('room_bomb', 6), 4)]
        >>> read_claims("alpha", "Maybe bomb 3 is in room 5? Bomb 2 is gone.", 3).unread
        ('bomb 2 is gone',)
        >>> read_claims("charlie", "Bravo says bomb 3 goes green then blue").holders
        {'bravo': (('bomb_remaining', 3),)}
    """
    text, unread_rest = cut_message(text)
    sender = sender.lower()
    exact = _templates(text)
    parts = clauses(_prepare(text, sender, sender_room))
    read: list[list[tuple[int, tuple, Any]]] = []
    unread: list[str] = []
    held: list[tuple[str, tuple]] = []
    topic: int | None = None
    before: tuple[int | None, int | None] = (None, None)
    for i, clause in enumerate(parts):
        wording = clause
        if clause.endswith("?") and i + 1 < len(parts) and _YES.match(parts[i + 1]):
            wording = _ASKED.sub("", clause)  # "Is bomb 1 in room 0? Yes": the answer
        elif clause.endswith("?") and i + 1 < len(parts):
            parts[i + 1] = _answered(clause, parts[i + 1])  # "Where's bomb 1? Room 0"
        repair = _REPAIR.search(wording)
        if repair:  # "bomb 3 is in room 5, no wait, room 6"
            fixed = _substitute(wording[: repair.start()], repair["value"])
            if fixed is not None:
                wording = fixed
            elif read and (fixed := _substitute(parts[i - 1], repair["value"])) is not None:
                c = _Clause(fixed, sender, sender_room, topic, before)  # "... actually 3"
                c.read()
                read[-1] = c.facts
                continue
        c = _Clause(wording, sender, sender_room, topic, before)
        c.read()
        facts = c.facts
        retract = _RETRACT.search(wording)
        if retract:  # "that was wrong": what came before it goes
            if read and not _VALUE.search(wording, 0, retract.start()):
                read[-1] = []
            facts = [fact for fact in facts if fact[0] >= retract.start()]
        if read and _AFTERTHOUGHT.match(wording):  # "... but I'm not sure"
            read[-1] = []
        read.append(sorted(facts, key=lambda fact: fact[0]))
        held += _holders(c, facts)
        if c.unread() and not _HEADING.fullmatch(clause):  # "Bomb 2." heads what follows
            unread.append(clause)
        if c.bombs:
            last = c.bombs[-1][2]
            topic = last[0] if len(last) == 1 else None
        named = {bomb for _, _, ids in c.bombs for bomb in ids}
        named -= {
            key[1] for _, key, value in facts if key[0] == "bomb_status" and value != "active"
        }
        moved = _MOVED.search(wording) and [
            value for _, key, value in facts if key == ("agent_room", sender)
        ]
        before = (
            next(iter(named)) if len(named) == 1 else None,
            moved[0] if moved and len(facts) == 1 else None,
        )
    # the game's own sentences first: the grammar reads them alike, and a later correction wins
    stated = [(-1, key, value) for key, value in exact.items()]
    facts = _assemble(stated + [fact for clause_facts in read for fact in clause_facts])
    if exact and facts == _assemble(stated):
        confidence = TEMPLATE
    else:
        confidence = GRAMMAR if facts else 0.0
    holders: dict[str, tuple] = {}
    for who, key in held:
        if key in facts and key not in holders.get(who, ()):
            holders[who] = (*holders.get(who, ()), key)
    return Claims(facts, confidence, tuple(unread) + unread_rest, holders=holders)


_NAMES = rf"{_NAME}(?:\s*+(?:,|and|&)\s*+(?:{_NAME}|i\b|me\b)){{0,3}}+"
#: A teammate the clause says told or knows what follows ("Alpha says ...", "Bravo told me
#: ...", "according to Charlie, ...", "I told Bravo ...").
_SAYS = re.compile(
    rf"(?P<who>{_NAMES})(?:\s++(?:just|also|already|earlier|has|had|then)){{0,2}}+\s++"
    r"(?:says|said|reports?|reported|radioed|messaged|mentioned|confirm(?:s|ed)|noted|"
    r"knows|heard|learned|learnt|"
    r"(?:told|tells|informed|showed)\s++(?:me|us|everyone|the team|you))\b"
    rf"|\b(?:according to|as per|per|(?:word|news|info|report) from)\s++(?P<source>{_NAMES})"
    rf"|\b(?:i|we)(?:'ve|\s++(?:just|already|have|also)){{0,2}}+\s++(?:told|informed|showed)\s++"
    rf"(?P<told>{_NAMES})"
)
_DID_VERB = (
    r"(?:found|inspected|saw|seen|spotted|located|checked|cut|defused|disarmed|finished|"
    r"cleared|neutrali[sz]ed|solved|completed|blew up|exploded|detonated|set off)\b"
)
#: A teammate the clause says did something to a bomb ("Bravo defused bomb 4", "Charlie found
#: bomb 2 in room 3", "Charlie is in 5 and found bomb 4"): it holds what the clause says of
#: that bomb.
_DID = re.compile(
    rf"(?P<who>{_NAMES})(?:\s++(?:just|also|already|finally|successfully|has|have|had|then)){{0,3}}+"
    rf"\s++{_DID_VERB}"
    rf"|(?:,\s*+|\band\s++)(?:(?:then|also|just|already|later|has|have)\s++){{0,2}}+{_DID_VERB}"
)
#: Where what a teammate holds ends: the next subject of the clause.
_NEXT_SUBJECT = re.compile(rf"\b(?:i|i'm|i've|we|we're|we've|you|you're)\b|\b{_NAME}")
_AGENT = re.compile(_NAME)


def _holders(c: _Clause, facts: list[tuple[int, tuple, Any]]) -> list[tuple[str, tuple]]:
    """The teammates a clause says hold some of its facts, with those facts' keys."""
    out: list[tuple[str, tuple]] = []
    if not facts:
        return out
    text = c.text
    facts = sorted(facts, key=lambda fact: fact[0])
    at = [fact[0] for fact in facts]
    subjects = [(s.start(), s[0]) for s in _NEXT_SUBJECT.finditer(text)]
    starts = [start for start, _ in subjects]
    said_last = len(text.rstrip(" .!,:"))  # a teammate named after all it said

    def between(start: int, end: int) -> list[tuple[int, tuple, Any]]:
        return facts[bisect_left(at, start) : bisect_left(at, end)]

    def scope(m: re.Match[str]) -> int:
        """Where what follows ``m`` stops being the holder's: the next subject."""
        i = bisect_left(starts, m.end())
        return starts[i] if i < len(starts) else len(text)

    for m in _SAYS.finditer(text):
        names = m["who"] or m["source"] or m["told"]
        if m.end() >= said_last:
            held = facts  # "bomb 3 is red, Alpha says", "..., according to Charlie"
        else:
            held = between(m.start(), scope(m))
        out += [(who, key) for who in _AGENT.findall(names) for key in _keys(held)]
    for m in _DID.finditer(text):
        names = m["who"]
        if names is None:  # "Charlie is in 5 and found bomb 4": the clause's last subject
            i = bisect_left(starts, m.start()) - 1
            names = subjects[i][1] if i >= 0 else ""
        end = scope(m)
        first = bisect_left(c.bomb_starts, m.start())
        last = bisect_left(c.bomb_starts, end)
        bombs = {b for _, _, ids in c.bombs[first:last] for b in ids}
        held = [
            (pos, key, value)
            for pos, key, value in between(m.start(), end)
            if (key[0].startswith("bomb_") and key[1] in bombs)
            or (key[0] == "room_bomb" and value in bombs)
        ]
        out += [(who, key) for who in _AGENT.findall(names) for key in _keys(held)]
    return [(who, key) for who, key in out if who != c.sender and who in AGENTS]


def _keys(facts: Iterable[tuple[int, tuple, Any]]) -> list[tuple]:
    """The keys of facts, with the other half of a bomb's place (kept one fact with it)."""
    keys = []
    for _, key, value in facts:
        keys.append(key)
        if key[0] == "bomb_room":
            keys.append(("room_bomb", value))
        elif key[0] == "room_bomb" and value:
            keys.append(("bomb_room", value))
    return keys


#: A clause that says the sender moved (and so is where it finds what it reports next).
_MOVED = re.compile(
    r"\b(?:moved|walked|went|came|got|arrived|returned|made it|entered|reached|just got)\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s++")
_HEADING = re.compile(r"bombs? \d\W*+")


def _templates(text: str) -> dict[tuple, Any]:
    """The game's own fact sentences in ``text``, but not in a question, plan or guess."""
    if not words.parse_facts(text):
        return {}
    found: dict[tuple, Any] = {}
    for sentence in _SENTENCE_END.split(text):
        if not hedged(normalise(sentence)):
            found.update(
                (key, value)
                for key, value in words.parse_facts(sentence).items()
                if key[0] != "agent_room" or key[1] in AGENTS  # not "Everyone is in room 0."
            )
    return found


_YES = re.compile(r"(?:yes|yep|yeah|yup|correct|confirmed)\b")
_ASKED = re.compile(r"^(?:is|are|does|do|has|have|did)\s++|(?<!\?)\?++$")
#: A correction that gives only the new value: it replaces the last value of its kind.
_REPAIR = re.compile(
    r"(?:^|[,:]\s*+)(?:sorry|no wait|wait|actually|edit|i meant|i mean|oops|rather|make that|"
    r"or rather|correction|no|nope|err|erm|um|uh)\b(?:\s*+[,:]?\s*+(?:no|sorry|typo|i meant|"
    r"i mean|make that|it's|it is|oops|wait|actually|should be|should read)\b){0,4}+"
    rf"\s*+[,:]?\s*+(?P<value>{_LIST}|room \d|bomb \d|\d{{1,3}})\s*+[.!]*+$"
)
#: A question its own message answers at once, and how its answer reads as a statement.
_WH_ASKED = re.compile(
    r"^(?:so\s++|and\s++|ok\s++)?(?:"
    r"(?:where's|where is|which room (?:has|is|holds)|what room (?:has|is|holds))\s++"
    r"(?P<where>bomb \d)(?:\s++(?:located|in|at))?"
    r"|(?:what's|what is|which bomb is|what bomb is)\s++(?:in\s++)?(?:the\s++bomb\s++in\s++)?"
    r"(?P<room>room \d)(?:'s bomb)?"
    r"|(?:what's|what is|what does)\s++(?:the\s++)?(?:(?:sequence|order|seq)\s++(?:for|of|on)\s++"
    r"(?P<seq>bomb \d)|(?P<seq2>bomb \d)(?:'s\s++(?:sequence|order|seq)|\s++needs?))"
    r"|(?:what's|what is)\s++(?:our\s++|the\s++)?(?P<score>score)"
    rf"|(?:where's|where is)\s++(?P<agent>{_NAME})(?:\s++(?:now|at))?"
    r")\s*+\?++$"
)
_ANSWER = {
    "where": (re.compile(r"(?:in\s++|at\s++)?(?=room \d\b)"), "{} is in "),
    "agent": (re.compile(r"(?:in\s++|at\s++)?(?=room \d\b)"), "{} is in "),
    "room": (re.compile(r"(?=bomb \d\b|(?:nothing|none|empty|no bomb)\b)"), "{}: "),
    "seq": (re.compile(rf"(?={_C})"), "{}: "),
    "seq2": (re.compile(rf"(?={_C})"), "{}: "),
    "score": (re.compile(r"(?=\d{1,3}\b)"), "{}: "),
}


def _answered(question: str, answer: str) -> str:
    """``answer`` as the statement it makes when it answers ``question``.

    "Room 0", after "where's bomb 1?", is "bomb 1 is in room 0"; an answer of another kind
    is left as it is.
    """
    m = _WH_ASKED.match(question)
    if not m or m.lastgroup is None:
        return answer
    pattern, form = _ANSWER[m.lastgroup]
    a = pattern.match(answer)
    return form.format(m[m.lastgroup]) + answer[a.end() :] if a else answer


_RETRACT = re.compile(
    r"\b(?:that was wrong|that's wrong|that is wrong|that was a mistake|that's not right|"
    r"scratch that|ignore that|ignore my last message|ignore what i said|disregard(?: that)?|"
    r"forget (?:that|what i said))\b"
)
_VALUE = re.compile(rf"\d|{_C}")
#: A guess added as a clause of its own: what came before it is not asserted.
_AFTERTHOUGHT = re.compile(
    r"(?:i'm |i am )?(?:not sure|not certain|unsure|i think|i guess|probably|maybe|perhaps|"
    r"i believe)\W*+$"
)
_KIND_PATTERNS = (
    (re.compile(_C), _LIST_HEAD),
    (re.compile(r"room"), re.compile(r"\broom \d\b")),
    (re.compile(r"bomb"), _BOMB_ID),
    (re.compile(r""), re.compile(r"(?<!bomb )(?<!room )\b\d{1,3}\b")),
)


def _substitute(text: str, value: str) -> str | None:
    """``text`` with its last value of ``value``'s kind replaced by ``value``."""
    pattern = next(values for kind, values in _KIND_PATTERNS if kind.match(value))
    last = None
    for last in pattern.finditer(text):  # noqa: B007 -- the last one is wanted
        pass
    if last is None:
        return None
    return text[: last.start()] + value + text[last.end() :]


def _assemble(facts: Iterable[tuple[int, tuple, Any]]) -> dict[tuple, Any]:
    """Facts in the order stated, later winning; a bomb's room and a room's bomb kept one."""
    out: dict[tuple, Any] = {}
    for _, key, value in facts:
        kind = key[0]
        if kind == "bomb_room":
            bomb, room = key[1], value
            for k, v in list(out.items()):
                stale_room = k[0] == "room_bomb" and v == bomb and k[1] != room
                if stale_room or (k[0] == "bomb_room" and v == room and k[1] != bomb):
                    del out[k]
            out[("room_bomb", room)] = bomb
        elif kind == "room_bomb":
            room, bomb = key[1], value
            for k, v in list(out.items()):
                if k[0] == "bomb_room" and v == room and k[1] != bomb:
                    del out[k]
            if bomb:
                out[("bomb_room", bomb)] = room
        elif kind == "bomb_status" and value != "active":
            out[("bomb_remaining", key[1])] = ()
        elif kind == "bomb_status" and out.get(("bomb_remaining", key[1])) == ():
            del out[("bomb_remaining", key[1])]  # active after all: what is left is not known
        elif kind == "bomb_remaining" and value:
            out[("bomb_status", key[1])] = "active"
        out[key] = value
    return out
