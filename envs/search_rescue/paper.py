"""The paper's Tables 1 and 2 (Li et al., 2023) as a preset: ``mase eval --preset paper-table1``.

The LLM rows are played by the task's offline language model (``mase serve``: a scripted
policy that reads only the prompt) unless ``--model``/``--base-url`` name a real one; they are
compared with the paper's GPT-4 rows to show the harness end to end, not to reproduce GPT-4.
``--row-model "ChatGPT=gpt-3.5-turbo,GPT-4=gpt-4o"`` gives each paper row its own model; the
ChatGPT row runs only when it is given one.
"""

from mase.presets import Preset, Team

TABLE1 = Preset(
    env_id="mase/SearchRescue-v0",
    teams=(
        Team("random", "random-unmasked", paper_row="Random"),
        Team("scripted", "scripted", messages=True),
        Team("cbs", "cbs", paper_row="CBS planner"),
        Team("mappo", "mappo", paper_row="MAPPO"),
        Team("sb3-ppo", "sb3-ppo"),
        Team(
            "llm, ChatGPT row",
            "llm",
            messages=True,
            paper_row="ChatGPT",
            probes=True,
            needs_model=True,
        ),
        Team("llm", "llm", messages=True, paper_row="GPT-4", probes=True),
        Team(
            "llm + belief",
            "llm-belief",
            messages=True,
            paper_row="GPT-4 + belief",
            probes=True,
            belief=True,
        ),
    ),
    columns=(
        ("score", "score", "{:.1f}"),
        ("rounds", "rounds", "{:.1f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    ),
    paper={
        "ChatGPT": {
            "score": (43.3, 4.7),
            "rounds": (30.0, 0.0),
            "valid_action_rate": 0.625,
            "tom_introspection": 0.790,
            "tom_first_order": 0.419,
            "tom_second_order": 0.116,
        },
        "GPT-4": {
            "score": (90, 0.0),
            "rounds": (28.3, 2.6),
            "valid_action_rate": 0.718,
            "tom_introspection": 0.800,
            "tom_first_order": 0.600,
            "tom_second_order": 0.643,
        },
        "GPT-4 + belief": {
            "score": (90, 0.0),
            "rounds": (12.3, 2.0),
            "valid_action_rate": 0.861,
            "tom_introspection": 0.972,
            "tom_first_order": 0.801,
            "tom_second_order": 0.694,
        },
        "MAPPO": {"score": (90, 0.0), "rounds": (11.0, 0.0), "valid_action_rate": None},
        "CBS planner": {"score": (90, 0.0), "rounds": (6.0, 0.0), "valid_action_rate": None},
        "Random": {"score": (38, 14.7), "rounds": (30.0, 0.0), "valid_action_rate": None},
    },
    prefer={"valid_action_rate": "llm_valid_output_rate"},
    notes=(
        "valid action: for teams of models, the share of all model outputs (retries included) "
        "that parse to a legal action, as the paper counts it; for the others, the share of "
        "turns whose action was legal",
    ),
    source="Li et al. 2023, Theory of Mind for Multi-Agent Collaboration via LLMs, Tables 1 and 2",
)
