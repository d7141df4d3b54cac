"""Wrappers that add to any MASE task: messages, and the single-agent gymnasium view."""

from mase.wrappers.message_channel import MessageChannel
from mase.wrappers.single_agent import SingleAgentEnv

__all__ = ["MessageChannel", "SingleAgentEnv"]
