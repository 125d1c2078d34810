"""A league for the win-probability network: expert iteration from the shipped network
against a mixed table of opponents and rule sets, round by round, resumable.

    python examples/value_league.py --out results/league                  # runs until it stops improving
    python examples/value_league.py --out /tmp/l --games 12 --eval-games 8 --mcts-eval-games 2 \
        --mcts-playouts 20 --max-rounds 1                                  # a tiny run

Round 0 is the network shipped in the package, evaluated by the same agent as every
round (``--search`` / ``--determinizations``: the fixed search, so the games follow
their seeds).  Round
k >= 1 records games of the champion's search agent against every entry of the table
(``TABLE``: JSettlersAgent fast and smart, the trader, ``best`` MCTS at a small budget,
weighted, earlier rounds of itself, and a share of games under the Pioneers rules; each
entry is its own data folder, its share of ``--games`` set by its weight), fine-tunes
the champion's network on the last ``--window`` rounds' data (the outcome as target,
blended with the search's estimate) and is judged on the table the goals name: the same
seeded ``--eval-games`` against three JSettlersAgent and ``--mcts-eval-games`` against
three ``best`` MCTS at ``--mcts-playouts`` every round (seeds far from the training
games').  The champion is round 0 until a round wins more of the games only one of the
two won, pooled over both judges, with a two-sided sign test p < ``--alpha``: that round
is kept and the next rounds build on it; a round judged no stronger is not built on.
The league stops when ``--patience`` consecutive rounds are not kept, or after
``--max-rounds``.  Every round's network, data and games stay in ``--out``;
``league.json`` holds the rounds' figures, each round's paired comparison with the
champion, and which rounds were kept; ``best.npz`` is the last champion.  Each stage
leaves its file (a data folder resumes shard by shard, a network or a finished evaluation
is not redone), so a stopped run continues where it was.  Needs the [rl] extra.

``--challenger PATH`` judges a network trained elsewhere (another recipe, a wider
network) by the same judges on the same games and pairs it with the league's champion;
its games go to ``challenger-STEM-DIGEST.json`` beside ``league.json`` (the file's name
and the start of its sha256: judged once), and no round is recorded.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import sys

import numpy as np

from catan_env.agents.arena import run_tournament, sign_test, wilson
from catan_env.learned.network import PRETRAINED, ValueNetwork
from catan_env.agents.value.positions import generate, load_positions
from catan_env.agents.value.train import evaluate as heldout_figures
from catan_env.agents.value.train import train
from catan_env.agents.training.rounds import RoundLog, round_line, run_rounds
from catan_env.cli import HelpFormatter
from catan_env.core.options import PIONEERS_RULES

ROBOT = "jsettlers"
# name: (seats, rule options, weight).  "agent" = the champion's search agent (the network
# round k fine-tunes), "past" = an earlier round's agent (``past_round``: the shipped network
# at round 1; it may be the champion itself, or a round that was not kept).
TABLE = {
    "jsettlers": (["agent", "agent", ROBOT, ROBOT], {}, 3),
    "smart": (["agent", "jsettlers:strategy=smart", "jsettlers:strategy=smart", ROBOT], {}, 2),
    "trader": (["agent", "agent", "trader", ROBOT], {}, 1),
    "mcts": (["agent", "mcts:variant=best:playouts=300", "mcts:variant=best:playouts=300", ROBOT], {}, 1),
    "weighted": (["agent", "weighted", "weighted", ROBOT], {}, 1),
    "past": (["agent", "past", ROBOT, ROBOT], {}, 1),
    "pioneers": (["agent", "agent", ROBOT, ROBOT], dict(PIONEERS_RULES), 2),
}
EVAL_SEED = 7_000_000  # evaluation games: far from every training seed (seed + round * 1000 + entry)


def agent_spec(net_path, args):
    return f"value:path={net_path}:search={args.search}:determinizations={args.determinizations}"


def games_per_entry(total, table):
    """Games per table entry: total shared by weight (largest remainders), at least one each."""
    weights = np.array([w for _, _, w in table.values()], float)
    exact = total * weights / weights.sum()
    games = np.maximum(np.floor(exact).astype(int), 1)
    for i in np.argsort(-(exact - np.floor(exact)))[:max(0, total - games.sum())]:
        games[i] += 1
    return dict(zip(table, games.tolist()))


def past_round(k, rng_seed):
    """The earlier round whose agent fills a "past" seat in round k (drawn from the seed among
    rounds 0 to k-2, kept or not)."""
    return int(np.random.default_rng([rng_seed, k]).integers(0, max(1, k - 1))) if k > 1 else 0


def record_round(k, prev, args, out):
    """Round k's games, prev's agent (the champion's) against each table entry, one data
    folder per entry; returns the folders."""
    past = os.path.join(out, f"round-{past_round(k, args.seed)}.npz")
    folders = []
    for i, (name, games) in enumerate(games_per_entry(args.games, TABLE).items()):
        seats, options, _ = TABLE[name]
        specs = [agent_spec(prev, args) if s == "agent" else agent_spec(past, args) if s == "past" else s
                 for s in seats]
        folder = os.path.join(out, f"data-{k}", name)
        generate(folder, specs, games, seed=args.seed + 1000 * k + i, sample=args.sample, options=options,
                 workers=args.workers, progress=lambda line, n=name: print(f"round {k} {n}: {line}"),
                 note=f"league round {k}: {name}")
        folders.append(folder)
    return folders


def judges(args):
    """(name, the three opponents' spec, games, seed) of each table a round is judged on."""
    return [("jsettlers", ROBOT, args.eval_games, EVAL_SEED),
            ("mcts", f"mcts:variant=best:playouts={args.mcts_playouts}", args.mcts_eval_games, EVAL_SEED + 1)]


def evaluate(net_path, args):
    """The agent's games against each judge: per judge its figures and each game's result
    (1 won, 0 not; in the schedule's order, so two rounds' games pair up); pooled figures
    for the round's line."""
    agent = agent_spec(net_path, args)
    out = {}
    for name, opponent, games, seed in judges(args):
        if games == 0:
            continue
        results = run_tournament([agent] + [opponent] * 3, games, seed=seed, workers=args.workers, progress=False)
        won = [int(r["winner"] >= 0 and r["specs"][r["winner"]] == agent) for r in results]
        out[name] = {"opponents": f"3 x {opponent}", "games": games, "wins": sum(won), "win_rate": sum(won) / games,
                     "ci": list(wilson(sum(won), games)), "won": won}
    wins, n = sum(j["wins"] for j in out.values()), sum(j["games"] for j in out.values())
    return {"opponents": " and ".join(f"{j['opponents']} ({j['games']} games)" for j in out.values()), "games": n, "wins": wins, "win_rate": wins / n,
            "ci": list(wilson(wins, n)), "judges": out}


def versus(new, old):
    """Two rounds' judged games, paired game by game over every judge: the games both
    played, those only the new round won and only the old, and the sign test's p."""
    games = only_new = only_old = 0
    for name, judged in new.items():
        for a, b in zip(judged["won"], old.get(name, {}).get("won", [])):
            games += 1
            only_new += a > b
            only_old += b > a
    return {"games": games, "only_new": only_new, "only_old": only_old, "p": sign_test(only_new, only_old)}


def stronger(comparison, alpha):
    """Whether the new round beat the champion: more of the games only one won, p < alpha."""
    return comparison["only_new"] > comparison["only_old"] and comparison["p"] < alpha


def verdict(k, figures, rounds, alpha):
    """Round k's judged figures with the verdict: round 0 (the shipped network) is the first
    champion; a later round is paired with the champion before it (``vs_champion``) and
    ``kept`` when it was stronger."""
    figures = dict(figures)
    if k == 0:
        figures["kept"] = True
    else:
        best = champion(rounds, k)
        figures["vs_champion"] = dict(versus(figures["judges"], best["eval"]["judges"]), champion=best["round"])
        figures["kept"] = stronger(figures["vs_champion"], alpha)
    return figures


def champion(rounds, k):
    """The last round before k that was kept (round 0, the shipped network, is kept)."""
    return max((r for r in rounds if r["round"] < k and r.get("eval", {}).get("kept")), key=lambda r: r["round"])


def judge_challenger(path, args, rounds):
    """The network at ``path`` judged like a round and paired with the champion of the
    judged ``rounds``: (its figures with ``vs_champion`` and ``kept``, the file they are
    kept in).  Judged once: a file written before for the same network is read back."""
    judged = [r for r in rounds if "eval" in r]
    if not judged:
        raise ValueError(f"{args.out} has no judged round yet, so no champion to pair a challenger with; "
                         f"run the league first")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", os.path.splitext(os.path.basename(path))[0])
    record = os.path.join(args.out, f"challenger-{stem}-{digest[:12]}.json")  # one file per network
    saved = None
    if os.path.exists(record):
        try:
            with open(record) as f:
                saved = json.load(f)
        except (OSError, ValueError) as e:
            raise ValueError(f"{record} is not a challenger record (JSON): {e}; move it away to judge again") from e
        if not isinstance(saved, dict) or saved.get("sha256") != digest or "eval" not in saved:
            raise ValueError(f"{record} is not the record of {path} (its digest or games differ); move it away "
                             f"to judge again")
    if saved is None:
        saved = {"network": path, "sha256": digest, "agent": agent_spec(path, args), "eval": evaluate(path, args)}
    saved["eval"] = verdict(max(r["round"] for r in judged) + 1, saved["eval"], judged, args.alpha)
    tmp = record + ".tmp"
    with open(tmp, "w") as f:
        json.dump(saved, f, indent=1)
    os.replace(tmp, record)
    return saved["eval"], record


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--out", default="results/league", help="folder of round-k.npz, data-k/, league.json")
    ap.add_argument("--games", type=int, default=1000, help="games recorded per round, shared over the table")
    ap.add_argument("--eval-games", type=int, default=400, help="games against three JSettlersAgent per round")
    ap.add_argument("--mcts-eval-games", type=int, default=200,
                    help="games against three best MCTS per round (0: judged by JSettlersAgent alone)")
    ap.add_argument("--mcts-playouts", type=int, default=1000, help="the judging MCTS's playouts a decision")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="a round replaces the champion when ahead in the paired games with sign test p < ALPHA")
    ap.add_argument("--patience", type=int, default=2, help="stop after this many rounds in a row not kept")
    ap.add_argument("--max-rounds", type=int, default=50, help="stop after this round in any case")
    ap.add_argument("--window", type=int, default=4, help="train on the data of the last WINDOW rounds")
    ap.add_argument("--sample", type=float, default=0.15, help="share of decisions whose state is kept")
    ap.add_argument("--search", type=int, default=1, help="the agent's extra plies (0 greedy, 1, 2)")
    ap.add_argument("--determinizations", type=int, default=2, help="the agent's determinizations per decision")
    ap.add_argument("--epochs", type=int, default=2, help="fine-tuning passes per round (best held-out epoch kept)")
    ap.add_argument("--lr", type=float, default=1e-4, help="Adam learning rate (cosine-annealed)")
    ap.add_argument("--dropout", type=float, default=0.3, help="dropout after each hidden layer while training")
    ap.add_argument("--weight-decay", type=float, default=1e-3, help="Adam weight decay")
    ap.add_argument("--value-weight", type=float, default=0.3, help="target = outcome blended with the search's estimate")
    ap.add_argument("--vp-weight", type=float, default=0.0,
                    help="weight of an auxiliary loss while fine-tuning: each seat's final VP (0: none; the "
                         "VP head starts at random, and the printed training loss includes it)")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--seed", type=int, default=100_000, help="seed of the recorded games and the training")
    ap.add_argument("--challenger", metavar="PATH", default=None,
                    help="judge this network file on the league's games against its champion, record no round")
    args = ap.parse_args(argv)
    for name in ("games", "eval_games", "patience", "window", "max_rounds", "determinizations", "mcts_playouts"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.mcts_eval_games < 0:
        ap.error(f"--mcts-eval-games must be at least 0, got {args.mcts_eval_games}")
    if not args.vp_weight >= 0:
        ap.error(f"--vp-weight: 0 or more, not {args.vp_weight}")
    if not 0 < args.alpha < 1:
        ap.error(f"--alpha must be between 0 and 1, got {args.alpha}")
    sys.stdout.reconfigure(line_buffering=True)
    os.makedirs(args.out, exist_ok=True)
    # the rounds are compared on the same evaluation games by the same agent: those settings must hold
    try:
        log = RoundLog(os.path.join(args.out, "league.json"), settings=vars(args),
                       fixed=("eval_games", "mcts_eval_games", "mcts_playouts", "alpha", "search", "determinizations",
                              "seed", "sample"))
    except ValueError as e:
        ap.error(str(e))
    unpaired = [r["round"] for r in log.rounds if "eval" in r and "judges" not in r["eval"]]
    if unpaired:
        ap.error(f"{args.out} holds rounds {unpaired} judged by an earlier version of value_league.py (by "
                 f"JSettlersAgent alone, without each game's result, so no round can be paired with them); "
                 f"use another folder")

    if args.challenger is not None:
        try:
            ValueNetwork.load(args.challenger)
        except ValueError as e:
            ap.error(f"--challenger: {e}")
        try:
            figures, record = judge_challenger(args.challenger, args, log.rounds)
        except ValueError as e:
            ap.error(str(e))
        print(_challenger_line(args.challenger, figures) + f" (its games: {record})")
        return 0

    first = os.path.join(args.out, "round-0.npz")
    if not os.path.exists(first):  # the shipped network, widened to today's features, as round 0
        ValueNetwork.load(PRETRAINED).save(first)

    def fine_tune(k, prev_path, net_path):
        folders = [os.path.join(args.out, f"data-{j}", name) for j in range(max(1, k - args.window + 1), k + 1)
                   for name in TABLE]
        rows = load_positions(*folders)
        print(f"round {k}: fine-tuning the champion ({os.path.basename(prev_path)}) on {len(rows['game'])} "
              f"positions from {len(folders)} folders")
        prev = ValueNetwork.load(prev_path)
        hidden = [w.shape[1] for w, _, _ in prev.weights.layers[:-1]]
        fit = train(rows, hidden=hidden, epochs=args.epochs, lr=args.lr, dropout=args.dropout,
                    weight_decay=args.weight_decay, value_weight=args.value_weight, seed=args.seed + k,
                    init=prev, vp_weight=args.vp_weight, progress=print)
        fit["network"].meta.update(round=k, positions=int(len(rows["game"])), league=list(TABLE))
        fit["network"].save(net_path)
        before = heldout_figures(prev, rows, fit["heldout_mask"])  # the champion on the same held-out games
        return {"heldout": {key: v for key, v in (fit["heldout"] or {}).items() if key != "calibration"},
                "heldout_before": {key: v for key, v in before.items() if key != "calibration"}}

    rounds = run_rounds(log, range(args.max_rounds + 1), lambda k: os.path.join(args.out, f"round-{k}.npz"),
                        lambda k, prev: {"folders": record_round(k, prev, args, args.out)}, fine_tune,
                        lambda k, path: verdict(k, evaluate(path, args), log.rounds, args.alpha),
                        stop=lambda rounds: stopped(rounds, args.patience), report=lambda entry: print(_line(entry)),
                        keep=lambda entry: entry["eval"]["kept"])
    best = champion(rounds, len(rounds))
    print(f"champion: round {best['round']} ({best['eval']['win_rate']:.3f} of its judged games); its network: "
          f"{os.path.join(args.out, 'round-%d.npz' % best['round'])}")
    shutil.copyfile(os.path.join(args.out, f"round-{best['round']}.npz"), os.path.join(args.out, "best.npz"))
    return 0


def stopped(rounds, patience):
    """True when the last ``patience`` rounds after round 0 were all judged no stronger than
    their champion (none kept)."""
    judged = [r for r in sorted(rounds, key=lambda r: r["round"]) if r["round"] > 0 and "eval" in r]
    return len(judged) >= patience and not any(r["eval"]["kept"] for r in judged[-patience:])


def _line(entry):
    t = entry.get("train") or {}
    h, b = t.get("heldout") or {}, t.get("heldout_before") or {}
    loss = (f"; held-out log loss {h['log_loss']:.3f} (the champion: {b['log_loss']:.3f})"
            if "log_loss" in h and "log_loss" in b else "")
    line = round_line(entry, _judged(entry["eval"]) + loss)
    c = entry["eval"].get("vs_champion")
    if c is None:
        return line + "; the first champion"
    return line + f"; {_paired(c)}: " + ("kept: the new champion" if entry["eval"]["kept"] else "not kept")


def _challenger_line(path, figures):
    """The challenger's judged games and its pairing with the champion, as one line."""
    verdict = "stronger than the champion" if figures["kept"] else "not shown stronger than the champion"
    return f"challenger {path}: {_judged(figures)}; {_paired(figures['vs_champion'])}: {verdict}"


def _judged(figures):
    """Wins per judge, as words."""
    return ", ".join(f"{j['wins']}/{j['games']} against {j.get('opponents', name)}"
                     for name, j in figures["judges"].items())


def _paired(c):
    """A pairing with the champion (``versus`` and its round), as words."""
    return (f"against round {c['champion']} on the same {c['games']} games: won {c['only_new']} it did not, "
            f"lost {c['only_old']} it won (sign test p = {c['p']:.3f})")


if __name__ == "__main__":
    raise SystemExit(main())
