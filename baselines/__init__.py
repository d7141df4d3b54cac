"""Baseline policies (planners and trained agents), installed as ``mase.baselines``."""
