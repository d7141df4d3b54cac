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
out ("b3", "bomb4", "rm 3", "r8", "@", ">", '"bomb": 3'); "here", "in here", "my room", "this
room", "the room I'm in", "where I am" become the sender's room, "there" the last room named,
"it"/"its"/"with it" the last bomb named, "she's"/"he's" the last teammate named, "you" the
teammate the message opens by naming; the sender's sign-on ("Alpha here", "Bravo reporting")
is dropped; an alternative struck out ("30 not 40", "defused, not exploded", "blue then red,
not red then blue") is removed; the bare numbers of a list headed "rooms ...:", "bombs ...:"
or "positions:" are read as rooms, bombs or places. Then:

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
red-green
... cut red on bomb 2, green left; remaining:   ``bomb_remaining 2 = (green,)`` (what is left,
green; green and blue remain; red is the only   of the last bomb named)
one left
remaining sequence: none; nothing left; no      ``bomb_remaining = ()``
phases left
next cut on bomb 3 is green; blue is next;      ``bomb_status = active`` only (just the next
bomb 5 needs someone with blue / needs your     cut, or only that cuts are pending, is known)
blue / needs one more cut; two phases left on
bomb 4; a blue cut from someone
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
the bomb in room 3 is bomb 2; room 3's bomb is
bomb 2; I'm in room 3 with bomb 2; there's a
bomb in room 3, it's bomb 2; bombs 1 and 2 in
rooms 0 and 3 (in that order)
room 5 is empty / has no bomb / bomb-free /     ``room_bomb 5 = 0``
turned out to be empty / does not contain any
bomb; nothing in 5; there isn't a bomb in room
5; no bombs in rooms 0 or 5; rooms 0 and 5
are empty
I'm in room 6; Bravo's in 8; I moved to room    ``agent_room`` of the sender or the named
6; Bravo just walked into 8; arrived at room    agents (``we all``, ``everyone``: the paper's
6; Alpha and I are both in 0; Charlie is with   team; ``in room 6 with me`` adds the sender,
me; Alpha is with Charlie in room 8; location:  ``with Bravo`` adds Bravo)
room 3; Bravo: room 6; Charlie, you're in 8;
I'll stay in room 3; I was in 3, now in 8
bomb 5 has three phases; a 3-phase bomb;        ``bomb_phases 5 = 3`` ("N phases left" is no
phases: 3; a 3-step sequence; all three         total)
phases cut
score is 40; we're at 40 points; points: 40;    ``score = 40`` (not "+10", "10 more points"
that's 40 pts total; that puts us at 40;        or "we earned 10 points")
we've scored 40 so far
bomb 3 is in room 5, no wait, room 6; bomb 2    the corrected value replaces the one before
is red, sorry, blue; EDIT: blue, red; has 2     it; "that was wrong", "scratch that" drop what
phases... actually 3; that was wrong, ...       came before
is bomb 1 in room 0? yes                        the question's answer: ``bomb_room 1 = 0``
==============================================  ==============================================

Questions, requests, plans, conditions, guesses and third-person beliefs ("Alpha thinks ...")
state nothing (:func:`mase.claims.hedge_spans`), nor do negations ("bomb 3 is not in room 5",
"no sign of bomb 2"), past places of agents ("Charlie was in room 3"), action reports that do
not say what is left ("I cut red on bomb 2"), score deltas, or talk about one's own cutters.
A clause that names a bomb, a room, the score, a status or a bomb's colours outside all it
read or understood to state nothing is returned in ``Claims.unread``: the tracker flags the
message rather than treat it as saying nothing.
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
    r"(?:(?:and|then|followed by|after that|finally|lastly|next)\s++){0,3}+"
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
        # "I'll stay in room 3" says where the sender is now
        (r"\bi(?:'ll| will|'m going to| am going to|'m| am)? stay(?:ing)? (?=(?:in|at) )", "i'm "),
    )
)
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
    rf"\b({_C})\s*+,?\s++not\s++{_LIST}(?!\s*+(?:in|at|yet)\b)"
    r"|(?<![\d.])(\d{1,3})\s*+,?\s++not\s++(?:room\s++)?\d{1,3}\b(?!\s*+(?:in|at|yet)\b)"
    rf"|\b({_STATUS})\s*+,?\s++not\s++(?:{_STATUS})\b(?!\s*+(?:in|at|yet)\b)"
)


def _canonical(text: str) -> str:
    text = _TYPO_CANDIDATE.sub(lambda m: _typo_of(m[0]), text)
    for pattern, replacement in _CANONICAL:
        text = pattern.sub(replacement, text)

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
    r"(?:^|(?<=[.!?:\n]))\s*+{name}\s++(?:here|reporting|update|checking in)\b\s*+[!.:,]*+\s*+"
    r"(?P<place>(?=(?:in|at)\b))?"
)
_VOCATIVE = re.compile(rf"^\s*+({_NAME})\s*+[,:!]\s*+(?!(?:room\s++)?\d)")
_YOU_ARE = re.compile(r"\byou(?:'re| are)\b")
_YOU_AND_I = re.compile(rf"\byou and ((?:i|me)\b|{_NAME})")


def _people(text: str, sender: str) -> str:
    """Drop the sender's sign-on ("Alpha here") and read "you" as the teammate addressed."""
    sign_on = re.compile(_SIGN_ON.format(name=re.escape(sender)))
    text = sign_on.sub(lambda m: " i'm " if m["place"] is not None else " ", text)
    text = text.strip()
    m = _VOCATIVE.match(text)
    if m and m[1] != sender:
        text = _YOU_ARE.sub(f"{m[1]} is", text)
        text = _YOU_AND_I.sub(lambda y: f"{m[1]} and {'i' if y[1] == 'me' else y[1]}", text)
    return text


_HERE_IN = re.compile(r"\b(?:here|there)\s++(?:in|at)\s++(?:room\s++)?(\d)\b")
_SAME_ROOM_AS = re.compile(
    rf"\b(i'm|i am) in the same room as ({_NAME})(?:\s*+,?\s*+(?:in\s++)?room (\d))?"
)
_MY_ROOM = re.compile(
    r"\b((?:in|at)\s++)?(?:the\s++)?(?:same room as me|my (?:current\s++)?room|current room|"
    r"the room i'm in|the room i am in|this room|the room with me|where i am|where i'm)\b"
)
_HERE = re.compile(r"\b(?:in\s++|right\s++)?here\b(?! with me)")
_PRESENTING = re.compile(r"(?<!\s)(?:'s|\s++is|\s++are)\b")
_BOMB_WITH_ME = re.compile(
    r"\b(bomb \d)(?:'s|\s++is)?\s++(?:in\s++|right\s++)?(?:here\s++)?with me\b"
)
#: After these, "here" is where someone should come, not where something is.
_MOTION_BEFORE = re.compile(r"\b(?:come|get|over|back|wait|waiting|stay|bring|meet|to|from)\s*+$")
_THERE = re.compile(
    r"\broom (\d)\b|\b(?:is|are|'s|'m|am) there\b(?=\s*+(?:now\b|[.,!;]|$))"
    r"|\b(?P<bomb>bomb \d) there\b"
    r"|\b(?P<it>it(?:'s| is| was) (?:empty|vacant)|it (?:has|had) (?:no bombs?|nothing))\b"
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
                out.append(f"room {last_room}" + m["it"][2:].replace("'s", " is", 1))
            elif m["bomb"]:
                out.append(f"{m['bomb']} in room {last_room}")
            else:
                verb = m[0].split()[0].replace("'s", " is").replace("'m", " am")
                out.append(f"{verb} in room {last_room}")
            pos = m.end()
    out.append(text[pos:])
    return "".join(out)


_PRONOUN = re.compile(
    r"\bbomb (\d)\b|\b(?P<subject>it(?:'s| is| was| has| had| needs| still| exploded| blew| went"
    r"| just| only| reads| got| now))\b|\b(?P<its>its)\b|\b(?P<verb>defused|disarmed|finished|"
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
            return bomb + (" is" if rest == "'s" else rest)
        if m["its"]:
            return bomb + "'s"
        if m["verb"]:
            return f"{m['verb']} {bomb}"
        return bomb + " is"

    return _PRONOUN.sub(sub, text)


def _prepare(text: str, sender: str, here: int | None) -> str:
    """The canonical form of a message (see the module docstring)."""
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
    r"(?:empty|vacant|clear|bomb-free)|has|had|contains|holds|empty|no|nothing|bomb)\b"
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
    r"(?<!\s)\s*+(?:still\s++)?needs?\s++(?:someone|somebody|a teammate|an agent|help|"
    rf"one of you|an? {_C} cutter|the {_C} cutter|a cutter|(?:your|my|his|her|their) {_C}|"
    r"(?:\d|one|a few|some|another)\s++(?:more\s++)?(?:cuts?|phases?|steps?))"
    rf"(?:\s++(?:with|who has|holding)\s++(?:a\s++|the\s++)?{_LIST}(?:\s++cutters?)?)?+"
)
#: A list that is not a bomb's colours: cutters someone holds, a choice, an object.
_NOT_SEQUENCE_AFTER = re.compile(r"(?<!\s)\s*+(?:cutters?|or\b|nor\b|one\b|wire\b|\?)")
_FROM_SOMEONE = re.compile(
    r"(?<!\s)\s*+(?:cut\s++)?(?:from|by)\s++(?:someone|somebody|one of you|anyone|you|a teammate)"
)
#: Only the next colour is known ("next cut on bomb 3 is green", "needs green next").
_NEXT_BEFORE = re.compile(r"\bnext\s++(?:cut|colou?r|phase|wire|one|step)?\s*+(?:on|for|of)?\s*+$")
_NEXT_AFTER = re.compile(r"(?<!\s)\s*+next\b")
_NEXT = re.compile(r"\bnext\b")
#: What opens a part with a subject of its own (where a plan's hedge ends).
_SUBJECT = re.compile(rf"(?:and\s++)?(?:bombs? \d|room \d|{_NAME}|i'm|i am|we're|score)")
_I_OR_NAME = re.compile(rf"\b(?:i'm|i)\b|\b{_NAME}")
_WHO = re.compile(rf"{_NAME}|\b(?:i|i'm|me|my)\b")
_BOMB_ID = re.compile(r"\bbomb (\d)\b")
#: Where a no-fact part (a negation, an action report) ends: its comma or joining word.
_PART_END = re.compile(r"[,;:]|\s(?:and|so|then)\s")


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

    def __init__(self, text: str, sender: str, here: int | None, topic: int | None):
        self.text = text
        self.sender = sender
        self.here = here
        self.topic = topic  # the last bomb named before this clause
        self.hedges = _merged(hedge_spans(text, _SUBJECT))
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
        for m in _ALL_PHASES.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_phases", bomb), int(m[1]))
        for m in _SUBJECTLESS_PHASES.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_phases", bomb), int(m[1]))

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
        for m in _COUNT_LEFT.finditer(text):
            bomb = int(m["bomb"]) if m["bomb"] else self.topic_at(m.start())
            if bomb is not None and int(m[1]) > 0:
                self.add((m.start(), m.end()), ("bomb_status", bomb), "active")
        for m in _NOTHING_LEFT_IN.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_room", bomb), int(m["room"]))
                self.add((m.start(), m.end()), ("bomb_remaining", bomb), ())
        for m in _COLOUR_NEXT.finditer(text):
            bomb = self.topic_at(m.start())
            if bomb is not None:
                self.add((m.start(), m.end()), ("bomb_status", bomb), "active")
        for pattern in (_LIST_THEN_LEFT, _SUBJECTLESS_LIST):
            for m in pattern.finditer(text):
                colours = _colours(m["list"])
                named = m.groupdict().get("bomb")
                bomb = int(named) if named else self.topic_at(m.start())
                if colours and bomb is not None and not _NOT_SEQUENCE_AFTER.match(text, m.end()):
                    self.add((m.start(), m.end()), ("bomb_remaining", bomb), colours)

    # -- rooms ---------------------------------------------------------------------------------

    def _rooms(self) -> None:
        text = self.text
        for m in _ROOM_HAS_BOMB.finditer(text):
            room = m["room"] or m["room2"] or m["room3"] or m["room4"] or m["room5"] or m["room6"]
            self.add((m.start(), m.end()), ("bomb_room", int(m["bomb"])), int(room))
        for m in _ROOM_EMPTY.finditer(text):
            if not m["room3"] and _NEGATION.search(m[0]):
                self.seen(m.start(), m.end())
                continue
            for room in _DIGIT.findall(m["room"] or m["room2"] or m["room3"] or m["room4"]):
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
                self.add(span, ("agent_room", self.sender), int(m["room"]))
            elif self.here is not None:
                for who in self._who(m["who"]):
                    self.add(span, ("agent_room", who), self.here)
        for m in _IN_ROOM_WITH.finditer(text):
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
        for m in _MOVED_ALONE.finditer(text):
            self.add((m.start(), m.end()), ("agent_room", self.sender), int(m["room"]))
        for m in _LOCATION.finditer(text):
            if not (self.bomb_starts and self.bomb_starts[0] < m.start()):
                who = m["who"] or self.sender
                self.add((m.start(), m.end()), ("agent_room", who), int(m["room"]))
        for m in _WE_ALL.finditer(text):
            for who in TEAM:
                self.add((m.start(), m.end()), ("agent_room", who), int(m["room"]))

    def _who(self, subject: str) -> list[str]:
        names = _WHO.findall(subject)
        return [self.sender if n in ("i", "i'm", "me", "my") else n for n in names]

    # -- score ---------------------------------------------------------------------------------

    def _score(self) -> None:
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
_ALL_PHASES = re.compile(
    r"\ball (\d) (?:phases|colou?rs|cuts|wires|steps)\s++(?:are\s++|were\s++|have been\s++)?"
    r"(?:cut|done|complete|completed|defused|cleared)\b"
)
_SUBJECTLESS_PHASES = re.compile(r"(?:^|[,:]\s*+)(?:total\s++)?phases\s*+(?::|=|is|are)\s*+(\d)\b")
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
_TOOL_BEFORE = re.compile(r"\b(?:have|has|hold|holds|got|bring|with|use|using|cut|cutting)\b")
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
_COLOUR_NEXT = re.compile(
    rf"(?:^|[,:]\s*+|\band\s++)(?:{_C}\s++(?:is|comes)\s++next|next\s*+(?:is|:)\s*+{_C}"
    r"(?!\s*+(?:,|then|and)))"
)
_LIST_THEN_LEFT = re.compile(
    rf"(?P<list>{_LIST})\s++(?:is\s++|are\s++)?(?:the\s++)?(?:only\s++|last\s++)?"
    r"(?:(?:one|ones|colou?rs?|cuts?|phases?)\s++)?(?:left|remaining|remain|to go)\b"
    r"(?:\s++(?:on|for)\s++bomb (?P<bomb>\d))?"
)
_SUBJECTLESS_LIST = re.compile(
    r"(?:^|[,:]\s*+|\band\s++)(?:the\s++)?(?:remaining(?:\s++(?:sequence|phases|colou?rs|cuts|steps))?|"
    r"sequence|seq|"
    r"colou?rs|order|needs|still needs|remaining colou?rs)\s*+(?:is|are|:|=|reads)?\s*+"
    rf"(?P<list>{_LIST})"
)
_ROOM_HAS_BOMB = re.compile(
    r"(?:(?:^|[,:;]\s*+|\b(?:and|so|earlier|now)\s++)room (?P<room>\d)\s*+(?:[,:=]\s*+)?"
    r"(?:has|had|holds|contains|contained|with|->|now has|also has|has only|is where|does have|"
    r"did have)?\s*+(?:a\s++bomb\s*+,\s*+(?:it's\s++|namely\s++)?)?"
    r"|\bbomb (?:in|at) room (?P<room2>\d)\s*+[,:]?\s*+(?:is|it's|=)?\s*+"
    r"|\broom (?P<room5>\d)'s bomb\s*+(?:is|=|:)?\s*+"
    r"|\bin room (?P<room3>\d)\s*+,?\s*+(?:and\s++)?(?:with|there's|there is|i found|i see|"
    r"i saw|we have|is|has)\s++|(?:^|[,;]\s*+)in room (?P<room4>\d)\s*+[:=]\s*+"
    r"|^(?P<room6>\d)\s*+:\s*+)"
    r"(?:a\s++|the\s++|only\s++)?bomb (?P<bomb>\d)\b"
    r"(?!\s*+(?:,|and)\s*+\d\b(?!\s*+-?\s*+(?:phases?|points|pts|colou?rs|cuts)))"
)
_ROOM_EMPTY = re.compile(
    r"\b(?:rooms (?P<room>\d(?:\s*+(?:,|and|&|or)\s*+\d\b){0,5}+)"
    r"|room (?P<room4>\d(?:\s*+(?:and|&|or)\s*+(?:room\s++)?\d\b){0,5}+))\s*+(?:[,:=]\s*+)?"
    r"(?:[a-z']++\s++){0,4}?(?:empty|vacant)\b"
    r"|\broom (?P<room3>\d)\s++(?:does not|doesn't|did not|didn't)\s++(?:have|contain|hold)\s++"
    r"(?:any|a)\s++bombs?\b"
    r"|\brooms? (?P<room2>\d(?:\s*+(?:,|and|&|or)\s*+(?:room\s++)?\d\b){0,5}+)\s*+(?:[,:=]\s*+)?"
    r"(?:has|have|had|contains?|holds?|with)?\s*+"
    r"(?:no\s++bombs?|nothing|zero bombs|0 bombs)\b(?!\s*+(?:left|to))"
)
_NO_BOMB_IN = re.compile(
    r"\b(?:(?:no|zero|0)|there\s++(?:isn't|is\s++not|aren't|are\s++not|wasn't|was\s++not)\s++"
    r"(?:a|any))\s++bombs?\s++(?:found\s++)?(?:in|at)\s++(?P<rooms>(?:rooms?\s++)?\d\b"
    r"(?:\s*+(?:,|or|and|nor)\s*+(?:room\s++)?\d\b){0,5}+)"
    r"|\bnothing\s++(?:found\s++)?(?:in|at)\s++(?P<rooms2>(?:room\s++)?\d)\b"
)
_SUBJECTS = rf"(?:{_NAME}|\bi\b|\bme\b)(?:\s*+(?:,|and|&)\s*+(?:{_NAME}|\bi\b|\bme\b)){{0,5}}+"
_AGENT_IN = re.compile(
    rf"(?P<who>{_SUBJECTS}(?:'s|'m|'ve been|\s++(?:is|are|am|have been|has been))?"
    r"(?:\s++(?:now|currently|still|already|just|also|both|all|together|right now|stuck|"
    r"sitting|standing|waiting|staying|located|positioned|stationed|situated|here|safely|"
    rf"actually|definitely|back|with {_NAME}(?:\s*+(?:,|and|&)\s*+{_NAME})?)){{0,4}}+)"
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
_IN_ROOM_WITH = re.compile(
    rf"\bin room (?P<room>\d),? with (?P<with>(?:[^,.;]|,(?=\s*+{_C})){{1,50}}+)"
)
_NOW_IN = re.compile(
    r"(?:,\s*+|\band\s++)(?:but\s++)?now\s++(?:in|at)\s++(?:room\s++)?(?P<room>\d)\b"
)
#: A move with no subject opening a clause is the sender's ("Arrived at room 5", "now in 3").
_MOVED_ALONE = re.compile(
    r"^(?:just\s++|finally\s++)?(?:(?:moved|walked|went|came|got|arrived|returned|made it)"
    r"(?:\s++(?:back|over))?\s++(?:in\s*+to|into|to|in|at|inside)|entered|reached|"
    r"(?:now|currently|still|back)\s++(?:in|at)|(?:in|at)(?=\s++(?:room\s++)?\d\W*+$))\s++"
    r"(?:room\s++)?(?P<room>\d)\b"
)
_LOCATION = re.compile(
    rf"(?:^|[,;]\s*+)(?:my\s++|(?P<who>{_NAME})'s\s++)?(?:current\s++)?location\s*+(?::|=|is)?\s*+"
    r"room (?P<room>\d)\b"
)
_WE_ALL = re.compile(
    r"(?:\bwe(?:'re| are)?\s++(?:now\s++)?all|\b(?:everyone|everybody|all of us|all 3 of us|"
    r"the whole team)(?:'s|\s++is|\s++are)?)(?:\s++(?:now|currently|still|here|together)){0,3}+"
    r"\s++(?:in|at)\s++(?:room\s++)?(?P<room>\d)\b"
)
_SCORE = re.compile(
    r"\bscore(?:'s|\s++is|\s++now|\s*+:|\s*+=|\s++of|\s++at|\s++stands at|\s++currently|"
    r"\s++is now|\s++so far){0,3}+\s*+(?P<a>\d{1,3})\b(?!\s*+(?:more|%))"
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
)
#: What makes a part of a clause understood to state nothing, though it names the game's
#: things: a negation, a past place, an action report, one's cutters, a search, a score
#: delta, a place that names no room, an unknown.
_NO_FACT = re.compile(
    r"\b(?:not|no longer|never|nor)\b|n't\b"
    r"|\b(?:was|were|used to be)\s++(?:in|at)\b|\b(?:left|leaving|been in)\s++(?:room\s++)?\d"
    r"|\b(?:applied|apply|applying|used|use|using|cut|cutting|snipped|tried|trying)\s++"
    rf"(?:the\s++|my\s++|a\s++)?{_C}|\binspect(?:ed|ing)?\s++(?:the\s++)?bomb\b"
    rf"|\bcutters?\b|\b(?:i|we|you|he|she|they|{_NAME})\s++(?:only\s++)?(?:have|has|hold|"
    r"holds|got|carry|carries)\b|\bcan (?:handle|do|take)\b"
    r"|\b(?:find|finding|look(?:ing)? for|search(?:ing)? for|missing)\b"
    r"|\b(?:another|extra|more)\s++\d++\s*+(?:points|pts)|\+\d"
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
    r"\b\w++'s room\b|\bunknown\b|\bnot (?:yet )?(?:known|found|inspected)\b|"
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
    """The facts a teammate's message states (see the module docstring).

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
    """
    text, unread_rest = cut_message(text)
    sender = sender.lower()
    exact = _templates(text)
    parts = clauses(_prepare(text, sender, sender_room))
    read: list[list[tuple[int, tuple, Any]]] = []
    unread: list[str] = []
    topic: int | None = None
    for i, clause in enumerate(parts):
        wording = clause
        if clause.endswith("?") and i + 1 < len(parts) and _YES.match(parts[i + 1]):
            wording = _ASKED.sub("", clause)  # "Is bomb 1 in room 0? Yes": the answer
        repair = _REPAIR.search(wording)
        if repair:  # "bomb 3 is in room 5, no wait, room 6"
            fixed = _substitute(wording[: repair.start()], repair["value"])
            if fixed is not None:
                wording = fixed
            elif read and (fixed := _substitute(parts[i - 1], repair["value"])) is not None:
                c = _Clause(fixed, sender, sender_room, topic)  # "... 2 phases... actually 3"
                c.read()
                read[-1] = c.facts
                continue
        c = _Clause(wording, sender, sender_room, topic)
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
        if c.unread():
            unread.append(clause)
        if c.bombs:
            last = c.bombs[-1][2]
            topic = last[0] if len(last) == 1 else None
    # the game's own sentences first: the grammar reads them alike, and a later correction wins
    stated = [(-1, key, value) for key, value in exact.items()]
    facts = _assemble(stated + [fact for clause_facts in read for fact in clause_facts])
    if exact and facts == _assemble(stated):
        confidence = TEMPLATE
    else:
        confidence = GRAMMAR if facts else 0.0
    return Claims(facts, confidence, tuple(unread) + unread_rest)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s++")


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
