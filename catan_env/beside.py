"""The second process of a first run: ``python -m catan_env.beside [SPECS]``, and the
compile jobs it shares with the process that started it.

Started by ``catan_env.compiling.compile_beside`` when a process meets an empty numba
cache.  A first run's compile work is a list of jobs (:func:`first_run_jobs`): the rules'
views (legal moves, observations, determinizations), the rules' ``apply_action`` (with
every move under it) by the signature the envs call it with, then each named agent's
kernels in the stages the agent gives (``compile_stages()``: a network agent's network,
its play without its search, then its search), or by playing it a few moves.  Both
processes take the jobs in that order from one board (a folder where a job is taken by
creating its file, so each is compiled once) until none is left; the first then waits
for the jobs the second took and plays with everything in numba's cache.  A job's
kernels reach the other process through the cache: a job compiled after the ones it
builds on loads them instead of compiling them again.  Where the first process does not
share (an env started this process for the rules alone), it loads whatever this one has
finished when it gets there.  Either way this one leaves the views to the first process,
which needs them at once.  It plays through the rules core
directly, not through the envs, so that it depends on nothing that starts it.
"""
import os
import signal
import sys
import tempfile
import time
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .agent_specs import compiles_kernels, resolve_agent
from .core import game as G
from .infoset import InfoSet

BOARD_VARIABLE = "CATAN_ENV_BESIDE_BOARD"  # the folder the two processes share jobs through

Job = Tuple[str, Callable[[], None]]  # (what it compiles, in words; the call that compiles it)


def apply_action_signature() -> Tuple[Any, ...]:
    """The numba signature the envs call the rules' ``apply_action`` with (a C-contiguous
    int64 state, the action, the forced outcome)."""
    from numba import types
    return (types.Array(types.int64, 1, "C"), types.int64, types.int64)


PLAY_SECONDS = 10.0  # play past the first decision at most this long (a slow agent compiled on it)


def play(agent: Any, moves: int = 40, seed: int = 2) -> None:
    """``moves`` decisions of ``agent`` in every seat of one game, from the observation and
    information set the envs give: its kernels compiled.  It stops ``PLAY_SECONDS`` after
    the first decision (which compiles most: an agent slow to decide stops early)."""
    state = G.new_game(seed=seed)
    first_done = None
    for k in range(moves):
        if G.is_over(state) or (first_done is not None and time.perf_counter() - first_done > PLAY_SECONDS):
            break
        if k == 1:
            first_done = time.perf_counter()
        seat = G.decider(state)
        observation = {"observation": G.observe(state, seat), "action_mask": G.legal_mask(state)}
        G.step(state, int(agent.act(observation, InfoSet(state, seat, seed * 1000 + k))))


def rules_views() -> None:
    """What every process needs first: a new game, its legal moves, a seat's observation
    and a determinization of its information set."""
    state = G.new_game(seed=2)
    G.legal_mask(state)
    G.observe(state, 0)
    InfoSet(state, 0, 1).determinize(1)


def rules_moves() -> None:
    """The rules' ``apply_action`` by the envs' signature, every move under it."""
    from .core.rules import apply_action
    apply_action.compile(apply_action_signature())


def agent_stages(spec: str) -> List[Job]:
    """The agent's compile jobs: its own ``compile_stages()`` (pairs of what and how, in
    the order a first run best compiles them), else a few moves of play."""
    agent = resolve_agent(spec, seed=0)
    stages = getattr(agent, "compile_stages", None)
    if stages is not None:
        return [(f"{spec}: {what}", how) for what, how in stages()]
    return [(spec, lambda: play(agent))]


def first_run_jobs(specs: Sequence[Any]) -> List[Job]:
    """A first run's compile jobs, in the order they are best taken: the rules, then the
    agents' first stages, then their second stages, and so on (a later stage builds on
    the earlier ones' kernels).  Specs that compile no kernels of their own are skipped."""
    jobs: List[Job] = [("the rules' legal moves and views", rules_views), ("the rules' moves", rules_moves)]
    staged = [agent_stages(s) for s in dict.fromkeys(specs) if isinstance(s, str) and s and compiles_kernels(s)]
    for depth in range(max((len(s) for s in staged), default=0)):
        jobs += [stages[depth] for stages in staged if depth < len(stages)]
    return jobs


class JobBoard:
    """The jobs two processes share, as files in one folder: ``NN.taken`` when a process
    takes job NN, ``NN.done`` when it has compiled it, ``jobs.txt`` the helper's list of
    jobs (the first process shares only the same list).  A folder that is gone (the first
    process has finished and removed it) leaves nothing to take."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def post(self, jobs: Sequence[Job]) -> None:
        """Write the list of jobs this process will take from (whole, or not at all)."""
        path = os.path.join(self.folder, "jobs.txt")
        try:
            with open(path + ".part", "w") as f:
                f.write("\n".join(what for what, _ in jobs))
            os.replace(path + ".part", path)
        except OSError:
            pass

    def posted(self) -> Optional[List[str]]:
        """The other process's list of jobs, None before it has written one."""
        try:
            with open(os.path.join(self.folder, "jobs.txt")) as f:
                return f.read().split("\n")
        except OSError:
            return None

    def _path(self, job: int, mark: str) -> str:
        return os.path.join(self.folder, f"{job:02d}.{mark}")

    def take(self, job: int) -> bool:
        """Whether this process got job ``job`` (no other process has it)."""
        try:
            os.close(os.open(self._path(job, "taken"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except (FileExistsError, FileNotFoundError):  # taken; or the board is gone
            return False

    def finish(self, job: int) -> None:
        try:
            os.close(os.open(self._path(job, "done"), os.O_CREAT | os.O_WRONLY))
        except OSError:
            pass

    def done(self, job: int) -> bool:
        return os.path.exists(self._path(job, "done"))

    def run(self, jobs: Sequence[Job], first: int = 0, last: Optional[int] = None,
            failed: Optional[List[str]] = None) -> List[Tuple[int, float]]:
        """Take and compile, in order from job ``first`` up to ``last`` (all: None), every
        job no other process has taken; the jobs this process compiled, each with the
        seconds it took.  With ``failed`` (a list), a job that raises is marked done and
        named there ("what: the error") instead of stopping the others."""
        mine = []
        for i in range(first, len(jobs) if last is None else min(last, len(jobs))):
            if self.take(i):
                t0 = time.perf_counter()
                try:
                    jobs[i][1]()
                except Exception as e:
                    if failed is None:
                        raise
                    failed.append(f"{jobs[i][0]}: {type(e).__name__}: {e}")
                self.finish(i)
                mine.append((i, time.perf_counter() - t0))
        return mine

    def wait(self, jobs: Sequence[Job], helping: Callable[[], bool], seconds: float) -> None:
        """Wait until every job is done, the other process has stopped (``helping()``
        false) or ``seconds`` have passed; what is not done then, the caller compiles
        when it needs it."""
        deadline = time.monotonic() + seconds
        while not all(self.done(i) for i in range(len(jobs))) and helping() and time.monotonic() < deadline:
            time.sleep(0.05)


def main(argv: Optional[Sequence[str]] = None) -> int:
    seconds = int(os.environ.get("CATAN_ENV_BESIDE_SECONDS", "0") or 0)
    if seconds > 0 and hasattr(signal, "alarm"):
        signal.alarm(seconds)  # a spec with a huge budget must not keep a core busy for long
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: python -m catan_env.beside [SPEC,SPEC,...]  (started by a first run; see "
              "catan_env.compiling)", file=sys.stderr)
        return 2
    jobs = first_run_jobs(args[0].split(",") if args else [])
    with tempfile.TemporaryDirectory(prefix="catan_env-beside-") as own:  # (a board of its own when given none)
        board = JobBoard(os.environ.get(BOARD_VARIABLE, "") or own)
        board.post(jobs)
        board.run(jobs, first=1)  # the first process compiles the views (job 0) at once
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
