"""Strength of agent specs against three opponents, per game appended, resumable.

    python benchmarks/value_strength.py --specs pretrained:seconds=0.01,pretrained:seconds=0.1 --games 200
    python benchmarks/value_strength.py --specs pretrained,pretrained:offers=0 --games 400 --out results/trading.jsonl
    python benchmarks/value_strength.py --report --out results/budget.jsonl --plot docs/value_budget.png
    python benchmarks/value_strength.py --rules pioneers --games 1000 --out results/pioneers_rules.jsonl

Every spec plays the same seat-randomised games (the arena's schedule from ``--seed``)
against three ``--opponent`` agents, so two specs' figures are a paired comparison.
Each finished game is one line of ``--out`` (spec, game, winner, seat, VP, the spec's
decision times, its trade counts, the rule set: ``--rules``, the official rules or the
Pioneers server's, ``core.options.PIONEERS_RULES``); a stopped run resumes, more games
extend it (a run counts as done only the games of its own schedule seed and rule set).  The
report gives per spec: games, wins, win rate with its 95% Wilson interval, mean and
95th-percentile seconds per decision (decisions that took over 20 us, i.e. that
thought: a single legal move takes about 1 us), and trades.  The anytime curve in docs/learned-agents.md comes from this script.
"""
import argparse
import json
import os
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext

import numpy as np

from catan_env.agents.arena import play_game, schedule, wilson
from catan_env.agents.registry import make_agent
from catan_env.cli import HelpFormatter
from catan_env.core.options import PIONEERS_RULES
from catan_env.plotting import pyplot, save


RULES = {"official": {}, "pioneers": PIONEERS_RULES}  # --rules: the game options of each rule set


def rules_of(row):
    """The rule set a result line was played under (lines written before --rules: official)."""
    return row.get("rules", "official")


def play(spec, opponent, game, seed, rules="official"):
    """Game ``game`` of the schedule with ``spec`` in its drawn seat, under ``rules`` (a
    key of RULES); one result line."""
    specs, game_seed = schedule([spec] + [opponent] * 3, game + 1, seed)[game]
    seat = specs.index(spec)
    agents = [make_agent(s, seed=game_seed * 31 + i) if i == seat else s for i, s in enumerate(specs)]
    t = time.perf_counter()
    res = play_game(agents, game_seed, time_decisions=True, options=dict(RULES[rules]))
    times = [x for x in res["decision_times"][seat]]
    agent = agents[seat]
    network = getattr(agent, "network", None)  # (a value network's digest: which weights played)
    return {"spec": spec, "network": network.digest() if network is not None else None, "opponent": opponent, "rules": rules, "game": game, "schedule_seed": seed,
            "seed": game_seed, "seat": seat,
            "won": int(res["winner"] == seat), "vp": res["vp"][seat], "turns": res["turns"],
            "trades": res["trades"][seat], "offers": res["offers"][seat], "fallbacks": res["fallbacks"][seat],
            "decision_seconds": [round(x, 5) for x in times], "game_seconds": round(time.perf_counter() - t, 2),
            "trade_counts": getattr(agent, "trade_counts", None),
            "depths": {str(k): v for k, v in (getattr(agent, "depth_counts", None) or {}).items()}}


def _play(job):
    return play(*job)


def load(path):
    """The result lines of path; a half-written last line (a run killed mid-write) is cut
    from the file, so the next run appends cleanly and replays that game."""
    if not os.path.exists(path):
        return []
    with open(path, "rb+") as f:
        data = f.read()
        keep = data.rfind(b"\n") + 1
        if keep < len(data):
            f.truncate(keep)
    return [json.loads(line) for line in data[:keep].decode().splitlines() if line.strip()]


def report(rows):
    by = defaultdict(list)
    for r in rows:
        by[(r["spec"], r["opponent"], rules_of(r))].append(r)
    lines = [f"{'spec':44s} {'vs':12s} {'rules':9s} {'games':>5s} {'wins':>5s} {'rate':>6s} {'95% CI':>15s} "
             f"{'s/decision':>10s} {'p95 s':>8s} {'trades/g':>8s} {'offers/g':>8s}"]
    for (spec, opp, rules), rs in by.items():
        wins, n = sum(r["won"] for r in rs), len(rs)
        lo, hi = wilson(wins, n)
        # decisions the agent thought about: the timed ones above 20 us (a single legal move is ~1 us);
        # committed files drop the per-decision times (their size): those rows print "-"
        t = np.array([x for r in rs for x in r.get("decision_seconds", ()) if x > 2e-5])
        times = f"{t.mean():10.4f} {np.percentile(t, 95):8.4f}" if len(t) else f"{'-':>10s} {'-':>8s}"
        lines.append(f"{spec:44s} {opp:12s} {rules:9s} {n:5d} {wins:5d} {wins / n:6.3f} [{lo:.3f}, {hi:.3f}] "
                     f"{times} {np.mean([r['trades'] for r in rs]):8.2f} "
                     f"{np.mean([r['offers'] for r in rs]):8.2f}")
    return "\n".join(lines)


def plot(rows, path):
    """Win rate (95% interval) against the budget per decision of the ``seconds=`` specs."""
    import re

    points = defaultdict(list)
    for r in rows:
        m = re.search(r"seconds=([0-9.e-]+)", r["spec"])
        if m:  # (each rule set its own curve)
            rules = "" if rules_of(r) == "official" else f", {rules_of(r)} rules"
            points[(float(m.group(1)), r["opponent"] + rules)].append(r["won"])
    plt = pyplot()
    if plt is None:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.8))
    for opp in sorted({o for _, o in points}):
        xs = sorted(s for s, o in points if o == opp)
        rate = [np.mean(points[(s, opp)]) for s in xs]
        ci = [wilson(int(np.sum(points[(s, opp)])), len(points[(s, opp)])) for s in xs]
        ax.errorbar(xs, rate, yerr=[[r - lo for r, (lo, _) in zip(rate, ci)], [hi - r for r, (_, hi) in zip(rate, ci)]],
                    fmt="o-", capsize=3, label=f"against 3 {opp}")
        for s, r in zip(xs, rate):
            ax.annotate(f"{len(points[(s, opp)])} games", (s, r), textcoords="offset points", xytext=(5, -12), fontsize=7)
    ax.axhline(0.25, color="grey", lw=0.8, ls="--", label="parity (25%)")
    ax.set(xscale="log", xlabel="budget per decision (s, anytime search)", ylabel="win rate",
           title="pretrained: strength against time per decision", ylim=(0, 1))
    ax.legend(fontsize=8)
    return save(fig, path)


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--specs", default="pretrained", help="comma-separated agent specs to measure")
    ap.add_argument("--opponent", default="jsettlers", help="the three opponents' spec")
    ap.add_argument("--games", type=int, default=100, help="games per spec")
    ap.add_argument("--seed", type=int, default=31_000, help="the games' schedule seed")
    ap.add_argument("--rules", default="official", choices=sorted(RULES),
                    help="the rule set of the games: the official rules or the Pioneers server's")
    ap.add_argument("--out", default="results/value_strength.jsonl", help="the per-game results file")
    ap.add_argument("--interleave", action="store_true", help="game by game across specs (all grow together)")
    ap.add_argument("--workers", type=int, default=1, help="processes (games are appended as they finish)")
    ap.add_argument("--report", action="store_true", help="only print the report of --out")
    ap.add_argument("--plot", default=None, help="also draw win rate against the seconds= budgets into this PNG")
    ap.add_argument("--also", nargs="*", default=[], help="more result files to report and plot with --out")
    args = ap.parse_args(argv)
    if not args.report:
        specs = [s.strip() for s in args.specs.split(",") if s.strip()]
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        done = {(r["spec"], r["opponent"], r["game"]) for r in load(args.out)
                if r.get("schedule_seed") == args.seed and rules_of(r) == args.rules}
        order = [(s, g) for g in range(args.games) for s in specs] if args.interleave else \
            [(s, g) for s in specs for g in range(args.games)]
        todo = [(spec, args.opponent, g, args.seed, args.rules) for spec, g in order if (spec, args.opponent, g) not in done]
        with open(args.out, "a") as f, ProcessPoolExecutor(args.workers) if args.workers > 1 else nullcontext() as pool:
            for row in (pool.map(_play, todo) if pool is not None else map(_play, todo)):  # (one worker: this process)
                f.write(json.dumps(row) + "\n")
                f.flush()
    rows = load(args.out) + [r for path in args.also for r in load(path)]
    print(report(rows))
    if args.plot:
        print(f"wrote {plot(rows, args.plot)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
