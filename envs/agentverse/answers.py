"""What crosses the sandbox's boundary when a problem's tests run: calls in, answers out.

:mod:`.coding` runs a problem's tests in the evaluating process and only the reply's function in
the sandbox: the tests' calls of the function go into the sandbox as data, and the function's
answers come back as data. This module is both ends of that exchange:

* :func:`encode` and :func:`decode` write a value as JSON and read it back as plain Python
  data. What is written is the value's data, read through the built-in types' own methods, so a
  subclass (a ``Counter``, an ``int`` whose ``__eq__`` always says yes) arrives as its base
  value, and a numpy scalar as the Python number it holds. Anything else is an
  :class:`Opaque` value: it equals only itself, and its truth is what ``bool`` said of it in the
  sandbox. Values that contain themselves, or are nested deeper than :data:`MAX_DEPTH`, are
  opaque too.
* :func:`answer_calls` runs in the sandbox: it calls the function once per call it is given,
  in order, and writes each answer (the encoded value, or the exception the call raised) to
  file descriptor 1 as one line, ``MARKER`` then ``[index, answer]`` in JSON. A
  ``MemoryError`` or the sandbox's ``ForbiddenError`` is not an answer: it ends the run, for
  the sandbox to report.
* :func:`read_answers` is the evaluator's reading of that output. A line may start with what the
  program printed before the marker; an index given twice, out of range or unreadable makes the
  whole output unreadable.

The program in the sandbox can print whatever it likes, these lines included: what it prints
is its answer, and nothing it prints is a verdict (:mod:`.coding` says why that is enough).

The source of this module is the start of the answering code that runs in the sandbox, in a
namespace of its own, so it imports only the standard library and does nothing on import.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

#: Starts every answer line; the ASCII record and unit separators keep it off ordinary output.
MARKER = "\x1emase-answer\x1f"
#: How deep a value may nest (lists in lists ...) before it is written as opaque.
MAX_DEPTH = 100
#: Characters kept of an exception's message in an answer.
MAX_MESSAGE = 500
#: Written in place of a value that cannot be written as data.
_OPAQUE = "o"
_SCALAR_TYPES = (int, float, str, bytes, bytearray, complex)
#: Ints outside this range are written in hexadecimal: no digit limit applies to it.
_JSON_INT = 2**53


class Opaque:
    """A value that was not plain data: equal only to itself, true or false as it was.

    Attributes:
        type_name: the name of the value's type in the sandbox.
        truth: ``bool(value)`` in the sandbox; ``None`` where that raised.
    """

    __slots__ = ("type_name", "truth")

    def __init__(self, type_name: str, truth: bool | None) -> None:
        self.type_name = type_name
        self.truth = truth

    def __bool__(self) -> bool:
        if self.truth is None:
            raise TypeError(f"the truth of a {self.type_name} could not be read in the sandbox")
        return self.truth

    def __repr__(self) -> str:
        return f"<{self.type_name} object>"


def encode(value: Any, depth: int = 0, path: frozenset[int] = frozenset()) -> Any:
    """``value`` as JSON-ready data (the rules are in the module's docstring); never raises.

    Args:
        value: any object.
        depth: how deep ``value`` lies in the value being encoded.
        path: the ids of the containers that hold ``value``, to find one that holds itself.
    """
    try:
        return _encode(value, depth, path)
    except Exception:  # a hostile __index__, __iter__ of a subclass, a recursion limit ...
        return _opaque(value)


def _encode(value: Any, depth: int, path: frozenset[int]) -> Any:
    if value is None or value is True or value is False:
        return value
    if isinstance(value, _SCALAR_TYPES):
        return _scalar(value)
    if depth >= MAX_DEPTH or id(value) in path:
        return _opaque(value)
    inner = path | {id(value)}

    def each(items: Any) -> list[Any]:
        return [encode(item, depth + 1, inner) for item in items]

    if isinstance(value, list):
        return each(list.__iter__(value))
    if isinstance(value, tuple):
        return {"t": each(tuple.__iter__(value))}
    if isinstance(value, dict):
        return {"d": [each(pair) for pair in dict.items(value)]}
    if isinstance(value, frozenset):
        return {"f": each(frozenset.__iter__(value))}
    if isinstance(value, set):
        return {"s": each(set.__iter__(value))}
    if type(value).__module__ == "numpy" and getattr(value, "shape", None) == ():
        return encode(value.item(), depth + 1, inner)  # a numpy scalar: the number it holds
    return _opaque(value)


def _scalar(value: Any) -> Any:
    """An int, float, str, bytes, bytearray or complex, read by its base type's own methods."""
    if isinstance(value, int):  # True and False are handled; bool cannot be subclassed
        number = int.__int__(value)
        return number if -_JSON_INT < number < _JSON_INT else {"i": format(number, "x")}
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bytes):
        return {"b": bytes.hex(value)}
    if isinstance(value, bytearray):
        return {"ba": bytearray.hex(value)}
    real, imag = complex.__getnewargs__(value)
    return {"c": [real, imag]}


def _opaque(value: Any) -> dict[str, Any]:
    try:
        truth: bool | None = bool(value)
    except Exception:
        truth = None
    try:
        name = str.__str__(type(value).__name__)[:100]
    except Exception:
        name = "object"
    return {_OPAQUE: name, "truth": truth}


def decode(data: Any, depth: int = 0) -> Any:
    """The value :func:`encode` wrote, as plain data (an :class:`Opaque` for an opaque one).

    Raises:
        ValueError: ``data`` is not something :func:`encode` writes.
    """
    if depth > MAX_DEPTH + 1:
        raise ValueError("a value nested too deep")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is list:
        return [decode(item, depth + 1) for item in data]
    if type(data) is not dict or len(data) not in (1, 2):
        raise ValueError(f"not an encoded value: {type(data).__name__}")
    (tag, inner), *rest = data.items()
    if tag == _OPAQUE and type(inner) is str and [k for k, _ in rest] == ["truth"]:
        truth = rest[0][1]
        if truth is None or type(truth) is bool:
            return Opaque(inner, truth)
    if rest:
        raise ValueError(f"not an encoded value: the keys {sorted(data)}")
    return _decode_tagged(tag, inner, depth)


def _decode_tagged(tag: str, inner: Any, depth: int) -> Any:
    if tag == "i" and type(inner) is str:
        return int(inner, 16)
    if tag in ("b", "ba") and type(inner) is str:
        return (bytes if tag == "b" else bytearray).fromhex(inner)
    if tag == "c" and type(inner) is list and all(type(x) in (int, float) for x in inner):
        return complex(*inner)
    if type(inner) is not list:
        raise ValueError(f"not an encoded value: the tag {tag!r}")
    items = [decode(item, depth + 1) for item in inner]
    if tag == "t":
        return tuple(items)
    if tag in ("s", "f"):
        return (set if tag == "s" else frozenset)(items)  # unhashable items raise TypeError
    if tag == "d" and all(type(pair) is list and len(pair) == 2 for pair in items):
        return dict(items)
    raise ValueError(f"not an encoded value: the tag {tag!r}")


def encode_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """One call as the JSON text the sandbox reads; equal calls give equal texts.

    Raises:
        ValueError: an argument is not plain data (it would arrive opaque).
    """
    data = [encode(list(args)), encode(kwargs)]
    opaque = _first_opaque(data)
    if opaque is not None:
        raise ValueError(f"a {opaque} cannot be passed into the sandbox")
    return json.dumps(data, separators=(",", ":"))


def _first_opaque(data: Any) -> str | None:
    """The type name of the first opaque value in encoded ``data``, or None."""
    if type(data) is dict:
        if _OPAQUE in data:
            return data[_OPAQUE]
        data = list(data.values())
    if type(data) is list:
        for item in data:
            found = _first_opaque(item)
            if found is not None:
                return found
    return None


def answer_calls(function: Any, calls: str) -> None:
    """Call ``function`` once per call in ``calls`` and write each answer (runs in the sandbox).

    Args:
        function: the function under test.
        calls: a JSON list of :func:`encode_call` texts.
    """
    for index, call in enumerate(json.loads(calls)):
        args, kwargs = (decode(part) for part in json.loads(call))
        try:
            value = function(*args, **kwargs)
        except Exception as error:  # SystemExit and the like end the program, as they would
            if _ends_the_run(error):
                raise
            traceback.print_exception(type(error), error, error.__traceback__.tb_next)
            answer: dict[str, Any] = {"raised": _name(error), "message": _message(error)}
        else:
            answer = {"value": encode(value)}
        _flush()  # what the function printed comes before its answer
        line = MARKER + json.dumps([index, answer], separators=(",", ":")) + "\n"
        data = line.encode("ascii")  # json.dumps writes ASCII (ensure_ascii)
        while data:
            data = data[os.write(1, data) :]


def _flush() -> None:
    try:
        sys.stdout.flush()
    except Exception:  # the program may have closed or replaced it
        pass


def _ends_the_run(error: BaseException) -> bool:
    """Whether ``error`` is the sandbox's to report: memory ran out, or it refused an action."""
    seen: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and link not in seen:
        if isinstance(link, MemoryError) or type(link).__name__ == "ForbiddenError":
            return True
        seen.append(link)
        link = link.__cause__ or link.__context__
    return False


def _name(error: BaseException) -> str:
    return str.__str__(type(error).__name__)[:100]


def _message(error: BaseException) -> str:
    try:
        return str.__str__(str(error))[:MAX_MESSAGE]
    except Exception:
        return ""


def read_answers(stdout: str, calls: int) -> tuple[dict[int, dict[str, Any]], str, str]:
    """The answers in a sandboxed program's output, and what else it printed.

    Args:
        stdout: the program's output.
        calls: how many calls it was given.

    Returns:
        ``(answers, printed, problem)``: each answer by its index (``{"value": data}``, the
        value as :func:`encode` wrote it and :func:`decode` reads it, or ``{"raised": name,
        "message": text}``), the output without the answer lines, and why the answers could
        not be read (empty when they could; the answers are then empty).
    """
    answers: dict[int, dict[str, Any]] = {}
    printed: list[str] = []
    for line in stdout.split("\n"):  # not splitlines(): the marker holds a record separator
        before, marked, record = line.partition(MARKER)
        if not marked:
            printed.append(line)
            continue
        if before:
            printed.append(before)
        try:
            index, answer = _read_record(record, calls)
        except (ValueError, TypeError, RecursionError) as error:
            return {}, "\n".join(printed), f"an answer line could not be read ({error})"
        if index in answers:
            return {}, "\n".join(printed), f"call {index} was answered twice"
        answers[index] = answer
    return answers, "\n".join(printed), ""


def _read_record(record: str, calls: int) -> tuple[int, dict[str, Any]]:
    index, answer = json.loads(record)
    if type(index) is not int or not 0 <= index < calls or type(answer) is not dict:
        raise ValueError("no call has that index")
    if answer.keys() == {"value"}:
        decode(answer["value"])  # it can be read
        return index, answer
    if answer.keys() == {"raised", "message"} and all(type(v) is str for v in answer.values()):
        return index, {"raised": answer["raised"][:100], "message": answer["message"]}
    raise ValueError("neither a value nor an exception")
