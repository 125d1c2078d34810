"""The MLP kernels under their older name: they live in ``catan_env.learned.mlp`` (a
neutral module the batched env, the agents and the learned pieces all use)."""
from ..learned.mlp import (  # noqa: F401 (re-exported)
    ACT_IDENTITY, ACT_RELU, ACT_TANH, MAX_WIDTH, MLPWeights, dense_layer, from_torch, load_into, masked_logits,
    mlp_forward, pack, to_torch,
)
