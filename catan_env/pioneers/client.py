"""A Pioneers client that lets any of our agents play one seat.

    client = PioneersClient("127.0.0.1", 5556, make_agent("jsettlers"))
    result = client.play()      # until somebody wins; returns the outcome and the record

The client keeps a :class:`Mirror` of the game, gives the agent the observation, mask
and information set of its seat at every decision, and turns the agent's action ids
into protocol commands.  The server is the referee: a command it refuses (``ERR``) is
logged with the step and the mirror's record, the action is banned for that decision,
and the client falls back to a safe move instead of trying again.
"""
import logging
import select
import socket
import time

import numpy as np

from ..core import actions as A
from ..core import layout as L
from ..core import rules as R
from ..core.observe import VECTOR_SIZE, encode_vector
from ..core.options import PIONEERS_RULES, make_options
from ..core.topology import EDGE_VERTICES
from ..infoset import InfoSet
from .board import PioneersBoard
from .mirror import GUESS_DRAW, GUESS_STEAL, Entry, Mirror
from .protocol import (DECK_KEYS, DEV_CODE_TO_CORE, RESOURCE_WORD, WORD_RESOURCE, ProtocolError,
                       ints, parse_game_block, split_prefix, to_core, to_pio)

log = logging.getLogger("catan_env.pioneers")

KNOWN_FLAGS = {"random-terrain", "strict-trade", "domestic-trade", "check-victory-at-end-of-turn"}
QUOTE_WAIT_S = 3.0        # how long our own call waits for every seat to answer
AGENT_MAX_OFFERS = 3      # domestic calls an agent may make per turn
VP_CODES = (3, 4, 5, 6, 7)


def options_from_game(params):
    """GameOptions for the server's game parameters; ProtocolError names anything the
    core cannot represent."""
    flags = params["flags"]
    unknown = sorted(flags - KNOWN_FLAGS)
    if unknown:
        raise ProtocolError(f"unsupported rules {unknown}: the core cannot represent them")
    if "check-victory-at-end-of-turn" in flags:
        raise ProtocolError("unsupported rule check-victory-at-end-of-turn")
    want = {"num-roads": 15, "num-settlements": 5, "num-cities": 4, "resource-count": 19,
            "num-bridges": 0, "num-ships": 0, "num-city-walls": 0}
    for key, value in want.items():
        if key in params and int(params[key]) != value:
            raise ProtocolError(f"unsupported rule {key} {params[key]}: the core plays with {value}")
    players = int(params.get("num-players", 4))
    if not 2 <= players <= 4:
        raise ProtocolError(f"unsupported game: {players} players (the core plays 2-4)")
    if params.get("use-dice-deck") or "use-dice-deck" in flags:
        raise ProtocolError("unsupported rule: a dice deck")
    deck = [0] * L.N_DEV
    for key, t in DECK_KEYS.items():
        deck[t] += int(params.get(key, 0))
    if not params.get("map"):
        raise ProtocolError("the server sent no map")
    board = PioneersBoard(params["map"], params["chits"])
    rules = dict(PIONEERS_RULES, dev_deck=tuple(deck), strict_trade="strict-trade" in flags)
    opts = make_options(players=players, vp_to_win=int(params.get("victory-points", 10)),
                        sevens_rule=int(params.get("sevens-rule", 0)),
                        domestic_trade="domestic-trade" in flags, max_offers_per_turn=20,
                        board=board.board, **rules)
    return opts, board


class LineConnection:
    """Text lines over TCP with timeouts (LF only; ``hello`` answered)."""

    def __init__(self, host, port, timeout=60.0, transcript=None):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.buf = b""
        self.transcript = transcript  # list receiving ("S"|"C", line)

    def send(self, line):
        if self.transcript is not None:
            self.transcript.append(("C", line))
        self.sock.sendall((line + "\n").encode())

    def read(self, timeout=None):
        """The next line, or None after timeout seconds without one (EOF raises)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if hasattr(socket, "TCP_QUICKACK"):
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        text = line.decode(errors="replace").rstrip("\r")
        if self.transcript is not None:
            self.transcript.append(("S", text))
        if text == "hello":  # keep-alive: answer, and keep waiting for the same deadline
            self.send("yes")
            return self.read(max(0.0, deadline - time.monotonic()))
        return text

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class PioneersClient:
    """One seat of a Pioneers game played by ``agent`` (see the module docstring)."""

    def __init__(self, host, port, agent, name="catan_env", seed=0, timeout=120.0,
                 keep_transcript=False):
        self.host, self.port, self.agent, self.name = host, port, agent, name
        self.seed = seed
        self.timeout = timeout
        self.transcript = [] if keep_transcript else None
        self.rejected = []          # (step, command, error)
        self.fallbacks = 0
        self.decisions = 0
        self.announced = {"longest-road": -1, "largest-army": -1}
        self.winner = None
        self.won_with = None

    # ================================================================== run
    def play(self):
        """Join, play until the game ends, return a result dict."""
        self.conn = LineConnection(self.host, self.port, self.timeout, self.transcript)
        try:
            self._handshake()
            self._loop()
        finally:
            self.conn.close()
        return self.result()

    def result(self):
        m = self.mirror
        n = m.n
        vp = [int(m.state[L.PUBLIC_VP + p]) for p in range(n)]
        return {"seat": self.seat, "winner": self.winner, "won_with": self.won_with,
                "public_vp": vp, "turns": int(m.state[L.TURN]), "steps": len(m.entries),
                "rejected": list(self.rejected), "mismatches": list(m.mismatches),
                "repairs": m.repairs, "edits": m.edits, "fallbacks": self.fallbacks,
                "decisions": self.decisions, "mirror_over": m.phase() == L.PH_GAME_OVER,
                "mirror_winner": int(m.state[L.WINNER])}

    def _expect(self, pred, what):
        while True:
            line = self.conn.read()
            if line is None:
                raise TimeoutError(f"no {what} from the server within {self.timeout} s")
            if pred(line):
                return line
            self._early.append(line)

    def _handshake(self):
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
        block = []
        while True:
            line = c.read()
            if line is None:
                raise TimeoutError("the game block did not end")
            if line == "end":
                break
            block.append(line)
        self.params = parse_game_block(block)
        opts, self.board = options_from_game(self.params)
        self.mirror = Mirror(opts, self.seat)
        c.send("start")
        self._expect(lambda ln: ln == "OK", "OK to start")
        self._reset_turn_state()
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
        for line in self._early:
            self._on_line(line)

    def _reset_turn_state(self):
        self.banned = set()
        self.calls_this_turn = 0

    def _loop(self):
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
            self._raw = line
            self._on_line(line)
            self._maybe_close_call()

    # ================================================================== server lines
    def _on_line(self, line):
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

    def _rejected(self, line):
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

    def _done_waiting(self, kind):
        if self.pending is not None and self.pending["kind"] == kind:
            self.pending = None

    # ---- set-up
    def _ev_setup(self, seat, w, body):
        if seat == self.seat:
            self.setup_prompt = 2

    def _ev_setup_double(self, seat, w, body):
        if seat == self.seat:
            self.setup_prompt = 4

    def _ev_built(self, seat, w, body):
        kind, x, y, pos = w[1], int(w[2]), int(w[3]), int(w[4])
        if kind == "road":
            a = A.ROAD0 + self.board.edge(x, y, pos)
        elif kind == "settlement":
            a = A.SETTLEMENT0 + self.board.vertex(x, y, pos)
        elif kind == "city":
            a = A.CITY0 + self.board.vertex(x, y, pos)
        else:
            self.mirror.mismatch(f"unknown piece {kind}")
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

    def _flush_setup(self):
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
    def _ev_turn(self, seat, w, body):
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

    def _ev_rolled(self, seat, w, body):
        total = int(w[1]) + int(w[2])
        if total == 7 and seat == self.seat:
            self._done_waiting("roll")  # discards and the robber follow
        self._mark_hands()
        self.mirror.push(Entry([(A.ROLL, total)], note=f"roll {total}"))
        self.mirror.state[L.LAST_DIE1], self.mirror.state[L.LAST_DIE2] = int(w[1]), int(w[2])

    def _mark_hands(self):
        self.hands_mark = np.array(L.view(self.mirror.state, "hand"))
        self.receives = {}

    def _ev_receives(self, seat, w, body):
        got = to_core(ints(w[1:6]))
        prev = self.receives.get(seat, [0] * L.N_RES)
        self.receives[seat] = [a + b for a, b in zip(prev, got)]

    def _ev_done_resources(self, seat, w, body):
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
    def _push_turn_action(self, seat, a, note=""):
        m = self.mirror
        if m.decider() != seat and m.phase() != L.PH_GAME_OVER:
            m.mismatch(f"seat {seat} acts while the mirror waits for seat {m.decider()}: {note}")
        m.push(Entry([(a, -1)], note=note))

    def _ev_spent(self, seat, w, body):
        pass  # the build or purchase that follows carries the cost

    def _ev_refund(self, seat, w, body):
        pass  # taking back the piece (``remove``) restores the cost

    def _ev_remove(self, seat, w, body):
        kind, x, y, pos = w[1], int(w[2]), int(w[3]), int(w[4])
        if kind == "road":
            a = A.ROAD0 + self.board.edge(x, y, pos)
        elif kind == "settlement":
            a = A.SETTLEMENT0 + self.board.vertex(x, y, pos)
        else:
            a = A.CITY0 + self.board.vertex(x, y, pos)
        for item in list(self.setup_buffer):
            if item == (seat, a):
                self.setup_buffer.remove(item)
                return
        self.mirror.undo_last(a)

    def _ev_bought_develop(self, seat, w, body):
        if len(w) > 1:  # ours, with the type
            code = int(w[1])
            self.dev_list.append([code, 1])
            self.mirror.push(Entry([(A.BUY_DEV, DEV_CODE_TO_CORE[code])], note="our purchase"))
            self._done_waiting("buy")
        else:
            s = self.mirror.state
            guess = next(t for t in (L.KNIGHT, L.ROAD_BUILDING, L.YEAR_OF_PLENTY, L.MONOPOLY,
                                     L.VICTORY_POINT) if s[L.DECK + t] > 0) if R.deck_size(s) else 0
            self.mirror.push(Entry([(A.BUY_DEV, guess)], guesses={0: GUESS_DRAW},
                                   note=f"seat {seat} buys a card"))

    def _ev_play_develop(self, seat, w, body):
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

    def _ev_monopoly(self, seat, w, body):
        # "monopoly N RES from P"
        n, res, victim = int(w[1]), WORD_RESOURCE[w[2]], int(w[4])
        if self.monopoly is None:
            self.monopoly = (seat, res, {})
        thief, _, got = self.monopoly
        got[victim] = n
        self.monopoly = (thief, res, got)
        if len(got) == self.mirror.n - 1:
            def exact(s, got=dict(got), res=res):  # distance to the announced counts
                return sum(abs(int(s[L.hand_i(v, res)]) - k) for v, k in got.items())
            m = self.mirror
            entry = Entry([(A.MONOPOLY0 + res, -1)], note=f"monopoly on {w[2]}")
            if not m.push(entry, require=exact, quiet=True):
                # no change of guesses explains the counts: set them (a public fact) on the
                # cards this seat cannot place, then play the card
                m.push(Entry(kind="edit", args=("resync", m.seat, res, dict(got), thief),
                             note=f"counts of {w[2]} from the monopoly"))
                m.push(entry)
            self.monopoly = None

    def _ev_plenty(self, seat, w, body):
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

    def _ev_OK(self, seat, w, body):
        if self.pending is not None and self.pending["kind"] in ("done", "play", "rb_done", "setup_done"):
            if self.pending["kind"] == "done":
                self.turn_seat = -1  # our turn is over; the next ``turn`` line says whose it is
            self.pending = None

    # ---- sevens, robber
    def _ev_must_discard(self, seat, w, body):
        if seat == self.seat:
            self.pending_discard = int(w[1])
            self.discard_retries = 0
            self._discard(self.pending_discard)
        m = self.mirror
        owed = int(m.state[L.DISCARDS + seat])
        if owed != int(w[1]):
            m.mismatch(f"seat {seat} must discard {w[1]}, mirror says {owed}")

    def _ev_discarded(self, seat, w, body):
        self.discard_buffer[seat] = to_core(ints(w[1:6]))
        if seat == self.seat:
            self._done_waiting("discard")

    def _ev_discard_done(self, seat, w, body):
        acts = []
        for p in sorted(self.discard_buffer):
            vec = self.discard_buffer[p]
            acts += [(A.DISCARD0 + r, -1) for r in range(L.N_RES) for _ in range(vec[r])]
        self.discard_buffer = {}
        if acts:
            self.mirror.push(Entry(acts, note="discards"))

    def _ev_moved_robber(self, seat, w, body):
        self.robber = (seat, self.board.hex(int(w[1]), int(w[2])))
        self.steal = None

    def _ev_unmoved_robber(self, seat, w, body):
        self.robber = None

    def _ev_stole(self, seat, w, body):
        # "stole RES from V" (thief and victim) or "stole from V" (others)
        if w[1] == "from":
            self.steal = (int(w[2]), None)
        else:
            self.steal = (int(w[3]), WORD_RESOURCE[w[1]])
        self._flush_robber()

    def _ev_robber_done(self, seat, w, body):
        self._flush_robber()
        self.pending = None

    def _flush_robber(self):
        if self.robber is None:
            return
        mover, h = self.robber
        m = self.mirror
        if self.steal is None:
            m.push(Entry([(A.ROBBER0 + 4 * h, -1)], note="robber, no theft"))
        else:
            victim, res = self.steal
            k = (victim - mover) % m.n
            if res is None:
                s = m.state
                hand = [int(s[L.hand_i(victim, r)]) for r in range(L.N_RES)]
                guess = int(np.argmax(hand))
                m.push(Entry([(A.ROBBER0 + 4 * h + k, guess)], guesses={0: GUESS_STEAL},
                             note=f"seat {mover} steals from {victim}"))
            else:
                m.push(Entry([(A.ROBBER0 + 4 * h + k, res)], note=f"seat {mover} steals from {victim}"))
        self.robber = self.steal = None

    def _ev_you_are_robber(self, seat, w, body):
        self.robber_prompt = True

    # ---- trade
    def _ev_maritime_trade(self, seat, w, body):
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

    def _ev_domestic_trade(self, seat, w, body):
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

    def _ev_domestic_quote(self, seat, w, body):
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

    def _push_domestic(self, caller, partner, give, get):
        """A completed domestic trade as the core's offer / answers / confirm."""
        m = self.mirror
        menu = _menu_index(give, get)
        n = m.n
        if menu is not None and m.phase() == L.PH_MAIN and m.decider() == caller:
            acts = [(A.OFFER0 + menu, -1)]
            for k in range(1, n):
                q = (caller + k) % n
                acts.append((A.TRADE_ACCEPT if q == partner else A.TRADE_REJECT, -1))
            acts.append((A.CONFIRM0 + (partner - caller) % n - 1, -1))
            if m.push(Entry(acts, note=f"trade {caller}<->{partner}")):
                return
        m.push(Entry(kind="edit", args=("trade", caller, partner, give, get),
                     note=f"trade {caller}<->{partner} outside the menu"))

    # ---- holders, end of game
    def _ev_longest_road(self, seat, w, body):
        self.announced["longest-road"] = seat

    def _ev_largest_army(self, seat, w, body):
        self.announced["largest-army"] = seat

    def _check_holders(self):
        s = self.mirror.state
        for key, field in (("longest-road", L.LR_HOLDER), ("largest-army", L.LA_HOLDER)):
            if int(s[field]) != self.announced[key]:
                self.mirror.mismatch(f"{key}: server says seat {self.announced[key]}, mirror {int(s[field])}")
                self.announced[key] = int(s[field])  # report each disagreement once

    def _ev_won(self, seat, w, body):
        self.winner, self.won_with = seat, int(w[2])
        m = self.mirror
        self._check_holders()
        if int(m.state[L.PUBLIC_VP + seat]) != self.won_with:
            m.mismatch(f"seat {seat} won with {w[2]}; mirror public VP {int(m.state[L.PUBLIC_VP + seat])}")
        m.declare_winner(seat)
        self.done = True

    def _ev_has(self, seat, w, body):
        if w[1:2] == ["quit"] and not self.done and self.winner is None:
            self.mirror.mismatch(f"seat {seat} left the game")

    # ================================================================== decisions
    def _decide(self, state, ban=()):
        """The agent's action for a decision state of our seat (mask-checked)."""
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        R.legal_mask(state, mask)
        for a in ban:
            if mask.sum() > 1:
                mask[a] = 0
        vec = np.zeros(VECTOR_SIZE, dtype=np.float32)
        encode_vector(state, self.seat, vec)
        info = InfoSet(state, self.seat, self.seed * 7919 + self.decisions)
        self.decisions += 1
        a = int(self.agent.act({"observation": vec, "action_mask": mask}, info))
        if not (0 <= a < A.N_ACTIONS and mask[a]):
            self.fallbacks += 1
            legal = np.flatnonzero(mask)
            safe = [x for x in (A.END_TURN, A.ROLL, A.TRADE_REJECT, A.TRADE_CANCEL) if mask[x]]
            a = int(safe[0] if safe else legal[0])
        return a

    def _decision_state(self):
        s = self.mirror.state.copy()
        s[L.OFFERS_MADE] = max(int(s[L.OFFERS_MADE]), self.calls_this_turn)
        s[L.OPT_MAX_OFFERS] = AGENT_MAX_OFFERS
        s[L.OPT_VP] = self.mirror.target
        return s

    def _maybe_act(self):
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

    def _send(self, pending):
        self.pending = pending
        self.conn.send(pending["cmd"])

    def _setup_move(self):
        a = self._decide(self._decision_state(), self.banned)
        if A.SETTLEMENT0 <= a < A.CITY0:
            cmd = f"build settlement {self.board.vertex_text(a - A.SETTLEMENT0)}"
        else:
            cmd = f"build road {self.board.edge_text(a - A.ROAD0)}"
        self.setup_prompt -= 1
        if self.setup_prompt == 0:
            self.setup_prompt = -1  # then "done"
        self._send({"kind": "build", "cmd": cmd, "action": a})

    def _turn_move(self):
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
            p = {"kind": "play", "cmd": f"play-develop {idx}", "action": a, "card": card}
            if card == L.MONOPOLY:
                p["res"] = a - A.MONOPOLY0
            if card == L.YEAR_OF_PLENTY:
                p["yop"] = a - A.YOP0
            if card == L.KNIGHT:
                p["kind"] = "knight"
            self._send(p)
        elif A.MARITIME0 <= a < A.OFFER0:
            i = a - A.MARITIME0
            give, get = int(A.MARITIME_GIVE[i]), int(A.MARITIME_GET[i])
            rate = int(R.trade_rate(s, self.seat, give))
            self._send({"kind": "trade", "action": a,
                        "cmd": f"maritime-trade {rate} supply {RESOURCE_WORD[give]} receive {RESOURCE_WORD[get]}"})
        elif A.OFFER0 <= a < A.TRADE_ACCEPT:
            m = a - A.OFFER0
            give = [0] * L.N_RES
            get = [0] * L.N_RES
            give[A.MENU_GIVE_RES[m]] = int(A.MENU_GIVE_N[m])
            get[A.MENU_GET_RES[m]] = int(A.MENU_GET_N[m])
            self.calls_this_turn += 1
            self.call = {"menu": m, "give": give, "get": get, "answers": {}, "answered": set(),
                         "sent": False, "t0": time.monotonic()}
            self._send({"kind": "call", "action": a,
                        "cmd": f"domestic-trade call supply {to_pio(give)} receive {to_pio(get)}"})
        else:
            self.mirror.mismatch(f"unexpected decision {A.action_name(a)} on our turn")
            self.banned.add(a)

    def _robber_move(self):
        a = self._decide(self._decision_state(), self.banned)
        if not A.ROBBER0 <= a < A.DISCARD0:
            self.mirror.mismatch(f"robber decision is {A.action_name(a)}")
            return
        h, k = (a - A.ROBBER0) // 4, (a - A.ROBBER0) % 4
        self.rob_victim = (self.seat + k) % self.mirror.n if k else None
        self._send({"kind": "robber", "cmd": f"move-robber {self.board.hex_text(h)}", "action": a})

    def _ev_rob(self, seat, w, body):
        # several victims possible: name ours
        victim = self.rob_victim
        if victim is None:
            victim = next(p for p in range(self.mirror.n) if p != self.seat)
        self.conn.send(f"rob {victim}")

    def _discard(self, k):
        """Choose k cards to discard (one decision per card, as in the core)."""
        s = self.mirror.state.copy()
        s[L.PHASE] = L.PH_DISCARD
        for p in range(L.MAX_PLAYERS):
            s[L.DISCARDS + p] = 0
        s[L.DISCARDS + self.seat] = k
        vec = [0] * L.N_RES
        for _ in range(k):
            s[L.DECIDER] = self.seat
            a = self._decide(s)
            vec[a - A.DISCARD0] += 1
            R.apply_action(s, a, -1)
        self.pending = {"kind": "discard", "cmd": f"discard {to_pio(vec)}"}
        self.conn.send(self.pending["cmd"])

    def _answer_call(self, caller, supply, receive):
        """Another seat calls for quotes: it offers what is in supply and wants what is in
        receive.  Ask the agent about each one-for-one reading of the call."""
        m = self.mirror
        base = m.state.copy()
        for give_r in [r for r in range(L.N_RES) if supply[r] > 0][:3]:
            for get_r in [r for r in range(L.N_RES) if receive[r] > 0][:3]:
                if give_r == get_r or base[L.hand_i(self.seat, get_r)] < 1:
                    continue
                s = base.copy()
                s[L.PHASE] = L.PH_TRADE_RESPONSE
                s[L.TURN_PLAYER] = caller
                s[L.TRADE_GIVE_RES], s[L.TRADE_GIVE_N] = give_r, 1
                s[L.TRADE_GET_RES], s[L.TRADE_GET_N] = get_r, 1
                for p in range(L.MAX_PLAYERS):
                    s[L.TRADE_RESP + p] = L.RESP_PENDING if p < m.n and p != caller else L.RESP_NOT_ASKED
                s[L.DECIDER] = self.seat
                a = self._decide(s)
                if a == A.TRADE_ACCEPT:
                    give, get = [0] * L.N_RES, [0] * L.N_RES
                    give[get_r], get[give_r] = 1, 1
                elif A.COUNTER0 <= a < A.CONFIRM0:
                    k = a - A.COUNTER0
                    give, get = [0] * L.N_RES, [0] * L.N_RES
                    give[A.MENU_GIVE_RES[k]] = int(A.MENU_GIVE_N[k])
                    get[A.MENU_GET_RES[k]] = int(A.MENU_GET_N[k])
                else:
                    continue
                self.conn.send(f"domestic-quote quote 0 supply {to_pio(give)} receive {to_pio(get)}")
                return
        self.conn.send("domestic-quote finish")

    def _close_call(self):
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
        chosen_quote = {}
        for k in range(1, n):
            q = (self.seat + k) % n
            resp = L.RESP_REJECT
            for quote, S, T in call["answers"].get(q, []):
                if S == call["get"] and T == call["give"]:
                    resp, chosen_quote[q] = L.RESP_ACCEPT, (quote, S, T)
                    break
                counter = _menu_index(S, T)  # the quoter gives S, wants T
                if counter is not None and resp == L.RESP_REJECT:
                    resp, chosen_quote[q] = L.RESP_COUNTER + counter, (quote, S, T)
            s[L.TRADE_RESP + q] = resp
        if chosen_quote:
            s[L.PHASE] = L.PH_TRADE_CONFIRM
            s[L.DECIDER] = self.seat
            a = self._decide(s)
            if A.CONFIRM0 <= a < A.TRADE_CANCEL:
                partner = (self.seat + a - A.CONFIRM0 + 1) % n
                quote, S, T = chosen_quote[partner]
                self.conn.send(f"domestic-trade accept player {partner} quote {quote} "
                               f"supply {to_pio(S)} receive {to_pio(T)}")
        self.pending = {"kind": "finish", "cmd": "domestic-trade finish"}
        self.conn.send("domestic-trade finish")

    def _claim_win(self):
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

    def _maybe_close_call(self):
        call = self.call
        if call is not None and call["sent"] and not call.get("closed") and \
                len(call["answered"]) >= self.mirror.n - 1:
            self._close_call()


def _menu_index(give, get):
    """The core's menu offer for giving vector give and getting vector get, or None."""
    gr = [r for r in range(L.N_RES) if give[r]]
    tr = [r for r in range(L.N_RES) if get[r]]
    if len(gr) != 1 or len(tr) != 1 or gr[0] == tr[0]:
        return None
    for m in range(A.N_MENU):
        if A.MENU_GIVE_RES[m] == gr[0] and A.MENU_GIVE_N[m] == give[gr[0]] and \
                A.MENU_GET_RES[m] == tr[0] and A.MENU_GET_N[m] == get[tr[0]]:
            return m
    return None


class _TranscriptConnection:
    """Plays back the server's side of a recorded session (commands are dropped)."""

    def __init__(self, server_lines):
        self.lines = list(server_lines)
        self.transcript = None

    def send(self, line):
        pass

    def read(self, timeout=None):
        if not self.lines:
            raise EOFError("end of transcript")
        return self.lines.pop(0)

    def close(self):
        pass


def replay_transcript(transcript):
    """Rebuild a seat's mirror from a recorded session without a server: transcript is a
    list of ("S" | "C", line) or lines "S ..."/"C ...".  Returns the client, whose
    ``mirror`` holds the game and its ``mismatches``; nothing is decided or sent."""
    server = []
    for item in transcript:
        d, line = item if isinstance(item, tuple) else (item[:1], item[2:])
        if d == "S":
            server.append(line)
    client = PioneersClient("transcript", 0, agent=None)
    client.conn = _TranscriptConnection(server)
    client._maybe_act = lambda: None
    client._discard = lambda k: None
    client._answer_call = lambda *a: None
    client._ev_rob = lambda *a: None
    client._handshake()
    try:
        client._loop()
    except EOFError:
        pass
    return client
