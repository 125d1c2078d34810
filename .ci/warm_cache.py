"""Compile the numba kernels the test suite uses once, before pytest's parallel workers
start, so each worker loads them from the cache instead of compiling them again (every
worker would otherwise compile the same kernels at the same time).  Two processes split
the work over the machine's two cores: ``python .ci/warm_cache.py core`` (the rules, the
envs, the batched env, then the policy network and the value search) and ``python
.ci/warm_cache.py agents`` (JSettlersAgent, the value network, MCTS)."""
import sys
import time


def core() -> None:
    from catan_env.batched.env import BatchedCatan
    from catan_env.compile import compile_core
    # the batched env first: its kernels run without numba's runtime, and a function they
    # call that does not set _nrt=True itself would be compiled that way too (checked here)
    for mode in ("learner", "all_seats"):
        b = BatchedCatan(4, mode=mode, opponents=["random", "pruning", "weighted"] if mode == "learner" else "random")
        b.reset(seed=0)
        for _ in range(50):
            b.step(b.sample_actions())
    _check_runtime()
    compile_core()  # whole random games in the AEC env, the Gymnasium env (python -m catan_env.compile)
    _play_agents(("pretrained_policy", "pretrained"))  # (the value search: after the core, its network is cached by then)
    _check_runtime()  # (the value network's leaves and trade valuations run without the runtime too)


def agents() -> None:  # (the two jobs take about as long: ~70 s each from an empty cache here)
    _play_agents(("jsettlers", "pretrained:search=0", "mcts:playouts=50"))
    _check_runtime()


def _check_runtime() -> None:
    """Exit with the list of functions this process compiled without numba's runtime that
    did not ask for it or that return an array (tests/test_batched.py's static check fails
    the suite on a function that names no setting)."""
    from catan_env.batched.runtime_check import runtime_free_functions
    wrong = runtime_free_functions()
    if wrong:
        sys.exit(f"compiled without numba's runtime, unasked or returning an array (name **RUNTIME or "
                 f"**NO_RUNTIME, core.jit_options): {wrong}")


def _play_agents(specs) -> None:
    """40 moves of each agent in the AEC env (its kernels compiled and cached)."""
    import catan_env
    from catan_env.agents import make_agent
    for spec in specs:
        t = time.perf_counter()
        agent = make_agent(spec, seed=0)
        env = catan_env.raw_env()
        env.reset(seed=2)
        for _ in range(40):
            name = env.agent_selection
            env.step(int(agent.act(env.observe(name), env.infoset(name))))
        print(f"  {spec}: {time.perf_counter() - t:.0f} s", flush=True)


if __name__ == "__main__":
    {"core": core, "agents": agents}[sys.argv[1]]()
