"""Adapters between catan_env and RL libraries.

``catan_env.wrappers.sb3``: vectorised envs for Stable-Baselines3 / sb3-contrib (MaskablePPO) and
``PolicyAgent``, which turns a trained (or frozen) model into an ``agents`` agent, for
self-play opponents and for the arena.  Heavy libraries are imported only when used.
"""
