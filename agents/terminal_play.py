"""``catan-play``: one person plays a seat in the terminal against agents (the
``human`` agent in an arena game)."""
import sys

from catan_env.cli import parser

from .arena import play_game


def main(argv=None):
    p = parser("catan-play", "Play one seat of a game against our agents in the terminal.")
    p.add_argument("--opponents", default="jsettlers,jsettlers,jsettlers",
                   help="comma-separated agent specs for the other seats")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 places first)")
    p.add_argument("--seed", type=int, default=0, help="seed of the board, the dice and the agents")
    args = p.parse_args(argv)
    others = args.opponents.split(",")
    specs = others[:args.seat] + ["human"] + others[args.seat:]
    result = play_game(specs, args.seed)
    print(f"winner: seat {result['winner']}; VP {result['vp']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
