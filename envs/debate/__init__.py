"""Multi-agent debate (Du et al. 2023): agents answer, read each other, revise, vote."""
