"""Keep numba's on-disk caches honest about the code and constants they bake in.

Kernels are ``@njit(cache=True)``.  They read module constants (state offsets, topology
tables, action ids) that numba folds into the compiled code, and they call jitted
functions of other modules, whose machine code is linked into theirs.  Numba invalidates
a cached kernel only when the kernel's *own* file changes, so editing ``layout.py`` (or
``learned/mlp.py``, whose ``dense_layer`` the Deep Catan kernels call) would leave every
other module's cached kernels running the old code, silently.

The rule here is the simplest honest one: one digest over every Python source of the
distribution (``catan_env`` with its ``agents`` and ``wrappers`` subpackages, wherever
they are installed).  ``clear_stale()`` runs when ``catan_env.core`` is imported, which
every other module of the package does first; for each package folder it compares the
digest with the one stamped beside the folder's numba cache and, when they differ,
deletes the folder's cached kernels (``.nbi`` / ``.nbc``) and stamps the new digest.
Numba then recompiles on first use.  Editing any source of the package thus costs one
recompilation of the kernels a process uses; a wrong kernel costs more.

Finding a folder's numba cache uses numba's own locator classes (private API:
``CompileResultCacheImpl._locator_classes``; a test fails when a numba release changes
it).  Should they be missing, the guard falls back to deleting the cached kernels of
every package folder (``__pycache__`` and ``NUMBA_CACHE_DIR``) at every import, with a
warning: slower, never stale.
"""
import glob
import hashlib
import importlib.util
import os
import warnings

CORE_DIR = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(CORE_DIR)
STAMP_NAME = "catan_env-sources.sha256"
SUBPACKAGES_ELSEWHERE = ("agents", "wrappers")  # installed inside the package, kept at the repo's top
KERNEL_SUFFIXES = (".nbi", ".nbc")


def distribution_dirs():
    """The folders holding the package's sources: ``catan_env`` itself and, in an
    editable install, the ``agents`` and ``wrappers`` folders mapped into it."""
    dirs = [PACKAGE_DIR]
    for sub in SUBPACKAGES_ELSEWHERE:
        if os.path.isdir(os.path.join(PACKAGE_DIR, sub)):
            continue  # an installed wheel: already below PACKAGE_DIR
        try:
            spec = importlib.util.find_spec(f"catan_env.{sub}")
        except (ImportError, ValueError):
            spec = None
        for d in (spec.submodule_search_locations or []) if spec is not None else []:
            if os.path.abspath(d) not in dirs:
                dirs.append(os.path.abspath(d))
    return dirs


def package_dirs(roots):
    """Every folder below roots that holds Python sources (caches are kept per folder)."""
    out = []
    for root in roots:
        for d, subdirs, files in os.walk(root):
            subdirs[:] = sorted(s for s in subdirs if s != "__pycache__" and not s.startswith("."))
            if any(f.endswith(".py") for f in files):
                out.append(d)
    return out


def sources_digest(roots=None):
    """sha256 over every Python source below roots (default: the distribution), by
    path relative to its root and content."""
    h = hashlib.sha256()
    for root in roots if roots is not None else distribution_dirs():
        for d in package_dirs([root]):
            for path in sorted(glob.glob(os.path.join(d, "*.py"))):
                h.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _probe():  # a stand-in function for numba's cache locators (they read its line number)
    pass


def _locator_classes():
    """numba's cache locator classes, or None where a numba release moved them."""
    try:
        from numba.core.caching import CompileResultCacheImpl
        classes = CompileResultCacheImpl._locator_classes
    except (ImportError, AttributeError):
        return None
    return list(classes) if classes else None


def cache_dir_for(py_file):
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


def _fallback_cache_dirs(module_dir):
    """Where numba keeps module_dir's kernels under its documented rules: beside the
    sources, or below NUMBA_CACHE_DIR mirroring the source path."""
    out = [os.path.join(module_dir, "__pycache__")]
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        out.append(os.path.join(base, os.path.abspath(module_dir).lstrip(os.sep)))
    return out


def clear_stale(roots=None):
    """Delete the cached kernels of every package folder whose stamp differs from the
    sources' digest (all of them, at every call, where numba's locators are missing).
    Returns the number of files removed."""
    roots = roots if roots is not None else distribution_dirs()
    digest = sources_digest(roots)
    dirs = package_dirs(roots)
    if _locator_classes() is None:
        warnings.warn("numba's cache locators moved (numba.core.caching.CompileResultCacheImpl."
                      "_locator_classes): catan_env clears its compiled kernels at every import",
                      RuntimeWarning, stacklevel=2)
        return sum(_remove_kernels(c, d) for d in dirs for c in _fallback_cache_dirs(d))
    return sum(_clear_dir(d, digest) for d in dirs)


def _module_names(module_dir):
    return {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(module_dir, "*.py"))}


def _remove_kernels(cache_dir, module_dir):
    modules = _module_names(module_dir)
    removed = 0
    for name in os.listdir(cache_dir) if os.path.isdir(cache_dir) else ():
        if name.endswith(KERNEL_SUFFIXES) and name.split(".", 1)[0] in modules:
            try:
                os.remove(os.path.join(cache_dir, name))
                removed += 1
            except OSError:
                pass
    return removed


def _clear_dir(module_dir, digest):
    py_files = sorted(glob.glob(os.path.join(module_dir, "*.py")))
    cache_dir = cache_dir_for(py_files[0])  # one cache folder per source folder
    if cache_dir is None:
        return sum(_remove_kernels(c, module_dir) for c in _fallback_cache_dirs(module_dir))
    stamp = os.path.join(cache_dir, STAMP_NAME)
    try:
        with open(stamp) as f:
            if f.read().strip() == digest:
                return 0
    except OSError:
        pass
    removed = _remove_kernels(cache_dir, module_dir)
    try:
        tmp = f"{stamp}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(digest)
        os.replace(tmp, stamp)
    except OSError:
        pass
    return removed
