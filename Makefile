# MASE: `make demo` and `make test` set everything up themselves on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export SDL_VIDEODRIVER := dummy

.PHONY: demo test lint format bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[rl,dev]"
	touch $(STAMP)

## demo: evaluate the built-in teams on search and rescue and print the results table
demo: $(STAMP)
	$(BIN)/mase eval mase/SearchRescue-v0 --team random --team scripted \
		--episodes 20 --seed 0 --out runs/demo --resume

## test: the whole test suite (two workers)
test: $(STAMP)
	$(BIN)/python -m pytest -n 2

## lint: ruff lint and format check
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## bench: throughput benchmark (search and rescue vs PettingZoo rps_v2)
bench: $(STAMP)
	$(BIN)/python benchmarks/throughput.py

clean:
	rm -rf $(VENV) build dist *.egg-info runs
