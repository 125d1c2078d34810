"""The README's strength table, made from committed per-game results files.

Each row of the table names its files in ``docs/results/strength/`` (one line per game,
as ``benchmarks/value_strength.py`` writes them: the agent's spec, its three opponents'
spec, won or not); games, wins and the 95% Wilson interval are counted from them here,
never typed in.  ``--write`` rewrites the README's block between its markers; a test checks
that the README shows what the files give.  A row whose files are not committed yet is
left out of the table (and named by ``--check``).

Usage: python benchmarks/strength_table.py [--write] [--check]
"""
import argparse
import json
import os
import sys
from typing import Dict, List, NamedTuple, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from catan_env.agents.arena import wilson  # noqa: E402
from catan_env.cli import HelpFormatter  # noqa: E402
from results_doc import replace_block  # noqa: E402

FOLDER = os.path.join(ROOT, "docs", "results", "strength")
DOC = os.path.join(ROOT, "README.md")
DOC_START, DOC_END = "<!-- strength: start -->", "<!-- strength: end -->"


class Part(NamedTuple):
    """One measured line-up: the file, the agent's spec and its opponents' spec there."""
    file: str
    spec: str
    opponent: str


class Row(NamedTuple):
    agent: str      # what the table says of the agent
    against: str    # and of its opponents
    parts: Tuple[Part, ...]  # shown joined by " / "
    details: str    # a link to the page that says more
    bold: bool = False


LEARNED = "[learned agents](docs/learned-agents.md#generalist)"
RECIPE = "[recipe](docs/rl-recipe.md)"
ROWS: Tuple[Row, ...] = (
    Row("`jsettlers`", "3 `random` / 3 `weighted`",
        (Part("jsettlers_vs_random.jsonl", "jsettlers", "random"),
         Part("jsettlers_vs_weighted.jsonl", "jsettlers", "weighted")), "[agents](docs/agents.md)"),
    Row("`best` MCTS, 1,000 playouts", "3 `jsettlers`",
        (Part("best1000_vs_jsettlers.jsonl", "mcts:variant=best:playouts=1000", "jsettlers"),),
        "[search](docs/search.md)"),
    Row("`best` MCTS, 10,000 playouts", "3 `jsettlers`",
        (Part("best10000_vs_jsettlers.jsonl", "mcts:variant=best:playouts=10000", "jsettlers"),),
        "[search](docs/search.md)"),
    Row("`pretrained` (shipped network, anytime expectimax ~0.1 s a move, trades)", "3 `jsettlers`",
        (Part("pretrained_vs_jsettlers.jsonl", "pretrained", "jsettlers"),), LEARNED, bold=True),
    Row("`pretrained`", "3 `best` MCTS, 1,000 playouts",
        (Part("pretrained_vs_best1000.jsonl", "pretrained", "mcts:variant=best:playouts=1000"),), LEARNED),
    Row("`pretrained:search=1` (milliseconds a move) with / without its offers", "3 `jsettlers`",
        (Part("search1_offers_vs_jsettlers.jsonl", "pretrained:search=1", "jsettlers"),
         Part("search1_offers_vs_jsettlers.jsonl", "pretrained:search=1:offers=0", "jsettlers")), LEARNED),
    Row("`pretrained:search=0` (the network alone, greedy, trades)", "3 `jsettlers`",
        (Part("search0_vs_jsettlers.jsonl", "pretrained:search=0", "jsettlers"),), RECIPE),
    Row("`pretrained_policy` (a policy network alone, no search)", "3 `jsettlers` / 3 `weighted`",
        (Part("policy_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers"),
         Part("policy_vs_weighted.jsonl", "pretrained_policy", "weighted")), RECIPE, bold=True),
)


def tally(part: Part, folder: str = FOLDER) -> Tuple[int, int]:
    """(wins, games) of the part's line-up in its file."""
    wins = games = 0
    with open(os.path.join(folder, part.file)) as f:
        for line in f:
            if line.strip():
                game = json.loads(line)
                if game["spec"] == part.spec and game["opponent"] == part.opponent:
                    games += 1
                    wins += int(game["won"])
    return wins, games


def _cell(wins: int, games: int, bold: bool) -> str:
    lo, hi = wilson(wins, games)
    rate = f"{wins / games:.3f}"
    return f"{f'**{rate}**' if bold else rate} [{lo:.3f}, {hi:.3f}]"


def measured(folder: str = FOLDER) -> List[Tuple[Row, List[Tuple[int, int]]]]:
    """The rows whose every part has games in a committed file, with their tallies."""
    out = []
    for row in ROWS:
        if all(os.path.exists(os.path.join(folder, p.file)) for p in row.parts):
            counts = [tally(p, folder) for p in row.parts]
            if all(games for _, games in counts):
                out.append((row, counts))
    return out


def strength_table(folder: str = FOLDER) -> str:
    """The README's block: the table and where its figures come from."""
    lines = ["| agent | against | games | win rate [95% CI] | details |", "|---|---|---:|---|---|"]
    for row, counts in measured(folder):
        sizes = {games for _, games in counts}
        games = f"{sizes.pop():,}" + (" each" if len(counts) > 1 else "") if len(sizes) == 1 else \
            " / ".join(f"{g:,}" for _, g in counts)
        cells = " / ".join(_cell(w, g, row.bold) for w, g in counts)
        lines.append(f"| {row.agent} | {row.against} | {games} | {cells} | {row.details} |")
    lines += ["", "Counted from the per-game files in [docs/results/strength/](docs/results/strength/) "
              "(`benchmarks/value_strength.py`, fresh seeds; `benchmarks/strength_table.py` writes this table)."]
    return "\n".join(lines)


def missing(folder: str = FOLDER) -> List[str]:
    """The rows left out: their files are not committed (or hold none of their games)."""
    shown = {row for row, _ in measured(folder)}
    return [row.agent for row in ROWS if row not in shown]


def main(argv: Sequence[str] = None) -> int:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    ap.add_argument("--write", action="store_true", help="rewrite the README's block")
    ap.add_argument("--check", action="store_true", help="name the rows whose files are missing")
    args = ap.parse_args(argv)
    print(strength_table())
    if args.check:
        for agent in missing():
            print(f"not measured yet: {agent}")
    if args.write and not replace_block(DOC, DOC_START, DOC_END, strength_table()):
        raise SystemExit(f"{DOC} lacks the markers {DOC_START} ... {DOC_END}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
