"""The scripted language model of search and rescue: a "model" that reads only its prompt.

:func:`respond` is a responder for :class:`mase.llm.OfflineServer`. The generic prompt reader
(:mod:`mase.llm.offline`) finds the rules text (``env.rules_text(agent)``, starting "You are
<Name>, one of ...", :data:`RULES_HEAD`), the agent's observations (each starts with the line
"You are <Name>.", :data:`OBSERVATION_HEAD`), its beliefs and earlier replies, and what the last
user message asks for (the wording of :mod:`mase.protocol`); this module is the decisions of
:class:`SearchRescueModel`:

* **An action** (the default). Without a belief state in the prompt it builds a fresh
  :class:`~mase.envs.search_rescue.scripted.ScriptedRescuer` for the agent from the rules,
  feeds it every observation in the user messages in order (each starts with the line
  "You are <Name>.") and answers in the paper's format::

      Action selection: go to room 3
      Message to Team: Alpha is in room 3. Room 3 has bomb 2. ...

  With a belief (after :data:`~mase.protocol.BELIEF_HEADER`) it decides from the belief's
  facts (and any observation after it) and tells the team where it is and what its room and
  its last action showed.
* **A belief rewrite** (:data:`~mase.protocol.BELIEF_REQUEST`): the previous belief plus the
  new observation, in the format of :mod:`~mase.envs.search_rescue.belief`, including the
  Theory-of-Mind sections.
* **A Theory-of-Mind question** (:data:`~mase.protocol.QUESTION_HEADER`): "Yes. ..." or
  "No. ...", read from the belief's statements and whatever the prompt shows after it.

Who knows what is inferred from the text alone, with the paper's annotation criteria as
heuristics: a teammate knows a fact when it was in the room when the fact was shown (the
agent's own action with the teammate in its room, "You saw X ..."), when it stood in a room at
the start of its turn (it saw what the room holds), or when the fact was said in a message
(by anyone: a broadcast reaches the whole team). A teammate knows that the agent knows a fact
when they saw it shown together or exchanged a message stating it. A belief is written for
the action it precedes, so what the agent is about to tell the team already counts as told.
These heuristics are imperfect on purpose, like a real model's: they miss what happened
outside the prompt's window (without a belief, the window is two rounds) and guess who was
present from the last known positions.

It never sees env state, so it plays as well as the prompt lets it. A prompt it cannot read
(no rules, or no observation for the agent the rules name) still gets a reply in the format,
with the action ``inspect bomb``: it is never harmful (no cutter is applied, nobody leaves a
room), at worst invalid with feedback the caller can read, while a guessed move or cut could
waste turns or set a bomb off.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from mase import protocol
from mase.envs.search_rescue import belief as beliefs
from mase.envs.search_rescue import claims, tom
from mase.envs.search_rescue import text as words
from mase.envs.search_rescue.scripted import MissionMap, ScriptedRescuer
from mase.envs.search_rescue.text import fact_sentence, facts_text, parse_facts
from mase.llm.offline import Item, Messages, OfflineModel, Prompt, read_items, since_last_belief

#: Where the rules text starts (``env.rules_text(agent)``); it names the agent.
RULES_HEAD = re.compile(r"You are (?P<agent>[A-Za-z]+), one of \d+ agents")
#: Where one of the agent's observations starts: a line of its own.
OBSERVATION_HEAD = r"(?mi)^You are {agent}\.$"
_MAX_ROUNDS = re.compile(r"after (\d+) rounds")

#: The safe action of a reply to a prompt the model cannot read.
SAFE_ACTION = "inspect bomb"

UNREADABLE_RULES = (
    "I could not find the mission rules in my prompt (they start 'You are <Name>, one of'), "
    "so I am staying put."
)
NO_OBSERVATION = (
    "I have not seen an observation yet (it starts 'You are {name}.'), so I am staying put."
)
UNREADABLE_QUESTION = "No. I cannot tell from my prompt who I am or what is asked."

_QUOTED = re.compile(r'([A-Za-z]+): "(.*?)"(?=\s+[A-Za-z]+: "|\s*$)', re.S)


# -- what the agent knows, and what it thinks its teammates know -----------------------------


class Mind:
    """What the agent holds and what it infers its teammates hold, built from prompt text.

    Args:
        agent: the agent (lowercase name).
        mission: the map and tools read from the rules.
        max_rounds: the round limit the rules state.
    """

    def __init__(self, agent: str, mission: MissionMap, max_rounds: int, witness: bool = False):
        self.agent, self.mission, self.max_rounds = agent, mission, max_rounds
        self.witness = witness  # teammates in a room see each other's actions and results
        self.mates = tuple(a for a in mission.team if a != agent)
        self.facts: dict[tuple, Any] = {("cutters", agent): mission.cutters[agent]}
        self.known: dict[str, dict[tuple, Any]] = {p: {} for p in self.mates}
        self.aware: dict[str, dict[tuple, Any]] = {p: {} for p in self.mates}
        self.last_result = "none yet"
        self.messages: list[tuple[str, str]] = []
        self.legal = ""
        self.seen = False  # whether any observation or belief with a location was read

    # -- taking things in ----------------------------------------------------------------------

    def _share(self, mates: Any, facts: dict) -> None:
        """``mates`` now hold ``facts`` and know that the agent holds them."""
        for p in mates:
            if p in self.known:
                self.known[p].update(facts)
                self.aware[p].update(facts)

    def _claim(self, facts: dict) -> None:
        """Take in a teammate's claims: sequences only shrink, a bomb only leaves "active"."""
        for key, value in facts.items():
            held = self.facts.get(key)
            if key[0] == "bomb_remaining" and held is not None and len(held) <= len(value):
                continue
            if key[0] == "bomb_status" and held not in (None, "active") and value == "active":
                continue
            self.facts[key] = value

    def read_belief(self, text: str) -> None:
        """Start from a belief state (the format of :mod:`.belief`)."""
        sections = beliefs.read(text)
        for header in beliefs.FACT_SECTIONS:
            self.facts.update(parse_facts(sections.get(header, "")))
        result = sections.get("Last action result", "")
        self.last_result = result if result and result != beliefs.UNKNOWN else "none yet"
        self.messages = [
            (s.lower(), t) for s, t in _QUOTED.findall(sections.get("Messages", "").strip())
        ]
        actions = sections.get("Available actions", "")
        self.legal = "" if actions == beliefs.UNKNOWN else actions.rstrip(".")
        for header, content in sections.items():
            if header.startswith("What "):
                for claim, holds in tom.parse_statements(content).items():
                    self._credit(claim, holds)
        self.seen = ("agent_room", self.agent) in self.facts

    def _credit(self, claim: tom.Claim, holds: bool) -> None:
        """Set a teammate's knowledge from a stated claim (what the agent holds for its keys)."""
        if not holds or claim.about not in self.known or claim.level == "introspection":
            return
        table = self.known if claim.level == "first_order" else self.aware
        for key in tom.fact_keys(claim.kind, claim.subject, self.facts):
            if key in self.facts:
                table[claim.about][key] = self.facts[key]

    def read_reply(self, text: str) -> None:
        """The agent's own earlier reply: what its message told the team."""
        for part in protocol.split_reply(text).messages:
            if part.to_team:
                self._share(self.mates, parse_facts(part.text))

    def read_observation(self, text: str) -> None:
        """Take in one observation, in the order things happened."""
        own, messages = protocol.split_messages(text)
        before = {a: self.facts.get(("agent_room", a)) for a in self.mission.team}
        here = before[self.agent]
        head, _, now = own.partition("\nNow:\n")
        lines = [line.strip() for line in head.splitlines() if line.strip().startswith("- ")]
        # the agent's own action came first; each teammate's message came just before that
        # teammate's action, so the messages go before what the agent saw teammates do
        own_lines = [line for line in lines if line.startswith("- Your last action")]
        for line in own_lines:
            self._read_event(line, before, here)
        here = self.facts.get(("agent_room", self.agent), here)
        for _, message in messages:
            facts = parse_facts(message)
            self._claim(facts)
            self._share(self.mates, facts)
        for line in lines:
            if line not in own_lines:
                self._read_event(line, before, here)
        # every teammate took a turn since the agent's last one, standing where it was then,
        # and saw what that room holds
        self.facts.update(parse_facts(now))
        for p in self.mates:
            if before[p] is not None:
                self.known[p].update(self._room_facts(before[p]))
        # those in the agent's room now see it with the agent: common ground between them
        room = self.facts.get(("agent_room", self.agent))
        together = [p for p in self.mates if self.facts.get(("agent_room", p)) == room]
        self._share(together, self._room_facts(room))
        legal = re.search(r"^Your legal actions: (.*?)\.?$", now, re.M)
        self.legal = legal.group(1) if legal else self.legal
        self.messages = messages
        self.seen = self.seen or ("agent_room", self.agent) in self.facts

    def _read_event(self, line: str, before: dict, here: int | None) -> None:
        """One "Since your last turn" line: its facts, shared with those who saw it."""
        facts = parse_facts(line)
        if line.startswith("- Your last action"):
            self.last_result = line[2:]
            rooms = {here, facts.get(("agent_room", self.agent))}
            witnesses = [
                p
                for p in self.mates
                if self.witness and before[p] in rooms and before[p] is not None
            ]
        else:
            who = re.match(r"- You saw (?:bomb \d+ explode when )?([A-Za-z]+)", line)
            actor = who.group(1).lower() if who else None
            witnesses = [p for p in self.mates if p == actor or before[p] == here]
        self.facts.update(facts)
        self._share(witnesses, facts)

    def _room_facts(self, room: int) -> dict[tuple, Any]:
        """What standing in ``room`` shows: its bomb (or none) and the bomb's status."""
        out = {}
        bomb = self.facts.get(("room_bomb", room))
        if bomb is not None:
            out[("room_bomb", room)] = bomb
        for kind in ("bomb_room", "bomb_status"):
            if bomb and (kind, bomb) in self.facts:
                out[(kind, bomb)] = self.facts[(kind, bomb)]
        return out

    def outgoing(self) -> dict[tuple, Any]:
        """What the agent tells the team with its next action: where it is, what it saw."""
        room = self.facts.get(("agent_room", self.agent))
        told = {("agent_room", self.agent): room}
        told.update(self._room_facts(room))
        bomb = self.facts.get(("room_bomb", room))
        for kind in ("bomb_phases", "bomb_remaining"):
            if bomb and (kind, bomb) in self.facts:
                told[(kind, bomb)] = self.facts[(kind, bomb)]
        told.update(
            (k, v) for k, v in parse_facts(self.last_result).items() if k[0] != "agent_room"
        )
        return {k: self.facts.get(k, v) for k, v in told.items()}

    # -- judging claims ------------------------------------------------------------------------

    def holds(self, claim: tom.Claim) -> bool:
        """Whether the agent thinks ``claim`` is true."""
        keys = tom.fact_keys(claim.kind, claim.subject, self.facts)
        if any(key not in self.facts for key in keys):
            return False
        if claim.level == "introspection":
            return True
        if claim.about not in self.known:
            return False
        if claim.level == "first_order":
            # everyone sees the team score every turn
            return all(
                self.known[claim.about].get(k) == self.facts[k] for k in keys if k != ("score",)
            )
        return all(self.aware[claim.about].get(k) == self.facts[k] for k in keys)

    def _subjects(self) -> dict[str, tuple[int, ...]]:
        bombs = sorted({k[1] for k in self.facts if k[0].startswith("bomb_")})
        return {"room": self.mission.rooms, "state": tuple(bombs), "sequence": tuple(bombs)}

    def belief(self) -> str:
        """The belief state, in the format of :mod:`.belief`."""
        f = self.facts

        def text_of(pred: Any) -> str:
            group = {k: v for k, v in sorted(f.items(), key=_order) if pred(k)}
            return facts_text(group, self.max_rounds)

        me = self.agent
        tools = fact_sentence(("cutters", me), self.mission.cutters[me])
        near = self.mission.neighbours
        doors = sorted({(min(a, b), max(a, b)) for a in near for b in near[a]})
        content = {
            "Role": f"You are {me.capitalize()}. {tools}",
            "Round and score": text_of(lambda k: k[0] in ("round", "score")),
            "Your location": text_of(lambda k: k == ("agent_room", me)),
            "Last action result": self.last_result,
            "Room contents": text_of(lambda k: k[0] == "room_bomb"),
            "Teammate locations": text_of(lambda k: k[0] == "agent_room" and k[1] != me),
            "Room connectivity": "Doors: " + ", ".join(f"{a}-{b}" for a, b in doors) + ".",
            "Bomb intel": text_of(lambda k: k[0].startswith("bomb_")),
            "Messages": " ".join(f"{s.capitalize()}: {protocol.quote(t)}" for s, t in self.messages)
            or "none",
            "Tools": tools,
            "Available actions": self.legal + "." if self.legal else "",
        }
        about_me = []
        for p in self.mates:
            theirs = []
            for kind, subjects in self._subjects().items():
                for subject in subjects:
                    if self.holds(tom.Claim("first_order", kind, subject, p)):
                        theirs.append(tom.statement(tom.Claim("first_order", kind, subject, p)))
                    if self.holds(tom.Claim("second_order", kind, subject, p)):
                        about_me.append(tom.statement(tom.Claim("second_order", kind, subject, p)))
            content[f"What {p.capitalize()} knows"] = " ".join(theirs)
        content[beliefs.ABOUT_ME] = " ".join(about_me)
        return beliefs.write(SimpleNamespace(agents=self.mission.team), me, content)


_KIND_ORDER = {k: i for i, k in enumerate(("round", "score", "agent_room", "room_bomb"))}
_BOMB_ORDER = {"bomb_room": 0, "bomb_status": 1, "bomb_phases": 2, "bomb_remaining": 3}


def _order(item: tuple) -> tuple:
    key = item[0]
    if key[0] in _BOMB_ORDER:
        return (9, key[1], _BOMB_ORDER[key[0]])
    return (_KIND_ORDER.get(key[0], 5), str(key[1:]), 0)


def build_mind(messages: Messages, agent: str, rules: str) -> Mind:
    """The agent's mind from a prompt: its latest belief (if any) and everything after it."""
    return _mind(read_items(messages, OBSERVATION_HEAD, agent), agent, rules)


def _mind(items: Sequence[Item], agent: str, rules: str) -> Mind:
    max_rounds = int(m.group(1)) if (m := _MAX_ROUNDS.search(rules)) else 0
    mind = Mind(agent, MissionMap.from_rules(rules), max_rounds, words.WITNESS_RULES[True] in rules)
    belief, items = since_last_belief(items)
    if belief is not None:
        mind.read_belief(belief)
    for kind, text in items:
        if kind == "reply":
            mind.read_reply(text)
        elif kind == "observation" and not _already_in(mind, text, belief is not None):
            mind.read_observation(text)
    return mind


def _already_in(mind: Mind, observation: str, from_belief: bool) -> bool:
    """Whether a belief already took this observation in (same round, same last result)."""
    if not from_belief or not mind.seen:
        return False
    rnd = parse_facts(observation.partition("\nNow:\n")[2]).get(("round",))
    result = re.search(r"^- (Your last action.*)$", observation, re.M)
    same_result = (result.group(1) if result else "none yet") == mind.last_result
    return rnd == mind.facts.get(("round",)) and same_result


# -- the replies --------------------------------------------------------------------------------


def _act(observations: Sequence[str], agent: str, rules: str) -> str:
    """An action from the observation history (no belief): the scripted bot, replayed."""
    bot = ScriptedRescuer.from_rules(agent, rules)
    news = ""
    for text in observations:
        # replay every turn, messages included, so the bot remembers what it already told the
        # team and the last message carries only news, as the stateful bot's would
        seen = bot.observe(text)
        if agent in bot.positions:
            news = bot.news(seen)
    if agent not in bot.positions:
        message = NO_OBSERVATION.format(name=agent.capitalize())
        return protocol.REPLY_FORMAT.format(action=SAFE_ACTION, message=message)
    return protocol.REPLY_FORMAT.format(action=bot.decide(), message=news)


def _act_from_belief(mind: Mind, agent: str, rules: str) -> str:
    """An action decided from what the belief (and anything after it) holds."""
    if ("agent_room", agent) not in mind.facts:
        message = NO_OBSERVATION.format(name=agent.capitalize())
        return protocol.REPLY_FORMAT.format(action=SAFE_ACTION, message=message)
    bot = ScriptedRescuer.from_rules(agent, rules)
    # the last result too: a cutter the bomb rejected means the sequence held is out of date
    bot.observe(facts_text(mind.facts, mind.max_rounds) + "\n" + mind.last_result)
    return protocol.REPLY_FORMAT.format(action=bot.decide(), message=facts_text(mind.outgoing()))


def _rewrite(mind: Mind) -> str:
    """The rewritten belief; what the next action will tell the team counts as told."""
    if ("agent_room", mind.agent) in mind.facts:
        mind._share(mind.mates, mind.outgoing())
    return mind.belief()


def _answer(mind: Mind, question: str) -> str:
    claim = tom.parse_question(question)
    if claim is None:
        return "No. I cannot read the question."
    holds = mind.holds(claim)
    return ("Yes. " if holds else "No. ") + tom.statement(claim, holds)


class SearchRescueModel(OfflineModel):
    """Search and rescue's decisions on the generic prompt reader (the module docstring)."""

    rules_head = RULES_HEAD
    observation_head = OBSERVATION_HEAD
    cannot_act = protocol.REPLY_FORMAT.format(action=SAFE_ACTION, message=UNREADABLE_RULES)
    cannot_rewrite = cannot_act
    cannot_answer = UNREADABLE_QUESTION

    def understands(self, prompt: Prompt) -> bool:
        """Whether the map and tools can be read from the rules (not cut short or edited)."""
        try:
            MissionMap.from_rules(prompt.rules)
        except (AttributeError, KeyError, ValueError):
            return False
        return True

    def act(self, prompt: Prompt) -> str:
        """From the belief when the prompt holds one, else by replaying the observations."""
        if prompt.beliefs:
            return _act_from_belief(self._mind(prompt), prompt.agent, prompt.rules)
        return _act(prompt.observations, prompt.agent, prompt.rules)

    def rewrite_belief(self, prompt: Prompt) -> str:
        """The previous belief with the new observation taken in."""
        return _rewrite(self._mind(prompt))

    def answer(self, prompt: Prompt) -> str:
        """Yes or no, from the belief's statements and what the prompt shows after it."""
        return _answer(self._mind(prompt), prompt.question)

    def restate_claims(self, message: str) -> str:
        """A teammate's message restated in the game's fact sentences (by the task's grammar)."""
        sender, _, text = message.partition(": ")
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text = text[1:-1]
        facts = claims.read_claims(sender.strip().lower(), text).facts
        return facts_text(dict(facts)) if facts else "none"

    def _mind(self, prompt: Prompt) -> Mind:
        return _mind(prompt.items, prompt.agent, prompt.rules)


_MODEL = SearchRescueModel()


def respond(messages: Messages) -> str:
    """The reply of the scripted language model to a chat prompt."""
    return _MODEL(messages)
