"""The numba half of the learned agents, shared by the agents and the batched env.

The win-probability network's features (``features``), its forward pass and the one-ply
evaluation of moves with chance expanded (``value``), its trade valuation (``trading``)
and the greedy decision built on them (``greedy``: what ``pretrained:search=0`` plays,
and what the batched env's value-network opponents play, one implementation).  Numpy and
numba only: the env modules may use it, and it imports nothing from the agents.
"""
