"""Saying so when the numba kernels compile: the first run after an install (or after a
change to the rules core) compiles them, which takes tens of seconds a user would
otherwise sit through in silence.  The CLIs print their own notice with the time taken;
a library user gets one ``CompileNotice`` warning, once per process, from the first env
made on an empty cache (silence it with
``warnings.simplefilter("ignore", catan_env.CompileNotice)``).

On a machine with two cores or more the first compile also starts a second process
(:func:`compile_beside`: ``python -m catan_env.beside``) that compiles into
numba's cache what this process needs last (the rules' ``apply_action`` with the moves
under it, then the agents named), so two cores compile at once; this process loads from
the cache whatever the other has finished when it gets there.  Set
``CATAN_ENV_COMPILE_BESIDE=0`` to compile in one process only."""
import atexit
import os
import subprocess
import sys
import warnings
from typing import Any, Optional, Sequence

from .core import cache_guard

# what a first run compiles, as measured here (2-core machine, empty numba cache, a second
# process compiling beside, 2026-11-29, benchmarks/first_run.py): the rules, the env and
# its observations alone (the README's PettingZoo loop, a whole process: about 11 s); with
# search agents on top (catan-arena with pretrained and three JSettlersAgents, its first
# game included: about 40 s)
COMPILE_RULES_ONLY = "about 12 s"
COMPILE_WITH_AGENTS = "about 40 s"


class CompileNotice(UserWarning):
    """The numba kernels are being compiled (first run only; cached after)."""


_announced = False


def rules_cached() -> bool:
    """Whether the rules core's compiled kernels are in numba's cache."""
    rules = os.path.join(cache_guard.CORE_DIR, "rules.py")
    cache_dir = cache_guard.cache_dir_for(rules)
    return cache_dir is not None and os.path.isdir(cache_dir) and any(
        n.startswith("rules.apply_action-") and n.endswith(".nbi") for n in os.listdir(cache_dir))


def mark_announced() -> None:
    """A notice was given (a CLI printed its own): no warning after it."""
    global _announced
    _announced = True


_helper: Optional["subprocess.Popen[bytes]"] = None


def compile_beside(specs: Sequence[Any] = ()) -> bool:
    """Start (once per process) a second process that compiles into numba's cache the
    rules' ``apply_action`` and then the kernels of the agents ``specs`` (strings; others
    are skipped), while this one compiles what it needs first.  Returns whether one runs:
    not on one core, not with ``CATAN_ENV_COMPILE_BESIDE=0``.  The helper outlives this
    process if it must (it only writes numba's cache) and exits when done; should it
    fail, this process compiles everything itself, as it would have."""
    global _helper
    if _helper is not None:
        return True
    if os.environ.get("CATAN_ENV_COMPILE_BESIDE", "1") == "0" or (os.cpu_count() or 1) < 2:
        return False
    names = ",".join(dict.fromkeys(s for s in specs if isinstance(s, str)))
    command = [sys.executable, "-m", "catan_env.beside"] + ([names] if names else [])
    _helper = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True,
                               env=dict(os.environ, CATAN_ENV_COMPILE_BESIDE="0"))
    atexit.register(_leave_helper)
    return True


def _leave_helper() -> None:
    """At exit, leave a helper still compiling to finish on its own (it is not this
    process's to wait for; marking it done spares the "still running" warning)."""
    if _helper is not None and _helper.poll() is None:
        _helper.returncode = 0


def warn_if_compiling(stacklevel: int = 3) -> None:
    """One ``CompileNotice`` per process when the kernels are not cached yet (a second
    process starts compiling beside this one, :func:`compile_beside`)."""
    global _announced
    if _announced:
        return
    _announced = True
    if rules_cached():
        return
    beside = compile_beside()
    warnings.warn(f"catan_env is compiling its numba kernels (first run only, {COMPILE_RULES_ONLY} on a "
                  f"2-core machine{', a second process compiling beside this one' if beside else ''}; cached "
                  f"after). Silence this with warnings.simplefilter('ignore', catan_env.CompileNotice)",
                  CompileNotice, stacklevel=stacklevel)
