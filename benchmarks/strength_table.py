"""The README's strength table, made from committed per-game results files.

Each row of the table names its files in ``docs/results/strength/`` (one line per game,
as ``benchmarks/value_strength.py`` writes them, its per-decision times dropped to keep
them small: the agent's spec, its three opponents' spec, won or not); games, wins and the 95% Wilson interval are counted from them here,
never typed in.  ``--write`` rewrites the README's block between its markers; a test checks
that the README shows what the files give.  A row whose files are not committed yet is
left out of the table (and named by ``--check``).

The recipe page's table of the shipped policy's training run is made the same way from
``docs/results/policy_big/``.

Usage: python benchmarks/strength_table.py [--write] [--check]
"""
import argparse
import json
import os
import sys
from typing import List, NamedTuple, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from catan_env.agents.arena import sign_test, wilson  # noqa: E402
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
    Row("`pretrained` (shipped network, anytime expectimax, up to ~0.1 s a move, trades)", "3 `jsettlers`",
        (Part("pretrained_vs_jsettlers.jsonl", "pretrained", "jsettlers"),), LEARNED, bold=True),
    Row("`pretrained`", "3 `best` MCTS, 1,000 playouts",
        (Part("pretrained_vs_best1000.jsonl", "pretrained", "mcts:variant=best:playouts=1000"),), LEARNED),
    Row("`pretrained` with the network shipped before (2026-11-27; the same seeds)",
        "3 `jsettlers` / 3 `best` MCTS, 1,000 playouts",
        (Part("pretrained_1127_vs_jsettlers.jsonl", "pretrained", "jsettlers"),
         Part("pretrained_1127_vs_best1000.jsonl", "pretrained", "mcts:variant=best:playouts=1000")), LEARNED),
    Row("`pretrained:search=1` (milliseconds a move) with / without its offers", "3 `jsettlers`",
        (Part("search1_offers_vs_jsettlers.jsonl", "pretrained:search=1", "jsettlers"),
         Part("search1_offers_vs_jsettlers.jsonl", "pretrained:search=1:offers=0", "jsettlers")), LEARNED),
    Row("`pretrained:search=0` (the network alone, greedy, trades)", "3 `jsettlers`",
        (Part("search0_vs_jsettlers.jsonl", "pretrained:search=0", "jsettlers"),), RECIPE),
    Row("`pretrained:search=1` with / without its offers, `pretrained:search=0`: the network shipped before "
        "(2026-11-27; the same seeds)", "3 `jsettlers`",
        (Part("search1_1127_offers_vs_jsettlers.jsonl", "pretrained:search=1", "jsettlers"),
         Part("search1_1127_offers_vs_jsettlers.jsonl", "pretrained:search=1:offers=0", "jsettlers"),
         Part("search0_1127_vs_jsettlers.jsonl", "pretrained:search=0", "jsettlers")), LEARNED),
    Row("`pretrained_policy` (a policy network alone, no search)", "3 `jsettlers` / 3 `weighted`",
        (Part("policy_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers"),
         Part("policy_vs_weighted.jsonl", "pretrained_policy", "weighted")), RECIPE, bold=True),
    Row("the policy shipped before (2026-11-30, the second DAgger round; the same seeds)", "3 `jsettlers` / 3 `weighted`",
        (Part("policy_1130r2_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers"),
         Part("policy_1130r2_vs_weighted.jsonl", "pretrained_policy", "weighted")), RECIPE),
    Row("the policy shipped on 2026-11-29 (the same seeds)", "3 `jsettlers` / 3 `weighted`",
        (Part("policy_1129_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers"),
         Part("policy_1129_vs_weighted.jsonl", "pretrained_policy", "weighted")), RECIPE),
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


def measured(folder: str = FOLDER, rows: Sequence[Row] = ROWS) -> List[Tuple[Row, List[Tuple[int, int]]]]:
    """The rows whose every part has games in a committed file, with their tallies."""
    out = []
    for row in rows:
        if all(os.path.exists(os.path.join(folder, p.file)) for p in row.parts):
            counts = [tally(p, folder) for p in row.parts]
            if all(games for _, games in counts):
                out.append((row, counts))
    return out


def table(folder: str, rows: Sequence[Row]) -> List[str]:
    """The lines of a table of rows counted from folder's files."""
    lines = ["| agent | against | games | win rate [95% CI] | details |", "|---|---|---:|---|---|"]
    for row, counts in measured(folder, rows):
        sizes = {games for _, games in counts}
        games = f"{sizes.pop():,}" + (" each" if len(counts) > 1 else "") if len(sizes) == 1 else \
            " / ".join(f"{g:,}" for _, g in counts)
        cells = " / ".join(_cell(w, g, row.bold) for w, g in counts)
        lines.append(f"| {row.agent} | {row.against} | {games} | {cells} | {row.details} |")
    return lines


def strength_table(folder: str = FOLDER) -> str:
    """The README's block: the table and where its figures come from."""
    return "\n".join(table(folder, ROWS) + [
        "", "Counted from the per-game files in [docs/results/strength/](docs/results/strength/) "
        "(`benchmarks/value_strength.py`, fresh seeds; `benchmarks/strength_table.py` writes this table)."])


POLICY_FOLDER = os.path.join(ROOT, "docs", "results", "policy_big")
POLICY_DOC = os.path.join(ROOT, "docs", "rl-recipe.md")
POLICY_START, POLICY_END = "<!-- policy_big: start -->", "<!-- policy_big: end -->"
NEW = "ppo:path=results/policy_big/ppo/actor.npz"
CLONE = "ppo:path=results/policy_big/bc/actor.npz"
OLD = "the policy shipped before (2026-11-27)"
POLICY_ROWS: Tuple[Row, ...] = (
    Row("cloned (step 2): 5,160 teacher games, 6 epochs", "3 `jsettlers` (seeds 61,000)",
        (Part("vs_jsettlers_seed61000.jsonl", CLONE, "jsettlers"),), "65 min, one core"),
    Row("+ MaskablePPO with potential shaping (step 3), shipped as `pretrained_policy` until 2026-11-30",
        "3 `jsettlers` (seeds 61,000) / 3 `weighted` (62,000)",
        (Part("vs_jsettlers_seed61000.jsonl", NEW, "jsettlers"),
         Part("vs_weighted_seed62000.jsonl", NEW, "weighted")), "25 min, one core", bold=True),
    Row("the same clone + Tianshou PPO against the same league (`examples/train_tianshou.py`)",
        "3 `jsettlers` (seeds 61,000)",
        (Part("tianshou_vs_jsettlers_seed61000.jsonl", "ppo:path=results/tianshou_league/run/actor.npz",
              "jsettlers"),), "25 min, one core (half of it beside CI)"),
    Row(OLD, "3 `jsettlers` (seeds 61,000)",
        (Part("vs_jsettlers_seed61000.jsonl", "pretrained_policy", "jsettlers"),), "2,240 teacher games"),
    Row("the new policy / " + OLD + ", the same 1,000 games", "3 `jsettlers` (seeds 63,000)",
        (Part("vs_jsettlers_seed63000.jsonl", NEW, "jsettlers"),
         Part("vs_jsettlers_seed63000.jsonl", "pretrained_policy", "jsettlers")), "paired"),
)


def policy_table(folder: str = POLICY_FOLDER) -> str:
    """The recipe page's block: the shipped policy's run, counted from its files."""
    with open(os.path.join(folder, "ppo_curve.csv")) as f:
        last = f.read().split()[-1].split(",")  # minutes, env_steps, ...
    with open(os.path.join(folder, "clone_state.json")) as f:
        clone = json.load(f)["curve"][-1]
    return "\n".join(table(folder, POLICY_ROWS) + [
        "", f"The clone picked the teacher's move in {clone['val_agreement']:.1%} of held-out decisions after "
        f"{clone['epoch']} epochs; PPO ran {int(last[1]):,} learner steps in {float(last[0]):.0f} minutes. "
        "Counted from the files in `docs/results/policy_big/` (the run's commands: "
        "[command.sh](results/policy_big/command.sh), Tianshou's `tianshou_command.sh`; the clone's curve "
        "`clone_state.json`, PPO's `ppo_curve.csv`, Tianshou's `tianshou_curve.csv`); in them "
        "`pretrained_policy` is " + OLD + "."])


DAGGER_FOLDER = os.path.join(ROOT, "docs", "results", "dagger")
DAGGER_START, DAGGER_END = "<!-- dagger: start -->", "<!-- dagger: end -->"
ROUND1 = "ppo:path=results/dagger_s1/bc/actor.npz"
ROUND1_PPO = "ppo:path=results/dagger_s1/ppo/actor.npz"
ROUND2 = "ppo:path=results/dagger_s2/bc/actor.npz"
ROUND3 = "ppo:path=results/dagger_s3/bc/actor.npz"
ROUND4 = "ppo:path=results/dagger_s4/bc/actor.npz"
ROUND5 = "ppo:path=results/dagger_s5/bc/actor.npz"
ROUND6 = "ppo:path=results/dagger_s6/bc/actor.npz"
FIVE = "3 `jsettlers` (seeds 61,000 / 64,000 / 62,000 / 65,000 / 66,000)"


def _on_five(spec: str) -> Tuple[Part, ...]:
    """A round's games on the five seed sets, in FIVE's order."""
    return tuple(Part(f"vs_jsettlers_seed{seeds}.jsonl", spec, "jsettlers") for seeds in (61000, 64000, 62000, 65000, 66000))
FOUR = "3 `jsettlers` (seeds 61,000 / 64,000 / 62,000 / 65,000)"
THREE = "3 `jsettlers` (seeds 61,000 / 64,000 / 62,000)"
BOTH = "3 `jsettlers` (seeds 61,000 / 64,000)"
DAGGER_ROWS: Tuple[Row, ...] = (
    Row("the clone (step 2: 6 epochs on the teacher run, `pretrained:search=0`'s 5,160 games)", "3 `jsettlers` (seeds 61,000)",
        (Part("../policy_big/vs_jsettlers_seed61000.jsonl", CLONE, "jsettlers"),), "its teacher: 0.472"),
    Row("+ a DAgger round labelled by the greedy network (`pretrained:search=0`)", "3 `jsettlers` (seeds 61,000)",
        (Part("vs_jsettlers_seed61000.jsonl", "ppo:path=results/dagger/bc/actor.npz", "jsettlers"),),
        "783,475 rows, 2 epochs"),
    Row("+ a DAgger round labelled by `pretrained:search=1` (round 1)", "3 `jsettlers` (seeds 61,000)",
        (Part("vs_jsettlers_seed61000.jsonl", ROUND1, "jsettlers"),), "the same positions; its teacher: 0.670"),
    Row("round 1 + MaskablePPO with potential shaping (step 3)", BOTH,
        (Part("vs_jsettlers_seed61000.jsonl", ROUND1_PPO, "jsettlers"),
         Part("vs_jsettlers_seed64000.jsonl", ROUND1_PPO, "jsettlers")), "25 min, one core"),
    Row("round 1 + a second round (round 1's clone plays, `pretrained:search=1` labels): shipped as "
        "`pretrained_policy` (2026-11-30) until the fifth round replaced it, no PPO", FOUR,
        (Part("vs_jsettlers_seed61000.jsonl", ROUND2, "jsettlers"),
         Part("vs_jsettlers_seed64000.jsonl", ROUND2, "jsettlers"),
         Part("../strength/policy_1130r2_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers"),
         Part("vs_jsettlers_seed65000.jsonl", "pretrained_policy", "jsettlers")), "759,979 more rows, 2 epochs"),
    Row("round 2 + a third round (round 2's clone plays, the same teacher labels; not shipped: "
        "no significant gain, below)", THREE,
        (Part("vs_jsettlers_seed61000.jsonl", ROUND3, "jsettlers"),
         Part("vs_jsettlers_seed64000.jsonl", ROUND3, "jsettlers"),
         Part("vs_jsettlers_seed62000.jsonl", ROUND3, "jsettlers")),
        "758,669 more rows, 2 epochs ([its command](results/dagger/command_s3.sh))"),
    Row("round 3 + a fourth round (round 3's clone plays; fine-tuned on the four rounds' rows only: "
        "all five folders did not fit in memory): met the shipping rule, **not shipped: its weights were lost** "
        "(they lived only in the session's uncommitted `results/`, which the next checkout did not carry)",
        THREE,
        (Part("vs_jsettlers_seed61000.jsonl", ROUND4, "jsettlers"),
         Part("vs_jsettlers_seed64000.jsonl", ROUND4, "jsettlers"),
         Part("vs_jsettlers_seed62000.jsonl", ROUND4, "jsettlers")),
        "767,077 more rows, 2 epochs ([its command](results/dagger/command_s4.sh))"),
    Row("round 2 + a fifth round (round 2's clone plays 6,000 new games, the same teacher labels; fine-tuned "
        "on those rows alone, the earlier rounds' rows lost with round 4's weights): **shipped as "
        "`pretrained_policy`** (2026-11-30)", FIVE,
        _on_five(ROUND5),
        "1,143,659 rows, 2 epochs ([its command](results/dagger/command_s5.sh))", bold=True),
    Row("round 5 + a sixth round (round 5's clone plays 4,000 new games, the same teacher labels; fine-tuned on "
        "the fifth and sixth rounds' rows): not shipped, no gain (below)", FIVE,
        _on_five(ROUND6),
        "776,926 more rows, 2 epochs ([its command](results/dagger/command_s6.sh))"),
    Row("round 2 + the same MaskablePPO (not shipped)", "3 `jsettlers` (seeds 61,000)",
        (Part("vs_jsettlers_seed61000.jsonl", "ppo:path=results/dagger_s2/ppo/actor.npz", "jsettlers"),),
        "25 min, one core ([its command](results/dagger/command_s2_ppo.sh))"),
    Row("the policy shipped on 2026-11-29 (the clone + the same PPO; `pretrained_policy` in these files)", BOTH,
        (Part("vs_jsettlers_seed61000.jsonl", "pretrained_policy", "jsettlers"),
         Part("../policy_more/vs_jsettlers_seed64000.jsonl", "pretrained_policy", "jsettlers")),
        "the same games as the rows above"),
)


# the second round and the policy shipped before it on the same games: (new's part, old's part), files under
# docs/results
PAIRED = (("seeds 61,000", Part("dagger/vs_jsettlers_seed61000.jsonl", ROUND2, "jsettlers"),
           Part("dagger/vs_jsettlers_seed61000.jsonl", "pretrained_policy", "jsettlers")),
          ("seeds 62,000", Part("strength/policy_1130r2_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers"),
           Part("strength/policy_1129_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers")),
          ("seeds 64,000", Part("dagger/vs_jsettlers_seed64000.jsonl", ROUND2, "jsettlers"),
           Part("policy_more/vs_jsettlers_seed64000.jsonl", "pretrained_policy", "jsettlers")))


def _games(part: Part, folder: str) -> dict:
    """game index -> won, of the part's line-up in its file."""
    with open(os.path.join(folder, part.file)) as f:
        return {g["game"]: int(g["won"]) for g in (json.loads(x) for x in f if x.strip())
                if g["spec"] == part.spec and g["opponent"] == part.opponent}


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _against_round2(spec: str, fresh: bool = False) -> Tuple[Tuple[str, Part, Part], ...]:
    """A round's games against the second round's (shipped until the fifth replaced it) on the
    same games; ``fresh``: also the 1,000 fresh seeds 65,000 (``pretrained_policy`` in that file
    is the second round)."""
    pairs = (("seeds 61,000", Part("dagger/vs_jsettlers_seed61000.jsonl", spec, "jsettlers"),
             Part("dagger/vs_jsettlers_seed61000.jsonl", ROUND2, "jsettlers")),
            ("seeds 62,000", Part("dagger/vs_jsettlers_seed62000.jsonl", spec, "jsettlers"),
             Part("strength/policy_1130r2_vs_jsettlers.jsonl", "pretrained_policy", "jsettlers")),
            ("seeds 64,000", Part("dagger/vs_jsettlers_seed64000.jsonl", spec, "jsettlers"),
             Part("dagger/vs_jsettlers_seed64000.jsonl", ROUND2, "jsettlers")))
    return pairs + ((("seeds 65,000 (fresh)", Part("dagger/vs_jsettlers_seed65000.jsonl", spec, "jsettlers"),
                      Part("dagger/vs_jsettlers_seed65000.jsonl", "pretrained_policy", "jsettlers")),)
                    if fresh else ())


# the later rounds against the second, on the same games (on 62,000 the second round's README games,
# moved to a file of their own when the fifth round shipped, as the earlier policy's were)
ROUND3_PAIRED = _against_round2(ROUND3)
ROUND4_PAIRED = _against_round2(ROUND4)
ROUND5_PAIRED = _against_round2(ROUND5, fresh=True)
# the sixth round against the fifth (shipped when it was played), on the same games: the fifth's games are
# in every seed set's file under its own spec, the fresh seeds 66,000 included
ROUND6_PAIRED = tuple((f"seeds {seeds:,}" + (" (fresh)" if seeds == 66000 else ""),
                       Part(f"dagger/vs_jsettlers_seed{seeds}.jsonl", ROUND6, "jsettlers"),
                       Part(f"dagger/vs_jsettlers_seed{seeds}.jsonl", ROUND5, "jsettlers"))
                      for seeds in (61000, 62000, 64000, 65000, 66000))


def paired_lines(folder: str = os.path.join(ROOT, "docs", "results"), pairs: Sequence[Tuple[str, Part, Part]] = PAIRED,
                 title: str = "The second round and the policy shipped before it",
                 heads: Tuple[str, str] = ("second round", "policy before"),
                 short: Tuple[str, str] = ("second", "before"), against: str = "three `jsettlers`") -> List[str]:
    """Two policies on the same games (the new first), per seed set and pooled: wins,
    and the games only one of them won."""
    lines, total = [], [0, 0, 0, 0, 0]  # games, new wins, old wins, only new, only old
    for name, new_part, old_part in pairs:
        new, old = _games(new_part, folder), _games(old_part, folder)
        shared = sorted(set(new) & set(old))
        row = [len(shared), sum(new[g] for g in shared), sum(old[g] for g in shared),
               sum(new[g] > old[g] for g in shared), sum(old[g] > new[g] for g in shared)]
        total = [a + b for a, b in zip(total, row)]
        lines.append(f"| {name} | {row[0]:,} | {row[1] / row[0]:.3f} | {row[2] / row[0]:.3f} | {row[3]} / {row[4]} | "
                     f"{_p(sign_test(row[3], row[4]))} |")
    lo, hi = wilson(total[1], total[0])
    lines.append(f"| all | {total[0]:,} | **{total[1] / total[0]:.3f}** [{lo:.3f}, {hi:.3f}] | "
                 f"{total[2] / total[0]:.3f} | {total[3]} / {total[4]} | {_p(sign_test(total[3], total[4]))} |")
    return ["", f"{title}, on the same games against {against}:", "",
            f"| games | count | {heads[0]} | {heads[1]} | won by one only ({short[0]} / {short[1]}) | sign test p |",
            "|---|---:|---|---|---|---:|"] + lines


def dagger_table(folder: str = DAGGER_FOLDER) -> str:
    """The recipe page's block: the DAgger rounds (2026-11-30), counted from their files."""
    return "\n".join(table(folder, DAGGER_ROWS) + paired_lines() + paired_lines(
        pairs=ROUND3_PAIRED, title="The third round and the second",
        heads=("third round", "second round"), short=("third", "second")) + paired_lines(
        pairs=ROUND4_PAIRED, title="The fourth round and the second",
        heads=("fourth round", "second round"), short=("fourth", "second")) + paired_lines(
        pairs=ROUND5_PAIRED, title="The shipped policy (the fifth round) and the second round",
        heads=("fifth round (shipped)", "second round"), short=("fifth", "second")) + paired_lines(
        pairs=ROUND6_PAIRED, title="The sixth round and the shipped policy (the fifth round)",
        heads=("sixth round", "fifth round (shipped)"), short=("sixth", "fifth")) + [
        "", "Counted from the per-game files in `docs/results/dagger/` (the paired rows also from "
        "`docs/results/strength/` and `docs/results/policy_more/`; the runs' commands: "
        "[greedy labels](results/dagger/command.sh), [search=1 labels](results/dagger/command_s1.sh), "
        "[second round](results/dagger/command_s2.sh), [third round](results/dagger/command_s3.sh), [fourth round](results/dagger/command_s4.sh), [fifth round](results/dagger/command_s5.sh), "
        "[sixth round](results/dagger/command_s6.sh); the clones' curves `*_clone_state.json`, PPO's "
        "`s1_ppo_curve.csv` and `s2_ppo_curve.csv`). `pretrained_policy` in these files is the policy shipped on "
        "2026-11-29, except in `vs_jsettlers_seed65000.jsonl` and `../strength/policy_1130r2_*`: the second round."])


ENSEMBLE_DOC = os.path.join(ROOT, "docs", "learned-agents.md")
ENSEMBLE_START, ENSEMBLE_END = "<!-- ensemble: start -->", "<!-- ensemble: end -->"
ENSEMBLE = "results/exp9/ens-r8-s1.npz"   # round 8 and its retrained seed-1 twin, their mean logits
ROUND8 = "results/value_exit8/round-8.npz"
FIXED = ":search=1:determinizations=2"    # the league's judged search
ENSEMBLE_PAIRED = (
    ("seeds 81,000, the fixed search",
     Part("value_retrain/ens_vs_r8_81000.jsonl", f"value:path={ENSEMBLE}{FIXED}", "jsettlers"),
     Part("value_retrain/ens_vs_r8_81000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers")),
    ("seeds 82,000, the fixed search",
     Part("value_retrain/ens_vs_r8_82000.jsonl", f"value:path={ENSEMBLE}{FIXED}", "jsettlers"),
     Part("value_retrain/ens_vs_r8_82000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers")),
)
ENSEMBLE3 = "results/exp9/ens3-r6-r8-s1.npz"  # round 6 added as a third member
ENSEMBLE3_PAIRED = (
    ("seeds 81,000, the fixed search",
     Part("value_retrain/ens3_81000.jsonl", f"value:path={ENSEMBLE3}{FIXED}", "jsettlers"),
     Part("value_retrain/ens_vs_r8_81000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers")),
)
ENSEMBLE_B = "results/exp10/ens-s2-s3.npz"  # another pair of round 8's data, seeds 2 and 3, set before playing
ENSEMBLE_B_PAIRED = (
    ("seeds 83,000, the fixed search",
     Part("value_retrain/ens_s2s3_vs_r8_83000.jsonl", f"value:path={ENSEMBLE_B}{FIXED}", "jsettlers"),
     Part("value_retrain/ens_s2s3_vs_r8_83000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers")),
)
ENSEMBLE_HEADLINE = (
    ("seeds 62,000, the default budget (6,000 evaluations)",
     Part("value_retrain/ens_leaves6000_vs_jsettlers_62000.jsonl", f"value:path={ENSEMBLE}:leaves=6000", "jsettlers"),
     Part("strength/pretrained_1127_vs_jsettlers.jsonl", "pretrained", "jsettlers")),
)


def ensemble_table(folder: str = os.path.join(ROOT, "docs", "results")) -> str:
    """The learned-agents page's block: the two-network ensemble against a member and
    against the shipped network, each on the same games, counted from the files."""
    return "\n".join(paired_lines(folder, ENSEMBLE_PAIRED, "The ensemble and round 8 (one of its two members)",
                                   ("ensemble", "round 8"), ("ensemble", "round 8")) + paired_lines(
        folder, ENSEMBLE3_PAIRED, "Three networks (round 6 added) and round 8",
        ("three averaged", "round 8"), ("three", "round 8")) + paired_lines(
        folder, ENSEMBLE_B_PAIRED, "Another pair (seeds 2 and 3, neither of them round 8) and round 8",
        ("seeds 2 + 3", "round 8"), ("pair", "round 8")) + paired_lines(
        folder, ENSEMBLE_HEADLINE, "The ensemble and the network shipped then (`pretrained` until 2026-12-01), both at "
        "the default budget",
        ("ensemble", "`pretrained`"), ("ensemble", "pretrained")) + [
        "", "Counted from the per-game files in `docs/results/value_retrain/` and "
        "`docs/results/strength/pretrained_1127_vs_jsettlers.jsonl` (the network shipped then) by "
        "`benchmarks/strength_table.py`."]).strip()


AUX_START, AUX_END = "<!-- aux: start -->", "<!-- aux: end -->"
AUX = "results/exp11/vw0.3-s0-e4-vp{}.npz"  # round 8's data trained again with the final-VP head, weighted 1 or 4
AUX_SEED1 = "results/exp11/vw0.3-s1-e4-vp4.npz"  # the weight-4 network from seed 1 (set before it was trained)
AUX_PAIRED = tuple(
    (f"the final-VP loss weighted {w}", [
        ("seeds 84,000, the fixed search",
         Part("value_aux/aux_vs_r8_84000.jsonl", f"value:path={AUX.format(w)}{FIXED}", "jsettlers"),
         Part("value_aux/aux_vs_r8_84000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers"))]
        + ([("seeds 86,000, the fixed search",
             Part("value_aux/seed1_vs_r8_86000.jsonl", f"value:path={AUX.format(w)}{FIXED}", "jsettlers"),
             Part("value_aux/seed1_vs_r8_86000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers"))] if w == 4 else []))
    for w in (1, 4)) + (
    ("the final-VP loss weighted 4, trained from another seed (1)", [
        ("seeds 86,000, the fixed search",
         Part("value_aux/seed1_vs_r8_86000.jsonl", f"value:path={AUX_SEED1}{FIXED}", "jsettlers"),
         Part("value_aux/seed1_vs_r8_86000.jsonl", f"value:path={ROUND8}{FIXED}", "jsettlers"))]),)
AUX_HEADLINE = (
    ("seeds 62,000, the default budget (6,000 evaluations)",
     Part("value_aux/vp4_leaves6000_vs_jsettlers_62000.jsonl", f"value:path={AUX.format(4)}:leaves=6000", "jsettlers"),
     Part("strength/pretrained_1127_vs_jsettlers.jsonl", "pretrained", "jsettlers")),
)
AUX_HEAVIER = {w: [("seeds 85,000, the fixed search",  # heavier VP losses against the shipped weight, 4
                     Part("value_aux/heavier_vs_vp4_85000.jsonl", f"value:path={AUX.format(w)}{FIXED}", "jsettlers"),
                     Part("value_aux/heavier_vs_vp4_85000.jsonl", f"value:path={AUX.format(4)}{FIXED}", "jsettlers"))]
               for w in (8, 16)}
BEST1000 = "mcts:variant=best:playouts=1000"
AUX_MCTS = (
    ("seeds 52,000, the default budget (6,000 evaluations)",
     Part("strength/pretrained_vs_best1000.jsonl", "pretrained", BEST1000),
     Part("strength/pretrained_1127_vs_best1000.jsonl", "pretrained", BEST1000)),
)
AUX_BUDGET = (  # the shipped network with four times its search budget against MCTS (set 2026-12-01)
    ("seeds 52,000, 24,000 evaluations against 6,000",
     Part("budget/leaves24000_vs_best1000.jsonl", "pretrained:leaves=24000", BEST1000),
     Part("strength/pretrained_vs_best1000.jsonl", "pretrained", BEST1000)),
)

# Games against MCTS in the training data (docs/results/exit_mcts/, pre-registered in its
# round*_command.txt): each round's network, the shipped recipe on round 8's data plus
# recorded games of a network's agent against two `best` MCTS at 300 playouts, judged
# against the shipped network on fresh seeds (the files name the networks by absolute path)
EXIT_MCTS_NET = "/work/main/results/exit_mcts{}/net/vw0.3-s0-e4-vp4.npz"
SHIPPED_FIXED = f"value:path=/work/main/results/exp11/vw0.3-s0-e4-vp4.npz{FIXED}"
EXIT_MCTS_ROUNDS = {9: ("", 53000, 87000), 10: ("2", 54000, 88000)}  # round: (folder suffix, MCTS judge seeds, JSettlersAgent judge seeds)
AUX_EXIT_MCTS = [  # (round, the opponents, the paired line-ups), the MCTS judge (the deciding one) first
    (k, against, [(games, Part(f"exit_mcts/round{k}_vs_{name}_{seeds}.jsonl", new, opponent),
                   Part(f"exit_mcts/round{k}_vs_{name}_{seeds}.jsonl", old, opponent))])
    for k, (suffix, mcts_seeds, js_seeds) in EXIT_MCTS_ROUNDS.items()
    for against, games, name, seeds, new, old, opponent in (
        ("three `best` MCTS at 1,000 playouts", f"seeds {mcts_seeds:,}, the default budget", "best1000", mcts_seeds,
         f"value:path={EXIT_MCTS_NET.format(suffix)}:leaves=6000", "pretrained", BEST1000),
        ("three `jsettlers`", f"seeds {js_seeds:,}, the fixed search", "jsettlers", js_seeds,
         f"value:path={EXIT_MCTS_NET.format(suffix)}{FIXED}", SHIPPED_FIXED, "jsettlers"))]


def aux_table(folder: str = os.path.join(ROOT, "docs", "results")) -> str:
    """The learned-agents page's block: networks trained with the final-VP head against
    round 8 (the same data without it), and the weight-4 one against the network shipped
    before it at the default budget, on the same games, counted from the files."""
    lines: List[str] = []
    for title, pairs in AUX_PAIRED:
        lines += paired_lines(folder, pairs, f"Round 8's data, {title}, and round 8",
                              ("with the VP head", "round 8"), ("VP head", "round 8"))
    for w, pairs in AUX_HEAVIER.items():
        lines += paired_lines(folder, pairs, f"Round 8's data, the final-VP loss weighted {w}, and weighted 4 (shipped)",
                              (f"weight {w}", "weight 4"), ("heavier", "weight 4"))
    lines += paired_lines(folder, AUX_HEADLINE, "The final-VP network (weight 4, shipped since) and the network "
                          "shipped before it (2026-11-27), both at the default budget",
                          ("final-VP network", "shipped before"), ("final-VP", "before"))
    lines += paired_lines(folder, AUX_MCTS, "The same two networks as `pretrained`, at the default budget",
                          ("final-VP network", "shipped before"), ("final-VP", "before"),
                          against="three `best` MCTS at 1,000 playouts")
    lines += paired_lines(folder, AUX_BUDGET, "`pretrained` (the final-VP network) with four times its search "
                          "budget and at its default", ("24,000 evaluations", "6,000 (default)"), ("4x", "default"),
                          against="three `best` MCTS at 1,000 playouts")
    for k, against, pairs in AUX_EXIT_MCTS:
        lines += paired_lines(folder, pairs, f"Round {k} (games against MCTS in its data) and the shipped network",
                              (f"round {k}", "shipped"), (f"round {k}", "shipped"), against=against)
    return "\n".join(lines + [
        "", "Counted from the per-game files in `docs/results/value_aux/`, `docs/results/strength/` "
        "(`pretrained_1127_*`: the network shipped before), `docs/results/budget/` and "
        "`docs/results/exit_mcts/` by `benchmarks/strength_table.py`."]).strip()



# Three levers judged on 2026-12-07 (docs/results/setup_rollout/, value_mcts/, rule_weights/): the
# set-up placements valued at the set-up's end and MCTS over the network, against MCTS on the seeds
# where the shipped agent had played round 9's judge; the rule-bit weights, under the Pioneers rules
LEVERS_START, LEVERS_END = "<!-- levers: start -->", "<!-- levers: end -->"
RULE_NET = "value:path=docs/results/rule_weights/net.npz:search=1"
PRETRAINED_53000 = Part("exit_mcts/round9_vs_best1000_53000.jsonl", "pretrained", BEST1000)
LEVERS_ROLLOUT = (
    ("seeds 53,000, the default budget",
     Part("setup_rollout/rollout_vs_best1000_53000.jsonl", "pretrained:opening=rollout", BEST1000), PRETRAINED_53000),
)
LEVERS_VALUE_MCTS = (  # (playouts, the paired line-ups): the second seed set set after the first's result
    (1000, (("seeds 53,000", Part("value_mcts/vs_best1000_53000.jsonl", "value_mcts:playouts=1000", BEST1000),
             PRETRAINED_53000),)),
    (3000, (("seeds 53,000", Part("value_mcts/vs_best1000_53000_p3000.jsonl", "value_mcts:playouts=3000", BEST1000),
             PRETRAINED_53000),
            ("seeds 52,000", Part("value_mcts/vs_best1000_52000_p3000.jsonl", "value_mcts:playouts=3000", BEST1000),
             Part("strength/pretrained_vs_best1000.jsonl", "pretrained", BEST1000)))),
)
LEVERS_RULES = (
    ("seeds 91,000, the fixed search, the Pioneers rules",
     Part("rule_weights/vs_jsettlers_pioneers_91000.jsonl", RULE_NET, "jsettlers"),
     Part("rule_weights/vs_jsettlers_pioneers_91000.jsonl", "pretrained:search=1", "jsettlers")),
)


def levers_table(folder: str = os.path.join(ROOT, "docs", "results")) -> str:
    """The learned-agents page's block of the 2026-12-07 levers, counted from their files."""
    lines = paired_lines(folder, LEVERS_ROLLOUT, "`pretrained:opening=rollout` (set-up placements valued at the "
                         "set-up's end) and `pretrained`", ("set-up rollouts", "`pretrained`"), ("rollouts", "pretrained"),
                         against="three `best` MCTS at 1,000 playouts")
    for playouts, pairs in LEVERS_VALUE_MCTS:
        lines += paired_lines(folder, pairs, f"`value_mcts` (the network at the leaves of `best` MCTS), {playouts:,} "
                              "playouts, and `pretrained`", ("`value_mcts`", "`pretrained`"), ("value_mcts", "pretrained"),
                              against="three `best` MCTS at 1,000 playouts")
    lines += paired_lines(folder, LEVERS_RULES, "The rule-bit weights trained on Pioneers games (shipped since "
                          "2026-12-07) and the network before, both `search=1`", ("rule bits trained", "network before"),
                          ("rule bits", "before"))
    return "\n".join(lines + [
        "", "Counted from the per-game files in `docs/results/setup_rollout/`, `docs/results/value_mcts/`, "
        "`docs/results/rule_weights/`, `docs/results/exit_mcts/` and `docs/results/strength/` by "
        "`benchmarks/strength_table.py`."]).strip()


def missing(folder: str = FOLDER) -> List[str]:
    """The README's rows left out: their files are not committed (or hold none of their games)."""
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
    if args.write:
        for doc, start, end, text in ((DOC, DOC_START, DOC_END, strength_table()),
                                      (POLICY_DOC, POLICY_START, POLICY_END, policy_table()),
                                      (POLICY_DOC, DAGGER_START, DAGGER_END, dagger_table()),
                                      (ENSEMBLE_DOC, ENSEMBLE_START, ENSEMBLE_END, ensemble_table()),
                                      (ENSEMBLE_DOC, AUX_START, AUX_END, aux_table()),
                                      (ENSEMBLE_DOC, LEVERS_START, LEVERS_END, levers_table())):
            if not replace_block(doc, start, end, text):
                raise SystemExit(f"{doc} lacks the markers {start} ... {end}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
