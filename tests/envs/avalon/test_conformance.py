"""Avalon passes the MASE checker suite at every size, and its documentation page runs."""

import doctest
import importlib

import pytest

from mase.checks import check_task


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_players": 5},
        {"n_players": 7, "lady_of_the_lake": True, "fifth_proposal": "forced"},
        {"n_players": 10, "discussion": 2},
    ],
    ids=["5", "7", "10"],
)
def test_check_task_at_every_size(kwargs):
    check_task("mase/Avalon-v0", num_cycles=30, fuzz_steps=200, **kwargs)


@pytest.mark.parametrize("name", ["mase.envs.avalon.env", "mase.envs.avalon.roles"])
def test_the_documentation_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
