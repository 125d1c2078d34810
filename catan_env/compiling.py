"""Saying so when the numba kernels compile: the first run after an install (or after a
change to the rules core) compiles them, which takes tens of seconds a user would
otherwise sit through in silence.  The CLIs print their own notice with the time taken;
a library user gets one ``CompileNotice`` warning, once per process, from the first env
made on an empty cache (silence it with
``warnings.simplefilter("ignore", catan_env.CompileNotice)``)."""
import os
import warnings

from .core import cache_guard

# what a first run compiles, as measured here (2-core machine, empty numba cache,
# 2026-11-29): the rules, the env and its observations alone (the README's PettingZoo
# loop, a whole process: 19.6-21.3 s; benchmarks/cold_start.py's core game 20.6-23.2 s);
# with search agents on top (catan-arena with pretrained and three JSettlersAgents, a
# 60-turn game included: 47-49 s)
COMPILE_RULES_ONLY = "about 20 s"
COMPILE_WITH_AGENTS = "about 45 s"


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


def warn_if_compiling(stacklevel: int = 3) -> None:
    """One ``CompileNotice`` per process when the kernels are not cached yet."""
    global _announced
    if _announced:
        return
    _announced = True
    if rules_cached():
        return
    warnings.warn(f"catan_env is compiling its numba kernels (first run only, {COMPILE_RULES_ONLY} on a "
                  f"2-core machine; cached after). Silence this with "
                  f"warnings.simplefilter('ignore', catan_env.CompileNotice)", CompileNotice, stacklevel=stacklevel)
