"""Random baselines: uniform over legal actions, and the action weights of the
"MCTS in Settlers of Catan" paper (Szita, Chaslot, Spronck)."""
import numpy as np

from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.topology import HEX_VERTICES

from .base import Agent, legal_from


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    name = "random"

    def act(self, observation, infoset):
        legal = legal_from(observation)
        return int(legal[self.rng.integers(len(legal))])


def paper_weights(legal, public_state, seat):
    """Szita et al.'s weights: 1 per action, +10,000 for settlements and cities,
    10/10^R for roads (R = roads / (settlements + cities)), +100 for a Knight when the
    robber blocks one of our hexes, +10 for other development card plays."""
    s = public_state
    roads = 15 - s[L.ROADS_LEFT + seat]
    towns = (5 - s[L.SETTLEMENTS_LEFT + seat]) + (4 - s[L.CITIES_LEFT + seat])
    road_w = 10.0 / 10.0 ** (roads / max(towns, 1))
    blocked = any(s[L.V_OWNER + v] == seat for v in HEX_VERTICES[s[L.ROBBER]])
    w = np.ones(len(legal))
    for i, a in enumerate(legal):
        if A.SETTLEMENT0 <= a < A.BUY_DEV:
            w[i] += 10_000
        elif A.ROAD0 <= a < A.SETTLEMENT0:
            w[i] += road_w
        elif a == A.PLAY_KNIGHT:
            w[i] += 100 if blocked else 1
        elif A.PLAY_ROAD_BUILDING <= a < A.ROBBER0:
            w[i] += 10
    return w


class WeightedRandomAgent(Agent):
    """Random actions with the weights of the MCTS-in-Catan paper's playouts."""

    name = "weighted"

    def act(self, observation, infoset):
        legal = legal_from(observation)
        if len(legal) == 1:
            return int(legal[0])
        w = paper_weights(legal, infoset.public_state(), infoset.seat)
        return int(legal[self.rng.choice(len(legal), p=w / w.sum())])
