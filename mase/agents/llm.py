"""An LLM plays a seat: prompt from the env's rules and observations, reply parsed by the env.

The procedure of Li et al. (2023) (REFERENCE §1, "LLM agent procedure"):

* **Without belief** (``belief=False``): the chat is the rules (system message), the agent's
  previous ``window`` turns (each: a user message with that turn's observation, an assistant
  message with its final reply), then the current observation followed by
  :data:`mase.protocol.ACTION_REQUEST`.
* **With belief** (``belief=True``): the agent keeps a written belief state, starting from the
  env's ``belief_template(agent)``. Each turn it first asks the model to rewrite the belief
  given the new observation (:data:`~mase.protocol.BELIEF_REQUEST`), then asks for the
  action given the belief alone: the belief replaces the raw history.

The env's ``parse_action`` reads each reply; a reply that names no legal action gets the env's
reason back (:data:`~mase.protocol.FEEDBACK`) and up to ``retries`` more tries. Every reply
read for an action counts in ``llm_outputs`` and those naming a legal action in
``llm_valid_outputs``: their ratio is the paper's valid-action rate.

The env reads each reply whole, but no reply is kept whole: what goes back to the model (the
history window, the rejected reply a retry shows) and what the episode record stores are cut
to ``max_reply_chars``, and a belief to four times that, so one runaway reply cannot flood
later prompts or the records.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from mase import protocol
from mase.actions import takes_key
from mase.agents.base import Policy
from mase.llm.client import ChatClient, Completion, encodable_messages
from mase.llm.config import LLMConfig, LLMUnavailable
from mase.llm.usage import cost_usd, price_table

Messages = list[dict[str, str]]
#: A conversation with the model: yields (messages, purpose), receives the completion.
_Dialogue = Generator[tuple[Messages, str], Completion, Any]

#: A rewritten belief may be this many times longer than a stored reply before it is cut.
_BELIEF_CHARS_PER_REPLY_CHAR = 4


class LLMAgent(Policy):
    """A policy that asks an OpenAI-compatible chat model for each action.

    Args:
        config: the model and endpoint; ``None`` reads the environment
            (:meth:`LLMConfig.from_env`).
        belief: keep and rewrite a belief state (the paper's belief mode); ``"oracle"``
            gives the agent the env's oracle belief each turn instead (what it really knows,
            from the knowledge tracker; an ablation that costs no rewrite call).
        window: previous turns of raw history in each prompt (the paper: two rounds).
        retries: extra tries after a reply that names no legal action.
        max_reply_chars: replies shown to the model again (the history window, the rejected
            reply in a retry prompt) and stored in the record are cut to this length, so a
            runaway reply cannot flood every later prompt; beliefs to four times it.
        client: the chat client to use; by default the process's shared client for
            ``config``, so agents with one config share connections and cache.
        tools: offer the task's tools (:mod:`mase.tools`; a solver, say)
            in the rules; a reply ``Call: name({...})`` runs one and the model replies again
            with its result (the metrics count ``tool_calls``).
        max_tool_calls: the most tool calls of one turn.

    ``act`` returns the final reply text, which the env parses (a
    :class:`~mase.wrappers.MessageChannel` takes its ``Message to Team:`` part); when the env
    has a ``BeliefState`` wrapper, ``{"action": reply, "belief": belief}``.

    Raises:
        LLMUnavailable: from ``act``/``answer``, after ``config.max_errors`` failed calls in a
            row; the runner records the episode as failed with the reason.

    Example:
        >>> import mase
        >>> from mase.llm import offline_server
        >>> task = mase.list_envs("mase", declaring="language_model")[0]  # has an offline model
        >>> env = mase.wrappers.MessageChannel(mase.make(task))
        >>> env.reset(seed=0)
        >>> seat = env.agent_selection
        >>> with offline_server(env) as server:  # the task's offline model
        ...     agent = LLMAgent(LLMConfig(base_url=server.base_url, cache=False))
        ...     agent.reset(seat, env)
        ...     reply = agent.act(env.observe(seat), {})
        >>> env.unwrapped.read_action(seat, reply).action is not None  # a move the task reads
        True
        >>> agent.episode_record()["metrics"]["llm_valid_outputs"]
        1
    """

    def __init__(
        self,
        config: LLMConfig | None = None,
        belief: bool | str = False,
        window: int = 2,
        retries: int = 1,
        max_reply_chars: int = 2000,
        client: ChatClient | None = None,
        tools: bool = False,
        max_tool_calls: int = 3,
    ):
        if window < 0:
            raise ValueError(f"window must be 0 or more turns, got {window}")
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, got {retries}")
        if max_reply_chars < 1:
            raise ValueError(f"max_reply_chars must be positive, got {max_reply_chars}")
        if max_tool_calls < 1:
            raise ValueError(f"max_tool_calls must be 1 or more, got {max_tool_calls}")
        if belief not in (False, True, "oracle"):
            raise ValueError(f"belief must be False, True or 'oracle', got {belief!r}")
        if config is None:
            config = client.config if client is not None else LLMConfig.from_env()
        self.config = config
        self.client = client if client is not None else ChatClient.shared(config)
        self.belief = belief
        self.window = window
        self.retries = retries
        self.max_reply_chars = max_reply_chars
        self.tools, self.max_tool_calls = tools, max_tool_calls
        self._tools: dict[str, Any] = {}
        self._prices = price_table(config.prices)
        self._history: list[tuple[str, str]] = []
        self._start_counts()

    def spawn(self) -> LLMAgent:
        """A fresh agent with this configuration, sharing the chat client (for concurrency)."""
        return LLMAgent(
            self.config,
            belief=self.belief,
            window=self.window,
            retries=self.retries,
            max_reply_chars=self.max_reply_chars,
            client=self.client,
            tools=self.tools,
            max_tool_calls=self.max_tool_calls,
        )

    # -- the policy protocol ------------------------------------------------------------------

    def reset(self, agent: str, env: Any, seed: int | None = None) -> None:
        """Start an episode in seat ``agent``: fresh history, belief and counters."""
        super().reset(agent, env)
        self.base = env.unwrapped
        self._tools = self.base.tools(agent) if self.tools else {}
        self._rules = self.base.rules_text(agent)
        if self._tools:
            from mase.tools import tools_text

            self._rules += "\n\n" + tools_text(self._tools)
        self._history = []
        self._belief = self.base.belief_template(agent) if self.belief else ""
        self._returns_belief = takes_key(env, "belief")
        self._start_counts()

    def act(self, observation: Any, info: dict) -> Any:
        """This turn's reply: the action text (with the belief when the env takes one)."""
        return _drive(self._act(observation), self._call)

    def answer(self, question: str) -> str:
        """Answer a Theory-of-Mind question about the episode so far (the reply text)."""
        return _drive(self._answer(question), self._call)

    async def aact(self, observation: Any, info: dict) -> Any:
        """:meth:`act` for asyncio code."""
        return await _adrive(self._act(observation), self._acall)

    async def aanswer(self, question: str) -> str:
        """:meth:`answer` for asyncio code."""
        return await _adrive(self._answer(question), self._acall)

    @property
    def current_belief(self) -> str:
        """The belief state the agent holds now (empty without belief mode)."""
        return self._belief

    def episode_record(self) -> dict[str, Any]:
        """Usage of the episode so far: ``{"metrics": {...}, "calls": [...]}``.

        Metrics: ``llm_calls`` (requests made or replayed from the cache), ``llm_outputs``
        (replies read for an action, retries included), ``llm_valid_outputs``,
        ``prompt_tokens``, ``completion_tokens``, ``latency_s`` and ``cost_usd`` (what this
        run waited and spent: a reply from the response cache adds neither; ``cost_usd`` is
        ``None`` for a model without a price), ``cached_calls`` (only when some replies came
        from the cache), ``llm_errors``, ``belief_calls``, ``probe_calls``. Each call:
        ``turn``, ``purpose`` (action, retry, belief, answer), ``messages`` (as sent, so the
        replies in them are already cut), ``reply`` (cut to ``max_reply_chars``, a belief
        rewrite to four times it; a cut reply adds ``reply_truncated``: its whole length), the
        token counts, ``latency_s`` (of the call that gave the reply), ``error``, and
        ``cached: true`` for a reply from the cache.
        """
        return {"metrics": dict(self._metrics, cost_usd=self._cost), "calls": list(self._calls)}

    # -- one turn, as a dialogue with the model -----------------------------------------------

    def _act(self, observation: Any) -> _Dialogue:
        self._turn += 1
        text = _observation_text(observation, self.base, self.agent)
        if self.belief == "oracle":
            self._belief = self.base.oracle_belief(self.agent)
        elif self.belief:
            completion = yield self._belief_prompt(text), "belief"
            limit = self.max_reply_chars * _BELIEF_CHARS_PER_REPLY_CHAR
            if completion.error or not completion.text.strip():
                # the old belief and the observation it missed; past the limit the oldest
                # text goes, or a model that keeps failing grows the belief every turn
                grown = f"{self._belief}\n\n{protocol.NEW_OBSERVATION}\n{text}"
                self._belief = grown[-limit:]
            else:
                self._belief = completion.text.strip()[:limit]
        return (yield from self._decide(self._action_prompt(text), text))

    def _decide(self, messages: Messages, text: str) -> _Dialogue:
        """Ask for the action, with ``retries`` more tries after a reply naming none.

        With tools, a reply that calls one (``Call: name({...})``) is answered with the tool's
        result and the action asked again, up to ``max_tool_calls`` calls a turn; a call is no
        output and spends no try.
        """
        purpose = "action"
        calls = 0
        for attempt in range(self.retries + 1):
            completion = yield messages, purpose
            reply = completion.text
            while self._tools and not completion.error and calls < self.max_tool_calls:
                called = protocol.read_tool_call(reply)
                if called is None:
                    break
                from mase.tools import run_tool

                calls += 1
                self._metrics["tool_calls"] = self._metrics.get("tool_calls", 0) + 1
                result = run_tool(self._tools, *called)
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply[: self.max_reply_chars]},
                    {"role": "user", "content": f"{protocol.TOOL_RESULT}\n{result}\n\n"
                     + protocol.ACTION_REQUEST},
                ]  # fmt: skip
                completion = yield messages, "tool"
                reply = completion.text
            if completion.error:
                reason = f"no reply from the model ({completion.error})"
                parsed_action = None
            else:
                parsed = self.base.read_action(self.agent, reply)
                parsed_action, reason = parsed.action, parsed.reason
            self._metrics["llm_outputs"] += 1
            if parsed_action is not None:
                self._metrics["llm_valid_outputs"] += 1
                break
            if attempt < self.retries:
                purpose = "retry"
                if not completion.error:  # with no reply there is nothing to correct: ask again
                    messages = [
                        *messages,
                        {"role": "assistant", "content": reply[: self.max_reply_chars]},
                        {"role": "user", "content": protocol.feedback(reason)},
                    ]
        self._history.append((text, reply[: self.max_reply_chars]))
        if self._returns_belief:
            return {"action": reply, "belief": self._belief}
        return reply

    def _answer(self, question: str) -> _Dialogue:
        completion = yield self._answer_prompt(question), "answer"
        return completion.text

    # -- prompts ------------------------------------------------------------------------------

    def _system(self) -> Messages:
        return [{"role": "system", "content": self._rules}]

    def _window(self) -> Messages:
        """The previous ``window`` turns as user/assistant pairs."""
        if self.belief or not self.window:
            return []
        pairs: Messages = []
        for seen, reply in self._history[-self.window :]:
            pairs.append({"role": "user", "content": seen})
            pairs.append({"role": "assistant", "content": reply})
        return pairs

    def _belief_block(self) -> str:
        return f"{protocol.BELIEF_HEADER}\n{self._belief}\n\n"

    def _action_prompt(self, observation: str) -> Messages:
        if self.belief:
            user = self._belief_block() + protocol.ACTION_REQUEST
        else:
            user = f"{observation}\n\n{protocol.ACTION_REQUEST}"
        return [*self._system(), *self._window(), {"role": "user", "content": user}]

    def _belief_prompt(self, observation: str) -> Messages:
        user = (
            f"{protocol.BELIEF_HEADER}\n{self._belief}\n\n{protocol.NEW_OBSERVATION}\n"
            f"{observation}\n\n"
            f"{protocol.BELIEF_REQUEST}"
        )
        return [*self._system(), {"role": "user", "content": user}]

    def _answer_prompt(self, question: str) -> Messages:
        current = self.base.observe_text(self.agent)
        user = (
            (self._belief_block() if self.belief else "")
            + f"{protocol.CURRENT_OBSERVATION}\n{current}\n\n"
            + f"{protocol.QUESTION_HEADER}\n{question}\n{protocol.QUESTION_REQUEST}"
        )
        return [*self._system(), *self._window(), {"role": "user", "content": user}]

    # -- calls and their bookkeeping ----------------------------------------------------------

    def _call(self, messages: Messages, purpose: str) -> Completion:
        # the client sends lone surrogates as U+FFFD: the record then holds what was sent
        messages = encodable_messages(messages)
        completion = self.client.complete(messages, purpose)
        self._count(messages, purpose, completion)
        return completion

    async def _acall(self, messages: Messages, purpose: str) -> Completion:
        messages = encodable_messages(messages)
        completion = await self.client.acomplete(messages, purpose)
        self._count(messages, purpose, completion)
        return completion

    def _start_counts(self) -> None:
        self._turn = 0
        self._errors_in_row = 0
        self._calls: list[dict[str, Any]] = []
        self._cost: float | None = 0.0
        self._metrics: dict[str, Any] = dict.fromkeys(
            (
                "llm_calls",
                "llm_outputs",
                "llm_valid_outputs",
                "prompt_tokens",
                "completion_tokens",
                "latency_s",
                "llm_errors",
                "belief_calls",
                "probe_calls",
            ),
            0,
        )
        self._metrics["latency_s"] = 0.0

    def _count(self, messages: Messages, purpose: str, completion: Completion) -> None:
        m = self._metrics
        m["llm_calls"] += 1
        m["prompt_tokens"] += completion.prompt_tokens
        m["completion_tokens"] += completion.completion_tokens
        if completion.cached:  # replayed: no time waited, nothing spent this time
            m["cached_calls"] = m.get("cached_calls", 0) + 1
        else:
            m["latency_s"] += completion.latency_s
        if purpose == "belief":
            m["belief_calls"] += 1
        elif purpose == "answer":
            m["probe_calls"] += 1
        elif purpose in ("code", "debug"):
            m["code_calls"] = m.get("code_calls", 0) + 1
        elif purpose == "tool":
            m["tool_replies"] = m.get("tool_replies", 0) + 1
        cost = cost_usd(
            self.config.model, completion.prompt_tokens, completion.completion_tokens, self._prices
        )
        if completion.cached and cost is not None:  # nothing spent; an unknown price stays unknown
            cost = 0.0
        self._cost = None if cost is None or self._cost is None else self._cost + cost
        reply = completion.text
        # a rewritten belief is kept up to the belief's limit, so its record keeps as much
        limit = self.max_reply_chars
        if purpose == "belief":
            limit *= _BELIEF_CHARS_PER_REPLY_CHAR
        call: dict[str, Any] = {
            "turn": self._turn,
            "purpose": purpose,
            "messages": list(messages),
            "reply": reply[:limit],
        }
        if len(reply) > limit:
            call["reply_truncated"] = len(reply)
        call.update(
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_s=completion.latency_s,
            error=completion.error,
        )
        if completion.cached:
            call["cached"] = True
        self._calls.append(call)
        if completion.error is None:
            self._errors_in_row = 0
            return
        m["llm_errors"] += 1
        self._errors_in_row += 1
        if self._errors_in_row >= self.config.max_errors:
            raise LLMUnavailable(
                f"{self._errors_in_row} model calls in a row failed "
                f"(model {self.config.model!r} at {self.config.shown_endpoint()}); "
                f"last error: {completion.error}"
            )

    def __repr__(self) -> str:
        mode = (", belief=True" if self.belief else "") + (", tools=True" if self.tools else "")
        return f"LLMAgent(model={self.config.model!r}{mode}, window={self.window})"


def _observation_text(observation: Any, base: Any, agent: str) -> str:
    if isinstance(observation, dict) and isinstance(observation.get("text"), str):
        return observation["text"]
    return base.observe_text(agent)


def _drive(dialogue: _Dialogue, call: Any) -> Any:
    """Run a dialogue with a blocking ``call``; returns the dialogue's result."""
    try:
        request = next(dialogue)
        while True:
            request = dialogue.send(call(*request))
    except StopIteration as done:
        return done.value


async def _adrive(dialogue: _Dialogue, call: Any) -> Any:
    """Run a dialogue with an awaitable ``call``."""
    try:
        request = next(dialogue)
        while True:
            request = dialogue.send(await call(*request))
    except StopIteration as done:
        return done.value
