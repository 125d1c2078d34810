"""Learning curves of train_ppo_batched.py runs: greedy win rate (with its 95% Wilson
interval) against each evaluation opponent, over wall-clock minutes.

    python examples/plot_training.py runs/ppo runs/league --out docs/ppo_curves.png

Runs are drawn one after the other on the time axis when a later run started from an
earlier one's weights (``--init``), so a curriculum reads as one curve.
"""
import argparse
import csv
import os
from catan_env.cli import HelpFormatter

OPPONENT_COLOURS = {"random": "tab:green", "weighted": "tab:blue", "jsettlers": "tab:red"}


def read_curve(path):
    with open(os.path.join(path, "curve.csv")) as f:
        return list(csv.DictReader(f))


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("runs", nargs="+", help="run folders (each with curve.csv), in training order")
    ap.add_argument("--out", default="ppo_curves.png", help="PNG to write")
    ap.add_argument("--title", default="PPO on the batched env (greedy policy, fresh games)", help="figure title")
    args = ap.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    offset = 0.0
    for k, run in enumerate(args.runs):
        rows = read_curve(run)
        for opp in sorted({r["opponent"] for r in rows}):
            pts = [r for r in rows if r["opponent"] == opp]
            x = [offset + float(r["minutes"]) for r in pts]
            ax.plot(x, [float(r["win_rate"]) for r in pts], marker="o", ms=3,
                    color=OPPONENT_COLOURS.get(opp), label=f"vs 3 {opp}" if k == 0 or opp == "jsettlers" else None)
            ax.fill_between(x, [float(r["lo"]) for r in pts], [float(r["hi"]) for r in pts],
                            color=OPPONENT_COLOURS.get(opp), alpha=0.15)
        end = offset + max(float(r["minutes"]) for r in rows)
        if k < len(args.runs) - 1:
            ax.axvline(end, color="grey", lw=0.8, ls=":")
            ax.text(end, 0.02, f" {os.path.basename(os.path.normpath(args.runs[k + 1]))} ->",
                    fontsize=8, color="grey")
        offset = end
    ax.axhline(0.25, color="grey", ls="--", lw=1, label="parity (4 players)")
    ax.set_xlabel("training wall-clock minutes (2-core machine, one torch thread)")
    ax.set_ylabel("win rate")
    ax.set_ylim(0, 1)
    ax.set_title(args.title)
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    ax.legend(seen.values(), seen.keys(), loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
