"""``catan-play``: one person plays a seat against agents, in the terminal (the
``human`` agent in an arena game) or in a browser (``--web``, the web server).  An
application: it sits above the agents and the web server, which import nothing of it."""
import sys
from typing import List, Optional

from ..agents.arena import play_game
from ..cli import parser


def main(argv: Optional[List[str]] = None) -> int:
    p = parser("catan-play", "Play one seat of a game against our agents in the terminal.")
    p.add_argument("--opponents", default="jsettlers,jsettlers,jsettlers",
                   help="comma-separated agent specs for the other seats")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 places first)")
    p.add_argument("--seed", type=int, default=0, help="seed of the board, the dice and the agents")
    p.add_argument("--web", action="store_true", help="play in a browser instead (needs the [web] extra)")
    p.add_argument("--players", default="human,pretrained,jsettlers,jsettlers",
                   help="with --web: one spec per seat, 'human' for a person's seat (none: spectate)")
    p.add_argument("--host", default="127.0.0.1", help="with --web: address to bind (127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="with --web: port")
    p.add_argument("--delay", type=float, default=0.4, help="with --web: seconds between agents' moves")
    p.add_argument("--open", action="store_true", help="with --web: open the first page in a browser")
    p.add_argument("--vp", type=int, default=10, help="with --web: victory points to win (3-20)")
    p.add_argument("--no-trade", action="store_true", help="with --web: no domestic trade")
    p.add_argument("--board", default="random", choices=("random", "beginner"),
                   help="with --web: the board (random: drawn from --seed)")
    p.add_argument("--allow", action="append", default=[], metavar="NAME=SPEC",
                   help="with --web: offer one more agent in the page's new-game form (repeatable); "
                        "a page picks agents by name from this server-side list only")
    p.add_argument("--grace", type=float, default=120.0,
                   help="with --web: seconds a person's seat waits for a reloaded or reconnected page")
    p.add_argument("--check", action="store_true",
                   help="with --web: build the first game, print the addresses and exit")
    args = p.parse_args(argv)
    if args.web:
        from .web.limits import Limits
        from .web.server import serve
        allow = {}
        for item in args.allow:
            name, eq, spec = item.partition("=")
            if not eq:
                p.error(f"--allow {item!r}: write NAME=SPEC, e.g. --allow mcts5k=mcts:playouts=5000")
            allow[name.strip()] = spec.strip()
        options = {"vp_to_win": args.vp, "domestic_trade": not args.no_trade, "board": args.board}
        serve([x.strip() for x in args.players.split(",")], host=args.host, port=args.port, seed=args.seed,
              delay=args.delay, open_browser=args.open, options=options, allow=allow,
              limits=Limits(grace_seconds=args.grace), check=args.check)
        return 0
    others = args.opponents.split(",")
    specs = others[:args.seat] + ["human"] + others[args.seat:]
    result = play_game(specs, args.seed)
    print(f"winner: seat {result['winner']}; VP {result['vp']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
