"""What model calls cost: a per-model price table the user can override.

Prices are USD per one million tokens, ``(prompt, completion)``. A model missing from the
table has no cost (``None``, not 0: an unknown price is not a free model). Dated snapshots
(``gpt-4o-2024-08-06``) take their family's price unless listed themselves.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

#: Model -> (USD per 1M prompt tokens, USD per 1M completion tokens).
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-3.5-turbo": (0.50, 1.50),
    "gpt-4": (30.00, 60.00),
    "mase-offline": (0.0, 0.0),
}

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{4})$")

Prices = Mapping[str, tuple[float, float]]


def price_table(overrides: Prices | None = None) -> dict[str, tuple[float, float]]:
    """:data:`DEFAULT_PRICES` with ``overrides`` on top."""
    table = dict(DEFAULT_PRICES)
    for model, (prompt, completion) in (overrides or {}).items():
        table[model] = (float(prompt), float(completion))
    return table


def load_prices(path: str | os.PathLike) -> dict[str, tuple[float, float]]:
    """Read a price table from JSON: ``{"model": [prompt_usd_per_1m, completion_usd_per_1m]}``.

    Raises:
        ValueError: an entry that is not a pair of non-negative numbers (named in the message).
    """
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a price table is a JSON object of model -> [prompt, completion]")
    table = {}
    for model, pair in data.items():
        ok = (
            isinstance(pair, list | tuple)
            and len(pair) == 2
            and all(isinstance(p, int | float) and not isinstance(p, bool) and p >= 0 for p in pair)
        )
        if not ok:
            raise ValueError(
                f"{path}: price of {model!r} must be [prompt, completion] USD per 1M tokens, "
                f"got {pair!r}"
            )
        table[model] = (float(pair[0]), float(pair[1]))
    return table


def model_price(model: str, prices: Prices | None = None) -> tuple[float, float] | None:
    """The price pair of ``model`` (or of its family, for a dated snapshot), or ``None``."""
    table = prices if prices is not None else DEFAULT_PRICES
    if model in table:
        return table[model]
    family = _SNAPSHOT.sub("", model)
    return table.get(family)


def cost_usd(
    model: str, prompt_tokens: int, completion_tokens: int, prices: Prices | None = None
) -> float | None:
    """USD cost of one call, or ``None`` when ``model`` has no price.

    >>> cost_usd("gpt-4o", 1_000_000, 100_000)
    3.5
    >>> cost_usd("my-local-model", 10, 10) is None
    True
    """
    price = model_price(model, prices)
    if price is None:
        return None
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000
