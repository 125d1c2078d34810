"""Random baselines: uniform over legal actions, and the action weights of the
"MCTS in Settlers of Catan" paper (Szita, Chaslot, Spronck)."""
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from catan_env.core.playout import action_weights

from .base import Agent, Observation, legal_from

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        legal = legal_from(observation)
        return int(legal[self.rng.integers(len(legal))])


def paper_weights(legal: ArrayLike, public_state: np.ndarray, seat: int) -> np.ndarray:
    """Szita et al.'s weights (the core playout policy's): 1 per action, +10,000 for
    settlements and cities, 10/10^R for roads (R = roads / (settlements + cities)), +100
    for a Knight when the robber blocks one of our hexes, +10 for other card plays."""
    legal = np.asarray(legal, dtype=np.int64)
    w = np.empty(len(legal))
    action_weights(public_state, seat, legal, len(legal), w)
    return w


class WeightedRandomAgent(Agent):
    """Random actions with the weights of the MCTS-in-Catan paper's playouts."""

    name = "weighted"

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        legal = legal_from(observation)
        if len(legal) == 1:
            return int(legal[0])
        w = paper_weights(legal, infoset.public_state(), infoset.seat)
        return int(legal[self.rng.choice(len(legal), p=w / w.sum())])
