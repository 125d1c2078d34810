"""Which kernels run without numba's runtime (reference counting), and a check that no
other function was compiled that way.

The batched env's stepping kernels (``kernel.NRT_FREE``) are compiled with ``_nrt=False``:
the arrays they pass around cost no atomic reference counts.  numba compiles a function
first called from such a kernel without the runtime too, unless the function sets it
itself, so every function those kernels call directly says ``_nrt=True``.  A function that
missed it would be compiled without reference counting when the batched env is the first
thing a process compiles; ``runtime_free_functions()`` lists any such function (CI warms
the cache with the batched env first and fails on a non-empty list)."""
import sys
from typing import List

from numba.core.compiler import Flags
from numba.core.registry import CPUDispatcher

PACKAGES = ("catan_env", "agents", "wrappers")


def _without_runtime(abi_tags) -> bool:
    return not any("nrt=True" in Flags.demangle(tag) for tag in abi_tags)


def runtime_free_functions() -> List[str]:
    """Functions of this distribution compiled (in this process) without numba's runtime,
    other than the kernels meant to run without it; empty when all is well."""
    from .kernel import NRT_FREE
    allowed = {id(k) for k in NRT_FREE}
    found = set()
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in PACKAGES or module is None:
            continue
        for attr, obj in vars(module).items():
            if not isinstance(obj, CPUDispatcher) or id(obj) in allowed:
                continue
            for cres in obj.overloads.values():
                if cres.fndesc is not None and _without_runtime(cres.fndesc.abi_tags):
                    found.add(f"{obj.py_func.__module__}.{obj.py_func.__name__}")
    return sorted(found)
