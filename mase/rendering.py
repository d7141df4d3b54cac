"""Pictures of text: the ``"rgb_array"`` render mode of every task, for video recorders.

A task draws itself as text (``render_mode="ansi"``); :func:`text_image` sets that text in a
monospaced font on a white page and returns the RGB pixels, so tools that ask for
``render_mode="rgb_array"`` (Stable-Baselines3's ``make_vec_env``, Gymnasium's video
recorder) get a picture of the same thing. It needs matplotlib (the ``rl`` extra), imported
only when a picture is asked for.
"""

from __future__ import annotations

import importlib.util

import numpy as np

#: Whether pictures can be drawn here (matplotlib is installed).
AVAILABLE = importlib.util.find_spec("matplotlib") is not None


def text_image(text: str, dpi: int = 80) -> np.ndarray:
    """``text`` set in a monospaced font: a ``(height, width, 3)`` uint8 array.

    Raises:
        ImportError: matplotlib is missing (the message says how to install it).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError(
            "render_mode='rgb_array' draws with matplotlib: pip install 'mase-suite[rl]'"
        ) from None
    lines = text.splitlines() or [""]
    width = max(len(line) for line in lines) * 0.6 * 10 / 72 + 0.3  # inches, 10 pt characters
    height = len(lines) * 1.25 * 10 / 72 + 0.3
    figure = Figure(figsize=(max(width, 1.0), max(height, 0.5)), dpi=dpi)
    canvas = FigureCanvasAgg(figure)
    # the text as written: "$" in it (prices, a model's output) is no math to typeset
    figure.text(0.01, 0.99, "\n".join(lines), family="monospace", size=10, va="top",
                parse_math=False, usetex=False)  # fmt: skip
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
