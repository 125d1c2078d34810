"""Compile the numba kernels ahead of time, for whoever would rather not wait in the first
game: ``python -m catan_env.compile`` compiles the rules core and the envs;
``--agents jsettlers,pretrained,mcts`` compiles those agents' kernels too, in a second
process beside the core's, so two cores compile at once.  Each job prints one line: what
it compiled and how long it took.  Numba caches what is compiled, so every later process
(and a second run of this command) loads it in a moment."""
import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, List, Optional, Sequence, Tuple

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
    """40 moves of each agent in the PettingZoo env: its kernels compiled (agents are
    resolved by spec, as the envs resolve them)."""
    from . import raw_env
    from .agent_specs import resolve_agent
    t0 = time.perf_counter()
    for spec in specs:
        agent = resolve_agent(spec, seed=0)
        env = raw_env()
        env.reset(seed=2)
        for _ in range(40):
            name = env.agent_selection
            env.step(int(agent.act(env.observe(name), env.infoset(name))))
    return ", ".join(specs), time.perf_counter() - t0


def apply_action_signature() -> Tuple[Any, ...]:
    """The numba signature the envs call the rules' ``apply_action`` with (a C-contiguous
    int64 state, the action, the forced outcome): what the helper compiles ahead."""
    from numba import types
    return (types.Array(types.int64, 1, "C"), types.int64, types.int64)


def compile_beside(specs: Sequence[str]) -> None:
    """The second process of a first run (``catan_env.compiling.compile_beside``): the
    kernel a process needs last in its first game, ``apply_action`` with every move under
    it, then the agents' kernels (agents that compile none are skipped)."""
    from .core.rules import apply_action
    apply_action.compile(apply_action_signature())
    from .agent_specs import compiles_kernels
    heavy = [s for s in specs if s and compiles_kernels(s)]
    if heavy:
        compile_agents(heavy)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, prog="python -m catan_env.compile", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--agents", nargs="?", const=DEFAULT_AGENTS, default="",
                   help=f"also these agents (comma-separated specs; alone: {DEFAULT_AGENTS})")
    p.add_argument("--beside", default=None, help=argparse.SUPPRESS)  # the first run's second process
    args = p.parse_args(argv)
    if args.beside is not None:
        compile_beside([s for s in args.beside.split(",") if s])
        return 0
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
