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
from typing import TYPE_CHECKING, Optional

import numpy as np
from numpy.typing import ArrayLike

# the protocol is the env layer's (what its envs call); it is re-exported here
from catan_env.agent_specs import AgentProtocol, Observation

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet

__all__ = ["Agent", "AgentProtocol", "Observation", "choose_from_logits", "legal_from"]


class Agent:
    """Base class: override :meth:`act`; ``reset`` is called between games.

    An agent that replaces a move it planned (the plan was illegal, the search timed out,
    ...) calls :meth:`fall_back`: the count goes to ``self.fallbacks`` (by reason, over the
    agent's lifetime) and to the game (``env.game_stats()["fallbacks"]``, per seat), so a
    baseline that silently plays worse than designed shows in every table."""

    name = "agent"

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.fallbacks: "Counter[str]" = Counter()

    def fall_back(self, infoset: Optional["InfoSet"], reason: str, action: int) -> int:
        """Count one replaced move (reason: a short fixed label) and return ``action``."""
        self.fallbacks[reason] += 1
        if infoset is not None:
            infoset.report_fallback(reason)
        return int(action)

    def reset(self, seed: Optional[int] = None) -> None:
        """Forget per-game memory; reseed when a seed is given."""
        if seed is not None:
            self.seed = seed
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        """The action id to play (legal under observation["action_mask"]); subclasses decide."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


def legal_from(observation: Observation) -> np.ndarray:
    """The legal action ids of an observation, ascending."""
    return np.flatnonzero(observation["action_mask"])


def choose_from_logits(legal: np.ndarray, logits: ArrayLike, deterministic: bool,
                       rng: np.random.Generator) -> int:
    """legal[i] with the highest logits[i] (deterministic), or drawn from their softmax."""
    z = np.asarray(logits, dtype=np.float64)
    if deterministic:
        return int(legal[np.argmax(z)])
    p = np.exp(z - z.max())
    return int(legal[rng.choice(len(legal), p=p / p.sum())])
