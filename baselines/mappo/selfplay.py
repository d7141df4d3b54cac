"""Population self-play for two-sided tasks on a native batch: both sides learn at once.

Each side (Avalon: good, evil) has its own learner: a :class:`~.mappo.Actor` (the shared GRU
actor of MAPPO, one per side) and a :class:`~.mappo.Critic` on the global state and the seat,
trained with :func:`~.mappo.ppo_step` (clipped surrogate, clipped Huber value loss,
:class:`~.mappo.ValueNorm`). With ``shared_actor`` one actor and one critic play both sides
(the observation's own-role one-hot tells it which side it is on).

Each world of the rollout plays one *matchup*, drawn again whenever its episode ends: a
learning side against one member of the other side's population:

- ``self``: the other side's current learner (both sides learn from the world);
- ``snapshot``: a frozen copy of the other side's learner, one copy added every
  ``snapshot_every`` updates (at most ``max_snapshots`` kept; the oldest goes first);
- ``random``: uniform legal moves;
- ``frozen``: a fixed checkpoint (``frozen_checkpoint``), for a best response to it;
- ``scripted`` and ``deduction`` (any policy name of the task): Python policies that read the
  TEXT observation, which the native batch does not produce.

The first four play in the native batch (:func:`mase.make_vec`, arrays): each batch step,
every world's acting seat is played by whoever controls its side there, the actors of each
controller in one forward pass. The text-reading policies play in ``script_envs`` AEC envs
beside the batch, as :mod:`.turns` does with ``--opponent scripted``: the Python seats play
until a learner seat must act, so each of those worlds gives one learner turn per rollout step.
Why: the bots and the deduction player are the yardstick of the goals (a learned good side
that wins against the bots' evil side), but one AEC game with bots costs about 25 ms of Python
(``mase crossplay`` plays about 36 five-player games a second on one core), while the batch
steps a turn in microseconds. Rewriting the bots in arrays would be a second copy of their
rules to keep equal; running them on a share of the worlds keeps them exact, and the share is
a setting (``script_envs``) whose cost is measured in ``perf/script_s`` of the log.

Rewards are the task's (win +1, loss -1 to each seat; ``quest_reward`` if set among the task
arguments, training only). GAE runs along each seat's own turns (``gamma`` per own turn; 1.0
by default, since a discount rewards putting off a loss: see ``turns.py``). The PPO update
replays every world's turns in order from the rollout's starting GRU states, one pass per
learner over the turns it played.

Output under ``out``: ``good.pt`` and ``evil.pt`` (checkpoints of ``mase train mappo``'s
format, played by :class:`mase.baselines.MAPPOPolicy`), and ``SIDE/metrics.csv`` for each
learning side (``learner_turns``, ``win/MEMBER``: its win rate over the last 200 episodes
against each population member, losses).

Run: ``mase train selfplay --env mase/Avalon-v0 --env-arg roles=avalonbench-5
--env-arg discussion=0 --total-timesteps 20000000``
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.distributions import Categorical, Distribution

import mase
from mase.agents import make_policy
from mase.baselines.args import check_settings, check_tensorboard
from mase.baselines.mappo.mappo import (
    Actor,
    Critic,
    MetricsLog,
    ValueNorm,
    loss_columns,
    ppo_step,
    save_checkpoint,
)
from mase.runner.episode import seat_seeds

SIDES = ("good", "evil")
#: Members played by actors in the native batch; any other name is a text-reading policy.
ARRAY_MEMBERS = ("self", "snapshot", "random", "frozen")
NONE = -1
#: Controller ids below the snapshots: the two learners, random play, the frozen checkpoint.
RANDOM, FROZEN, PYTHON, FIRST_SNAPSHOT = 2, 3, 4, 5


@dataclass
class Args:
    """Settings of a self-play run (each one is a command-line option)."""

    env: str = "mase/Avalon-v0"
    """task id (two sides, a native batch whose ``evil`` array gives each seat's side)"""
    env_kwargs: dict = field(default_factory=lambda: {"roles": "avalonbench-5", "discussion": 0})
    """task arguments (JSON)"""
    seed: int = 1
    """seed of torch, numpy, the matchups and the first world"""
    total_timesteps: int = 2_000_000
    """learner turns to train for (both sides together)"""
    learn: str = "good,evil"
    """the sides that learn (comma-separated); one side alone learns a best response"""
    population: str = "self:2,snapshot:2,random:1"
    """array members and their weights, for the native worlds: self, snapshot, random, frozen"""
    scripted: str = "scripted:1,deduction:1"
    """text-reading opponents and their weights, for the AEC worlds (task policy names)"""
    frozen_checkpoint: str = ""
    """the ``frozen`` member's checkpoint (a MAPPO actor of the side that does not learn): a
    file, or the name of a task policy that plays a shipped one (``selfplay-good``)"""
    num_envs: int = 256
    """native worlds stepped together (0: none, AEC worlds only)"""
    script_envs: int = 16
    """AEC worlds whose opponents are the ``scripted`` policies (0: none)"""
    num_steps: int = 64
    """batch steps per rollout (each AEC world: learner turns per rollout)"""
    snapshot_every: int = 10
    """freeze a copy of each learner into the population every this many updates"""
    max_snapshots: int = 8
    """snapshots kept per side"""
    bptt: bool = False
    """replay whole sequences through the GRU in the update (backpropagation through time);
    off: each turn is replayed from the GRU state it was played with (a flat batch, several
    times faster a turn; the gradient does not reach past one step of the recurrence)"""
    shared_actor: bool = False
    """one actor and critic for both sides (the role in the observation tells them apart)"""
    learning_rate: float = 5e-4
    """Adam learning rate (annealed linearly to 0 when anneal_lr)"""
    anneal_lr: bool = True
    """anneal the learning rate"""
    gamma: float = 1.0
    """discount per own turn"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """epochs over each rollout"""
    num_minibatches: int = 4
    """minibatches per epoch (split over worlds, so sequences stay whole)"""
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
    reward_scale: float = 1.0
    """rewards are multiplied by this"""
    hidden: int = 128
    """width of the actors' MLP and GRU and of the critics"""
    threads: int = 1
    """torch threads"""
    out: str = "runs/selfplay"
    """output directory: good.pt, evil.pt, SIDE/metrics.csv"""
    checkpoint_every: int = 20
    """save checkpoints every this many updates (and at the end)"""
    keep_checkpoints: bool = False
    """also keep each checkpoint as SIDE-STEP.pt (STEP: that side's learner turns so far)"""
    tensorboard: bool = False
    """also write the metrics.csv columns named group/name as TensorBoard events into out/SIDE
    (needs the tensorboard extra)"""

    def __post_init__(self) -> None:
        check_settings(
            self,
            positive=("total_timesteps", "num_steps", "learning_rate", "update_epochs",
                      "num_minibatches", "hidden", "threads", "checkpoint_every",
                      "snapshot_every", "max_snapshots"),
            fractions=("gamma", "gae_lambda"),
        )  # fmt: skip
        check_tensorboard(self)
        learn = self.sides()
        if not learn or any(s not in SIDES for s in learn) or len(set(learn)) != len(learn):
            raise ValueError(f"--learn takes good, evil or good,evil; got {self.learn!r}")
        if self.num_envs < 0 or self.script_envs < 0 or self.num_envs + self.script_envs == 0:
            raise ValueError("--num-envs and --script-envs: at least one world, none negative")
        members = self.members() if self.num_envs else {}
        if self.num_envs and not members:
            raise ValueError("--population is empty but --num-envs is above 0")
        if self.script_envs and not self.script_members():
            raise ValueError("--scripted is empty but --script-envs is above 0")
        if "self" in members and len(learn) < 2:
            raise ValueError("population member self needs both sides learning (--learn good,evil)")
        if "frozen" in members and not self.frozen_checkpoint:
            raise ValueError("population member frozen needs --frozen-checkpoint")

    def sides(self) -> list[str]:
        """The learning sides, in ``SIDES`` order."""
        given = [s.strip() for s in self.learn.split(",") if s.strip()]
        return given if any(s not in SIDES for s in given) else [s for s in SIDES if s in given]

    def members(self) -> dict[str, float]:
        """The native worlds' population members and their weights."""
        return _weights(self.population, "--population", ARRAY_MEMBERS)

    def script_members(self) -> dict[str, float]:
        """The AEC worlds' opponents and their weights."""
        return _weights(self.scripted, "--scripted", None)


def _weights(spec: str, option: str, allowed: tuple[str, ...] | None) -> dict[str, float]:
    """``"a:2,b:1"`` -> ``{"a": 2.0, "b": 1.0}`` (a name alone weighs 1); zero weights dropped."""
    out: dict[str, float] = {}
    for item in (p.strip() for p in spec.split(",")):
        if not item:
            continue
        name, _, weight = item.rpartition(":") if ":" in item else (item, "", "1")
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"{option}: {item!r} is not NAME or NAME:WEIGHT") from None
        if allowed is not None and name not in allowed:
            raise ValueError(f"{option}: unknown member {name!r} (known: {', '.join(allowed)})")
        if w < 0 or name in out:
            raise ValueError(f"{option}: {item!r} has a negative weight or is named twice")
        if w > 0:
            out[name] = w
    return out


# -- the learners and the population ----------------------------------------------------------


@dataclass
class Learner:
    """One network pair in training, and the sides it plays."""

    actor: Actor
    critic: Critic
    optimizer: torch.optim.Optimizer
    value_norm: ValueNorm
    sides: list[int]


def frozen_actor(env_id: str, env_kwargs: dict, spec: str) -> Any:
    """The actor of a MAPPO checkpoint: a file, or a task policy's name that loads one."""
    from mase.baselines.mappo.policy import MAPPOPolicy

    if Path(spec).is_file():
        return MAPPOPolicy.load(spec).actor
    try:
        policy = make_policy(spec, mase.make(env_id, **env_kwargs))
    except (KeyError, ValueError) as exc:
        raise ValueError(f"frozen_checkpoint {spec!r}: no such file, nor a policy: {exc}") from exc
    if not isinstance(policy, MAPPOPolicy):
        raise ValueError(f"frozen_checkpoint {spec!r} names a policy that is no MAPPO checkpoint")
    return policy.actor


def side_of_seats(batch: Any) -> np.ndarray:
    """``[N, A]`` int: each seat's side (0 good, 1 evil) in every world of the batch."""
    evil = getattr(batch, "evil", None)
    if evil is None:
        raise ValueError(f"{batch.spec_id}: self-play needs a native batch with an evil array")
    return np.asarray(evil, dtype=np.int64)


class Worlds:
    """The rollout's worlds: the native batch's, then the AEC ones; their matchups and seats.

    ``ctrl[w, side]`` is who plays ``side`` in world ``w`` (a learner's side index 0 or 1,
    ``RANDOM``, ``FROZEN``, ``PYTHON``, or ``FIRST_SNAPSHOT + k``); ``member[w]`` names the
    learning side's opponent; ``learner_side[w]`` the side whose result is scored (-1: both).
    """

    def __init__(self, args: Args, rng: np.random.Generator) -> None:
        self.args, self.rng = args, rng
        self.learn = [SIDES.index(s) for s in args.sides()]
        self.batch = None
        if args.num_envs:
            self.batch = mase.make_vec(args.env, args.num_envs, **args.env_kwargs)
            self.batch.reset(seed=args.seed)
            side_of_seats(self.batch)
        self.envs = [
            mase.make(args.env, obs_mode="vector", **args.env_kwargs)
            for _ in range(args.script_envs)
        ]
        probe = mase.make(args.env, obs_mode="vector", **args.env_kwargs)
        probe.reset(seed=args.seed)
        self.probe = probe
        self.agents = list(probe.possible_agents)
        self.N, self.M = args.num_envs, args.script_envs
        self.W, self.A = self.N + self.M, len(self.agents)
        self.ctrl = np.zeros((self.W, 2), dtype=np.int64)
        self.member = [""] * self.W
        self.learner_side = np.zeros(self.W, dtype=np.int64)
        self.seat_side = np.zeros((self.W, self.A), dtype=np.int64)
        self.python: list[dict[str, Any]] = [{} for _ in range(self.M)]
        self.policies: list[dict[tuple[str, str], Any]] = [{} for _ in range(self.M)]
        self.snapshots: list[list[tuple[int, Actor]]] = [[], []]  # per side: (update, actor)
        self.snapshot_count = 0

    def draw_native(self, w: int) -> None:
        """A new matchup for native world ``w`` (its episode has just begun)."""
        members = self.args.members()
        names = list(members)
        p = np.array([members[k] for k in names])
        name = names[self.rng.choice(len(names), p=p / p.sum())]
        side = self.learn[self.rng.integers(len(self.learn))]
        other = 1 - side
        self.ctrl[w, side] = side
        self.learner_side[w] = side
        if name == "self":
            self.ctrl[w, other], self.learner_side[w] = other, NONE
        elif name == "snapshot" and self.snapshots[other]:
            k = int(self.rng.integers(len(self.snapshots[other])))
            self.ctrl[w, other] = FIRST_SNAPSHOT + 2 * k + other
        elif name == "snapshot":  # none yet: the other side's learner, or random play
            self.ctrl[w, other] = other if other in self.learn else RANDOM
        else:
            self.ctrl[w, other] = RANDOM if name == "random" else FROZEN
        self.member[w] = name

    def draw_script(self, m: int, seed: int) -> None:
        """Reset AEC world ``m`` with ``seed``, a new matchup and its Python seats' policies."""
        w = self.N + m
        env = self.envs[m]
        env.reset(seed=seed)
        members = self.args.script_members()
        names = list(members)
        p = np.array([members[k] for k in names])
        name = names[self.rng.choice(len(names), p=p / p.sum())]
        side = self.learn[self.rng.integers(len(self.learn))]
        self.ctrl[w] = (side, PYTHON) if side == 0 else (PYTHON, side)
        self.learner_side[w], self.member[w] = side, name
        self.seat_side[w] = [SIDES.index(env.unwrapped.side_of(a)) for a in self.agents]
        self.python[m] = {}
        for agent, seat_seed in seat_seeds(seed, self.agents).items():
            if self.seat_side[w, self.agents.index(agent)] != side:
                key = (name, agent)
                if key not in self.policies[m]:
                    self.policies[m][key] = make_policy(name, env)
                policy = self.policies[m][key]
                policy.reset(agent, env, seed=seat_seed)
                self.python[m][agent] = policy

    def add_snapshots(self, learners: list[Learner | None], update: int) -> None:
        """Freeze a copy of each learning side's actor into the other side's population.

        The pools are rings of ``max_snapshots``: once full, the newest copy takes the oldest's
        slot (worlds that were playing the oldest play the newest from then on).
        """
        for side in self.learn:
            frozen = copy.deepcopy(learners[side].actor).eval()
            for p in frozen.parameters():
                p.requires_grad_(False)
            pool = self.snapshots[side]
            if len(pool) < self.args.max_snapshots:
                pool.append((update, frozen))
            else:
                pool[self.snapshot_count // len(self.learn) % len(pool)] = (update, frozen)
            self.snapshot_count += 1

    def snapshot_actor(self, ctrl: int) -> Actor:
        """The frozen actor behind controller id ``ctrl`` (a snapshot)."""
        k, side = divmod(ctrl - FIRST_SNAPSHOT, 2)
        return self.snapshots[side][k][1]


# -- the trainer ------------------------------------------------------------------------------


class SelfPlay:
    """One run: the worlds, the learners, the rollout buffers, the logs (see the module doc)."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "args.json").write_text(json.dumps(asdict(args), indent=2))
        torch.set_num_threads(args.threads)
        Distribution.set_default_validate_args(False)  # masks make many logits -1e9 on purpose
        torch.manual_seed(args.seed)
        self.rng = np.random.default_rng(args.seed)
        self.gen = torch.Generator().manual_seed(args.seed)  # random play's draws
        self.worlds = w = Worlds(args, self.rng)
        probe = w.probe
        agent = w.agents[0]
        self.obs_dim = int(probe.observation_space(agent)["observation"].shape[0])
        self.n_actions = int(probe.action_space(agent).n)
        self.state_dim = int(probe.state_space.shape[0])
        self.seats = torch.eye(w.A)
        self.learners: list[Learner | None] = [None, None]
        for side in w.learn:
            if args.shared_actor and self.learners[w.learn[0]] is not None:
                self.learners[side] = self.learners[w.learn[0]]
                self.learners[side].sides.append(side)
                continue
            actor = Actor(self.obs_dim, w.A, self.n_actions, args.hidden)
            critic = Critic(self.state_dim + w.A, args.hidden)
            params = [*actor.parameters(), *critic.parameters()]
            optimizer = torch.optim.Adam(params, lr=args.learning_rate, eps=1e-5)
            self.learners[side] = Learner(actor, critic, optimizer, ValueNorm(), [side])
        self.nets = list({id(x): x for x in self.learners if x is not None}.values())
        self.net_of = {side: self.nets.index(self.learners[side]) for side in w.learn}
        self.frozen = None
        if args.frozen_checkpoint:
            self.frozen = frozen_actor(args.env, args.env_kwargs, args.frozen_checkpoint)
        for s in w.learn:
            (self.out / SIDES[s]).mkdir(exist_ok=True)
        self.logs = {SIDES[s]: MetricsLog(self.out / SIDES[s], args.tensorboard) for s in w.learn}
        self._buffers()
        self.hidden = torch.zeros(w.W, w.A, args.hidden)
        # the frozen checkpoint's GRU state (its width is its own, not necessarily --hidden)
        width = self.frozen.hidden if self.frozen is not None else 0
        self.frozen_hidden = torch.zeros(w.W, w.A, width)
        self.latest = np.full((w.W, w.A), NONE, dtype=np.int64)
        self.acted = np.zeros((w.W, w.A), dtype=bool)
        self.aec_acting = np.zeros(w.M, dtype=np.int64)
        self.finished: list[tuple[int, str, float]] = []  # (learner side or -1, member, good_won)
        self.recent: list[tuple[int, str, float]] = []
        self.turns = [0, 0]  # learner turns per side
        self.timing = {"native": 0.0, "script": 0.0, "update": 0.0}
        if w.batch is not None:
            w.seat_side[: w.N] = side_of_seats(w.batch)
            for n in range(w.N):
                w.draw_native(n)
        for m in range(w.M):
            w.draw_script(m, args.seed + w.N + m)
            self.play_to_learner(m)

    def _buffers(self) -> None:
        T, W, A = self.args.num_steps, self.worlds.W, self.worlds.A
        self.obs_buf = torch.zeros(T, W, self.obs_dim)
        self.state_buf = torch.zeros(T, W, self.state_dim + A)
        self.mask_buf = torch.zeros(T, W, self.n_actions)
        self.seat_buf = torch.zeros(T, W, dtype=torch.long)
        self.side_buf = torch.zeros(T, W, dtype=torch.long)
        self.owner_buf = torch.full((T, W), NONE, dtype=torch.long)  # net index, -1: not learning
        self.action_buf = torch.zeros(T, W, dtype=torch.long)
        self.logprob_buf = torch.zeros(T, W)
        self.value_buf = torch.zeros(T, W)
        self.reward_buf = torch.zeros(T, W)
        self.done_buf = torch.zeros(T, W)
        self.first_buf = torch.zeros(T, W)
        self.hidden_buf = torch.zeros(T, W, self.args.hidden)  # a learner's GRU state in
        self.next_buf = torch.full((T, W), NONE, dtype=torch.long)
        self.bootstrap_buf = torch.zeros(T, W)

    # -- rewards and episode ends ---------------------------------------------------------------

    def learner_seats(self, w: int) -> np.ndarray:
        """``[A]`` bool: the seats of world ``w`` played by a learner this episode."""
        ctrl = self.worlds.ctrl[w, self.worlds.seat_side[w]]
        return ctrl < RANDOM

    def credit(self, w: int, rewards: np.ndarray) -> None:
        """Add a step's rewards ``[A]`` to the latest transition of each learner seat."""
        for a in np.flatnonzero(rewards * self.learner_seats(w)):
            step = self.latest[w, a]
            if step != NONE:  # a reward before the seat's first turn of the rollout belongs
                # to the last rollout's transition, which the bootstrap value stood for
                self.reward_buf[step, w] += float(rewards[a]) * self.args.reward_scale

    def end_episode(self, w: int, good_won: float) -> None:
        """Close the learner chains of world ``w`` and record the result of its matchup."""
        for a in np.flatnonzero(self.latest[w] != NONE):
            self.done_buf[self.latest[w, a], w] = 1.0
        self.latest[w] = NONE
        self.acted[w] = False
        self.hidden[w] = 0.0
        self.frozen_hidden[w] = 0.0
        self.finished.append((int(self.worlds.learner_side[w]), self.worlds.member[w], good_won))

    def play_to_learner(self, m: int) -> None:
        """Play AEC world ``m``'s Python seats until a learner seat must act."""
        worlds, w = self.worlds, self.worlds.N + m
        env = worlds.envs[m]
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                self.end_episode(w, float(env.infos[agent]["metrics"]["good_won"]))
                worlds.draw_script(m, int(self.rng.integers(2**31)))
                continue
            seat = worlds.agents.index(agent)
            if agent not in worlds.python[m]:
                view = env.observe(agent)
                if view["action_mask"].any():
                    self.aec_acting[m] = seat
                    return
                env.step("")  # a speech turn: the learner says nothing
            else:
                policy = worlds.python[m][agent]
                env.step(policy.act(env.observe(agent), env.infos[agent]))
            self.credit(w, np.array([env.rewards.get(a, 0.0) for a in worlds.agents]))

    # -- the rollout ------------------------------------------------------------------------------

    def observe(self) -> tuple[np.ndarray, ...]:
        """Every world's acting seat, its observation, mask, and the global state."""
        worlds = self.worlds
        parts = []
        if worlds.batch is not None:
            obs, mask = worlds.batch.observe()
            parts.append((worlds.batch.acting, obs, mask, worlds.batch.state()))
        if worlds.M:
            views = [env.observe(env.agent_selection) for env in worlds.envs]
            parts.append((
                self.aec_acting.copy(),
                np.stack([v["observation"] for v in views]).astype(np.float32),
                np.stack([v["action_mask"] for v in views]).astype(np.int8),
                np.stack([env.state() for env in worlds.envs]).astype(np.float32),
            ))  # fmt: skip
        return tuple(np.concatenate(x) for x in zip(*parts, strict=True))

    def act(self, t: int) -> np.ndarray:
        """Choose every world's action at rollout step ``t``, filling the buffers' row ``t``."""
        worlds = self.worlds
        acting, obs_np, mask_np, state_np = self.observe()
        rows = np.arange(worlds.W)
        side = worlds.seat_side[rows, acting]
        ctrl = worlds.ctrl[rows, side]
        obs, mask = torch.as_tensor(obs_np), torch.as_tensor(mask_np)
        seat = torch.as_tensor(acting)
        state = torch.cat([torch.as_tensor(state_np), self.seats[seat]], dim=-1)
        action = torch.zeros(worlds.W, dtype=torch.long)
        owner = np.full(worlds.W, NONE)
        with torch.no_grad():
            for c in np.unique(ctrl).tolist():
                r = torch.as_tensor(np.flatnonzero(ctrl == c))
                if c == RANDOM:
                    scores = torch.rand(len(r), self.n_actions, generator=self.gen)
                    action[r] = (scores * mask[r]).argmax(-1)
                    continue
                if c < RANDOM:
                    net = self.nets[self.net_of[c]]
                    actor, owner[r.numpy()] = net.actor, self.net_of[c]
                else:
                    actor = self.frozen if c == FROZEN else worlds.snapshot_actor(c)
                x = obs[r][:, : actor.encoder[0].in_features - actor.n_agents]
                hidden = self.frozen_hidden if c == FROZEN else self.hidden
                if c < RANDOM:
                    self.hidden_buf[t, r] = hidden[r, seat[r]]
                logits, hidden[r, seat[r]] = actor(
                    x, self.seats[seat[r]], hidden[r, seat[r]], mask[r]
                )
                dist = Categorical(logits=logits)
                action[r] = dist.sample()
                if c < RANDOM:
                    self.logprob_buf[t, r] = dist.log_prob(action[r])
                    self.value_buf[t, r] = net.value_norm.denormalize(net.critic(state[r]))
        self.obs_buf[t], self.state_buf[t], self.mask_buf[t] = obs, state, mask
        self.seat_buf[t], self.side_buf[t] = seat, torch.as_tensor(side)
        self.action_buf[t], self.owner_buf[t] = action, torch.as_tensor(owner)
        for w in np.flatnonzero(owner != NONE).tolist():
            a = int(acting[w])
            if self.latest[w, a] != NONE:
                self.next_buf[self.latest[w, a], w] = t
            self.latest[w, a] = t
            self.first_buf[t, w] = float(not self.acted[w, a])
            self.acted[w, a] = True
            self.turns[int(side[w])] += 1
        return action.numpy()

    def step(self, actions: np.ndarray) -> None:
        """Play the chosen actions in every world, credit rewards, restart ended episodes."""
        worlds, N = self.worlds, self.worlds.N
        t0 = time.perf_counter()
        if worlds.batch is not None:
            result = worlds.batch.step(actions[:N])
            for n in np.flatnonzero((result.rewards != 0).any(axis=1)).tolist():
                self.credit(n, result.rewards[n])
            ended = np.flatnonzero(result.ended)
            if ended.size:
                worlds.seat_side[ended] = side_of_seats(worlds.batch)[ended]
                for n in ended.tolist():
                    self.end_episode(n, float(result.metrics[n]["good_won"]))
                    worlds.draw_native(n)
        t1 = time.perf_counter()
        for m, env in enumerate(worlds.envs):
            env.step(int(actions[N + m]))
            self.credit(N + m, np.array([env.rewards.get(a, 0.0) for a in worlds.agents]))
            self.play_to_learner(m)
        self.timing["native"] += t1 - t0
        self.timing["script"] += time.perf_counter() - t1

    # -- advantages and the PPO update ----------------------------------------------------------

    def bootstrap(self) -> None:
        """The critic's value where the rollout stopped, for each learner chain still open."""
        worlds = self.worlds
        _, _, _, state_np = self.observe()
        state = torch.as_tensor(state_np)
        with torch.no_grad():
            for w, a in zip(*np.nonzero(self.latest != NONE), strict=True):
                net = self.nets[self.net_of[int(worlds.ctrl[w, worlds.seat_side[w, a]])]]
                x = torch.cat([state[w], self.seats[a]]).unsqueeze(0)
                value = net.value_norm.denormalize(net.critic(x))
                self.bootstrap_buf[self.latest[w, a], w] = value[0]

    def advantages(self) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE along each seat's own turns; ``(advantages, returns)``, ``[T, W]``."""
        args, T, W = self.args, self.args.num_steps, self.worlds.W
        with torch.no_grad():
            advantages = torch.zeros(T + 1, W)  # row T: zero, for chains with no next turn
            values = torch.cat([self.value_buf, torch.zeros(1, W)])
            rows = torch.arange(W)
            for t in reversed(range(T)):
                nxt = self.next_buf[t]
                following = nxt.where(nxt != NONE, T)
                next_value = torch.where(
                    nxt != NONE, values[following, rows], self.bootstrap_buf[t]
                )
                nonterminal = 1.0 - self.done_buf[t]
                delta = self.reward_buf[t] + args.gamma * next_value * nonterminal
                delta = delta - self.value_buf[t]
                advantages[t] = delta + (
                    args.gamma * args.gae_lambda * nonterminal * advantages[following, rows]
                )
            advantages = advantages[:T]
        return advantages, advantages + self.value_buf

    def update(self, hidden_start: torch.Tensor) -> dict[int, dict]:
        """PPO on each network's own turns; the last minibatch's losses, by network index."""
        args = self.args
        advantages, returns = self.advantages()
        losses: dict[int, dict] = {}
        for k, net in enumerate(self.nets):
            owned = self.owner_buf == k
            if not owned.any():
                continue
            net.value_norm.update(returns[owned])
            if args.bptt:
                self.update_sequences(k, net, owned, hidden_start, advantages, returns, losses)
                continue
            rows = torch.nonzero(owned)  # [R, 2]: (step, world)
            for _ in range(args.update_epochs):
                order = torch.as_tensor(self.rng.permutation(len(rows)))
                for chunk in torch.tensor_split(order, args.num_minibatches):
                    t, w = rows[chunk, 0], rows[chunk, 1]
                    seat = self.seat_buf[t, w]
                    logits, _ = net.actor(
                        self.obs_buf[t, w], self.seats[seat], self.hidden_buf[t, w],
                        self.mask_buf[t, w],
                    )  # fmt: skip
                    dist = Categorical(logits=logits)
                    entropy = dist.entropy().mean()
                    result = ppo_step(
                        args, net.actor, net.critic, net.optimizer, net.value_norm,
                        dist.log_prob(self.action_buf[t, w]), entropy, self.logprob_buf[t, w],
                        advantages[t, w], self.state_buf[t, w], returns[t, w],
                        self.value_buf[t, w],
                    )  # fmt: skip
                    losses[k] = loss_columns(result, entropy)
        return losses

    def update_sequences(self, k, net, owned, hidden_start, advantages, returns, losses) -> None:
        """PPO through time: each world's turns replayed in order (minibatches split worlds)."""
        args, worlds_ids = self.args, np.arange(self.worlds.W)
        for _ in range(args.update_epochs):
            self.rng.shuffle(worlds_ids)
            for chunk in np.array_split(worlds_ids, args.num_minibatches):
                idx = torch.as_tensor(chunk)
                valid = owned[:, idx]
                if not valid.any():
                    continue
                logprob, entropy = self.replay(net.actor, hidden_start[idx], idx, valid)
                result = ppo_step(
                    args, net.actor, net.critic, net.optimizer, net.value_norm,
                    logprob[valid], entropy[valid].mean(), self.logprob_buf[:, idx][valid],
                    advantages[:, idx][valid], self.state_buf[:, idx][valid],
                    returns[:, idx][valid], self.value_buf[:, idx][valid],
                )  # fmt: skip
                losses[k] = loss_columns(result, entropy[valid].mean())

    def replay(self, actor: Actor, h: torch.Tensor, idx: torch.Tensor, valid: torch.Tensor):
        """Re-run ``actor`` over the worlds ``idx`` in order; ``(logprob, entropy)``, ``[T, n]``.

        Each seat's GRU state moves only on the turns ``valid`` marks (the network's own).
        """
        rows = torch.arange(len(idx))
        logprobs, entropies = [], []
        for t in range(self.args.num_steps):
            seat = self.seat_buf[t, idx]
            h_seat = h[rows, seat]
            h_in = h_seat * (1.0 - self.first_buf[t, idx]).unsqueeze(-1)
            logits, h_out = actor(
                self.obs_buf[t, idx], self.seats[seat], h_in, self.mask_buf[t, idx]
            )
            h = h.index_put((rows, seat), torch.where(valid[t].unsqueeze(-1), h_out, h_seat))
            dist = Categorical(logits=logits)
            logprobs.append(dist.log_prob(self.action_buf[t, idx]))
            entropies.append(dist.entropy())
        return torch.stack(logprobs), torch.stack(entropies)

    # -- one update, logs and checkpoints ---------------------------------------------------------

    def iteration(self, update: int, num_updates: int) -> dict[int, dict]:
        """Roll out ``num_steps`` steps of every world, then update every learner."""
        args = self.args
        if args.anneal_lr:
            for net in self.nets:
                net.optimizer.param_groups[0]["lr"] = args.learning_rate * (
                    1 - (update - 1) / num_updates
                )
        hidden_start = self.hidden.clone()
        self.finished = []
        for buf in (self.reward_buf, self.done_buf, self.bootstrap_buf, self.first_buf):
            buf.zero_()
        self.next_buf.fill_(NONE)
        self.latest[:] = NONE
        for t in range(args.num_steps):
            self.step(self.act(t))
        self.bootstrap()
        t0 = time.perf_counter()
        losses = self.update(hidden_start)
        self.timing["update"] += time.perf_counter() - t0
        if update % args.snapshot_every == 0:
            self.worlds.add_snapshots(self.learners, update)
        return losses

    def win_rates(self, side: int) -> dict[str, float]:
        """``side``'s win rate against each member over its last 200 episodes (NaN: none yet)."""
        rates: dict[str, list[float]] = {m: [] for m in self.member_names(side)}
        for learner_side, member, good_won in self.recent:
            if learner_side in (side, NONE):
                won = good_won if side == 0 else 1.0 - good_won
                rates.setdefault(member, []).append(won)
        return {
            f"win/{m}": round(float(np.mean(v[-200:])), 3) if v else float("nan")
            for m, v in rates.items()
        }

    def member_names(self, side: int) -> list[str]:
        """The members ``side`` can meet: the native worlds' then the AEC worlds'."""
        names = list(self.args.members()) if self.worlds.N else []
        return names + (list(self.args.script_members()) if self.worlds.M else [])

    def log(self, update: int, losses: dict[int, dict], t0: float) -> None:
        """One row per learning side into ``SIDE/metrics.csv``; a line on stdout."""
        self.recent = (self.recent + self.finished)[-4000:]
        wall = time.time() - t0
        total = sum(self.turns)
        line = [f"update {update}  turns {total:,}  {total / wall:,.0f}/s"]
        for side in self.worlds.learn:
            row = {
                "update": update,
                "global_step": self.turns[side],
                "learner_turns": self.turns[side],
                "all_learner_turns": total,
                "wall_s": round(wall, 1),
                "charts/sps": round(total / wall),
                "perf/native_s": round(self.timing["native"], 1),
                "perf/script_s": round(self.timing["script"], 1),
                "perf/update_s": round(self.timing["update"], 1),
                "perf/episodes": sum(1 for s, _, _ in self.finished if s in (side, NONE)),
                "perf/snapshots": len(self.worlds.snapshots[side]),
                **{k: v for k, v in self.win_rates(side).items()},
                **losses.get(self.net_of[side], {}),
            }
            self.logs[SIDES[side]].write(row, self.turns[side])
            wins = " ".join(f"{k[4:]} {v:.0%}" for k, v in self.win_rates(side).items() if v == v)
            line.append(f"{SIDES[side]}: {wins}")
        print("  ".join(line), flush=True)

    def save(self) -> dict[str, Path]:
        """Write each learning side's checkpoint, ``SIDE.pt`` under ``out``."""
        paths = {}
        for side in self.worlds.learn:
            net = self.learners[side]
            path = self.out / f"{SIDES[side]}.pt"
            stats = {"side": SIDES[side], **self.win_rates(side)}
            save_checkpoint(path, net.actor, self.args, self.worlds.probe, self.turns[side], stats)
            paths[SIDES[side]] = path
        return paths

    def close(self) -> None:
        """Close the logs and the worlds."""
        for log in self.logs.values():
            log.close()
        if self.worlds.batch is not None:
            self.worlds.batch.close()


def train_selfplay(args: Args) -> dict[str, Path]:
    """Train by population self-play (see the module docstring); the checkpoints by side.

    Stops after the first update that reaches ``args.total_timesteps`` learner turns.
    """
    run = SelfPlay(args)
    t0 = time.time()
    # learner turns per update vary with the matchups: an estimate fixes the annealing length
    per_update = max(1, args.num_steps * (run.worlds.N * len(args.sides()) // 2 + run.worlds.M))
    num_updates = max(1, -(-args.total_timesteps // per_update))
    update = 0
    while sum(run.turns) < args.total_timesteps:
        update += 1
        losses = run.iteration(update, max(num_updates, update))
        run.log(update, losses, t0)
        if update % args.checkpoint_every == 0:
            run.save()
    paths = run.save()
    run.close()
    return paths


def train(args: Args) -> Path:
    """``mase train selfplay``: train, and return the first learning side's checkpoint."""
    paths = train_selfplay(args)
    for side, path in paths.items():
        print(f"{side}: {path}")
    return next(iter(paths.values()))
