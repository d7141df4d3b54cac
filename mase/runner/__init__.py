"""Run episodes and evaluations: seeded, recorded to JSONL, resumable, concurrent.

``run_episode`` (:mod:`.episode`) plays one episode of any AEC env with a team of policies and
returns a JSON-ready record. ``evaluate`` (:mod:`.evaluate`) plays many, appending one line per
finished episode to ``episodes.jsonl`` (:mod:`.store`), and writes ``summary.json`` with each
metric's mean, std, count and 95% interval, inside the metric's range: Wilson for a proportion,
the percentile bootstrap for the rest (:func:`mase.report.summarize`).
Interrupted evaluations resume: finished episodes are read back and not played again.
``evaluate(..., concurrency=K)`` plays K episodes at once (:mod:`.pool`), each worker with its
own env and team (:mod:`.teams`); the records do not depend on K. ``evaluate(...,
backend="ray")`` plays them as tasks on a Ray cluster instead (:mod:`.distributed`), with the
same records.
"""

from mase.report import summarize
from mase.runner.episode import (
    EpisodeStopped,
    jsonable,
    policy_records,
    run_episode,
    seat_seeds,
)
from mase.runner.evaluate import FLAG_WRAPPERS, evaluate, make_env, wrapper_specs
from mase.runner.teams import parse_team, team_builder

__all__ = [
    "FLAG_WRAPPERS",
    "EpisodeStopped",
    "evaluate",
    "jsonable",
    "make_env",
    "parse_team",
    "policy_records",
    "run_episode",
    "seat_seeds",
    "summarize",
    "team_builder",
    "wrapper_specs",
]
