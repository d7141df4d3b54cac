"""Language-model plumbing: the offline OpenAI-compatible model server."""

from mase.llm.server import Faults, OfflineServer, Responder

__all__ = ["Faults", "OfflineServer", "Responder"]
