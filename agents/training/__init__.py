"""What every learned agent trains with, in one place: recorded games on disk
(:mod:`.shards`), the torch training loop (:mod:`.fit`, the ``[rl]`` extra) and the
expert-iteration rounds that chain recording, training and evaluation (:mod:`.rounds`).

The shipped win-probability agent (``agents.value``) and the Deep Catan reproduction
(``agents.deep``) both stand on these parts; each keeps only what is its own: the
features it reads, its network and its loss.  Their numba forward passes share the
dense layers of ``catan_env.learned.mlp``.
"""
