"""A seat's mirror of a game played on a server (Pioneers, JSettlers): the game as the
core plays it, rebuilt from what the server tells that seat.

The mirror is a list of entries (groups of core actions with their chance outcomes) and
the state they replay to; every server event becomes one entry, applied with the core's
own legality checks.  What the seat cannot see is guessed: the type of a card stolen
between two other seats, and the type of a development card another seat buys.  When a
later event contradicts a guess (a seat spends a card the mirror does not give it, plays
a card type it does not hold), the mirror changes the guess and replays from there, so
the history is always a legal game of the core that agrees with every public fact.  The
seat's own knowledge rows (``KNOW``) never depend on a guess, so the information set an
agent gets from ``infoset()`` is exactly what the seat knows.

Repairs try one changed guess, two swapped, two changed, a step-by-step approach to a
required fact (a monopoly's exact counts), then a backtracking search over every guess
that changes the latest ones first.  Events the core cannot express as actions (a
Victory Point card shown before it wins, a maritime trade at a worse rate than the
seat's best, a domestic trade outside the core's menu), and the rare event no change
of guesses explains (then cards the seat cannot place change type, every resource
conserved), are direct edits (``edits.py``) counted in ``edits``; the saved record
stops before the first one.
"""
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ...core import actions as A
from ...core import edit as E
from ...core import game as G
from ...core import layout as L
from ...core import rules as R
from ...core.options import GameOptions, make_options
from ...core.record import GameRecord
from ...infoset import InfoSet
from .edits import apply_edit, first_need
from .seat import menu_index

GUESS_STEAL, GUESS_DRAW, GUESS_DISCARD = "steal", "draw", "discard"
UNSEEN = "unseen"  # Entry.args of a discard the other seats do not see (after a "forget")
MAX_REPAIR_CANDIDATES = 40
# guess values tried by the backtracking repair.  4,000 was too few: in game 16180-35 two
# hidden steals by one AI sat behind ten other guesses, and the assignment that explains
# its later settlement took about 7,000 tries (a replay of that game still takes ~1 s)
SOLVE_BUDGET = 20000

Require = Callable[[np.ndarray], int]  # state -> distance to a fact it must show (0: shows it)
Slot = Tuple[int, int]                 # a guess: (entry index, action index in the entry)


class Entry:
    """One server event: core actions [(action, outcome)], with the positions whose
    outcome is a guess, or a direct edit (kind != "act")."""

    __slots__ = ("kind", "actions", "guesses", "args", "note", "require")

    def __init__(self, actions: Iterable[Sequence[int]] = (), guesses: Optional[Mapping[int, str]] = None,
                 kind: str = "act", args: Any = None, note: str = "", require: Optional[Require] = None) -> None:
        self.kind = kind
        self.actions: List[List[int]] = [list(x) for x in actions]
        self.guesses: Dict[int, str] = dict(guesses or {})  # index in actions -> GUESS_*
        self.args = args
        self.note = note
        self.require = require  # state -> distance to a fact the state before must show

    def copy(self) -> "Entry":
        return Entry(self.actions, self.guesses, self.kind, self.args, self.note, self.require)


def _outcome_ok(s: np.ndarray, a: int, outcome: int) -> bool:
    """Whether a forced chance outcome is possible in s."""
    if a == A.ROLL:
        return 2 <= outcome <= 12
    if a == A.BUY_DEV:
        return 0 <= outcome < L.N_DEV and s[L.DECK + outcome] > 0
    if A.is_robber(a) and A.robber_victim(a):
        victim = A.robber_victim_seat(a, int(s[L.DECIDER]), int(s[L.OPT_PLAYERS]))
        return 0 <= outcome < L.N_RES and s[L.hand_i(victim, outcome)] > 0
    return outcome < 0


def _guess_choices(s: np.ndarray, a: int, kind: str) -> List[int]:
    """Outcomes a guess may take in s, best first (a discard's: the resource discarded)."""
    if kind == GUESS_DISCARD:
        hand = [int(s[L.hand_i(int(s[L.DECIDER]), r)]) for r in range(L.N_RES)]
        return sorted((r for r in range(L.N_RES) if hand[r] > 0), key=lambda r: -hand[r])
    if kind == GUESS_DRAW:  # knights first: a guessed VP card could end the mirror's game
        deck = [int(s[L.DECK + t]) for t in range(L.N_DEV)]
        order = [L.KNIGHT] + sorted((t for t in range(L.N_DEV) if t not in (L.KNIGHT, L.VICTORY_POINT)),
                                    key=lambda t: -deck[t]) + [L.VICTORY_POINT]
        return [t for t in order if deck[t] > 0]
    victim = A.robber_victim_seat(a, int(s[L.DECIDER]), int(s[L.OPT_PLAYERS]))
    hand = [int(s[L.hand_i(victim, r)]) for r in range(L.N_RES)]
    return sorted((r for r in range(L.N_RES) if hand[r] > 0), key=lambda r: -hand[r])


def _discard_unseen(s: np.ndarray, a: int) -> bool:
    """Discard a as the core does, except that the other seats' knowledge of the
    discarder loses an unknown card, whatever the type (the server hides it, and a
    "forget" before made at least that many unknown): their rows never depend on a guess."""
    p = int(s[L.DECIDER])
    n = int(s[L.OPT_PLAYERS])
    observers = [o for o in list(range(n)) + [L.PUBLIC] if o != p]
    rows = {o: [int(s[L.know_i(o, p, r)]) for r in range(L.KNOW_W)] for o in observers}
    if any(row[L.UNKNOWN] <= 0 for row in rows.values()):
        return False
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    if a not in buf[:R.legal_actions(s, buf)]:
        return False
    R.apply_action(s, a, -1)
    for o, row in rows.items():
        for r in range(L.N_RES):
            s[L.know_i(o, p, r)] = min(row[r], int(s[L.hand_i(p, r)]))
        s[L.know_i(o, p, L.UNKNOWN)] = sum(int(x) for x in L.view(s, "hand")[p]) - sum(
            int(s[L.know_i(o, p, r)]) for r in range(L.N_RES))
    return True


def apply_entry(s: np.ndarray, e: Entry, reguess: bool = False) -> bool:
    """Apply entry e to s in place; False (s then undefined) when it is illegal or the
    state before it misses the fact it requires.  With reguess, a guessed outcome that
    became impossible is replaced by a possible one."""
    if e.require is not None and e.require(s):
        return False
    if e.kind == "reveal":
        p = e.args
        if s[L.dev_i(p, L.VICTORY_POINT)] <= 0:
            return False
        E.reveal_vp_card(s, p)
        E.check_win(s)
        return True
    if e.kind == "forget":  # (seat, k): k cards leave unseen (a hidden discard)
        if s[L.PHASE] != L.PH_DISCARD:
            return False
        E.forget_cards(s, *e.args)
        return True
    if e.kind == "edit":
        return apply_edit(s, e.args)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    for i, (a, outcome) in enumerate(e.actions):
        if s[L.PHASE] == L.PH_GAME_OVER:
            return False
        if e.guesses.get(i) == GUESS_DISCARD:  # an unseen discard: the guess is its resource
            if s[L.PHASE] != L.PH_DISCARD:
                return False
            if not (0 <= outcome < L.N_RES and s[L.hand_i(int(s[L.DECIDER]), outcome)] > 0):
                if not reguess:
                    return False
                choices = _guess_choices(s, a, GUESS_DISCARD)
                if not choices:
                    return False
                e.actions[i][1] = outcome = choices[0]
            a, outcome = A.DISCARD0 + outcome, -1
        if e.args == UNSEEN and A.DISCARD0 <= a < A.MARITIME0:
            if not _discard_unseen(s, a):
                return False
            continue
        n = R.legal_actions(s, buf)
        if a not in buf[:n]:
            return False
        if not _outcome_ok(s, a, outcome):
            if not (reguess and i in e.guesses):
                return False
            choices = _guess_choices(s, a, e.guesses[i])
            if not choices:
                return False
            e.actions[i][1] = outcome = choices[0]
        R.apply_action(s, a, outcome)
    return True


class Mirror:
    """The game as ``seat`` sees it (see the module docstring)."""

    def __init__(self, options: GameOptions, seat: int) -> None:
        # The mirror never ends the game by itself (a guessed VP card of another seat
        # could end it early): the server announces the winner (``declare_winner``).
        # Decision states carry the real target (``target``).
        self.true_options = options
        self.target = options.vp_to_win
        self.options = options = make_options(options, vp_to_win=20)
        self.seat = int(seat)
        self.initial = G.new_game(options, seed=0)
        self.entries: List[Entry] = []
        self.before: List[np.ndarray] = []  # state before each entry
        self.state = self.initial.copy()
        self.mismatches: List[str] = []
        self.repairs = 0
        self.edits = 0
        # a server whose bank is never shown or short (JSettlers): a retype may swap with it
        self.bank_hidden = False

    # ---- reading
    @property
    def n(self) -> int:
        return int(self.state[L.OPT_PLAYERS])

    def phase(self) -> int:
        return int(self.state[L.PHASE])

    def decider(self) -> int:
        return int(self.state[L.DECIDER])

    def hand(self, p: int) -> List[int]:
        return [int(x) for x in L.view(self.state, "hand")[p]]

    def infoset(self, secret_seed: int = 0) -> InfoSet:
        return InfoSet(self.state, self.seat, secret_seed)

    def mismatch(self, text: str) -> None:
        self.mismatches.append(f"step {len(self.entries)}: {text}")

    # ---- writing
    def push(self, entry: Entry, require: Optional[Require] = None, quiet: bool = False) -> bool:
        """Apply a server event.  require(state) -> int: how far the state before the
        event is from an extra fact it must show (0: it does; a monopoly's exact counts).  Guesses are repaired when
        the event does not fit; returns False (and logs a mismatch) when nothing does."""
        if entry.kind == "edit":
            self.edits += 1
        if require is not None:  # replays after later repairs keep checking the fact
            entry = entry.copy()
            entry.require = require
        if self._try_append(entry, require):
            return True
        if self._repair(entry, require):
            self.repairs += 1
            return True
        if _buys_or_plays_a_card(entry) and self._repair(entry, require, kinds=(GUESS_DRAW,)):
            self.repairs += 1  # (draws are few but old: the latest guesses may all be resources)
            return True
        # two faults at once (say a card type and a stolen card): fix what makes the event
        # legal first, then what the extra fact needs
        bare = entry.copy()
        bare.require = None
        if require is not None and (self._try_append_check(bare) or
                                    self._repair(bare, None, append=False)):
            if self._repair(entry, require):
                self.repairs += 2
                return True
            for _ in range(6):  # then change guesses one at a time, each closer to the fact
                if self._try_append(entry, require):
                    self.repairs += 2
                    return True
                if not self._improve(entry, require):
                    break
        if self._solve(entry):
            self.repairs += 1
            return True
        if self._retype_for(entry):
            return True
        if not quiet:
            self.mismatch(f"event does not fit the game: {entry.note or entry.actions or entry.args}")
        return False

    def _retype_for(self, entry: Entry, rounds: int = 6) -> bool:
        """No change of guesses explains the event: change the types of cards this seat
        cannot place (conserving every resource and card), as direct edits, until the
        event's first failing action has what it needs."""
        for _ in range(rounds):
            need = first_need(self.state, entry, _outcome_ok)
            if need is None:
                return False
            kind, p, what, keep = need
            args = (("retype", self.seat, p, what, keep, self.bank_hidden) if kind == "res"
                    else ("retype_dev", self.seat, p, what))
            edit = Entry(kind="edit", args=args,
                         note=f"seat {p} holds a {kind} {what} the guesses did not give it")
            if not self._try_append(edit, None):
                return False
            self.edits += 1
            if self._try_append(entry, entry.require):
                return True
        return False

    def _solve(self, entry: Entry, budget: int = SOLVE_BUDGET) -> bool:
        """Backtracking over every guess, in game order, keeping each as it is where
        possible: the guesses that change are the latest that can (bounded by budget
        guess tries).  Commits and returns True when the history and entry fit."""
        slots = sorted((i, j) for i, e in enumerate(self.entries) for j in e.guesses)
        if not slots:
            return False
        first = slots[0][0]
        trial = [e.copy() for e in self.entries[first:]]
        rel = [(i - first, j) for i, j in slots]
        tries = [budget]

        def run(s: np.ndarray, q0: int, q1: int) -> bool:  # apply trial[q0:q1] to s in place
            for q in range(q0, q1):
                if not apply_entry(s, trial[q]):
                    return False
            return True

        def rec(s: np.ndarray, q: int, k: int) -> bool:
            """s: the state before trial[q]; k: the next guess slot (at or after q)."""
            stop = rel[k][0] if k < len(rel) else len(trial)
            s = s.copy()
            if not run(s, q, stop):
                return False
            if k == len(rel):
                return apply_entry(s.copy(), entry)
            e = trial[stop]
            j = rel[k][1]
            current = e.actions[j][1]
            for v in [current] + [v for v in range(L.N_RES) if v != current]:
                tries[0] -= 1
                if tries[0] < 0:
                    break
                e.actions[j][1] = v
                t = s.copy()
                if apply_entry(t, e) and rec(t, stop + 1, k + 1):
                    return True
            e.actions[j][1] = current
            return False

        if not rec(self.before[first], 0, 0):
            return False
        replay = self._replay_from(first, trial)
        if replay is None:
            return False
        befores, s = replay
        t = s.copy()
        if not apply_entry(t, entry):
            return False
        self.entries[first:] = trial + [entry]
        self.before[first:] = befores + [s]
        self.state = t
        return True

    def push_guess(self, action: int, kind: str, note: str = "") -> bool:
        """A server event with a chance outcome this seat cannot see (GUESS_STEAL or
        GUESS_DRAW): pushed with the best guess, which later events may change."""
        choices = _guess_choices(self.state, action, kind)
        return self.push(Entry([(action, choices[0] if choices else 0)], guesses={0: kind},
                               note=note))

    def _try_append_check(self, entry: Entry) -> bool:
        return apply_entry(self.state.copy(), entry.copy())

    def _improve(self, entry: Entry, require: Require) -> bool:
        """Commit the single guess change that brings require's distance down most while
        keeping the history and the event legal; False when none does."""
        best: Optional[Tuple[int, List[Entry], List[np.ndarray], np.ndarray]] = None
        best_d = require(self.state)
        for slot in self._guess_slots():
            for alts in _alternatives(self.entries, [slot]):
                i, j = slot
                trial = [e.copy() for e in self.entries[i:]]
                trial[0].actions[j][1] = alts[0]
                replay = self._replay_from(i, trial)
                if replay is None:
                    continue
                befores, s = replay
                d = require(s)
                bare = entry.copy()
                bare.require = None
                if d < best_d and apply_entry(s.copy(), bare):
                    best, best_d = (i, trial, befores, s), d
        if best is None:
            return False
        i, trial, befores, s = best
        self.entries[i:] = trial
        self.before[i:] = befores
        self.state = s
        return True

    def _try_append(self, entry: Entry, require: Optional[Require]) -> bool:
        s = self.state.copy()
        if require is not None and require(s):
            return False
        if not apply_entry(s, entry):
            return False
        self.before.append(self.state)
        self.entries.append(entry)
        self.state = s
        return True

    def _guess_slots(self, kinds: Optional[Iterable[str]] = None) -> List[Slot]:
        """The latest guesses (of the given kinds), newest first."""
        wanted = None if kinds is None else set(kinds)
        out: List[Slot] = []
        for i in range(len(self.entries) - 1, -1, -1):
            for j, kind in self.entries[i].guesses.items():
                if wanted is not None and kind not in wanted:
                    continue
                out.append((i, j))
                if len(out) >= MAX_REPAIR_CANDIDATES:
                    return out
        return out

    def _replay_from(self, i: int, entries: List[Entry]) -> Optional[Tuple[List[np.ndarray], np.ndarray]]:
        """States before each entry from i on (``entries`` replacing the history from i),
        and the final one; None if illegal, or if it leaves any seat with another number
        of cards than the history did: a guess changes only which cards moved, and the
        server fixed every count (a replay can still change one, where a direct edit
        such as production the core's bank could not pay was made for the old types)."""
        s = self.before[i].copy()
        befores: List[np.ndarray] = []
        for e in entries:
            befores.append(s.copy())
            if not apply_entry(s, e, reguess=True):
                return None
        if not np.array_equal(L.view(s, "hand").sum(axis=1), L.view(self.state, "hand").sum(axis=1)):
            return None
        return befores, s

    def _repair(self, entry: Entry, require: Optional[Require], append: bool = True,
                kinds: Optional[Iterable[str]] = None) -> bool:
        """Change one guess, swap two guesses of the same kind, or change two recent ones,
        whichever first makes the history legal with the new event."""
        slots = self._guess_slots(kinds)
        value = {s: self.entries[s[0]].actions[s[1]][1] for s in slots}
        kind = {s: self.entries[s[0]].guesses[s[1]] for s in slots}
        tries = [([s], alts) for s in slots for alts in _alternatives(self.entries, [s])]
        tries += [([a, b], [value[b], value[a]]) for k, a in enumerate(slots) for b in slots[k + 1:]
                  if kind[a] == kind[b] and value[a] != value[b]]
        tries += [([a, b], alts) for k, a in enumerate(slots[:6]) for b in slots[k + 1:6]
                  for alts in _alternatives(self.entries, [a, b])]
        for combo, alts in tries:
            first = min(i for i, _ in combo)
            trial = [e.copy() for e in self.entries[first:]]
            for (i, j), v in zip(combo, alts):
                trial[i - first].actions[j][1] = v
            replay = self._replay_from(first, trial)
            if replay is None:
                continue
            befores, s = replay
            t = s.copy()
            if require is not None and require(t):
                continue
            if not apply_entry(t, entry):
                continue
            self.entries[first:] = trial
            self.before[first:] = befores
            if append:
                self.before.append(s)
                self.entries.append(entry)
                self.state = t
            else:
                self.state = s
            return True
        return False

    def push_trade(self, caller: int, partner: int, give: Sequence[int], get: Sequence[int]) -> None:
        """A completed domestic trade (caller, on turn, gives ``give`` and gets ``get``) as
        the core's offer / answers / confirm, or a direct edit when the menu cannot say it."""
        menu = menu_index(give, get)
        n = self.n
        if menu is not None and self.phase() == L.PH_MAIN and self.decider() == caller:
            acts = [[A.OFFER0 + menu, -1]]
            for k in range(1, n):
                q = (caller + k) % n
                acts.append([A.TRADE_ACCEPT if q == partner else A.TRADE_REJECT, -1])
            acts.append([A.confirm_action((partner - caller) % n), -1])
            if self.push(Entry(acts, note=f"trade {caller}<->{partner}"), quiet=True):
                return
        self.push(Entry(kind="edit", args=("trade", caller, partner, list(give), list(get)),
                        note=f"trade {caller}<->{partner} outside the menu"))

    def push_monopoly(self, thief: int, res: int, got: Mapping[int, int], note: str = "") -> None:
        """A monopoly on res that took got[v] cards from each other seat v (the server's
        figures): guesses change until the hands show them; when none does, the counts
        (a public fact) are set on the cards this seat cannot place, then the card plays."""
        got = dict(got)

        def exact(s: np.ndarray) -> int:
            return sum(abs(int(s[L.hand_i(v, res)]) - k) for v, k in got.items())

        entry = Entry([(A.MONOPOLY0 + res, -1)], note=note or f"monopoly on {L.RESOURCE_NAMES[res]}")
        if not self.push(entry, require=exact, quiet=True):
            self.push(Entry(kind="edit", args=("resync", self.seat, res, got, thief, self.bank_hidden),
                            note=f"counts of {L.RESOURCE_NAMES[res]} from the monopoly"))
            self.push(entry)

    def declare_winner(self, seat: int) -> None:
        """The server says seat won: end the mirror's game there."""
        self.state[L.PHASE] = L.PH_GAME_OVER
        self.state[L.WINNER] = seat
        self.state[L.DECIDER] = -1

    def undo_last(self, action: int) -> bool:
        """The server took back the last piece built (``remove ...``)."""
        if self.entries and self.entries[-1].kind == "act" and \
                self.entries[-1].actions[-1][0] == action:
            self.entries.pop()
            self.state = self.before.pop()
            return True
        self.mismatch(f"undo of {A.action_name(action)} that is not the last event")
        return False

    # ---- output
    def record(self) -> GameRecord:
        """A GameRecord of the game so far (forced chance: the outcomes as the seat saw
        or guessed them), up to the first direct edit; with the real VP target when the
        history replays under it, else with the mirror's (20)."""
        try:
            rec = self._record(self.true_options)
            rec.final_state()  # replays (CorruptStateError, a ValueError, if it ends early)
            return rec
        except ValueError:
            return self._record(self.options)

    def _record(self, options: GameOptions) -> GameRecord:
        rec = GameRecord(options, seed=0, chance="forced")
        for e in self.entries:
            if e.kind == "edit":
                break
            if e.kind in ("reveal", "forget"):
                continue  # shown VP cards only count at the win, where the core shows them
            for i, (a, outcome) in enumerate(e.actions):
                if e.guesses.get(i) == GUESS_DISCARD:
                    rec.append(A.DISCARD0 + int(outcome), None)
                else:
                    rec.append(int(a), None if outcome < 0 else int(outcome))
        return rec


def _buys_or_plays_a_card(entry: Entry) -> bool:
    """Whether an event buys or plays a development card (a draw guess may explain it)."""
    return any(a == A.BUY_DEV or A.PLAY_KNIGHT <= a < A.ROBBER0 for a, _ in entry.actions)


def _alternatives(entries: Sequence[Entry], combo: Sequence[Slot]) -> List[List[int]]:
    """Every other assignment of values to the guessed slots in combo."""
    values: List[List[int]] = []
    for i, j in combo:
        cur = entries[i].actions[j][1]
        values.append([v for v in range(L.N_RES) if v != cur])
    out: List[List[int]] = [[]]
    for vs in values:
        out = [o + [v] for o in out for v in vs]
    return out
