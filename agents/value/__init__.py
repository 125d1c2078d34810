"""A learned agent: a win-probability network over engineered features, searched by a
shallow expectimax, trained by expert iteration (see docs/learned-agents.md).

The network itself (its numba forward pass, its loader and the shipped weights, no torch)
and the features it reads (one seat's view only) are ``catan_env.learned.network`` and
``catan_env.learned.features``.

- ``positions``: recorded game positions on disk (shards), from any agents' games.
- ``train``: the torch training loop and export (the ``[rl]`` extra).
- ``search``: the depth-limited expectimax over the network.
- ``agent``: the ``value`` / ``pretrained`` agents.
"""
