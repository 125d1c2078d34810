"""The win-probability network at play time: numpy weights, a numba forward pass.

An MLP from one seat's features (``features.encode_features``) to a logit per relative
seat; the softmax over the seats in the game is each player's chance to win, the
observer first.  Weights travel as one ``.npz`` (``catan_env.learned.mlp`` layers plus a
JSON ``meta`` with the feature layout's digest, so a file made for other features is
refused by name); no torch needed.  The package ships one: :data:`PRETRAINED`.
"""
import hashlib
import json
import os
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np
from numba import njit

from ..core.layout import MAX_PLAYERS
from .features import FEATURE_FIELDS, N_FEATURES, SEAT_COLS
from .mlp import MLPWeights, pack
from .value import Evaluator, new_evaluator, relative_win_probs, state_win_probs

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")
PRETRAINED = os.path.join(WEIGHTS, "pretrained.npz")            # the shipped win-probability network
PRETRAINED_POLICY = os.path.join(WEIGHTS, "pretrained_policy.npz")  # the shipped policy (agents.learned)


def feature_digest(fields: Sequence[Tuple[str, int, int, str]] = tuple(FEATURE_FIELDS)) -> str:
    """A short hash of the feature layout (names, offsets, sizes): weights are tied to it."""
    text = json.dumps([[n, o, s] for n, o, s, _ in fields] + [[n, o, s] for n, o, s, _ in SEAT_COLS])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# Layouts that the current one extends at its end (the rule-option fields came last): a
# network file made for one loads with zero input weights for the slots it never saw, so
# it computes exactly what it computed before.
_FIRST_NEW = [name for name, _, _, _ in FEATURE_FIELDS].index("rules")
EARLIER_LAYOUTS = {feature_digest(FEATURE_FIELDS[:_FIRST_NEW]): FEATURE_FIELDS[_FIRST_NEW][1]}


def _widen(weights: MLPWeights, n_in: int) -> MLPWeights:
    """The same network reading ``N_FEATURES`` inputs: zero weights for the slots past n_in."""
    (w, b, act), rest = weights.layers[0], list(weights.layers[1:])
    wide = np.zeros((N_FEATURES, w.shape[1]), w.dtype)
    wide[:n_in] = w
    return MLPWeights([(wide, b, act)] + rest)


class ValueNetwork:
    """A loaded network: ``params``, ``layers``, ``net`` (the arrays the kernels take),
    ``meta`` (how it was trained) and the scratch width its forward pass needs."""

    def __init__(self, weights: MLPWeights, meta: Optional[Dict[str, Any]] = None) -> None:
        if weights.n_in != N_FEATURES or weights.n_out != MAX_PLAYERS:
            raise ValueError(f"a value network maps {N_FEATURES} features to {MAX_PLAYERS} logits; "
                             f"these weights map {weights.n_in} to {weights.n_out}")
        self.weights = weights
        self.meta = dict(meta or {})
        self.params, self.layers, nets = pack([weights])
        self.net = nets[0].copy()
        self.width = weights.scratch_width

    def save(self, path: str) -> str:
        """Write the network as one .npz (the layers and the meta, with the feature digest)."""
        arrays: Dict[str, Any] = {"n_layers": np.array(len(self.weights.layers))}
        for k, (w, b, act) in enumerate(self.weights.layers):
            arrays[f"w{k}"], arrays[f"b{k}"], arrays[f"act{k}"] = w, b, np.array(act)
        meta = dict(self.meta, features=feature_digest(), n_features=N_FEATURES)
        arrays["meta"] = np.array(json.dumps(meta))
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = path + ".tmp.npz"
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str) -> "ValueNetwork":
        """Read a file written by :meth:`save`; a file of another kind or for another
        feature layout raises ValueError naming the problem."""
        path = os.fspath(path)
        if not os.path.exists(path):
            raise ValueError(f"no value network file {path!r}")
        try:
            with np.load(path) as z:
                meta = json.loads(str(z["meta"]))
                n = int(z["n_layers"])
                weights = MLPWeights([(z[f"w{k}"], z[f"b{k}"], str(z[f"act{k}"])) for k in range(n)])
        except (KeyError, ValueError, OSError, EOFError) as e:
            raise ValueError(f"{path} is not a value network file (.npz from ValueNetwork.save): {e}") from e
        earlier = EARLIER_LAYOUTS.get(meta.get("features", ""))
        if earlier is not None and weights.n_in == earlier:
            weights = _widen(weights, earlier)
            meta = dict(meta, widened_from=meta["features"], features=feature_digest(), n_features=N_FEATURES)
        if meta.get("features") != feature_digest():
            raise ValueError(f"{path} was trained on another feature layout (digest {meta.get('features')}, "
                             f"this version's is {feature_digest()}): retrain it with examples/value_exit.py")
        return cls(weights, meta)

    def digest(self) -> str:
        """The start of the sha256 of the weights as played (the packed arrays): names the
        network in a result, whatever file or spec it came by."""
        h = hashlib.sha256(self.params.tobytes())
        h.update(self.layers.tobytes())
        return h.hexdigest()[:12]

    def win_probs(self, state: np.ndarray, observer: int) -> np.ndarray:
        """Each absolute seat's chance to win as ``observer`` sees ``state`` (float64[4])."""
        return state_win_probs(self.evaluator(), np.asarray(state, np.int64), int(observer))

    def evaluator(self) -> Evaluator:
        """The network with a fresh set of work buffers, for the numba functions that value
        positions (``learned.value``, ``learned.greedy``, the agents' search)."""
        return new_evaluator(self.params, self.layers, self.net, self.width)

    def predict(self, x: np.ndarray, players: np.ndarray) -> np.ndarray:
        """Win probabilities per relative seat for feature rows x (rows, N_FEATURES)."""
        x = np.ascontiguousarray(x, np.float32)
        out = np.zeros((len(x), MAX_PLAYERS), np.float32)
        _predict_rows(self.evaluator(), x, np.asarray(players, np.int64), out)
        return out


@njit(cache=True)
def _predict_rows(ev: Evaluator, x: np.ndarray, players: np.ndarray, out: np.ndarray) -> None:
    for i in range(x.shape[0]):
        relative_win_probs(ev.params, ev.layers, ev.net, x[i], players[i], ev.h1, ev.h2, ev.rel)
        for p in range(MAX_PLAYERS):
            out[i, p] = ev.rel[p]


_NETWORKS: Dict[Tuple[str, float], ValueNetwork] = {}  # (path, mtime) -> loaded once per process


def load_network(path: Optional[str] = None) -> ValueNetwork:
    """The network in ``path`` (the shipped one by default), loaded once per process."""
    path = os.path.abspath(path or PRETRAINED)
    if not os.path.exists(path):
        raise ValueError(f"no value network file {path!r}")
    key = (path, os.path.getmtime(path))
    if key not in _NETWORKS:
        _NETWORKS[key] = ValueNetwork.load(path)
    return _NETWORKS[key]
