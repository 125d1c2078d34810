"""A JSettlers2 client that lets any of our agents play one seat against the server's
robots.

    host = GameHost("127.0.0.1", 8880, "g1")           # creates the game, then starts it
    seat = JSettlersClient("127.0.0.1", 8880, make_agent("jsettlers"), cookie="...")
    seat.connect(); host.start(); result = seat.play()

The seat connects as a third-party robot (``IMAROBOT`` with the server's robot cookie):
the server then asks it to sit in a game it starts, and the game counts as robots-only,
so the built-in robots play at the server's fast pace.  The client keeps a
:class:`~catan_env.apps.bridge.mirror.Mirror` of the game rebuilt from the server's
messages (the seats rotated so that the first to place is the core's seat 0), gives the
agent the observation, mask and information set of its seat at every decision, and
turns the agent's action ids into messages.  The server is the referee: a request it
declines (DECLINEPLAYERREQUEST, a refused trade, a card it cannot play) is logged as
rejected, the action is banned for that decision, and the agent decides again.  A
message the mirror cannot follow stops the game (MirrorMismatch).
"""
import time
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ...agent_specs import AgentProtocol
from ..bridge.mirror import GUESS_DISCARD, GUESS_DRAW, GUESS_STEAL, UNSEEN, Entry, Mirror
from ..bridge.seat import AgentSeat, menu_index, menu_vectors, response_state
from ..bridge.seat_stats import seat_statistics, setup_settlements
from ...core import actions as A
from ...core import layout as L
from ...core import rules as R
from ...core.options import make_options
from ...learned.acceptance import (ANSWER_ACCEPT, ANSWER_COUNTER, ANSWER_COUNTER_TAKEN, ANSWER_NONE, ANSWER_REJECT,
                                   offer_record)
from . import protocol as P
from .board import JSettlersBoard, parse_board_layout
from .wire import MessageConnection

OFFER_WAIT_S = 4.0        # how long our offer waits for every robot to answer
# The server lets the seat on turn's built-in robot sit idle 8 s, then ends its turn and
# discards at random for whoever has not: our discards must reach it well before that
DISCARD_BUDGET_S = 4.0
# domestic offers an agent may make per turn: the rule option's default, which the value
# network was trained under and reads as an input (the server itself has no cap)
AGENT_MAX_OFFERS = 3
ROBOT_CLASS = "catan_env.apps.bridge"


class NotSeated(RuntimeError):
    """The server started a game without one of our seats (its robot pool drew others)."""


class MirrorMismatch(RuntimeError):
    """The server reported an event the seat's mirror cannot follow."""


class SetupTakenBack(MirrorMismatch):
    """The server took back a set-up settlement (it ended a robot's set-up turn): a game
    the core cannot follow from its first turns, made again by the match."""


class JSettlersClient(AgentSeat):
    """One seat of a JSettlers game played by ``agent`` (see the module docstring)."""

    def __init__(self, host: str, port: int, agent: Optional[AgentProtocol], name: str = "catan_env",
                 cookie: str = "", seed: int = 0, timeout: float = 120.0, keep_transcript: bool = False,
                 stop_on_mismatch: bool = True, offers_per_turn: int = AGENT_MAX_OFFERS) -> None:
        self.host, self.port, self.agent, self.name, self.cookie = host, port, agent, name, cookie
        self.seed = seed
        self.timeout = timeout
        self.stop_on_mismatch = stop_on_mismatch
        self.offers_per_turn = offers_per_turn
        self.transcript: Optional[List[Tuple[str, str]]] = [] if keep_transcript else None
        self.conn: Any = None
        self.game = ""
        self.js_seat = -1          # our seat number on the server
        self.seat = -1             # our seat in the mirror (rotated: the first to place is 0)
        self.first = -1            # the server's seat that placed first
        self.board: Optional[JSettlersBoard] = None
        self.mirror: Optional[Mirror] = None
        self.rejected: List[Tuple[int, str, str]] = []   # (step, request, why)
        self.fallbacks = 0
        self.fallback_reasons: Dict[str, int] = {}
        self.decisions = 0
        self.think_seconds: List[float] = []
        self.declined_offers = 0   # robots' offers our menu cannot say (declined)
        self.offers_received = 0
        self.offers_made = 0
        self.trades_done = 0
        self.winner: Optional[int] = None   # mirror seat
        self.final_vp: Optional[List[int]] = None  # mirror seats
        self.done = False
        self.gs = 0                # the server's game state
        self.current = -1          # the server's current player
        self.pending: Optional[Dict[str, Any]] = None  # our request awaiting the server
        self.banned: Set[int] = set()
        self.offers_this_turn = 0
        self.discard_buffer: Dict[int, Tuple[List[int], int]] = {}
        self.robber: Optional[Tuple[int, int]] = None  # (mover, hex) awaiting the theft
        self.rob_victim: Optional[int] = None          # mirror seat our robber move robs
        self.must_discard = 0
        self.discard_asked = 0.0
        self.forced_discards = 0   # our discards the server made for us (we were too slow)
        self.late_answers = 0      # answers not sent: the offer was withdrawn or taken meanwhile
        self.choose_victim: Optional[List[int]] = None  # the server asks which of these we rob
        self.incoming: Optional[Dict[str, Any]] = None  # a robot's offer to us
        self.call: Optional[Dict[str, Any]] = None      # our open offer
        self.offer_log: List[List[Any]] = []  # our offers and each seat's answer (``offer_record``)
        self.monopoly_counts: Optional[Dict[int, int]] = None  # victims' counts after a monopoly
        self.expect_totals: Dict[int, int] = {}
        self.expect_hand: Optional[Dict[int, int]] = None
        self.expect_deck: Optional[int] = None
        self.announced = {"lr": -1, "la": -1}
        self._mismatches_seen = 0
        self._board_fields: Optional[List[str]] = None

    # ================================================================== seats
    def cs(self, js: int) -> int:
        """The mirror's seat of server seat js."""
        return (js - self.first) % 4

    def js(self, cs: int) -> int:
        """The server's seat of mirror seat cs."""
        return (cs + self.first) % 4

    # ================================================================== run
    def connect(self, timeout: float = 30.0) -> None:
        """Connect as a third-party robot; returns once the server accepted us (TimeoutError
        after ``timeout`` seconds: a server that is up accepts at once)."""
        self.conn = MessageConnection(self.host, self.port, timeout, self.transcript)
        self.conn.send(P.VERSION)
        self.conn.send(P.im_a_robot(self.name, self.cookie, ROBOT_CLASS))
        while True:
            text = self.conn.read()
            if text is None:
                raise TimeoutError(f"the server did not accept {self.name} as a robot within {timeout:.0f} s")
            kind, f = P.split(text)
            if kind == P.UPDATEROBOTPARAMS:  # accepted
                self.conn.timeout = self.timeout
                return
            if kind == P.REJECTCONNECTION:
                raise P.ProtocolError(f"the server refused {self.name}: {','.join(f)} "
                                      "(is the robot cookie right?)")

    def play(self) -> Dict[str, Any]:
        """Wait for a seat, play until the game ends, return a result dict."""
        if self.conn is None:
            self.connect()
        try:
            self._loop()
            self._read_final_scores()
        except TimeoutError:
            raise
        except OSError as exc:  # reset, broken pipe, closed: one name for a dropped connection
            raise ConnectionError(f"the connection to the server dropped ({exc})") from exc
        finally:
            self.conn.close()
        return self.result()

    def _read_final_scores(self, wait_s: float = 5.0) -> None:
        """After the game ends the server sends every seat's final score (GAMESTATS)."""
        deadline = time.monotonic() + wait_s
        while self.final_vp is None and time.monotonic() < deadline:
            text = self.conn.read(max(0.0, deadline - time.monotonic()))
            if text is None:
                return
            self.on_message(text)

    def result(self) -> Dict[str, Any]:
        m = self.mirror
        assert m is not None
        return {"seat": self.seat, "server_seat": self.js_seat, "winner": self.winner,
                "final_vp": self.final_vp, "turns": int(m.state[L.TURN]), "steps": len(m.entries),
                "rejected": list(self.rejected), "mismatches": list(m.mismatches),
                "repairs": m.repairs, "edits": m.edits, "fallbacks": self.fallbacks,
                "fallback_reasons": dict(self.fallback_reasons), "decisions": self.decisions,
                "declined_offers": self.declined_offers, "offers_received": self.offers_received,
                "offers_made": self.offers_made, "trades": self.trades_done,
                "forced_discards": self.forced_discards, "late_answers": self.late_answers,
                "offer_log": list(self.offer_log),
                "decision_seconds": round(float(np.median(self.think_seconds)), 4) if self.think_seconds else None,
                "seat_stats": seat_statistics(m.state, setup_settlements(m.entries, int(m.state[L.OPT_PLAYERS])))}

    def _check_mismatch(self) -> None:
        """Stop at the first disagreement (found while following a message or while our
        agent's answer waited on the messages that came meanwhile)."""
        m = self.mirror
        if self.stop_on_mismatch and m is not None and len(m.mismatches) > self._mismatches_seen:
            first = m.mismatches[self._mismatches_seen]
            self._mismatches_seen = len(m.mismatches)
            raise MirrorMismatch(f"the mirror disagrees with the server ({first}); the game stops here")

    def _loop(self) -> None:
        progress = time.monotonic()  # the last message that was not a ping
        while not self.done:
            self._maybe_act()
            self._check_mismatch()
            if self.done:
                break
            wait = None
            if self.call is not None:
                wait = max(0.0, self.call["t0"] + OFFER_WAIT_S - time.monotonic())
            text = self.conn.read(wait)
            if text is None:
                if self.call is not None and "accepting" not in self.call:
                    self._close_call()
                    continue
                if self.call is not None:  # our accept of a counter-offer went unanswered
                    self.call = self.pending = None
                    self.rejected.append((len(self._m().entries), "accept a counter-offer", "no answer"))
                    continue
                raise TimeoutError(f"no message from the server within {self.timeout} s")
            if text.startswith(f"{P.SERVERPING}|"):
                if time.monotonic() - progress > self.timeout:  # pings alone: a game stuck
                    raise TimeoutError(f"only pings from the server for {self.timeout:.0f} s; "
                                       f"our request waiting: {(self.pending or {}).get('text')}")
            else:
                progress = time.monotonic()
            self.on_message(text)
            self._check_mismatch()

    # ================================================================== messages
    def on_message(self, text: str) -> None:
        """Follow one server message (the mirror, prompts, expectations)."""
        kind, f = P.split(text)
        handler = _HANDLERS.get(kind)
        if handler is None:
            return
        if kind not in _NOT_OF_A_GAME and self.game and (not f or f[0] != self.game):
            return  # another game's message
        handler(self, f)

    def _m(self) -> Mirror:
        if self.mirror is None:
            raise P.ProtocolError("a game event before the game started")
        return self.mirror

    def _push(self, actions: Sequence[Tuple[int, int]], note: str, guesses: Optional[Dict[int, str]] = None,
              require: Any = None) -> None:
        self._m().push(Entry([list(x) for x in actions], guesses=guesses, note=note), require=require)

    def _on_join_request(self, f: List[str]) -> None:  # 1023 BOTJOINGAMEREQUEST: game, seat, options
        if self.game:
            return
        self.game, self.js_seat = f[0], int(f[1])
        self.conn.send(P.join_game(self.name, self.game))

    def _on_join_auth(self, f: List[str]) -> None:  # 1021 JOINGAMEAUTH
        self.conn.send(P.sit_down(self.game, P.EMPTY, self.js_seat, robot=True))

    def _on_board(self, f: List[str]) -> None:  # 1014 BOARDLAYOUT
        self._board_fields = f[1:]

    def _on_turn(self, f: List[str]) -> None:  # 1026 TURN: seat, state
        pn, gs = int(f[1]), int(f[2])
        if self.mirror is None:
            if gs != P.START1A:
                raise P.ProtocolError(f"the first turn is in state {gs}, not the set-up's {P.START1A}")
            self._start_mirror(pn)
        m = self._m()
        if m.phase() in (L.PH_MAIN, L.PH_ROAD_BUILDING) and gs in (P.ROLL_OR_CARD, P.OVER):
            self._push([(A.END_TURN, -1)], "end of turn")
        self.current, self.gs = pn, gs
        self.banned = set()
        self.offers_this_turn = 0
        self.incoming = None
        self.pending = None
        self.call = None          # (a turn the server ended for us ends our offer too)
        self.choose_victim = None
        self.must_discard = 0
        if gs == P.OVER:
            self._game_over()

    def _start_mirror(self, first: int) -> None:
        if self._board_fields is None:
            raise P.ProtocolError("the game started before the server sent its board")
        self.board = parse_board_layout(self._board_fields)
        self.first = first
        self.seat = self.cs(self.js_seat)
        opts = make_options(players=4, vp_to_win=10, board=self.board.board, max_offers_per_turn=20)
        self.mirror = Mirror(opts, self.seat)
        self.mirror.bank_hidden = True  # the server's bank is unlimited and never shown

    def _on_state(self, f: List[str]) -> None:  # 1025 GAMESTATE
        gs = int(f[1])
        if self.mirror is None:
            self.gs = gs
            return
        if self.discard_buffer and gs != P.WAITING_FOR_DISCARDS:
            self._flush_discards()
        if self.robber is not None and gs != P.WAITING_FOR_ROB_CHOOSE_PLAYER:
            self._flush_robber(None, None)
        self.gs = gs
        if gs != P.WAITING_FOR_DISCARDS:
            self.must_discard = 0  # (the discards are over, ours made or made for us)
        if gs == P.OVER:
            self._game_over()
            return
        self._check_expectations()
        if self.pending is not None and self.pending["kind"] == "plenty" and gs == P.WAITING_FOR_DISCOVERY:
            self.conn.send(P.pick_resources(self.game, self.pending["vec"]))
            return
        if self.pending is not None and self.pending["kind"] == "monopoly" and gs == P.WAITING_FOR_MONOPOLY:
            self.conn.send(f"{P.PICKRESOURCETYPE}|{self.game},{P.CORE_TO_JS_RES[self.pending['res']]}")
            return
        if gs != P.WAITING_FOR_ROB_CHOOSE_PLAYER:
            self.pending = None

    def _game_over(self) -> None:
        m = self._m()
        self.winner = self.cs(self.current)
        m.declare_winner(self.winner)
        self.done = True

    def _on_piece(self, f: List[str]) -> None:  # 1009 PUTPIECE: seat, piece, coord
        pn, piece, coord = int(f[1]), int(f[2]), int(f[3])
        assert self.board is not None
        if piece == P.ROAD:
            a = A.ROAD0 + self.board.edge(coord)
        elif piece == P.SETTLEMENT:
            a = A.SETTLEMENT0 + self.board.vertex(coord)
        elif piece == P.CITY:
            a = A.CITY0 + self.board.vertex(coord)
        else:
            raise P.ProtocolError(f"piece type {piece} (ships and other pieces are not in the base game)")
        self._push([(a, -1)], f"seat {self.cs(pn)} builds {A.action_name(a)}")

    def _on_dice(self, f: List[str]) -> None:  # 1028 DICERESULT
        n = int(f[1])
        if self.mirror is None or n < 2:
            return
        self._push([(A.ROLL, n)], f"roll {n}")

    def _on_dice_resources(self, f: List[str]) -> None:  # 1092: count, then per seat: pn, total, (n, res)*, 0
        v = P.ints(f[1:])
        m = self._m()
        gains: Dict[int, List[int]] = {}
        i = 1
        for _ in range(v[0]):
            p = self.cs(v[i])
            self.expect_totals[p] = v[i + 1]
            i += 2
            gains[p] = [0] * L.N_RES
            while i < len(v) and v[i] != 0:
                gains[p][P.JS_TO_CORE_RES[v[i + 1]]] += v[i]
                i += 2
            i += 1
        rolled = m.entries and m.entries[-1].kind == "act" and m.entries[-1].actions[0][0] == A.ROLL
        if not rolled:
            return
        before = m.before[-1]
        demand = [sum(g[r] for g in gains.values()) for r in range(L.N_RES)]
        for p in range(4):
            gained = gains.get(p, [0] * L.N_RES)
            got = [m.hand(p)[r] - int(before[L.hand_i(p, r)]) for r in range(L.N_RES)]
            short = [max(0, gained[r] - got[r]) for r in range(L.N_RES)]
            # the core pays nobody a resource its bank cannot pay everybody; the server's
            # bank never runs short: what the core's bank lacked is granted
            if any(got[r] > gained[r] or (short[r] and before[L.BANK + r] >= demand[r])
                   for r in range(L.N_RES)):
                m.mismatch(f"seat {p} gains {gained} from the roll, the mirror {got}")
            elif any(short):
                m.push(Entry(kind="edit", args=("grant", p, short),
                             note=f"seat {p} gains {short} the core's bank did not have"))

    def _on_elements(self, f: List[str]) -> None:  # 1086 PLAYERELEMENTS: game|pn|action|(type|amount)*
        v = P.ints(f[1:])
        pn, action = v[0], v[1]
        if self.mirror is None or pn != self.js_seat or action != P.SET:
            return
        hand = self.expect_hand or {}
        for k in range(2, len(v) - 1, 2):
            if 1 <= v[k] <= 5:
                hand[P.JS_TO_CORE_RES[v[k]]] = v[k + 1]
        self.expect_hand = hand or None

    def _on_resource_count(self, f: List[str]) -> None:  # 1063 RESOURCECOUNT: seat, count
        if self.mirror is not None:
            self.expect_totals[self.cs(int(f[1]))] = int(f[2])
            if self.monopoly_counts is not None:
                self.monopoly_counts[self.cs(int(f[1]))] = int(f[2])

    def _check_expectations(self) -> None:
        """What the server said of hands and the deck during the sequence that just ended."""
        m = self._m()
        for p, total in self.expect_totals.items():
            if sum(m.hand(p)) != total:
                m.mismatch(f"seat {p} holds {total} cards, the mirror {sum(m.hand(p))}")
        if self.expect_hand:
            ours = m.hand(self.seat)
            wrong = {r: n for r, n in self.expect_hand.items() if ours[r] != n}
            if wrong:
                m.mismatch(f"our hand: the server says {self.expect_hand}, the mirror {ours}")
        if self.expect_deck is not None and int(m.state[L.DECK:L.DECK + L.N_DEV].sum()) != self.expect_deck:
            m.mismatch(f"the deck holds {self.expect_deck} cards, the mirror "
                       f"{int(m.state[L.DECK:L.DECK + L.N_DEV].sum())}")
        self.expect_totals, self.expect_hand, self.expect_deck = {}, None, None
        s = m.state
        for key, field in (("lr", L.LR_HOLDER), ("la", L.LA_HOLDER)):
            if int(s[field]) != self.announced[key]:
                m.mismatch(f"{'longest road' if key == 'lr' else 'largest army'}: the server says seat "
                           f"{self.announced[key]}, the mirror {int(s[field])}")
                self.announced[key] = int(s[field])

    def _on_game_elements(self, f: List[str]) -> None:  # 1096: game|type|value...
        v = P.ints(f[1:])
        for k in range(0, len(v) - 1, 2):
            t, value = v[k], v[k + 1]
            if self.mirror is None:
                continue
            if t == P.GE_CURRENT_PLAYER and value >= 0:
                self.current = value
            elif t == P.GE_LARGEST_ARMY_PLAYER:
                self.announced["la"] = self.cs(value) if value >= 0 else -1
            elif t == P.GE_LONGEST_ROAD_PLAYER:
                self.announced["lr"] = self.cs(value) if value >= 0 else -1

    def _on_discard(self, f: List[str]) -> None:  # 1033 DISCARD: pN, 5 counts, unknown
        pn = int(f[1].lstrip("p"))
        v = P.ints(f[2:8])
        self.discard_buffer[self.cs(pn)] = (P.js_to_core(v[:5]), v[5])
        if pn == self.js_seat:
            self.must_discard = 0
            self.discard_asked = 0.0

    def _flush_discards(self) -> None:
        """The discards of a 7, in the core's order (seat by seat, one card an action); a
        discard this seat did not see is a guess, by resource."""
        m = self._m()
        s = m.state.copy()
        acts: List[Tuple[int, int]] = []
        guesses: Dict[int, str] = {}
        left = {p: (list(vec), unknown) for p, (vec, unknown) in self.discard_buffer.items()}
        while s[L.PHASE] == L.PH_DISCARD:
            p = int(s[L.DECIDER])
            if p not in left:
                m.mismatch(f"seat {p} must discard; the server reported no discard")
                break
            vec, unknown = left[p]
            r = next((r for r in range(L.N_RES) if vec[r] > 0), None)
            if r is not None:
                vec[r] -= 1
                acts.append((A.DISCARD0 + r, -1))
                R.apply_action(s, A.DISCARD0 + r, -1)
            elif unknown > 0:
                left[p] = (vec, unknown - 1)
                hand = [int(s[L.hand_i(p, x)]) for x in range(L.N_RES)]
                g = max(range(L.N_RES), key=lambda x: hand[x])
                guesses[len(acts)] = GUESS_DISCARD
                acts.append((A.DISCARD0, g))
                R.apply_action(s, A.DISCARD0 + g, -1)
            else:
                m.mismatch(f"seat {p} discarded fewer cards than the core asks")
                break
        counts = {p: sum(vec) + unknown for p, (vec, unknown) in self.discard_buffer.items()}
        self.discard_buffer = {}
        told: Set[int] = set()
        for i, act in enumerate(acts):  # one entry a card: the repairs change one guess an entry
            p = int(self._m().state[L.DECIDER])
            if p not in told:  # the others do not see p's discards (the core shows them)
                told.add(p)
                self._m().push(Entry(kind="forget", args=(p, counts[p]), note=f"seat {p} discards unseen"))
            self._m().push(Entry([list(act)], guesses={0: GUESS_DISCARD} if i in guesses else None,
                                 args=UNSEEN, note=f"seat {p} discards"))

    def _on_discard_request(self, f: List[str]) -> None:  # 1029: count
        """Only while the server waits for discards: it also re-sends a request after
        refusing a discard that came too late (its own made already), which we ignore."""
        if self.gs != P.WAITING_FOR_DISCARDS:
            return
        self.must_discard = int(f[1])
        self.discard_asked = time.monotonic()

    def _on_element(self, f: List[str]) -> None:  # 1024 PLAYERELEMENT: seat, action, type, amount[, news]
        """A card lost while the server waits for discards is a discard it made for a seat
        too slow to (its 8-s limit): typed for the seat itself, unknown to the others."""
        if self.mirror is None or self.gs != P.WAITING_FOR_DISCARDS:
            return
        pn, action, kind, n = P.ints(f[1:5])
        if action != P.LOSE or not 1 <= kind <= P.UNKNOWN_RESOURCE:
            return
        vec, unknown = self.discard_buffer.get(self.cs(pn), ([0] * L.N_RES, 0))
        if kind == P.UNKNOWN_RESOURCE:
            unknown += n
        else:
            vec[P.JS_TO_CORE_RES[kind]] += n
        self.discard_buffer[self.cs(pn)] = (vec, unknown)
        if pn == self.js_seat and self.discard_asked:
            self.must_discard = 0
            self.discard_asked = 0.0  # (counted once a request: the server sends one message a type)
            self.forced_discards += 1
            self._count_fallback("server: discarded for us at its time limit")

    def _on_move_robber(self, f: List[str]) -> None:  # 1034: seat, hex
        assert self.board is not None
        coord = int(f[2])
        if coord < 0:
            raise P.ProtocolError("the pirate moved (not in the base game)")
        self.robber = (self.cs(int(f[1])), self.board.hex(coord))

    def _on_robbery(self, f: List[str]) -> None:  # 1102: perp, victim, R, res, amount, T
        if f[3] != "R":
            raise P.ProtocolError(f"a robbery of {f[3]!r} kind (not a resource)")
        victim, res = self.cs(int(f[2])), int(f[4])
        self._flush_robber(victim, P.JS_TO_CORE_RES.get(res))

    def _flush_robber(self, victim: Optional[int], res: Optional[int]) -> None:
        if self.robber is None:
            return
        mover, h = self.robber
        self.robber = None
        if victim is None:
            self._push([(A.robber_action(h, 0), -1)], "robber, no theft")
            return
        k = (victim - mover) % 4
        a = A.robber_action(h, k)
        if res is None:
            self._m().push_guess(a, GUESS_STEAL, note=f"seat {mover} steals from {victim}")
        else:
            self._push([(a, res)], f"seat {mover} steals from {victim}")

    def _on_choose_player_request(self, f: List[str]) -> None:  # 1036: [NONE,] a flag a seat
        flags = [x for x in f[1:] if x != "NONE"]
        self.choose_victim = [self.cs(pn) for pn, x in enumerate(flags) if x == "true"]

    def _on_dev_card(self, f: List[str]) -> None:  # 1046: seat, action, type
        pn, action = int(f[1]), int(f[2])
        card = int(f[3]) if len(f) > 3 else 0
        if action == P.CANNOT_PLAY:
            self._refused("play a development card", "CANNOT_PLAY")
            return
        if self.mirror is None or pn < 0:
            return
        p = self.cs(pn)
        if action == P.DRAW:
            if p == self.seat:
                if card not in P.DEV_TO_CORE:
                    raise P.ProtocolError(f"we drew development card type {card}")
                self._push([(A.BUY_DEV, P.DEV_TO_CORE[card])], "our purchase")
            elif card == P.DEV_UNKNOWN:
                self._m().push_guess(A.BUY_DEV, GUESS_DRAW, note=f"seat {p} buys a card")
            else:
                self._push([(A.BUY_DEV, P.DEV_TO_CORE[card])], f"seat {p} buys a card")
        elif action == P.PLAY:
            if card == P.DEV_KNIGHT:
                self._push([(A.PLAY_KNIGHT, -1)], f"seat {p} plays a knight")
            elif card == P.DEV_ROADS:
                self._push([(A.PLAY_ROAD_BUILDING, -1)], f"seat {p} plays road building")
            elif card == P.DEV_MONOPOLY:  # each victim's new count, then RSRC_TYPE_MONOPOLIZED
                # (a Year of Plenty's cards come as PICKRESOURCES)
                self.monopoly_counts = {}

    def _on_pick(self, f: List[str]) -> None:  # 1052: 5 counts, seat, reason
        v = P.ints(f[1:8])
        if v[6] != P.PICK_REASON_DISCOVERY:
            raise P.ProtocolError(f"resources picked for reason {v[6]} (gold hexes are not in the base game)")
        vec = P.js_to_core(v[:5])
        rs = sorted(r for r in range(L.N_RES) for _ in range(vec[r]))
        if len(rs) != 2:
            raise P.ProtocolError(f"a Year of Plenty of {len(rs)} cards")
        p, m = self.cs(v[5]), self._m()
        if any(m.state[L.BANK + r] < vec[r] for r in range(L.N_RES)):  # a bank that never runs short
            m.push(Entry(kind="edit", args=("plenty", p, vec), note=f"seat {p}'s year of plenty, the core's bank short"))
        else:
            i = next(i for i in range(A.N_YOP) if A.YOP_R1[i] == rs[0] and A.YOP_R2[i] == rs[1])
            self._push([(A.YOP0 + i, -1)], f"seat {p} plays year of plenty")

    def _on_simple_action(self, f: List[str]) -> None:  # 1090: seat, type, v1, v2
        pn, t, v1, v2 = P.ints(f[1:5])
        if self.mirror is None:
            return
        if t == P.SA_DEVCARD_BOUGHT:
            self.expect_deck = v1
        elif t == P.SA_RSRC_TYPE_MONOPOLIZED:
            p, res = self.cs(pn), P.JS_TO_CORE_RES[v2]
            after = self.monopoly_counts or {}  # victims' card counts after (the others lost none)
            self.monopoly_counts = None
            m = self._m()
            got = {q: (sum(m.hand(q)) - after[q] if q in after else 0) for q in range(4) if q != p}
            if sum(got.values()) != v1:
                m.mismatch(f"a monopoly took {v1} cards; the counts the server showed make {sum(got.values())}")
                return
            m.push_monopoly(p, res, got, note=f"seat {p} monopolises {L.RESOURCE_NAMES[res]}")

    def _on_bank_trade(self, f: List[str]) -> None:  # 1040: give 5, get 5, seat
        v = P.ints(f[1:12])
        give, get, p = P.js_to_core(v[:5]), P.js_to_core(v[5:10]), self.cs(v[10])
        gr = [r for r in range(L.N_RES) if give[r]]
        tr = [r for r in range(L.N_RES) if get[r]]
        m = self._m()
        if len(gr) != 1 or len(tr) != 1:
            raise P.ProtocolError(f"a bank trade of several kinds of cards: gives {give}, gets {get}")
        r1, r2, k = gr[0], tr[0], get[tr[0]]
        rate = int(R.trade_rate(m.state, p, r1))
        if m.state[L.BANK + r2] < k:  # the server's bank never runs short; the core's did
            m.push(Entry(kind="edit", args=("bank_swap", p, give, get),
                         note=f"seat {p} trades with a bank the core's could not pay"))
        elif give[r1] == rate * k:
            self._push([(A.maritime_action(r1, r2), -1)] * k, f"seat {p} trades with the bank")
        else:
            m.push(Entry(kind="edit", args=("maritime", p, r1, give[r1], r2),
                         note=f"maritime trade at {give[r1]}:{k}"))
        if p == self.seat:
            self.pending = None

    def _on_offer(self, f: List[str]) -> None:  # 1041: from, 4 flags, give 5, get 5
        if self.mirror is None:
            return
        frm = int(f[1])
        to = [x == "true" for x in f[2:6]]
        v = P.ints(f[6:16])
        give, get = P.js_to_core(v[:5]), P.js_to_core(v[5:])
        if frm == self.js_seat:
            if self.pending is not None and self.pending["kind"] == "offer":
                self.pending = None
            if self.call is not None:
                self.call["sent"] = True  # answers from here on are to this offer
            return
        if not to[self.js_seat]:
            return
        p = self.cs(frm)
        if self.call is not None:  # a counter-offer to our open offer
            if self.call.get("sent"):  # (before its echo: a counter to our previous offer)
                self.call["counters"][p] = (give, get)
                self.call["answered"].add(p)
                _answer(self.call, p, ANSWER_COUNTER)
            return
        self.offers_received += 1
        self.incoming = {"from": p, "give": give, "get": get}

    def _on_reject(self, f: List[str]) -> None:  # 1037: seat[, reason]
        """A seat rejects our offer; with a reason code, the server refuses our own trade
        request (an offer, an accept or a bank trade)."""
        pn = int(f[1])
        if len(f) > 2 and int(f[2]) != 0:
            if self.pending is not None and self.pending["kind"] in ("offer", "accept", "bank"):
                # our accept crossed the robot's withdrawal of its counter: a late answer
                late = self.pending["kind"] == "accept" and self.call is not None and self.call.get("withdrawn")
                self._refused("trade", f"refused, reason {f[2]}", late=bool(late))
            return
        if self.call is not None and self.call.get("sent") and 0 <= pn < 4 and pn != self.js_seat:
            self.call["answered"].add(self.cs(pn))
            _answer(self.call, self.cs(pn), ANSWER_REJECT)

    def _on_clear_offer(self, f: List[str]) -> None:  # 1038: seat (-1: everyone)
        """A seat withdraws its offer: an offer to us is gone, and so is a counter-offer to
        our open offer (a robot may withdraw its counter before we decide: accepting it
        then was refused in a strength run); the seat has still answered."""
        pn = int(f[1])
        if self.incoming is not None and (pn < 0 or self.cs(pn) == self.incoming["from"]):
            self.incoming = None
        if self.call is not None and "accepting" not in self.call and pn != self.js_seat:
            if pn < 0:
                self.call["counters"].clear()
            else:
                self.call["counters"].pop(self.cs(pn), None)
        elif self.call is not None and 0 <= pn < 4 and self.cs(pn) == self.call.get("accepting"):
            self.call["withdrawn"] = True  # withdrawn while our accept was on its way

    def _on_accept(self, f: List[str]) -> None:  # 1039: accepting, offering, to accepting 5, to offering 5
        v = P.ints(f[1:13])
        accepting, offering = self.cs(v[0]), self.cs(v[1])
        to_acc, to_off = P.js_to_core(v[2:7]), P.js_to_core(v[7:12])
        m = self._m()
        turn = int(m.state[L.TURN_PLAYER])
        if offering == turn:
            m.push_trade(offering, accepting, give=to_acc, get=to_off)
        elif accepting == turn:
            m.push_trade(accepting, offering, give=to_off, get=to_acc)
        else:
            raise P.ProtocolError(f"a trade between seats {offering} and {accepting}, neither on turn")
        if self.seat in (accepting, offering):
            self.trades_done += 1
        if self.call is not None and offering == self.seat:  # a seat took our offer
            _answer(self.call, accepting, ANSWER_ACCEPT)
        elif self.call is not None and accepting == self.seat:  # we took a seat's counter-offer
            _answer(self.call, offering, ANSWER_COUNTER_TAKEN)
        if self.call is not None:
            self.call = None
            self.pending = None
        self.incoming = None

    def _on_stats(self, f: List[str]) -> None:  # 1061 GAMESTATS: 4 scores, 4 robot flags
        if self.mirror is None or not f[1].lstrip("-").isdigit():
            return
        vp = P.ints(f[1:5])
        self.final_vp = [vp[self.js(c)] for c in range(4)]

    def _on_cancel_build(self, f: List[str]) -> None:  # 1044 CANCELBUILDREQUEST: piece type
        """The server takes back a set-up settlement only when it ends a robot's turn: one
        that ran past its time limit, or one whose set-up road it refused (a FAST robot
        once placed an illegal first road).  The core has no set-up with a settlement
        missing, so the game stops here, saying so.  Later in the game a cancelled
        placement was never in the mirror (pieces enter it when placed)."""
        m = self.mirror
        if m is not None and int(m.state[L.TURN]) == 0:
            raise SetupTakenBack(
                f"the server took back seat {self.current + 1}'s set-up settlement (it ended that "
                "seat's turn: a robot out of time, or one whose set-up road it refused); the core "
                "has no set-up without it, so the game stops here")

    def _on_decline(self, f: List[str]) -> None:  # 1104 DECLINEPLAYERREQUEST
        self._refused("request", ",".join(f[1:])[:120])

    def _refused(self, what: str, why: str, late: bool = False) -> None:
        """The server refused our request: a rejected move, banned for this decision; or,
        ``late``, an accept of a counter-offer its seat withdrew while the accept was on
        its way (a race, counted with the late answers)."""
        m = self.mirror
        step = len(m.entries) if m is not None else 0
        pending = self.pending or {}
        if late:
            self.late_answers += 1
        else:
            self.rejected.append((step, pending.get("text", what), why))
        if "action" in pending:
            self.banned.add(int(pending["action"]))
        self.pending = None
        if self.call is not None and pending.get("kind") in ("offer", "accept"):
            self.call = None  # our offer is over: withdrawn, never retried this turn
            if pending.get("kind") == "accept":
                self.conn.send(f"{P.CLEAROFFER}|{self.game},{self.js_seat}")

    def _on_ping(self, f: List[str]) -> None:  # 9999 SERVERPING: echoed, as the server's robots do
        self.conn.send(f"{P.SERVERPING}|{','.join(f)}")

    def _on_leave(self, f: List[str]) -> None:  # 1011 LEAVEGAME: nick, host, game
        if self.mirror is not None and not self.done and len(f) >= 3 and f[2] == self.game:
            self._m().mismatch(f"{f[0]} left the game")

    # ================================================================== decisions
    def _decision_state(self) -> np.ndarray:
        m = self._m()
        s = m.state.copy()
        made = max(int(s[L.OFFERS_MADE]), self.offers_this_turn)
        if made >= self.offers_per_turn:
            made = max(made, AGENT_MAX_OFFERS)  # the bridge's cap is reached
        elif made >= AGENT_MAX_OFFERS:
            # past the rule option's cap but within ours: the state the agent reads keeps
            # the cap it knows and shows one offer left (its own memory counts the rest)
            made = AGENT_MAX_OFFERS - 1
        s[L.OFFERS_MADE] = made
        s[L.OPT_MAX_OFFERS] = AGENT_MAX_OFFERS
        s[L.OPT_VP] = m.target
        return s

    def _send(self, pending: Dict[str, Any]) -> None:
        self.pending = pending
        self.conn.send(pending["text"])

    def _maybe_act(self) -> None:
        m = self.mirror
        if m is None or self.done or m.phase() == L.PH_GAME_OVER:
            return
        if self.must_discard and self.pending is None:
            self._discard(self.must_discard)
            return
        if self.choose_victim is not None:
            choices, self.choose_victim = self.choose_victim, None
            victim = self.rob_victim
            if victim not in choices:  # (the mirror's victim is always among the server's)
                self._count_fallback("client: our robbery victim was not among the server's")
                victim = choices[0] if choices else None
            if victim is not None:
                self.conn.send(f"{P.CHOOSEPLAYER}|{self.game},{self.js(victim)}")
            return
        if self.incoming is not None and self.pending is None:
            self._answer_offer()
            return
        if self.call is not None:
            if "accepting" not in self.call and len(self.call["answered"]) >= 3:
                self._close_call()  # (once: after our accept we only wait for the trade)
            return
        if self.pending is not None or m.decider() != self.seat or self.current != self.js_seat:
            return
        ph, gs = m.phase(), self.gs
        if ph == L.PH_SETUP_SETTLEMENT and gs in P.SETUP_SETTLEMENT_STATES or \
                ph == L.PH_SETUP_ROAD and gs in P.SETUP_ROAD_STATES or \
                ph == L.PH_ROAD_BUILDING and gs in (P.PLACING_FREE_ROAD1, P.PLACING_FREE_ROAD2):
            self._build(self._decide(self._decision_state(), self.banned))
        elif ph == L.PH_MOVE_ROBBER and gs == P.PLACING_ROBBER:
            self._robber_move()
        elif ph == L.PH_PRE_ROLL and gs == P.ROLL_OR_CARD or ph == L.PH_MAIN and gs == P.PLAY1:
            self._turn_move()

    def _build(self, a: int) -> None:
        assert self.board is not None
        if A.ROAD0 <= a < A.SETTLEMENT0:
            piece, coord = P.ROAD, self.board.edge_coord(a - A.ROAD0)
        elif a < A.CITY0:
            piece, coord = P.SETTLEMENT, self.board.node(a - A.SETTLEMENT0)
        else:
            piece, coord = P.CITY, self.board.node(a - A.CITY0)
        self._send({"kind": "build", "action": a, "text": P.put_piece(self.game, self.js_seat, piece, coord)})

    def _turn_move(self) -> None:
        a = self._decide(self._decision_state(), self.banned)
        g = self.game
        if a == A.ROLL:
            self._send({"kind": "roll", "action": a, "text": f"{P.ROLLDICE}|{g}"})
        elif a == A.END_TURN:
            self._send({"kind": "end", "action": a, "text": f"{P.ENDTURN}|{g}"})
        elif A.ROAD0 <= a < A.BUY_DEV:
            self._build(a)
        elif a == A.BUY_DEV:
            self._send({"kind": "buy", "action": a, "text": f"{P.BUYDEVCARDREQUEST}|{g}"})
        elif a in (A.PLAY_KNIGHT, A.PLAY_ROAD_BUILDING):
            card = P.DEV_KNIGHT if a == A.PLAY_KNIGHT else P.DEV_ROADS
            self._send({"kind": "play", "action": a, "text": f"{P.PLAYDEVCARDREQUEST}|{g},{card}"})
        elif A.YOP0 <= a < A.MONOPOLY0:
            vec = [0] * L.N_RES
            vec[A.YOP_R1[a - A.YOP0]] += 1
            vec[A.YOP_R2[a - A.YOP0]] += 1
            self._send({"kind": "plenty", "action": a, "vec": vec,
                        "text": f"{P.PLAYDEVCARDREQUEST}|{g},{P.DEV_DISCOVERY}"})
        elif A.MONOPOLY0 <= a < A.ROBBER0:
            self._send({"kind": "monopoly", "action": a, "res": a - A.MONOPOLY0,
                        "text": f"{P.PLAYDEVCARDREQUEST}|{g},{P.DEV_MONOPOLY}"})
        elif A.MARITIME0 <= a < A.OFFER0:
            i = a - A.MARITIME0
            r1, r2 = int(A.MARITIME_GIVE[i]), int(A.MARITIME_GET[i])
            give, get = [0] * L.N_RES, [0] * L.N_RES
            give[r1] = int(R.trade_rate(self._m().state, self.seat, r1))
            get[r2] = 1
            self._send({"kind": "bank", "action": a, "text": P.bank_trade(g, give, get)})
        elif A.OFFER0 <= a < A.TRADE_ACCEPT:
            k = a - A.OFFER0
            give, get = menu_vectors(k)
            asked = getattr(self.agent, "offer_recipients", None)  # (mirror seats; None: everyone)
            asked = [p for p in range(4) if p != self.seat] if not asked else list(asked)
            to = [self.cs(p) in asked for p in range(4)]
            self.offers_this_turn += 1
            self.offers_made += 1
            self.banned.add(a)
            self.call = {"menu": k, "give": give, "get": get, "answered": {p for p in range(4) if p != self.seat
                                                                          and p not in asked},
                         "counters": {}, "t0": time.monotonic(),
                         "record": offer_record(self._m().state, self.seat, k, asked)}
            self.offer_log.append(self.call["record"])
            self._send({"kind": "offer", "action": a, "text": P.make_offer(g, self.js_seat, to, give, get)})
        else:
            self._m().mismatch(f"unexpected decision {A.action_name(a)} on our turn")

    def _robber_move(self) -> None:
        assert self.board is not None
        a = self._decide(self._decision_state(), self.banned)
        victim = int(A.robber_victim_seat(a, self.seat, 4))
        self.rob_victim = victim if victim >= 0 else None
        self._send({"kind": "robber", "action": a,
                    "text": f"{P.MOVEROBBER}|{self.game},{self.js_seat},{self.board.hex_coord(int(A.robber_hex(a)))}"})

    def _discard(self, k: int) -> None:
        """Choose k cards to discard (one decision a card, as in the core); past
        DISCARD_BUDGET_S the rest go most-held first, each counted as a fallback."""
        vec = self._choose_discards(self._m().state, k, deadline=self.discard_asked + DISCARD_BUDGET_S)
        self.must_discard = 0
        self._send({"kind": "discard", "text": P.discard(self.game, vec)})

    def _answer_offer(self) -> None:
        """A robot offers us a trade: the agent accepts, rejects or counters it when the
        core's menu can say it; a bundle it cannot say is declined and counted."""
        offer = self.incoming
        assert offer is not None
        self.incoming = None
        caller, give, get = offer["from"], offer["give"], offer["get"]
        g = self.game
        menu = menu_index(give, get)
        m = self._m()
        if menu is None or m.phase() != L.PH_MAIN:
            self.declined_offers += 1
            self.conn.send(f"{P.REJECTOFFER}|{g},{self.js_seat}")
            return
        a = self._decide(response_state(m.state, caller, self.seat, menu))
        if self._withdrawn_while_thinking(caller):
            self.late_answers += 1
            return
        if a == A.TRADE_ACCEPT:
            self.conn.send(f"{P.ACCEPTOFFER}|{g},{self.js_seat},{self.js(caller)}")
        elif A.COUNTER0 <= a < A.CONFIRM0:
            mine, theirs = menu_vectors(a - A.COUNTER0)  # (in our frame)
            to = [p == self.js(caller) for p in range(4)]
            self.conn.send(P.make_offer(g, self.js_seat, to, mine, theirs))
        else:
            self.conn.send(f"{P.REJECTOFFER}|{g},{self.js_seat}")

    def _withdrawn_while_thinking(self, caller: int) -> bool:
        """Whether caller's offer was cleared, taken by another seat, or the turn moved on,
        in the messages that came while our agent decided (followed now, in order)."""
        turn = self.current
        self.incoming = {"from": caller, "pending": True}
        while True:
            text = self.conn.read(0.0)
            if text is None:
                break
            self.on_message(text)
            if self.incoming is None or self.incoming.get("from") != caller or self.current != turn:
                break
        gone = self.incoming is None or self.incoming.get("from") != caller or self.current != turn
        if self.incoming is not None and self.incoming.get("pending"):
            self.incoming = None
        return gone

    def _close_call(self) -> None:
        """Our offer has its answers (or waited long enough): a counter-offer the agent
        confirms is accepted; otherwise the offer is withdrawn."""
        call = self.call
        if call is None:
            return
        self.call = None
        counters = call["counters"]
        chosen = None
        if counters:
            s = self._decision_state()
            menu = call["menu"]
            s[L.TRADE_GIVE_RES], s[L.TRADE_GIVE_N] = A.MENU_GIVE_RES[menu], A.MENU_GIVE_N[menu]
            s[L.TRADE_GET_RES], s[L.TRADE_GET_N] = A.MENU_GET_RES[menu], A.MENU_GET_N[menu]
            for k in range(1, 4):
                q = (self.seat + k) % 4
                resp = L.RESP_REJECT
                if q in counters:
                    give, get = counters[q]  # the robot gives `give`, wants `get`
                    c = menu_index(give, get)
                    if c is not None:
                        resp = L.RESP_COUNTER + c
                s[L.TRADE_RESP + q] = resp
            if any(s[L.TRADE_RESP + q] >= L.RESP_COUNTER for q in range(4)):
                s[L.PHASE] = L.PH_TRADE_CONFIRM
                s[L.DECIDER] = self.seat
                a = self._decide(s)
                if A.CONFIRM0 <= a < A.TRADE_CANCEL:
                    chosen = int(A.confirm_partner(a, self.seat, 4))
        if chosen is not None:
            self.call = {**call, "accepting": chosen, "t0": time.monotonic() + 60, "answered": {0, 1, 2, 3}}
            self._send({"kind": "accept", "text": f"{P.ACCEPTOFFER}|{self.game},{self.js_seat},{self.js(chosen)}"})
            return
        self._send({"kind": "clear", "text": f"{P.CLEAROFFER}|{self.game},{self.js_seat}"})
        self.pending = None  # the server echoes a clear without a state change


def _answer(call: Dict[str, Any], p: int, answer: int) -> None:
    """Note seat p's answer to our open offer (the first answer counts, but a trade)."""
    answers = call["record"][2]
    if answers[p] in (ANSWER_NONE, ANSWER_COUNTER) or answer in (ANSWER_ACCEPT, ANSWER_COUNTER_TAKEN):
        if not (answers[p] == ANSWER_COUNTER and answer == ANSWER_REJECT):
            answers[p] = answer


_NOT_OF_A_GAME = (P.BOTJOINGAMEREQUEST, P.SERVERPING)  # (BOTJOINGAMEREQUEST names the game; a ping none)

_HANDLERS = {
    P.BOTJOINGAMEREQUEST: JSettlersClient._on_join_request,
    P.JOINGAMEAUTH: JSettlersClient._on_join_auth,
    P.BOARDLAYOUT: JSettlersClient._on_board,
    P.TURN: JSettlersClient._on_turn,
    P.GAMESTATE: JSettlersClient._on_state,
    P.PUTPIECE: JSettlersClient._on_piece,
    P.DICERESULT: JSettlersClient._on_dice,
    P.DICERESULTRESOURCES: JSettlersClient._on_dice_resources,
    P.PLAYERELEMENTS: JSettlersClient._on_elements,
    P.RESOURCECOUNT: JSettlersClient._on_resource_count,
    P.GAMEELEMENTS: JSettlersClient._on_game_elements,
    P.DISCARD: JSettlersClient._on_discard,
    P.DISCARDREQUEST: JSettlersClient._on_discard_request,
    P.PLAYERELEMENT: JSettlersClient._on_element,
    P.SERVERPING: JSettlersClient._on_ping,
    P.MOVEROBBER: JSettlersClient._on_move_robber,
    P.ROBBERYRESULT: JSettlersClient._on_robbery,
    P.CHOOSEPLAYERREQUEST: JSettlersClient._on_choose_player_request,
    P.DEVCARDACTION: JSettlersClient._on_dev_card,
    P.PICKRESOURCES: JSettlersClient._on_pick,
    P.SIMPLEACTION: JSettlersClient._on_simple_action,
    P.BANKTRADE: JSettlersClient._on_bank_trade,
    P.MAKEOFFER: JSettlersClient._on_offer,
    P.REJECTOFFER: JSettlersClient._on_reject,
    P.CLEAROFFER: JSettlersClient._on_clear_offer,
    P.ACCEPTOFFER: JSettlersClient._on_accept,
    P.GAMESTATS: JSettlersClient._on_stats,
    P.DECLINEPLAYERREQUEST: JSettlersClient._on_decline,
    P.CANCELBUILDREQUEST: JSettlersClient._on_cancel_build,
    P.LEAVEGAME: JSettlersClient._on_leave,
}


class GameHost:
    """Creates a game on the server as an observer and starts it once our seats are
    connected: the server then fills every seat from its robots, ours included (it must
    run with ``jsettlers.bots.botgames.total`` set, -1 for none at start-up)."""

    def __init__(self, host: str, port: int, game: str, name: str = "catan_host", timeout: float = 60.0) -> None:
        self.conn = MessageConnection(host, port, timeout)
        self.game, self.name, self.timeout = game, name, timeout
        self.conn.send(P.VERSION)
        self.conn.send(P.new_game(name, game))
        while True:
            text = self.conn.read()
            if text is None:
                raise TimeoutError(f"the server did not create game {game} within {timeout} s")
            kind, f = P.split(text)
            if kind == P.JOINGAMEAUTH and f[0] == game:
                return
            if kind == P.STATUSMESSAGE and "already" in text.lower():
                raise P.ProtocolError(f"the server would not create game {game}: {text}")

    def start(self) -> None:
        self.conn.send(f"{P.STARTGAME}|{self.game}")

    def wait_seated(self, names: Sequence[str], timeout: float = 30.0) -> Dict[int, str]:
        """After ``start``: wait until the server has seated all four seats, every one of
        ``names`` (our seats) among them, returning who sits where; :class:`NotSeated` as
        soon as every seat is taken without them (the server fills the seats at random from its whole robot
        pool, ours included, so a pool larger than the free seats may leave ours out)."""
        seats: Dict[int, str] = {}
        deadline = time.monotonic() + timeout
        while len(seats) < 4:  # (every seat: the game starts once all four sit)
            text = self.conn.read(max(0.0, deadline - time.monotonic()))
            if text is None:
                raise TimeoutError(f"the server seated {sorted(seats.values()) or 'nobody'} in game "
                                   f"{self.game} within {timeout:.0f} s"
                                   + (f", not {sorted(set(names) - set(seats.values()))}"
                                      if not set(names) <= set(seats.values()) else ""))
            kind, f = P.split(text)
            if kind == P.SITDOWN and f and f[0] == self.game:
                seats[int(f[2])] = f[1]
                if len(seats) == 4 and not set(names) <= set(seats.values()):
                    raise NotSeated(f"the server filled every seat of game {self.game} from its robot pool "
                                    f"({', '.join(seats[k] for k in sorted(seats))}) and drew none of "
                                    f"{', '.join(sorted(set(names) - set(seats.values())))}")
            elif kind == P.STATUSMESSAGE and f and "robot" in text.lower() and "cannot" in text.lower():
                raise NotSeated(f"the server would not start game {self.game}: {text}")
        return seats

    def close(self) -> None:
        try:
            self.conn.send(f"{P.LEAVEGAME}|{self.name},-,{self.game}")
        except OSError:
            pass
        self.conn.close()
