"""A Pioneers client that lets any of our agents play one seat.

    client = PioneersClient("127.0.0.1", 5556, make_agent("jsettlers"))
    result = client.play()      # until somebody wins; returns the outcome and the record

The client keeps a :class:`Mirror` of the game, gives the agent the observation, mask
and information set of its seat at every decision, and turns the agent's action ids
into protocol commands.  The server is the referee: a command it refuses (``ERR``) is
logged with the step and the mirror's record, the action is banned for that decision,
and the client falls back to a safe move instead of trying again.
"""
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..core import actions as A
from ..core import layout as L
from ..core import rules as R
from ..core.observe import VECTOR_SIZE, encode_vector
from ..agent_specs import AgentProtocol
from ..infoset import InfoSet
from .connection import LineConnection
from .game import options_from_game
from .events import ServerEvents, menu_index
from .mirror import Mirror
from .protocol import DEV_CODE_TO_CORE, RESOURCE_WORD, parse_game_block, to_pio

QUOTE_WAIT_S = 3.0        # how long our own call waits for every seat to answer
AGENT_MAX_OFFERS = 3      # domestic calls an agent may make per turn
VP_CODES = (3, 4, 5, 6, 7)


class MirrorMismatch(RuntimeError):
    """The server reported an event the seat's mirror cannot follow."""


class PioneersClient(ServerEvents):
    """One seat of a Pioneers game played by ``agent`` (see the module docstring)."""

    params: Dict[str, Any]  # the server's game parameters (parse_game_block), once joined
    _early: List[str]       # lines that came before the handshake's

    def __init__(self, host: str, port: int, agent: Optional[AgentProtocol], name: str = "catan_env",
                 seed: int = 0, timeout: float = 120.0, keep_transcript: bool = False,
                 stop_on_mismatch: bool = True) -> None:
        self.host, self.port, self.agent, self.name = host, port, agent, name
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
                "mirror_winner": int(m.state[L.WINNER])}

    def _expect(self, pred: Callable[[str], bool], what: str) -> str:
        while True:
            line = self.conn.read()
            if line is None:
                raise TimeoutError(f"no {what} from the server within {self.timeout} s")
            if pred(line):
                return line
            self._early.append(line)

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
            mirror = getattr(self, "mirror", None)
            known = len(mirror.mismatches) if mirror is not None else 0
            self._on_line(line)
            if self.stop_on_mismatch and mirror is not None and len(mirror.mismatches) > known:
                raise MirrorMismatch(f"the mirror disagrees with the server ({mirror.mismatches[known]}); "
                                     f"the game stops here")
            self._maybe_close_call()

    # ================================================================== decisions
    def _decide(self, state: np.ndarray, ban: Iterable[int] = ()) -> int:
        """The agent's action for a decision state of our seat (mask-checked)."""
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        R.legal_mask(state, mask)
        for a in ban:
            if mask.sum() > 1:
                mask[a] = 0
        vec = np.zeros(VECTOR_SIZE, dtype=np.float32)
        encode_vector(state, self.seat, vec)
        info = InfoSet(state, self.seat, self.seed * 7919 + self.decisions,
                       on_fallback=lambda seat, reason: self._count_fallback(reason))
        self.decisions += 1
        if self.agent is None:  # (a replayed transcript follows the game and decides nothing)
            raise RuntimeError("this client has no agent to decide with")
        a = int(self.agent.act({"observation": vec, "action_mask": mask}, info))
        if not (0 <= a < A.N_ACTIONS and mask[a]):
            self._count_fallback("client: the agent's move was not legal")
            legal = np.flatnonzero(mask)
            safe = [x for x in (A.END_TURN, A.ROLL, A.TRADE_REJECT, A.TRADE_CANCEL) if mask[x]]
            a = int(safe[0] if safe else legal[0])
        return a

    def _count_fallback(self, reason: str) -> None:
        self.fallbacks += 1
        self.fallback_reasons[reason] = self.fallback_reasons.get(reason, 0) + 1

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
            give_vec = [0] * L.N_RES
            get_vec = [0] * L.N_RES
            give_vec[A.MENU_GIVE_RES[m]] = int(A.MENU_GIVE_N[m])
            get_vec[A.MENU_GET_RES[m]] = int(A.MENU_GET_N[m])
            self.calls_this_turn += 1
            self.call = {"menu": m, "give": give_vec, "get": get_vec, "answers": {}, "answered": set(),
                         "sent": False, "t0": time.monotonic()}
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

    def _answer_call(self, caller: int, supply: Sequence[int], receive: Sequence[int]) -> None:
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
        if chosen_quote:
            s[L.PHASE] = L.PH_TRADE_CONFIRM
            s[L.DECIDER] = self.seat
            a = self._decide(s)
            if A.CONFIRM0 <= a < A.TRADE_CANCEL:
                partner = int(A.confirm_partner(a, self.seat, n))
                quote, S, T = chosen_quote[partner]
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
