"""Arena: seat-randomised tournaments between agents, in parallel, reproducible.

    catan-arena --players jsettlers,random,random,random --games 200 --workers 2 --seed 0 --out results/

    catan-arena ... --backend ray [--address HOST:PORT]     # games as Ray tasks

Each game draws a random permutation of the players over the seats (seat order matters
in Catan) from the tournament seed, so a run is reproducible whatever the number of
workers.  The report gives, per distinct agent spec: games, wins, win rate with a 95%
Wilson interval, mean VP, mean rank, mean game length (turns) and trades made; and per
seat, the win rate.  Results go to ``summary.json``, ``games.csv`` and PNG plots.
"""
import csv
import importlib.util
import json
import math
import os
import sys
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import catan_env
from catan_env.core.options import DEFAULT_MAX_TURNS
from catan_env.learned.acceptance import OfferLog

from catan_env.agent_specs import compiles_kernels
from catan_env.cli import Progress, compile_notice, parser, positive_int, user_errors, writable_folder
from catan_env.plotting import pyplot, save

from .base import AgentProtocol
from .registry import make_agent


def wilson(wins: int, n: int, z: float = 1.96) -> Tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    # the interval always contains p (guards against rounding at p = 0 or 1)
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def sign_test(better: int, worse: int) -> float:
    """Two-sided sign test of two agents played on the same games: the chance of a split at
    least this uneven of the games only one of them won, were both equally strong."""
    n, k = better + worse, min(better, worse)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n) if n else 1.0


class Decision(NamedTuple):
    """One decision of a game: the seat, its action, what it decided from, and how long
    its agent took (seconds)."""
    seat: int
    action: int
    observation: Any
    infoset: Any
    seconds: float


def decisions(env: Any, agents: Sequence[Any],
              before: Optional[Callable[[Any, int, Any], None]] = None) -> Iterator[Decision]:
    """Each decision of a game on a reset AEC env: agents[seat] chooses from its own
    observation and infoset, and the move is played when the loop asks for the next one
    (so the loop sees the state it was chosen in; a loop that breaks leaves its last
    decision unplayed).  The game is over when the loop ends.  before(env, seat, agent)
    runs ahead of each decision (a recorder reads the true state there; agents never see
    it)."""
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        if before is not None:
            before(env, seat, agents[seat])
        t0 = time.perf_counter()
        infoset = env.infoset(name)
        action = int(agents[seat].act(obs, infoset))
        yield Decision(seat, action, obs, infoset, time.perf_counter() - t0)
        env.step(action)


def play_game(specs: Sequence[Union[str, AgentProtocol]], seed: int,
              max_turns: Optional[int] = DEFAULT_MAX_TURNS, options: Optional[Mapping[str, Any]] = None,
              time_decisions: bool = False, record_path: Optional[str] = None,
              on_decision: Optional[Callable[[int, Dict[str, Any], int, Any], None]] = None,
              obs_type: str = "vector",
              before_decision: Optional[Callable[[Any, int, Any], None]] = None) -> Dict[str, Any]:
    """One game; specs[i] plays seat i.  Returns a dict with the outcome per seat.
    record_path: also save the game's record there (JSON, replayable).
    on_decision(seat, observation, action, infoset): called after each agent decision (to
    record training data, for example); obs_type: the observations agents get.
    before_decision(env, seat, agent): called before each decision, with the env (a data
    recorder reads the true state there; agents never see it)."""
    options = dict(options or {})
    n = len(specs)
    env = catan_env.raw_env(players=n, max_turns=max_turns, obs_type=obs_type, **options)
    env.reset(seed=seed)
    agents: List[Any] = [make_agent(spec, seed=seed * 31 + i) for i, spec in enumerate(specs)]
    for i, a in enumerate(agents):
        if hasattr(a, "reset"):
            a.reset(seed * 31 + i)
    times: List[List[float]] = [[] for _ in range(n)]
    offers = OfferLog()
    for d in decisions(env, agents, before_decision):
        offers.see(d.seat, d.infoset.view, d.action)
        if time_decisions:
            times[d.seat].append(d.seconds)
        if on_decision is not None:
            on_decision(d.seat, d.observation, d.action, d.infoset)
    stats = env.game_stats()
    agent_stats = [a.game_stats() if hasattr(a, "game_stats") else None for a in agents]
    if record_path is not None:
        os.makedirs(os.path.dirname(os.path.abspath(record_path)), exist_ok=True)
        env.record().save(record_path)
    vp, win = stats["vp"], stats["winner"]
    order = sorted(range(n), key=lambda p: (-(p == win), -vp[p]))
    rank = [0] * n
    for r, p in enumerate(order):
        rank[p] = r + 1
    return {"seed": seed, "specs": list(specs), "winner": win, "vp": vp, "rank": rank,
            "turns": stats["turns"], "steps": stats["steps"], "truncated": win < 0,
            "offers": stats["offers"], "trades": stats["trades"],
            "trades_completed": sum(stats["trades"]) // 2, "fallbacks": stats["fallbacks"],
            "fallback_reasons": stats["fallback_reasons"], "agent_stats": agent_stats,
            "decision_times": times if time_decisions else None, "offer_log": offers.records}


def _job(args: Tuple[Any, ...]) -> Dict[str, Any]:
    return play_game(*args)


def schedule(players: Sequence[str], games: int, seed: int) -> List[Tuple[List[str], int]]:
    """(seat specs, game seed) per game: a seat permutation drawn from the seed."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        perm = rng.permutation(len(players))
        out.append(([players[i] for i in perm], int(rng.integers(0, 2 ** 62))))
    return out


BACKENDS = ("process", "ray")


def run_tournament(players: Sequence[str], games: int, workers: int = 1, seed: int = 0,
                   max_turns: Optional[int] = DEFAULT_MAX_TURNS, options: Optional[Mapping[str, Any]] = None,
                   progress: bool = True, save_games: Optional[str] = None, backend: str = "process",
                   address: Optional[str] = None) -> List[Dict[str, Any]]:
    """Play the games (in worker processes when workers > 1); return the game list.
    save_games: a folder that receives one replayable record per game
    (``game-00001.json``, ...; ``catan-render`` replays and draws them).
    backend "ray": each game is a Ray task, on a local Ray with ``workers`` CPUs or on the
    cluster at ``address``; the games and their results are those of the process backend."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    plan = schedule(players, games, seed)
    if progress:
        heavy = [spec for spec in players if compiles_kernels(spec)]
        compiled = compile_notice(agents=bool(heavy), beside=heavy)
        if compiled is not None:  # compile once here, not once per worker process
            play_game(plan[0][0], seed, max_turns=2, options=options)
            compiled()
    jobs = [(specs, gseed, max_turns, options, False,
             None if save_games is None else os.path.join(save_games, f"game-{i + 1:05d}.json"))
            for i, (specs, gseed) in enumerate(plan)]
    results = []
    bar = Progress(games) if progress else None
    for res in map_jobs(_job, jobs, workers, backend, address, chunks_per_worker=8):
        results.append(res)
        if bar is not None:
            bar.update(len(results))
    if bar is not None:
        bar.done()
    return results


def win_rate(agent: Union[str, AgentProtocol], opponent: str = "random", games: int = 100, seed: int = 0,
             players: int = 4, workers: int = 1) -> Dict[str, Any]:
    """``agent`` (a spec, or an agent object with workers=1) against ``players - 1`` copies
    of ``opponent`` over the tournament's seat-randomised games (the same games for every
    agent given the same seed): wins, games, rate, its 95% Wilson interval and the agent's
    mean final VP.  The one yardstick the training examples and
    ``benchmarks/rl_libraries.py`` share."""
    if agent == opponent:
        raise ValueError("agent and opponent must be different specs (the agent's seat is found by its spec)")
    results = run_tournament([agent] + [opponent] * (players - 1), games,  # type: ignore[arg-type]  # agent objects: workers=1
                             workers=workers, seed=seed, progress=False)
    seats = [r["specs"].index(agent) for r in results]
    wins = sum(int(r["winner"] == s) for r, s in zip(results, seats))
    lo, hi = wilson(wins, games)
    return {"wins": wins, "games": games, "rate": wins / games, "lo": lo, "hi": hi,
            "mean_vp": float(np.mean([r["vp"][s] for r, s in zip(results, seats)]))}


class WinRateCurve:
    """The training examples' shared learning curve: each ``evaluate`` plays an agent spec
    against three ``opponent`` agents (random by default) on the same seeded games
    (``win_rate``), appends a row to
    ``<folder>/curve.csv`` (minutes, env_steps, wins, games, win_rate, lo, hi) and prints
    it.  ``resume`` keeps an existing file and appends."""

    COLUMNS = ("minutes", "env_steps", "wins", "games", "win_rate", "lo", "hi")

    def __init__(self, folder: str, resume: bool, games: int, seed: int, opponent: str = "random") -> None:
        path = os.path.join(folder, "curve.csv")
        self.new = not (resume and os.path.exists(path))
        self.file = open(path, "w" if self.new else "a", newline="")
        self.writer = csv.writer(self.file)
        if self.new:
            self.writer.writerow(self.COLUMNS)
        self.games, self.seed, self.opponent = int(games), int(seed), opponent

    def evaluate(self, agent: str, minutes: float, steps: int) -> float:
        """One point of the curve; returns the win rate."""
        res = win_rate(agent, self.opponent, self.games, seed=self.seed)
        self.writer.writerow([f"{minutes:.2f}", steps, res["wins"], res["games"], f"{res['rate']:.3f}",
                              f"{res['lo']:.3f}", f"{res['hi']:.3f}"])
        self.file.flush()
        print(f"{minutes:6.2f} min  {steps:>9d} steps  vs 3 {self.opponent}: {res['wins']}/{res['games']} "
              f"= {res['rate']:.0%} [{res['lo']:.0%}, {res['hi']:.0%}]", flush=True)
        return float(res["rate"])

    def close(self) -> None:
        """Close the file (every row is already flushed)."""
        self.file.close()


@contextmanager
def ray_session(workers: int, address: Optional[str]) -> Iterator[Any]:
    """The ``ray`` module, connected: to the cluster at ``address`` / $RAY_ADDRESS, or to a
    local Ray with ``workers`` CPUs; a Ray started here is shut down on exit, one already
    running is left as it was."""
    try:
        import ray
    except ImportError:
        raise ImportError("--backend ray needs Ray: pip install 'catan_env[rllib]' (or 'ray')") from None
    started = not ray.is_initialized()
    address = address or os.environ.get("RAY_ADDRESS")
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def _map_chunk(fn: Callable[[Any], Any], chunk: Sequence[Any]) -> List[Any]:
    return [fn(job) for job in chunk]


def map_jobs(fn: Callable[[Any], Any], jobs: Sequence[Any], workers: int = 1, backend: str = "process",
             address: Optional[str] = None, chunks_per_worker: Optional[int] = None) -> Iterator[Any]:
    """fn over jobs, results in order: in this process (workers <= 1), a process pool, or
    Ray tasks (backend "ray", :func:`ray_session`).  ``chunks_per_worker``: hand the pools
    the jobs in about that many chunks per worker, so that short jobs (an arena game) do
    not pay a task's overhead each; None, one job a task (long jobs whose results are
    saved as they come)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "ray":
        with ray_session(workers, address) as ray:
            cpus = max(1, int(ray.cluster_resources().get("CPU", workers)))
            size = max(1, len(jobs) // (chunks_per_worker * cpus)) if chunks_per_worker else 1
            task = ray.remote(num_cpus=1)(_map_chunk)
            refs = [task.remote(fn, jobs[i:i + size]) for i in range(0, len(jobs), size)]
            for ref in refs:
                yield from ray.get(ref)
    elif workers <= 1:
        for job in jobs:
            yield fn(job)
    else:
        size = max(1, len(jobs) // (chunks_per_worker * workers)) if chunks_per_worker else 1
        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield from pool.map(fn, jobs, chunksize=size)


def summarise(results: Sequence[Dict[str, Any]], players: Sequence[str]) -> Dict[str, Any]:
    """Per-spec and per-seat statistics."""
    per: Dict[str, Dict[str, Any]] = defaultdict(lambda: {"seat_games": 0, "wins": 0, "vp": [], "rank": [], "trades": 0, "offers": 0,
                               "fallbacks": 0})
    n = len(players)
    seat_wins: Dict[str, List[int]] = defaultdict(lambda: [0] * n)
    seat_games: Dict[str, List[int]] = defaultdict(lambda: [0] * n)
    for res in results:
        for seat, spec in enumerate(res["specs"]):
            d = per[spec]
            d["seat_games"] += 1
            d["wins"] += int(res["winner"] == seat)
            d["vp"].append(res["vp"][seat])
            d["rank"].append(res["rank"][seat])
            d["trades"] += res["trades"][seat]
            d["offers"] += res["offers"][seat]
            d["fallbacks"] += res["fallbacks"][seat]
            seat_games[spec][seat] += 1
            seat_wins[spec][seat] += int(res["winner"] == seat)
    lengths = [r["turns"] for r in results]
    agents = {}
    for spec, d in per.items():
        lo, hi = wilson(d["wins"], d["seat_games"])
        agents[spec] = {
            "copies_per_game": players.count(spec), "seat_games": d["seat_games"], "wins": d["wins"],
            "win_rate": d["wins"] / d["seat_games"], "win_rate_ci95": [lo, hi],
            "mean_vp": float(np.mean(d["vp"])), "mean_rank": float(np.mean(d["rank"])),
            "trades_per_game": d["trades"] / max(1, d["seat_games"]),
            "offers_per_game": d["offers"] / max(1, d["seat_games"]),
            "fallbacks": d["fallbacks"],
            "win_rate_by_seat": [w / g if g else None for w, g in zip(seat_wins[spec], seat_games[spec])],
        }
    return {"players": players, "games": len(results), "mean_game_length_turns": float(np.mean(lengths)),
            "truncated_games": int(sum(r["truncated"] for r in results)),
            "completed_domestic_trades_per_game": float(np.mean([r["trades_completed"] for r in results])),
            "fallbacks": int(sum(sum(r["fallbacks"]) for r in results)),
            "fallback_reasons": _merged_counts(r["fallback_reasons"] for r in results),
            "agents": agents}


def _merged_counts(dicts: Iterable[Mapping[str, int]]) -> Dict[str, int]:
    out: Dict[str, int] = defaultdict(int)
    for d in dicts:
        for k, v in d.items():
            out[k] += v
    return dict(sorted(out.items()))


def write_outputs(results: Sequence[Dict[str, Any]], summary: Dict[str, Any], out: str) -> List[str]:
    """summary.json, games.csv, offers.jsonl (every game's offers and answers, for the
    acceptance models) and (with matplotlib) two plots in out; returns the paths written."""
    os.makedirs(out, exist_ok=True)
    written = [os.path.join(out, "summary.json"), os.path.join(out, "games.csv"), os.path.join(out, "offers.jsonl")]
    with open(os.path.join(out, "offers.jsonl"), "w") as f:  # (for the acceptance models)
        for g, res in enumerate(results):
            f.write(json.dumps({"game": g, "seed": res["seed"], "specs": res["specs"],
                                "offer_log": res.get("offer_log", [])}) + "\n")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(out, "games.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "seed", "seat", "agent", "winner", "vp", "rank", "turns", "trades",
                    "fallbacks"])
        for g, res in enumerate(results):
            for seat, spec in enumerate(res["specs"]):
                w.writerow([g, res["seed"], seat, spec, int(res["winner"] == seat), res["vp"][seat],
                            res["rank"][seat], res["turns"], res["trades"][seat], res["fallbacks"][seat]])
    plt = pyplot()
    if plt is None:
        print("matplotlib not installed: skipping plots (pip install \"catan_env[viz]\")", file=sys.stderr)
        return written
    specs = list(summary["agents"])
    fig, ax = plt.subplots(figsize=(7, 4))
    data = [[res["vp"][seat] for res in results for seat, sp in enumerate(res["specs"]) if sp == spec]
            for spec in specs]
    ax.boxplot(data)
    ax.set_xticks(range(1, len(specs) + 1), specs, rotation=15)
    ax.set_ylabel("final VP")
    import textwrap
    lineup = textwrap.fill(", ".join(summary["players"]), 80)  # long specs wrap inside the figure
    ax.set_title(f"VP distribution per agent\n{lineup} ({summary['games']} games)", fontsize=10)
    written.append(save(fig, os.path.join(out, "vp_distribution.png")))
    fig, ax = plt.subplots(figsize=(7, 4))
    n = len(summary["players"])
    width = 0.8 / max(1, len(specs))
    for i, spec in enumerate(specs):
        rates = [r if r is not None else 0 for r in summary["agents"][spec]["win_rate_by_seat"]]
        ax.bar(np.arange(n) + i * width, rates, width, label=spec)
    ax.set_xticks(np.arange(n) + width * (len(specs) - 1) / 2, [f"seat {i}" for i in range(n)])
    ax.set_ylabel("win rate")
    ax.set_title(f"Win rate by seat\n{lineup} ({summary['games']} games)", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    written.append(save(fig, os.path.join(out, "win_rate_by_seat.png")))
    return written


TABLE_LEGEND = """Columns: agent spec (* = the agent under test); copies = seats it holds in each
game; wins = games won, over all its copies; win rate = wins / (games x copies), with a
95% Wilson interval (1 / players is parity); mean VP = final victory points; rank = mean
finishing place (1 = winner, then by VP); trades/g = completed domestic trades it took part
in per game, counted by the env from the actions (either side of the trade); fallbacks =
moves the agent replaced because its plan was not legal (should be 0)."""


def format_table(summary: Dict[str, Any], under_test: Optional[str] = None) -> str:
    """The summary as a text table; under_test (a spec) is marked with *."""
    names = {spec: f"{spec} *" if spec == under_test else spec for spec in summary["agents"]}
    width = max([32] + [len(name) for name in names.values()])  # the column fits the longest spec
    lines = [f"{summary['games']} games, mean length {summary['mean_game_length_turns']:.1f} turns, "
             f"{summary['truncated_games']} truncated, "
             f"{summary['completed_domestic_trades_per_game']:.2f} domestic trades/game",
             f"{'agent':{width}s} {'copies':>6s} {'wins':>6s} {'win rate':>9s} {'95% CI':>15s} "
             f"{'mean VP':>8s} {'rank':>5s} {'trades/g':>8s} {'fallbacks':>9s}"]
    for spec, d in summary["agents"].items():
        lo, hi = d["win_rate_ci95"]
        ci = f"[{lo:.3f}, {hi:.3f}]"
        lines.append(f"{names[spec]:{width}s} {d['copies_per_game']:6d} {d['wins']:6d} {d['win_rate']:9.3f} "
                     f"{ci:>15s} {d['mean_vp']:8.2f} {d['mean_rank']:5.2f} "
                     f"{d['trades_per_game']:8.2f} {d['fallbacks']:9d}")
    if summary.get("fallback_reasons"):
        lines.append("fallbacks by reason: " + ", ".join(f"{k} {v}" for k, v in summary["fallback_reasons"].items()))
    return "\n".join(lines)


@user_errors("catan-arena")
def main(argv: Optional[Sequence[str]] = None) -> int:
    """``catan-arena``: run a tournament from the command line."""
    ap = parser("catan-arena", __doc__.split("\n\n")[0])
    ap.add_argument("--players", default="jsettlers,random,random,random",
                    help="comma-separated agent specs, one per seat (2-4)")
    ap.add_argument("--games", type=positive_int, default=100, help="games to play")
    ap.add_argument("--workers", type=positive_int, default=1, help="worker processes")
    ap.add_argument("--seed", type=int, default=0, help="tournament seed (seats and game seeds)")
    ap.add_argument("--max-turns", type=positive_int, default=DEFAULT_MAX_TURNS,
                    help="a game still running after this many turns ends without a winner")
    ap.add_argument("--no-trade", action="store_true", help="turn domestic trade off")
    ap.add_argument("--vp", type=int, default=10, choices=range(3, 21), metavar="3..20",
                    help="VP to win")
    ap.add_argument("--backend", default="process", choices=BACKENDS,
                    help="where games run: worker processes, or Ray tasks (local or --address)")
    ap.add_argument("--address", default=None,
                    help="Ray cluster address for --backend ray (default: $RAY_ADDRESS, else a "
                         "local Ray with --workers CPUs)")
    ap.add_argument("--out", default=None, help="folder for summary.json, games.csv and plots")
    ap.add_argument("--save-games", default=None, metavar="DIR",
                    help="also write one replayable JSON record per game into DIR")
    args = ap.parse_args(argv)
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if not 2 <= len(players) <= 4:
        ap.error("--players needs 2 to 4 agent specs")
    for spec in players:
        try:
            make_agent(spec)  # validate early with a clear error
        except (ValueError, ImportError) as exc:
            ap.error(str(exc))
    options = {"domestic_trade": not args.no_trade, "vp_to_win": args.vp}
    if args.address and args.backend != "ray":
        ap.error("--address is for --backend ray")
    for folder in (args.out, args.save_games):  # before any game is played
        problem = writable_folder(folder) if folder else None
        if problem:
            ap.error(problem)
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        ap.error("--backend ray needs Ray: pip install 'catan_env[rllib]' (or 'ray')")
    results = run_tournament(players, args.games, args.workers, args.seed, args.max_turns, options,
                             save_games=args.save_games, backend=args.backend, address=args.address)
    summary = summarise(results, players)
    print(format_table(summary))
    if args.out:
        print("wrote " + ", ".join(write_outputs(results, summary, args.out)))
    return 0  # console scripts exit with main()'s value


if __name__ == "__main__":
    main()
