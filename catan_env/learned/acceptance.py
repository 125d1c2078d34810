"""Acceptance models: the chance that an opponent of one kind takes a domestic offer, a
logistic regression over what the offering seat can see (the offer, the partner's cards
as its view holds them, both seats' public VP, the turn), fitted to the offers and
answers the bridges log (``offer_log`` in a ``games.jsonl`` line) and shipped as a small
JSON file per opponent kind (``weights/acceptance-<kind>.json``).

    model = load_acceptance("jsettlers-smart")
    p = model.probabilities(view, seat, offers)     # (offers, players - 1): partner (seat + k) % n
    python -m catan_env.learned.acceptance fit --kind jsettlers-smart RUN/games.jsonl ...

The value agent (``pretrained:accept=jsettlers-smart``) weights each partner's gain from
an offer by its chance to take it, so that an offer likely refused is still made when it
pays enough, and one a partner would take is preferred to a larger one it never would.
"""
import argparse
import datetime
import json
import os
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from catan_env.core import actions as A
from catan_env.core import layout as L

WEIGHTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights")
# what each seat answered an offer, in the bridges' offer logs (``offer_record``)
ANSWER_NONE, ANSWER_REJECT, ANSWER_ACCEPT, ANSWER_COUNTER, ANSWER_COUNTER_TAKEN, ANSWER_SELF, ANSWER_NOT_ASKED = range(7)
ANSWER_NAMES = ("none", "reject", "accept", "counter", "counter taken", "offerer", "not asked")
FEATURES = (["bias", "can_pay", "asked_held", "cards", "asks_two", "gives_two"]
            + [f"asks_{r}" for r in L.RESOURCE_NAMES] + [f"gives_{r}" for r in L.RESOURCE_NAMES]
            + ["partner_vp", "own_vp", "turn"])
N_FEATURES = len(FEATURES)
# version 2 adds what the trade does to the partner's next build, from its whole hand: the
# SMART robots take an offer that brings their next build nearer and refuse a player close
# to winning (SOCRobotNegotiator.considerOffer2)
BUILDS = {"road": (1, 1, 0, 0, 0), "settlement": (1, 1, 1, 1, 0), "city": (0, 0, 0, 2, 3), "card": (0, 0, 1, 1, 1)}
FEATURES_V2 = FEATURES + [f"nearer_{b}" for b in BUILDS] + ["nearer_next_build", "offerer_near_win"]
FEATURE_SETS = {1: FEATURES, 2: FEATURES_V2}
_COSTS = np.array(list(BUILDS.values()))


def build_features(hand: Sequence[int], menu: int, own_vp: int) -> List[float]:
    """Version 2's extra inputs: for each build, how many fewer cards the partner lacks for
    it after taking the offer (it gives what is asked, gets what is offered), the same for
    its nearest build, and whether the offerer is within 2 VP of 10."""
    before = np.asarray(hand, dtype=np.int64)
    after = before.copy()
    after[A.MENU_GET_RES[menu]] -= A.MENU_GET_N[menu]
    after[A.MENU_GIVE_RES[menu]] += A.MENU_GIVE_N[menu]
    lack_before = np.maximum(_COSTS - before, 0).sum(1)
    lack_after = np.maximum(_COSTS - np.maximum(after, 0), 0).sum(1)
    return [*(lack_before - lack_after).tolist(), float(lack_before.min() - lack_after.min()), float(own_vp >= 8)]


def offer_record(state: np.ndarray, seat: int, menu: int, to: Optional[Sequence[int]] = None) -> List[Any]:
    """One offer of ``seat``'s as a bridge logs it (``offer_log`` in its game lines), for
    the acceptance models: [turn, menu entry, every seat's answer (``ANSWER_*``:
    ``ANSWER_SELF`` for the offerer, ``ANSWER_NOT_ASKED`` for a seat not among ``to``;
    the bridge fills the others in as the answers come), every seat's card count, public
    VP, count of the resource asked for, and hand, as the offerer's mirror holds them]
    (the hands since 2026-12-08)."""
    n = int(state[L.OPT_PLAYERS])
    asked = int(A.MENU_GET_RES[menu])
    return [int(state[L.TURN]), int(menu), [ANSWER_SELF if p == seat else ANSWER_NONE if to is None or p in to
                                            else ANSWER_NOT_ASKED for p in range(n)],
            [int(sum(state[L.hand_i(p, r)] for r in range(L.N_RES))) for p in range(n)],
            [int(state[L.PUBLIC_VP + p]) for p in range(n)],
            [int(state[L.hand_i(p, asked)]) for p in range(n)],
            [[int(state[L.hand_i(p, r)]) for r in range(L.N_RES)] for p in range(n)]]


class OfferLog:
    """Offer records (``offer_record``) of a game played in the core, built from its
    decisions as they come: ``see(seat, view, action)`` with each decider's view before
    its move (an arena game's offers, for the acceptance models of our own agents)."""

    def __init__(self) -> None:
        self.records: List[List[Any]] = []
        self._open: Optional[List[Any]] = None

    def see(self, seat: int, view: np.ndarray, action: int) -> None:
        if A.OFFER0 <= action < A.OFFER0 + A.N_MENU:
            self._open = offer_record(view, seat, action - A.OFFER0)
            self.records.append(self._open)
        elif self._open is None:
            return
        elif action == A.TRADE_ACCEPT:
            self._open[2][seat] = ANSWER_ACCEPT
        elif action == A.TRADE_REJECT:
            self._open[2][seat] = ANSWER_REJECT
        elif A.COUNTER0 <= action < A.COUNTER0 + A.N_MENU:
            self._open[2][seat] = ANSWER_COUNTER
        elif A.CONFIRM0 <= action < A.TRADE_CANCEL:
            partner = int(A.confirm_partner(action, seat, int(view[L.OPT_PLAYERS])))
            if self._open[2][partner] == ANSWER_COUNTER:
                self._open[2][partner] = ANSWER_COUNTER_TAKEN
            self._open = None
        elif action == A.TRADE_CANCEL:
            self._open = None


def offer_features(menu: int, cards: int, asked_held: int, partner_vp: int, own_vp: int, turn: int,
                   hand: Optional[Sequence[int]] = None, version: int = 1) -> np.ndarray:
    """The model's inputs for menu offer ``menu`` to a partner holding ``cards`` cards, of
    them ``asked_held`` of the resource asked for (as the offerer's view holds them);
    version 2 also reads the partner's whole ``hand``."""
    x = np.zeros(len(FEATURE_SETS[version]))
    get_res, get_n = int(A.MENU_GET_RES[menu]), int(A.MENU_GET_N[menu])
    give_res, give_n = int(A.MENU_GIVE_RES[menu]), int(A.MENU_GIVE_N[menu])
    x[0] = 1.0
    x[1] = float(asked_held >= get_n)
    x[2] = min(asked_held, 4) / 4.0
    x[3] = min(cards, 15) / 10.0
    x[4], x[5] = float(get_n == 2), float(give_n == 2)
    x[6 + get_res] = 1.0
    x[6 + L.N_RES + give_res] = 1.0
    x[6 + 2 * L.N_RES] = partner_vp / 10.0
    x[7 + 2 * L.N_RES] = own_vp / 10.0
    x[8 + 2 * L.N_RES] = min(turn, 200) / 100.0
    if version == 2:
        if hand is None:
            raise ValueError("version 2 features read the partner's whole hand")
        x[N_FEATURES:] = build_features(hand, menu, own_vp)
    return x


class AcceptanceModel:
    """A fitted model (``coef`` over ``FEATURES``) and what it was fitted on (``meta``)."""

    def __init__(self, coef: Union[Sequence[float], np.ndarray], meta: Optional[Dict[str, Any]] = None,
                 version: int = 1) -> None:
        if version not in FEATURE_SETS:
            raise ValueError(f"feature version {version!r}: this version knows {sorted(FEATURE_SETS)}")
        self.version = version
        self.features = FEATURE_SETS[version]
        self.coef = np.asarray(coef, dtype=np.float64)
        if self.coef.shape != (len(self.features),):
            raise ValueError(f"an acceptance model of version {version} has {len(self.features)} coefficients "
                             f"({', '.join(self.features)}), got {self.coef.shape}")
        self.meta = dict(meta or {})

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-np.clip(x @ self.coef, -30, 30)))

    def probabilities(self, view: np.ndarray, seat: int, offers: np.ndarray) -> np.ndarray:
        """out[i, k - 1]: the chance partner (seat + k) % players takes offer ``offers[i]``
        (TRADE_OFFER ids) in view; 0 for seats past the game's players."""
        n = int(view[L.OPT_PLAYERS])
        out = np.zeros((len(offers), L.MAX_PLAYERS - 1))
        for k in range(1, n):
            q = (seat + k) % n
            hand = [int(view[L.hand_i(q, r)]) for r in range(L.N_RES)]
            rows = np.array([offer_features(int(a) - A.OFFER0, sum(hand), hand[A.MENU_GET_RES[int(a) - A.OFFER0]],
                                            int(view[L.PUBLIC_VP + q]), int(view[L.PUBLIC_VP + seat]), int(view[L.TURN]),
                                            hand, self.version)
                             for a in offers]).reshape(len(offers), len(self.features))
            out[:, k - 1] = self.probability(rows)
        return out

    def save(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump({"version": self.version, "features": self.features,
                       "coef": [round(float(c), 6) for c in self.coef], **self.meta}, f, indent=1)
            f.write("\n")


def acceptance_path(kind: str) -> str:
    return os.path.join(WEIGHTS, f"acceptance-{kind}.json")


def acceptance_kinds() -> List[str]:
    """The opponent kinds with a shipped model."""
    return sorted(name[len("acceptance-"):-len(".json")] for name in os.listdir(WEIGHTS)
                  if name.startswith("acceptance-") and name.endswith(".json"))


def load_acceptance(kind: str) -> AcceptanceModel:
    """The shipped model of an opponent kind (``acceptance_kinds()``), or a file's."""
    path = kind if kind.endswith(".json") else acceptance_path(kind)
    if not os.path.isfile(path):
        raise ValueError(f"no acceptance model {kind!r}: the shipped kinds are {', '.join(acceptance_kinds()) or 'none'}")
    try:
        with open(path) as f:
            data = json.load(f)
        version = int(data.get("version", 1))
        if version not in FEATURE_SETS or list(data["features"]) != FEATURE_SETS[version]:
            raise ValueError(f"its features {data['features']} are not this version's {FEATURE_SETS.get(version)}")
        return AcceptanceModel(data["coef"], {k: v for k, v in data.items() if k not in ("features", "coef", "version")},
                               version)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not an acceptance model ({exc})") from None


def samples(lines: Iterable[Dict[str, Any]], version: int = 1,
            responder: Optional[str] = None) -> Tuple[np.ndarray, np.ndarray]:
    """(features, taken) of every answer a partner gave to a logged offer (version 2: of
    the offers logged with every seat's hand); not the answers of our own seats (a line's
    ``our_seats``), nor a seat that gave none (an offer never shown, or taken by another
    seat first); ``responder``: only the answers of the seats this agent spec played, in
    lines that name each seat's spec (``specs``, as the arena's offers.jsonl does)."""
    xs: List[np.ndarray] = []
    ys: List[float] = []
    for g in lines:
        for turn, menu, answers, cards, vp, asked, *hands in g.get("offer_log", []):
            if version == 2 and not hands:
                continue
            seat = answers.index(ANSWER_SELF)
            ours = set(g.get("our_seats", [])) | {seat}
            for q, answer in enumerate(answers):
                if responder is not None and g.get("specs", [None] * len(answers))[q] != responder:
                    continue
                # (no answer is no sample: an offer never shown, or taken by another first)
                if q not in ours and answer not in (ANSWER_NOT_ASKED, ANSWER_NONE):
                    xs.append(offer_features(menu, cards[q], asked[q], vp[q], vp[seat], turn,
                                             hands[0][q] if hands else None, version))
                    ys.append(float(answer == ANSWER_ACCEPT))
    return np.array(xs).reshape(-1, len(FEATURE_SETS[version])), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Logistic regression by Newton's method with an L2 penalty (not on the bias)."""
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def log_loss(model: AcceptanceModel, x: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(model.probability(x), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def _read(paths: Sequence[str]) -> List[Dict[str, Any]]:
    lines = []
    for path in paths:
        with open(path) as f:
            lines += [json.loads(t) for t in f if t.strip()]
    return [g for g in lines if "error" not in g]


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m catan_env.learned.acceptance", allow_abbrev=False,
                                description="Fit an opponent kind's acceptance model to logged offers.",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit", help="fit and save weights/acceptance-KIND.json", allow_abbrev=False,
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    f.add_argument("games", nargs="+", help="games.jsonl files whose lines carry offer_log")
    f.add_argument("--kind", required=True, help="the opponent kind, e.g. jsettlers-smart")
    f.add_argument("--holdout", type=float, default=0.2, help="share of the games held out to judge the fit")
    f.add_argument("--out", default=None, help="where to write (default: the shipped weights folder)")
    f.add_argument("--responder", default=None, help="only the answers of the seats this agent spec played "
                   "(in an arena's offers.jsonl, whose lines name each seat's spec)")
    f.add_argument("--features", type=int, choices=sorted(FEATURE_SETS), default=1,
                   help="the feature version (2: also what the trade does to the partner's next build)")
    args = p.parse_args(argv)
    if not 0.0 <= args.holdout < 1.0:
        p.error(f"--holdout is the share of games held out, in [0, 1), got {args.holdout}")
    version = args.features
    try:
        read = _read(args.games)
    except (OSError, ValueError) as exc:  # (a missing file, a line that is not JSON)
        print(f"{p.prog}: error: cannot read the games: {exc}", file=sys.stderr)
        return 2
    games = [g for g in read if version == 1 or any(len(r) > 6 for r in g.get("offer_log", []))]
    cut = int(len(games) * (1 - args.holdout))
    x, y = samples(games[:cut], version, args.responder)
    hx, hy = samples(games[cut:], version, args.responder)
    if len(y) == 0 or y.sum() == 0:
        print(f"error: {len(y)} answers and none taken in {args.games}: nothing to fit", file=sys.stderr)
        return 2
    model = AcceptanceModel(fit(x, y), version=version)
    held: Dict[str, Any] = {"held_out_games": len(games) - cut, "held_out_answers": int(len(hy))}
    if len(hy):
        base = AcceptanceModel(np.r_[np.log(y.mean() / (1 - y.mean())), np.zeros(len(model.features) - 1)],
                               version=version)
        held.update(held_out_log_loss=round(log_loss(model, hx, hy), 4),
                    held_out_log_loss_base_rate=round(log_loss(base, hx, hy), 4))
    full = AcceptanceModel(fit(*samples(games, version, args.responder)), version=version, meta={
        "kind": args.kind, "games": len(games), "answers": int(len(y) + len(hy)),
        "taken": int(y.sum() + hy.sum()), **held, "sources": [os.path.relpath(s) for s in args.games],
        "fitted": datetime.date.today().isoformat(),
        "command": "python -m catan_env.learned.acceptance " + " ".join(argv if argv is not None else sys.argv[1:])})
    out = args.out or acceptance_path(args.kind)
    full.save(out)
    print(f"{out}: {full.meta['answers']} answers of {len(games)} games, {full.meta['taken']} taken; "
          f"held-out log loss {held.get('held_out_log_loss')} against the base rate's "
          f"{held.get('held_out_log_loss_base_rate')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
