"""The crafting world as a PettingZoo AEC environment."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from mase.claims import Claims
from mase.envs.craft import maps, parse, render, world
from mase.envs.craft import text as words
from mase.envs.craft.names import (
    ITEM_NAMES,
    article,
    count_text,
    item_lookup,
    listing,
    name_pattern,
)
from mase.envs.craft.recipes import PRESETS, shortfall
from mase.envs.craft.vector import FAILURE_FIELDS, ObservationCodec, failure_fields
from mase.events import Event
from mase.layout import VectorLayout, message_claims, text_told
from mase.stats import Metric, proportion
from mase.task import ActionParse, InvalidAction, Outcome, TaskEnv

#: Item names in a text (singular or plural), and the item each stands for.
ITEM_LOOKUP = item_lookup(ITEM_NAMES)
ITEM_WORDS = re.compile(rf"\b{name_pattern(ITEM_LOOKUP)}\b", re.I)

#: The most the optional shaping pays over an episode (see the class docstring).
SHAPING_SCALE = 0.5


class CraftEnv(TaskEnv):
    """A team gathers, crafts and hands items over to make one goal item (a bookshelf).

    Description:
        The Minecraft case of Chen et al. (2023), "AgentVerse: Facilitating Multi-Agent
        Collaboration and Exploring Emergent Behaviors": three agents make a bookshelf, which
        takes wood and leather, reeds made into paper, paper and leather into books, and the
        books with planks into the shelf; they split the work, gather at the same time and
        hand materials to the one who assembles. Minecraft itself does not run here, so this
        is a deterministic crafting world with the game's recipes: the paper notes that a
        benchmark should be deterministic (a cow may take long to find), and here every
        resource is always where the map says and a gather always succeeds.

        Every step emits :class:`mase.events.Event` records with their audience: an agent sees
        what happens at its own place (gathers, crafts, gives, arrivals and departures) and
        nothing elsewhere, so a teammate's inventory is known only by watching or by being
        told (see :class:`mase.wrappers.MessageChannel`).

    Places and recipes:
        Six places: the village, forest, river, meadow, mine and workshop. The fixed map's
        paths are village-forest, village-river, village-meadow, village-workshop,
        forest-mine, forest-workshop, river-meadow and mine-workshop. Wood is at the forest,
        reeds at the river, leather at the meadow (cows), stone and iron ore at the mine; the
        workbench and the furnace stand at the workshop. ``layout="random"`` draws a new
        connected map on the same places each episode (as many paths, each resource at a
        random place other than the village, each station anywhere); the rules text tells
        the map either way.

        ``recipes="default"`` (Minecraft's counts): planks: 1 wood -> 4; sticks: 2 planks ->
        4; paper: 3 reeds -> 3 (workbench); book: 3 paper + 1 leather -> 1; bookshelf: 6
        planks + 3 books -> 1 (workbench); wooden pickaxe: 3 planks + 2 sticks (workbench);
        stone pickaxe: 3 stone + 2 sticks (workbench); iron ingot: 1 iron ore (furnace); iron
        pickaxe: 3 iron ingots + 2 sticks (workbench); bucket: 3 iron ingots (workbench).
        Gathering stone needs a wooden pickaxe, iron ore a stone pickaxe (tools are kept).
        ``recipes="small"`` (the same world in the smallest counts, for the exact planner):
        planks: 1 wood -> 2; paper: 1 reed -> 1 (workbench); book: 1 paper + 1 leather;
        bookshelf: 2 planks + 1 book (workbench); wooden pickaxe: 2 planks (workbench); stone
        pickaxe: 1 stone + 1 plank (workbench); stone needs a wooden pickaxe. The tables are
        :mod:`mase.envs.craft.recipes`.

    Agents:
        ``alpha``, ``bravo``, ``charlie`` (``n_agents`` up to 8: ``delta``, ``echo``, ...),
        acting in that order; a round is one action each. They start with empty inventories.

    Action Space:
        ``Discrete(1 + places + resources + recipes + items * agents * 9)`` (427 for the
        default recipes and three agents), in :attr:`world.Layout.actions` order:

        ================================  =============================================
        action                            legal when
        ================================  =============================================
        ``("wait",)``                     always
        ``("move", place)``               a path joins the agent's place and ``place``
        ``("gather", resource)``          the resource is at the agent's place and the
                                          agent holds its tool, if it needs one; +1 item
        ``("craft", item)``               the inputs are in the agent's own inventory and
                                          the recipe's station (if any) is at its place
        ``("give", item, agent, n)``      ``1 <= n <= 9``, the giver holds ``n``, and
                                          ``agent`` is another agent at the same place
        ================================  =============================================

        ``action_mask`` marks exactly the legal actions. Any other action (masked, out of
        range, unreadable text) wastes the turn, and the agent is told why in words it can
        act on. Text is read by :func:`mase.envs.craft.parse.parse_action`: "move to the
        mine", "go to the mine", "gather wood", "Gather some wood", "craft planks", "craft 1
        plank", "give 2 planks to Bravo", "hand Bravo the books" ("give ITEM to NAME"
        without a number gives all one holds of it, at most 9), "wait".

    Observation Space:
        A Dict, keys by ``obs_mode``:

        ==============  =====================================================================
        key             content
        ==============  =====================================================================
        observation     float32 vector in [0, 1] (layout in :mod:`mase.envs.craft.vector`):
                        own place, own inventory, the goal, the resources and stations here,
                        teammates' places when seen, round, whether the last action failed,
                        the paths from here, what it saw each agent do since its last turn,
                        why its last action failed, what teammates' messages claimed, and
                        the map the rules text states (paths, sources, stations: it changes
                        each episode on random maps); the facts of the text and of the
                        rules' map, read back by ``vector_knowledge``
        text            what the agent saw happen since its last turn (with the facts it
                        showed, "Bravo has 3 planks."), then its place, inventory, what is
                        here, the paths, the recipe book, the goal, its legal actions, and
                        teammates' messages
        action_mask     int8 0/1, one per action
        ==============  =====================================================================

        ``state()`` is every agent's vector, concatenated (every place and inventory).

    Rewards:
        Shared: 1 for every agent at the end of the round in which someone first holds the
        goal item, else 0. With ``shaping=True``, each action also pays the team 0.5 times
        the share of the goal's gathers and crafts it removed (the bill of materials of
        :func:`mase.envs.craft.recipes.shortfall` from the team's pooled items, as a fraction
        of the episode's start): a potential-based term, at most 0.5 over an episode, negative
        for a craft that uses up needed items for something else.

    Termination:
        Episodes end between rounds, so every agent acts once in every round. Terminated at
        the end of the round in which someone holds the goal item (``ended_by="crafted"``);
        truncated after ``max_cycles`` rounds (``"round_limit"``).

    Metrics:
        ``info["metrics"]`` at the end: ``success``, ``score`` (1 or 0), ``max_score`` (1),
        ``rounds``, ``makespan`` (the round the goal was made, ``None`` when it was not),
        ``gathers``, ``crafts`` (craft actions), ``items_crafted``, ``gives``, ``items_given``,
        ``moves``, ``waits``, ``invalid_actions``, ``valid_action_rate``, ``turns``,
        ``ended_by``, and ``contributions``: per agent, its counts of each of these (with its
        invalid actions).

    Arguments:
        >>> import mase
        >>> env = mase.make("mase/Craft-v0", obs_mode="text")
        >>> env.reset(seed=0)
        >>> env.agent_selection
        'alpha'
        >>> env.step("go to the forest")
        >>> env.unwrapped.world.positions["alpha"]
        'forest'
        >>> env.step("Gather some wood")  # bravo is still at the village
        >>> env.unwrapped.infos["bravo"]["invalid_action"]
        'wood cannot be gathered at the village. Wood is at the forest.'

        ``goal`` (``"bookshelf"``): any craftable item of the recipe book. ``n_agents`` (3).
        ``max_cycles`` (50): the round limit. ``recipes``: ``"default"`` or ``"small"``.
        ``layout``: ``"fixed"`` or ``"random"``. ``start``: ``"village"`` (everyone there),
        ``"random"`` (each agent at a random place) or one place per agent, in turn order.
        ``shaping`` (False). ``see_teammates`` (True: every agent sees where every teammate
        is; False: only those at its own place). ``obs_mode`` (``"both"``), ``render_mode``
        (``None``, ``"ansi"`` or ``"human"``, which prints).

        The scripted team (``--team scripted``, :mod:`mase.envs.craft.scripted`) splits the
        goal's recipe tree among the agents and hands the parts to one assembler; the
        ``planner`` policy (``--team planner``, :mod:`mase.envs.craft.planner`) plays a plan
        with the fewest rounds, found by an exact search (:mod:`mase.envs.craft.search`:
        quick on the small recipes, beyond reach for the default bookshelf).

    Version History:
        * v0: first release.
    """

    metadata = {"name": "craft_v0", "render_modes": ["ansi", "human"]}
    drawing = render.DRAWING
    scripted_policy = "mase.envs.craft.scripted:ScriptedCrafter"
    language_model = "mase.envs.craft.language_model:respond"
    policies = {
        "planner": "mase.envs.craft.planner:policy",
        "mappo": "mase.envs.craft.policies:mappo",
        "mappo-random": "mase.envs.craft.policies:mappo_random",
    }
    table_columns = (
        ("success", "success", "{:.1%}"),
        ("makespan", "makespan", "{:.1f}"),
        ("rounds", "rounds", "{:.1f}"),
        ("items_crafted", "items crafted", "{:.1f}"),
        ("valid_action_rate", "valid action", "{:.1%}"),
    )
    metric_kinds = {
        "success": proportion("Goal crafted (share of episodes)"),
        "score": proportion("Score (1: goal crafted)"),
        "items_crafted": Metric("Items crafted per episode", "bounded", 0.0, None),
    }

    def __init__(
        self,
        goal: str = "bookshelf",
        n_agents: int = 3,
        max_cycles: int = 50,
        recipes: str = "default",
        layout: str = "fixed",
        start: str | Sequence[str] = "village",
        shaping: bool = False,
        see_teammates: bool = True,
        obs_mode: str = "both",
        render_mode: str | None = None,
    ):
        super().__init__(obs_mode, render_mode, max_cycles)
        # constants
        if recipes not in PRESETS:
            raise ValueError(f"recipes must be one of {sorted(PRESETS)}, got {recipes!r}")
        book = PRESETS[recipes]
        if goal not in book.recipes:
            raise ValueError(
                f"goal must be an item the {recipes!r} recipes make ({', '.join(book.recipes)}), "
                f"got {goal!r}"
            )
        if isinstance(n_agents, bool) or not isinstance(n_agents, int):
            raise ValueError(f"n_agents must be a whole number, got {n_agents!r}")
        if not 1 <= n_agents <= len(world.AGENT_NAMES):
            raise ValueError(f"n_agents must be 1 to {len(world.AGENT_NAMES)}, got {n_agents}")
        if layout not in ("fixed", "random"):
            raise ValueError(f"layout must be 'fixed' or 'random', got {layout!r}")
        agents = world.AGENT_NAMES[:n_agents]
        if isinstance(start, str):
            if start not in ("village", "random"):
                raise ValueError(
                    f"start must be 'village', 'random' or one place per agent, got {start!r}"
                )
        else:
            start = tuple(start)
            if len(start) != n_agents or not set(start) <= set(maps.PLACES):
                raise ValueError(
                    f"start must name one place per agent ({n_agents}) from "
                    f"{', '.join(maps.PLACES)}; got {start!r}"
                )
        self.goal, self.book, self.layout_kind, self.start = goal, book, layout, start
        self.shaping = shaping
        self.see_teammates = see_teammates
        self.layout = maps.fixed_layout(book, goal, agents)
        self.possible_agents = list(agents)

        # spaces
        self.codec = ObservationCodec(self.layout, max_cycles)
        self.set_spaces(self.codec.size, spaces.Discrete(len(self.layout.actions)))

        # episode state (filled by reset)
        self.world: world.State | None = None

    def new_episode(self, options: dict | None) -> None:
        """A new map (when random) and start; empty inventories."""
        if self.layout_kind == "random":
            self.layout = maps.random_layout(
                self.book, self.goal, self.layout.agents, self.np_random
            )
        self.world = world.new_state(self.layout, self.np_random, self.start)
        self._work_start = max(world.work_left(self.world), 1)
        self._start, self._plan = self.world.copy(), None  # for subgoals()
        self._view_cache: tuple[str, int, dict] | None = None
        self._mask_cache: tuple[str, int, np.ndarray] | None = None
        self._failures: dict[str, tuple[str, dict]] = {}

    def apply(self, agent: str, action: int) -> tuple[list[Event], float]:
        """Resolve the action (:func:`.world.step`), or refuse it with the reason in words."""
        code = world.invalid_reason(self.world, agent, action)
        if code is not None:
            fields = failure_fields(self.layout, self.world, agent, code, action)
            self._failures[agent] = (code, fields)
            raise InvalidAction(code, words.explain(self.layout, self.world, agent, code, action))
        before = world.work_left(self.world) if self.shaping else 0
        events = world.step(self.world, agent, action)
        reward = 0.0
        if self.shaping:
            reward = SHAPING_SCALE * (before - world.work_left(self.world)) / self._work_start
        return events, reward

    def end_round(self) -> Outcome | None:
        """Close the round: the team succeeds when someone holds the goal item."""
        if self.world.done:
            self.finish("crafted")
            return Outcome(reward=1.0)
        return None

    def next_round(self) -> None:
        """Count a new round, in the world too (planners read it there)."""
        self.round += 1
        self.world.round = self.round

    def rules_in_play(self) -> str:
        """The rule options, for tables."""
        return (
            f"goal={self.goal}, recipes={self.book.name}, layout={self.layout_kind}, "
            f"start={self.start}, agents={len(self.possible_agents)}, shaping={self.shaping}, "
            f"see_teammates={self.see_teammates}"
        )

    def metrics(self) -> dict[str, Any]:
        """Episode measures (see the class docstring)."""
        w = self.world
        invalid = dict.fromkeys(self.possible_agents, 0)
        for event in self.event_log:
            if event.kind == "invalid" and event.actor in invalid:
                invalid[event.actor] += 1
        contributions = {
            agent: {**w.tally[agent], "invalid_actions": invalid[agent]}
            for agent in self.possible_agents
        }
        total = {key: sum(t[key] for t in w.tally.values()) for key in world.TALLY_KEYS}
        success = w.made_in is not None
        return {
            "success": success,
            "score": float(success),
            "max_score": 1.0,
            "rounds": self.round,
            "makespan": w.made_in,
            "gathers": total["gathers"],
            "crafts": total["crafts"],
            "items_crafted": total["items_made"],
            "gives": total["gives"],
            "items_given": total["items_given"],
            "moves": total["moves"],
            "waits": total["waits"],
            "invalid_actions": self.invalid_actions,
            "valid_action_rate": self.valid_action_rate,
            "turns": self.turns,
            "ended_by": self.ended_by,
            "contributions": contributions,
        }

    # -- a goal for group protocols (mase.envs.agentverse) --------------------------------------

    def goal_text(self) -> str:
        """The goal in a sentence, for a protocol's seats."""
        names = listing(a.capitalize() for a in self.layout.agents)
        return f"Make {article(self.goal)} in the crafting world; {names} act in it."

    def subgoals(self) -> dict[str, str]:
        """A split of the work in words: the scripted team's plan, as it makes it at the start.

        Each agent makes its share of the goal's inputs and hands it to the assembler, who
        crafts the goal at the meeting place (:func:`.scripted.team_plan` of the episode's
        first state, so the split stays the same all episode, as the scripted team's plan does).
        """
        from mase.envs.craft.scripted import team_plan

        if self._plan is None:
            self._plan = team_plan(self._start)
        plan = self._plan
        goal, at = article(self.goal), f"at the {plan.meeting}"
        split = {}
        for agent in self.layout.agents:
            share = listing(count_text(i, n) for i, n in plan.shares[agent].items() if n > 0)
            if agent == plan.assembler:
                alone = f"craft {goal} {at} from the parts the others bring"
                split[agent] = f"make {share}, then craft {goal} {at}" if share else alone
            else:
                name = plan.assembler.capitalize()
                them = "them" if sum(plan.shares[agent].values()) > 1 else "it"
                split[agent] = (f"make {share} and give {them} to {name} {at}" if share
                                else f"help {name}, who crafts {goal} {at}")  # fmt: skip
        return split

    def progress(self) -> tuple[float, str]:
        """How far the team is: 1 when the goal is made, else the share of the work done.

        The work is the gathers and crafts the goal takes from the team's pooled items
        (:func:`.world.work_left`), so a craft that uses up needed items for something else
        lowers it. The words say what is left and who holds what.
        """
        w = self.world
        if w.done:
            return 1.0, f"{article(self.goal).capitalize()} is made."
        left = world.work_left(w)
        done = max(0.0, 1.0 - left / self._work_start)
        needs = shortfall(self.book, w.pooled(), {self.goal: 1})
        todo = [f"gather {count_text(r, n)}" for r, n in needs.gathers.items() if n]
        todo += [f"craft {count_text(i, n * self.book.recipes[i].count)}"
                 for i, n in needs.crafts.items() if n]  # fmt: skip
        held = "; ".join(
            f"{a.capitalize()} is at the {w.positions[a]} with "
            + (listing(count_text(i, n) for i, n in w.inventories[a].items() if n) or "nothing")
            for a in self.layout.agents
        )
        return min(done, 0.99), (
            f"{article(self.goal).capitalize()} is not made yet after {w.round - 1} round(s). "
            f"Still to do: {listing(todo)} ({left} gathers and crafts). {held}."
        )

    def needs_of(self, text: str) -> frozenset[str]:
        """The items a sub-goal in words works toward: those it names, and what goes into them.

        The goal itself stands for itself only (everything goes into it).
        """
        named = {
            ITEM_LOOKUP[" ".join(m.group(0).lower().split())] for m in ITEM_WORDS.finditer(text)
        }
        needs = set()
        for item in named:
            needs.update((item,) if item == self.goal else self.book.closure(item))
        return frozenset(needs)

    def made_by(self, agent: str, action: Any) -> tuple[str, ...]:
        """What an action makes: the resource gathered or the item crafted (else nothing)."""
        if not isinstance(action, int | np.integer) or not 0 <= action < len(self.layout.actions):
            return ()
        kind, *args = self.layout.actions[int(action)]
        return (args[0],) if kind in ("gather", "craft") else ()

    # -- observations -------------------------------------------------------------------------

    def turn_view(self, agent: str) -> dict:
        """What ``agent`` sees at the start of its turn (:func:`.world.view_facts`).

        Cached until the turn count moves (the world changes only in ``step`` and ``reset``);
        the dict is shared, so callers must not mutate it.
        """
        cache = self._view_cache
        if cache is not None and cache[0] == agent and cache[1] == self._turns:
            return cache[2]
        view = world.view_facts(self.world, agent, self.see_teammates)
        self._view_cache = (agent, self._turns, view)
        return view

    def true_facts(self) -> dict:
        """Every fact of the world now (the ground truth of the knowledge tracker).

        The round, the goal, every agent's place and inventory, and the map's sources and
        stations.
        """
        if self.world is None:
            raise RuntimeError("call reset() before true_facts()")
        w, layout = self.world, self.layout
        facts: dict = {("round",): w.round, ("goal",): layout.goal}
        for agent in layout.agents:
            facts[("place", agent)] = w.positions[agent]
        for agent in layout.agents:
            for item in self.book.items:
                facts[("has", agent, item)] = w.inventories[agent][item]
        for resource in self.book.resources:
            facts[("source", resource)] = layout.sources[resource]
        for station in self.book.stations:
            facts[("station", station)] = layout.stations[station]
        return facts

    def _failed(self, agent: str) -> bool:
        last = self._last_events.get(agent)
        return bool(last) and last[0].kind == "invalid"

    def _vector(self, agent: str) -> np.ndarray:
        inbox = self._inbox[agent]
        failure, claims = None, {}
        for event in inbox:
            if event.kind == "invalid" and event.actor == agent:
                failure = self._failure_of(event)
            elif event.kind == "message" and event.actor != agent:
                told = claims.setdefault(event.actor, {})
                told.update(message_claims(self, event.actor, event.note))
        return self.codec.encode(
            self.world, agent, self.see_teammates, self._failed(agent), inbox, failure, claims
        )

    def _failure_of(self, event: Event) -> tuple[str, dict]:
        """The reason code and fields of an invalid event (as :func:`.text.read_reason`)."""
        code = event.note.partition(":")[0]
        stored = self._failures.get(event.actor)
        if stored is not None and stored[0] == code:  # apply refused it: its own fields
            return stored
        # not a move the rules refused: read the words it was refused in (as the text's reader)
        read = words.read_reason(self.explain_invalid(event), self.book)
        code = str(read["code"])
        return code, {k: read[k] for k in FAILURE_FIELDS[code]}

    # -- information parity (mase.layout) -----------------------------------------------------

    def vector_layout(self, agent: str) -> VectorLayout:
        """``agent``'s observation vector, block by block (:mod:`mase.envs.craft.vector`)."""
        self._check_agent(agent)
        return self.codec.layout(agent)

    def text_knowledge(self, agent: str, text: str) -> dict:
        """The facts a text observation states, its claims, and the map of the rules text.

        :func:`.text.read_observation` reads the observation, :func:`.text.read_rules` the map
        the seat's rules text states: a seat holds both, and on random maps the map changes
        each episode.
        """
        self._check_agent(agent)
        facts = words.read_rules(self.rules_text(agent), self.book)
        facts.update(words.read_observation(text, self.book, agent))
        return {**facts, **text_told(self, text)}

    def vector_knowledge(self, agent: str, vector: np.ndarray) -> dict:
        """The facts an observation vector holds (:meth:`.vector.ObservationCodec.decode`)."""
        self._check_agent(agent)
        return self.codec.decode(agent, vector)

    def read_claims(self, sender: str, text: str, known: Mapping) -> Claims:
        """A message's fact sentences, less those the vector cannot hold.

        A claim of an agent or an item the game does not have, of a count over the count
        bound (:func:`.vector.count_bound`: no episode reaches it) or of a round past the
        limit states nothing possible; it is not read, so neither view carries it.
        """
        claims = super().read_claims(sender, text, known)
        facts = {k: v for k, v in claims.facts.items() if self.codec.readable(k, v)}
        return Claims(facts, claims.confidence, claims.unread, claims.reader, claims.holders)

    def _check_agent(self, agent: str) -> None:
        if agent not in self.possible_agents:
            raise ValueError(f"no agent {agent!r}; agents: {self.possible_agents}")

    def _text(self, agent: str) -> str:
        return words.observation_text(
            self.layout,
            self.world,
            agent,
            self._inbox[agent],
            self.turn_view(agent),
            self.max_cycles,
            self.legal_actions_text(agent),
            self.explain_invalid,
        )

    def _mask(self, agent: str) -> np.ndarray:
        if self.terminations.get(agent) or self.truncations.get(agent):
            return np.zeros(len(self.layout.actions), dtype=np.int8)
        cache = self._mask_cache
        if cache is None or cache[0] != agent or cache[1] != self._turns:
            cache = self._mask_cache = (agent, self._turns, world.legal_mask(self.world, agent))
        return cache[2].copy()

    def scene(self) -> dict:
        """Places, agents with their inventories, and the goal's recipe tree (``replay.js``).

        Where the agents are and what they hold is seen only at the same place, so it is kept
        under ``"secret"`` (out of the replay's common view) with the hand-overs.
        """
        layout, state = self.layout, self.world
        book = layout.book
        tree: dict[str, dict] = {}
        todo = [layout.goal]
        while todo:  # the recipes the goal needs, each once
            item = todo.pop()
            recipe = book.recipes.get(item)
            if item in tree:
                continue
            if recipe is None:
                tree[item] = {"gather": layout.sources.get(item), "tool": book.tools.get(item)}
                tool = book.tools.get(item)
                todo += [tool] if tool else []
                continue
            tree[item] = {
                "count": recipe.count,
                "inputs": [list(pair) for pair in recipe.inputs],
                "station": recipe.station,
                "at": layout.stations.get(recipe.station) if recipe.station else None,
            }
            todo += [i for i, _ in recipe.inputs]
        return {
            "goal": layout.goal,
            "round": state.round,
            "max_rounds": self.max_cycles,
            "places": layout.places,
            "paths": layout.paths,
            "recipes": tree,
            "to_act": self.agent_selection if self.agents else None,
            # seen only by those at the same place (or told): out of the replay's common view
            "secret": {
                "agents": [
                    {
                        "name": a,
                        "place": state.positions[a],
                        "inventory": {k: v for k, v in state.inventories[a].items() if v},
                    }
                    for a in layout.agents
                ],
                "transfers": state.transfers,
                "made_in": state.made_in,
            },
        }

    def _render(self) -> str:
        turn = self.agent_selection if self.agents else None
        return render.board(self.world, self.max_cycles, turn)

    # -- language interface -------------------------------------------------------------------

    def rules_text(self, agent: str) -> str:
        """The rules as told to ``agent``: goal, map, recipe book, turns, reply format."""
        return words.rules_text(self.layout, agent, self.max_cycles, self.see_teammates)

    def legal_actions_text(self, agent: str) -> list[str]:
        """The agent's legal actions now, in words."""
        return words.legal_actions_text(self.layout, self.world, agent, self._mask(agent))

    def parse_action(self, agent: str, text: str) -> ActionParse:
        """Read a reply into a legal action, or say why it is not one."""
        return parse.parse_action(self.layout, self.world, agent, text)

    def parse_facts(self, text: str) -> dict:
        """The facts stated in ``text`` in the task's fact sentences."""
        return words.parse_facts(text, self.book)

    def facts_text(self, facts: dict) -> str:
        """Write facts as fact sentences (:meth:`parse_facts` reads them back)."""
        return words.facts_text(facts, self.book, self.max_cycles)

    def claim_forms(self) -> list[str]:
        """The task's fact sentences, one example of each."""
        return words.claim_forms(self.book)

    def seen_together(self, event: Event) -> Iterable[tuple[frozenset[str], Mapping]]:
        """Who sees which part of an observation together (:func:`.world.shared_view`).

        A turn view is seen in parts: the round, goal and map by all; places by all
        (``see_teammates``) or by those present; the inventory alone. Other events are seen
        whole by their audience (everyone at the place).
        """
        if event.kind != "observe":
            return ((event.audience, event.facts),)
        return world.shared_view(event.facts, event.actor, self.layout.agents, self.see_teammates)
