"""Compile the numba kernels ahead of time, for whoever would rather not wait in the first
game: ``python -m catan_env.compile`` compiles the rules core and the envs;
``--agents jsettlers,pretrained,mcts`` compiles those agents' kernels too, in a second
process beside the core's, so two cores compile at once.  Each job prints one line: what
it compiled and how long it took.  Numba caches what is compiled, so every later process
(and a second run of this command) loads it in a moment."""
import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from typing import List, Optional, Sequence, Tuple

import numpy as np

DEFAULT_AGENTS = "jsettlers,pretrained,mcts:playouts=50"


def compile_core() -> Tuple[str, float]:
    """A whole random game in the PettingZoo env (trading on and off), a determinized
    view, the Gymnasium env and the batched env: the rules core and the envs' kernels."""
    import gymnasium

    from . import raw_env
    from .batched.env import BatchedCatan
    t0 = time.perf_counter()
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
    return "the rules core and the envs", time.perf_counter() - t0


def compile_agents(specs: Sequence[str]) -> Tuple[str, float]:
    """40 moves of each agent (``beside.play_agents``, as the envs ask them): its kernels
    compiled (agents are resolved by spec, as the envs resolve them)."""
    from .beside import play_agents
    t0 = time.perf_counter()
    play_agents(specs)
    return ", ".join(specs), time.perf_counter() - t0


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
    if specs:
        with ProcessPoolExecutor(2) as pool:
            jobs = [pool.submit(compile_core), pool.submit(compile_agents, specs)]
            for job in jobs:
                what, seconds = job.result()
                print(f"  {what}: {seconds:.0f} s", flush=True)
    else:
        what, seconds = compile_core()
        print(f"  {what}: {seconds:.0f} s", flush=True)
    print(f"compiled in {time.perf_counter() - t0:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
