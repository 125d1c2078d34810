"""A learned agent: a win-probability network over engineered features, searched by a
shallow expectimax, trained by expert iteration (see docs/learned-agents.md).

- ``features``: what the network reads (one seat's view only).
- ``net``: the network's numba forward pass and its weight files (no torch).
- ``positions``: recorded game positions on disk (shards), from any agents' games.
- ``train``: the torch training loop and export (the ``[rl]`` extra).
- ``search``: the depth-limited expectimax over the network.
- ``agent``: the ``value`` / ``pretrained`` agents.
"""
