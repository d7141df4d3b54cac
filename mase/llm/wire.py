"""The OpenAI chat API on the wire, as the offline server reads and writes it.

:func:`chat_request` checks a request body as far as the server reads it and names the first
thing wrong, in the field the OpenAI API would name (:class:`BadRequest`); :class:`Reply`
writes a completion as one ``chat.completion`` object or as ``chat.completion.chunk`` events.
"""

from __future__ import annotations

import json
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


def chat_request(body: bytes) -> dict[str, Any]:
    """The chat request in ``body``, checked as far as this server reads it.

    Raises:
        BadRequest: naming the first thing wrong, in the field the OpenAI API would name.
    """
    try:
        request = json.loads(body)
    except RecursionError:  # json's C scanner recurses once per nested list or object
        raise BadRequest("the body nests too deeply to parse") from None
    except ValueError as exc:
        raise BadRequest(f"the body is not JSON: {exc}") from None
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
    return request


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
