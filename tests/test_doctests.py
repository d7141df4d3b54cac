"""The examples in docstrings run (the task docstring is its documentation page)."""

import doctest
import importlib

import pytest

MODULES = [
    "mase",
    "mase.registry",
    "mase.batch",
    "mase.envs.search_rescue.env",
    "mase.llm.server",
    "mase.protocol",
    "mase.wrappers.tom_probe",
    "mase.envs.search_rescue.tom",
    "mase.actions",
    "mase.stats",
    "mase.runner.episode",
    "mase.envs.avalon.env",
    "mase.envs.avalon.roles",
    "mase.envs.avalon.deduction",
    "mase.envs.avalon.beliefs",
    "mase.envs.avalon.tom",
    "mase.agents.codeact",
    "mase.sandbox",
    "mase.envs.debate.readers",
    "mase.envs.debate.world",
    "mase.envs.debate.chess_tasks",
    "mase.envs.debate.bots",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0
