"""MASE's tasks, one sub-package each, installed as ``mase.envs``."""
