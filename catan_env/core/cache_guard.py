"""Keep numba's on-disk caches honest about the constants they bake in.

Kernels are ``@njit(cache=True)`` and read module constants (state offsets, topology
tables, action ids) that numba folds into the compiled code.  Numba invalidates a cached
kernel only when the kernel's *own* file changes, so editing ``layout.py`` would leave
every other module's cached kernels running the old layout, silently.

``clear_stale(package_dir)`` runs when a package of jitted modules is imported: for the
package folder and each subpackage folder it hashes the sources of the rules core and of
that folder (kernels there bake in constants from both) and, when the digest differs from
the one stamped beside the folder's numba cache, deletes the folder's cached kernels
(``.nbi`` / ``.nbc``) and stamps the new digest.  Numba then recompiles on first use.
"""
import glob
import hashlib
import os

from numba.core.caching import CompileResultCacheImpl

CORE_DIR = os.path.dirname(os.path.abspath(__file__))
STAMP_NAME = "catan_env-sources.sha256"


def sources_digest(*dirs):
    """sha256 over the Python sources of dirs (names and contents, sorted)."""
    h = hashlib.sha256()
    paths = {os.path.abspath(p) for d in dirs for p in glob.glob(os.path.join(d, "*.py"))}
    for path in sorted(paths):
        h.update(os.path.basename(path).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def _probe():  # a stand-in function for numba's cache locators (they read its line number)
    pass


def cache_dir_for(py_file):
    """The directory numba would cache py_file's kernels in (its own locator rules)."""
    for cls in CompileResultCacheImpl._locator_classes:
        try:
            locator = cls.from_function(_probe, py_file)
        except Exception:  # noqa: BLE001 - a locator that does not apply
            locator = None
        if locator is not None:
            return locator.get_cache_path()
    return None


def _package_dirs(root):
    """root and every subpackage folder below it."""
    return [d for d, _, files in os.walk(root) if "__init__.py" in files or d == root]


def clear_stale(package_dir):
    """Delete the cached kernels of every module in package_dir and its subpackages whose
    sources (with the core's) changed since they were cached.  Returns the number of
    files removed."""
    removed = 0
    for module_dir in _package_dirs(package_dir):
        removed += _clear_dir(module_dir, sources_digest(CORE_DIR, module_dir))
    return removed


def _clear_dir(module_dir, digest):
    py_files = sorted(glob.glob(os.path.join(module_dir, "*.py")))
    if not py_files:
        return 0
    cache_dir = cache_dir_for(py_files[0])  # one cache folder per source folder
    if cache_dir is None:
        return 0
    stamp = os.path.join(cache_dir, STAMP_NAME)
    try:
        with open(stamp) as f:
            if f.read().strip() == digest:
                return 0
    except OSError:
        pass
    modules = {os.path.splitext(os.path.basename(p))[0] for p in py_files}
    removed = 0
    for name in os.listdir(cache_dir) if os.path.isdir(cache_dir) else ():
        if name.endswith((".nbi", ".nbc")) and name.split(".", 1)[0] in modules:
            try:
                os.remove(os.path.join(cache_dir, name))
                removed += 1
            except OSError:
                pass
    try:
        tmp = f"{stamp}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(digest)
        os.replace(tmp, stamp)
    except OSError:
        pass
    return removed
