"""The second process of a first run: ``python -m catan_env.beside [SPECS]``.

Started by ``catan_env.compiling.compile_beside`` when a process meets an empty numba
cache, it compiles into the cache what that process needs last in its first game: the
rules' ``apply_action`` (with every move under it) by the signature the envs call it
with, then the kernels of the agents named (agents that compile none are skipped), by
playing each a few moves.  The process that started it loads from the cache whatever this
one has finished by the time it gets there.  It plays through the rules core directly,
not through the envs, so that it depends on nothing that starts it.
"""
import os
import signal
import sys
from typing import Any, Optional, Sequence, Tuple

from .agent_specs import compiles_kernels, resolve_agent
from .core import game as G
from .infoset import InfoSet


def apply_action_signature() -> Tuple[Any, ...]:
    """The numba signature the envs call the rules' ``apply_action`` with (a C-contiguous
    int64 state, the action, the forced outcome)."""
    from numba import types
    return (types.Array(types.int64, 1, "C"), types.int64, types.int64)


def play_agents(specs: Sequence[Any], moves: int = 40, seed: int = 2) -> None:
    """``moves`` decisions of each agent in every seat of one game, from the observation
    and information set the envs give: its kernels compiled."""
    for spec in specs:
        agent = resolve_agent(spec, seed=0)
        state = G.new_game(seed=seed)
        for k in range(moves):
            if G.is_over(state):
                break
            seat = G.decider(state)
            observation = {"observation": G.observe(state, seat), "action_mask": G.legal_mask(state)}
            G.step(state, int(agent.act(observation, InfoSet(state, seat, seed * 1000 + k))))


def compile_beside(specs: Sequence[str]) -> None:
    """The helper's work: ``apply_action`` first, then the agents that compile kernels."""
    from .core.rules import apply_action
    apply_action.compile(apply_action_signature())
    play_agents([s for s in specs if s and compiles_kernels(s)])


def main(argv: Optional[Sequence[str]] = None) -> int:
    seconds = int(os.environ.get("CATAN_ENV_BESIDE_SECONDS", "0") or 0)
    if seconds > 0 and hasattr(signal, "alarm"):
        signal.alarm(seconds)  # a spec with a huge budget must not keep a core busy for long
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: python -m catan_env.beside [SPEC,SPEC,...]  (started by a first run; see "
              "catan_env.compiling)", file=sys.stderr)
        return 2
    compile_beside(args[0].split(",") if args else [])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
