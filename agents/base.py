"""The agent protocol shared by every agent, usable inside any PettingZoo loop.

An agent sees only what its seat may know: the PettingZoo observation dict
(``{"observation", "action_mask"}``) and the env's information-set handle
(``env.infoset(agent)``, a :class:`catan_env.InfoSet`).  It returns an action id.

    for agent_name in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else agents[agent_name].act(obs, env.infoset(agent_name))
        env.step(action)
"""
from collections import Counter

import numpy as np


class Agent:
    """Base class: override :meth:`act`; ``reset`` is called between games.

    An agent that replaces a move it planned (the plan was illegal, the search timed out,
    ...) calls :meth:`fall_back`: the count goes to ``self.fallbacks`` (by reason, over the
    agent's lifetime) and to the game (``env.game_stats()["fallbacks"]``, per seat), so a
    baseline that silently plays worse than designed shows in every table."""

    name = "agent"

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.fallbacks = Counter()

    def fall_back(self, infoset, reason, action):
        """Count one replaced move (reason: a short fixed label) and return ``action``."""
        self.fallbacks[reason] += 1
        if infoset is not None:
            infoset.report_fallback(reason)
        return int(action)

    def reset(self, seed=None):
        """Forget per-game memory; reseed when a seed is given."""
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)

    def act(self, observation, infoset):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}(seed={self.seed})"


def legal_from(observation):
    return np.flatnonzero(observation["action_mask"])


def choose_from_logits(legal, logits, deterministic, rng):
    """legal[i] with the highest logits[i] (deterministic), or drawn from their softmax."""
    logits = np.asarray(logits, dtype=np.float64)
    if deterministic:
        return int(legal[np.argmax(logits)])
    p = np.exp(logits - logits.max())
    return int(legal[rng.choice(len(legal), p=p / p.sum())])
