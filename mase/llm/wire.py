"""The OpenAI chat API on the wire, as the offline server reads and writes it.

:func:`chat_request` checks a request body as far as the server reads it and names the first
thing wrong, in the field the OpenAI API would name (:class:`BadRequest`); :class:`Reply`
writes a completion as one ``chat.completion`` object or as ``chat.completion.chunk`` events.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

#: Words per streamed content chunk.
WORDS_PER_CHUNK = 8

#: The largest request body read; a longer one is answered 413 unread.
MAX_BODY_BYTES = 16 * 2**20

_FILLER = "This sentence pads a very long reply from the offline model server. "


def count_tokens(text: str) -> int:
    """A rough token count: whitespace-separated words."""
    return len(text.split())


class BadRequest(Exception):
    """A request refused before the model sees it: why, the status, the field at fault."""

    def __init__(
        self, message: str, status: int = 400, param: str | None = None, close: bool = False
    ):
        super().__init__(message)
        self.status = status
        self.param = param
        # the body is not (all) read, so the connection cannot carry another request
        self.close = close


#: JSON's names for the Python types ``json.loads`` makes, for error messages.
_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
               int: "a number", float: "a number", type(None): "null"}  # fmt: skip

#: The optional request fields this server reads, with the type each must have when present
#: and not null. Every other field is ignored, as a model without that setting would.
_OPTIONAL_FIELDS = {"model": str, "stream": bool, "stream_options": dict}


#: The sampling settings checked when present and not null: field -> (least, most, whole).
#: The server samples nothing, but a request a hosted API would refuse is refused here too,
#: so a bad setting is found offline rather than on the first paid call.
_NUMBER_FIELDS = {
    "temperature": (0.0, 2.0, False),
    "top_p": (0.0, 1.0, False),
    "presence_penalty": (-2.0, 2.0, False),
    "frequency_penalty": (-2.0, 2.0, False),
    "max_tokens": (1, None, True),
    "max_completion_tokens": (1, None, True),
    "n": (1, 128, True),
}


def _no_constant(name: str) -> float:
    """Refuse ``NaN``, ``Infinity`` and ``-Infinity``: Python's JSON reader takes them, JSON not."""
    raise BadRequest(f"the body is not JSON: {name} is not a JSON number")


def _finite(text: str) -> float:
    """A JSON number with a fraction or exponent; one too large for a float (``1e999``) refused."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise BadRequest(f"the body holds a number too large for a float: {text[:40]}")
    return value


def chat_request(body: bytes) -> dict[str, Any]:
    r"""The chat request in ``body``, checked as far as this server reads it.

    Besides the shape of the messages: no ``NaN`` or infinite numbers, no lone surrogates
    (``"\ud800"``, which is not Unicode text) in any string, and the sampling settings of
    :data:`_NUMBER_FIELDS` in their ranges.

    Raises:
        BadRequest: naming the first thing wrong, in the field the OpenAI API would name.
    """
    try:
        request = json.loads(body, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:  # json's C scanner recurses once per nested list or object
        raise BadRequest("the body nests too deeply to parse") from None
    except ValueError as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from None
    _check_text(request, body)
    if not isinstance(request, dict):
        raise BadRequest(f"the body must be a JSON object, got {_JSON_TYPES[type(request)]}")
    messages = request.get("messages")
    if not (isinstance(messages, list) and messages):
        got = _what_is(request, "messages")
        reason = f"messages must be a non-empty list of message objects, got {got}"
        raise BadRequest(reason, param="messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            got = _JSON_TYPES[type(message)]
            reason = f"messages[{i}] must be an object with a role and a content, got {got}"
            raise BadRequest(reason, param=f"messages[{i}]")
        for key in ("role", "content"):
            if not isinstance(message.get(key), str):
                got = _what_is(message, key)
                param = f"messages[{i}].{key}"
                raise BadRequest(f"{param} must be a string, got {got}", param=param)
    for key, kind in _OPTIONAL_FIELDS.items():
        if request.get(key) is not None and not isinstance(request[key], kind):
            got = _what_is(request, key)
            raise BadRequest(f"{key} must be {_JSON_TYPES[kind]}, got {got}", param=key)
    for key, (least, most, whole) in _NUMBER_FIELDS.items():
        _check_number(request, key, least, most, whole)
    return request


#: Where a body may spell a surrogate: a ``\uD800``-``\uDFFF`` escape, or its UTF-8 bytes
#: (which ``json`` decodes with ``surrogatepass``). A body without one needs no further check.
_MAY_HOLD_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _check_text(request: Any, body: bytes) -> None:
    """Refuse a request whose strings are not all Unicode text (a lone surrogate)."""
    if not _MAY_HOLD_SURROGATE.search(body):
        return
    try:
        # one pass over the whole request, keys included; linear in its size
        json.dumps(request, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        where = "the body"
        if isinstance(request, dict) and isinstance(request.get("messages"), list):
            for i, message in enumerate(request["messages"]):
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(content, str) and not content.isascii():
                    try:
                        content.encode("utf-8")
                    except UnicodeEncodeError:
                        where = f"messages[{i}].content"
                        break
        param = None if where == "the body" else where
        message = f"{where} holds a lone surrogate (such as \\ud800), which is not Unicode text"
        raise BadRequest(message, param=param) from None


def _check_number(
    request: dict[str, Any], key: str, least: float, most: float | None, whole: bool
) -> None:
    """Refuse ``request[key]`` (when present and not null) outside ``[least, most]``."""
    value = request.get(key)
    if value is None:
        return
    kind = "a whole number" if whole else "a number"
    ok_type = isinstance(value, int) if whole else isinstance(value, int | float)
    if isinstance(value, bool) or not ok_type:
        got = _what_is(request, key)
        raise BadRequest(f"{key} must be {kind}, got {got}", param=key)
    if value < least or (most is not None and value > most):
        bound = f"between {least} and {most}" if most is not None else f"at least {least}"
        raise BadRequest(f"{key} must be {bound}, got {value}", param=key)


def error_object(
    status: int, message: str, kind: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """An error body in the OpenAI API's shape; ``kind`` defaults by the status's class."""
    if kind is None:
        kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": param, "code": str(status)}}


def _what_is(fields: dict[str, Any], key: str) -> str:
    """What ``fields[key]`` is, in JSON's words, for an error message."""
    if key not in fields:
        return "nothing"
    return "an empty list" if fields[key] == [] else _JSON_TYPES[type(fields[key])]


def pad(content: str, length: int) -> str:
    """``content`` followed by filler sentences up to ``length`` characters."""
    if len(content) >= length:
        return content
    filler = _FILLER * (1 + (length - len(content)) // len(_FILLER))
    return (content + "\n" + filler)[:length]


class Reply:
    """One completion, written as a whole or as stream chunks."""

    def __init__(self, model: str, content: str, messages: list[dict[str, Any]]):
        self.id = "chatcmpl-" + uuid.uuid4().hex
        self.created = int(time.time())
        self.model = model
        self.content = content
        prompt = " ".join(str(m.get("content") or "") for m in messages if isinstance(m, dict))
        prompt_tokens, completion_tokens = count_tokens(prompt), count_tokens(content)
        self.usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model}

    def completion(self) -> dict[str, Any]:
        """The ``chat.completion`` object."""
        message = {"role": "assistant", "content": self.content}
        choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
        return {**self._head("chat.completion"), "choices": [choice], "usage": self.usage}

    def chunks(self, include_usage: bool) -> Iterator[dict[str, Any]]:
        """The ``chat.completion.chunk`` objects: role, content pieces, stop, usage."""
        head = self._head("chat.completion.chunk")

        def chunk(delta: dict, finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
            return {**head, "choices": [choice]}

        yield chunk({"role": "assistant", "content": ""})
        # a few whole words per chunk, like a hosted model's token groups; a piece per word
        # made a 100 KB reply cost the client seconds of event parsing
        words = self.content.split(" ")
        for start in range(0, len(words), WORDS_PER_CHUNK):
            text = " ".join(words[start : start + WORDS_PER_CHUNK])
            if start + WORDS_PER_CHUNK < len(words):
                text += " "
            if text:
                yield chunk({"content": text})
        yield chunk({}, "stop")
        if include_usage:
            yield {**head, "choices": [], "usage": self.usage}
