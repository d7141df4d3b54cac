r"""A judge model that rates a dialogue response, for FED-style problems (:func:`.problems.fed`).

AgentVerse scores its FED dialogue responses with a GPT-4 judge. Here the judge is any
OpenAI-compatible endpoint, called through :class:`mase.llm.ChatClient` (the official
``openai`` client, its timeouts and retries, and the suite's response cache). A
:class:`Judge` is configured by its arguments, then these variables:

=========================  ==========================================================
variable                   meaning
=========================  ==========================================================
``MASE_JUDGE_MODEL``       the judge's model id; without it (or ``model=``), no judge
``MASE_JUDGE_BASE_URL``    its endpoint; else the ``openai`` client's own
                           (``OPENAI_BASE_URL``, else OpenAI's API)
``MASE_JUDGE_API_KEY``     its key; else ``OPENAI_API_KEY``; a loopback endpoint needs none
=========================  ==========================================================

The judge samples at temperature 0 with at most ``max_tokens`` tokens of reply. Its prompt
(:data:`JUDGE_SYSTEM`, then :data:`JUDGE_PROMPT`) asks for the overall quality of the
system's next turn on a scale of 1 to 5, with the FED turn-level qualities (relevant,
correct, specific, interesting, engaging, fluent, understandable) as what good means; one or
two sentences of explanation, then ``Rating: N`` on a line of its own.

The rating is read from the judge's reply by :func:`read_rating`, which tries these forms
in order and takes the first that occurs: (1) a rating labelled final or overall
(``Overall: 4``, ``Final rating: 4``); (2) one labelled rating, score or grade (``Rating:
4``, ``**Score:** 4/5``, ``my rating is 4``); (3) a fraction (``4/5``, ``4 out of 5``,
``four out of five``); (4) a verb phrase (``I'd give it a 4``, ``I would rate this response
4``, not after "not" or "n't"); (5) a number alone: in bold (``**4**``) or on a line of its
own. Number words one to ten count. Every occurrence of the chosen form must agree; ratings
that disagree, a number off the scale (``Rating: 7``), another scale (``8/10``), a range
(``Rating: 1-5``) or no rating at all leave the rating unreadable, with the reason: it is
never guessed. A rating ``r`` scores ``(r - 1) / 4``, in [0, 1].

A :class:`Judgement` carries the score, an explanation in the judge's own words (whitespace
collapsed, at most :data:`MAX_EXPLANATION_CHARS` characters) and, when no rating was
obtained, ``error``: the call failed after the client's retries, or the rating could not be
read. Such a response scores 0 and its explanation says why, so the group is not told it
wrote badly when the judge could not say.

:func:`offline_judge` is a test double for the judge, not a judge of quality: a
:data:`mase.llm.Responder` for :class:`mase.llm.OfflineServer` that rates by word overlap
and length.

>>> read_rating("Relevant and specific, if a little dull.\nRating: 4").value
4.0
>>> read_rating("I'd give it a 4 out of 5.").value
4.0
>>> print(read_rating("Fluency 5/5, relevance 2/5.").reason)
conflicting ratings: 5/5 and 2/5
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mase.llm.config import LLMConfig, LLMUnavailable

#: The scale the judge rates on.
LOWEST, HIGHEST = 1, 5
#: The longest explanation kept from the judge's reply.
MAX_EXPLANATION_CHARS = 500

CONTEXT_HEADER = "Conversation so far:"
RESPONSE_HEADER = "Response to rate (the system's next turn):"
JUDGE_SYSTEM = (
    "You are a careful, impartial judge of dialogue systems. You rate one response of a "
    "system in a conversation with a user."
)
JUDGE_PROMPT = (
    "Rate the overall quality of the system's response to the conversation below, on a scale "
    "of 1 to 5:\n"
    "5 - excellent: relevant to what the user said, correct, specific, interesting and "
    "engaging, fluent and easy to understand;\n"
    "4 - good: all of that, with a minor flaw;\n"
    "3 - acceptable: relevant, but generic, dull, or partly wrong;\n"
    "2 - poor: barely relevant, confusing, or mostly wrong;\n"
    "1 - bad: off topic, nonsensical, or empty.\n"
    "Judge only the response, not the conversation before it. First explain your judgement "
    "in one or two sentences, then give the rating on a last line of its own as 'Rating: N'."
    "\n\n" + CONTEXT_HEADER + "\n{context}\n\n" + RESPONSE_HEADER + "\n{response}"
)

#: How to configure a judge, for error messages.
HOW_TO_CONFIGURE = (
    "pass judge={'base_url': 'http://HOST:PORT/v1', 'model': 'MODEL'} (mase eval: --env-arg "
    "judge=\"{'base_url': 'http://HOST:PORT/v1', 'model': 'MODEL'}\"; in a preset, --env-arg "
    "fed.judge=...), or set MASE_JUDGE_MODEL, with MASE_JUDGE_BASE_URL and MASE_JUDGE_API_KEY "
    "(or OPENAI_API_KEY) for the endpoint"
)


class JudgeNotConfigured(ValueError):
    """No judge model is configured (or it cannot be reached for want of a key)."""


# -- reading a rating -----------------------------------------------------------------------------

_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten".split())}  # fmt: skip
_NUM = r"(\d+(?:\.\d+)?(?!\.?\d)|\b(?:" + "|".join(_WORDS) + r")\b)"
_OUT_OF = r"(?:\s*(?:/|out\s+of)\s*" + _NUM + r")"
_NOT_RANGE = r"(?!\s*(?:-|–|to)\s*\d)"
_FILL = r"[\s*_`]*(?:(?:is|of|would\s+be|:|=|-|–)[\s*_`]*)*"
#: The forms of :func:`read_rating`, most explicit first: (name, pattern).
RATING_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("overall", re.compile(
        r"\b(?:final|overall)(?:\s+(?:rating|score|grade|quality))?\b" + _FILL + _NUM
        + _OUT_OF + "?" + _NOT_RANGE, re.I)),
    ("labelled", re.compile(
        r"\b(?:rating|score|grade)\b" + _FILL + _NUM + _OUT_OF + "?" + _NOT_RANGE, re.I)),
    ("fraction", re.compile(r"(?<![\d/.])" + _NUM + _OUT_OF + r"(?![\d/])", re.I)),
    ("phrase", re.compile(
        r"\b(?:give|giving|rate|rating|score|scoring|award)\s+(?:(?:it|this|that|the)"
        r"(?:\s+(?:response|reply|turn))?\s+)?(?:(?:a|an|as|at)\s+)?" + _NUM + r"\b" + _NOT_RANGE,
        re.I)),
    ("alone", re.compile(
        r"\*\*\s*" + _NUM + r"\s*\*\*|^[\s*_`>#-]*" + _NUM + r"[\s*_`.]*$", re.I | re.M)),
)  # fmt: skip


@dataclass(frozen=True)
class Rating:
    """A rating read from the judge's reply, or why none could be.

    Attributes:
        value: the rating on the scale (:data:`LOWEST` to :data:`HIGHEST`), ``None`` when
            unreadable.
        reason: what was read (``"Rating: 4"``), or why nothing could be.
    """

    value: float | None
    reason: str

    @property
    def score(self) -> float | None:
        """The rating mapped to [0, 1] (``None`` when unreadable)."""
        if self.value is None:
            return None
        return (self.value - LOWEST) / (HIGHEST - LOWEST)


def _number(text: str) -> float:
    text = text.lower()
    return float(_WORDS[text]) if text in _WORDS else float(text)


def read_rating(text: str) -> Rating:
    """The rating in a judge's reply (the forms and rules are in the module's docstring).

    >>> read_rating("**Rating:** 3").value, read_rating("Overall: 5/5").value
    (3.0, 5.0)
    >>> read_rating("Rating: 8/10").reason
    'not on the scale of 1 to 5: Rating: 8/10'
    >>> read_rating("A fine reply.").reason
    'no rating found in the reply'
    """
    if not text.strip():
        return Rating(None, "the reply is empty")
    for form, pattern in RATING_FORMS:
        found = []
        for match in pattern.finditer(text):
            if form == "phrase" and re.search(r"(?:\bnot|n't)\s*$", text[: match.start()], re.I):
                continue  # "I would not give it a 5"
            value, *scale = [g for g in match.groups() if g is not None]
            said = " ".join(re.sub(r"[*_`]+", "", match.group(0)).split())
            found.append((said, _number(value), scale[0] if scale else None))
        if not found:
            continue
        for said, value, scale in found:
            if (scale is not None and _number(scale) != HIGHEST) or not (
                LOWEST <= value <= HIGHEST
            ):
                return Rating(None, f"not on the scale of {LOWEST} to {HIGHEST}: {said}")
        values = {value for _, value, _ in found}
        if len(values) > 1:
            said = dict.fromkeys(s for s, _, _ in found)
            return Rating(None, "conflicting ratings: " + " and ".join(said))
        return Rating(values.pop(), found[-1][0])
    return Rating(None, "no rating found in the reply")


def judge_words(reply: str, limit: int = MAX_EXPLANATION_CHARS) -> str:
    """The judge's reply as an explanation: whitespace collapsed, cut at a word to ``limit``."""
    words = " ".join(reply.split())
    if len(words) <= limit:
        return words
    return words[: limit - 1].rsplit(" ", 1)[0] + "…"


# -- the judge ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """What the judge made of one response.

    Attributes:
        score: in [0, 1]: the rating mapped from the scale; 0 when ``error`` is set.
        explanation: the rating and the judge's own words, or why there is no rating.
        rating: the rating read (``None`` when the call failed or the response was empty).
        error: why no rating was obtained (the call failed, or the rating was unreadable).
        reply: the judge's reply as it came ("" when the call failed).
    """

    score: float
    explanation: str
    rating: Rating | None = None
    error: str | None = None
    reply: str = ""


class Judge:
    """A judge model for dialogue responses (the module docstring has the prompt and rules).

    Args:
        base_url: the endpoint, ending in ``/v1``; else ``MASE_JUDGE_BASE_URL``, else the
            ``openai`` client's default (``OPENAI_BASE_URL``, else OpenAI's API).
        model: the judge's model id; else ``MASE_JUDGE_MODEL``. Required.
        api_key: the key; else ``MASE_JUDGE_API_KEY``, else ``OPENAI_API_KEY``; a loopback
            endpoint needs none.
        max_tokens: the longest reply asked for (an explanation and a rating line).
        timeout: seconds before the client gives up on one request.
        max_retries: retries the ``openai`` client makes itself (rate limits, 5xx, timeouts,
            dropped connections).
        cache: the response cache, as :class:`mase.llm.LLMConfig` takes it (``False``: none).

    Raises:
        JudgeNotConfigured: no model, or no key for a remote endpoint; the message says how
            to configure one.

    Example:
        >>> from mase.llm import OfflineServer
        >>> with OfflineServer(offline_judge) as server:
        ...     judge = Judge(server.base_url, "offline-judge", cache=False)
        ...     judgement = judge.rate("User: Which bird sings at dawn?", "The blackbird sings.")
        >>> judgement.score, judgement.error
        (0.5, None)
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        max_tokens: int = 300,
        timeout: float = 60.0,
        max_retries: int = 2,
        cache: str | os.PathLike | bool | None = None,
    ):
        model = model or os.environ.get("MASE_JUDGE_MODEL") or None
        if model is None:
            raise JudgeNotConfigured(
                "FED responses are scored by a judge model, and no judge model is named: "
                + HOW_TO_CONFIGURE
            )
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
        self.config = LLMConfig(
            model=model,
            base_url=base_url or os.environ.get("MASE_JUDGE_BASE_URL") or None,
            api_key=api_key or os.environ.get("MASE_JUDGE_API_KEY") or None,
            temperature=0.0,
            max_tokens=max_tokens,
            timeout=timeout,
            max_retries=max_retries,
            cache=cache,
        )
        try:
            self.config.resolved_api_key()
        except LLMUnavailable as exc:
            raise JudgeNotConfigured(f"the judge model: {exc} (or MASE_JUDGE_API_KEY)") from None
        self._lock = threading.Lock()
        self._judged: dict[tuple[str, str], Judgement] = {}
        self._last_failure: tuple[tuple[str, str], Judgement] | None = None

    @classmethod
    def of(cls, judge: Judge | Mapping[str, Any] | None) -> Judge:
        """A judge from a :class:`Judge`, a dict of its arguments, or ``None`` (the variables).

        Raises:
            JudgeNotConfigured: as :class:`Judge`.
            ValueError: a dict with a key that is no argument of :class:`Judge`.
        """
        if isinstance(judge, Judge):
            return judge
        if judge is None:
            return cls()
        if not isinstance(judge, Mapping):
            raise ValueError(f"judge takes a dict of Judge's arguments, got {judge!r}")
        known = ("base_url", "model", "api_key", "max_tokens", "timeout", "max_retries", "cache")
        unknown = sorted(set(judge) - set(known))
        if unknown:
            raise ValueError(f"judge has no settings {unknown}; settings: {', '.join(known)}")
        return cls(**judge)

    @property
    def client(self) -> Any:
        """The process's :class:`mase.llm.ChatClient` for this judge's config."""
        from mase.llm.client import ChatClient  # imports openai: paid on first use

        return ChatClient.shared(self.config)

    def messages(self, context: str, response: str) -> list[dict[str, str]]:
        """The chat sent to the judge model."""
        prompt = JUDGE_PROMPT.format(context=context.strip(), response=response)
        return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": prompt}]

    def rate(self, context: str, response: str) -> Judgement:
        """The judge's judgement of ``response`` as the system's next turn after ``context``.

        Args:
            context: the conversation, one ``User: ...`` or ``System: ...`` line a turn.
            response: the reply under judgement (a leading ``System:`` label is dropped).

        A judgement is remembered for the judge's life, so a score and its explanation come
        from one call; a failed one only until the next different request, so the same reply
        is asked about again later rather than failing for good.
        """
        response = re.sub(r"^\s*system\s*:\s*", "", response, flags=re.I).strip()
        key = (context, response)
        with self._lock:
            known = self._judged.get(key)
            if known is None and self._last_failure is not None and self._last_failure[0] == key:
                known = self._last_failure[1]
        if known is not None:
            return known
        judgement = self._ask(context, response)
        with self._lock:
            if judgement.error is None:
                self._judged[key] = judgement
            else:
                self._last_failure = (key, judgement)
        return judgement

    def _ask(self, context: str, response: str) -> Judgement:
        if not response:
            return Judgement(0.0, "The response is empty.")  # a rule, not the judge's rating
        completion = self.client.complete(self.messages(context, response), "answer")
        if completion.error is not None:
            return Judgement(
                0.0,
                f"The judge could not be asked ({completion.error}); the response is unscored.",
                error=f"judge call failed: {completion.error}",
            )
        rating = read_rating(completion.text)
        if rating.value is None:
            return Judgement(
                0.0,
                f"The judge's rating could not be read ({rating.reason}); the response is "
                "unscored. The judge said: " + judge_words(completion.text, 200),
                rating,
                f"unreadable rating: {rating.reason}",
                completion.text,
            )
        return Judgement(
            rating.score,
            f"The judge rated the response {rating.value:g} of {HIGHEST}: "
            + judge_words(completion.text),
            rating,
            reply=completion.text,
        )

    def __getstate__(self) -> dict[str, Any]:
        return {"config": self.config}  # the memory and the lock stay with the original

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.config = state["config"]
        self._lock = threading.Lock()
        self._judged = {}
        self._last_failure = None

    def __repr__(self) -> str:
        return f"Judge(model={self.config.model!r}, base_url={self.config.base_url!r})"


# -- the offline test double ----------------------------------------------------------------------

#: The offline judge's length bounds, in words.
OFFLINE_MIN_WORDS, OFFLINE_MAX_WORDS = 3, 60
_LETTERS = re.compile(r"[a-z]+")
_SPEAKER = re.compile(r"^\s*(?:user|system)\s*:", re.I | re.M)


def content_words(text: str) -> list[str]:
    """The offline judge's content words of ``text``, in order.

    They are runs of four or more letters, lowercased, ``User:`` and ``System:`` labels left
    out.

    >>> content_words("User: My garden roses wilt, sadly.")
    ['garden', 'roses', 'wilt', 'sadly']
    """
    return [w for w in _LETTERS.findall(_SPEAKER.sub(" ", text).lower()) if len(w) >= 4]


def overlap_rating(context: str, response: str) -> tuple[int, tuple[str, ...], int]:
    """The offline judge's rule: (rating, the shared content words, the response's length).

    The rating is 1, plus one for each distinct content word (:func:`content_words`) of the
    response that the conversation also has (at most 3), plus one when the response is
    :data:`OFFLINE_MIN_WORDS` to :data:`OFFLINE_MAX_WORDS` words long (runs of letters).

    >>> overlap_rating("User: My garden roses wilt.", "Water your roses and garden early.")
    (4, ('roses', 'garden'), 6)
    """
    said = set(content_words(context))
    words = _LETTERS.findall(response.lower())
    shared = tuple(dict.fromkeys(w for w in content_words(response) if w in said))
    fits = OFFLINE_MIN_WORDS <= len(words) <= OFFLINE_MAX_WORDS
    return 1 + min(len(shared), 3) + int(fits), shared, len(words)


def offline_judge(messages: Sequence[Mapping[str, Any]]) -> str:
    """A test double for the judge model: rates by :func:`overlap_rating`, in words.

    It reads the conversation and the response from the last user message, laid out as
    :data:`JUDGE_PROMPT` lays them out; a prompt it cannot read gets a reply with no rating.
    It knows nothing of quality: it exists so the FED path runs offline, end to end.
    """
    text = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"),
                "")  # fmt: skip
    head, found, rest = text.partition(CONTEXT_HEADER + "\n")
    context, found_response, response = rest.partition("\n\n" + RESPONSE_HEADER + "\n")
    if not (found and found_response):
        return "I cannot find a conversation and a response to rate."
    rating, shared, length = overlap_rating(context, response)
    fits = "within" if OFFLINE_MIN_WORDS <= length <= OFFLINE_MAX_WORDS else "outside"
    words = ", ".join(shared) if shared else "none"
    return (
        f"The response shares {len(shared)} content word(s) with the conversation ({words}) "
        f"and is {length} words long, {fits} {OFFLINE_MIN_WORDS} to {OFFLINE_MAX_WORDS}.\n"
        f"Rating: {rating}"
    )
