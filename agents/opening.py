"""Agents with solver openings, and the ``catan-solve-opening`` CLI.

``SolverOpeningAgent`` places its set-up settlements with the backward-induction
``OpeningSolver`` and plays the rest of the game as its base agent (random or weighted).
"""
import sys
from typing import TYPE_CHECKING, Dict, Optional, Sequence, Type


from catan_env.core import actions as A
from catan_env.core import layout as L

from catan_env.cli import UserError, parser, require, user_errors

from .base import Agent, Observation
from .opening_solver import OpeningSolver
from .random_agents import RandomAgent, WeightedRandomAgent

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet

BASES: Dict[str, Type[Agent]] = {"random": RandomAgent, "weighted": WeightedRandomAgent}


class SolverOpeningAgent(Agent):
    """A random or weighted agent whose set-up settlements come from the solver."""

    name = "opening_solver"

    def __init__(self, seed: Optional[int] = None, base: str = "weighted", modality: int = 3,
                 competitive: bool = False) -> None:
        super().__init__(seed)
        if base not in BASES:
            raise ValueError(f"base must be one of {list(BASES)}, got {base!r}")
        self.base = BASES[base](seed)
        self.solver = OpeningSolver(modality=modality, competitive=bool(competitive))

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.base.reset(seed)

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        s = infoset.public_state()
        if s[L.PHASE] == L.PH_SETUP_SETTLEMENT:
            v = self.solver.best_settlement(s, infoset.seat)
            a = A.SETTLEMENT0 + int(v)
            if observation["action_mask"][a]:
                return a
        return self.base.act(observation, infoset)


@user_errors("catan-solve-opening")
def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = parser("catan-solve-opening", "Solve a board's optimal set-up placements.")
    ap.add_argument("--seed", type=int, default=0, help="random board seed")
    ap.add_argument("--board", default="random", help="'random' (from --seed), 'beginner' or a board JSON file")
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4), help="players")
    ap.add_argument("--modality", type=int, default=3, choices=(1, 2, 3),
                    help="1 feasibility pruning, 2 + memoisation, 3 + upper bound and move ordering")
    ap.add_argument("--competitive", action="store_true", help="competitiveness-aware objective")
    ap.add_argument("--png", default=None, help="write the board with the placements marked")
    args = ap.parse_args(argv)
    from catan_env.core import game as G
    if args.png:
        require("PIL", "viz")
    try:
        s = G.new_game(seed=args.seed, players=args.players, board=args.board)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    print("compiling the placement solver (about 8 s; numba cannot cache this recursive "
          "kernel)...", file=sys.stderr, flush=True)
    res = OpeningSolver(modality=args.modality, competitive=args.competitive).solve_state(s)
    for p in range(args.players):
        print(f"player {p}: first v{res['first'][p]} (placed #{p + 1}), second v{res['second'][p]} "
              f"(placed #{2 * args.players - p}), objective {res['objective'][p]:.4f}")
    print(f"recursive calls: {res['calls']:,}")
    print(f"(#k = the k-th settlement placed: #1-#{args.players} first settlements, "
          f"#{args.players + 1}-#{2 * args.players} second settlements, snake order)")
    if args.png:
        from PIL import Image
        from catan_env.render import render_rgb
        t = s.copy()
        labels: Dict[int, str] = {}
        n = args.players
        for p in range(n):
            for k, (v, order) in enumerate(((res["first"][p], p + 1), (res["second"][p], 2 * n - p))):
                t[L.V_OWNER + v] = p
                t[L.V_LEVEL + v] = 1
                labels[int(v)] = f"#{order} v{int(v)}"
        Image.fromarray(render_rgb(t, labels=labels)).save(args.png)
        print(f"wrote {args.png}")
    return 0  # console scripts exit with main()'s value


if __name__ == "__main__":
    main()
