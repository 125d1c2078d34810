"""A check that numba compiled without its runtime (reference counting) only the
functions that say so.

The hot kernels (the batched env's stepping kernels, the rules core's ``legal_actions``
and ``apply_action`` and what they call, the value network's leaves and trade valuations)
are compiled with ``_nrt=False``: the arrays they
pass around cost no atomic reference counts.  numba compiles a function first called from
such a kernel without the runtime too, unless the function sets ``_nrt`` itself: its
version would then depend on which caller compiled it first.  So every function those
kernels call sets it (``_nrt=False`` where it allocates nothing, ``_nrt=True`` where it
does).  Two checks:

- ``reachable_without_naming()`` reads the sources: every njit function a runtime-free
  function calls (through ``inline='always'`` helpers too) names its setting.  The test
  suite fails on a non-empty list.
- ``runtime_free_functions()`` looks at what this process compiled: any function compiled
  without the runtime that did not ask for it, or that returns an array (a runtime-free
  function must not hand back a reference it never counted).  A kernel loaded from the
  cache hides its callees, so this sees them only where they were compiled: CI's warm
  step compiles the batched env first and prints any it finds."""
import ast
import importlib
import inspect
import sys
import textwrap
from typing import Any, Iterator, List, Set

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


def _is_helper(obj: Any) -> bool:
    """A ``jit_options.helper``: compiled into its callers, always without the runtime."""
    return getattr(obj, "jit_helper", False) is True


def _callees(disp: Any) -> Iterator[Any]:
    """The njit functions and helpers disp's source calls by name (``f(...)`` or
    ``module.f(...)``)."""
    func = disp if _is_helper(disp) else disp.py_func
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    names = func.__globals__
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        target: Any = None
        if isinstance(node.func, ast.Name):
            target = names.get(node.func.id)
        elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            target = getattr(names.get(node.func.value.id), node.func.attr, None)
        if isinstance(target, CPUDispatcher) or _is_helper(target):
            yield target


def reachable_without_naming() -> List[str]:
    """njit functions of this distribution that a runtime-free function calls (directly or
    through ``inline='always'`` helpers, whose bodies land in the caller) but that do not
    name their runtime setting; empty when all is well.  ``jit_options.helper`` functions
    are runtime-free by definition: the walk goes through them."""
    for name in ("catan_env.batched.kernel", "catan_env.core.playout", "catan_env.core.rules", "catan_env.learned.greedy"):
        importlib.import_module(name)
    roots = [obj for name, module in list(sys.modules.items())
             if name.split(".")[0] in PACKAGES and module is not None
             for obj in list(vars(module).values())
             if isinstance(obj, CPUDispatcher) and obj.targetoptions.get("_nrt") is False]
    missing: Set[str] = set()
    seen: Set[int] = set()
    stack = list(roots)
    while stack:
        disp = stack.pop()
        if id(disp) in seen:
            continue
        seen.add(id(disp))
        for callee in _callees(disp):
            if _is_helper(callee):
                stack.append(callee)  # runtime-free by definition; its callees run without it too
                continue
            if callee.py_func.__module__.split(".")[0] not in PACKAGES:
                continue
            inlined = callee.targetoptions.get("inline") == "always"
            setting = callee.targetoptions.get("_nrt")
            if setting is None and not inlined:
                missing.add(f"{callee.py_func.__module__}.{callee.py_func.__name__}")
            if inlined or setting is False:
                stack.append(callee)  # its callees run without the runtime too
    return sorted(missing)
