"""The centralized, full-information planner of search and rescue (the paper's CBS baseline).

:class:`Planner` finds the joint plan with the fewest rounds by A* over joint turn states
(:mod:`mase.baselines.cbs.planner` says why it is optimal); :class:`CBSPolicy` plays it
through the env like any policy, in one seat or all of them, and replans when the world
leaves the plan.
"""

from mase.baselines.cbs.planner import Plan, Planner, Step
from mase.baselines.cbs.policy import CBSPolicy

__all__ = ["CBSPolicy", "Plan", "Planner", "Step"]
