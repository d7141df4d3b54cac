"""MAPPO for MASE tasks: a shared recurrent actor, a centralized critic, one readable file.

Multi-Agent PPO (Yu et al., 2022) on the vector view of a turn-based MASE task. Every agent
acts through one shared GRU actor (its input: the agent's observation vector and a one-hot of
its seat); one MLP critic reads the env's global ``state()``; actions are masked by
``action_mask``. Value targets are normalized with running statistics, advantages come from
GAE, and the policy loss is PPO's clipped surrogate. The defaults start from the MAPPO paper's
(Adam eps 1e-5, clip 0.2, entropy 0.01, Huber value loss with delta 10 and value clipping,
grad norm 10, lambda 0.95, orthogonal init, 5 epochs as on its hard tasks, one minibatch) and
change three, picked by a sweep of 14 settings on search and rescue: gamma 0.93 instead of
0.99 (the task rewards finishing early; with 0.99 the team still took 16.6 rounds after 2.8M
turns), learning rate 1e-3 instead of 5e-4, and 32 envs per rollout
(``docs/training/mappo/sweep.md`` has the sweep).

Turn-based tasks fit MAPPO round by round: in every round each agent observes the world as it
is at its own turn, acts, and the next agent sees the result. Episodes of MASE tasks end only
between rounds, so ``num_envs`` envs advance in lockstep, one round per rollout step, and every
agent's trajectory is a plain sequence with the team's round reward.

Tasks where seats act when the rules say (Avalon's phases), or where one side learns against
fixed policies (``learn``: a side of the task's ``side_of``; ``opponent``: its scripted bot or
random play), train turn by turn instead: :mod:`mase.baselines.mappo.turns`.

Run: ``mase train mappo --env mase/SearchRescue-v0 --total-timesteps 2000000``
"""

from __future__ import annotations

import csv
import json
import shutil
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical, Distribution

import mase
from mase.baselines.args import TENSORBOARD_EXTRA, check_settings, check_tensorboard


@dataclass
class Args:
    """Settings of a MAPPO run (each one is a command-line option)."""

    env: str = "mase/SearchRescue-v0"
    """task id"""
    env_kwargs: dict = field(default_factory=lambda: {"shaping": True, "wrong_cutter": "reject"})
    """task arguments (JSON); by default the paper's +1 for a correct cut, with wrong cutters
    rejected (the released code's rule), so its -1 for an explosion never fires; the paper's
    MAPPO setting is {"shaping": true, "wrong_cutter": "explode"}"""
    seed: int = 1
    """seed of torch, numpy and the first env"""
    total_timesteps: int = 3_000_000
    """agent turns to train for"""
    num_envs: int = 32
    """envs stepped together"""
    num_rounds: int = 32
    """rounds per env in each rollout"""
    learn: str = ""
    """the side whose seats learn (the task's ``side_of``: good or evil in Avalon); empty: every
    seat. Setting it (or a task whose seats do not all act once a round) trains turn by turn"""
    opponent: str = "scripted"
    """who plays the seats that do not learn: scripted (the task's bot) or random"""
    num_steps: int = 64
    """learner turns per env in each rollout, when training turn by turn"""
    learning_rate: float = 1e-3
    """Adam learning rate (annealed linearly to 0 when anneal_lr)"""
    anneal_lr: bool = True
    """anneal the learning rate"""
    gamma: float = 0.93
    """discount per round (below the usual 0.99: finishing in fewer rounds is the goal)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 5
    """epochs over each rollout"""
    num_minibatches: int = 1
    """minibatches per epoch (split over envs, so sequences stay whole)"""
    clip_coef: float = 0.2
    """PPO clip range of the policy ratio (and of the value change)"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 1.0
    """value loss weight"""
    huber_delta: float = 10.0
    """Huber value loss delta"""
    max_grad_norm: float = 10.0
    """gradient norm clip"""
    reward_scale: float = 0.1
    """rewards are multiplied by this (10 points per phase become 1)"""
    hidden: int = 64
    """width of the actor's MLP and GRU and of the critic"""
    threads: int = 1
    """torch threads"""
    out: str = "runs/mappo"
    """output directory: args.json, metrics.csv, checkpoints (and TensorBoard events)"""
    tensorboard: bool = False
    """also write the metrics.csv columns named group/name as TensorBoard events into out, at
    step global_step (needs the tensorboard extra)"""
    checkpoint_every: int = 50
    """save a checkpoint every this many updates (and at the end)"""
    keep_checkpoints: bool = False
    """also keep each checkpoint as mappo-STEP.pt (STEP: agent turns so far), to evaluate
    the run's progress afterwards (benchmarks/mappo_training.py --time-to-quality)"""

    def __post_init__(self) -> None:
        check_settings(
            self,
            positive=("total_timesteps", "num_envs", "num_rounds", "num_steps",
                      "learning_rate", "update_epochs", "num_minibatches", "hidden", "threads",
                      "checkpoint_every"),
            fractions=("gamma", "gae_lambda"),
        )  # fmt: skip
        if self.opponent not in ("scripted", "random"):
            raise ValueError(f"--opponent must be scripted or random, got {self.opponent!r}")
        check_tensorboard(self)


# -- networks ---------------------------------------------------------------------------------


def layer(module: nn.Linear, gain: float = np.sqrt(2)) -> nn.Linear:
    """Orthogonal weights, zero bias (the MAPPO initialization)."""
    nn.init.orthogonal_(module.weight, gain)
    nn.init.zeros_(module.bias)
    return module


class Actor(nn.Module):
    """Shared recurrent policy: (observation, seat one-hot) -> MLP -> GRU -> masked logits."""

    def __init__(self, obs_dim: int, n_agents: int, n_actions: int, hidden: int):
        super().__init__()
        self.n_agents, self.hidden = n_agents, hidden
        self.encoder = nn.Sequential(
            layer(nn.Linear(obs_dim + n_agents, hidden)),
            nn.ReLU(),
            layer(nn.Linear(hidden, hidden)),
            nn.ReLU(),
        )
        self.gru = nn.GRUCell(hidden, hidden)
        self.head = layer(nn.Linear(hidden, n_actions), gain=0.01)

    def forward(self, obs, seat, h, mask):
        """One step: logits with illegal actions masked out, and the next hidden state."""
        x = self.encoder(torch.cat([obs, seat], dim=-1))
        h = self.gru(x, h)
        logits = self.head(h).masked_fill(mask == 0, -1e9)
        return logits, h


class Critic(nn.Module):
    """Centralized value function on the global state."""

    def __init__(self, state_dim: int, hidden: int):
        super().__init__()
        self.net = nn.Sequential(
            layer(nn.Linear(state_dim, 2 * hidden)),
            nn.ReLU(),
            layer(nn.Linear(2 * hidden, 2 * hidden)),
            nn.ReLU(),
            layer(nn.Linear(2 * hidden, 1), gain=1.0),
        )

    def forward(self, state):
        """Normalized value estimate."""
        return self.net(state).squeeze(-1)


class ValueNorm:
    """Running mean and variance of value targets (the MAPPO paper's value normalization)."""

    def __init__(self, beta: float = 0.99999):
        self.beta, self.mean, self.mean_sq, self.debias = beta, 0.0, 0.0, 0.0

    def update(self, x: torch.Tensor) -> None:
        """Fold a batch of targets into the running statistics."""
        self.mean = self.beta * self.mean + (1 - self.beta) * float(x.mean())
        self.mean_sq = self.beta * self.mean_sq + (1 - self.beta) * float((x**2).mean())
        self.debias = self.beta * self.debias + (1 - self.beta)

    def _stats(self) -> tuple[float, float]:
        mean = self.mean / max(self.debias, 1e-5)
        var = self.mean_sq / max(self.debias, 1e-5) - mean**2
        return mean, max(var, 1e-2) ** 0.5

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        """Targets in normalized units."""
        mean, std = self._stats()
        return (x - mean) / std

    def denormalize(self, x: torch.Tensor) -> torch.Tensor:
        """Network outputs back in reward units."""
        mean, std = self._stats()
        return x * std + mean


# -- envs -------------------------------------------------------------------------------------


def ppo_step(
    args: Args,
    actor: nn.Module,
    critic: nn.Module,
    optimizer: torch.optim.Optimizer,
    value_norm: ValueNorm,
    new_logprob: torch.Tensor,
    entropy: torch.Tensor,
    old_logprob: torch.Tensor,
    advantages: torch.Tensor,
    states: torch.Tensor,
    returns: torch.Tensor,
    old_values: torch.Tensor,
) -> dict[str, float]:
    """One gradient step of PPO's clipped surrogate and clipped Huber value loss.

    The minibatch's advantages are normalized; values are compared in the normalized space of
    ``value_norm``. Returns the step's ``pg_loss``, ``v_loss`` and ``approx_kl`` (the
    approximate KL divergence of its policy ratio).
    """
    log_ratio = new_logprob - old_logprob
    ratio = log_ratio.exp()
    adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    pg_loss = torch.max(
        -adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
    ).mean()

    new_value = critic(states)
    target = value_norm.normalize(returns)
    old_value = value_norm.normalize(old_values)
    clipped = old_value + (new_value - old_value).clamp(-args.clip_coef, args.clip_coef)
    huber = nn.functional.huber_loss
    v_loss = torch.max(
        huber(new_value, target, delta=args.huber_delta, reduction="none"),
        huber(clipped, target, delta=args.huber_delta, reduction="none"),
    ).mean()

    loss = pg_loss + args.vf_coef * v_loss - args.ent_coef * entropy
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters()], args.max_grad_norm)
    optimizer.step()
    return {
        "pg_loss": float(pg_loss.detach()),
        "v_loss": float(v_loss.detach()),
        "approx_kl": float(((ratio - 1) - log_ratio).mean().detach()),
    }


def make_env(args: Args, index: int):
    """One vector-view env of the task (no message channel: MAPPO agents do not talk)."""
    env = mase.make(args.env, obs_mode="vector", **args.env_kwargs)
    env.reset(seed=args.seed + index)
    return env


def loss_columns(losses: dict, entropy: torch.Tensor) -> dict:
    """The ``losses/*`` columns of a metrics row from the last minibatch's PPO step."""
    return {
        "losses/pg_loss": round(losses["pg_loss"], 5),
        "losses/v_loss": round(losses["v_loss"], 5),
        "losses/entropy": round(entropy.item(), 4),
        "losses/approx_kl": round(losses["approx_kl"], 5),
    }


def save_checkpoint(path: Path, actor: Actor, args: Args, env, step: int, stats: dict) -> None:
    """Save the actor and what is needed to rebuild it and its env."""
    torch.save(
        {
            "actor": actor.state_dict(),
            "obs_dim": actor.encoder[0].in_features - actor.n_agents,
            "n_actions": actor.head.out_features,
            "hidden": actor.hidden,
            "agents": list(env.possible_agents),
            "env": args.env,
            "env_kwargs": args.env_kwargs,
            "global_step": step,
            "stats": stats,
            "args": asdict(args),
        },
        path,
    )
    if args.keep_checkpoints:
        shutil.copyfile(path, path.with_name(f"{path.stem}-{step}{path.suffix}"))


def tensorboard_writer(out: Path):
    """A TensorBoard writer of event files into ``out`` (torch's ``SummaryWriter``).

    Raises:
        ValueError: the ``tensorboard`` package is missing (the message names the extra).
    """
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise ValueError(
            f"--tensorboard needs the tensorboard package: {TENSORBOARD_EXTRA}"
        ) from None
    return SummaryWriter(str(out))


class MetricsLog:
    """The training log: one row an update into ``out/metrics.csv``.

    With ``tensorboard``, its ``group/name`` columns (``charts/``, ``perf/``, ``losses/``, ...)
    go to TensorBoard event files in ``out`` too, each row at its ``global_step``: the same
    values as the CSV's (stored as 32-bit floats). The columns without a group (``update``,
    ``global_step``, ``wall_s``) stay in the CSV alone.
    """

    def __init__(self, out: Path, tensorboard: bool = False) -> None:
        self.file = (out / "metrics.csv").open("w", newline="")
        self.board = tensorboard_writer(out) if tensorboard else None
        self.writer: csv.DictWriter | None = None

    def write(self, row: dict, global_step: int) -> None:
        """Append one update's row (the CSV's columns are the first row's keys)."""
        if self.writer is None:
            self.writer = csv.DictWriter(self.file, fieldnames=list(row))
            self.writer.writeheader()
        self.writer.writerow(row)
        if self.board is not None:
            for name, value in row.items():
                if "/" in name:
                    self.board.add_scalar(name, value, global_step)
            self.board.flush()
        self.file.flush()

    def close(self) -> None:
        """Close the CSV file and the TensorBoard writer."""
        self.file.close()
        if self.board is not None:
            self.board.close()


@dataclass
class Run:
    """What both training loops set up alike.

    The output folder, the seeded generator, the envs and their sizes, the networks, the
    optimizer and the metrics log.
    """

    out: Path
    rng: np.random.Generator
    envs: list
    agents: list[str]
    obs_dim: int
    n_actions: int
    state_dim: int
    seats: torch.Tensor  # one-hot seat ids, [agents, agents]
    actor: Actor
    critic: Critic
    optimizer: torch.optim.Optimizer
    value_norm: ValueNorm
    log: MetricsLog
    checkpoint: Path
    batch: Any = None  # the envs as one batch (mase.make_vec), when the loop steps one

    @classmethod
    def start(cls, args: Args, seat_in_critic: bool = False, batched: bool = False) -> Run:
        """Seed, make ``args.num_envs`` envs (or one batch of them) and the networks.

        The critic reads the global state, and the one-hot seat too when ``seat_in_critic``.
        With ``batched``, the envs are one :func:`mase.make_vec` batch (world ``n`` seeded
        ``args.seed + n``) and ``envs`` holds a single env, for the sizes and checkpoints.
        """
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "args.json").write_text(json.dumps(asdict(args), indent=2))
        torch.set_num_threads(args.threads)
        Distribution.set_default_validate_args(False)  # masks make many logits -1e9 on purpose
        torch.manual_seed(args.seed)
        rng = np.random.default_rng(args.seed)
        envs = [make_env(args, i) for i in range(1 if batched else args.num_envs)]
        batch = None
        if batched:
            batch = mase.make_vec(args.env, args.num_envs, **args.env_kwargs)
            batch.reset(seed=args.seed)
        agents = list(envs[0].possible_agents)
        obs_dim = envs[0].observation_space(agents[0])["observation"].shape[0]
        n_actions = envs[0].action_space(agents[0]).n
        state_dim = envs[0].state_space.shape[0]
        actor = Actor(obs_dim, len(agents), n_actions, args.hidden)
        critic = Critic(state_dim + (len(agents) if seat_in_critic else 0), args.hidden)
        optimizer = torch.optim.Adam(
            [*actor.parameters(), *critic.parameters()], lr=args.learning_rate, eps=1e-5
        )
        return cls(
            out, rng, envs, agents, obs_dim, n_actions, state_dim, torch.eye(len(agents)),
            actor, critic, optimizer, ValueNorm(), MetricsLog(out, args.tensorboard),
            out / "mappo.pt", batch,
        )  # fmt: skip

    def updates(self, args: Args, per_update: int, unit: str, batch: str) -> int:
        """How many updates of ``per_update`` turns ``args.total_timesteps`` makes (at least one).

        Says so when ``args.total_timesteps`` is not a whole number of batches.
        """
        num_updates = max(1, args.total_timesteps // per_update)
        if num_updates * per_update != args.total_timesteps:
            print(
                f"training {num_updates * per_update:,} {unit}: --total-timesteps "
                f"{args.total_timesteps:,} rounded to whole batches of {per_update:,} ({batch})",
                flush=True,
            )
        return num_updates

    def minibatches(self, args: Args) -> Iterator[torch.Tensor]:
        """``args.update_epochs`` times, the envs shuffled and split into minibatches of ids.

        Whole envs go to a minibatch, so each replays its recurrences in order.
        """
        env_ids = np.arange(args.num_envs)
        for _epoch in range(args.update_epochs):
            self.rng.shuffle(env_ids)
            for chunk in np.array_split(env_ids, args.num_minibatches):
                yield torch.as_tensor(chunk)

    def ppo(self, args: Args, idx, new_logprob, entropy, logprob, advantages, state, returns,
            value) -> dict:  # fmt: skip
        """:func:`ppo_step` on the minibatch ``idx`` of the rollout buffers (axis 1: envs)."""
        return ppo_step(
            args, self.actor, self.critic, self.optimizer, self.value_norm, new_logprob,
            entropy, logprob[:, idx], advantages[:, idx], state[:, idx], returns[:, idx],
            value[:, idx],
        )  # fmt: skip

    def anneal(self, args: Args, update: int, num_updates: int) -> None:
        """Decay the learning rate linearly to zero over the run when ``args.anneal_lr``."""
        if args.anneal_lr:
            lr = args.learning_rate * (1 - (update - 1) / num_updates)
            self.optimizer.param_groups[0]["lr"] = lr


def train(args: Args) -> Path:
    """Train, writing metrics and checkpoints under ``args.out``; returns the final checkpoint.

    Every seat learning a task where each acts once a round in turn order: the round-lockstep
    loop of :func:`train_rounds`. Otherwise (``args.learn`` set, or a phase-queue task such as
    Avalon): the turn-by-turn loop of :func:`mase.baselines.mappo.turns.train_turns`.
    """
    probe = mase.make(args.env, obs_mode="vector", **args.env_kwargs)
    if args.learn or not probe.unwrapped.metadata.get("is_parallelizable", False):
        from mase.baselines.mappo.turns import train_turns  # it imports this module

        return train_turns(args)
    return train_rounds(args)


def train_rounds(args: Args) -> Path:
    """The round-lockstep loop: every seat learns, one round of every env per rollout step."""
    run = Run.start(args, batched=True)
    batch, agents, seats = run.batch, run.agents, run.seats
    obs_dim, n_actions, state_dim = run.obs_dim, run.n_actions, run.state_dim
    actor, critic, value_norm = run.actor, run.critic, run.value_norm
    N, A, T = args.num_envs, len(agents), args.num_rounds

    # rollout buffers: [round, env, agent, ...]
    obs_buf = torch.zeros(T, N, A, obs_dim)
    state_buf = torch.zeros(T, N, A, state_dim)
    mask_buf = torch.zeros(T, N, A, n_actions)
    action_buf = torch.zeros(T, N, A, dtype=torch.long)
    logprob_buf = torch.zeros(T, N, A)
    value_buf = torch.zeros(T, N, A)  # denormalized
    reward_buf = torch.zeros(T, N)
    done_buf = torch.zeros(T, N)  # the episode ended at the end of this round
    start_buf = torch.zeros(T, N)  # this round is the first of an episode

    hidden = torch.zeros(N, A, args.hidden)
    episode_start = torch.ones(N)
    turns_per_update = T * N * A
    num_updates = run.updates(
        args, turns_per_update, "agent turns", f"--num-envs x --num-rounds x {A} agents"
    )
    global_step, t0 = 0, time.time()
    recent: list[tuple[float, float]] = []
    max_score = 0

    for update in range(1, num_updates + 1):
        run.anneal(args, update, num_updates)
        hidden_start = hidden.clone()
        finished: list[tuple[float, float]] = []
        rollout_start = time.time()

        # -- rollout: one round per step, every agent acting at its own turn -----------------
        for t in range(T):
            start_buf[t] = episode_start
            round_reward = np.zeros(N, dtype=np.float32)
            for a in range(A):
                obs_np, mask_np = batch.observe(a)  # every world: seat a is to act
                obs, mask = torch.as_tensor(obs_np), torch.as_tensor(mask_np)
                state = torch.as_tensor(batch.state())
                with torch.no_grad():
                    logits, hidden[:, a] = actor(obs, seats[a].expand(N, A), hidden[:, a], mask)
                    dist = Categorical(logits=logits)
                    action = dist.sample()
                    value = value_norm.denormalize(critic(state))
                obs_buf[t, :, a], state_buf[t, :, a], mask_buf[t, :, a] = obs, state, mask
                action_buf[t, :, a], logprob_buf[t, :, a] = action, dist.log_prob(action)
                value_buf[t, :, a] = value
                result = batch.step(action.numpy())
                round_reward += result.rewards[:, a]
            # episodes end only between rounds: after the last seat's move (the batch has
            # already started the next episode of each world that ended)
            reward_buf[t] = torch.as_tensor(round_reward * args.reward_scale)
            global_step += N * A
            ended = torch.as_tensor(result.ended, dtype=torch.float32)
            done_buf[t] = ended
            episode_start = ended
            hidden[result.ended] = 0.0
            for metrics in result.metrics.values():
                finished.append((metrics["score"] / metrics["max_score"], metrics["rounds"]))
                max_score = metrics["max_score"]

        rollout_sps = turns_per_update / (time.time() - rollout_start)

        # -- advantages: GAE per agent trajectory on the shared round reward -----------------
        with torch.no_grad():
            next_state = torch.as_tensor(batch.state()).unsqueeze(1).expand(N, A, -1)
            next_value = value_norm.denormalize(critic(next_state))
            advantages = torch.zeros(T, N, A)
            last_gae = torch.zeros(N, A)
            for t in reversed(range(T)):
                nonterminal = (1.0 - done_buf[t]).unsqueeze(-1)
                following = next_value if t == T - 1 else value_buf[t + 1]
                delta = reward_buf[t].unsqueeze(-1) + args.gamma * following * nonterminal
                delta = delta - value_buf[t]
                last_gae = delta + args.gamma * args.gae_lambda * nonterminal * last_gae
                advantages[t] = last_gae
            returns = advantages + value_buf
        value_norm.update(returns)

        # -- PPO update over whole sequences (minibatches split the envs) --------------------
        for idx in run.minibatches(args):
            n = len(idx)
            # agents' recurrences are independent: fold the agent axis into the batch
            h = hidden_start[idx].reshape(n * A, args.hidden)
            seat = seats.repeat(n, 1)
            new_logprob, entropy = [], []
            for t in range(T):
                h = h * (1.0 - start_buf[t, idx]).repeat_interleave(A).unsqueeze(-1)
                logits, h = actor(
                    obs_buf[t, idx].reshape(n * A, obs_dim),
                    seat,
                    h,
                    mask_buf[t, idx].reshape(n * A, n_actions),
                )
                dist = Categorical(logits=logits)
                new_logprob.append(dist.log_prob(action_buf[t, idx].reshape(n * A)))
                entropy.append(dist.entropy())
            new_logprob = torch.stack(new_logprob).view(T, n, A)
            entropy = torch.stack(entropy).mean()
            losses = run.ppo(
                args, idx, new_logprob, entropy, logprob_buf, advantages, state_buf, returns,
                value_buf,
            )  # fmt: skip

        # -- metrics and checkpoints ---------------------------------------------------------
        recent = (recent + finished)[-200:]
        score = float(np.mean([s for s, _ in recent])) * max_score if recent else 0.0
        rounds = float(np.mean([r for _, r in recent])) if recent else 0.0
        success = float(np.mean([s >= 1.0 for s, _ in recent])) if recent else 0.0
        sps = global_step / (time.time() - t0)
        row = {
            "update": update,
            "global_step": global_step,
            "wall_s": round(time.time() - t0, 1),
            "charts/episodic_score": round(score, 2),
            "charts/episodic_rounds": round(rounds, 2),
            "charts/success_rate": round(success, 3),
            "charts/sps": round(sps),
            "perf/rollout_sps": round(rollout_sps),
            "perf/episodes": len(finished),
            **loss_columns(losses, entropy),
        }
        run.log.write(row, global_step)
        stats = {"score": score, "rounds": rounds, "success_rate": success}
        if update % args.checkpoint_every == 0 or update == num_updates:
            save_checkpoint(run.checkpoint, actor, args, run.envs[0], global_step, stats)
        print(
            f"update {update}/{num_updates}  step {global_step}  score {score:.1f}  "
            f"rounds {rounds:.1f}  success {success:.0%}  sps {sps:.0f}",
            flush=True,
        )
    run.log.close()
    return run.checkpoint
