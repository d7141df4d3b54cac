"""Search and rescue's variants pass the checkers too: procedural sizes and every rule option.

The registered ids (and the checks every task gets) are in ``tests/test_task_contract.py``.
"""

import pytest

from mase.checks import check_task
from mase.spaces import OBS_MODES


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("obs_mode", OBS_MODES)
def test_checkers_on_a_procedural_instance(obs_mode):
    check_task(
        "mase/SearchRescue-v0",
        obs_modes=[obs_mode],
        n_rooms=9,
        n_bombs=8,
        n_agents=4,
        n_colours=4,
    )


@pytest.mark.filterwarnings("ignore")
def test_checkers_on_random_layout_with_options():
    check_task(
        "mase/SearchRescue-v0",
        obs_modes=["both"],
        layout="random",
        wrong_cutter="explode",
        credit="bomb",
        shaping=True,
        see_teammates=False,
    )
