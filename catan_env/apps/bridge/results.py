"""A match's results on a server, as the bridges' commands report them."""
import json
import os
from typing import Any, Callable, Dict, List

from ...agents.arena import wilson


def games_so_far(out: str, same_match: Callable[[Dict[str, Any]], bool]) -> List[Dict[str, Any]]:
    """The lines of ``out/games.jsonl`` (a resumable match's file, made if missing) that
    belong to this match: a run resumes after them."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "games.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [g for g in (json.loads(line) for line in f if line.strip()) if same_match(g)]


def summarize(games: List[Dict[str, Any]], ours: int) -> Dict[str, Any]:
    """Win rate of our seats (95% Wilson), mean VP, mean length, failed games, rejected
    moves, mirror mismatches, and the moves our agents or the client replaced (fallbacks)."""
    done = [g for g in games if "error" not in g]
    wins = sum(1 for g in done if g["winner"] in g["our_seats"])
    vp = [v for g in done for v in g["our_vp"]]
    lo, hi = wilson(wins, len(done))
    return {"games": len(done), "failed": len(games) - len(done), "wins": wins,
            "win_rate": wins / len(done) if done else 0.0, "ci95": [lo, hi],
            "mean_vp": sum(vp) / len(vp) if vp else 0.0,
            "mean_turns": sum(g["turns"] for g in done) / len(done) if done else 0.0,
            "rejected": sum(g["rejected"] for g in games),
            "mismatches": sum(g["mismatches"] for g in games),
            "fallbacks": sum(g.get("fallbacks", 0) for g in games), "ours": ours,
            "parity": ours / 4}


SEAT_FIGURES = ("opening_pips", "settlements", "cities", "roads", "knights", "largest_army",
                "longest_road", "public_vp")


def compare_seats(games: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Means of each per-seat figure (``seat_stats``) over the finished games that record
    them, for our seats and for the server's seats apart: what our agents build that the
    server's players do not (``largest_army`` and ``longest_road`` as the share of seats
    holding the card at the end)."""
    done = [g for g in games if "error" not in g and g.get("seat_stats")]
    sums = {"ours": dict.fromkeys(SEAT_FIGURES, 0.0), "theirs": dict.fromkeys(SEAT_FIGURES, 0.0)}
    seats = {"ours": 0, "theirs": 0}
    for g in done:
        for p, stats in enumerate(g["seat_stats"]):
            side = "ours" if p in g["our_seats"] else "theirs"
            seats[side] += 1
            for k in SEAT_FIGURES:
                sums[side][k] += stats[k]
    return {"games": len(done), **{side: {k: v / seats[side] if seats[side] else 0.0 for k, v in sums[side].items()}
                                   for side in sums}}
