"""MAPPO turn by turn: seats act when the task says, and some seats may be fixed policies.

The round-lockstep loop of :mod:`.mappo` needs every seat to act once per round in a fixed
order. Turn-based tasks such as Avalon break that: the leader alone proposes, everyone votes,
only the team plays cards, the Assassin names; and a side can learn against the task's
scripted bots. Here each env is stepped AEC-style:

- the seats that learn this episode are those of ``args.learn`` (the task's ``side_of``, read
  from the env by the trainer; the actor itself sees only the seat's observation), or every
  seat; the others are played by ``args.opponent`` (the task's scripted bot, or random);
- the fixed seats play until a learner seat must act; then its observation, action mask, the
  global state and its GRU state go into that seat's own trajectory (a rollout step is one
  learner turn in each env, so ``num_steps x num_envs`` learner turns per update);
- a reward reaching a learner seat, after anyone's move, is added to that seat's latest
  transition; the end of an episode closes every learner trajectory of that env;
- a speech turn (no index legal: the utterance is the move) is not a decision: the learner
  says nothing.

Each seat keeps its own GRU state and its own chain of transitions, so GAE runs along each
seat's turns (``gamma`` is a discount per own turn), and a chain still open at the end of a
rollout is bootstrapped with the critic's value of the state where the rollout stopped. The
critic reads the global state and the seat (in Avalon the state holds every role, so it can
tell good seats' value from evil ones'). The PPO update replays each env's turns in order from
the rollout's starting GRU states, as the lockstep loop does.

``metrics.csv`` logs ``charts/episodic_return`` (the learner seats' mean return over the last
200 episodes), ``charts/win_rate`` (the share of those with a positive return) and each numeric
measure of the task's ``info["metrics"]`` as ``episode/NAME`` (Avalon: ``episode/good_won``,
``episode/quests_succeeded``, ``episode/team_selection_accuracy``, ...).

A sparse end reward that is mostly a loss meets a trap in ``gamma`` below 1: a loss pushed
further off costs less, so Avalon's good side learned to stall (rejecting proposal after
proposal). ``docs/training/mappo-avalon/results.md`` has the settings that trained the shipped
checkpoints.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.distributions import Categorical

from mase.agents import make_policy
from mase.baselines.mappo.mappo import Args, Run, loss_columns, save_checkpoint
from mase.runner.episode import seat_seeds

#: Rollout steps with no successor transition of the same seat (yet).
NONE = -1


@dataclass
class Table:
    """One env of the rollout and its current episode: who learns, who plays the others."""

    env: Any
    opponents: dict[str, Any]
    learners: frozenset[str] = frozenset()
    returns: dict[str, float] = field(default_factory=dict)
    acted: set[str] = field(default_factory=set)  # learner seats that have acted this episode
    latest: dict[str, int] = field(default_factory=dict)  # seat -> its last step this rollout
    view: dict = field(default_factory=dict)  # the observation of the learner seat to act


def learner_seats(env: Any, learn: str) -> frozenset[str]:
    """The seats of side ``learn`` this episode (every seat when ``learn`` is empty)."""
    if not learn:
        return frozenset(env.possible_agents)
    sides = {a: env.unwrapped.side_of(a) for a in env.possible_agents}
    seats = frozenset(a for a, side in sides.items() if side == learn)
    if not seats:
        raise ValueError(
            f"--learn {learn!r}: no seat plays for that side; sides this episode: "
            f"{sorted(set(sides.values()))}"
        )
    return seats


def new_episode(table: Table, args: Args, seed: int) -> None:
    """Reset the env, find the learner seats, reset the fixed policies of the other seats."""
    env = table.env
    env.reset(seed=seed)
    table.learners = learner_seats(env, args.learn)
    table.returns = dict.fromkeys(table.learners, 0.0)
    table.acted = set()
    for seat, seat_seed in seat_seeds(seed, env.possible_agents).items():
        if seat not in table.learners:
            table.opponents[seat].reset(seat, env, seed=seat_seed)


def train_turns(args: Args) -> Path:
    """Train turn by turn (see the module docstring); returns the final checkpoint."""
    run = Run.start(args, seat_in_critic=True)  # the seat too: sides differ in value
    rng, envs, agents, seats = run.rng, run.envs, run.agents, run.seats
    obs_dim, n_actions, state_dim = run.obs_dim, run.n_actions, run.state_dim
    actor, critic, value_norm = run.actor, run.critic, run.value_norm
    N, A, T = args.num_envs, len(agents), args.num_steps
    seat_index = {a: i for i, a in enumerate(agents)}
    # the task's numeric episode measures, logged as episode/NAME (known before any episode ends)
    measures = [k for k, v in envs[0].unwrapped.metrics().items()
                if isinstance(v, int | float) and not isinstance(v, bool)]  # fmt: skip

    # rollout buffers: [learner turn, env, ...]; each step is one learner seat's turn
    obs_buf = torch.zeros(T, N, obs_dim)
    state_buf = torch.zeros(T, N, state_dim + A)
    mask_buf = torch.zeros(T, N, n_actions)
    seat_buf = torch.zeros(T, N, dtype=torch.long)
    action_buf = torch.zeros(T, N, dtype=torch.long)
    logprob_buf = torch.zeros(T, N)
    value_buf = torch.zeros(T, N)  # denormalized
    reward_buf = torch.zeros(T, N)  # rewards reaching the seat until its next turn
    done_buf = torch.zeros(T, N)  # the seat's episode ended before its next turn
    first_buf = torch.zeros(T, N)  # the seat's first turn of an episode (GRU state from zero)
    next_buf = torch.full((T, N), NONE, dtype=torch.long)  # the seat's next turn in the rollout
    bootstrap_buf = torch.zeros(T, N)  # value after the rollout, for chains still open

    tables = [Table(env, {a: make_policy(args.opponent, env) for a in agents}) for env in envs]
    for i, table in enumerate(tables):
        new_episode(table, args, args.seed + i)
    hidden = torch.zeros(N, A, args.hidden)
    turns_per_update = T * N
    num_updates = run.updates(args, turns_per_update, "learner turns", "--num-envs x --num-steps")
    global_step, t0 = 0, time.time()
    recent: list[tuple[float, dict]] = []

    def reward(table: Table, n: int) -> None:
        """Credit the step's rewards to each learner seat's latest transition."""
        for seat in table.learners:
            r = float(table.env.rewards.get(seat, 0.0))
            if r:
                table.returns[seat] += r
                if seat in table.latest:
                    reward_buf[table.latest[seat], n] += r * args.reward_scale
                # a reward before the seat's first turn of the rollout belongs to a transition
                # of the last rollout, which the critic's bootstrap value already stood for

    def play_to_learner(table: Table, n: int) -> None:
        """Step the fixed seats (and learners' speech turns) until a learner seat must act."""
        env = table.env
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:  # the episode is over
                for step in table.latest.values():
                    done_buf[step, n] = 1.0
                table.latest = {}
                metrics = env.infos[agent].get("metrics", {})
                finished.append((float(np.mean(list(table.returns.values()))), metrics))
                new_episode(table, args, int(rng.integers(2**31)))
                hidden[n] = 0.0
                continue
            if agent in table.learners:
                table.view = env.observe(agent)
                if table.view["action_mask"].any():
                    return
                env.step("")  # a speech turn: the learner says nothing
            else:
                action = table.opponents[agent].act(env.observe(agent), env.infos[agent])
                env.step(action)
            reward(table, n)

    finished: list[tuple[float, dict]] = []
    for n, table in enumerate(tables):
        play_to_learner(table, n)

    for update in range(1, num_updates + 1):
        run.anneal(args, update, num_updates)
        hidden_start = hidden.clone()
        finished = []
        reward_buf.zero_(), done_buf.zero_(), bootstrap_buf.zero_(), next_buf.fill_(NONE)
        for table in tables:
            table.latest = {}
        rollout_start = time.time()

        # -- rollout: one learner turn in every env per step -----------------------------------
        for t in range(T):
            acting = [table.env.agent_selection for table in tables]
            views = [table.view for table in tables]
            seat = torch.as_tensor([seat_index[agent] for agent in acting])
            obs = torch.as_tensor(np.stack([v["observation"] for v in views]))
            mask = torch.as_tensor(np.stack([v["action_mask"] for v in views]))
            state = torch.as_tensor(np.stack([table.env.state() for table in tables]))
            state = torch.cat([state, seats[seat]], dim=-1)
            rows = torch.arange(N)
            with torch.no_grad():
                logits, hidden[rows, seat] = actor(obs, seats[seat], hidden[rows, seat], mask)
                dist = Categorical(logits=logits)
                action = dist.sample()
                value = value_norm.denormalize(critic(state))
            obs_buf[t], state_buf[t], mask_buf[t], seat_buf[t] = obs, state, mask, seat
            action_buf[t], logprob_buf[t], value_buf[t] = action, dist.log_prob(action), value
            for n, (table, agent) in enumerate(zip(tables, acting, strict=True)):
                if agent in table.latest:
                    next_buf[table.latest[agent], n] = t
                table.latest[agent] = t
                first_buf[t, n] = float(agent not in table.acted)
                table.acted.add(agent)
                table.env.step(int(action[n]))
                reward(table, n)
                play_to_learner(table, n)
            global_step += N

        rollout_sps = turns_per_update / (time.time() - rollout_start)

        # -- advantages: GAE along each seat's own turns -------------------------------------
        with torch.no_grad():
            for n, table in enumerate(tables):  # open chains: the value where the rollout stopped
                state = torch.as_tensor(table.env.state())
                for agent, step in table.latest.items():
                    seat_state = torch.cat([state, seats[seat_index[agent]]])
                    bootstrap_buf[step, n] = value_norm.denormalize(critic(seat_state))
            advantages = torch.zeros(T + 1, N)  # row T: zero, for chains with no next turn
            values = torch.cat([value_buf, torch.zeros(1, N)])
            rows = torch.arange(N)
            for t in reversed(range(T)):
                following = next_buf[t].where(next_buf[t] != NONE, T)
                next_value = torch.where(
                    next_buf[t] != NONE, values[following, rows], bootstrap_buf[t]
                )
                nonterminal = 1.0 - done_buf[t]
                delta = reward_buf[t] + args.gamma * next_value * nonterminal - value_buf[t]
                advantages[t] = delta + (
                    args.gamma * args.gae_lambda * nonterminal * advantages[following, rows]
                )
            advantages = advantages[:T]
            returns = advantages + value_buf
        value_norm.update(returns)

        # -- PPO update: each env's turns replayed in order (minibatches split the envs) ------
        for idx in run.minibatches(args):
            n = len(idx)
            rows = torch.arange(n)
            h = hidden_start[idx]  # [env, seat, hidden]: each seat's own recurrence
            new_logprob, entropy = [], []
            for t in range(T):
                seat = seat_buf[t, idx]
                h_in = h[rows, seat] * (1.0 - first_buf[t, idx]).unsqueeze(-1)
                logits, h_out = actor(obs_buf[t, idx], seats[seat], h_in, mask_buf[t, idx])
                h = h.index_put((rows, seat), h_out)
                dist = Categorical(logits=logits)
                new_logprob.append(dist.log_prob(action_buf[t, idx]))
                entropy.append(dist.entropy())
            new_logprob = torch.stack(new_logprob)
            entropy = torch.stack(entropy).mean()
            losses = run.ppo(
                args, idx, new_logprob, entropy, logprob_buf, advantages, state_buf, returns,
                value_buf,
            )  # fmt: skip

        # -- metrics and checkpoints ---------------------------------------------------------
        recent = (recent + finished)[-200:]
        episodic_return = float(np.mean([r for r, _ in recent])) if recent else 0.0
        win_rate = float(np.mean([r > 0 for r, _ in recent])) if recent else 0.0
        sps = global_step / (time.time() - t0)
        row = {
            "update": update,
            "global_step": global_step,
            "wall_s": round(time.time() - t0, 1),
            "charts/episodic_return": round(episodic_return, 4),
            "charts/win_rate": round(win_rate, 3),
            "charts/sps": round(sps),
            "perf/rollout_sps": round(rollout_sps),
            "perf/episodes": len(finished),
            **{
                f"episode/{name}": round(float(np.mean([m.get(name, 0.0) for _, m in recent])), 4)
                if recent
                else 0.0
                for name in measures
            },
            **loss_columns(losses, entropy),
        }
        run.log.write(row, global_step)
        stats = {"episodic_return": episodic_return, "win_rate": win_rate}
        if update % args.checkpoint_every == 0 or update == num_updates:
            save_checkpoint(run.checkpoint, actor, args, envs[0], global_step, stats)
        print(
            f"update {update}/{num_updates}  step {global_step}  return {episodic_return:+.3f}  "
            f"win {win_rate:.0%}  sps {sps:.0f}",
            flush=True,
        )
    run.log.close()
    return run.checkpoint
