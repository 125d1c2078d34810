"""The agent protocol shared by every agent, usable inside any PettingZoo loop.

An agent sees only what its seat may know: the PettingZoo observation dict
(``{"observation", "action_mask"}``) and the env's information-set handle
(``env.infoset(agent)``, a :class:`catan_env.InfoSet`).  It returns an action id.

    for agent_name in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else agents[agent_name].act(obs, env.infoset(agent_name))
        env.step(action)
"""
import numpy as np


class Agent:
    """Base class: override :meth:`act`; ``reset`` is called between games."""

    name = "agent"

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

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
