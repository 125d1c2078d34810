"""Deep Catan (Gendre and Kaneko's value network, UCTNet and expert iteration) on this
library's search: self-play data (:mod:`.selfplay`, :mod:`.data`), the networks in torch
(:mod:`.nets`, the ``[rl]`` extra) and in numba (:mod:`.forward`, :mod:`.features`), and
the network-guided agents (:mod:`.agents`: ``uctnet:path=...``, ``exit:path=...``)."""
from .agents import exit_agent, load_networks, uctnet_agent

__all__ = ["exit_agent", "load_networks", "uctnet_agent"]
