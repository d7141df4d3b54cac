"""The debate paper's Table 1 as a preset: ``mase eval --preset debate-table1``.

Du et al. (2023), Table 1 (REFERENCE §2): single agent, single-agent reflection, majority vote
of three and debate (three agents, two rounds), on arithmetic, GSM8K, MMLU, chess move
validity and chess move quality (Stockfish's pawn score, where the engine is installed),
gpt-3.5-turbo-0301, 100 questions each; accuracy as mean ± standard error (the paper's form,
which this table uses too). Each method is a setting of the task (agents,
rounds) and each data set a condition (a group of columns); every seat is a model seat,
played by the task's offline model unless ``--model``/``--base-url`` name a real one. The
offline mind is a test double (right with a fixed chance, persuaded by a majority with
another: :mod:`.language_model`), so its rows show the harness end to end, not the paper's
model; the paper's numbers stand beside ours as theirs.

Without data, GSM8K and MMLU ask the package's own small samples and chess validity fresh
positions; ``--env-arg gsm8k.path=test.jsonl``, ``--env-arg mmlu.path=data/test`` and
``--env-arg "chess.source='bigbench'" --env-arg chess.path=chess_state_tracking_real_short.json``
ask the real ones, chosen as the released code chooses.
"""

from mase.presets import Condition, Preset, Team

CONDITIONS = (
    Condition("arithmetic", {"source": "arithmetic"}),
    Condition("gsm8k", {"source": "gsm8k"}),
    Condition("mmlu", {"source": "mmlu"}),
    Condition("chess", {"source": "chess"}),
    Condition("chess_moves", {"source": "chess_moves"}),
)

DEBATE_TABLE1 = Preset(
    env_id="mase/Debate-v0",
    teams=(
        Team(
            "single agent", "llm", paper_row="single agent", env_kwargs={"agents": 1, "rounds": 1}
        ),
        Team("reflection", "llm", paper_row="reflection", env_kwargs={"agents": 1, "rounds": 2}),
        Team(
            "majority vote", "llm", paper_row="majority vote", env_kwargs={"agents": 3, "rounds": 1}
        ),
        Team("debate", "llm", paper_row="debate", env_kwargs={"agents": 3, "rounds": 2}),
        Team("debate, summarized", "llm", env_kwargs={"agents": 3, "rounds": 2, "summarize": True}),
    ),  # fmt: skip
    conditions=CONDITIONS,
    columns=(
        ("correct@arithmetic", "arithmetic", "{:.1%}"),
        ("correct@gsm8k", "GSM8K", "{:.1%}"),
        ("correct@mmlu", "MMLU", "{:.1%}"),
        ("correct@chess", "chess validity", "{:.1%}"),
        ("pawn_score@chess_moves", "chess pawn score", "{:.1f}"),
    ),
    paper={
        "single agent": {
            "correct@arithmetic": (0.670, 0.047),
            "correct@gsm8k": (0.770, 0.042),
            "correct@mmlu": (0.639, 0.048),
            "correct@chess": (0.293, 0.026),
            "pawn_score@chess_moves": (91.4, 10.6),
        },
        "reflection": {
            "correct@arithmetic": (0.721, 0.045),
            "correct@gsm8k": (0.750, 0.043),
            "correct@mmlu": (0.577, 0.050),
            "correct@chess": (0.388, 0.029),
            "pawn_score@chess_moves": (102.1, 11.9),
        },
        "majority vote": {
            "correct@arithmetic": (0.690, 0.046),
            "correct@gsm8k": (0.810, 0.039),
            "correct@mmlu": None,
            "correct@chess": None,
            "pawn_score@chess_moves": (102.2, 6.2),
        },
        "debate": {
            "correct@arithmetic": (0.818, 0.023),
            "correct@gsm8k": (0.850, 0.035),
            "correct@mmlu": (0.711, 0.046),
            "correct@chess": (0.452, 0.029),
            "pawn_score@chess_moves": (122.9, 7.6),
        },
    },  # fmt: skip
    spread="se",
    notes=(
        "accuracy: the final answer (the majority of the last round's readable answers) is "
        "right; an unreadable answer is wrong, not skipped (the released evaluator skipped or "
        "counted it right)",
        "chess pawn score: Stockfish's evaluation (centipawns) after the final move for the side "
        "that played it, over the legal final moves (MASE's reading of the paper's score; it "
        "needs Debian's stockfish package, and the column is not run without it)",
        "the paper's rows are gpt-3.5-turbo-0301's; ours are the model seats named above",
    ),
    source="Du et al. 2023, Improving Factuality and Reasoning through Multiagent Debate, Table 1",
)
