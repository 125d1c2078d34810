"""Network-guided search agents (numpy and numba only: no torch at play time).

- ``uctnet:path=NETS.npz``: UCT whose selection is guided by the local value network, as
  a PUCT prior (softmax of each move's estimated score over a temperature), with the same
  playouts as plain UCT (Deep Catan's UCTNet).
- ``exit:path=NETS.npz``: the expert of expert iteration: leaves scored by the value
  network after ``rollout_turns`` turns of playout (2 by default; 0: the network replaces
  the playout); ``prior=true`` adds the local network's prior.

Both are presets of :class:`agents.mcts.MCTSAgent` (any of its options apply, e.g.
``exit:path=n.npz:playouts=400:rollout_turns=2``); the networks become the search's
``evaluate`` and ``prior`` hooks, compiled once per network file and process.
"""
import json
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np
from numba import njit

from catan_env.learned.mlp import mlp_forward, pack
from catan_env.learned.mlp import MLPWeights

from ..mcts import MCTSAgent
from .features import N_FEATURES, move_features
from .forward import state_value

# a network as the search's hooks: evaluate(state, seat) -> each seat's value, and
# prior(state, seat, actions, n, out) writing n probabilities
EvaluateHook = Callable[[np.ndarray, int], np.ndarray]
PriorHook = Callable[[np.ndarray, int, np.ndarray, int, np.ndarray], None]
Hooks = Tuple[Optional[EvaluateHook], Optional[PriorHook], Dict[str, Any]]

_HOOKS: Dict[Tuple[str, float], Hooks] = {}  # (absolute path, mtime) -> (evaluate, prior, meta)


def load_networks(path: Union[str, "os.PathLike[str]"]
                  ) -> Tuple[Optional[Tuple[np.ndarray, np.ndarray]], Optional[MLPWeights], Dict[str, Any]]:
    """(value (params, spec) or None, local MLPWeights or None, meta dict) from a file
    written by :func:`agents.deep.nets.save_networks`."""
    path = os.fspath(path)
    try:
        with np.load(path) as z:
            meta = json.loads(str(z["meta"]))
            value = (z["value_params"], z["value_spec"]) if "value_params" in z else None
            local = None
            if "local_layers" in z:
                local = MLPWeights([(z[f"local_w{k}"], z[f"local_b{k}"], str(z[f"local_act{k}"]))
                                    for k in range(int(z["local_layers"]))])
    except (KeyError, ValueError, OSError) as e:
        raise ValueError(f"{path} is not a Deep Catan network file (.npz from save_networks): {e}") from e
    return value, local, meta


def value_hook(params: np.ndarray, spec: np.ndarray) -> EvaluateHook:
    """A jitted ``evaluate(state, seat)``: every seat's win probability by the value net."""
    params = np.ascontiguousarray(params, np.float32)
    spec = np.ascontiguousarray(spec, np.int64)

    @njit
    def evaluate(s: np.ndarray, seat: int) -> np.ndarray:
        return state_value(params, spec, s, seat)
    return evaluate


def prior_hook(local: MLPWeights, temperature: float) -> PriorHook:
    """A jitted ``prior(state, seat, actions, n, out)``: softmax over the moves of their
    local-network score (a win rate in [0, 1]) divided by the temperature."""
    mlp_params, layers, nets = pack([local])
    net = nets[0].copy()
    width = max(max(w.shape[1] for w, _, _ in local.layers), N_FEATURES)
    inv_t = 1.0 / float(temperature)

    @njit
    def prior(s: np.ndarray, seat: int, actions: np.ndarray, n: int, out: np.ndarray) -> None:
        feats = np.empty(N_FEATURES, np.float32)
        h1 = np.empty(width, np.float32)
        h2 = np.empty(width, np.float32)
        score = np.empty(1, np.float32)
        top = -1e30
        for i in range(n):
            move_features(s, seat, actions[i], feats)
            mlp_forward(mlp_params, layers, net, feats, score, h1, h2)
            out[i] = inv_t / (1.0 + np.exp(-np.float64(score[0])))
            top = max(top, out[i])
        total = 0.0
        for i in range(n):
            out[i] = np.exp(out[i] - top)
            total += out[i]
        for i in range(n):
            out[i] /= total
    return prior


def hooks_for(path: str) -> Hooks:
    """(evaluate hook or None, prior hook or None, meta) of a network file, built once."""
    key = (os.path.abspath(path), os.path.getmtime(path))
    if key not in _HOOKS:
        value, local, meta = load_networks(path)
        _HOOKS[key] = (value_hook(*value) if value is not None else None,
                       prior_hook(local, meta.get("temperature", 0.05)) if local is not None else None, meta)
    return _HOOKS[key]


def _search_agent(path: Optional[str], seed: Optional[int], variant: str, use_value: bool, use_prior: bool,
                  options: Dict[str, Any]) -> MCTSAgent:
    if path is None:
        raise ValueError("the agent needs path=<networks .npz written by examples/exit_train.py>")
    if not os.path.exists(path):
        raise ValueError(f"no network file {path!r}")
    evaluate, prior, _ = hooks_for(path)
    if use_value and evaluate is None:
        raise ValueError(f"{path} holds no value network")
    if use_prior and prior is None:
        raise ValueError(f"{path} holds no local network")
    if not use_value:
        evaluate = None
    if not use_prior:
        prior = None
    agent = MCTSAgent(seed=seed, variant=variant, evaluate=evaluate, prior=prior, **options)
    agent.path = path
    return agent


def uctnet_agent(path: Optional[str] = None, seed: Optional[int] = None, variant: str = "plain_uct",
                 **options: Any) -> MCTSAgent:
    """UCTNet: ``variant``'s search (plain UCT by default) with the local network's prior."""
    return _search_agent(path, seed, variant, use_value=False, use_prior=True, options=options)


def exit_agent(path: Optional[str] = None, seed: Optional[int] = None, variant: str = "best", rollout_turns: int = 2,
               prior: bool = False, **options: Any) -> MCTSAgent:
    """The ExIt expert: value-network leaves after ``rollout_turns`` turns of playout;
    ``prior=true`` adds the local network's PUCT prior (it is evaluated at every node of
    every selection pass, which costs more than the value network here)."""
    options["rollout_turns"] = rollout_turns
    return _search_agent(path, seed, variant, use_value=True, use_prior=bool(prior), options=options)
