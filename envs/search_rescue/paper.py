"""The paper's Table 1 (Li et al., 2023) as a MASE preset: ``mase eval --preset paper-table1``."""

from mase.presets import Preset, Team

TABLE1 = Preset(
    env_id="mase/SearchRescue-v0",
    teams=(
        Team("random", "random-unmasked", paper_row="Random"),
        Team("scripted", "scripted", messages=True),
        Team("cbs", "cbs", paper_row="CBS planner"),
        Team("mappo", "mappo", paper_row="MAPPO"),
        Team("sb3-ppo", "sb3-ppo"),
    ),
    columns=(
        ("score", "score", "{:.1f}"),
        ("rounds", "rounds", "{:.1f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    ),
    paper={
        "ChatGPT": {"score": (43, 4.7), "rounds": (30.0, 0.0), "valid_action_rate": 0.625},
        "GPT-4": {"score": (90, 0.0), "rounds": (28.3, 2.6), "valid_action_rate": 0.718},
        "GPT-4 + belief": {"score": (90, 0.0), "rounds": (12.3, 2.0), "valid_action_rate": 0.861},
        "MAPPO": {"score": (90, 0.0), "rounds": (11.0, 0.0), "valid_action_rate": None},
        "CBS planner": {"score": (90, 0.0), "rounds": (6.0, 0.0), "valid_action_rate": None},
        "Random": {"score": (38, 14.7), "rounds": (30.0, 0.0), "valid_action_rate": None},
    },
    source="Li et al. 2023, Theory of Mind for Multi-Agent Collaboration via LLMs, Table 1",
)
