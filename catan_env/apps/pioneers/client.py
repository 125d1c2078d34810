"""A Pioneers client that lets any of our agents play one seat.

    client = PioneersClient("127.0.0.1", 5556, make_agent("jsettlers"))
    result = client.play()      # until somebody wins; returns the outcome and the record

The client keeps a :class:`Mirror` of the game, gives the agent the observation, mask
and information set of its seat at every decision, and turns the agent's action ids
into protocol commands.  The server is the referee: a command it refuses (``ERR``) is
logged with the step and the mirror's record, the action is banned for that decision,
and the client falls back to a safe move instead of trying again.

A connection that drops mid-game is taken back (``status reconnect NAME``, with
exponential backoff): the server's state block must agree with the mirror on every field
it reports, or the game stops (events were missed while the seat was away).
"""
import re
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ...learned.acceptance import (ANSWER_ACCEPT, ANSWER_COUNTER, ANSWER_COUNTER_TAKEN, ANSWER_NONE, ANSWER_REJECT,
                                   offer_record)
from ...core import actions as A
from ...core import layout as L
from ...core import rules as R
from ...agent_specs import AgentProtocol
from .connection import LineConnection
from .game import options_from_game
from ..bridge.mirror import Mirror
from ..bridge.seat import AgentSeat, menu_index, menu_vectors, response_state
from .events import ServerEvents
from .protocol import DEV_CODE_TO_CORE, RESOURCE_WORD, ProtocolError, parse_game_block, to_pio

QUOTE_WAIT_S = 3.0        # how long our own call waits for every seat to answer
AGENT_MAX_OFFERS = 3      # domestic calls an agent may make per turn
VP_CODES = (3, 4, 5, 6, 7)
RECONNECT_HANDSHAKE_S = 30.0  # the longest a reconnect's handshake may take, all lines together
RECONNECT_HANDSHAKE_LINES = 2000  # lines a reconnect's handshake may send (a state block has ~50)
RECONNECT_WAIT_CAP_S = 30.0   # the longest wait between two tries
MAX_RECONNECTS = 10           # reconnects in one game: a server that keeps dropping us is given up
_WELCOME = re.compile(r"player (\d+) of (\d+), welcome")
_SEAT_LINE = re.compile(r"player \d+ ")  # "welcome", "is", "style": may come amid the handshake
_PIECE = re.compile(r"(RO|R|S|C)(-?\d+),(-?\d+)(?:,(-?\d+),(-?\d+))?$")


class MirrorMismatch(RuntimeError):
    """The server reported an event the seat's mirror cannot follow."""


class ReconnectFailed(ConnectionError):
    """The connection dropped and the seat could not be taken back."""


class PioneersClient(ServerEvents, AgentSeat):
    """One seat of a Pioneers game played by ``agent`` (see the module docstring)."""

    params: Dict[str, Any]  # the server's game parameters (parse_game_block), once joined
    _early: List[str]       # lines that came before the handshake's

    def __init__(self, host: str, port: int, agent: Optional[AgentProtocol], name: str = "catan_env",
                 seed: int = 0, timeout: float = 120.0, keep_transcript: bool = False,
                 stop_on_mismatch: bool = True, reconnect_tries: int = 4,
                 reconnect_backoff: float = 0.5) -> None:
        self.host, self.port, self.agent, self.name = host, port, agent, name
        if isinstance(reconnect_tries, bool) or not isinstance(reconnect_tries, int) or reconnect_tries < 0:
            raise ValueError(f"reconnect_tries must be an integer >= 0, got {reconnect_tries!r}")
        if not reconnect_backoff >= 0:  # (NaN fails too)
            raise ValueError(f"reconnect_backoff must be >= 0 seconds, got {reconnect_backoff!r}")
        # a dropped connection is retried reconnect_tries times (0: never), waiting
        # reconnect_backoff s before the first try and twice as long before each next one
        self.reconnect_tries = reconnect_tries
        self.reconnect_backoff = reconnect_backoff
        self.reconnects = 0         # connections taken back during the game
        self._rejoin_deadline: Optional[float] = None  # set while a reconnect's handshake runs
        self._rejoin_lines = 0
        self.round_seen = 0         # the round of the last "player N turn T" line (T)
        # a mirror that disagrees with the server cannot be trusted: the game ends at once
        # (MirrorMismatch names it) instead of the seat acting on a wrong game
        self.stop_on_mismatch = stop_on_mismatch
        self.seed = seed
        self.timeout = timeout
        self.transcript: Optional[List[Tuple[str, str]]] = [] if keep_transcript else None
        self.rejected = []          # (step, command, error)
        self.fallbacks = 0          # moves replaced: the agent's own (reported) and ours
        self.fallback_reasons: Dict[str, int] = {}
        self.decisions = 0
        self.think_seconds: List[float] = []
        self.announced = {"longest-road": -1, "largest-army": -1}
        self.winner = None
        self.won_with = None

    # ================================================================== run
    def play(self) -> Dict[str, Any]:
        """Join, play until the game ends, return a result dict."""
        self.conn = LineConnection(self.host, self.port, self.timeout, self.transcript)
        try:
            self._handshake()
            self._loop()
        finally:
            self.conn.close()
        return self.result()

    def result(self) -> Dict[str, Any]:
        m = self.mirror
        n = m.n
        vp = [int(m.state[L.PUBLIC_VP + p]) for p in range(n)]
        return {"seat": self.seat, "winner": self.winner, "won_with": self.won_with,
                "public_vp": vp, "turns": int(m.state[L.TURN]), "steps": len(m.entries),
                "rejected": list(self.rejected), "mismatches": list(m.mismatches),
                "repairs": m.repairs, "edits": m.edits, "fallbacks": self.fallbacks,
                "fallback_reasons": dict(self.fallback_reasons),
                "decisions": self.decisions, "mirror_over": m.phase() == L.PH_GAME_OVER,
                "mirror_winner": int(m.state[L.WINNER]), "reconnects": self.reconnects,
                "offer_log": list(self.offer_log)}

    def _expect(self, pred: Callable[[str], bool], what: str) -> str:
        while True:
            line = self._handshake_line()
            if line is None:
                raise TimeoutError(f"no {what} from the server within {self.timeout} s")
            if pred(line):
                return line
            self._early.append(line)

    def _handshake_line(self) -> Optional[str]:
        """The next line of a handshake.  A reconnect's handshake has one deadline and a
        line cap for all its lines together (a server trickling lines cannot hold it)."""
        if self._rejoin_deadline is None:
            return self.conn.read()
        left = self._rejoin_deadline - time.monotonic()
        self._rejoin_lines += 1
        if left <= 0 or self._rejoin_lines > RECONNECT_HANDSHAKE_LINES:
            raise TimeoutError(f"the reconnect's handshake did not end within {RECONNECT_HANDSHAKE_S:.0f} s "
                               f"and {RECONNECT_HANDSHAKE_LINES} lines")
        return self.conn.read(left)

    def _handshake(self) -> None:
        self._early = []
        c = self.conn
        self._expect(lambda ln: ln.startswith("version"), "version prompt")
        c.send("version 15")
        self._expect(lambda ln: ln.startswith("status"), "status prompt")
        c.send("status newplayer")
        welcome = self._expect(lambda ln: " of " in ln and "welcome" in ln, "welcome")
        words = welcome.split()
        self.seat = int(words[1])
        c.send("style ai catan_env")
        c.send(f"name {self.name}")
        c.send("game")
        self._expect(lambda ln: ln == "game", "game block")
        block: List[str] = []
        while True:
            line = c.read()
            if line is None:
                raise TimeoutError("the game block did not end")
            if line == "end":
                break
            block.append(line)
        self.params = parse_game_block(block)
        opts, self.board = options_from_game(self.params)
        c.send("start")
        self._expect(lambda ln: ln == "OK", "OK to start")
        self.start_game(Mirror(opts, self.seat))
        for line in self._early:
            self._on_line(line)

    def start_game(self, mirror: Mirror) -> None:
        """Begin following a game in ``mirror`` (the handshake calls it; tests too)."""
        self.mirror = mirror
        self._reset_turn_state()
        self.offer_log: List[List[Any]] = []  # our calls and each seat's answer (``acceptance.offer_record``)
        self.calls_made = 0
        self.dev_list = []            # our development cards in the server's order: [code, new]
        self.setup_buffer = []        # (seat, kind, id) builds not yet in the mirror
        self.discard_buffer = {}      # seat -> core vec
        self.receives = {}            # seat -> core vec since the last production
        self.hands_mark = None
        self.robber = None            # (seat, hex) once moved, waiting for the theft
        self.steal = None             # (victim, resource or None)
        self.monopoly = None          # (seat, resource, {victim: n})
        self.pending = None           # what our last command waits for
        self.setup_prompt = 0         # settlements+roads still to place in our set-up
        self.road_building = False
        self.call = None              # our open domestic call
        self.turn_seat = -1           # whose turn the server last announced
        self.robber_prompt = False    # the server asked us to move the robber
        self.rob_victim = None        # the seat our robber action robs
        self.pending_discard = 0      # cards the server asked us to discard
        self.discard_retries = 0
        self.done = False

    def _reset_turn_state(self) -> None:
        self.banned = set()
        self.calls_this_turn = 0

    def _loop(self) -> None:
        """Follow the game until it ends; a dropped connection is taken back first."""
        resend = False
        while True:
            try:
                if resend and self.pending is not None:
                    # the server never acted on our last command (its state is the mirror's)
                    self.conn.send(self.pending["cmd"])
                resend = False
                self._follow()
                return
            except OSError as exc:  # (a TimeoutError is a silent server, not a drop)
                if isinstance(exc, TimeoutError) or self.reconnect_tries <= 0:
                    raise
                if self.reconnects >= MAX_RECONNECTS:
                    raise ReconnectFailed(f"the connection dropped ({exc}) after {self.reconnects} reconnects "
                                          f"in this game; giving up") from None
                self._reconnect(exc)
                resend = True

    def _follow(self) -> None:
        while not self.done:
            self._maybe_act()
            if self.done:
                break
            call = self.call if self.call is not None and not self.call.get("closed") else None
            wait = None if call is None else max(0.0, call["t0"] + QUOTE_WAIT_S - time.monotonic())
            line = self.conn.read(wait)
            if line is None:
                if call is not None and call["sent"]:
                    self._close_call()
                    continue
                if call is not None:  # the server ignored our call: forget it
                    self.call = self.pending = None
                    self.rejected.append((len(self.mirror.entries), "domestic-trade call", "no reply"))
                    continue
                raise TimeoutError(f"no line from the server within {self.timeout} s")
            if line == "version report":  # a recorded session's reconnect (only a replay meets one)
                self._skip_rejoin()
                continue
            self._raw = line
            mirror = getattr(self, "mirror", None)
            known = len(mirror.mismatches) if mirror is not None else 0
            self._on_line(line)
            if self.stop_on_mismatch and mirror is not None and len(mirror.mismatches) > known:
                raise MirrorMismatch(f"the mirror disagrees with the server ({mirror.mismatches[known]}); "
                                     f"the game stops here")
            self._maybe_close_call()

    # ================================================================== reconnecting
    def _ev_turn(self, seat: int, w: List[str], body: str) -> None:
        """A turn starts: remember its round (the state block of a reconnect names it)."""
        if len(w) > 1 and w[1].isdecimal():
            self.round_seen = int(w[1])
        super()._ev_turn(seat, w, body)

    def _note(self, text: str) -> None:
        """A marker line in the transcript (direction "#": a replay skips it)."""
        if self.transcript is not None:
            self.transcript.append(("#", text))

    def _reconnect(self, cause: OSError) -> None:
        """Take our seat back after a dropped connection: up to reconnect_tries tries with
        exponential backoff.  Raises ReconnectFailed when no try got the seat back (or the
        server gave another seat), MirrorMismatch when the server's state block disagrees
        with the mirror; either way the game is over for us."""
        self.conn.close()
        self._note(f"connection dropped: {cause}")
        last: Exception = cause
        for attempt in range(1, self.reconnect_tries + 1):
            time.sleep(min(RECONNECT_WAIT_CAP_S, self.reconnect_backoff * 2 ** min(attempt - 1, 30)))
            self._note(f"reconnect try {attempt} of {self.reconnect_tries}")
            try:
                conn = LineConnection(self.host, self.port, min(self.timeout, RECONNECT_HANDSHAKE_S),
                                      self.transcript)
            except OSError as exc:
                last = exc
                continue
            self.conn = conn
            try:
                try:
                    self._rejoin()
                finally:
                    self._rejoin_deadline = None
            except (ProtocolError, ValueError, IndexError, KeyError) as exc:
                self.conn.close()
                raise ReconnectFailed(f"the connection dropped ({cause}) and the server's answer to "
                                      f"the reconnect was not understood: {exc}") from None
            except (MirrorMismatch, ReconnectFailed):
                self.conn.close()
                raise
            except OSError as exc:  # refused, reset, or silent (TimeoutError): try again
                self.conn.close()
                last = exc
                continue
            conn.timeout = self.timeout
            self.reconnects += 1
            self._note(f"reconnected ({self.reconnects}): the server's state agrees with the mirror")
            return
        raise ReconnectFailed(f"the connection dropped ({cause}) and reconnecting failed after "
                              f"{self.reconnect_tries} tries (last: {type(last).__name__}: {last})")

    def _rejoin(self) -> None:
        """The handshake of a reconnect: our old seat back, the same game, and a state block
        that agrees with the mirror (``state_disagreements``); then ``start``."""
        self._early = []
        self._rejoin_deadline = time.monotonic() + RECONNECT_HANDSHAKE_S
        self._rejoin_lines = 0
        c = self.conn
        self._expect(lambda ln: ln.startswith("version"), "version prompt")
        c.send("version 15")
        self._expect(lambda ln: ln.startswith("status"), "status prompt")
        c.send(f"status reconnect {self.name}")
        welcome = self._expect(lambda ln: bool(_WELCOME.match(ln)) or ln.startswith("ERR"), "welcome")
        if welcome.startswith("ERR"):
            raise ConnectionRefusedError(f"the server refused the reconnect: {welcome}")
        found = _WELCOME.match(welcome)
        assert found is not None
        seat = int(found.group(1))
        if seat != self.seat:
            raise ReconnectFailed(f"the server gave seat {seat} back, not our seat {self.seat}")
        c.send("style ai catan_env")
        c.send("game")
        self._expect(lambda ln: ln == "game", "game block")
        block = self._read_block("end", "the game block")
        if parse_game_block(block) != self.params:
            raise ReconnectFailed("the server's game parameters changed while we were away")
        c.send("gameinfo")
        self._expect(lambda ln: ln == "gameinfo", "state block")
        pieces = self._read_block(".", "the pieces of the state block")
        info = self._read_block("end", "the state block")
        wrong = self.state_disagreements(pieces, info)
        if wrong:
            raise MirrorMismatch("after reconnecting, the server's state disagrees with the mirror "
                                 f"(events were missed while we were away): {'; '.join(wrong)}")
        c.send("start")
        self._expect(lambda ln: ln == "OK", "OK to start")
        # (the lines kept aside are the handshake's own: names, styles, welcomes)

    def _skip_rejoin(self) -> None:
        """Skip a recorded reconnect's handshake, up to the server's OK after the state
        block (a replayed session goes on with the events that follow it)."""
        stage = 0  # 0: before "gameinfo", 1: in the state block, 2: waiting for OK
        while True:
            line = self.conn.read()
            if line is None:
                raise TimeoutError("a recorded reconnect did not end")
            if line == "version report":  # a try cut short, then another
                stage = 0
            elif (stage, line) in ((0, "gameinfo"), (1, "end")):
                stage += 1
            elif stage == 2 and line == "OK":
                return

    def _read_block(self, end: str, what: str) -> List[str]:
        """The lines up to ``end`` (seat lines the server sends amid a handshake set aside)."""
        block: List[str] = []
        while True:
            line = self._handshake_line()
            if line is None:
                raise TimeoutError(f"{what} did not end")
            if line == end:
                return block
            if _SEAT_LINE.match(line):
                self._early.append(line)
            else:
                block.append(line)

    def state_disagreements(self, pieces: Sequence[str], info: Sequence[str]) -> List[str]:
        """What the server's state block (``gameinfo``: the pieces up to ``.``, then the
        state lines up to ``end``) reports differently from the mirror, one text per field.
        Checked: the board (roads, settlements, cities, robber), round and turn seat, bank,
        cards drawn from the deck, our hand, development cards and pieces, and every other
        seat's card counts, soldiers, VP cards shown and longest-road / largest-army."""
        s, b, me = self.mirror.state, self.board, self.seat
        wrong: List[str] = []

        def differ(what: str, server: object, mirror: object) -> None:
            if server != mirror:
                wrong.append(f"{what}: server {server}, mirror {mirror}")

        # the board
        roads: Set[Tuple[int, int]] = set()        # (edge, seat)
        settlements: Set[Tuple[int, int]] = set()  # (vertex, seat)
        cities: Set[Tuple[int, int]] = set()
        robber: Optional[int] = None
        for line in pieces:
            m = _PIECE.match(line)
            if m is None:
                wrong.append(f"unknown piece {line!r}")
                continue
            kind, x, y = m.group(1), int(m.group(2)), int(m.group(3))
            try:
                if kind == "RO":
                    robber = b.hex(x, y)
                elif m.group(4) is None:
                    wrong.append(f"unknown piece {line!r}")
                elif kind == "R":
                    roads.add((b.edge(x, y, int(m.group(4))), int(m.group(5))))
                else:
                    (settlements if kind == "S" else cities).add((b.vertex(x, y, int(m.group(4))),
                                                                   int(m.group(5))))
            except KeyError:
                wrong.append(f"piece off the board {line!r}")
        owner, level, e_owner = L.view(s, "v_owner"), L.view(s, "v_level"), L.view(s, "e_owner")
        ours = {"road": {(int(e), int(e_owner[e])) for e in np.flatnonzero(e_owner >= 0)},
                "settlement": {(int(v), int(owner[v])) for v in np.flatnonzero(level == 1)},
                "city": {(int(v), int(owner[v])) for v in np.flatnonzero(level == 2)}}
        theirs = {"road": roads, "settlement": settlements, "city": cities}
        for kind, found in theirs.items():
            text = b.edge_text if kind == "road" else b.vertex_text
            for where, p in sorted(found - ours[kind]):
                wrong.append(f"{kind} {text(where)} of seat {p}: on the server, not in the mirror")
            for where, p in sorted(ours[kind] - found):
                wrong.append(f"{kind} {text(where)} of seat {p}: in the mirror, not on the server")
        if robber is not None:
            differ("robber", b.hex_text(robber), b.hex_text(int(s[L.ROBBER])))

        # the state lines
        setup = self.mirror.phase() in (L.PH_SETUP_SETTLEMENT, L.PH_SETUP_ROAD)
        devs: List[int] = []
        for line in info:
            w = line.split()
            try:
                if line.startswith("turn num "):
                    differ("round", int(w[2]), self.round_seen)
                elif line.startswith("player turn: ") and not setup and self.turn_seat >= 0:
                    differ("turn of seat", int(w[2]), self.turn_seat)
                elif line.startswith("dice rolled:") and self.turn_seat == me:
                    # our turn's roll happened on the server: the mirror must be past it too
                    # (a resent roll the server already took would otherwise go unnoticed)
                    differ("our roll this turn", "rolled", "not rolled" if self.mirror.phase() == L.PH_PRE_ROLL
                           else "rolled")
                elif w[0] == "bank":
                    differ("bank", " ".join(w[1:6]), to_pio([int(x) for x in L.view(s, "bank")]))
                elif w[0] == "development-bought":
                    drawn = int(L.view(s, "deck_start").sum() - L.view(s, "deck").sum())
                    differ("development cards bought", int(w[1]), drawn)
                elif line.startswith("playerinfo: resources: "):
                    differ(f"our (seat {me}) hand", " ".join(w[2:7]), to_pio(self.mirror.hand(me)))
                elif line.startswith("playerinfo: numdevcards: "):
                    differ(f"our (seat {me}) development cards", int(w[2]), len(self.dev_list))
                elif line.startswith("playerinfo: devcard: "):
                    devs.append(int(w[2]))
                elif w[0] == "playerinfo:" and len(w) >= 14:
                    v = [int(x) for x in w[1:14]]
                    self._differ_seat(differ, me, None, None, v[5], v[6:11], v[11], v[12])
                    differ(f"seat {me} roads", v[0], sum(1 for _, p in ours["road"] if p == me))
                    differ(f"seat {me} settlements", v[3], sum(1 for _, p in ours["settlement"] if p == me))
                    differ(f"seat {me} cities", v[4], sum(1 for _, p in ours["city"] if p == me))
                elif w[0] == "otherplayerinfo:" and len(w) >= 12:
                    v = [int(x) for x in w[1:12]]
                    if 0 <= v[0] < self.mirror.n and v[0] != me:
                        self._differ_seat(differ, v[0], v[1], v[2], v[3], v[4:9], v[9], v[10])
            except (ValueError, IndexError):
                wrong.append(f"unreadable state line {line!r}")
        if devs:
            differ(f"our (seat {me}) development card codes", sorted(devs), sorted(c for c, _ in self.dev_list))
        return wrong

    def _differ_seat(self, differ: Callable[[str, object, object], None], p: int, cards: Optional[int],
                     devs: Optional[int], soldiers: int, vp_shown: Sequence[int], lr: int, la: int) -> None:
        """Compare one seat's line of the state block (cards and devs: None for our own,
        which has lines of its own)."""
        s = self.mirror.state
        if cards is not None:
            differ(f"seat {p} resource cards", cards, sum(self.mirror.hand(p)))
        if devs is not None:
            differ(f"seat {p} development cards", devs, int(L.view(s, "dev_hand")[p].sum()))
        differ(f"seat {p} soldiers", soldiers, int(s[L.KNIGHTS + p]))
        differ(f"seat {p} VP cards shown", sum(vp_shown), int(s[L.VP_REVEALED + p]))
        differ(f"seat {p} longest road", bool(lr), int(s[L.LR_HOLDER]) == p)
        differ(f"seat {p} largest army", bool(la), int(s[L.LA_HOLDER]) == p)

    # ================================================================== decisions
    def _decision_state(self) -> np.ndarray:
        s = self.mirror.state.copy()
        s[L.OFFERS_MADE] = max(int(s[L.OFFERS_MADE]), self.calls_this_turn)
        s[L.OPT_MAX_OFFERS] = AGENT_MAX_OFFERS
        s[L.OPT_VP] = self.mirror.target
        return s

    def _maybe_act(self) -> None:
        m = self.mirror
        if self.pending is not None or self.done:
            return
        if self.setup_prompt == -1:
            self.setup_prompt = 0
            self._send({"kind": "setup_done", "cmd": "done"})
            return
        if m.phase() == L.PH_GAME_OVER:
            return
        if self.road_building and m.phase() != L.PH_ROAD_BUILDING:
            self.road_building = False  # the mirror left road building: tell the server first
            self._send({"kind": "rb_done", "cmd": "done"})
            return
        if self.turn_seat == self.seat and m.phase() in (L.PH_PRE_ROLL, L.PH_MAIN) and \
                m.decider() == self.seat and self.call is None and self._claim_win():
            return  # (the server ignores a card played amid a robbery or road building)
        if self.call is not None:
            return
        if m.decider() != self.seat or self.robber is not None or self.discard_buffer:
            return
        ph = m.phase()
        if ph in (L.PH_SETUP_SETTLEMENT, L.PH_SETUP_ROAD):
            if self.setup_prompt > 0:
                self._setup_move()
            return
        if ph == L.PH_MOVE_ROBBER:
            if self.robber_prompt:
                self.robber_prompt = False
                self._robber_move()
            return
        if ph == L.PH_ROAD_BUILDING:
            a = self._decide(self._decision_state(), self.banned)
            self._send({"kind": "build", "cmd": f"build road {self.board.edge_text(a - A.ROAD0)}",
                        "action": a})
            return
        if ph in (L.PH_PRE_ROLL, L.PH_MAIN) and self.turn_seat == self.seat:
            self._turn_move()

    def _send(self, pending: Dict[str, Any]) -> None:
        self.pending = pending
        self.conn.send(pending["cmd"])

    def _setup_move(self) -> None:
        a = self._decide(self._decision_state(), self.banned)
        if A.SETTLEMENT0 <= a < A.CITY0:
            cmd = f"build settlement {self.board.vertex_text(a - A.SETTLEMENT0)}"
        else:
            cmd = f"build road {self.board.edge_text(a - A.ROAD0)}"
        self.setup_prompt -= 1
        if self.setup_prompt == 0:
            self.setup_prompt = -1  # then "done"
        self._send({"kind": "build", "cmd": cmd, "action": a})

    def _turn_move(self) -> None:
        a = self._decide(self._decision_state(), self.banned)
        s = self.mirror.state
        if a == A.ROLL:
            self._send({"kind": "roll", "cmd": "roll", "action": a})
        elif a == A.END_TURN:
            self._send({"kind": "done", "cmd": "done", "action": a})
        elif a < A.SETTLEMENT0:
            self._send({"kind": "build", "cmd": f"build road {self.board.edge_text(a - A.ROAD0)}", "action": a})
        elif a < A.CITY0:
            self._send({"kind": "build", "cmd": f"build settlement {self.board.vertex_text(a - A.SETTLEMENT0)}",
                        "action": a})
        elif a < A.BUY_DEV:
            self._send({"kind": "build", "cmd": f"build city {self.board.vertex_text(a - A.CITY0)}", "action": a})
        elif a == A.BUY_DEV:
            self._send({"kind": "buy", "cmd": "buy-develop", "action": a})
        elif a < A.ROBBER0:
            card = (L.KNIGHT if a == A.PLAY_KNIGHT else L.ROAD_BUILDING if a == A.PLAY_ROAD_BUILDING
                    else L.YEAR_OF_PLENTY if a < A.MONOPOLY0 else L.MONOPOLY)
            idx = next((i for i, (code, new) in enumerate(self.dev_list)
                        if DEV_CODE_TO_CORE[code] == card and not new), None)
            if idx is None:
                self.mirror.mismatch(f"no {L.DEV_NAMES[card]} card in our list {self.dev_list}")
                self.banned.add(a)
                return
            p: Dict[str, Any] = {"kind": "play", "cmd": f"play-develop {idx}", "action": a, "card": card}
            if card == L.MONOPOLY:
                p["res"] = a - A.MONOPOLY0
            if card == L.YEAR_OF_PLENTY:
                p["yop"] = a - A.YOP0
            if card == L.KNIGHT:
                p["kind"] = "knight"
            self._send(p)
        elif A.MARITIME0 <= a < A.OFFER0:
            give, get = A.action_args(a)
            rate = int(R.trade_rate(s, self.seat, give))
            self._send({"kind": "trade", "action": a,
                        "cmd": f"maritime-trade {rate} supply {RESOURCE_WORD[give]} receive {RESOURCE_WORD[get]}"})
        elif A.OFFER0 <= a < A.TRADE_ACCEPT:
            m = a - A.OFFER0
            give_vec, get_vec = menu_vectors(m)
            self.calls_this_turn += 1
            self.calls_made += 1
            self.call = {"menu": m, "give": give_vec, "get": get_vec, "answers": {}, "answered": set(),
                         "sent": False, "t0": time.monotonic(), "record": offer_record(s, self.seat, m)}
            self.offer_log.append(self.call["record"])
            self._send({"kind": "call", "action": a,
                        "cmd": f"domestic-trade call supply {to_pio(give_vec)} receive {to_pio(get_vec)}"})
        else:
            self.mirror.mismatch(f"unexpected decision {A.action_name(a)} on our turn")
            self.banned.add(a)

    def _robber_move(self) -> None:
        a = self._decide(self._decision_state(), self.banned)
        if not A.is_robber(a):
            self.mirror.mismatch(f"robber decision is {A.action_name(a)}")
            return
        victim = int(A.robber_victim_seat(a, self.seat, self.mirror.n))
        self.rob_victim = victim if victim >= 0 else None
        self._send({"kind": "robber", "cmd": f"move-robber {self.board.hex_text(int(A.robber_hex(a)))}",
                    "action": a})

    def _ev_rob(self, seat: int, w: List[str], body: str) -> None:
        # several victims possible: name ours
        victim = self.rob_victim
        if victim is None:
            victim = next(p for p in range(self.mirror.n) if p != self.seat)
        self.conn.send(f"rob {victim}")

    def _discard(self, k: int) -> None:
        """Choose k cards to discard (one decision per card, as in the core)."""
        vec = self._choose_discards(self.mirror.state, k)
        self.pending = {"kind": "discard", "cmd": f"discard {to_pio(vec)}"}
        self.conn.send(self.pending["cmd"])

    def _answer_call(self, caller: int, supply: Sequence[int], receive: Sequence[int]) -> None:
        """Another seat calls for quotes: it offers what is in supply and wants what is in
        receive.  Ask the agent about each one-for-one reading of the call."""
        m = self.mirror
        base = m.state.copy()
        for give_r in [r for r in range(L.N_RES) if supply[r] > 0][:3]:
            for get_r in [r for r in range(L.N_RES) if receive[r] > 0][:3]:
                if give_r == get_r or base[L.hand_i(self.seat, get_r)] < 1:
                    continue
                one_for_one = menu_index([int(r == give_r) for r in range(L.N_RES)],
                                         [int(r == get_r) for r in range(L.N_RES)])
                assert one_for_one is not None
                a = self._decide(response_state(base, caller, self.seat, one_for_one))
                if a == A.TRADE_ACCEPT:
                    give, get = [0] * L.N_RES, [0] * L.N_RES
                    give[get_r], get[give_r] = 1, 1
                elif A.COUNTER0 <= a < A.CONFIRM0:
                    give, get = menu_vectors(a - A.COUNTER0)
                else:
                    continue
                self.conn.send(f"domestic-quote quote 0 supply {to_pio(give)} receive {to_pio(get)}")
                return
        self.conn.send("domestic-quote finish")

    def _close_call(self) -> None:
        """Our call has its answers (or waited long enough): let the agent confirm one."""
        call = self.call
        if call is None or not call["sent"] or call.get("closed"):
            return
        call["closed"] = True  # answer once; the finish echo forgets the call
        m = self.mirror
        n = m.n
        s = self._decision_state()
        menu = call["menu"]
        s[L.TRADE_GIVE_RES], s[L.TRADE_GIVE_N] = A.MENU_GIVE_RES[menu], A.MENU_GIVE_N[menu]
        s[L.TRADE_GET_RES], s[L.TRADE_GET_N] = A.MENU_GET_RES[menu], A.MENU_GET_N[menu]
        chosen_quote: Dict[int, Tuple[int, List[int], List[int]]] = {}
        for k in range(1, n):
            q = (self.seat + k) % n
            resp = L.RESP_REJECT
            for quote, S, T in call["answers"].get(q, []):
                if S == call["get"] and T == call["give"]:
                    resp, chosen_quote[q] = L.RESP_ACCEPT, (quote, S, T)
                    break
                counter = menu_index(S, T)  # the quoter gives S, wants T
                if counter is not None and resp == L.RESP_REJECT:
                    resp, chosen_quote[q] = L.RESP_COUNTER + counter, (quote, S, T)
            s[L.TRADE_RESP + q] = resp
            # (the offer log: a quote of exactly the call accepts it, another is a counter)
            call["record"][2][q] = (ANSWER_ACCEPT if resp == L.RESP_ACCEPT else ANSWER_COUNTER if resp != L.RESP_REJECT
                                    else ANSWER_REJECT if q in call["answered"] else ANSWER_NONE)
        if chosen_quote:
            s[L.PHASE] = L.PH_TRADE_CONFIRM
            s[L.DECIDER] = self.seat
            a = self._decide(s)
            if A.CONFIRM0 <= a < A.TRADE_CANCEL:
                partner = int(A.confirm_partner(a, self.seat, n))
                quote, S, T = chosen_quote[partner]
                if call["record"][2][partner] == ANSWER_COUNTER:
                    call["record"][2][partner] = ANSWER_COUNTER_TAKEN
                self.conn.send(f"domestic-trade accept player {partner} quote {quote} "
                               f"supply {to_pio(S)} receive {to_pio(T)}")
        self.pending = {"kind": "finish", "cmd": "domestic-trade finish"}
        self.conn.send("domestic-trade finish")

    def _claim_win(self) -> bool:
        """Our VP with the hidden VP cards reach the target: show them (Pioneers counts
        VP cards only once played).  True when a card was played."""
        s = self.mirror.state
        if int(s[L.PUBLIC_VP + self.seat]) + int(s[L.dev_i(self.seat, L.VICTORY_POINT)]) < self.mirror.target:
            return False
        idx = next((i for i, (code, _) in enumerate(self.dev_list) if code in VP_CODES), None)
        if idx is None:
            return False
        self._send({"kind": "play", "cmd": f"play-develop {idx}", "card": L.VICTORY_POINT})
        return True

    def _maybe_close_call(self) -> None:
        call = self.call
        if call is not None and call["sent"] and not call.get("closed") and \
                len(call["answered"]) >= self.mirror.n - 1:
            self._close_call()
