"""A league: a seeded schedule of games among policies, every policy rated on one scale.

Each game is a ranked match between teams:

- in a task whose seats are dealt sides (``env.unwrapped.sides``, such as good and evil), a
  game is one episode, one policy a side; the schedule cycles through every ordered pair of
  two different policies, so each plays every side against every other. The side that won
  (the episode's ``SIDE_won`` metric) ranks first.
- in a cooperative task, a game is one seed played twice (duplicate play, as in duplicate
  bridge): two teams of different policies, each team's seats dealt among its policies at
  random (each of them in at least one seat), play the same instance. The team with the higher
  mean return ranks first, the one that took fewer rounds on a tie; equal results tie. Which
  policies sit together, and where, rotates from game to game.

Ratings are OpenSkill's Plackett-Luce model (the ``openskill`` package), which rates teams of
any size (a team's strength is the sum of its members'); a policy in several seats of a team is
one member of it (the share of seats it holds is kept in the records, not weighted: openskill's
partial-play weights do not keep a game's ratings in balance). A rating depends on the order
games are rated in, so the interval of each policy's rating is a percentile bootstrap over the
games: resampled with replacement, rated in a random order, :data:`RESAMPLES` times.

Every game's episodes are evaluation records (:func:`mase.evaluate`) in their own directory
under ``out`` (``games/00012/`` and, for duplicate play, a directory per team), so an
interrupted league resumes game by game, and ``mase replay`` and ``mase report`` read them;
``league.json`` holds the schedule and the leaderboard.

Games played elsewhere join the league as they were recorded (``played``: the output
directories of ``mase play --web`` or ``mase eval`` runs), so people are rated on the same
scale as the models and bots they played with and against. Each finished episode is a game:
its team is read from the run's ``config.json`` (its team spec, ``human`` for each person).
In a task with sides, the seats' sides are the deal of the episode's seed, and the policies
of each side's seats are that side's team; in a cooperative task, the league's own policies
play the same seed as the other team (duplicate play), seat ``i`` by policy ``(k + i) mod n``
in the ``k``-th such game. They are rated after the scheduled games, in the order given.
"""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "Game",
    "Leaderboard",
    "league",
    "played_games",
    "plot_leaderboard",
    "rate",
    "schedule",
]

#: Bootstrap resamples of the games for each rating's interval.
RESAMPLES = 200


@dataclass(frozen=True)
class Game:
    """One scheduled game: its index, seed, and each team's seating.

    ``teams[k]`` maps seats (or, in a task with sides, side names) to policies.
    """

    index: int
    seed: int
    teams: tuple[dict[str, str], ...]

    def policies(self, team: int) -> dict[str, float]:
        """Team ``team``'s policies, each with the share of the team's seats it holds."""
        seating = self.teams[team]
        return {p: sum(q == p for q in seating.values()) / len(seating) for p in seating.values()}


def schedule(
    policies: list[str], games: int, seed: int, seats: tuple[str, ...], sides: tuple[str, ...]
) -> list[Game]:
    """The league's games (module docstring): the same arguments give the same schedule.

    Raises:
        ValueError: fewer than two policies, or a policy named twice.
    """
    if len(policies) < 2:
        raise ValueError("a league needs at least two policies")
    if len(set(policies)) != len(policies):
        raise ValueError(f"a policy is named twice in {policies}")
    if sides:
        pairs = [(p, q) for p in policies for q in policies if p != q]
        order: list[tuple[str, str]] = []
        rng = np.random.default_rng(seed)
        while len(order) < games:
            order += [pairs[i] for i in rng.permutation(len(pairs))]
        return [
            Game(i, seed + i, ({sides[0]: p, **dict.fromkeys(sides[1:], q)},))
            for i, (p, q) in enumerate(order[:games])
        ]
    return [Game(i, seed + i, _duplicate_teams(policies, seats, seed, i)) for i in range(games)]


def _duplicate_teams(
    policies: list[str], seats: tuple[str, ...], seed: int, index: int
) -> tuple[dict[str, str], dict[str, str]]:
    """Two seatings of disjoint policies for game ``index`` of a cooperative league."""
    rng = np.random.default_rng([seed, index])
    shuffled = [policies[i] for i in rng.permutation(len(policies))]
    first = min(len(seats), len(policies) // 2)
    second = min(len(seats), len(policies) - first)
    teams = []
    for group in (shuffled[:first], shuffled[first : first + second]):
        holders = group + [group[i] for i in rng.integers(len(group), size=len(seats) - len(group))]
        dealt = [holders[i] for i in rng.permutation(len(seats))]
        teams.append(dict(zip(seats, dealt, strict=True)))
    return teams[0], teams[1]


@dataclass
class Result:
    """A played game, ranked.

    Its rated teams (policy -> weight), their ranks (1 is best; equal ranks tie), each team's
    side (``"all"`` in duplicate play), what decided the ranks, or why it was not rated.
    """

    game: Game
    teams: list[dict[str, float]] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    sides: list[str] = field(default_factory=list)
    outcome: list[dict] = field(default_factory=list)
    error: str = ""


def rate(results: list[Result], policies: list[str]) -> dict[str, tuple[float, float]]:
    """Each policy's OpenSkill Plackett-Luce rating ``(mu, sigma)`` after ``results`` in order.

    Raises:
        ImportError: the ``openskill`` package is missing (the message names the extra).
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:
        raise ImportError(
            "mase league rates with OpenSkill: pip install 'mase-suite[league]'"
        ) from exc

    model = PlackettLuce()
    ratings = {p: model.rating(name=p) for p in policies}
    for r in results:
        if r.error:
            continue
        teams = r.teams
        # each policy of a team once, whatever share of its seats it holds: openskill's
        # partial-play weights do not keep a two-team game's ratings in balance
        rated = model.rate([[ratings[p] for p in team] for team in teams], ranks=list(r.ranks))
        for team, new in zip(teams, rated, strict=True):
            for p, rating in zip(team, new, strict=True):
                ratings[p] = rating
    return {p: (float(x.mu), float(x.sigma)) for p, x in ratings.items()}


@dataclass
class Standing:
    """One policy's line of the leaderboard."""

    policy: str
    mu: float
    sigma: float
    ci95: tuple[float, float]
    games: int
    wins: dict[str, tuple[float, int]]  # side (or "all") -> (win rate, games)


@dataclass
class Leaderboard:
    """The league's ratings, best first, and how they were made."""

    env_id: str
    standings: list[Standing]
    games: int
    played: int
    errors: list[str] = field(default_factory=list)
    resamples: int = RESAMPLES
    sides: list[str] = field(default_factory=list)

    def table(self) -> str:
        """The leaderboard as aligned text."""
        sides = self.sides
        header = ["policy", "rating (mu)", "95% interval", "sigma", "games"]
        header += [f"wins as {s}" if s != "all" else "wins" for s in sides]
        lines = [header]
        for st in self.standings:
            line = [st.policy, f"{st.mu:.2f}", f"[{st.ci95[0]:.2f}, {st.ci95[1]:.2f}]",
                    f"{st.sigma:.2f}", str(st.games)]  # fmt: skip
            for s in sides:
                rate_, n = st.wins.get(s, (float("nan"), 0))
                line.append(f"{rate_:.1%} of {n}" if n else "-")
            lines.append(line)
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        text = ["  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip()
                for line in lines]  # fmt: skip
        text.insert(1, "  ".join("-" * w for w in widths))
        text.append(textwrap.fill(
            f"OpenSkill Plackett-Luce ratings after {self.played} of {self.games} games in "
            f"schedule order; 95% intervals: percentile bootstrap over the games ({self.resamples} "
            "resamples, each rated in a random order)", 100,
        ))  # fmt: skip
        text += [f"not rated: {e}" for e in self.errors]
        return "\n".join(text)


def _ranks(values: list[tuple[float, ...]]) -> list[int]:
    """Competition ranks of results (higher is better; equal results share a rank)."""
    return [1 + sum(other > v for other in values) for v in values]


def _play_team(env_id: str, spec: str, seed: int, where: Path | None, resume: bool,
               options: dict) -> dict:  # fmt: skip
    """One episode of ``spec`` on ``seed``: its record (evaluated into ``where``)."""
    import mase
    from mase.runner.store import read_records

    done = where / "summary.json" if where is not None else None
    if resume and done is not None and done.is_file():
        if not json.loads(done.read_text()).get("failed"):  # a finished game: read, not played
            return read_records(where / "episodes.jsonl")[0]
    summary = mase.evaluate(env_id, spec, episodes=1, seed=seed, out=where, resume=resume,
                            label=spec, **options)  # fmt: skip
    if summary.get("failed"):
        raise ValueError(f"the episode of {spec} on seed {seed} failed")
    if where is not None:
        return read_records(where / "episodes.jsonl")[0]
    return {"metrics": {k: v["mean"] for k, v in summary["metrics"].items() if "mean" in v}}


def _spec(seating: dict[str, str]) -> str:
    return ",".join(f"{seat}={policy}" for seat, policy in seating.items())


def play_game(env_id: str, game: Game, sides: tuple[str, ...], out: Path | None, resume: bool,
              options: dict) -> Result:  # fmt: skip
    """Play a scheduled game and rank its teams (module docstring)."""
    result = Result(game)
    root = out / "games" / f"{game.index:05d}" if out is not None else None
    try:
        if sides:  # the first side against the others (one policy plays all of them)
            seating = game.teams[0]
            record = _play_team(env_id, _spec(seating), game.seed, root, resume, options)
            won = float(record["metrics"].get(f"{sides[0]}_won", float("nan")))
            if won not in (0.0, 1.0):
                raise ValueError(f"the episode's record has no {sides[0]}_won metric to rank by")
            result.teams = [{seating[sides[0]]: 1.0}, {seating[sides[1]]: 1.0}]
            result.sides = [sides[0], "/".join(sides[1:])]
            result.outcome = [{"side": sides[0], "won": won}]
            result.ranks = [1, 2] if won else [2, 1]
        else:
            records = [
                _play_team(env_id, _spec(seating), game.seed,
                           root / "ab"[k] if root is not None else None, resume, options)
                for k, seating in enumerate(game.teams)
            ]  # fmt: skip
            result = _duplicate_result(game, records)
    except (ValueError, ImportError, FileNotFoundError, KeyError) as exc:
        result.error = f"game {game.index}: {str(exc).splitlines()[0] if str(exc) else exc!r}"
    return result


def _recorded_seating(env_id: str, run: Path, seats: tuple, sides: tuple) -> list[tuple]:
    """``(seed, seat -> policy, seat -> side)`` of every finished episode of the run ``run``."""
    import mase
    from mase.runner import parse_team
    from mase.runner.store import read_records

    config = json.loads((run / "config.json").read_text())
    if config.get("env_id") != env_id:
        raise ValueError(f"{run} holds games of {config.get('env_id')}, not {env_id}")
    names = parse_team(str(config.get("team", "")), list(seats), sides)
    env = mase.make(env_id, **dict(config.get("env_kwargs") or {}))
    found = []
    for record in read_records(run / "episodes.jsonl"):
        if record.get("failed"):
            continue
        env.reset(seed=record["seed"])  # the seed deals the sides, as when it was played
        dealt = {s: env.unwrapped.side_of(s) for s in seats} if sides else {}
        seating = {s: n[dealt[s]] if isinstance(n, dict) else n for s, n in names.items()}
        found.append((record, seating, dealt))
    env.close()
    return found


def played_games(env_id: str, runs: list[str | os.PathLike], policies: list[str], first: int,
                 out: Path | None, resume: bool, options: dict) -> list[Result]:  # fmt: skip
    """The games recorded in ``runs`` as league results (module docstring).

    They are numbered from ``first``; in a cooperative task the league's ``policies`` play
    each one's other team (into ``out/played/NNNNN/``).

    Raises:
        FileNotFoundError: a run has no ``config.json``.
        ValueError: a run of another task.
    """
    import mase
    from mase.replay import find_run

    env = mase.make(env_id, **dict(options.get("env_kwargs") or {}))
    seats, sides = tuple(env.possible_agents), tuple(env.unwrapped.sides)
    env.close()
    results: list[Result] = []
    for path in runs:
        for record, seating, dealt in _recorded_seating(env_id, find_run(path), seats, sides):
            k = first + len(results)
            if sides:
                results.append(_side_result(k, record, seating, dealt, sides))
                continue
            other = {s: policies[(k + i) % len(policies)] for i, s in enumerate(seats)}
            game = Game(k, int(record["seed"]), (seating, other))
            where = out / "played" / f"{k:05d}" if out is not None else None
            replayed = _play_team(env_id, _spec(other), game.seed, where, resume, options)
            results.append(_duplicate_result(game, [record, replayed]))
    return results


def _side_result(k: int, record: dict, seating: dict, dealt: dict, sides: tuple) -> Result:
    """A recorded game of a task with sides: the first side's seats against the others'."""
    won = float(record["metrics"].get(f"{sides[0]}_won", float("nan")))
    if won not in (0.0, 1.0):
        raise ValueError(f"a recorded game has no {sides[0]}_won metric to rank by")
    teams = ({s: p for s, p in seating.items() if dealt[s] == sides[0]},
             {s: p for s, p in seating.items() if dealt[s] != sides[0]})  # fmt: skip
    game = Game(k, int(record["seed"]), teams)
    return Result(game, [game.policies(0), game.policies(1)], [1, 2] if won else [2, 1],
                  [sides[0], "/".join(sides[1:])], [{"side": sides[0], "won": won}])  # fmt: skip


def _duplicate_result(game: Game, records: list[dict]) -> Result:
    """Two teams' records of one seed, ranked by mean return, then fewer rounds."""
    result = Result(game, sides=["all", "all"])
    keys = []
    for team, record in zip(game.teams, records, strict=True):
        returns = list((record.get("returns") or {}).values())
        mean = float(np.mean(returns)) if returns else 0.0
        rounds = float(record["metrics"].get("rounds", 0.0))
        result.outcome.append({"team": team, "return": mean, "rounds": rounds})
        keys.append((mean, -rounds))
    result.ranks = _ranks(keys)
    result.teams = [game.policies(0), game.policies(1)]
    return result


def _wins(results: list[Result], policy: str) -> dict:
    """A policy's win rate by side (ties count half), and its games there."""
    tally: dict[str, list[float]] = {}
    for r in results:
        for k, team in enumerate(r.teams):
            if policy in team:
                tied = r.ranks.count(r.ranks[k]) > 1
                tally.setdefault(r.sides[k], []).append(0.5 if tied else float(r.ranks[k] == 1))
    return {s: (float(np.mean(v)), len(v)) for s, v in tally.items()}


def standings(
    results: list[Result], policies: list[str], env_id: str, games: int, seed: int = 0
) -> Leaderboard:
    """The leaderboard of ``results``: ratings in schedule order, bootstrap intervals."""
    rated = [r for r in results if not r.error]
    final = rate(rated, policies)
    rng = np.random.default_rng(seed)
    draws = {p: [] for p in policies}
    for _ in range(RESAMPLES if rated else 0):
        sample = [rated[i] for i in rng.integers(len(rated), size=len(rated))]
        for p, (mu, _) in rate(sample, policies).items():
            draws[p].append(mu)
    lines = []
    for p in policies:
        mu, sigma = final[p]
        low, high = np.percentile(draws[p], [2.5, 97.5]) if draws[p] else (mu, mu)
        played = sum(any(p in team for team in r.teams) for r in rated)
        lines.append(Standing(p, mu, sigma, (float(low), float(high)), played, _wins(rated, p)))
    lines.sort(key=lambda s: -s.mu)
    errors = [r.error for r in results if r.error]
    sides = list(dict.fromkeys(side for r in rated for side in r.sides))
    return Leaderboard(env_id, lines, games, len(rated), errors, sides=sides)


def league(
    env_id: str,
    policies: list[str],
    games: int = 100,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    env_kwargs: dict | None = None,
    progress: bool = False,
    played: list[str | os.PathLike] = (),
    **evaluate_options: Any,
) -> Leaderboard:
    """Play the league's games (resuming finished ones) and rate every policy.

    Args:
        env_id: a registered task.
        policies: policy names as in a team spec; at least two.
        games: games in the schedule (a cooperative game is two episodes).
        seed: the schedule's seed and the first game's episode seed.
        out: the league's directory (``games/NNNNN/``, ``league.json``); ``None`` writes nothing.
        resume: continue an interrupted league in ``out`` (finished games are kept).
        env_kwargs: task arguments.
        progress: print a line per game played.
        played: runs recorded elsewhere (``mase play --web --out DIR``, ``mase eval``) whose
            games join the league (module docstring); their policies (``human``) are rated.
        **evaluate_options: more :func:`mase.evaluate` arguments (``llm``, ``messages``, ...).

    Raises:
        ValueError: fewer than two policies, a policy named twice, or an ``out`` that holds
            another league.
    """
    import mase

    env = mase.make(env_id, **(env_kwargs or {}))
    seats, sides = tuple(env.possible_agents), tuple(env.unwrapped.sides)
    env.close()
    plan = schedule(list(policies), games, seed, seats, sides)
    root = Path(out) if out is not None else None
    settings = {"env_id": env_id, "policies": list(policies), "games": games, "seed": seed,
                "env_kwargs": env_kwargs or {}}  # fmt: skip
    if played:
        settings["played"] = [str(p) for p in played]
    if root is not None:
        _check_out(root, settings, resume)
    options = {"env_kwargs": env_kwargs, "record_text": False, **evaluate_options}
    results = []
    for game in plan:
        results.append(play_game(env_id, game, sides, root, resume, options))
        if progress:
            print(f"game {game.index + 1}/{games}: ranks {results[-1].ranks}", flush=True)
    if played:
        results += played_games(env_id, list(played), list(policies), len(plan), root, resume,
                                options)  # fmt: skip
    rated = list(dict.fromkeys([*policies, *(p for r in results for t in r.teams for p in t)]))
    board = standings(results, rated, env_id, len(results), seed)
    if root is not None:
        data = {**settings, "schedule": [asdict(g) for g in plan],
                "results": [asdict(r) for r in results], "leaderboard": asdict(board)}  # fmt: skip
        (root / "league.json").write_text(json.dumps(data, indent=1) + "\n")
    return board


def _check_out(root: Path, settings: dict, resume: bool) -> None:
    """Refuse an ``out`` that holds another league, or one that holds games without resume."""
    saved = root / "league.json"
    if saved.is_file():
        old = json.loads(saved.read_text())
        if {k: old.get(k) for k in settings} != settings:
            raise ValueError(f"{root} holds another league ({saved}); choose another --out")
    if not resume and (root / "games").is_dir() and any((root / "games").iterdir()):
        raise ValueError(f"{root} already holds games; pass resume to continue the league")
    root.mkdir(parents=True, exist_ok=True)
    if not saved.is_file():
        saved.write_text(json.dumps(settings, indent=1) + "\n")


def plot_leaderboard(board: Leaderboard, out: str | os.PathLike) -> Path:
    """The leaderboard as a chart: each policy's rating with its 95% interval, best on top.

    Raises:
        mase.report.plots.PlottingUnavailable: matplotlib is missing (the ``plot`` extra).
    """
    from mase.report.plots import pyplot, save_figure

    plt = pyplot()
    lines = list(reversed(board.standings))
    fig, ax = plt.subplots(figsize=(7.5, 1.4 + 0.5 * len(lines)))
    mus = [s.mu for s in lines]
    errors = [[s.mu - s.ci95[0] for s in lines], [s.ci95[1] - s.mu for s in lines]]
    ax.errorbar(mus, range(len(lines)), xerr=errors, fmt="o", capsize=4, color="tab:blue")
    for y, s in enumerate(lines):
        ax.annotate(f"{s.mu:.1f}  ({s.games} games)", (s.ci95[1], y), xytext=(6, -3),
                    textcoords="offset points", fontsize=8)  # fmt: skip
    ax.set_yticks(range(len(lines)), [s.policy for s in lines])
    ax.set_xlabel("OpenSkill Plackett-Luce rating (mu), 95% bootstrap interval")
    ax.set_title(f"{board.env_id}: league of {board.played} games", fontsize=10)
    ax.margins(x=0.35)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return save_figure(fig, out)
