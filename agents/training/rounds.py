"""Expert iteration, round by round, resumable: record games with the previous round's
network (or the last round kept, with ``keep``), train this round's network on them, judge it.

:func:`run_rounds` drives the stages a recipe passes in; :class:`RoundLog` is the run's
JSON log (``{"settings": {...}, "rounds": [...]}``, written atomically after each
stage).  Each stage leaves its file: the data folder resumes shard by shard
(:mod:`.shards`), a round whose network file exists is not trained again, and a round
whose evaluation is logged is done, so a stopped run continues where it was.
"""
import json
import os
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence


class RoundLog:
    """The run's log at ``path``.  ``settings``: what the run was started with; the
    ``fixed`` ones must be the same when a run resumes (its rounds are compared on them),
    or :class:`ValueError` names the difference."""

    def __init__(self, path: str, settings: Optional[Dict[str, Any]] = None, fixed: Sequence[str] = ()) -> None:
        self.path = path
        self.settings: Dict[str, Any] = dict(settings or {})
        self.rounds: List[Dict[str, Any]] = []
        if os.path.exists(path):
            with open(path) as f:
                saved = json.load(f)
            if not isinstance(saved, dict) or not isinstance(saved.get("rounds"), list) \
                    or not isinstance(saved.setdefault("settings", {}), dict) \
                    or not all(isinstance(r, dict) for r in saved["rounds"]):
                raise ValueError(f"{path} is not a round log (a JSON object with settings and a list of rounds)")
            changed = {k: (saved["settings"].get(k), self.settings.get(k)) for k in fixed
                       if k in saved["settings"] and saved["settings"].get(k) != self.settings.get(k)}
            if changed:
                raise ValueError(f"{os.path.dirname(path) or '.'} holds a run with other settings "
                                 f"(saved, given): {changed}; use another folder")
            self.settings = dict(saved["settings"], **self.settings) if self.settings else saved["settings"]
            self.rounds = saved["rounds"]

    def entry(self, k: int) -> Dict[str, Any]:
        """Round k's entry (a new one, not yet saved, when the round has none)."""
        found = next((r for r in self.rounds if r["round"] == k), None)
        return found if found is not None else {"round": k, "seconds": {}}

    def save(self, entry: Dict[str, Any]) -> None:
        """Put round ``entry`` in the log (replacing that round's) and write the file atomically."""
        self.rounds[:] = sorted([r for r in self.rounds if r["round"] != entry["round"]] + [entry],
                                key=lambda r: r["round"])
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"settings": self.settings, "rounds": self.rounds}, f, indent=1, default=_plain)
        os.replace(tmp, self.path)


# stage signatures: record(k, previous network or None) -> figures; train(k, previous
# network or None, path to write) -> figures; evaluate(k, network path) -> figures
Record = Callable[[int, Optional[str]], Optional[Dict[str, Any]]]
Train = Callable[[int, Optional[str], str], Dict[str, Any]]
Evaluate = Callable[[int, str], Dict[str, Any]]


def run_rounds(log: RoundLog, rounds: Iterable[int], network_path: Callable[[int], str], record: Record,
               train: Train, evaluate: Optional[Evaluate] = None,
               stop: Optional[Callable[[List[Dict[str, Any]]], bool]] = None,
               report: Optional[Callable[[Dict[str, Any]], None]] = None,
               previous: Optional[str] = None,
               keep: Optional[Callable[[Dict[str, Any]], bool]] = None) -> List[Dict[str, Any]]:
    """Run the rounds in order.  Round k, unless its network file exists: ``record``
    (its figures go to the entry's ``data``), then ``train`` (to ``train``); then
    ``evaluate`` (to ``eval``) unless logged.  ``previous``: the network round one
    builds on (None: the first round has none); each round builds on the round before,
    or, with ``keep``, on the last round ``keep(entry)`` accepted (a round judged weaker
    is not built on; ``keep`` is asked of every round, those done in an earlier run too, with
    the entry as logged).  ``report(entry)`` after each round; ``stop(rounds)`` ends the run
    early.  Returns the log's rounds."""
    for k in rounds:
        entry = log.entry(k)
        path = network_path(k)
        done = os.path.exists(path) and (evaluate is None or "eval" in entry)
        if not done:
            if not os.path.exists(path):
                t = time.perf_counter()
                entry["data"] = record(k, previous) or {}
                entry["seconds"]["data"] = time.perf_counter() - t
                t = time.perf_counter()
                entry["train"] = train(k, previous, path)
                entry["seconds"]["train"] = time.perf_counter() - t
                log.save(entry)
            if evaluate is not None:
                t = time.perf_counter()
                entry["eval"] = evaluate(k, path)
                entry["seconds"]["eval"] = time.perf_counter() - t
                log.save(entry)
        if report:
            report(entry)
        if keep is None or keep(entry):
            previous = path
        if stop is not None and stop(log.rounds):
            break
    return log.rounds


def round_line(entry: Dict[str, Any], heldout: str) -> str:
    """One line a person reads for an evaluated round: its games against the opponents,
    heldout (what the loop says of its held-out positions) and each stage's seconds."""
    e = entry["eval"]
    seconds = json.dumps({k: round(v) for k, v in entry["seconds"].items()})
    return (f"round {entry['round']}: {e['wins']}/{e['games']} = {e['win_rate']:.3f} "
            f"[{e['ci'][0]:.3f}, {e['ci'][1]:.3f}] against {e['opponents']}; {heldout}; stage seconds {seconds}")


def _plain(x: Any) -> Any:
    """numpy scalars and arrays in the log as plain JSON."""
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"{type(x).__name__} is not JSON")
