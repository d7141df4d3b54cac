"""Search and rescue (Li et al., 2023): find five colour-coded bombs and defuse them as a team."""

from mase.envs.search_rescue.env import SearchRescueEnv


def env(**kwargs):
    """The AEC env (PettingZoo's module convention: ``env(**kwargs)``)."""
    return SearchRescueEnv(**kwargs)


def parallel_env(**kwargs):
    """The ParallelEnv (PettingZoo's module convention)."""
    from pettingzoo.utils.conversions import aec_to_parallel

    return aec_to_parallel(SearchRescueEnv(**kwargs))


__all__ = ["SearchRescueEnv", "env", "parallel_env"]
