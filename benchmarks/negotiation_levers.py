"""What each lever of issue 68 added against the real JSettlers robots: one row per run
folder of ``docs/results/negotiation/`` (its ``games.jsonl``, written by
``catan-jsettlers``; the commands in ``command.txt``), with our wins and a 95% Wilson
interval, the offers and trades a game, the median game and decision time, and a
two-sided test of each lever's win rate against the baseline's on the same robots.  The
table goes into docs/negotiation.md between its markers (a test checks it).

    python benchmarks/negotiation_levers.py
"""
import json
import math
import os
import statistics
import sys
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_doc import replace_block  # noqa: E402

from catan_env.agents.arena import wilson  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "docs", "results", "negotiation")
PAGE = os.path.join(ROOT, "docs", "negotiation.md")
START, END = "<!-- levers: start -->", "<!-- levers: end -->"


class Lever(NamedTuple):
    """A run folder, what it changed, the folder it is judged against (None: a baseline),
    and earlier runs of the same agent on the same robots its games are pooled with
    (``games.jsonl`` paths from the repository root)."""
    folder: str
    what: str
    against: Optional[str]
    earlier: Tuple[str, ...] = ()


# the shipped agent's 200 games against SMART robots of 2026-12-01 (benchmarks/jsettlers_strength.py):
# its network's weights changed since only in inputs the official rules leave at zero (the
# official-rules digest is the same, docs/results/rule_weights/official_digest.txt)
EARLIER_BASELINE = ("benchmarks/results/jsettlers_strength/pretrained/games.jsonl",)


LEVERS = [
    Lever("pretrained_smart", "`pretrained` as shipped (offers by gain, 2 a turn), pooled with its 200 "
          "games of 2026-12-01", None, EARLIER_BASELINE),
    Lever("accept_smart", "offers by expected gain under the SMART acceptance model, and 3 a turn "
          "where the baseline makes 2 (`pretrained:accept=jsettlers-smart:offers=3`: two changes)",
          "pretrained_smart"),
    Lever("trader_smart", "moves by MCTS over the network at 3,000 playouts, trades as above "
          "(`value_trader`)", "accept_smart"),
    Lever("haggle_smart", "offers by expected gain under the version-2 SMART model, to the partners they gain "
          "from only, up to 6 a turn (`pretrained:accept=jsettlers-smart-v2:offers=6:offer_to=gainers`, "
          "`--offers-per-turn 6`: three changes)", "accept_smart"),
    Lever("haggle_default", "`haggle_smart`'s agent against the server's default mix (`--robots default`: "
          "3 SMART robots and a FAST droid in the pool, three a game)", None),
]


def games(lever: Lever) -> List[Dict[str, Any]]:
    lines = []
    for path in (os.path.join(FOLDER, lever.folder, "games.jsonl"), *(os.path.join(ROOT, p) for p in lever.earlier)):
        if os.path.exists(path):
            with open(path) as f:
                lines += [json.loads(line) for line in f if line.strip()]
    return lines


def figures(lines: List[Dict[str, Any]]) -> Dict[str, Any]:
    done = [g for g in lines if "error" not in g]
    wins = sum(g["winner"] in g["our_seats"] for g in done)
    lo, hi = wilson(wins, len(done))
    mean = (lambda key: statistics.mean(g[key] for g in done)) if done else (lambda key: 0.0)
    return {"games": len(done), "failed": len(lines) - len(done), "wins": wins, "ci95": [lo, hi],
            "offers": mean("offers_made"), "trades": mean("trades"),
            "seconds": statistics.median(g["seconds"] for g in done) if done else 0.0,
            # (each game's median decision of our seat; runs from before 2026-12-08 01:00 did not time them)
            "decision_s": statistics.median(t for g in done for t in g.get("decision_seconds") or [] if t is not None)
            if any(g.get("decision_seconds") for g in done) else None,
            "rejected": sum(g["rejected"] for g in lines), "mismatches": sum(g["mismatches"] for g in lines),
            "fallbacks": sum(g.get("fallbacks", 0) for g in lines)}


def two_sided_p(w1: int, n1: int, w2: int, n2: int) -> float:
    """The two-proportion z-test's p (pooled)."""
    if not n1 or not n2:
        return float("nan")
    pooled = (w1 + w2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    z = abs(w1 / n1 - w2 / n2) / se
    return math.erfc(z / math.sqrt(2))


SHIPPED = "pretrained_smart"  # the shipped agent's run: every lever against the same robots is judged against it too


def _versus(f: Dict[str, Any], b: Dict[str, Any]) -> str:
    return (f"{100 * (f['wins'] / f['games'] - b['wins'] / b['games']):+.1f} points, "
            f"p = {two_sided_p(f['wins'], f['games'], b['wins'], b['games']):.3f}")


def table() -> str:
    rows = ["| run | what changed | games | wins | win rate [95% CI] | against the run before | against the shipped "
            "agent | offers / trades a game | median game / decision | rejected, mismatches, failed |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    by = {lever.folder: figures(games(lever)) for lever in LEVERS}
    for lever in LEVERS:
        f = by[lever.folder]
        if not f["games"]:
            continue
        lo, hi = f["ci95"]
        versus = [_versus(f, by[lever.against]) if lever.against else "baseline",
                  _versus(f, by[SHIPPED]) if lever.against else "baseline" if lever.folder == SHIPPED
                  else "(other robots)"]
        rows.append(f"| `{lever.folder}` | {lever.what} | {f['games']} | {f['wins']} | "
                    f"{100 * f['wins'] / f['games']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] | {versus[0]} | {versus[1]} | "
                    f"{f['offers']:.1f} / {f['trades']:.1f} | {f['seconds']:.1f} s / "
                    f"{'not timed' if f['decision_s'] is None else format(f['decision_s'], '.3f') + ' s'} | "
                    f"{f['rejected']}, {f['mismatches']}, {f['failed']} |")
    return "\n".join(rows)


def main() -> int:
    text = table()
    with open(os.path.join(FOLDER, "levers.json"), "w") as f:
        json.dump({lever.folder: figures(games(lever)) for lever in LEVERS}, f, indent=1)
        f.write("\n")
    if not replace_block(PAGE, START, END, text):
        print(f"{PAGE} lacks the markers {START} / {END}", file=sys.stderr)
        return 2
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
