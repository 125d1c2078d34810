"""The Deep Catan networks evaluated in numba, from exported weights (no torch).

Value network (Deep Catan's, scaled for a CPU): the seat's board planes (26 x 17 x 21)
through a stem convolution and residual blocks, all with the paper's 5x3 "brick
coordinate" kernel (the hex grid embedded in a brick-wall layout: five rows by three
columns cover a hex and its neighbours), a 1x1 head of two channels, flattened; the
vector part (the observation's 202 non-board floats) through a dense branch; both joined
by a dense layer into one logit per relative seat, and a softmax over the seats in the
game: each player's probability of winning, observer first, then in turn order.

Weights live in one float32 array ``params`` read in a fixed order, described by an int
array ``spec`` (see :data:`SPEC_FIELDS`); convolution weights are stored input-major
(c_in, 5, 3, c_out) so the scatter loop below reads them contiguously.
"""
import numpy as np
from numba import njit

from catan_env.learned.mlp import dense_layer
from catan_env.core.layout import MAX_PLAYERS, OPT_PLAYERS
from catan_env.learned.value import seat_softmax
from catan_env.core.observe import BOARD_SIZE, GRID_H, GRID_W, PLANES, VECTOR_SIZE, encode_planes, encode_vector

KH, KW = 5, 3  # the brick-coordinate kernel
SPEC_FIELDS = ("planes", "channels", "blocks", "height", "width", "tail", "tail_hidden", "hidden", "outputs")
S_PLANES, S_CH, S_BLOCKS, S_H, S_W, S_TAIL, S_TAIL_H, S_HIDDEN, S_OUT = range(len(SPEC_FIELDS))


def param_count(spec: np.ndarray) -> int:
    """Floats in params for a spec (the order :func:`value_forward` reads them)."""
    p, c, b, h, w, t, th, hid, out = (int(x) for x in spec)
    conv = lambda i, o: i * KH * KW * o + o  # noqa: E731
    return (conv(p, c) + 2 * b * conv(c, c) + (c * 2 + 2) + (t * th + th)
            + ((2 * h * w + th) * hid + hid) + (hid * out + out))


@njit(cache=True)
def _conv(x: np.ndarray, c_in: int, params: np.ndarray, off: int, c_out: int, out: np.ndarray) -> int:
    """out = conv5x3(x) + bias, zero padding (2, 1), as torch's Conv2d(padding=(2, 1));
    zero inputs skipped (board planes are sparse).  Returns the offset after the layer."""
    h, w = x.shape[1], x.shape[2]
    bias = params[off + c_in * KH * KW * c_out:off + c_in * KH * KW * c_out + c_out]
    for o in range(c_out):
        out[o, :, :] = bias[o]
    for i in range(c_in):
        for y in range(h):
            for xx in range(w):
                v = x[i, y, xx]
                if v == 0.0:
                    continue
                for dy in range(KH):
                    oy = y - dy + 2
                    if oy < 0 or oy >= h:
                        continue
                    for dx in range(KW):
                        ox = xx - dx + 1
                        if ox < 0 or ox >= w:
                            continue
                        base = off + ((i * KH + dy) * KW + dx) * c_out
                        wk = params[base:base + c_out]
                        for o in range(c_out):
                            out[o, oy, ox] += v * wk[o]
    return off + c_in * KH * KW * c_out + c_out


@njit(cache=True)
def _relu(a: np.ndarray) -> None:
    flat = a.reshape(-1)
    for i in range(flat.shape[0]):
        if flat[i] < 0.0:
            flat[i] = 0.0


@njit(cache=True)
def _dense(x: np.ndarray, n_in: int, params: np.ndarray, off: int, n_out: int, out: np.ndarray) -> int:
    """out[:n_out] = x @ W + b (the MLP kernels' layer: W stored (n_in, n_out)); returns
    the offset after the layer."""
    dense_layer(params, off, n_in, n_out, x, out, np.empty(n_in, np.int64))
    return off + n_in * n_out + n_out


@njit(cache=True)
def value_forward(params: np.ndarray, spec: np.ndarray, planes: np.ndarray, tail: np.ndarray, n_players: int,
                  out: np.ndarray) -> int:
    """Win probabilities per relative seat (softmax over the first n_players outputs;
    the rest 0) into out, from one position's planes and vector part."""
    c_in, ch, blocks, h, w = spec[S_PLANES], spec[S_CH], spec[S_BLOCKS], spec[S_H], spec[S_W]
    n_tail, tail_h, hidden, n_out = spec[S_TAIL], spec[S_TAIL_H], spec[S_HIDDEN], spec[S_OUT]
    a = np.empty((ch, h, w), np.float32)
    b = np.empty((ch, h, w), np.float32)
    off = _conv(planes, c_in, params, 0, ch, a)
    _relu(a)
    for _ in range(blocks):
        off = _conv(a, ch, params, off, ch, b)
        _relu(b)
        c = np.empty((ch, h, w), np.float32)
        off = _conv(b, ch, params, off, ch, c)
        for i in range(ch):
            for y in range(h):
                for x in range(w):
                    v = c[i, y, x] + a[i, y, x]
                    a[i, y, x] = v if v > 0.0 else 0.0
    # 1x1 head to two channels, flattened channel-major as torch's flatten
    joined = np.empty(2 * h * w + tail_h, np.float32)
    for o in range(2):
        bias = params[off + ch * 2 + o]
        for y in range(h):
            for x in range(w):
                acc = bias
                for i in range(ch):
                    acc += a[i, y, x] * params[off + i * 2 + o]
                joined[(o * h + y) * w + x] = acc if acc > 0.0 else 0.0
    off += ch * 2 + 2
    th = np.empty(tail_h, np.float32)
    off = _dense(tail, n_tail, params, off, tail_h, th)
    for j in range(tail_h):
        joined[2 * h * w + j] = th[j] if th[j] > 0.0 else 0.0
    hid = np.empty(hidden, np.float32)
    off = _dense(joined, 2 * h * w + tail_h, params, off, hidden, hid)
    _relu(hid)
    logits = np.empty(n_out, np.float32)
    off = _dense(hid, hidden, params, off, n_out, logits)
    seat_softmax(logits, n_players, out)
    return off


@njit(cache=True)
def state_value(params: np.ndarray, spec: np.ndarray, s: np.ndarray, seat: int) -> np.ndarray:
    """Each absolute seat's win probability as the seat's value network sees the
    position s (its observation of s only), as float64[MAX_PLAYERS]."""
    planes = np.zeros((PLANES, GRID_H, GRID_W), np.float32)
    encode_planes(s, seat, planes)
    vec = np.zeros(VECTOR_SIZE, np.float32)
    encode_vector(s, seat, vec)
    n = s[OPT_PLAYERS]
    rel = np.zeros(MAX_PLAYERS)
    value_forward(params, spec, planes, vec[BOARD_SIZE:], n, rel)
    out = np.zeros(MAX_PLAYERS)
    for p in range(n):
        out[p] = rel[(p - seat) % n]
    return out
