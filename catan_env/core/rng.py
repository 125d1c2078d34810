"""Counter-based RNG (splitmix64) whose whole state is one int64 slot of the state vector.

Keeping the RNG inside the state makes a state plus an action list replay exactly, and
lets ``determinize`` reseed the future (dice, steals, draws) of a copied state.
"""
import numpy as np
from numba import njit
from .jit_options import RUNTIME, helper

from .layout import RNG

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@helper
def mix64(x: np.uint64) -> np.uint64:
    """splitmix64 finaliser on a uint64."""
    z = x
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@helper
def next_u64(s: np.ndarray) -> np.uint64:
    x = np.uint64(s[RNG]) + _GOLDEN
    s[RNG] = np.int64(x)
    return mix64(x)


@helper
def randint(s: np.ndarray, n: int) -> int:
    """Uniform integer in [0, n) drawn from the state's RNG."""
    return np.int64(next_u64(s) % np.uint64(n))


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def seed_rng(s: np.ndarray, seed: int) -> None:
    """Derive the RNG state from a user seed (any int64)."""
    s[RNG] = np.int64(mix64(np.uint64(seed) ^ np.uint64(0x5DEECE66D)))


@njit(cache=True)
def shuffle(s: np.ndarray, arr: np.ndarray) -> None:
    """Fisher-Yates shuffle of arr in place with the state's RNG."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = randint(s, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
