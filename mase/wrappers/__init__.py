"""Wrappers that add to any MASE task: messages, and the single-agent gymnasium view."""

from mase.wrappers.message_channel import MessageChannel
from mase.wrappers.single_agent import SingleAgentEnv


def find_wrapper(env, kind: type):
    """The first wrapper of type ``kind`` around ``env``, or ``None``."""
    while env is not None:
        if isinstance(env, kind):
            return env
        env = getattr(env, "env", None)
    return None


__all__ = ["MessageChannel", "SingleAgentEnv", "find_wrapper"]
