"""Saying so when the numba kernels compile: the first run after an install (or after a
change to the rules core) compiles them, which takes tens of seconds a user would
otherwise sit through in silence.  The CLIs print their own notice with the time taken;
a library user gets one ``CompileNotice`` warning, once per process, from the first env
made on an empty cache (silence it with
``warnings.simplefilter("ignore", catan_env.CompileNotice)``).

On a machine with two cores or more the first compile also starts a second process
(:func:`compile_beside`: ``python -m catan_env.beside``) that compiles into numba's cache
what this process needs last (the rules' ``apply_action`` with the moves under it, then
the agents named), so two cores compile at once; this process loads from the cache
whatever the other has finished when it gets there.  A CLI that knows its agents shares
the work out instead (:func:`compile_together`: each process takes the next of the first
run's jobs the other has not, so each kernel is compiled once) and plays once both are
done.  Set ``CATAN_ENV_COMPILE_BESIDE=0`` to compile in one process only."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from typing import Any, List, Optional, Sequence

from .core import cache_guard

# what a first run compiles, as measured here (2-core machine, empty numba cache, a second
# process compiling beside, 2026-11-30, benchmarks/first_run.py): the rules, the env and
# its observations alone (the README's PettingZoo loop, a whole process: about 11 s); with
# search agents on top (catan-arena with pretrained and three JSettlersAgents, the two
# processes sharing the jobs out, its first game included: about 34 s)
COMPILE_RULES_ONLY = "about 12 s"
COMPILE_WITH_AGENTS = "about 30 s"
# the same in one process (no second process: one core, or CATAN_ENV_COMPILE_BESIDE=0)
COMPILE_RULES_ONLY_ALONE = "about 18 s"
COMPILE_WITH_AGENTS_ALONE = "about 53 s"
HELPER_SECONDS = 300  # the second process stops itself after this long, done or not
WAIT_SECONDS = 90  # the first process waits at most this long for the second's jobs


def how_long(agents: bool, beside: bool) -> str:
    """What a first run's notice says of its compile: how long, and whether a second
    process compiles beside this one (the CLIs' notice and the envs' warning alike)."""
    if agents:
        estimate = COMPILE_WITH_AGENTS if beside else COMPILE_WITH_AGENTS_ALONE
    else:
        estimate = COMPILE_RULES_ONLY if beside else COMPILE_RULES_ONLY_ALONE
    helper = ", a second process compiling beside this one" if beside else ""
    return f"first run only, {estimate} on a 2-core machine{helper}"


class CompileNotice(UserWarning):
    """The numba kernels are being compiled (first run only; cached after)."""


_announced = False


def _rules_cache_dir() -> Optional[str]:
    """Where numba caches the rules core's kernels (None: it cannot say)."""
    return cache_guard.cache_dir_for(os.path.join(cache_guard.CORE_DIR, "rules.py"))


def rules_cached() -> bool:
    """Whether the rules core's compiled kernels are in numba's cache: its move
    (``apply_action``, which the second process compiles first) and its legal moves
    (``legal_mask``, which only a process playing compiles)."""
    cache_dir = _rules_cache_dir()
    if cache_dir is None or not os.path.isdir(cache_dir):
        return False
    names = os.listdir(cache_dir)
    return all(any(n.startswith(f"rules.{kernel}-") and n.endswith(".nbi") for n in names)
               for kernel in ("apply_action", "legal_mask"))


def _cores() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _cache_writable() -> bool:
    """Whether numba can cache the rules' kernels (else a second process compiles for
    nothing)."""
    cache_dir = _rules_cache_dir()
    if cache_dir is None:
        return False
    probe = cache_dir
    while not os.path.isdir(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    return os.access(probe, os.W_OK)


def mark_announced() -> None:
    """A notice was given (a CLI printed its own): no warning after it."""
    global _announced
    _announced = True


_helper: Optional["subprocess.Popen[bytes]"] = None
_board: Optional[str] = None  # the folder this process and its helper share jobs through


def compile_beside(specs: Sequence[Any] = ()) -> bool:
    """Start (once per process) a second process that compiles into numba's cache the
    rules' ``apply_action`` and then the kernels of the agents ``specs`` (strings; others
    are skipped), while this one compiles what it needs first.  Returns whether one runs:
    not on one core, not with ``CATAN_ENV_COMPILE_BESIDE=0``, not from a worker process
    (a pool's workers would start one each), not where numba cannot cache.  The helper
    finishes the job it is compiling if this process ends first (it only writes numba's
    cache; the folder the two share jobs through goes with this process, so it takes no
    other), exits when done and stops itself after ``HELPER_SECONDS``; should it fail or
    not start, this process compiles everything itself, as it would have."""
    global _helper, _board
    if _helper is not None:
        return True
    import multiprocessing
    if (os.environ.get("CATAN_ENV_COMPILE_BESIDE", "1") == "0" or _cores() < 2 or not sys.executable
            or multiprocessing.parent_process() is not None or not _cache_writable()):
        return False
    names = ",".join(dict.fromkeys(s for s in specs if isinstance(s, str)))
    command = [sys.executable, "-m", "catan_env.beside"] + ([names] if names else [])
    from .beside import BOARD_VARIABLE
    try:
        board = tempfile.mkdtemp(prefix="catan_env-first-run-")
    except OSError:
        return False
    atexit.register(shutil.rmtree, board, True)  # (a helper still at work then finds no job left)
    try:
        _helper = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True,
                                   env=dict(os.environ, CATAN_ENV_COMPILE_BESIDE="0", **{BOARD_VARIABLE: board},
                                            CATAN_ENV_BESIDE_SECONDS=str(HELPER_SECONDS)))
    except OSError:
        shutil.rmtree(board, ignore_errors=True)
        return False
    _board = board
    atexit.register(_leave_helper)
    return True


def compile_together(specs: Sequence[Any] = ()) -> Optional[List[str]]:
    """Compile a first run's jobs (``beside.first_run_jobs``: the rules, then the agents
    ``specs``) together with the helper :func:`compile_beside` started with the same
    specs: this process compiles the views at once, then each process takes the next job
    the other has not, then this one waits for the helper's (at most ``WAIT_SECONDS``).
    Returns None when it did not share (no helper running, or one with another list of
    jobs: then this process compiles what it needs as it plays), else the jobs that
    failed here, each "what: the error" (the games meet the same error, if it is theirs)."""
    if _helper is None or _board is None or _helper.poll() is not None:
        return None
    from .beside import JobBoard, first_run_jobs
    try:
        jobs = first_run_jobs(specs)
    except Exception:  # an agent that cannot be built: the games say so, in their own words
        return None
    board = JobBoard(_board)
    failed: List[str] = []
    board.run(jobs, last=1, failed=failed)  # the views, which the helper leaves to this process
    if board.posted() != [what for what, _ in jobs]:  # another list (or none yet): each goes its own way
        return None
    board.run(jobs, first=1, failed=failed)
    board.wait(jobs, lambda: _helper is not None and _helper.poll() is None, WAIT_SECONDS)
    return failed


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
    warnings.warn(f"catan_env is compiling its numba kernels ({how_long(False, beside)}; cached "
                  f"after). Silence this with warnings.simplefilter('ignore', catan_env.CompileNotice)",
                  CompileNotice, stacklevel=stacklevel)
