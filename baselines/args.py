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


#: Where ``--tensorboard``'s writer comes from: the ``tensorboard`` extra.
TENSORBOARD_EXTRA = "pip install 'mase-suite[tensorboard]'"


def check_tensorboard(args: Any) -> None:
    """Refuse ``--tensorboard`` where the ``tensorboard`` package is missing.

    The trainers write TensorBoard events with ``torch.utils.tensorboard.SummaryWriter``, which
    needs that package; without it the run would fail only when its first row is written.

    Raises:
        ValueError: ``args.tensorboard`` is set and the writer cannot be imported; the message
            names the extra.
    """
    if not getattr(args, "tensorboard", False):
        return
    try:
        from torch.utils.tensorboard import SummaryWriter  # noqa: F401
    except ImportError:
        raise ValueError(
            f"--tensorboard needs the tensorboard package: {TENSORBOARD_EXTRA}"
        ) from None
