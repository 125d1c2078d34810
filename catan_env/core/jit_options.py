"""numba options saying whether a function runs with numba's runtime (reference counting).

The hot kernels run without it (``**NO_RUNTIME``): the arrays they pass around then cost
no atomic reference counts.  A function called from such a kernel inherits that setting
unless it names its own, so each does: ``**NO_RUNTIME`` where it allocates nothing and
returns no array, ``**RUNTIME`` where it allocates (``batched.runtime_check`` lists any
function that inherited it).  Spelled as dicts because numba's type stubs do not know
the option."""
from typing import Any, Callable, Dict

from numba.extending import register_jitable

NO_RUNTIME: Dict[str, Any] = {"_nrt": False}
RUNTIME: Dict[str, Any] = {"_nrt": True}


def helper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A tiny function (an index, a bit test) compiled into the jitted functions that
    call it rather than as a kernel of its own.  numba compiles a separate njit function
    once per literal argument (``dev_i(p, KNIGHT)`` and ``dev_i(p, MONOPOLY)`` are two
    compiles, each with its own wrapper and cache file); a helper is typed with plain
    integer arguments, compiles once per caller setting and writes no cache file.  It
    allocates nothing (no runtime); called from Python it is the plain function."""
    fn.jit_helper = True  # type: ignore[attr-defined]  # (read by batched.runtime_check)
    return register_jitable(**NO_RUNTIME)(fn)
