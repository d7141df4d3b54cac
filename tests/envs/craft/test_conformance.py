"""Craft's variants pass the checkers too: random maps and starts, the small recipes, other
goals and team sizes, shaping, and teammates seen only when together.

The registered id (and the checks every task gets) are in ``tests/test_task_contract.py``.
"""

import pytest

from mase.checks import check_task


@pytest.mark.filterwarnings("ignore")
def test_checkers_on_random_maps_with_options():
    check_task(
        "mase/Craft-v0",
        obs_modes=["both"],
        num_cycles=30,
        fuzz_steps=100,
        layout="random",
        start="random",
        recipes="small",
        goal="stone_pickaxe",
        n_agents=2,
        shaping=True,
        see_teammates=False,
    )
