"""Shared test set-up: no test writes to the user's response cache."""

import pytest


@pytest.fixture(autouse=True)
def _private_response_cache(tmp_path, monkeypatch):
    # an LLM config without an explicit cache uses $MASE_CACHE; point it at the test's tmp dir
    monkeypatch.setenv("MASE_CACHE", str(tmp_path / "responses.sqlite"))
