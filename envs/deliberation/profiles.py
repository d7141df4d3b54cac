"""Guests' descriptions (the semantic level's JSON profiles) as fixed numbers, and back.

A :class:`ProfileCodec` learns the fields of the descriptions an env's games hold (their nested
keys) and the values each takes; a description is then one presence number and, per field, the
index of its value (0: the field is hidden), a list field (``Food Allergies``) one number per
item up to the longest list seen, in order.

Example:
    >>> codec = ProfileCodec([{"Name": "Ana", "Diet": {"Vegan": True}, "Allergies": ["Soy"]}])
    >>> codec.size
    4
    >>> codec.decode(codec.encode({"Name": "Ana", "Allergies": ["Soy"]}))
    {'Name': 'Ana', 'Allergies': ['Soy']}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Field:
    """One leaf of a description: its key path, its values (JSON), and list length (0: a value)."""

    path: tuple[str, ...]
    values: tuple[str, ...]
    length: int

    @property
    def size(self) -> int:
        """Numbers the field takes."""
        return self.length or 1


def _leaves(profile: Mapping[str, Any], path: tuple[str, ...] = ()) -> Iterable[tuple]:
    for key, value in profile.items():
        if not isinstance(key, str):
            raise ValueError(f"a description's keys are text, got {key!r}")
        if isinstance(value, Mapping):
            if not value:
                raise ValueError(f"an empty group {key!r} has no field to hold")
            yield from _leaves(value, (*path, key))
        else:
            yield (*path, key), value


class ProfileCodec:
    """Descriptions of the fields and values seen in ``profiles`` as numbers (module docstring)."""

    def __init__(self, profiles: Iterable[Mapping[str, Any]]):
        values: dict[tuple[str, ...], set[str]] = {}
        lengths: dict[tuple[str, ...], int] = {}
        for profile in profiles:
            for path, value in _leaves(_visible(profile)):
                seen = values.setdefault(path, set())
                if isinstance(value, list):
                    lengths[path] = max(lengths.get(path, 0), len(value), 1)
                    seen.update(json.dumps(v) for v in value)
                else:
                    seen.add(json.dumps(value))
        self.fields = tuple(
            Field(path, tuple(sorted(values[path])), lengths.get(path, 0)) for path in values
        )
        #: Numbers a description takes: its presence, then each field's.
        self.size = 1 + sum(f.size for f in self.fields)

    def encode(self, profile: Mapping[str, Any] | None) -> np.ndarray:
        """A description as numbers (zeros: none).

        Raises:
            ValueError: the fields cannot hold it (a field or value never seen, a long list).
        """
        out = np.zeros(self.size, dtype=np.float32)
        if profile is None:
            return out
        out[0] = 1.0
        leaves = dict(_leaves(profile))
        at = 1
        for f in self.fields:
            if f.path in leaves:
                value = leaves.pop(f.path)
                items = value if f.length else [value]
                if f.length and (not isinstance(value, list) or not 0 < len(value) <= f.length):
                    raise ValueError(f"{f.path} holds a list of 1 to {f.length} items")
                for k, item in enumerate(items):
                    said = json.dumps(item)
                    if said not in f.values or isinstance(item, list | dict):
                        raise ValueError(f"{f.path} never takes the value {said[:40]}")
                    out[at + k] = (f.values.index(said) + 1) / (len(f.values) + 1)
            at += f.size
        if leaves:
            raise ValueError(f"no field holds {sorted(leaves)[:3]}")
        return out

    def holds(self, profile: Any) -> bool:
        """Whether ``profile`` is a description these numbers give back exactly."""
        if not isinstance(profile, Mapping):
            return False
        try:
            return self.decode(self.encode(profile)) == profile
        except ValueError:
            return False

    def decode(self, numbers: np.ndarray) -> dict[str, Any] | None:
        """The description the numbers hold (``None``: none). Raises ValueError on other numbers."""
        numbers = np.asarray(numbers, dtype=np.float64)
        if numbers[0] == 0.0:
            if numbers.any():
                raise ValueError("a description's fields are set, but not its presence")
            return None
        if numbers[0] != 1.0:
            raise ValueError(f"a description's presence is 0 or 1, got {numbers[0]}")
        out: dict[str, Any] = {}
        at = 1
        for f in self.fields:
            items = [_index(x, len(f.values)) for x in numbers[at : at + f.size]]
            at += f.size
            if f.length:
                if 0 in items and any(items[items.index(0) :]):
                    raise ValueError(f"{f.path}: a gap in the list")
                if items[0]:
                    _put(out, f.path, [json.loads(f.values[i - 1]) for i in items if i])
            elif items[0]:
                _put(out, f.path, json.loads(f.values[items[0] - 1]))
        return out


def _visible(profile: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in profile.items() if v not in (None, {}, [])}


def _index(x: float, n: int) -> int:
    k = round(x * (n + 1))
    if abs(x * (n + 1) - k) > 1e-3 or not 0 <= k <= n:
        raise ValueError(f"{x} is no value index of {n}")
    return k


def _put(out: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        out = out.setdefault(key, {})
    out[path[-1]] = value
