"""The deliberation paper's settings as a preset: ``mase eval --preset deliberation``.

Wang et al. (2026): menu design at the numeric level (60 released games), the semantic level
(the same 60, natural-language guest profiles), level 3 (30 released games, played as a harder
numeric setting: the release defines no protocol for them) and task allocation with a leader
(100 released games); NR, NAR and VR (:mod:`.scoring`). Each setting is a condition (a group of
columns); episode ``seed`` plays game ``seed`` of each set, so ``--episodes 60`` plays every
menu game and the first 60 allocation games (``--episodes 100`` every allocation game, menus
from game 0 again).

Teams: the centralized oracle (full information), scripted deliberators (state the numbers,
then solve), model seats (the offline deliberation mind unless ``--model``/``--base-url`` name a
real model), model seats offered the solver (the paper's "with tools": ``llm-tools``, a
function the prompt offers, :mod:`.tools`), model seats in the authors' full-observation
ablation, and the random proposer.
The paper's numbers are a range summarized from its results (REFERENCE §3: top models above
95 NR on numeric menu design, 55-80 on the semantic and allocation settings), shown beside the
model rows as theirs.
"""

from mase.presets import Condition, Preset, Team

CONDITIONS = (
    Condition("numeric"),
    Condition("semantic", env_id="mase/MenuDesignSemantic-v0"),
    Condition("level3", env_id="mase/MenuDesignLevel3-v0"),
    Condition("allocation", env_id="mase/TaskAllocation-v0"),
)

DELIBERATION = Preset(
    env_id="mase/MenuDesign-v0",
    teams=(
        Team("oracle (full information)", "oracle"),
        Team("scripted deliberators", "scripted"),
        Team("model seats", "llm", paper_row="top models"),
        Team("model seats with the solver", "llm-tools"),
        Team("model seats, full observation", "llm", env_kwargs={"full_observation": True}),
        Team("random proposer", "random-proposer"),
    ),
    conditions=CONDITIONS,
    columns=tuple(
        (f"{key}@{c.name}", name, fmt)
        for c in CONDITIONS
        for key, name, fmt in (
            ("nr", "NR", "{:.1f}"),
            ("nar", "NAR", "{:.1f}"),
            ("valid", "VR", "{:.0%}"),
        )  # fmt: skip
    ),
    by_condition=True,
    paper={
        "top models": {
            "nr@numeric": "> 95",
            "nr@semantic": "55-80",
            "nr@allocation": "55-80",
        },
    },
    notes=(
        "NR: 100 x reward / optimum (scipy milp), an invalid decision 0; NAR: the authors' loose "
        "score (menus: NPR) and greedy repair (allocations); VR: valid, non-empty decisions",
        "a dish (task) named twice or unknown makes the decision invalid here; the authors' "
        "evaluator paid repeats and dropped unknown names (metric lenient_nr)",
        "level 3: the released level-3 games under the numeric protocol (none was released)",
        "the paper's range is its top models' (a summary of its results); ours are the seats "
        "named in each row",
    ),
    source="Wang et al. 2026, LLM Agents for Deliberative Collaboration (arXiv:2607.06157)",
)
