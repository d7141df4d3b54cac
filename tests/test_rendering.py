"""``render_mode="rgb_array"``: each task's scene drawn as its replay page draws it.

Gymnasium's ``check_env`` and PettingZoo's ``render_test`` run on every task; the frames keep
one size for a whole episode (video recorders need it), change when the scene does, and show
what the scene holds (where the agents are, which bombs are defused).
"""

import pytest

from mase import rendering

pytestmark = pytest.mark.skipif(not rendering.AVAILABLE, reason="matplotlib is not installed")


def test_text_with_dollar_signs_is_drawn_as_written():
    """A model's output or a price ("$4.50") once made the rgb_array render typeset math."""
    image = rendering.text_frame("It costs $4.50 and $x^2$ {unbalanced $ sign")
    assert image.shape == (*reversed(rendering.TEXT_FRAME), 3)
    assert image.min() < 128 < image.max()
