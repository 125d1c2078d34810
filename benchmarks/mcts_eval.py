"""Resumable strength evaluations of the MCTS presets (results appended per game).

    nice -n 19 python benchmarks/mcts_eval.py variants --playouts 1000 --games 200 --workers 2
    python benchmarks/mcts_eval.py variants --playouts 1000 --report      # table only

Experiments (each game appends one JSON line to ``OUT/<experiment>.jsonl``; a rerun skips
the games already there, so a stopped run continues where it was):
  variants  each preset against three JSettlersAgent, seats random ("Optimizing UCT" Table I)
  cp        MP-UCT against three JSettlersAgent for Cp in 0, 0.1, 0.25, 0.5, 1.0
  budget    one MCTS with twice the playouts against three with the base budget
            ("Deep Catan" Table 2), seats random
  value     the learned agent (``--net``, the shipped network by default): against three
            JSettlersAgent, its network alone (search=0) against three JSettlersAgent and
            three weighted, against three ``best`` MCTS at equal seconds per decision
            (--seconds), and MCTS with the network at the leaves against plain ``best``
            2-vs-2 at equal playouts (--playouts)
  seats     fixed seats: four random agents, and four MCTS agents ("MCTS in Settlers of
            Catan", the seat-order effect): win rate and VP by seat
  deep      Deep Catan (networks from examples/exit_train.py in --nets): ExIt.2 vs ExIt.1
            and UCTNet vs UCT, each 2-vs-2 at equal playouts; the ExIt agent against the
            best plain preset 2-vs-2 at equal seconds per decision (--seconds); and the
            ExIt agent at 1,000 playouts against three JSettlersAgent
Games of all labels are interleaved, so a partial run covers every label evenly.
"""
import argparse
import json
import os
import sys
import zlib
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from catan_env.agents.arena import play_game, schedule, wilson
from catan_env.agents.mcts import PRESETS
from catan_env.cli import HelpFormatter
from catan_env.plotting import pyplot, save

JS = "jsettlers"
# published win rates against three JSettlers robots: (1,000 playouts, 10,000 playouts)
PAPER = {"szita": (0.27, 0.49), "mp_uct": (0.261, 0.384), "mp_ensemble": (0.328, 0.413),
         "mpt_ensemble": (0.40, 0.582)}
CPS = (0.0, 0.1, 0.25, 0.5, 1.0)


def lineups(args):
    """{label: (players, seats_random)} for the experiment; players[0] is under test."""
    b = args.playouts
    if args.experiment == "variants":
        names = args.variants or [v for v in PRESETS if v != "best"] + ["best"]
        return {f"{v}@{b}": ([f"mcts:variant={v}:playouts={b}", JS, JS, JS], True) for v in names}
    if args.experiment == "cp":
        return {f"mp_uct@{b}:c={c}": ([f"mcts:variant=mp_uct:playouts={b}:c={c}", JS, JS, JS], True)
                for c in CPS}
    if args.experiment == "budget":
        out = {}
        for base in args.budgets:
            weak = f"mcts:variant={args.variant}:playouts={base}"
            out[f"{args.variant}@{2 * base}_vs_3x{base}"] = (
                [f"mcts:variant={args.variant}:playouts={2 * base}", weak, weak, weak], True)
        return out
    if args.experiment == "deep":
        n1, n2 = (os.path.join(args.nets, f"nets-{k}.npz") for k in (1, 2))
        e1, e2 = (f"exit:path={n}:playouts={b}:rollout_turns={args.rollout_turns}" for n in (n1, n2))
        uct, net = f"mcts:variant=plain_uct:playouts={b}", f"uctnet:path={n2}:playouts={b}"
        t = args.seconds
        timed_exit = f"exit:path={n2}:seconds={t}:rollout_turns={args.rollout_turns}"
        timed_best = f"mcts:variant=best:seconds={t}"
        return {f"exit2_vs_exit1@{b}": ([e2, e2, e1, e1], True),
                f"uctnet_vs_uct@{b}": ([net, net, uct, uct], True),
                f"exit2_vs_best@{t}s": ([timed_exit, timed_exit, timed_best, timed_best], True),
                "exit2@1000_vs_3js": ([f"exit:path={n2}:playouts=1000:rollout_turns={args.rollout_turns}",
                                        JS, JS, JS], True)}
    if args.experiment == "value":
        net = "pretrained" if args.net is None else f"value:path={args.net}"
        t = args.seconds
        mcts_net = "value_mcts" + ("" if args.net is None else f":path={args.net}")
        return {"value_vs_3js": ([net, JS, JS, JS], True),
                "value_search0_vs_3js": ([f"{net}:search=0", JS, JS, JS], True),
                "value_search0_vs_3weighted": ([f"{net}:search=0", "weighted", "weighted", "weighted"], True),
                f"value_vs_3best@{t}s": ([f"{net}:seconds={t}", *[f"mcts:variant=best:seconds={t}"] * 3], True),
                f"value_mcts_vs_best@{b}": ([f"{mcts_net}:playouts={b}", f"{mcts_net}:playouts={b}",
                                             f"mcts:variant=best:playouts={b}", f"mcts:variant=best:playouts={b}"], True)}
    if args.experiment == "seats":
        m = f"mcts:variant={args.variant}:playouts={b}"
        return {"random": (["random"] * 4, False), f"{args.variant}@{b}": ([m] * 4, False)}
    raise SystemExit(f"unknown experiment {args.experiment!r}")


def plan(label, players, seats_random, games, seed):
    base = seed * 1_000_003 + zlib.crc32(label.encode())
    if seats_random:
        return schedule(players, games, base)
    rng = np.random.default_rng(base)
    return [(list(players), int(rng.integers(0, 2 ** 62))) for _ in range(games)]


def _play(job):
    label, i, specs, seed, under_test = job
    res = play_game(specs, seed)
    res.pop("decision_times", None)
    res.update(label=label, game=i, under_test=under_test)
    return res


def load(path):
    done = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        done.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass   # a line cut by a kill: that game is played again
    return done


def under_test(rows, table, label):
    """(row, seats the agent under test held) for the label's games; players[0] is under test."""
    spec = table[label][0][0]
    return [(r, [s for s, sp in enumerate(r["specs"]) if sp == spec]) for r in rows if r["label"] == label]


def report(rows, table):
    """Markdown table: per label, the agent under test (players[0]); where it holds
    several seats (2-vs-2) a game counts once, won when any of them wins (the team's
    win rate), and VP is the mean over its seats."""
    lines = ["| label | games | wins | win rate [95% CI] | mean VP | offers/game | trades/game | turns |",
             "|---|---:|---:|---|---:|---:|---:|---:|"]
    for label in table:
        games = under_test(rows, table, label)
        if not games:
            continue
        team = table[label][0].count(table[label][0][0]) > 1
        n = len(games) if team else sum(len(s) for _, s in games)
        wins = sum(int(r["winner"] in s) for r, s in games)
        vp, offers, trades = (np.mean([r[key][k] for r, s in games for k in s])
                              for key in ("vp", "offers", "trades"))
        lo, hi = wilson(wins, n)
        lines.append(f"| {label} | {len(games)} | {wins} | {wins / n:.3f} [{lo:.3f}, {hi:.3f}] | {vp:.2f} | "
                     f"{offers:.2f} | {trades:.2f} | {np.mean([r['turns'] for r, _ in games]):.0f} |")
    return "\n".join(lines)


def trade_report(rows, table):
    """Offers made / accepted and answers searched / accepted by the agent under test,
    from the games that recorded the agents' own counts."""
    lines = ["| label | games | offers made | accepted | others' offers answered | accepted |",
             "|---|---:|---:|---:|---:|---:|"]
    for label in table:
        stats = [r["agent_stats"][k] for r, s in under_test(rows, table, label) if r.get("agent_stats")
                 for k in s if r["agent_stats"][k]]
        if stats and any(s["offers_made"] or s["offers_answered"] for s in stats):
            tot = {k: sum(s[k] for s in stats) for k in stats[0]}
            lines.append(f"| {label} | {len(stats)} | {tot['offers_made']} | {tot['offers_accepted']} | "
                         f"{tot['offers_answered']} | {tot['offers_taken']} |")
    return "\n".join(lines) if len(lines) > 2 else ""


def seat_report(rows, table):
    lines = ["| lineup | games | seat | win rate [95% CI] | mean VP |", "|---|---:|---:|---|---:|"]
    for label in table:
        rs = [r for r in rows if r["label"] == label]
        for seat in range(4):
            wins = sum(int(r["winner"] == seat) for r in rs)
            if rs:
                lo, hi = wilson(wins, len(rs))
                vp = np.mean([r["vp"][seat] for r in rs])
                lines.append(f"| {label} | {len(rs)} | {seat} | {wins / len(rs):.3f} [{lo:.3f}, {hi:.3f}] | {vp:.2f} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("experiment", choices=["variants", "cp", "budget", "seats", "deep", "value"], help="which table to extend")
    ap.add_argument("--net", default=None, help="value: a value network file (default: the shipped one)")
    ap.add_argument("--nets", default="results/deep/exit", help="deep: the folder of nets-1.npz, nets-2.npz")
    ap.add_argument("--seconds", type=float, default=0.05, help="deep: seconds per decision of the timed pair")
    ap.add_argument("--rollout-turns", type=int, default=2, help="deep: playout turns before the value net")
    ap.add_argument("--playouts", type=int, default=1000, help="playouts per decision")
    ap.add_argument("--variants", nargs="*", help="presets to play (variants experiment)")
    ap.add_argument("--variant", default="best", help="preset of the budget and seats experiments")
    ap.add_argument("--budgets", type=int, nargs="*", default=[50, 100, 200, 400], help="base budgets of the budget-scaling experiment")
    ap.add_argument("--games", type=int, default=200, help="games per label")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--seed", type=int, default=0, help="seed of the run (game i derives from it)")
    ap.add_argument("--out", default="results/mcts", help="folder of the .jsonl results")
    ap.add_argument("--tag", default="", help="suffix of the results file")
    ap.add_argument("--labels", nargs="*", help="play only these labels of the experiment")
    ap.add_argument("--report", action="store_true", help="print the table of what was played and stop")
    ap.add_argument("--plot", metavar="PNG", help="also draw the table as a figure (matplotlib)")
    args = ap.parse_args(argv)
    table = lineups(args)
    if args.labels:
        unknown = set(args.labels) - set(table)
        if unknown:
            raise SystemExit(f"unknown labels {sorted(unknown)}; this experiment has {list(table)}")
        table = {k: v for k, v in table.items() if k in args.labels}
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.experiment}{args.tag}.jsonl")
    rows = [r for r in load(path) if r["label"] in table]
    show = seat_report if args.experiment == "seats" else report
    if not args.report:
        have = {(r["label"], r["game"]) for r in rows}
        plans = {lab: plan(lab, pl, sr, args.games, args.seed) for lab, (pl, sr) in table.items()}
        jobs = []
        for i in range(args.games):
            for lab, (pl, _) in table.items():
                if (lab, i) not in have:
                    specs, seed = plans[lab][i]
                    jobs.append((lab, i, specs, seed, pl[0]))
        print(f"{len(jobs)} games to play -> {path}", flush=True)
        with open(path, "a") as f, ProcessPoolExecutor(max(1, args.workers)) as pool:
            futures = [pool.submit(_play, j) for j in jobs]
            for k, fut in enumerate(as_completed(futures)):
                res = fut.result()
                f.write(json.dumps(res) + "\n")
                f.flush()
                rows.append(res)
                if (k + 1) % 20 == 0:
                    print(f"{k + 1}/{len(jobs)} games", flush=True)
    print(show(rows, table))
    trades = trade_report(rows, table)
    if trades:
        print("\nTrading (agent under test):\n" + trades)
    if args.plot:
        plot(rows, table, args.experiment, args.plot)
    return 0


def _rates(rows, table):
    """(label, wins, games) of the agent under test per label."""
    out = []
    for label in table:
        games = under_test(rows, table, label)
        n = sum(len(s) for _, s in games)
        if n:
            out.append((label, sum(int(r["winner"] in s) for r, s in games), n))
    return out


def plot(rows, table, experiment, path):
    plt = pyplot()
    if plt is None:
        print("matplotlib not installed: no plot (pip install \"catan_env[viz]\")")
        return
    fig, ax = plt.subplots(figsize=(8, 4))
    if experiment == "seats":
        for j, label in enumerate(table):
            rs = [r for r in rows if r["label"] == label]
            rates = [np.mean([r["winner"] == s for r in rs]) for s in range(4)]
            ax.bar(np.arange(4) + 0.4 * j, rates, 0.4, label=f"{label} ({len(rs)} games)")
        ax.set_xticks(np.arange(4) + 0.2, [f"seat {s}" for s in range(4)])
        ax.axhline(0.25, color="grey", lw=0.8)
        ax.legend()
        ax.set_ylabel("win rate")
    else:
        data = _rates(rows, table)
        x = np.arange(len(data))
        rate = np.array([w / n for _, w, n in data])
        ci = np.array([wilson(w, n) for _, w, n in data])
        ax.errorbar(x, rate, yerr=[rate - ci[:, 0], ci[:, 1] - rate], fmt="o", capsize=4,
                    label="measured here")
        if experiment == "variants":
            px = [(i, PAPER[lab.split("@")[0]]) for i, (lab, _, _) in enumerate(data) if lab.split("@")[0] in PAPER]
            column = 1 if data and data[0][0].endswith("@10000") else 0
            if px:
                ax.plot([i for i, _ in px], [v[column] for _, v in px], "rx", ms=9, label="published")
        ax.set_xticks(x, [f"{lab}\n({n})" for lab, _, n in data], rotation=30, ha="right", fontsize=7)
        ax.axhline(0.25, color="grey", lw=0.8, label="1 in 4")
        ax.set_ylabel("win rate (95% CI)")
        ax.legend()
    ax.set_title(f"MCTS: {experiment}", fontsize=10)
    print(f"wrote {save(fig, path, dpi=110)}")


if __name__ == "__main__":
    sys.exit(main())
