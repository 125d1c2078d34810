"""Speed against the peers, every row measured in one run on this machine.

Ours through the benchmark scripts beside this one (``core_throughput``,
``batched_throughput``, ``env_throughput``), the peers through ``benchmarks/peers/`` in
their own virtual environments (``bash benchmarks/peers/setup_peers.sh`` creates them),
one measurement after another, one thread each unless a row says otherwise.  With
``--out`` it writes the figures (date, machine, command) to a JSON file and the speed
tables of the README and the benchmarks page from them; a test checks that both show what
the file gives.

Usage: python benchmarks/peers_speed.py [--seconds 10] [--peers /tmp/catan_peers] [--out FILE]
Measure on an idle machine (pause background runs): the two-thread row needs both cores.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from catan_env.cli import HelpFormatter, run_stamp, write_results  # noqa: E402
from results_doc import replace_block  # noqa: E402

RESULTS = os.path.join(ROOT, "docs", "results", "peers_speed.json")
DOC = os.path.join(ROOT, "README.md")
# the pages that show the tables, and the results file's link from each
PAGES = {DOC: "docs/results/peers_speed.json", os.path.join(ROOT, "docs", "benchmarks.md"): "results/peers_speed.json"}
DOC_START, DOC_END = "<!-- peers_speed: start -->", "<!-- peers_speed: end -->"
BATCH_SIZES = (256, 1024)


def peer_output(peers, venv, script, *args):
    """What a peer script prints, run with its venv's Python (one OpenMP thread)."""
    python = os.path.join(peers, venv, "bin", "python")
    if not os.path.exists(python):
        raise SystemExit(f"{python} is missing: run `PEERS_DIR={peers} bash benchmarks/peers/setup_peers.sh`")
    out = subprocess.run([python, os.path.join(HERE, "peers", script), *map(str, args)], capture_output=True,
                         text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    if out.returncode != 0:
        raise SystemExit(f"{script} failed:\n{out.stderr}")
    return out.stdout


def number(pattern, text):
    """The number the regex's group matches in text (thousands commas allowed)."""
    found = re.search(pattern, text)
    if found is None:
        raise SystemExit(f"no match for {pattern!r} in {text!r}")
    return float(found.group(1).replace(",", ""))


def measure_ours(seconds):
    """Our rows: whole games in the core, and steps through each env API."""
    import batched_throughput as batched
    import core_throughput as core
    import env_throughput as envs
    games = {}
    for trade in (0, 1):
        gps, sps, _ = core.timed_games(trade, seconds)
        games[f"core, trading {'on' if trade else 'off'}"] = {"games_per_s": gps, "steps_per_s": sps}
    two = core.scaling([1, 2], seconds)
    spg = games["core, trading off"]["steps_per_s"] / games["core, trading off"]["games_per_s"]
    games["core, trading off, 2 threads"] = {"games_per_s": two[2], "steps_per_s": two[2] * spg,
                                             "speedup": two[2] / two[1]}
    steps = {}
    for n in BATCH_SIZES:
        steps[f"batched all-seats {n}"] = batched.steps_per_second(n, seconds, mode="all_seats")[0]
    steps["batched learner 256"] = batched.steps_per_second(256, seconds)[0]
    envs.aec_steps_per_second(0.5)
    steps["aec env()"] = envs.aec_steps_per_second(seconds, wrapped=True)
    steps["gymnasium"] = envs.gym_steps_per_second(seconds)
    return games, steps


def measure_peers(seconds, peers):
    """The peers' rows, parsed from their scripts' lines."""
    games, steps = {}, {}
    out = peer_output(peers, "fc312", "fastcatan_random.py", seconds)
    games["fastcatan python loop"] = {"games_per_s": number(r"games/s ([\d.]+)", out),
                                      "steps_per_s": number(r"steps/s (\d+)", out)}
    steps_per_game = number(r"steps/game (\d+)", out)
    for n in BATCH_SIZES:
        out = peer_output(peers, "fc312", "fastcatan_batched.py", n, seconds)
        steps[f"fastcatan batched {n}"] = number(r"([\d,]+) steps/s overall", out)
        if n == max(BATCH_SIZES):
            # games finished in a short window undercount (all start at once): games/s is
            # the simulator's steps/s over the steps a whole game takes (its Python loop's)
            simulator = number(r"-> ([\d,]+) steps/s,", out)
            games["fastcatan batched simulator"] = {"games_per_s": simulator / steps_per_game,
                                                    "steps_per_s": simulator}
    out = peer_output(peers, "cat311", "catanatron_random.py", seconds)
    games["catanatron"] = {"games_per_s": number(r"games/s ([\d.]+)", out),
                           "steps_per_s": number(r"steps/s (\d+)", out)}
    out = peer_output(peers, "cat311", "catanatron_gym_env.py", seconds)
    steps["catanatron-gym"] = number(r"env steps/s (\d+)", out)
    return games, steps


def _rate(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def _steps(x):
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x:,.0f}"


def speed_tables(doc, results_link=PAGES[DOC]):
    """A page's block: the two tables and the line saying where they come from (the
    results file linked as ``results_link``)."""
    g, s = doc["games"], doc["steps"]
    fc = g["fastcatan batched simulator"]["games_per_s"]
    two = g["core, trading off, 2 threads"]
    rows = [
        ("| engine | random 4-player games/s | steps/s |", "|---|---:|---:|"),
        (f"| **catan_env** core, trading off (numba, whole games) | **{_rate(g['core, trading off']['games_per_s'])}** "
         f"({g['core, trading off']['games_per_s'] / fc:.2f}x fastcatan) | {_steps(g['core, trading off']['steps_per_s'])} |",),
        (f"| **catan_env** core, trading on | {_rate(g['core, trading on']['games_per_s'])} | "
         f"{_steps(g['core, trading on']['steps_per_s'])} |",),
        (f"| **catan_env** core, trading off, 2 threads | **{_rate(two['games_per_s'])}** ({two['speedup']:.2f}x one "
         f"thread) | {_steps(two['steps_per_s'])} |",),
        (f"| fastcatan 2.0 `BatchedEnv` (C++), 1,024 games, simulator time only (games/s: its steps/s over "
         f"its steps/game) | {_rate(fc)} | "
         f"{_steps(g['fastcatan batched simulator']['steps_per_s'])} |",),
        (f"| fastcatan 2.0, Python loop over `Env` | {_rate(g['fastcatan python loop']['games_per_s'])} | "
         f"{_steps(g['fastcatan python loop']['steps_per_s'])} |",),
        (f"| Catanatron 3.2 (pure Python) | {_rate(g['catanatron']['games_per_s'])} | "
         f"{_steps(g['catanatron']['steps_per_s'])} |",),
    ]
    lines = [line for row in rows for line in row]
    lines += ["", "| env API, masked random play | env steps/s |", "|---|---:|"]
    for n in BATCH_SIZES:
        ours, theirs = s[f"batched all-seats {n}"], s[f"fastcatan batched {n}"]
        lines.append(f"| **catan_env** batched env, all-seats mode, {n:,} games (every action a step, observations "
                     f"included) | **{ours:,.0f}** ({ours / theirs:.2f}x fastcatan) |")
        lines.append(f"| fastcatan 2.0 `BatchedEnv`, {n:,} games (every action a step, masks only) | {theirs:,.0f} |")
    lines += [f"| **catan_env** batched env, learner mode, 256 games (3 random opponents inside) | "
              f"{s['batched learner 256']:,.0f} |",
              f"| **catan_env** PettingZoo AEC `env()` | {s['aec env()']:,.0f} |",
              f"| **catan_env** Gymnasium env (learner steps, 3 opponents inside) | {s['gymnasium']:,.0f} |",
              f"| catanatron-gym 4.0 (1 learner vs 1 bot) | {s['catanatron-gym']:,.0f} |",
              "",
              f"Measured in one run, {doc['date']}, {doc['machine']}, {doc['seconds']:g} s a row, one thread "
              f"each unless named, with the action draw included (`{doc['command']}`, "
              f"[results]({results_link})).  Steps per game differ between engines (ours "
              f"~{g['core, trading off']['steps_per_s'] / g['core, trading off']['games_per_s']:,.0f} with "
              f"trading off, ~{g['core, trading on']['steps_per_s'] / g['core, trading on']['games_per_s']:,.0f} "
              f"when random players trade; Catanatron "
              f"~{g['catanatron']['steps_per_s'] / g['catanatron']['games_per_s']:,.0f}; fastcatan "
              f"~{g['fastcatan python loop']['steps_per_s'] / g['fastcatan python loop']['games_per_s']:,.0f}): "
              f"compare games/s for whole-game speed."]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help="time per row")
    ap.add_argument("--peers", default=os.environ.get("PEERS_DIR", "/tmp/catan_peers"),
                    help="the peers' virtual environments (benchmarks/peers/setup_peers.sh)")
    ap.add_argument("--out", default="", help="write the figures here and the pages' tables from them")
    args = ap.parse_args(argv)
    games, steps = measure_ours(args.seconds)
    peer_games, peer_steps = measure_peers(args.seconds, args.peers)
    doc = dict(run_stamp("python benchmarks/peers_speed.py", argv), seconds=args.seconds,
               games=dict(games, **peer_games), steps=dict(steps, **peer_steps))
    print(speed_tables(doc))
    if args.out:
        write_results(args.out, doc)
        for page, link in PAGES.items():
            if not replace_block(page, DOC_START, DOC_END, speed_tables(doc, link)):
                raise SystemExit(f"{page} lacks the markers {DOC_START} ... {DOC_END}")
        print(f"wrote {args.out} and the speed tables of {', '.join(PAGES)}")


if __name__ == "__main__":
    main()
