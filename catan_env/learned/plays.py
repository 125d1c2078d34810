"""What an agent plays inside numba when the batched env (or distillation) seats it: an
agent's ``batched_opponent()`` returns one of these, or None when it plays as a Python
agent.  One typed value, read in one way by every consumer."""
from dataclasses import dataclass
from typing import Union

import numpy as np

from .mlp import MLPWeights


@dataclass(frozen=True)
class ValueNetworkPlay:
    """The win-probability network alone, deciding greedily (``learned.greedy``) with the
    decision's options (``greedy.O_*``)."""
    weights: MLPWeights
    options: np.ndarray


@dataclass(frozen=True)
class PolicyNetworkPlay:
    """A policy network over the observation vector: the masked argmax of its logits, or
    a softmax sample (``sample``)."""
    weights: MLPWeights
    sample: bool


InNumbaPlay = Union[ValueNetworkPlay, PolicyNetworkPlay]
