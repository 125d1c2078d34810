"""Multi-layer perceptrons evaluated in numba from exported weights.

A learned policy leaves torch as plain arrays (``MLPWeights``) so that jitted code (the
batched env's frozen opponents, later the search's evaluator hooks) runs it with no
Python in the loop.  A *pool* of nets lives in two arrays:

  params  float32, every layer's weights and biases back to back; a layer of
          ``n_in`` inputs and ``n_out`` outputs stores W as (n_in, n_out) row-major
          (input-major: a nonzero input adds one contiguous row) then b (n_out,).
  layers  int64 (n_layers_total, 4): n_in, n_out, activation, offset into params.
  nets    int64 (n_nets, 3): first row in ``layers``, number of layers, offset in params
          of a transposed copy of the last layer's W (a policy head reads the rows of
          the legal actions only, ``masked_logits``).

Activations: 0 identity, 1 ReLU, 2 tanh (applied after every layer but the last when
exported from a torch ``Sequential`` or an SB3 policy, as torch applies them).
"""
import os
from typing import Any, Dict, List, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike
from numba import njit

from catan_env.core.jit_options import NO_RUNTIME

from catan_env.core.arrays import copy_into

ACT_IDENTITY, ACT_RELU, ACT_TANH = 0, 1, 2
_ACT_NAMES = {"identity": ACT_IDENTITY, "relu": ACT_RELU, "tanh": ACT_TANH}
MAX_WIDTH = 4096  # widest hidden layer the scratch buffers hold
# Weights and biases smaller than this are stored as 0.  Weights that get no gradient
# (dead ReLU units, unused inputs) decay under weight decay into subnormal floats: 46,004
# of the weights and biases of the value network shipped on 2026-11-27 were below this,
# most of them subnormal.  On hosts without fast subnormal arithmetic every product with one takes a
# microcode assist: that network's forward pass took 211 us a position with them and 7.7 us
# with them zeroed on one host (benchmarks/value_speed.py, 2026-11-30), where the same file
# measured 5.0 us on 2026-11-29.  Such a weight times any input below 1e8 is below 1e-22,
# which no float32 sum of unit-scale terms keeps, so outputs move by float32 rounding only.
# Zeroed when an MLPWeights is built: the kernels, the numpy reference and torch (through
# to_torch) read the same weights; the deep agent's value parameters do not pass here.
FLUSH_BELOW = 1e-30


@njit(cache=True, **NO_RUNTIME)
def _activate(h: np.ndarray, n: int, act: int) -> None:
    if act == ACT_RELU:
        for j in range(n):  # a select, not a branch: LLVM vectorises it (about half are cut)
            v = h[j]
            h[j] = v if v > 0.0 else np.float32(0.0)
    elif act == ACT_TANH:
        for j in range(n):
            h[j] = np.tanh(h[j])


@njit(cache=True, inline='always')
def nonzero_indices(x: np.ndarray, n: int, idx: np.ndarray) -> int:
    """idx[:m] := the indices i < n where x[i] is nonzero, in order; returns m.  Without a
    branch (each index is written, the count moves on where x is nonzero): a scan that
    branched on each input mispredicted on the ReLU layers' scattered zeros."""
    m = 0
    for i in range(n):
        idx[m] = i
        m += x[i] != 0.0
    return m


@njit(cache=True, inline='always')
def eight_rows(params: np.ndarray, off: int, n_out: int, idx: np.ndarray, k: int) -> Tuple[np.ndarray, ...]:
    """The weight rows of inputs idx[k:k + 8] of the layer at params[off:] (n_out wide),
    as eight slices: separate arrays to LLVM, so the loop that adds them vectorises
    (inlined into the caller, where the slices are only pointers)."""
    return (params[off + idx[k] * n_out:off + (idx[k] + 1) * n_out],
            params[off + idx[k + 1] * n_out:off + (idx[k + 1] + 1) * n_out],
            params[off + idx[k + 2] * n_out:off + (idx[k + 2] + 1) * n_out],
            params[off + idx[k + 3] * n_out:off + (idx[k + 3] + 1) * n_out],
            params[off + idx[k + 4] * n_out:off + (idx[k + 4] + 1) * n_out],
            params[off + idx[k + 5] * n_out:off + (idx[k + 5] + 1) * n_out],
            params[off + idx[k + 6] * n_out:off + (idx[k + 6] + 1) * n_out],
            params[off + idx[k + 7] * n_out:off + (idx[k + 7] + 1) * n_out])


@njit(cache=True, **NO_RUNTIME)
def dense_layer(params: np.ndarray, off: int, n_in: int, n_out: int, x: np.ndarray, h: np.ndarray,
                idx: np.ndarray) -> None:
    """h[:n_out] = x[:n_in] @ W + b, skipping zero inputs (observations are sparse, and
    half a ReLU layer is zero).  Each nonzero input adds one contiguous row of W, taken
    as a slice so that LLVM sees separate arrays and vectorises the inner loop (4x faster
    than indexing params directly, measured); eight rows are added in one pass over h
    (h is loaded and stored once for eight rows: 1.3-2.3x faster on the shipped
    networks' layers than one row a pass, benchmarks/value_opponent_speed.py).  The
    nonzero inputs are listed first (``nonzero_indices``, into idx: int64 scratch of at
    least n_in, the caller's, since an allocation a layer cost up to 45% of the output
    layer): faster than finding each next one by a branching scan, with the same rows
    summed in the same groups and order, so the same bits."""
    out = h[:n_out]
    copy_into(out, params[off + n_in * n_out:off + n_in * n_out + n_out])
    m = nonzero_indices(x, n_in, idx)
    k = 0
    while k + 8 <= m:
        i0, i1, i2, i3 = idx[k], idx[k + 1], idx[k + 2], idx[k + 3]
        i4, i5, i6, i7 = idx[k + 4], idx[k + 5], idx[k + 6], idx[k + 7]
        x0, x1, x2, x3, x4, x5, x6, x7 = x[i0], x[i1], x[i2], x[i3], x[i4], x[i5], x[i6], x[i7]
        w0, w1, w2, w3, w4, w5, w6, w7 = eight_rows(params, off, n_out, idx, k)
        for j in range(n_out):
            out[j] += (((x0 * w0[j] + x1 * w1[j]) + (x2 * w2[j] + x3 * w3[j]))
                       + ((x4 * w4[j] + x5 * w5[j]) + (x6 * w6[j] + x7 * w7[j])))
        k += 8
    while k < m:  # fewer than eight left
        i = idx[k]
        xi = x[i]
        w = params[off + i * n_out:off + (i + 1) * n_out]
        for j in range(n_out):
            out[j] += xi * w[j]
        k += 1


@njit(cache=True, **NO_RUNTIME)
def _layer(params: np.ndarray, layers: np.ndarray, row: int, x: np.ndarray, h: np.ndarray, idx: np.ndarray) -> None:
    n_in, n_out, act, off = layers[row, 0], layers[row, 1], layers[row, 2], layers[row, 3]
    dense_layer(params, off, n_in, n_out, x, h, idx)
    _activate(h, n_out, act)


@njit(cache=True, inline='always')
def after_first(params: np.ndarray, layers: np.ndarray, net: np.ndarray, h1: np.ndarray, h2: np.ndarray,
                idx: np.ndarray) -> np.ndarray:
    """The hidden layers after the first, on the first layer's output in h1; returns the
    buffer holding the last hidden layer's output (h1 or h2)."""
    cur, other = h1, h2
    for k in range(1, net[1] - 1):
        _layer(params, layers, net[0] + k, cur, other, idx)
        cur, other = other, cur
    return cur


@njit(cache=True, inline='always')
def output_layer(params: np.ndarray, layers: np.ndarray, net: np.ndarray, cur: np.ndarray, out: np.ndarray,
                 idx: np.ndarray) -> None:
    """The net's last layer, with its activation, on cur into out."""
    last = net[0] + net[1] - 1
    n_in, n_out, act, off = layers[last, 0], layers[last, 1], layers[last, 2], layers[last, 3]
    dense_layer(params, off, n_in, n_out, cur, out, idx)
    _activate(out, n_out, act)


@njit(cache=True)
def _hidden(params: np.ndarray, layers: np.ndarray, net: np.ndarray, x: np.ndarray, h1: np.ndarray,
            h2: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Run every layer but the last of net on x; return the buffer holding the result
    (x itself for a one-layer net is returned as a float64 copy in h1)."""
    first = net[0]
    if net[1] == 1:
        for j in range(layers[first, 0]):
            h1[j] = x[j]
        return h1
    _layer(params, layers, first, x, h1, idx)
    return after_first(params, layers, net, h1, h2, idx)


@njit(cache=True, inline='always')
def index_scratch(x: np.ndarray, h1: np.ndarray) -> np.ndarray:
    """dense_layer's index scratch for a whole forward pass: every layer reads x or a
    hidden buffer (h1's size, the widest layer's)."""
    return np.empty(max(x.shape[0], h1.shape[0]), np.int64)


@njit(cache=True)
def mlp_forward(params: np.ndarray, layers: np.ndarray, net: np.ndarray, x: np.ndarray, out: np.ndarray,
                h1: np.ndarray, h2: np.ndarray) -> None:
    """Full forward pass of one net on x (float32 or float64) into out (n_out floats);
    h1, h2: scratch of the widest layer's size (float32 for speed)."""
    idx = index_scratch(x, h1)
    output_layer(params, layers, net, _hidden(params, layers, net, x, h1, h2, idx), out, idx)


@njit(cache=True)
def masked_logits(params: np.ndarray, layers: np.ndarray, net: np.ndarray, x: np.ndarray, legal: np.ndarray,
                  n: int, out: np.ndarray, h1: np.ndarray, h2: np.ndarray) -> None:
    """Logits of the net's last layer for the n action ids in legal only, into out[:n]
    (float64; a policy head over a wide action space needs only its legal columns), each
    a dot product with its row of the last layer's transposed copy (``pack``)."""
    cur = _hidden(params, layers, net, x, h1, h2, index_scratch(x, h1))
    last = net[0] + net[1] - 1
    n_in, n_out, off = layers[last, 0], layers[last, 1], layers[last, 3]
    _legal_logits(params, net[2], off + n_in * n_out, n_in, cur, legal, n, out)


# reassoc: the dot product's sum in vector lanes (LLVM keeps a float sum in order without
# it); the order is fixed by the code, so every caller gets the same bits
@njit(cache=True, fastmath={"reassoc"})
def _legal_logits(params: np.ndarray, transposed: int, bias: int, n_in: int, cur: np.ndarray, legal: np.ndarray,
                  n: int, out: np.ndarray) -> None:
    """out[k] := bias + cur . column legal[k] of the last layer, read as a contiguous row
    of its transposed copy at params[transposed:] (a column of W is strided: reading one
    per legal action took 4x longer, measured)."""
    for k in range(n):
        a = legal[k]
        w = params[transposed + a * n_in:transposed + (a + 1) * n_in]
        acc = np.float32(0.0)
        for i in range(n_in):
            acc += cur[i] * w[i]
        out[k] = params[bias + a] + acc


class MLPWeights:
    """One exported MLP: a list of (W (n_in, n_out) float32, b (n_out,), activation name)."""

    def __init__(self, layers: Sequence[Tuple[ArrayLike, ArrayLike, str]]) -> None:
        if not layers:
            raise ValueError("an MLP needs at least one layer")
        checked: List[Tuple[np.ndarray, np.ndarray, str]] = []
        for k, (w, b, act) in enumerate(layers):
            w = _flushed(np.ascontiguousarray(w, dtype=np.float32))
            b = _flushed(np.ascontiguousarray(b, dtype=np.float32).reshape(-1))
            if w.ndim != 2 or b.shape[0] != w.shape[1]:
                raise ValueError(f"layer {k}: W must be (n_in, n_out) and b (n_out,), got "
                                 f"{w.shape} and {b.shape}")
            if k and w.shape[0] != checked[-1][0].shape[1]:
                raise ValueError(f"layer {k} takes {w.shape[0]} inputs but layer {k - 1} "
                                 f"gives {checked[-1][0].shape[1]}")
            if act not in _ACT_NAMES:
                raise ValueError(f"layer {k}: activation must be one of {list(_ACT_NAMES)}, got {act!r}")
            if k < len(layers) - 1 and w.shape[1] > MAX_WIDTH:
                raise ValueError(f"layer {k}: hidden width {w.shape[1]} exceeds {MAX_WIDTH}")
            checked.append((w, b, act))
        self.layers = checked

    @property
    def n_in(self) -> int:
        return self.layers[0][0].shape[0]

    @property
    def n_out(self) -> int:
        return self.layers[-1][0].shape[1]

    @property
    def scratch_width(self) -> int:
        """The h1/h2 scratch a forward pass of these weights needs: the widest layer, or
        the input's width for a one-layer net (its pass copies the input into h1)."""
        widths = [w.shape[1] for w, _, _ in self.layers]
        return max(widths + ([self.n_in] if len(widths) == 1 else []))

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the weights as an .npz file (plain arrays, loadable without torch)."""
        arrays: Dict[str, Any] = {}
        for k, (w, b, act) in enumerate(self.layers):
            arrays[f"w{k}"], arrays[f"b{k}"] = w, b
            arrays[f"act{k}"] = np.array(act)
        np.savez(path, n_layers=np.array(len(self.layers)), **arrays)

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "MLPWeights":
        try:
            with np.load(path) as z:
                n = int(z["n_layers"])
                return cls([(z[f"w{k}"], z[f"b{k}"], str(z[f"act{k}"])) for k in range(n)])
        except (KeyError, ValueError, OSError) as e:
            raise ValueError(f"{path} is not an exported MLP (.npz from MLPWeights.save): {e}") from e

    def numpy_forward(self, x: ArrayLike) -> np.ndarray:
        """Reference forward pass in numpy (float64), for tests and debugging."""
        h = np.asarray(x, dtype=np.float64)
        for w, b, act in self.layers:
            h = h @ w.astype(np.float64) + b
            if act == "relu":
                h = np.maximum(h, 0.0)
            elif act == "tanh":
                h = np.tanh(h)
        return h


def _flushed(a: np.ndarray) -> np.ndarray:
    """a with its entries below ``FLUSH_BELOW`` in magnitude set to 0 (a copy when any is)."""
    tiny = (np.abs(a) < FLUSH_BELOW) & (a != 0)
    if not tiny.any():
        return a
    a = a.copy()
    a[tiny] = 0
    return a


def pack(nets: Sequence[MLPWeights]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A pool of MLPWeights as the (params, layers, nets) arrays the kernels take; each
    net's row in ``nets`` is (first layer row, number of layers, offset of its last
    layer's W transposed: a copy ``masked_logits`` reads a legal action's weights from)."""
    params: List[np.ndarray] = []
    layers: List[Tuple[int, int, int, int]] = []
    index: List[Tuple[int, int, int]] = []
    offset = 0
    for net in nets:
        first = len(layers)
        for w, b, act in net.layers:
            layers.append((w.shape[0], w.shape[1], _ACT_NAMES[act], offset))
            params += [w.reshape(-1), b]
            offset += w.size + b.size
        last = net.layers[-1][0]
        params.append(np.ascontiguousarray(last.T).reshape(-1))
        index.append((first, len(net.layers), offset))
        offset += last.size
    if not params:
        return (np.zeros(1, np.float32), np.zeros((0, 4), np.int64), np.zeros((0, 3), np.int64))
    return (np.concatenate(params).astype(np.float32), np.array(layers, dtype=np.int64),
            np.array(index, dtype=np.int64).reshape(-1, 3))


def from_torch(module: Any) -> MLPWeights:
    """MLPWeights from a torch ``nn.Sequential`` of Linear layers and ReLU/Tanh (or
    Identity) modules, or from an SB3 actor-critic policy (its policy branch:
    ``mlp_extractor.policy_net`` then ``action_net``).  Needs torch."""
    import torch.nn as nn
    mods = []
    if hasattr(module, "mlp_extractor") and hasattr(module, "action_net"):
        if hasattr(module, "features_extractor") and not isinstance(
                module.features_extractor, _flatten_types()):
            raise ValueError("only SB3 policies with a Flatten features extractor (MlpPolicy) export")
        mods = list(module.mlp_extractor.policy_net) + [module.action_net]
    elif isinstance(module, nn.Sequential):
        mods = list(module)
    elif isinstance(module, nn.Linear):
        mods = [module]
    else:
        raise ValueError(f"cannot export {type(module).__name__}: give an nn.Sequential of "
                         f"Linear and ReLU/Tanh layers or an SB3 MlpPolicy")
    layers = []
    for m in mods:
        if isinstance(m, nn.Linear):
            w = m.weight.detach().cpu().numpy().T
            b = (m.bias.detach().cpu().numpy() if m.bias is not None
                 else np.zeros(m.out_features, np.float32))
            layers.append([w, b, "identity"])
        elif isinstance(m, (nn.ReLU, nn.Tanh)):
            if not layers or layers[-1][2] != "identity":
                raise ValueError("an activation must follow a Linear layer")
            layers[-1][2] = "relu" if isinstance(m, nn.ReLU) else "tanh"
        elif isinstance(m, (nn.Identity, nn.Flatten)):
            continue
        else:
            raise ValueError(f"cannot export layer {type(m).__name__} (Linear, ReLU, Tanh only)")
    return MLPWeights([tuple(x) for x in layers])


def to_torch(weights: MLPWeights) -> Any:
    """An ``nn.Sequential`` (Linear, then ReLU/Tanh where the layer has one) computing the
    same function as ``weights``: to start a torch network from exported weights (a cloned
    policy's ``actor.npz`` and ``critic.npz`` in the training examples).  Needs torch."""
    import torch
    import torch.nn as nn
    mods: List[Any] = []
    for w, b, act in weights.layers:
        linear = nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            linear.weight.copy_(torch.as_tensor(w.T))
            linear.bias.copy_(torch.as_tensor(b))
        mods.append(linear)
        if act != "identity":
            mods.append(nn.ReLU() if act == "relu" else nn.Tanh())
    return nn.Sequential(*mods)


def load_into(module: Any, weights: MLPWeights, what: str = "network") -> None:
    """Copy exported weights into a torch Sequential of the same shape (Linear layers and
    activations in the same places); a mismatch raises ValueError naming both shapes."""
    source = to_torch(weights)
    want = [tuple(p.shape) for p in module.state_dict().values()]
    have = [tuple(p.shape) for p in source.state_dict().values()]
    if want != have or [type(m) for m in module] != [type(m) for m in source]:
        raise ValueError(f"cannot start the {what} from these weights: it has parameters {want} and modules "
                         f"{[type(m).__name__ for m in module]}, the file {have} and "
                         f"{[type(m).__name__ for m in source]} (train both with the same widths and activations)")
    module.load_state_dict(source.state_dict())


def _flatten_types() -> Tuple[type, ...]:
    from stable_baselines3.common.torch_layers import FlattenExtractor
    return (FlattenExtractor,)
