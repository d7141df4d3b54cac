"""Checks of a trainer's settings, so that a bad option is one clear line, not a crash later."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def check_settings(args: Any, positive: Iterable[str] = (), fractions: Iterable[str] = ()) -> None:
    """Refuse settings out of their range.

    Args:
        args: a trainer's ``Args``.
        positive: fields that must be above 0.
        fractions: fields that must lie in (0, 1].

    Raises:
        ValueError: the first field out of range, named as its command-line option.
    """
    for name in positive:
        value = getattr(args, name)
        if not value > 0:
            raise ValueError(f"--{name.replace('_', '-')} must be above 0, got {value}")
    for name in fractions:
        value = getattr(args, name)
        if not 0 < value <= 1:
            raise ValueError(f"--{name.replace('_', '-')} must be in (0, 1], got {value}")
