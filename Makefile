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
	$(BIN)/pip install --quiet -e ".[rl,debate,deliberation,agentverse,dev]"
	touch $(STAMP)

## demo: the paper's Tables 1 and 2 on search and rescue: random, scripted, CBS, MAPPO, SB3 PPO,
## and LLM teams (with and without belief states, ToM probes) played by the offline model;
## then AvalonPlay's metrics on Avalon: bots, the deduction player, MAPPO, LLM and CodeAct seats;
## then the debate paper's Table 1: single agent, reflection, majority vote and debate;
## then deliberation: menu design (numeric, semantic, level 3) and task allocation, every team;
## then AgentVerse's Tables 1 and 2: single agent, chain of thought, group vertical and horizontal;
## then the AgentVerse loop on the crafting world (the paper's Minecraft case): scripted and model seats
demo: $(STAMP)
	$(BIN)/mase eval --preset paper-table1 --episodes 20 --seed 0 --out runs/demo --resume --concurrency 4
	$(BIN)/mase eval --preset avalonplay-7 --episodes 10 --seed 0 --out runs/demo-avalon --resume --concurrency 4
	$(BIN)/mase eval --preset debate-table1 --episodes 20 --seed 0 --out runs/demo-debate --resume --concurrency 4
	$(BIN)/mase eval --preset deliberation --episodes 10 --seed 0 --out runs/demo-deliberation --resume --concurrency 4
	$(BIN)/mase eval --preset agentverse-table1 --episodes 10 --seed 0 --out runs/demo-agentverse --resume --concurrency 4
	$(BIN)/mase eval --config examples/agentverse_craft.toml --team scripted --team llm --offline --episodes 10 --out runs/demo-agentverse-craft --resume --concurrency 4

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

## bench: every benchmark (each prints its numbers beside a reference)
bench: $(STAMP)
	$(BIN)/python benchmarks/throughput.py
	$(BIN)/python benchmarks/cbs_planning.py
	$(BIN)/python benchmarks/mappo_training.py
	$(BIN)/python benchmarks/llm_concurrency.py
	$(BIN)/python benchmarks/teams.py
	$(BIN)/python benchmarks/leak_scan.py
	$(BIN)/python benchmarks/leak_scan_avalon.py
	$(BIN)/python benchmarks/leak_scan_avalon_models.py
	$(BIN)/python benchmarks/mappo_avalon.py
	$(BIN)/python benchmarks/debate_offline.py
	$(BIN)/python benchmarks/debate_scaling.py
	$(BIN)/python benchmarks/deliberation_optimum.py
	$(BIN)/python benchmarks/deliberation_released.py
	$(BIN)/python benchmarks/leak_scan_deliberation.py
	$(BIN)/python benchmarks/fuzz.py

clean:
	rm -rf $(VENV) build dist *.egg-info runs
