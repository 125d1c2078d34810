"""Adapters between catan_env and RL libraries.

``catan_env.wrappers.sb3``: vectorised envs for Stable-Baselines3 / sb3-contrib (MaskablePPO) and
``PolicyAgent``, which turns a trained (or frozen) model into an ``agents`` agent, for
self-play opponents and for the arena.  Heavy libraries are imported only when used.
"""
if __name__ != "catan_env.wrappers":  # one file under two module names poisons numba's cache
    raise ImportError(f"import catan_env.wrappers, not {__name__} (the wrappers/ folder installs "
                      "inside the catan_env package)")
