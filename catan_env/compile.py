"""Compile the numba kernels ahead of time, for whoever would rather not wait in the first
game: ``python -m catan_env.compile`` compiles the rules core and the envs;
``--agents jsettlers,pretrained,mcts`` compiles those agents' kernels too, two processes
sharing the jobs out (the core's, then each agent's stages, as a first run shares them:
``catan_env.beside``), so two cores compile at once.  Each job prints one line: what it
compiled and how long it took.  Numba caches what is compiled, so every later process
(and a second run of this command) loads it in a moment."""
import argparse
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

import numpy as np

if TYPE_CHECKING:
    from .beside import Job

DEFAULT_AGENTS = "jsettlers,pretrained,mcts:playouts=50"


def compile_core() -> None:
    """A whole random game in the PettingZoo env (trading on and off), a determinized
    view, the Gymnasium env and the batched env: the rules core and the envs' kernels."""
    import gymnasium

    from . import raw_env
    from .batched.env import BatchedCatan
    for trade in (True, False):
        env = raw_env(domestic_trade=trade)
        env.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in env.agent_iter(3000):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        env.infoset("player_0").determinize(1)
    gymnasium.make("catan_env/Catan-v0").reset(seed=0)
    batched = BatchedCatan(4)
    batched.reset(seed=0)
    for _ in range(20):
        batched.step(batched.sample_actions())


def ahead_of_time_jobs(specs: Sequence[str]) -> List["Job"]:
    """The core's job (the rules and every env), then the agents' stages (the first
    run's jobs past the rules: ``beside.first_run_jobs``)."""
    from .beside import first_run_jobs
    return [("the rules core and the envs", compile_core)] + first_run_jobs(specs)[2:]


def compile_jobs(specs: Sequence[str], board: str) -> List[Tuple[int, str, float]]:
    """One process's share: every job no other process on ``board`` has taken, each as
    (its number, what it compiled, seconds)."""
    from .beside import JobBoard
    jobs = ahead_of_time_jobs(specs)
    return [(i, jobs[i][0], seconds) for i, seconds in JobBoard(board).run(jobs)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, prog="python -m catan_env.compile", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--agents", nargs="?", const=DEFAULT_AGENTS, default="",
                   help=f"also these agents (comma-separated specs; alone: {DEFAULT_AGENTS})")
    args = p.parse_args(argv)
    from .compiling import mark_announced
    mark_announced()  # (this command says what compiles itself)
    specs: List[str] = [s.strip() for s in args.agents.split(",") if s.strip()]
    print("compiling the rules core and the envs" + (f", and beside it {', '.join(specs)}" if specs else "")
          + " (numba caches them for every later run)...", flush=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="catan_env-compile-") as board:
        if specs:  # two processes share the jobs out
            with ProcessPoolExecutor(2) as pool:
                shares = [pool.submit(compile_jobs, specs, board) for _ in range(2)]
                done = [job for share in shares for job in share.result()]
        else:
            done = compile_jobs(specs, board)
        for _, what, seconds in sorted(done):
            print(f"  {what}: {seconds:.0f} s", flush=True)
    print(f"compiled in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
