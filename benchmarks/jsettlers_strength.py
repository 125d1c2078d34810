"""Our agents against three real JSettlers robots, the papers' own yardstick: a resumable
round-robin over the line-ups (``--chunk`` games each per round, until each has its
target of games played to the end), each game appended to ``OUT/<line-up>/games.jsonl`` by ``catan-jsettlers`` (kept
in the repository, so a later session resumes the run), and
after every chunk the summaries written to ``docs/results/jsettlers_strength.json``
(date, machine, command, games actually played, wins with 95% Wilson intervals).

    nice -n 19 python benchmarks/jsettlers_strength.py     # resumes: benchmarks/results/jsettlers_strength
"""
import argparse
import json
import os
import platform
import sys
import time
from typing import Any, Dict, List, NamedTuple

from catan_env.apps.jsettlers_bridge.match import main as jsettlers_main
from catan_env.apps.bridge.results import SEAT_FIGURES, compare_seats, summarize
from results_doc import replace_block

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "jsettlers_strength.json")
TABLE = os.path.join(ROOT, "docs", "results", "jsettlers_strength_table.txt")  # docs/jsettlers.md includes it
README = os.path.join(ROOT, "README.md")
README_START, README_END = "<!-- jsettlers-strength: written by benchmarks/jsettlers_strength.py -->", \
    "<!-- /jsettlers-strength -->"

# the papers' figures against three JSettlers robots, beside the line-up that plays their method
PAPERS = {
    "mcts:variant=szita:playouts=1000": "Szita et al.: 27%",
    "mcts:variant=szita:playouts=10000": "Szita et al.: 49%",
    "mcts:variant=mp_uct:playouts=1000": "Rubin et al. MP-UCT: 26.1%",
    "mcts:variant=mp_uct:playouts=10000": "Rubin et al. MP-UCT: 38.4%",
    "mcts:variant=mpt_ensemble:playouts=1000": "Rubin et al. MPT-EnsembleUCT: 40.0%",
    "mcts:variant=mpt_ensemble:playouts=10000": "Rubin et al. MPT-EnsembleUCT: 58.2%",
    "pretrained": "best public learned agent: 85%",
    "jsettlers": "parity: 25%",
}



class Lineup(NamedTuple):
    """Our agent (a spec) against three robots of one strategy ("smart": the server's own;
    "fast": FAST-strategy robots), played to target games."""
    spec: str
    target: int
    robots: str = "smart"
    weights: str = ""  # a shipped spec whose weights were replaced since: the date they shipped, "-roundN" for a
    # DAgger round where one date shipped two (kept, never extended)

    @property
    def name(self) -> str:
        """The line-up's name in --only and the results: the spec, "@fast" appended for
        the FAST robots, "#date" for the games of weights shipped before."""
        name = self.spec if self.robots == "smart" else f"{self.spec}@{self.robots}"
        return f"{name}#{self.weights}" if self.weights else name


# the issue's line-ups, the papers' presets at 1,000 and 10,000 playouts, and the fidelity
# check against the robot that `jsettlers` (FAST by default) imitates
LINEUPS: List[Lineup] = [Lineup(*x) for x in [
    ("jsettlers", 200),
    ("jsettlers:strategy=smart", 100),
    ("pretrained", 200),
    ("pretrained", 200, "smart", "2026-11-27"),  # the value network shipped before the final-VP one
    ("random", 50),
    ("weighted", 50),
    ("mcts:variant=szita:playouts=1000", 100),
    ("mcts:variant=mp_uct:playouts=1000", 100),
    ("mcts:variant=mpt_ensemble:playouts=1000", 100),
    ("mcts:variant=best:playouts=1000", 100),
    ("pretrained_policy", 200),
    ("pretrained_policy", 100, "smart", "2026-11-30-round2"),  # the second DAgger round's, shipped before
    ("pretrained_policy", 100, "smart", "2026-11-29"),  # the policy shipped before the DAgger ones
    ("mcts:variant=best:playouts=10000", 100),
    ("mcts:variant=szita:playouts=10000", 100),
    ("mcts:variant=mp_uct:playouts=10000", 100),
    ("mcts:variant=mpt_ensemble:playouts=10000", 100),
    ("jsettlers", 200, "fast"),
    ("jsettlers:strategy=smart", 100, "fast"),
    ("jsettlers:combined_etas=true", 200, "fast"),   # the FAST robot's own estimates
    ("jsettlers:combined_etas=true", 200),
    ("pretrained", 200, "fast"),
    ("pretrained", 200, "fast", "2026-11-27"),
    ("mcts:variant=best:playouts=1000", 100, "fast"),
]]


def slug(name: str) -> str:
    return name.replace(":", "_").replace("=", "-").replace(",", "+").replace("@", "_vs_").replace("#", "_weights-")


def played(out: str, lineup: Lineup) -> List[Dict[str, Any]]:
    path = os.path.join(out, slug(lineup.name), "games.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [g for g in (json.loads(x) for x in f if x.strip())
                if g.get("agents") == [lineup.spec] and g.get("robots", "smart") == lineup.robots]


def write_summary(out: str, command: str) -> Dict[str, Any]:
    rows = []
    for lineup in LINEUPS:
        games = played(out, lineup)
        if not games:
            continue
        s = summarize(games, 1)
        done = sorted(g["seconds"] for g in games if "error" not in g)
        s.update(agent=lineup.spec, robots=lineup.robots, target=lineup.target, weights=lineup.weights, declined_offers=sum(g.get("declined_offers", 0) for g in games),
                 median_seconds=done[len(done) // 2] if done else None, seats=compare_seats(games))
        rows.append(s)
    # games stamped with their finishing time ran under this session's client (every cause
    # of the earlier failures fixed): the count of games with no failure
    stamped = [g for lineup in LINEUPS for g in played(out, lineup) if "finished" in g]
    doc = {"what": "our agent in one seat against three JSettlers2 2.7.00 robots on a local server "
                   "(the server's own SMART robots unless `robots` says fast), seats assigned by the "
                   "server at random, robots at pace 0 (no pauses); the win rate is of the games played "
                   "to the end (failed games counted apart)",
           "date": time.strftime("%Y-%m-%d"), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
           "command": command, "lineups": rows,
           "stamped_games": {"games": len(stamped), "failed": sum("error" in g for g in stamped),
                             "rejected": sum(g["rejected"] for g in stamped),
                             "mismatches": sum(g["mismatches"] for g in stamped),
                             "robot_forced_ends": sum(g.get("robot_forced_ends", 0) for g in stamped),
                             "counted_forced_ends": sum("robot_forced_ends" in g for g in stamped),
                             "first": min((g["finished"] for g in stamped), default=None)}}
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        json.dump(doc, f, indent=1)
    with open(TABLE, "w") as f:
        f.write(table(doc))
    update_readme(doc)
    return doc


def agent_cell(r: Dict[str, Any]) -> str:
    """A line-up's name in the tables: the spec, and the robots when they are not SMART."""
    robots = r.get("robots", "smart")
    shipped = r.get("weights", "").replace("-round", ", DAgger round ")  # "2026-11-30-round2"
    return f"`{r['agent']}`" + (f" (the weights shipped {shipped})" if shipped else "") + \
        ("" if robots == "smart" else f" vs {robots.upper()} robots")


def papers_cell(r: Dict[str, Any]) -> str:
    return PAPERS.get(r["agent"], "") if r.get("robots", "smart") == "smart" else ""


def readme_rows(doc: Dict[str, Any]) -> str:
    """The README's rows of the results file: each line-up's games and win rate."""
    lines = ["| our agent | games | win rate [95% CI] | the papers |", "|---|---:|---|---|"]
    for r in doc["lineups"]:
        lo, hi = r["ci95"]
        lines.append(f"| {agent_cell(r)} | {r['games']} | {r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
                     f"| {papers_cell(r)} |")
    return "\n".join(lines)


def update_readme(doc: Dict[str, Any]) -> None:
    """Rewrite the README's block between the markers (if it has them) from doc."""
    replace_block(README, README_START, README_END, readme_rows(doc))


def table(doc: Dict[str, Any]) -> str:
    """The docs page's table of the results file (so the page shows what the run wrote)."""
    lines = [f"Measured {doc['date']} ({doc['machine']}): `{doc['command']}`", "",
             "| our agent | games | wins | win rate [95% CI] | mean VP | failed | rejected | mismatches "
             "| median s/game | the papers |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---|"]
    for r in doc["lineups"]:
        lo, hi = r["ci95"]
        med = "" if r["median_seconds"] is None else f"{r['median_seconds']:.0f}"
        lines.append(f"| {agent_cell(r)} | {r['games']} | {r['wins']} | {100 * r['win_rate']:.1f}% "
                     f"[{100 * lo:.1f}, {100 * hi:.1f}] | {r['mean_vp']:.2f} | {r['failed']} | {r['rejected']} "
                     f"| {r['mismatches']} | {med} | {papers_cell(r)} |")
    st = doc.get("stamped_games")
    if st and st["games"]:
        lines += ["", f"Since {st['first'].replace('T', ' ')} (games stamped with their end time): "
                      f"{st['games']} games, {st['failed']} failed, {st['rejected']} rejected moves, "
                      f"{st['mismatches']} mirror mismatches; robot turns the server ended for time: "
                      f"{st['robot_forced_ends']} in the {st['counted_forced_ends']} games that count them."]
    lines += ["", "What the seats built, per seat and game (means over the games that record it; "
                  "opening = pips of the two set-up settlements, LA / LR = share of seats holding "
                  "the card at the end): our seat, then the robots'.", "",
              "| our agent | games | " + " | ".join(_FIGURE_NAMES[k] for k in SEAT_FIGURES) + " |",
              "|---|---:|" + "---:|" * len(SEAT_FIGURES)]
    for r in doc["lineups"]:
        seats = r.get("seats") or {}
        if not seats.get("games"):
            continue
        cells = [f"{seats['ours'][k]:.2f} / {seats['theirs'][k]:.2f}" for k in SEAT_FIGURES]
        lines.append(f"| {agent_cell(r)} | {seats['games']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


_FIGURE_NAMES = {"opening_pips": "opening", "settlements": "settlements", "cities": "cities",
                 "roads": "roads", "knights": "knights", "largest_army": "LA", "longest_road": "LR",
                 "public_vp": "public VP"}


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--out", default="benchmarks/results/jsettlers_strength",
                   help="folder of the line-ups' games.jsonl (one subfolder each)")
    p.add_argument("--chunk", type=int, default=10, help="games per line-up per round")
    p.add_argument("--only", default="", help="semicolon-separated line-ups to run (a spec, with "
                   "@fast for the FAST robots; default: all)")
    p.add_argument("--seed", type=int, default=2026, help="seed of the run (each game's derives from it)")
    args = p.parse_args(argv)
    only = {s for s in args.only.split(";") if s} if args.only else None
    unknown = (only or set()) - {lineup.name for lineup in LINEUPS}
    if unknown:
        p.error(f"unknown line-ups {sorted(unknown)}; the line-ups: "
                + "; ".join(lineup.name for lineup in LINEUPS))
    command = "python benchmarks/jsettlers_strength.py " + " ".join(
        f'"{a}"' if ";" in a else a for a in argv)
    stuck: set = set()  # line-ups whose last chunk finished no game: not retried in this run
    while True:
        progressed = False
        for lineup in LINEUPS:
            if (only is not None and lineup.name not in only) or lineup.name in stuck or lineup.weights:
                continue  # (weights shipped before: their games are kept as they were)
            games = played(args.out, lineup)
            failed = sum("error" in g for g in games)  # (a failed game does not count toward the target)
            n = len(games)
            if n - failed >= lineup.target:
                continue
            jsettlers_main(["--agents", lineup.spec, "--games", str(min(lineup.target + failed, n + args.chunk)),
                            "--seed", str(args.seed), "--robots", lineup.robots,
                            "--out", os.path.join(args.out, slug(lineup.name))])
            write_summary(args.out, command)
            after = played(args.out, lineup)
            if len(after) - sum("error" in g for g in after) == n - failed:
                print(f"{lineup.name}: no game of the last chunk finished; left for this run", flush=True)
                stuck.add(lineup.name)
            progressed = True
        if not progressed:
            break
    write_summary(args.out, command)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
