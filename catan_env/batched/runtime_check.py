"""A check that numba compiled without its runtime (reference counting) only the
functions that say so.

The hot kernels (the batched env's stepping kernels, the rules core's ``legal_actions``
and ``apply_action`` and what they call) are compiled with ``_nrt=False``: the arrays they
pass around cost no atomic reference counts.  numba compiles a function first called from
such a kernel without the runtime too, unless the function sets ``_nrt`` itself: its
version would then depend on which caller compiled it first.  So every function those
kernels call sets it (``_nrt=False`` where it allocates nothing, ``_nrt=True`` where it
does), and ``runtime_free_functions()`` lists any function compiled without the runtime
that did not ask for it, or that returns an array (a runtime-free function must not hand
back a reference it never counted).  CI compiles the batched env first, from an empty
cache, and fails on a non-empty list; ``tests/test_batched.py`` checks what it loaded."""
import sys
from typing import Any, List

from numba import types
from numba.core.compiler import Flags
from numba.core.registry import CPUDispatcher

PACKAGES = ("catan_env", "agents", "wrappers")


def _without_runtime(abi_tags) -> bool:  # type: ignore[no-untyped-def]
    return not any("nrt=True" in Flags.demangle(tag) for tag in abi_tags)


def _holds_array(t: types.Type) -> bool:
    if isinstance(t, types.Array):
        return True
    members = getattr(t, "types", ()) if isinstance(t, types.BaseTuple) else ()
    return any(_holds_array(x) for x in members)


def runtime_free_functions() -> List[str]:
    """Functions of this distribution compiled (in this process) without numba's runtime
    that did not ask for it (``_nrt=False``) or that return an array; empty when all is
    well."""
    found = set()
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in PACKAGES or module is None:
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, CPUDispatcher):
                continue
            asked = obj.targetoptions.get("_nrt") is False
            results: List[Any] = list(obj.overloads.values())  # CompileResults (the stubs omit their fields)
            for cres in results:
                if cres.fndesc is None or not _without_runtime(cres.fndesc.abi_tags):
                    continue
                where = f"{obj.py_func.__module__}.{obj.py_func.__name__}"
                if not asked:
                    found.add(f"{where} (inherited)")
                elif _holds_array(cres.signature.return_type):
                    found.add(f"{where} (returns an array)")
    return sorted(found)
