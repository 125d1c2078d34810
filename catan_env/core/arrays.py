"""Array operations for the jitted code, written so that they compile cheaply."""
import numpy as np

from .jit_options import helper


@helper
def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[:len(src)] = src`` as a loop.  numba compiles a slice assignment with a
    shape-mismatch error whose message formatting pulls its string machinery into the
    first kernel that has one: about a second of compile time in a fresh process, for an
    error the callers' fixed lengths rule out."""
    for i in range(src.shape[0]):
        dst[i] = src[i]
