"""Keep numba's on-disk caches honest about the code and constants they bake in.

Kernels are ``@njit(cache=True)``.  They read module constants (state offsets, topology
tables, action ids) that numba folds into the compiled code, and they call jitted
functions of other modules, whose machine code is linked into theirs.  Numba invalidates
a cached kernel only when the kernel's *own* file changes, so editing ``layout.py`` (or
``learned/mlp.py``, whose ``dense_layer`` the Deep Catan kernels call) would leave every
other module's cached kernels running the old code, silently.

The rule here follows the imports.  A kernel can only read constants of, and call
kernels in, modules its own module imports (directly or through others: numba resolves
globals by name at compile time, and a kernel passed in at run time, such as a search
hook, is compiled with ``cache=False``).  So each module gets a digest over its own
source and the sources of every module of the distribution it imports, transitively
(``catan_env`` with its ``agents`` and ``wrappers`` subpackages, wherever they are
installed; :mod:`.import_graph` reads the imports).  ``clear_stale()`` runs when
``catan_env.core`` is imported, which every other module of the package does first; for
each package folder it compares each module's digest with the one stamped beside the
folder's numba cache and deletes the cached kernels (``.nbi`` / ``.nbc``) of the modules
whose digest changed.  Numba then recompiles those on first use.  Editing an agent
module thus recompiles that module and the modules importing it, not the rules core.

The imports of each source are kept, by content digest, in one JSON file beside the
core's cache, so an import reads and hashes the sources but parses only changed ones.

Finding a folder's numba cache uses numba's own locator classes (private API:
``CompileResultCacheImpl._locator_classes``; a test fails when a numba release changes
it).  Should they be missing, the guard falls back to deleting the cached kernels of
every package folder (``__pycache__`` and ``NUMBA_CACHE_DIR``) at every import, with a
warning: slower, never stale.
"""
import hashlib
import importlib.util
import json
import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Union

from .import_graph import closure, imports_in, module_files

CORE_DIR = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(CORE_DIR)
STAMP_NAME = "catan_env-kernels.json"      # {module file name: its digest}, per cache folder
IMPORTS_NAME = "catan_env-imports.json"    # {module: [source digest, imports]}, beside the core's cache
SUBPACKAGES_ELSEWHERE = ("agents", "wrappers")  # installed inside the package, kept at the repo's top
KERNEL_SUFFIXES = (".nbi", ".nbc")

Roots = Union[Sequence[str], Mapping[str, str]]  # folders, or {folder: the package it installs as}


def distribution_dirs() -> List[str]:
    """The folders holding the package's sources: ``catan_env`` itself and, in an
    editable install, the ``agents`` and ``wrappers`` folders mapped into it."""
    return list(distribution_roots())


def distribution_roots() -> Dict[str, str]:
    """{folder: package name} of the package's sources (see :func:`distribution_dirs`)."""
    roots = {PACKAGE_DIR: "catan_env"}
    for sub in SUBPACKAGES_ELSEWHERE:
        if os.path.isdir(os.path.join(PACKAGE_DIR, sub)):
            continue  # an installed wheel: already below PACKAGE_DIR
        try:
            spec = importlib.util.find_spec(f"catan_env.{sub}")
        except (ImportError, ValueError):
            spec = None
        for d in (spec.submodule_search_locations or []) if spec is not None else []:
            roots.setdefault(os.path.abspath(d), f"catan_env.{sub}")
    return roots


def _as_roots(roots: Optional[Roots]) -> Dict[str, str]:
    if roots is None:
        return distribution_roots()
    if isinstance(roots, Mapping):
        return dict(roots)
    return {os.path.abspath(r): os.path.basename(os.path.abspath(r)) for r in roots}


def package_dirs(roots: Roots) -> List[str]:
    """Every folder below roots that holds Python sources (caches are kept per folder)."""
    out = []
    for root in _as_roots(roots):
        for d, subdirs, files in os.walk(root):
            subdirs[:] = sorted(s for s in subdirs if s != "__pycache__" and not s.startswith("."))
            if any(f.endswith(".py") for f in files):
                out.append(d)
    return out


def kernel_digests(roots: Optional[Roots] = None) -> Dict[str, str]:
    """{source path: digest of that module's source and of every module it imports,
    transitively, within the distribution}: a module's kernels are stale when it changes."""
    files = module_files(_as_roots(roots))
    sources: Dict[str, bytes] = {}
    for name, path in files.items():
        with open(path, "rb") as f:
            sources[name] = f.read()
    own = {name: hashlib.sha256(text).hexdigest() for name, text in sources.items()}
    graph = _imports(files, sources, own, _imports_cache_path(_as_roots(roots)))
    out = {}
    for name, path in files.items():
        h = hashlib.sha256()
        for dep in sorted(closure(graph, name)):
            h.update(f"{dep}={own[dep]}\n".encode())
        out[path] = h.hexdigest()
    return out


def _imports_cache_path(roots: Mapping[str, str]) -> Optional[str]:
    """Where the imports read below these roots are kept: beside the core's cache, for
    the distribution's own roots only (other roots, as in tests, are parsed afresh and
    leave no file behind); None where numba's locators cannot say."""
    cache_dir = cache_dir_for(os.path.join(CORE_DIR, "rules.py")) if _locator_classes() else None
    if cache_dir is None or roots != distribution_roots():
        return None
    return os.path.join(cache_dir, IMPORTS_NAME)


def _imports(files: Mapping[str, str], sources: Mapping[str, bytes], own: Mapping[str, str],
             path: Optional[str]) -> Dict[str, Set[str]]:
    """Each module's imports, parsed only where the source changed since the last call
    (kept by source digest beside the core's cache; parsed afresh without one).  How
    ``from pkg import name`` resolves depends on which modules exist, so the kept
    imports hold only while the set of modules is the one they were read against."""
    module_set = hashlib.sha256("\n".join(sorted(files)).encode()).hexdigest()
    known: Dict[str, Any] = {}
    if path and os.path.exists(path):
        try:
            with open(path) as f:
                saved = json.load(f)
            if isinstance(saved, dict) and saved.get("modules") == module_set and isinstance(saved.get("imports"), dict):
                known = saved["imports"]
        except (OSError, ValueError):
            known = {}
    graph: Dict[str, Set[str]] = {}
    changed = False
    for name, file in files.items():
        entry = known.get(name)
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == own[name]:
            graph[name] = {m for m in entry[1] if m in files}
        else:
            graph[name] = _read_imports(sources[name], name, file, files)
            changed = True
    if path and (changed or set(known) != set(files)):
        _write_json(path, {"modules": module_set,
                           "imports": {name: [own[name], sorted(graph[name])] for name in files}})
    return graph


def _read_imports(source: bytes, name: str, file: str, files: Mapping[str, str]) -> Set[str]:
    """A module's imports; a source that does not parse (mid-edit, bad encoding) counts
    as importing every module, so its kernels are never kept on a guess."""
    try:
        return imports_in(source.decode("utf-8"), name, file.endswith("__init__.py"), files)
    except (SyntaxError, ValueError):  # UnicodeDecodeError is a ValueError
        return set(files) - {name}


def sources_digest(roots: Optional[Roots] = None) -> str:
    """sha256 over every Python source below roots (default: the distribution), by
    path relative to its root and content."""
    h = hashlib.sha256()
    for root in _as_roots(roots):
        for d in package_dirs([root]):
            for name in sorted(f for f in os.listdir(d) if f.endswith(".py")):
                path = os.path.join(d, name)
                h.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _probe() -> None:  # a stand-in function for numba's cache locators (they read its line number)
    pass


def _locator_classes() -> Optional[List[Any]]:
    """numba's cache locator classes, or None where a numba release moved them."""
    try:
        from numba.core.caching import CompileResultCacheImpl
        classes = CompileResultCacheImpl._locator_classes
    except (ImportError, AttributeError):
        return None
    return list(classes) if classes else None


def cache_dir_for(py_file: str) -> Optional[str]:
    """The directory numba would cache py_file's kernels in (its own locator rules), or
    None when numba's locators cannot say."""
    for cls in _locator_classes() or ():
        try:
            locator = cls.from_function(_probe, py_file)
        except Exception:  # noqa: BLE001 - a locator that does not apply
            locator = None
        if locator is not None:
            return locator.get_cache_path()
    return None


def _fallback_cache_dirs(module_dir: str) -> List[str]:
    """Where numba keeps module_dir's kernels under its documented rules: beside the
    sources, or below NUMBA_CACHE_DIR mirroring the source path."""
    out = [os.path.join(module_dir, "__pycache__")]
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        out.append(os.path.join(base, os.path.abspath(module_dir).lstrip(os.sep)))
    return out


def clear_stale(roots: Optional[Roots] = None) -> int:
    """Delete the cached kernels of every module whose digest (:func:`kernel_digests`)
    differs from the one stamped beside its folder's cache (of every module, at every
    call, where numba's locators are missing).  Returns the number of files removed."""
    roots = _as_roots(roots)
    dirs = package_dirs(roots)
    if _locator_classes() is None:
        warnings.warn("numba's cache locators moved (numba.core.caching.CompileResultCacheImpl."
                      "_locator_classes): catan_env clears its compiled kernels at every import",
                      RuntimeWarning, stacklevel=2)
        return sum(_remove_kernels(c, _module_names(d)) for d in dirs for c in _fallback_cache_dirs(d))
    digests = kernel_digests(roots)
    return sum(_clear_dir(d, digests) for d in dirs)


def _module_names(module_dir: str) -> Set[str]:
    return {f[:-3] for f in os.listdir(module_dir) if f.endswith(".py")}


def _remove_kernels(cache_dir: str, modules: Set[str], failed: Optional[Set[str]] = None) -> int:
    """Delete the cached kernels of these modules (file names without .py) in cache_dir;
    the modules with a kernel that could not be deleted are added to ``failed``."""
    removed = 0
    for name in os.listdir(cache_dir) if os.path.isdir(cache_dir) else ():
        module = name.split(".", 1)[0]
        if name.endswith(KERNEL_SUFFIXES) and module in modules:
            try:
                os.remove(os.path.join(cache_dir, name))
                removed += 1
            except FileNotFoundError:
                pass  # another process cleared it first
            except OSError:
                if failed is not None:
                    failed.add(module)
    return removed


def _clear_dir(module_dir: str, digests: Mapping[str, str]) -> int:
    py_files = sorted(f for f in os.listdir(module_dir) if f.endswith(".py"))
    cache_dir = cache_dir_for(os.path.join(module_dir, py_files[0]))  # one cache folder per source folder
    if cache_dir is None:
        return sum(_remove_kernels(c, _module_names(module_dir)) for c in _fallback_cache_dirs(module_dir))
    now = {f[:-3]: digests.get(os.path.join(module_dir, f), "") for f in py_files}
    stamp = os.path.join(cache_dir, STAMP_NAME)
    try:
        with open(stamp) as f:
            before = json.load(f)
    except (OSError, ValueError):
        before = {}
    stale = {m for m, d in now.items() if not isinstance(before, dict) or before.get(m) != d}
    if not stale:
        return 0
    failed: Set[str] = set()
    removed = _remove_kernels(cache_dir, stale, failed)
    if failed:  # still stale: keep the old digest so the next import tries again
        warnings.warn(f"catan_env could not delete the stale compiled kernels of {', '.join(sorted(failed))} "
                      f"in {cache_dir}; they are retried at the next import", RuntimeWarning, stacklevel=3)
    kept = before if isinstance(before, dict) else {}
    _write_json(stamp, {m: (kept.get(m, "") if m in failed else d) for m, d in now.items()})
    return removed


def _write_json(path: str, data: Any) -> None:
    """Write atomically (a reader never sees half a file); a read-only cache is skipped."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass
