"""What the server says, applied to the seat's mirror: one handler per line kind
(``_ev_<word>``), buffering what arrives in pieces (set-up pairs, discards, a robbery,
a monopoly) and checking every public fact the server announces against the mirror."""
import logging
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ...core import actions as A
from ...core import layout as L
from ...core import rules as R
from ...core.topology import EDGE_VERTICES
from .board import PioneersBoard
from .connection import Connection
from ..bridge.mirror import GUESS_DRAW, GUESS_STEAL, Entry, Mirror
from .protocol import (DEV_CODE_TO_CORE, RESOURCE_WORD, WORD_RESOURCE, ints, split_prefix, to_core,
                       to_pio)

log = logging.getLogger(__package__)  # the package's logger, as the other modules name it


class ServerEvents:
    """Mixin of :class:`PioneersClient`: the server-line side of the client."""

    # the client's state these handlers read and write (PioneersClient sets it: the
    # handshake, ``start_game`` and ``__init__``)
    seat: int
    board: PioneersBoard
    mirror: Mirror
    conn: Connection
    announced: Dict[str, int]           # "longest-road" / "largest-army" -> holder the server named
    winner: Optional[int]
    won_with: Optional[int]
    rejected: List[Tuple[int, Optional[str], str]]  # (step, command, error)
    dev_list: List[List[int]]           # our development cards in the server's order: [code, new]
    setup_buffer: List[Tuple[int, int]]  # (seat, build action) not yet in the mirror
    discard_buffer: Dict[int, List[int]]  # seat -> core vec
    receives: Dict[int, List[int]]      # seat -> core vec since the last production
    hands_mark: Optional[np.ndarray]
    robber: Optional[Tuple[int, int]]   # (seat, hex) once moved, waiting for the theft
    steal: Optional[Tuple[int, Optional[int]]]  # (victim, resource or None)
    monopoly: Optional[Tuple[int, Optional[int], Dict[int, int]]]  # (seat, resource, {victim: n})
    pending: Optional[Dict[str, Any]]   # what our last command waits for
    setup_prompt: int
    road_building: bool
    call: Optional[Dict[str, Any]]      # our open domestic call
    turn_seat: int
    robber_prompt: bool
    rob_victim: Optional[int]
    pending_discard: int
    discard_retries: int
    done: bool
    banned: Set[int]
    calls_this_turn: int
    _raw: str                           # the server line being handled

    if TYPE_CHECKING:  # the client's decisions these handlers ask for
        def _reset_turn_state(self) -> None: ...

        def _discard(self, k: int) -> None: ...

        def _answer_call(self, caller: int, supply: Sequence[int], receive: Sequence[int]) -> None: ...

    # ================================================================== server lines
    def _on_line(self, line: str) -> None:
        if line.startswith("ERR"):
            self._rejected(line)
            return
        if line.startswith("NOTE") or line.startswith("extension"):
            return
        seat, body = split_prefix(line, self.seat)
        w = body.split()
        if not w:
            return
        head = w[0]
        if self.discard_buffer and head not in ("discarded", "must-discard", "discard-done", "chat"):
            self._ev_discard_done(seat, w, body)  # automatic discards come without discard-done
        if self.robber is not None and head not in ("stole", "robber-done", "rob", "chat"):
            self._flush_robber()  # others see no robber-done: the theft line, if any, is past
        handler = getattr(self, "_ev_" + head.replace("-", "_"), None)
        if handler is not None:
            handler(seat, w, body)

    def _rejected(self, line: str) -> None:
        step = len(self.mirror.entries)
        cmd = self.pending["cmd"] if self.pending else None
        self.rejected.append((step, cmd, line))
        log.warning("server rejected %r at step %d: %s", cmd, step, line)
        if self.pending is not None and self.pending.get("action") is not None:
            self.banned.add(self.pending["action"])
        if self.pending and self.pending.get("kind") == "discard":
            self.pending = None
            self.discard_retries += 1
            if self.discard_retries <= 3:
                self._discard(self.pending_discard)  # the mirror's hand is exact: try again
            return
        self.pending = None

    def _done_waiting(self, kind: str) -> None:
        if self.pending is not None and self.pending["kind"] == kind:
            self.pending = None

    # ---- set-up
    def _ev_setup(self, seat: int, w: List[str], body: str) -> None:
        if seat == self.seat:
            self.setup_prompt = 2

    def _ev_setup_double(self, seat: int, w: List[str], body: str) -> None:
        if seat == self.seat:
            self.setup_prompt = 4

    def _piece_action(self, w: List[str]) -> Optional[int]:
        """The core's build action of ``built|remove TYPE x y pos``, or None."""
        kind, x, y, pos = w[1], int(w[2]), int(w[3]), int(w[4])
        if kind == "road":
            return A.ROAD0 + self.board.edge(x, y, pos)
        first = {"settlement": A.SETTLEMENT0, "city": A.CITY0}.get(kind)
        if first is None:
            self.mirror.mismatch(f"unknown piece {kind}")
            return None
        return first + self.board.vertex(x, y, pos)

    def _ev_built(self, seat: int, w: List[str], body: str) -> None:
        a = self._piece_action(w)
        if a is None:
            return
        m = self.mirror
        if m.phase() in (L.PH_SETUP_SETTLEMENT, L.PH_SETUP_ROAD) and seat != self.seat:
            self.setup_buffer.append((seat, a))
            self._flush_setup()
        elif m.phase() in (L.PH_SETUP_SETTLEMENT, L.PH_SETUP_ROAD):
            if A.SETTLEMENT0 <= a < A.CITY0:
                self._mark_hands()
            self._push_turn_action(seat, a, note=body)
        else:
            self._push_turn_action(seat, a, note=body)
        if seat == self.seat:
            self._done_waiting("build")

    def _flush_setup(self) -> None:
        """Apply buffered set-up pieces in the core's order: each settlement (in the order
        placed) followed by the road that touches it."""
        while self.setup_buffer:
            seat, first = self.setup_buffer[0]
            if not A.SETTLEMENT0 <= first < A.CITY0:
                self.mirror.mismatch(f"set-up road before its settlement: {A.action_name(first)}")
                self.setup_buffer.pop(0)
                continue
            v = first - A.SETTLEMENT0
            road = next((x for x in self.setup_buffer[1:] if x[0] == seat and A.ROAD0 <= x[1] < A.SETTLEMENT0
                         and v in EDGE_VERTICES[x[1] - A.ROAD0]), None)
            if road is None:
                return
            self.setup_buffer.remove(road)
            self.setup_buffer.pop(0)
            if self.mirror.decider() != seat:
                self.mirror.mismatch(f"seat {seat} placed out of the core's set-up order")
            self._mark_hands()
            self.mirror.push(Entry([(first, -1)], note=f"set-up settlement of {seat}"))
            self.mirror.push(Entry([(road[1], -1)], note=f"set-up road of {seat}"))

    # ---- turns and dice
    def _ev_turn(self, seat: int, w: List[str], body: str) -> None:
        self.turn_seat = seat
        m = self.mirror
        if m.phase() == L.PH_MAIN and int(m.state[L.TURN_PLAYER]) != seat:
            m.push(Entry([(A.END_TURN, -1)], note="end of turn"))
        self._check_holders()
        if int(m.state[L.TURN_PLAYER]) != seat and m.phase() != L.PH_GAME_OVER:
            m.mismatch(f"server turn of seat {seat}, mirror turn of {int(m.state[L.TURN_PLAYER])}")
        if seat == self.seat:
            self._reset_turn_state()
            for card in self.dev_list:
                card[1] = 0

    def _ev_rolled(self, seat: int, w: List[str], body: str) -> None:
        total = int(w[1]) + int(w[2])
        if total == 7 and seat == self.seat:
            self._done_waiting("roll")  # discards and the robber follow
        self._mark_hands()
        self.mirror.push(Entry([(A.ROLL, total)], note=f"roll {total}"))
        self.mirror.state[L.LAST_DIE1], self.mirror.state[L.LAST_DIE2] = int(w[1]), int(w[2])

    def _mark_hands(self) -> None:
        self.hands_mark = np.array(L.view(self.mirror.state, "hand"))
        self.receives = {}

    def _ev_receives(self, seat: int, w: List[str], body: str) -> None:
        got = to_core(ints(w[1:6]))
        prev = self.receives.get(seat, [0] * L.N_RES)
        self.receives[seat] = [a + b for a, b in zip(prev, got)]

    def _ev_done_resources(self, seat: int, w: List[str], body: str) -> None:
        if self.hands_mark is not None:
            delta = np.array(L.view(self.mirror.state, "hand")) - self.hands_mark
            for p in range(self.mirror.n):
                want = self.receives.get(p, [0] * L.N_RES)
                if delta[p].tolist() != want:
                    self.mirror.mismatch(f"production of seat {p}: server {want}, mirror {delta[p].tolist()}")
        self.receives = {}
        self.hands_mark = None
        self._done_waiting("roll")

    # ---- building and buying
    def _push_turn_action(self, seat: int, a: int, note: str = "") -> None:
        m = self.mirror
        if m.decider() != seat and m.phase() != L.PH_GAME_OVER:
            m.mismatch(f"seat {seat} acts while the mirror waits for seat {m.decider()}: {note}")
        m.push(Entry([(a, -1)], note=note))

    def _ev_spent(self, seat: int, w: List[str], body: str) -> None:
        pass  # the build or purchase that follows carries the cost

    def _ev_refund(self, seat: int, w: List[str], body: str) -> None:
        pass  # taking back the piece (``remove``) restores the cost

    def _ev_remove(self, seat: int, w: List[str], body: str) -> None:
        a = self._piece_action(w)
        if a is None:
            return
        for item in list(self.setup_buffer):
            if item == (seat, a):
                self.setup_buffer.remove(item)
                return
        self.mirror.undo_last(a)

    def _ev_bought_develop(self, seat: int, w: List[str], body: str) -> None:
        if len(w) > 1:  # ours, with the type
            code = int(w[1])
            self.dev_list.append([code, 1])
            self.mirror.push(Entry([(A.BUY_DEV, DEV_CODE_TO_CORE[code])], note="our purchase"))
            self._done_waiting("buy")
        else:
            self.mirror.push_guess(A.BUY_DEV, GUESS_DRAW, note=f"seat {seat} buys a card")

    def _ev_play_develop(self, seat: int, w: List[str], body: str) -> None:
        idx, code = int(w[1]), int(w[2])
        t = DEV_CODE_TO_CORE[code]
        m = self.mirror
        if seat == self.seat and 0 <= idx < len(self.dev_list):
            self.dev_list.pop(idx)
        if seat == self.seat and self.pending and self.pending["kind"] == "knight":
            self.pending = None  # the robber prompt follows
        if seat == self.seat and self.pending and self.pending.get("card") == L.VICTORY_POINT:
            self.pending = None
        if m.phase() == L.PH_GAME_OVER:
            return
        if t == L.VICTORY_POINT:
            m.push(Entry(kind="reveal", args=seat, note=f"seat {seat} shows a VP card"))
            if seat == self.seat:
                self._done_waiting("play")
            return
        a = {L.KNIGHT: A.PLAY_KNIGHT, L.ROAD_BUILDING: A.PLAY_ROAD_BUILDING}.get(t)
        if a is not None:
            m.push(Entry([(a, -1)], note=f"seat {seat} plays {L.DEV_NAMES[t]}"))
            if t == L.ROAD_BUILDING:
                self.road_building = seat == self.seat
        elif t == L.MONOPOLY:
            self.monopoly = (seat, None, {})
        # year of plenty waits for the ``plenty`` line
        if seat == self.seat and self.pending and self.pending["kind"] == "play":
            card = self.pending["card"]
            if card == L.MONOPOLY:
                self.conn.send(f"monopoly {RESOURCE_WORD[self.pending['res']]}")
            elif card == L.ROAD_BUILDING:
                self.pending = None  # the roads are decisions of their own

    def _ev_monopoly(self, seat: int, w: List[str], body: str) -> None:
        # "monopoly N RES from P"
        n, res, victim = int(w[1]), WORD_RESOURCE[w[2]], int(w[4])
        if self.monopoly is None:
            self.monopoly = (seat, res, {})
        thief, _, got = self.monopoly
        got[victim] = n
        self.monopoly = (thief, res, got)
        if len(got) == self.mirror.n - 1:
            self.mirror.push_monopoly(thief, res, got, note=f"monopoly on {w[2]}")
            self.monopoly = None

    def _ev_plenty(self, seat: int, w: List[str], body: str) -> None:
        if self._raw.startswith("plenty"):  # the prompt, to us alone: the bank's contents
            if not (self.pending and self.pending.get("card") == L.YEAR_OF_PLENTY) \
                    or self.pending.get("asked"):
                return
            vec = [0] * L.N_RES
            r1, r2 = A.YOP_R1[self.pending["yop"]], A.YOP_R2[self.pending["yop"]]
            vec[r1] += 1
            vec[r2] += 1
            self.pending["asked"] = True
            self.conn.send(f"plenty {to_pio(vec)}")
            return
        got = to_core(ints(w[1:6]))
        pairs = [i for i in range(A.N_YOP)
                 if sorted((A.YOP_R1[i], A.YOP_R2[i])) == sorted(r for r in range(L.N_RES) for _ in range(got[r]))]
        if pairs:
            self.mirror.push(Entry([(A.YOP0 + pairs[0], -1)], note="year of plenty"))
        else:
            self.mirror.push(Entry(kind="edit", args=("plenty", seat, got), note="short year of plenty"))

    def _ev_OK(self, seat: int, w: List[str], body: str) -> None:
        if self.pending is not None and self.pending["kind"] in ("done", "play", "rb_done", "setup_done"):
            if self.pending["kind"] == "done":
                self.turn_seat = -1  # our turn is over; the next ``turn`` line says whose it is
            self.pending = None

    # ---- sevens, robber
    def _ev_must_discard(self, seat: int, w: List[str], body: str) -> None:
        if seat == self.seat:
            self.pending_discard = int(w[1])
            self.discard_retries = 0
            self._discard(self.pending_discard)
        m = self.mirror
        owed = int(m.state[L.DISCARDS + seat])
        if owed != int(w[1]):
            m.mismatch(f"seat {seat} must discard {w[1]}, mirror says {owed}")

    def _ev_discarded(self, seat: int, w: List[str], body: str) -> None:
        self.discard_buffer[seat] = to_core(ints(w[1:6]))
        if seat == self.seat:
            self._done_waiting("discard")

    def _ev_discard_done(self, seat: int, w: List[str], body: str) -> None:
        acts = []
        for p in sorted(self.discard_buffer):
            vec = self.discard_buffer[p]
            acts += [(A.DISCARD0 + r, -1) for r in range(L.N_RES) for _ in range(vec[r])]
        self.discard_buffer = {}
        if acts:
            self.mirror.push(Entry(acts, note="discards"))

    def _ev_moved_robber(self, seat: int, w: List[str], body: str) -> None:
        self.robber = (seat, self.board.hex(int(w[1]), int(w[2])))
        self.steal = None

    def _ev_unmoved_robber(self, seat: int, w: List[str], body: str) -> None:
        self.robber = None

    def _ev_stole(self, seat: int, w: List[str], body: str) -> None:
        # "stole RES from V" (thief and victim) or "stole from V" (others)
        if w[1] == "from":
            self.steal = (int(w[2]), None)
        else:
            self.steal = (int(w[3]), WORD_RESOURCE[w[1]])
        self._flush_robber()

    def _ev_robber_done(self, seat: int, w: List[str], body: str) -> None:
        self._flush_robber()
        self.pending = None

    def _flush_robber(self) -> None:
        if self.robber is None:
            return
        mover, h = self.robber
        m = self.mirror
        if self.steal is None:
            m.push(Entry([(A.robber_action(h, 0), -1)], note="robber, no theft"))
        else:
            victim, res = self.steal
            k = (victim - mover) % m.n
            if res is None:
                m.push_guess(A.robber_action(h, k), GUESS_STEAL,
                             note=f"seat {mover} steals from {victim}")
            else:
                m.push(Entry([(A.robber_action(h, k), res)], note=f"seat {mover} steals from {victim}"))
        self.robber = self.steal = None

    def _ev_you_are_robber(self, seat: int, w: List[str], body: str) -> None:
        self.robber_prompt = True

    # ---- trade
    def _ev_maritime_trade(self, seat: int, w: List[str], body: str) -> None:
        ratio, give, get = int(w[1]), WORD_RESOURCE[w[3]], WORD_RESOURCE[w[5]]
        m = self.mirror
        best = int(R.trade_rate(m.state, seat, give))
        i = next(i for i in range(A.N_MARITIME) if A.MARITIME_GIVE[i] == give and A.MARITIME_GET[i] == get)
        if ratio == best:
            m.push(Entry([(A.MARITIME0 + i, -1)], note="maritime trade"))
        else:
            m.push(Entry(kind="edit", args=("maritime", seat, give, ratio, get),
                         note=f"maritime trade at {ratio}:1"))
        if seat == self.seat:
            self._done_waiting("trade")

    def _ev_domestic_trade(self, seat: int, w: List[str], body: str) -> None:
        sub = w[1]
        if sub == "call" and seat != self.seat:
            self._answer_call(seat, to_core(ints(w[3:8])), to_core(ints(w[9:14])))
        elif sub == "call" and seat == self.seat and self.call is not None:
            self.call["sent"] = True
            self._done_waiting("call")
        elif sub == "accept":
            # domestic-trade accept player P quote Q supply S receive T: the caller gains S,
            # loses T; the quoter P the reverse
            partner = int(w[3])
            S, T = to_core(ints(w[7:12])), to_core(ints(w[13:18]))
            self._push_domestic(seat, partner, give=T, get=S)
            if seat == self.seat:
                self._done_waiting("accept")
        elif sub == "finish" and seat == self.seat:
            self.call = None
            self._done_waiting("finish")

    def _ev_domestic_quote(self, seat: int, w: List[str], body: str) -> None:
        if self.call is None or seat == self.seat:
            return
        answers = self.call["answers"].setdefault(seat, [])
        if w[1] == "quote":
            q = int(w[2])
            S, T = to_core(ints(w[4:9])), to_core(ints(w[10:15]))
            answers.append((q, S, T))
            self.call["answered"].add(seat)
        elif w[1] == "finish":
            self.call["answered"].add(seat)
        elif w[1] == "delete":
            q = int(w[2])
            self.call["answers"][seat] = [x for x in answers if x[0] != q]

    def _push_domestic(self, caller: int, partner: int, give: List[int], get: List[int]) -> None:
        """A completed domestic trade as the core's offer / answers / confirm."""
        self.mirror.push_trade(caller, partner, give, get)

    # ---- holders, end of game
    def _ev_longest_road(self, seat: int, w: List[str], body: str) -> None:
        self.announced["longest-road"] = seat

    def _ev_largest_army(self, seat: int, w: List[str], body: str) -> None:
        self.announced["largest-army"] = seat

    def _check_holders(self) -> None:
        s = self.mirror.state
        for key, field in (("longest-road", L.LR_HOLDER), ("largest-army", L.LA_HOLDER)):
            if int(s[field]) != self.announced[key]:
                self.mirror.mismatch(f"{key}: server says seat {self.announced[key]}, mirror {int(s[field])}")
                self.announced[key] = int(s[field])  # report each disagreement once

    def _ev_won(self, seat: int, w: List[str], body: str) -> None:
        self.winner, self.won_with = seat, int(w[2])
        m = self.mirror
        self._check_holders()
        if int(m.state[L.PUBLIC_VP + seat]) != self.won_with:
            m.mismatch(f"seat {seat} won with {w[2]}; mirror public VP {int(m.state[L.PUBLIC_VP + seat])}")
        m.declare_winner(seat)
        self.done = True

    def _ev_has(self, seat: int, w: List[str], body: str) -> None:
        if w[1:2] == ["quit"] and not self.done and self.winner is None:
            self.mirror.mismatch(f"seat {seat} left the game")

