"""AvalonPlay's and AvalonBench's settings as presets: ``mase eval --preset avalonplay-7``.

Both presets deal roles to random seats every game (AvalonPlay randomizes to avoid order bias)
and send the fifth proposal in a row on its quest without a vote, as both papers play. The
rows are ad hoc teams: a side played by one policy (``good=deduction``), or one seat with a
model among rule-based bots (``alpha=llm``: alpha's role is random, so the model plays every
role in turn). Model seats are played by the task's offline model unless
``--model``/``--base-url`` name a real one; their rows show the harness end to end and are
not the papers' models. The papers' figures stand beside ours as theirs:

* AvalonPlay (Shi et al. 2023): its CodeAct agent's team-selection accuracy, 0.830 (reported;
  not verifiable from public code).
* AvalonBench (Light et al. 2023), 5 players: the baseline bots win 61.8% of games as evil
  (with the Assassin); a GPT-3.5 loyal servant with discussion wins 22.2% and deduces roles
  with 76.0% accuracy.
"""

from mase.presets import Preset, Team

_COLUMNS = (
    ("good_won", "good wins", "{:.1%}"),
    ("quest_success_rate", "quests won", "{:.1%}"),
    ("quest1_success", "q1", "{:.0%}"),
    ("quest2_success", "q2", "{:.0%}"),
    ("quest3_success", "q3", "{:.0%}"),
    ("quest4_success", "q4", "{:.0%}"),
    ("quest5_success", "q5", "{:.0%}"),
    ("team_selection_accuracy", "team acc.", "{:.1%}"),
    ("vote_accuracy", "vote acc.", "{:.1%}"),
    ("merlin_assassinated", "Merlin found", "{:.1%}"),
    ("valid_action_rate", "valid action", "{:.1%}"),
)

_NOTES = (
    "good wins: games the good side won; quests won: quests that succeeded, of those played "
    "(q1..q5: each quest, over the games that played it); team acc.: proposals with no evil "
    "member (AvalonPlay's team-selection accuracy); vote acc.: good players' votes that "
    "approved a clean team or rejected one with evil; Merlin found: games the Assassin won by "
    "naming Merlin",
    "ad hoc rows put one policy on a side (good=...) or in one seat (alpha=...) whose role is "
    "dealt at random each game; the other seats are the rule-based bots",
    "the papers' rows are theirs, with their models; ours are not those models",
)

AVALONPLAY_7 = Preset(
    env_id="mase/Avalon-v0",
    env_kwargs={"roles": "avalonplay-7", "fifth_proposal": "forced", "discussion": 1},
    teams=(
        Team("random", "random"),
        Team("rule-based bots", "scripted"),
        Team("deduction as good", "scripted,good=deduction"),
        Team("MAPPO as good", "scripted,good=mappo-good-7"),
        Team("llm seat (ad hoc)", "scripted,alpha=llm", probes=True),
        Team(
            "llm + belief seat (ad hoc)", "scripted,alpha=llm-belief", probes=True, belief=True
        ),  # fmt: skip
        Team("CodeAct seat (ad hoc)", "scripted,alpha=codeact", paper_row="AvalonPlay CodeAct"),
    ),
    columns=_COLUMNS,
    paper={
        "AvalonPlay CodeAct": {"team_selection_accuracy": 0.830},
    },
    notes=_NOTES,
    source="Shi et al. 2023, AvalonPlay (CodeAct agents), 7 players",
)

AVALONBENCH_5 = Preset(
    env_id="mase/Avalon-v0",
    env_kwargs={"roles": "avalonbench-5", "fifth_proposal": "forced", "discussion": 1},
    teams=(
        Team("random", "random"),
        Team("rule-based bots", "scripted", paper_row="AvalonBench bots"),
        Team("deduction as good", "scripted,good=deduction"),
        Team("MAPPO as good", "scripted,good=mappo-good"),
        Team("MAPPO as evil", "scripted,evil=mappo-evil"),
        Team(
            "llm as good", "scripted,good=llm", probes=True, paper_row="AvalonBench GPT-3.5 servant"
        ),  # fmt: skip
        Team("CodeAct seat (ad hoc)", "scripted,alpha=codeact"),
    ),
    columns=(("evil_won", "evil wins", "{:.1%}"), *_COLUMNS),
    paper={
        "AvalonBench bots": {"evil_won": 0.618},
        "AvalonBench GPT-3.5 servant": {"good_won": 0.222, "tom_first_order": 0.760},
    },
    notes=_NOTES,
    source="Light et al. 2023, AvalonBench, 5 players",
)
