"""A ladder of agents: seat-randomised 4-player games among mixed tables, rated with
OpenSkill's Plackett-Luce model.

    catan-ladder --games 400 --workers 2 --out results/ladder          # the shipped agents
    catan-ladder --agents jsettlers,weighted,random,trader,pretrained --games 100 --out results/mine
    catan-ladder --out results/ladder --report                          # ratings from the file only

Game i draws its table (four different agents from the pool, in a random seat order)
and its game seed from ``(seed, i)`` alone, so a ladder is reproducible from its seed
whatever the number of workers, and more games extend it.  Each finished game is
appended to ``games.jsonl``; ratings are recomputed from that file in game order
(:func:`ratings`), so a stopped run resumes and a report needs no game replayed.  A game
ranks the winner first and the others by final VP (equal VP share a place; a game that
hit the turn cap ranks everyone by VP).  Plackett-Luce (Weng and Lin's Bayesian
approximation, as the ``openskill`` package implements it) rates multiplayer finishing
orders directly, where Elo would need each game cut into pairs; ``openskill`` is a small,
well-kept, MIT-licensed library with no dependencies (the ``[ladder]`` extra).  Each
agent's rating is ``mu`` with uncertainty ``sigma``; the table is sorted by ``mu`` and
gives the conservative ``mu - 3 sigma`` as well.
"""
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from catan_env.cli import UserError, compile_notice, parser, positive_int, require, user_errors
from catan_env.plotting import pyplot, save

from .arena import BACKENDS, _job, map_jobs
from .registry import make_agent

# The shipped agents, as the ladder names them (a name is a spec the registry reads).
SHIPPED = ("random", "weighted", "jsettlers", "jsettlers:strategy=smart", "trader",
           "mcts:variant=best:playouts=1000", "mcts:variant=mp_uct:playouts=1000", "value_mcts:playouts=1000",
           "pretrained", "pretrained:search=0", "pretrained_policy", "opening_solver")
SEATS = 4
MAX_TURNS = 300  # agents that stall (a random table of weak agents) end here, ranked by VP


def table_of(seed: int, game: int, pool: Sequence[str], seats: int = SEATS) -> Tuple[List[str], int]:
    """Game ``game``'s seats (distinct agents of the pool, in seat order) and game seed."""
    rng = np.random.default_rng([seed, game])
    picked = rng.choice(len(pool), size=seats, replace=False)
    return [pool[i] for i in picked], int(rng.integers(0, 2 ** 62))


def finishing_ranks(winner: int, vp: Sequence[int]) -> List[int]:
    """1 for the winner, then by final VP (equal VP share a place); no winner: by VP."""
    ranks = []
    for p, v in enumerate(vp):
        if p == winner:
            ranks.append(1)
            continue
        better = sum(1 for q, w in enumerate(vp) if q != p and (q == winner or w > v))
        ranks.append(1 + better)
    return ranks


def _model() -> Any:
    skill = require("openskill.models", "ladder")
    return skill.PlackettLuce()


def ratings(games: Sequence[Dict[str, Any]], pool: Optional[Sequence[str]] = None) -> List[Dict[str, Any]]:
    """Every agent's rating after the games, applied in game order: a list of {agent, mu,
    sigma, ordinal (mu - 3 sigma), games, wins}, best ``mu`` first.  ``pool`` adds agents
    that have not played yet (at the prior)."""
    model = _model()
    rated: Dict[str, Any] = {}
    played: Dict[str, List[int]] = {}
    for name in pool or ():
        rated[name] = model.rating(name=name)
        played[name] = [0, 0]
    for g in sorted(games, key=lambda g: g["game"]):
        teams = []
        for spec in g["specs"]:
            if spec not in rated:
                rated[spec] = model.rating(name=spec)
                played[spec] = [0, 0]
            teams.append([rated[spec]])
        new = model.rate(teams, ranks=finishing_ranks(g["winner"], g["vp"]))
        for seat, spec in enumerate(g["specs"]):
            rated[spec] = new[seat][0]
            played[spec][0] += 1
            played[spec][1] += int(g["winner"] == seat)
    rows = [{"agent": k, "mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma,
             "games": played[k][0], "wins": played[k][1]} for k, r in rated.items()]
    return sorted(rows, key=lambda r: -r["mu"])


def format_ratings(rows: Sequence[Dict[str, Any]], games: int) -> str:
    """The ratings as a text table."""
    lines = [f"{games} games; OpenSkill Plackett-Luce (prior mu 25, sigma 8.33); sorted by mu",
             f"{'#':>2s} {'agent':36s} {'mu':>6s} {'sigma':>6s} {'mu-3sigma':>9s} {'games':>6s} {'wins':>5s} {'win %':>6s}"]
    for i, r in enumerate(rows):
        rate = f"{100 * r['wins'] / r['games']:5.1f}%" if r["games"] else "    - "
        lines.append(f"{i + 1:2d} {r['agent']:36s} {r['mu']:6.2f} {r['sigma']:6.2f} {r['ordinal']:9.2f} "
                     f"{r['games']:6d} {r['wins']:5d} {rate}")
    return "\n".join(lines)


def plot_ratings(rows: Sequence[Dict[str, Any]], games: int, path: str) -> Optional[str]:
    """mu with a 2-sigma bar per agent (needs matplotlib); returns the path or None."""
    plt = pyplot()
    if plt is None:
        return None
    order = list(rows)[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(order) + 1.2))
    y = np.arange(len(order))
    ax.errorbar([r["mu"] for r in order], y, xerr=[2 * r["sigma"] for r in order], fmt="o", capsize=3)
    ax.set_yticks(y, [r["agent"] for r in order], fontsize=8)
    ax.set_xlabel("OpenSkill mu (bars: 2 sigma)")
    ax.set_title(f"Ladder: {games} seat-randomised 4-player games", fontsize=10)
    return save(fig, path)


class Ladder:
    """One ladder's folder: ``settings.json`` (the pool, seed and rules) and ``games.jsonl``
    (one finished game a line)."""

    def __init__(self, folder: str, pool: Optional[Sequence[str]] = None, seed: int = 0,
                 max_turns: int = MAX_TURNS, options: Optional[Dict[str, Any]] = None) -> None:
        self.folder = folder
        self.games_path = os.path.join(folder, "games.jsonl")
        settings_path = os.path.join(folder, "settings.json")
        if os.path.exists(settings_path):
            with open(settings_path) as f:
                saved = json.load(f)
            if pool is not None and (list(pool), seed, max_turns, dict(options or {})) != (
                    saved["pool"], saved["seed"], saved["max_turns"], saved["options"]):
                raise UserError(f"{folder} holds a ladder with other settings ({saved}); use another folder "
                                f"or the same pool, seed and rules")
            self.settings = saved
        else:
            if pool is None:
                raise UserError(f"{folder} holds no ladder (no settings.json)")
            if len(set(pool)) != len(pool) or len(pool) < SEATS:
                raise UserError(f"a ladder needs at least {SEATS} different agents, got {list(pool)}")
            self.settings = {"pool": list(pool), "seed": int(seed), "max_turns": int(max_turns),
                             "options": dict(options or {})}
            os.makedirs(folder, exist_ok=True)
            with open(settings_path, "w") as f:
                json.dump(self.settings, f, indent=1)

    @property
    def pool(self) -> List[str]:
        """The agents rated."""
        return list(self.settings["pool"])

    def games(self) -> List[Dict[str, Any]]:
        """The finished games in the file (a half-written last line is ignored; a broken
        line before it raises UserError naming it)."""
        if not os.path.exists(self.games_path):
            return []
        out = []
        with open(self.games_path) as f:
            lines = f.read().split("\n")
        for k, line in enumerate(lines):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                if k == len(lines) - 1:
                    break  # the last line, cut off mid-write: the next run replays that game
                raise UserError(f"{self.games_path} line {k + 1} is not a game record: {line[:80]!r}") from None
        return out

    def _drop_partial_line(self) -> None:
        """Cut a half-written last line (a run killed mid-write) so appends start clean."""
        if not os.path.exists(self.games_path):
            return
        with open(self.games_path, "rb+") as f:
            data = f.read()
            keep = data.rfind(b"\n") + 1
            if keep < len(data):
                f.truncate(keep)

    def jobs(self, games: int) -> List[Tuple[int, Tuple[Any, ...]]]:
        """The arena jobs of the games up to ``games`` not in the file yet."""
        done = {g["game"] for g in self.games()}
        s = self.settings
        out = []
        for i in range(games):
            if i not in done:
                specs, game_seed = table_of(s["seed"], i, s["pool"])
                out.append((i, (specs, game_seed, s["max_turns"], s["options"], False, None)))
        return out

    def play(self, games: int, workers: int = 1, backend: str = "process", address: Optional[str] = None,
             progress: bool = True) -> int:
        """Play the missing games up to ``games``, each appended as it finishes; returns
        how many were played."""
        self._drop_partial_line()
        todo = self.jobs(games)
        if not todo:
            return 0
        if progress:
            compiled = compile_notice(beside=list(self.pool))
            if compiled is not None:
                for spec in self.pool:
                    make_agent(spec)
                compiled()
        with open(self.games_path, "a") as f:
            for n, (i, res) in enumerate(zip((i for i, _ in todo), map_jobs(_job, [j for _, j in todo], workers, backend,
                                                                              address, chunks_per_worker=8))):
                f.write(json.dumps({"game": i, "seed": res["seed"], "specs": res["specs"], "winner": res["winner"],
                                    "vp": res["vp"], "turns": res["turns"], "truncated": res["truncated"],
                                    "fallbacks": res["fallbacks"]}) + "\n")
                f.flush()
                if progress and ((n + 1) % 10 == 0 or n + 1 == len(todo)):
                    print(f"{n + 1}/{len(todo)} games played", flush=True)
        return len(todo)


@user_errors("catan-ladder")
def main(argv: Optional[Sequence[str]] = None) -> int:
    """``catan-ladder``: play and rate a ladder from the command line."""
    ap = parser("catan-ladder", __doc__.split("\n\n")[0])
    ap.add_argument("--agents", default=",".join(SHIPPED), help="comma-separated agent specs to rate (at least 4)")
    ap.add_argument("--games", type=positive_int, default=100, help="games in the ladder (more extend it)")
    ap.add_argument("--out", default="results/ladder", help="folder of settings.json, games.jsonl, ratings")
    ap.add_argument("--seed", type=int, default=0, help="the ladder's seed (tables, seats and game seeds)")
    ap.add_argument("--max-turns", type=positive_int, default=MAX_TURNS, help="turn cap of a game")
    ap.add_argument("--workers", type=positive_int, default=1, help="worker processes (or Ray CPUs)")
    ap.add_argument("--backend", default="process", choices=BACKENDS, help="where games run")
    ap.add_argument("--address", default=None, help="Ray cluster address for --backend ray")
    ap.add_argument("--report", action="store_true", help="only print the ratings of the games in --out")
    ap.add_argument("--plot", default=None, help="also draw the ratings into this PNG")
    args = ap.parse_args(argv)
    _model()  # the [ladder] extra, named before any game is played
    if args.report:
        ladder = Ladder(args.out)
    else:
        pool = [p.strip() for p in args.agents.split(",") if p.strip()]
        for spec in pool:
            try:
                make_agent(spec)  # a bad spec is named before any game
            except (ValueError, ImportError) as exc:
                raise UserError(str(exc)) from None
        ladder = Ladder(args.out, pool, seed=args.seed, max_turns=args.max_turns)
        ladder.play(args.games, workers=args.workers, backend=args.backend, address=args.address)
    games = ladder.games()
    rows = ratings(games, ladder.pool)
    print(format_ratings(rows, len(games)))
    with open(os.path.join(ladder.folder, "ratings.json"), "w") as f:
        json.dump({"games": len(games), "ratings": rows}, f, indent=1)
    if args.plot:
        print(f"wrote {plot_ratings(rows, len(games), args.plot) or 'nothing (matplotlib missing)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
