"""Population self-play (``mase.baselines.mappo.selfplay``): short runs, seconds each.

Both sides learn on the native batch, with AEC worlds for the text-reading bots; the saved
actors load and play legal games, frozen snapshots join the population, the same seed gives
the same run, and one side alone learns a best response to a frozen checkpoint.
"""

import csv
import math

import numpy as np
import pytest

import mase

pytest.importorskip("torch")

import torch  # noqa: E402

from mase.agents import make_policy  # noqa: E402
from mase.baselines.mappo import MAPPOPolicy  # noqa: E402
from mase.baselines.mappo.selfplay import (  # noqa: E402
    FIRST_SNAPSHOT,
    Args,
    SelfPlay,
    train_selfplay,
)

ENV = "mase/Avalon-v0"
KWARGS = {"roles": "avalonbench-5", "discussion": 0}
SHORT = dict(num_envs=8, script_envs=2, num_steps=16, hidden=16, update_epochs=1,
             num_minibatches=2, snapshot_every=1, max_snapshots=2, checkpoint_every=1)  # fmt: skip
WALL_CLOCK = {"wall_s", "charts/sps", "perf/native_s", "perf/script_s", "perf/update_s"}


def rows(path):
    with path.open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    paths = train_selfplay(Args(out=str(out), total_timesteps=1200, **SHORT))
    return out, paths


class Watched:
    """A MAPPO policy on every seat of one side; every move it makes must be legal."""

    def __init__(self, policy):
        self.policy, self.moves = policy, 0

    def reset(self, agent, env, seed=None):
        self.env = env
        self.policy.reset(agent, env, seed)

    def act(self, observation, info):
        action = self.policy.act(observation, info)
        assert observation["action_mask"][action] == 1
        self.moves += 1
        return action


def test_both_sides_are_saved_and_play_legal_games_against_the_bots(run):
    out, paths = run
    assert set(paths) == {"good", "evil"}
    for side, path in paths.items():
        policy = MAPPOPolicy.load(path)
        assert policy.checkpoint["stats"]["side"] == side
        assert policy.checkpoint["env_kwargs"] == KWARGS
        assert len(rows(out / side / "metrics.csv")) >= 2
        env = mase.make(ENV, obs_mode="vector", **KWARGS)
        for seed in range(3):
            env.reset(seed=seed)
            player = Watched(policy)
            team = {
                a: player if env.unwrapped.side_of(a) == side else make_policy("scripted", env)
                for a in env.possible_agents
            }
            record = mase.run_episode(env, team, seed=seed)
            assert record["metrics"]["valid_action_rate"] == 1.0
            assert player.moves > 0


def test_snapshots_join_the_population_and_play_in_the_batch(tmp_path):
    # snapshots alone in the array's population: every episode begun after the first update
    # draws one (before it, the other side's learner stands in)
    run = SelfPlay(Args(out=str(tmp_path), total_timesteps=10**6, population="snapshot:1", **SHORT))
    assert run.worlds.snapshots == [[], []]
    seen = set()
    for update in range(1, 4):
        run.iteration(update, 3)
        seen |= set(run.worlds.ctrl[: run.worlds.N].ravel().tolist())
        assert [len(p) for p in run.worlds.snapshots] == [min(update, 2)] * 2
    frozen = run.worlds.snapshots[0][-1][1]
    live = run.learners[0].actor
    assert not any(p.requires_grad for p in frozen.parameters())
    assert any((a != b).any() for a, b in zip(frozen.parameters(), live.parameters(), strict=True))
    assert any(c >= FIRST_SNAPSHOT for c in seen)  # worlds drew a snapshot opponent
    # the ring keeps max_snapshots copies: the third took the first's slot
    assert [u for u, _ in run.worlds.snapshots[1]] == [3, 2]
    run.close()


def test_the_same_seed_gives_the_same_run(tmp_path):
    logs, weights = [], []
    for k in range(2):
        out = tmp_path / str(k)
        paths = train_selfplay(Args(out=str(out), total_timesteps=800, **SHORT))
        logs.append([{c: v for c, v in r.items() if c not in WALL_CLOCK}
                     for r in rows(out / "evil" / "metrics.csv")])  # fmt: skip
        weights.append(torch.load(paths["good"], weights_only=False)["actor"])
    assert logs[0] == logs[1]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_one_side_learns_a_best_response_to_a_frozen_checkpoint(run, tmp_path):
    _, paths = run
    args = Args(out=str(tmp_path), total_timesteps=600, learn="evil", population="frozen",
                frozen_checkpoint=str(paths["good"]), **{**SHORT, "script_envs": 0})  # fmt: skip
    saved = train_selfplay(args)
    assert set(saved) == {"evil"}
    log = rows(tmp_path / "evil" / "metrics.csv")
    assert [k for k in log[0] if k.startswith("win/")] == ["win/frozen"]
    assert not (tmp_path / "good").exists()


def test_a_frozen_checkpoint_of_another_width_plays_against_a_learner(tmp_path):
    """The frozen actor keeps a GRU state of its own width (the shipped sides' is 128)."""
    from mase.envs.avalon.policies import checkpoint

    shipped = checkpoint("selfplay_good.pt")
    width = torch.load(shipped, weights_only=False)["hidden"]
    assert width != SHORT["hidden"]
    args = Args(out=str(tmp_path), total_timesteps=300, learn="evil", population="frozen",
                frozen_checkpoint=shipped, **{**SHORT, "script_envs": 0})  # fmt: skip
    run = SelfPlay(args)
    run.iteration(1, 1)
    assert run.frozen_hidden.shape[-1] == width and run.frozen_hidden.abs().sum() > 0
    run.close()


def test_the_frozen_member_may_be_named_by_the_policy_that_plays_its_checkpoint(tmp_path):
    from mase.envs.avalon.policies import checkpoint

    by_name = Args(out=str(tmp_path / "a"), learn="evil", population="frozen",
                   frozen_checkpoint="selfplay-good", **{**SHORT, "script_envs": 0})  # fmt: skip
    run = SelfPlay(by_name)
    shipped = MAPPOPolicy.load(checkpoint("selfplay_good.pt")).actor.state_dict()
    assert all(torch.equal(v, shipped[k]) for k, v in run.frozen.state_dict().items())
    run.close()
    for wrong, message in [("scripted", "no MAPPO checkpoint"), ("no-such", "no such file")]:
        with pytest.raises(ValueError, match=message):
            SelfPlay(Args(out=str(tmp_path / wrong), learn="evil", population="frozen",
                          frozen_checkpoint=wrong, **{**SHORT, "script_envs": 0}))  # fmt: skip


def test_a_best_response_to_the_bots_plays_only_aec_worlds(tmp_path):
    args = Args(out=str(tmp_path), total_timesteps=200, learn="good", scripted="scripted",
                **{**SHORT, "num_envs": 0})  # fmt: skip
    saved = train_selfplay(args)
    log = rows(tmp_path / "good" / "metrics.csv")
    assert set(saved) == {"good"} and int(log[-1]["learner_turns"]) >= 200
    assert float(log[-1]["perf/native_s"]) == 0.0
    assert not math.isnan(float(log[-1]["win/scripted"]))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"learn": "good,neutral"}, "--learn"),
        ({"learn": "evil", "population": "self"}, "self needs both sides"),
        ({"population": "frozen"}, "--frozen-checkpoint"),
        ({"population": "snapshot:-1"}, "negative"),
        ({"population": "bots"}, "unknown member"),
        ({"num_envs": 0, "script_envs": 0}, "at least one world"),
        ({"scripted": "", "script_envs": 4}, "--scripted is empty"),
    ],
)
def test_bad_settings_are_refused(settings, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        Args(out=str(tmp_path), **settings)


def test_rewards_reach_the_learner_seats_of_each_episode(tmp_path):
    """Every episode that ends inside a rollout pays each learner seat its +1 or -1 there."""
    run = SelfPlay(Args(out=str(tmp_path), total_timesteps=10**6, **{**SHORT, "num_steps": 64}))
    run.iteration(1, 1)
    done = run.done_buf.bool() & (run.owner_buf != -1)
    ended = run.reward_buf[done]
    assert len(ended) > 0
    assert set(np.unique(ended.numpy()).tolist()) <= {-1.0, 1.0}
    run.close()


def test_the_exploitability_benchmark_trains_a_response_and_writes_its_table(tmp_path):
    """``benchmarks/exploitability.py --smoke``: a response to the bots' good side, one row."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[2] / "benchmarks" / "exploitability.py"
    done = subprocess.run(
        [sys.executable, str(script), "--smoke", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    table = (tmp_path / "exploitability.md").read_text()
    assert table.strip() in done.stdout
    row = [r for r in table.splitlines() if r.startswith("| scripted | good |")]
    assert len(row) == 1
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    before, after = float(cells[2].split()[0]), float(cells[3].split()[0])
    assert 0.0 <= before <= 1.0 and 0.0 <= after <= 1.0
    assert cells[4] == f"{before - after:+.3f}" and int(cells[5].replace(",", "")) >= 64
