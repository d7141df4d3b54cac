"""A scripted search-and-rescue teammate that works from text alone.

It reads the rules text (map, tools) once, then each turn only its own text observation,
including teammates' messages. It keeps what it learned about bombs, decides with a greedy
team assignment that every teammate computes the same way from the same shared facts, answers
in words ("go to room 3", "inspect bomb", "apply red cutter") and, when the env has a message
channel, tells the team what it has seen in the fact sentences every parser in MASE reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mase.agents.base import Policy
from mase.envs.search_rescue.text import facts_text, parse_facts
from mase.protocol import split_messages

_DOORS = re.compile(r"Doors \(you can move only through a door\): ([\d\-, ]+)\.")
_ROOMS = re.compile(r"Rooms: ([\d, ]+)\.")
_CUTTERS = re.compile(r"Cutters: (.*?)\. You can only")
_HOLDS = re.compile(r"([A-Za-z]+) holds ([a-z, ]+)")
#: The bomb refused one's cutter: what one held of its sequence is out of date (under the
#: paper's rule a teammate's cut is not seen), so inspect it again.
_REJECTED = re.compile(r"Your last action failed: the bomb in room (\d+) rejected")


@dataclass
class BombIntel:
    """What the agent believes about one bomb."""

    room: int | None = None
    remaining: tuple[str, ...] | None = None
    status: str = "active"

    @property
    def live(self) -> bool:
        """Whether the bomb still needs cutting (as far as the agent knows)."""
        return self.status == "active" and self.remaining != ()


@dataclass
class MissionMap:
    """The public part of the rules: rooms, doors, who holds which colours, turn order."""

    rooms: tuple[int, ...]
    neighbours: dict[int, set[int]]
    cutters: dict[str, tuple[str, ...]]
    team: tuple[str, ...]
    dist: dict[int, dict[int, int]] = field(default_factory=dict)

    @classmethod
    def from_rules(cls, rules: str) -> MissionMap:
        """Read the map and the tools out of the rules text."""
        rooms = tuple(int(r) for r in _ROOMS.search(rules).group(1).split(", "))
        neighbours: dict[int, set[int]] = {r: set() for r in rooms}
        for pair in _DOORS.search(rules).group(1).split(", "):
            a, b = (int(x) for x in pair.split("-"))
            neighbours[a].add(b)
            neighbours[b].add(a)
        cutters = {
            name.lower(): tuple(colours.split(", "))
            for name, colours in _HOLDS.findall(_CUTTERS.search(rules).group(1))
        }
        mission = cls(rooms, neighbours, cutters, tuple(cutters))
        mission.dist = {r: mission._bfs(r) for r in rooms}
        return mission

    def _bfs(self, start: int) -> dict[int, int]:
        dist, frontier = {start: 0}, [start]
        while frontier:
            nxt = []
            for room in frontier:
                for other in sorted(self.neighbours[room]):
                    if other not in dist:
                        dist[other] = dist[room] + 1
                        nxt.append(other)
            frontier = nxt
        return dist

    def next_hop(self, start: int, goal: int) -> int:
        """The first room on a shortest path (lowest label on ties)."""
        for room in sorted(self.neighbours[start]):
            if self.dist[room].get(goal, 10**6) == self.dist[start][goal] - 1:
                return room
        raise ValueError(f"no path from room {start} to room {goal}")


class ScriptedRescuer(Policy):
    """Explore, inspect, share sequences and cut, coordinating only through messages.

    Every agent assigns tasks to the whole team greedily (nearest agent-task pair first,
    ties by turn order) from the facts it knows, and does its own part. Tasks are: cut the
    next phase of a bomb whose sequence is known (only holders of that colour), inspect a
    bomb whose sequence is unknown, and look into rooms nobody has reported on.
    """

    def __init__(self, talk: bool | None = None):
        self.talk_option = talk

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Learn the map and tools from the rules; forget the last episode."""
        talk = getattr(env.unwrapped, "messages_enabled", False)
        self._start(agent, env.unwrapped.rules_text(agent), talk)
        self.env = env

    @classmethod
    def from_rules(cls, agent: str, rules: str, talk: bool = True) -> ScriptedRescuer:
        """A rescuer that knows only the rules text, for a caller that has no env.

        It decides from the texts given to :meth:`observe`; :meth:`act` needs observations
        that carry their ``"text"``.
        """
        bot = cls(talk=talk)
        bot._start(agent, rules, talk)
        bot.env = None
        return bot

    def _start(self, agent: str, rules: str, talk: bool) -> None:
        self.agent = agent
        self.mission = MissionMap.from_rules(rules)
        self.talk = talk if self.talk_option is None else self.talk_option
        self.bombs: dict[int, BombIntel] = {}
        self.room_known: dict[int, int] = {}  # room -> bomb id (0: none)
        self.positions: dict[str, int] = {}
        self.told: dict[tuple, object] = {}

    # -- reading ------------------------------------------------------------------------------

    def _learn(self, facts: dict) -> None:
        rooms = self.mission.rooms
        for key, value in facts.items():
            kind = key[0]
            # a teammate's message may name a room the map does not have: not a fact to act on
            if (kind == "room_bomb" and key[1] not in rooms) or (
                kind in ("agent_room", "bomb_room") and value not in rooms
            ):
                continue
            if kind == "agent_room":
                self.positions[key[1]] = value
            elif kind == "room_bomb":
                self.room_known[key[1]] = value
            elif kind.startswith("bomb_"):
                intel = self.bombs.setdefault(key[1], BombIntel())
                if kind == "bomb_room":
                    intel.room = value
                    self.room_known[value] = key[1]
                elif kind == "bomb_status" and value != "active":
                    intel.status = value
                elif kind == "bomb_remaining":
                    # sequences only shrink: the shorter report is the newer one
                    if intel.remaining is None or len(value) < len(intel.remaining):
                        intel.remaining = tuple(value)
                    if not value:
                        intel.status = "defused" if intel.status == "active" else intel.status

    def observe(self, text: str) -> dict:
        """Take in one observation; returns the facts seen first-hand."""
        own, messages = split_messages(text)
        for _, message in messages:
            self._learn(parse_facts(message))
        seen = parse_facts(own)
        self._learn(seen)
        rejected = _REJECTED.search(own)
        if rejected:
            bomb = self.room_known.get(int(rejected.group(1)))
            if bomb in self.bombs:
                self.bombs[bomb].remaining = None
        return seen

    # -- deciding -----------------------------------------------------------------------------

    def _tasks(self) -> list[tuple[int, str | None, int | None]]:
        """(room, colour needed or None for look/inspect, bomb id) for every open task."""
        tasks = []
        for bomb_id, intel in sorted(self.bombs.items()):
            if intel.room is None or not intel.live:
                continue
            if intel.remaining is None:
                tasks.append((intel.room, None, bomb_id))
            else:
                tasks.append((intel.room, intel.remaining[0], bomb_id))
        for room in self.mission.rooms:
            if room not in self.room_known:
                tasks.append((room, None, None))
        return tasks

    def _assign(self) -> tuple[int, str | None, int | None] | None:
        """The task the greedy team assignment gives this agent (None: nothing to do)."""
        tasks = self._tasks()
        free = [a for a in self.mission.team if a in self.positions]
        if self.agent not in free:
            free.append(self.agent)
        taken: set[int] = set()
        while free and len(taken) < len(tasks):
            best = None
            for order, agent in enumerate(self.mission.team):
                if agent not in free:
                    continue
                here = self.positions[agent]
                for t, (room, colour, _) in enumerate(tasks):
                    if t in taken or (colour and colour not in self.mission.cutters[agent]):
                        continue
                    cost = (self.mission.dist[here][room], colour is None, order, t)
                    if best is None or cost < best[0]:
                        best = (cost, agent, t)
            if best is None:
                break
            _, agent, t = best
            if agent == self.agent:
                return tasks[t]
            free.remove(agent)
            taken.add(t)
        return None

    def decide(self) -> str:
        """The action to take now, in words."""
        here = self.positions[self.agent]
        bomb_id = self.room_known.get(here, 0)
        intel = self.bombs.get(bomb_id) if bomb_id else None
        mine = self.mission.cutters[self.agent]
        if intel is not None and intel.live:
            if intel.remaining is None:
                return "inspect bomb"
            if intel.remaining[0] in mine:
                return f"apply {intel.remaining[0]} cutter"
        task = self._assign()
        if task is None:
            return self._idle(here, intel)
        room = task[0]
        if room == here:
            return "inspect bomb" if intel is not None and intel.live else self._idle(here, intel)
        return f"go to room {self.mission.next_hop(here, room)}"

    def _idle(self, here: int, intel: BombIntel | None) -> str:
        """Nothing assigned: wait at a live bomb (inspecting is harmless), else move closer."""
        if intel is not None and intel.live:
            return "inspect bomb"
        live = [b.room for b in self.bombs.values() if b.live and b.room is not None]
        target = min(live, key=lambda r: (self.mission.dist[here][r], r), default=None)
        if target is None or target == here:
            target = min(self.mission.neighbours[here])
            return f"go to room {target}"
        return f"go to room {self.mission.next_hop(here, target)}"

    def news(self, seen: dict) -> str:
        """Fact sentences about bombs and rooms the team has not heard from this agent."""
        news = {("agent_room", self.agent): self.positions[self.agent]}
        for key, value in seen.items():
            if key[0] in ("room_bomb", "bomb_room", "bomb_status", "bomb_remaining"):
                if self.told.get(key) != value:
                    news[key] = value
        self.told.update(news)
        return facts_text(news)

    def act(self, observation: dict, info: dict) -> Any:
        """Choose an action (text) and, when the team can talk, a message."""
        text = observation.get("text")
        if text is None:
            text = self.env.unwrapped.observe_text(self.agent)
        seen = self.observe(text)
        action = self.decide()
        if not self.talk:
            return action
        return {"action": action, "message": self.news(seen)}
