"""Observation spaces shared by every MASE task: the vector Box, the Text view and the mask.

An observation is a ``gymnasium.spaces.Dict`` whose keys depend on ``obs_mode``:

=============  ==============================================================
key            present when
=============  ==============================================================
observation    ``obs_mode`` is ``"vector"`` or ``"both"``: a float32 Box
text           ``obs_mode`` is ``"text"`` or ``"both"``: a Text space
action_mask    a ``Discrete`` action space: an int8 Box of 0/1, one per action
=============  ==============================================================
"""

from __future__ import annotations

import string

import numpy as np
from gymnasium import spaces

OBS_MODES = ("vector", "text", "both")

#: Every character a MASE text observation may contain. Gymnasium's default ``Text`` charset
#: is alphanumeric only, which rejects ordinary sentences.
CHARSET = frozenset(string.ascii_letters + string.digits + string.punctuation + " \n")
_CHARSET_STRING = "".join(sorted(CHARSET))

#: Longest text observation; longer text (an enormous message, say) is cut with a marker.
MAX_TEXT_LENGTH = 16_384

_REPLACEMENTS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2026": "...",
        "\t": " ",
        "\r": "",
    }
)


def check_obs_mode(obs_mode: str) -> str:
    """Return ``obs_mode`` if valid, else raise a ValueError naming the choices."""
    if obs_mode not in OBS_MODES:
        raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
    return obs_mode


def text_space() -> spaces.Text:
    """The Text space of every MASE text observation (shared charset, may be empty)."""
    return spaces.Text(max_length=MAX_TEXT_LENGTH, min_length=0, charset=_CHARSET_STRING)


def clean_text(text: str, limit: int = MAX_TEXT_LENGTH) -> str:
    """Map ``text`` into the shared charset and length limit.

    Curly quotes and dashes become their ASCII forms; other characters outside the charset
    become ``?``; text over ``limit`` characters is cut and ends with ``[...]``.
    """
    text = text.translate(_REPLACEMENTS)
    if not CHARSET.issuperset(text):
        text = "".join(c if c in CHARSET else "?" for c in text)
    if len(text) > limit:
        text = text[: limit - 5] + "[...]"
    return text


def observation_space(obs_mode: str, vector_size: int, n_actions: int | None) -> spaces.Dict:
    """Build the Dict observation space for one agent.

    Args:
        obs_mode: ``"vector"``, ``"text"`` or ``"both"``.
        vector_size: length of the float32 vector (values lie in [0, 1]).
        n_actions: number of discrete actions (length of the mask); ``None``: no mask.
    """
    check_obs_mode(obs_mode)
    parts: dict[str, spaces.Space] = {}
    if obs_mode in ("vector", "both"):
        parts["observation"] = spaces.Box(0.0, 1.0, shape=(vector_size,), dtype=np.float32)
    if obs_mode in ("text", "both"):
        parts["text"] = text_space()
    if n_actions is not None:
        parts["action_mask"] = spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8)
    return spaces.Dict(parts)
