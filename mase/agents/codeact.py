"""A CodeAct agent: the model writes a program over what it knows, and acts on its output.

The procedure of the CodeAct agents of Shi et al. (2023), for any MASE task:

1. **Memory retrieval.** The prompt holds the latest ``memory`` events the seat saw (the
   paper's global memory window, k = 15: moves, votes, results and what was said, each as the
   moderator logged it for this seat's eyes) and the task's facts for this seat
   (``env.unwrapped.code_facts(agent)``: in a hidden-role game, say, the leaders' proposals
   and the votes on them from every earlier round, and each quest's team and fail cards,
   failed quests included).
2. **Code-driven reasoning.** The model is asked for a Python program over those facts
   (:data:`mase.protocol.CODE_REQUEST`); the program reads them as the variable ``facts``.
3. **Execution** in :func:`mase.sandbox.run_code`: a child interpreter under bubblewrap (its
   own namespaces, no network, a read-only system, a private tmpfs folder) with time, memory and
   output limits; ``unconfined=True`` opts into the audit hook alone where bubblewrap cannot run,
   and the seat's record then says ``"sandbox": "unconfined"``.
4. **Self-debugging.** When the program fails, its code and the sandbox's account of the error
   go back to the model (:data:`mase.protocol.CODE_FEEDBACK`), up to ``debug_tries`` times.
5. **Action.** The model is asked for its action given the memory, the observation and the
   program's output (:data:`mase.protocol.PROGRAM_OUTPUT`); the env reads the reply as it reads
   any LLM seat's, with the same retries.

Every program run is in the episode record (``programs``: turn, attempt, outcome, seconds,
whether it ran confined, and output, cut) and counted in the metrics: ``code_calls``,
``code_runs``, ``code_failures`` (runs that failed), ``code_fixed`` (turns whose program
failed and then ran) and ``code_gave_up`` (turns acted on without a working program).
"""

from __future__ import annotations

import json
import re
from typing import Any

from mase import protocol
from mase.agents.llm import LLMAgent, Messages, _Dialogue, _observation_text
from mase.llm.config import LLMConfig

_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S | re.I)
_OPEN_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*)\Z", re.S | re.I)


def extract_code(reply: str) -> str:
    r"""The program in a reply: its first fenced block, else the whole reply.

    An unclosed block runs to the end of the reply.

    >>> extract_code("Here:\n```python\nprint(1)\n```\nDone.")
    'print(1)\n'
    >>> extract_code("print(2)")
    'print(2)'
    """
    found = _BLOCK.search(reply) or _OPEN_BLOCK.search(reply)
    return found.group(1) if found else reply


class CodeActAgent(LLMAgent):
    """An LLM seat that reasons by writing and running programs (module docstring).

    Args:
        config: the model and endpoint, as for :class:`~mase.agents.LLMAgent`.
        memory: events remembered in each prompt (the paper's k = 15).
        debug_tries: programs sent back to the model after a failure, per turn.
        timeout_s, memory_mb, max_output: the sandbox's limits per program.
        retries, max_reply_chars, client: as for :class:`~mase.agents.LLMAgent`.
        unconfined: run programs in the unconfined child (the audit hook alone, no bubblewrap);
            ``None`` reads ``MASE_UNCONFINED_SANDBOX`` (:func:`mase.sandbox.run_code`).

    Raises:
        mase.sandbox.SandboxUnavailable: bubblewrap cannot run here and ``unconfined`` is not
            set (said when the seat is made, not at its first program).
    """

    def __init__(
        self,
        config: LLMConfig | None = None,
        memory: int = 15,
        debug_tries: int = 2,
        timeout_s: float = 5.0,
        memory_mb: int = 256,
        max_output: int = 2000,
        retries: int = 1,
        max_reply_chars: int = 2000,
        client: Any = None,
        unconfined: bool | None = None,
    ):
        from mase.sandbox import require_confinement

        if memory < 0:
            raise ValueError(f"memory must be 0 or more events, got {memory}")
        if debug_tries < 0:
            raise ValueError(f"debug_tries must be 0 or more, got {debug_tries}")
        super().__init__(
            config, window=0, retries=retries, max_reply_chars=max_reply_chars, client=client
        )
        self.memory = memory
        self.debug_tries = debug_tries
        self.limits = {"timeout_s": timeout_s, "memory_mb": memory_mb, "max_output": max_output}
        self.unconfined = require_confinement(unconfined)

    def spawn(self) -> CodeActAgent:
        """A fresh agent with this configuration, sharing the chat client."""
        return CodeActAgent(
            self.config,
            memory=self.memory,
            debug_tries=self.debug_tries,
            retries=self.retries,
            max_reply_chars=self.max_reply_chars,
            client=self.client,
            unconfined=self.unconfined,
            **self.limits,
        )

    def episode_record(self) -> dict[str, Any]:
        """The LLM record (:meth:`LLMAgent.episode_record`) and every program run."""
        record = {**super().episode_record(), "programs": list(self._programs)}
        if self.unconfined:
            record["sandbox"] = "unconfined"
        return record

    def _start_counts(self) -> None:
        super()._start_counts()
        for key in ("code_calls", "code_runs", "code_failures", "code_fixed", "code_gave_up"):
            self._metrics[key] = 0
        self._programs: list[dict[str, Any]] = []

    # -- one turn -----------------------------------------------------------------------------

    def remembered(self) -> list[str]:
        """The latest ``memory`` events this seat saw, as lines, oldest first."""
        seen = [e for e in self.base.event_log if self.agent in e.audience]
        return [event_line(e) for e in seen[-self.memory :]] if self.memory else []

    def _context(self, text: str) -> str:
        memory = "\n".join(self.remembered()) or "(nothing yet)"
        return f"{protocol.MEMORY_HEADER}\n{memory}\n\n{protocol.CURRENT_OBSERVATION}\n{text}"

    def _act(self, observation: Any) -> _Dialogue:
        self._turn += 1
        text = _observation_text(observation, self.base, self.agent)
        context = self._context(text)
        facts = self.base.code_facts(self.agent)
        output = yield from self._reason(context, facts)
        user = f"{context}\n\n{protocol.PROGRAM_OUTPUT}\n{output}\n\n{protocol.ACTION_REQUEST}"
        messages = [*self._system(), {"role": "user", "content": user}]
        return (yield from self._decide(messages, text))

    def _reason(self, context: str, facts: Any) -> _Dialogue:
        """Ask for a program, run it, and send failures back: the output to act on."""
        from mase.sandbox import run_code  # the sandbox is needed only once a program runs

        listing = json.dumps(facts, indent=None, sort_keys=True)
        user = f"{context}\n\n{protocol.FACTS_HEADER}\n{listing}\n\n{protocol.CODE_REQUEST}"
        messages: Messages = [*self._system(), {"role": "user", "content": user}]
        failed = False
        for attempt in range(self.debug_tries + 1):
            completion = yield messages, "code" if attempt == 0 else "debug"
            if completion.error:
                self._metrics["code_gave_up"] += 1
                return f"(no program: the model gave no reply: {completion.error})"
            code = extract_code(completion.text)
            result = run_code(code, facts, unconfined=self.unconfined, **self.limits)
            self._metrics["code_runs"] += 1
            self._programs.append(
                {
                    "turn": self._turn,
                    "attempt": attempt,
                    "reason": result.reason,
                    "seconds": round(result.seconds, 3),
                    "confined": result.confined,
                    "output": (result.stdout if result.ok else result.error)[:500],
                }
            )
            if result.ok:
                self._metrics["code_fixed"] += failed
                return result.stdout.strip() or "(the program printed nothing)"
            failed = True
            self._metrics["code_failures"] += 1
            messages = [
                *messages,
                {"role": "assistant", "content": completion.text[: self.max_reply_chars]},
                {
                    "role": "user",
                    "content": protocol.CODE_FEEDBACK.format(feedback=result.feedback()),
                },
            ]
        self._metrics["code_gave_up"] += 1
        return f"(no working program after {self.debug_tries + 1} tries: {result.error})"

    def __repr__(self) -> str:
        return f"CodeActAgent(model={self.config.model!r}, memory={self.memory})"


_SPEECH_LINE = re.compile(r'^Round \d+: ([A-Za-z]+): says "([^"\n]*)"$')


def event_line(event: Any) -> str:
    """One remembered event as a line: ``Round 2: Bravo: says "..."``, ``Round 1: Moderator: ...``.

    Speech is quoted as an observation's messages are (:func:`mase.protocol.quote`); any other
    note is kept to one line, so that no one's words can start a line of the memory.
    """
    who = (event.actor or "moderator").capitalize()
    if event.kind == "message":
        return f"Round {event.round}: {who}: says {protocol.quote(event.note)}"
    what = event.note or event.kind.replace("_", " ")
    return f"Round {event.round}: {who}: {protocol.one_line(what)}"


def split_memory(memory: str) -> tuple[str, list[tuple[str, str]]]:
    """A memory block's lines (:func:`event_line`): the moderator's, and ``(sender, text)`` said.

    The sender is lowercase and the text as :func:`mase.protocol.quote` wrote it.
    """
    own, said = [], []
    for line in memory.split("\n"):
        m = _SPEECH_LINE.match(line)
        if m:
            said.append((m.group(1).lower(), m.group(2)))
        else:
            own.append(line)
    return "\n".join(own), said
