"""Wrappers that add to any MASE task.

:class:`MessageChannel` (messages, broadcast or direct), :class:`TextActions` (play in
words), :class:`BeliefState` (belief templates, oracle beliefs, belief accuracy),
:class:`ToMProbe` (Theory-of-Mind questions scored exactly), :class:`Recorder` (every event
and prompt to the records), and :class:`SingleAgentEnv` (one seat as a gymnasium env).
"""

from mase.actions import find_wrapper, take_keys, wrappers
from mase.wrappers.belief_state import BeliefState
from mase.wrappers.message_channel import MessageChannel
from mase.wrappers.recorder import Recorder
from mase.wrappers.single_agent import SingleAgentEnv
from mase.wrappers.text_actions import TextActions
from mase.wrappers.tom_probe import ToMProbe

__all__ = [
    "BeliefState",
    "MessageChannel",
    "Recorder",
    "SingleAgentEnv",
    "TextActions",
    "ToMProbe",
    "find_wrapper",
    "take_keys",
    "wrappers",
]
