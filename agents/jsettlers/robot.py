"""A heuristic agent in the style of the JSettlers robot.

Built from a behavioural description of the JSettlers robot, not from JSettlers' code.  Parts:
  - building-speed estimates (``speed``, jitted) and the win-game ETA (WGETA);
  - opening placement by the pair search over from-nothing ETAs, and the initial road
    toward the best node two edges away (opponents' likely picks removed in round one);
  - turn planning, FAST or SMART (``strategy=``);
  - development cards (Knight, Road Building, Year of Plenty, Monopoly), robber and
    discards;
  - the negotiator: offer ladder, answers (accept / reject / counter), bank and harbour
    trades, no trading with a player close to winning (WGETA < 25).
One fault of the original that the spec describes is fixed: every player's WGETA is
refreshed at every decision (the original leaves it stale for FAST bots).  Year of Plenty
takes the two cards actually missing, as the original does (JSettlers2 2.7.00,
``SOCRobotDM.chooseFreeResources``; the spec's "rarest type twice" is wrong).  Discards
are public events here (the engine's knowledge tracking), not unknown cards.  How this
agent differs from the real robot, found by reading its source: docs/jsettlers.md.
"""
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

import numpy as np

from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core import placement as P
from catan_env.core.topology import (EDGE_VERTICES, HEX_VERTICES, N_EDGES, N_HEXES, N_PORTS,
                                     VERTEX_EDGES, VERTEX_HEXES)

from . import speed as SP
from ..base import Agent, Observation, legal_from
from .planning import (CUTOFF, Board, PlayerModel, hex_arrays, knights_to_buy, producing_hexes,
                       roads_to_go, settlement_spots, vertex_pips, wgeta)

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet

COSTS = {"road": SP.ROAD, "lr_road": SP.ROAD, "settlement": SP.SETTLEMENT, "city": SP.CITY, "card": SP.CARD}
NO_TRADE_WGETA = 25
ROBOT_CUTOFF = 100  # the robot's calculateRollsFast limit for a whole plan's cost
STRATEGIES = ("fast", "smart")

# one step of a building plan: ("road", e), ("settlement", v), ("city", v), ("lr_road",) or
# ("card",); the target's position depends on the kind, so the items stay plain tuples
PlanItem = Tuple[Any, ...]
# a settlement option: (ETA with its roads, -pips, vertex, the roads' edges)
SettlementOption = Tuple[int, int, int, List[int]]


def _other_end(e: int, v: int) -> int:
    """The vertex of edge e that is not v."""
    return int(EDGE_VERTICES[e, 1] if EDGE_VERTICES[e, 0] == v else EDGE_VERTICES[e, 0])


def _nodes_beyond(v: int, came_by: int, steps: int) -> List[int]:
    """Vertices exactly ``steps`` edges from v along paths that do not turn back (the
    first edge other than came_by)."""
    frontier = [(v, came_by)]
    for _ in range(steps):
        frontier = [(_other_end(f, u), f) for u, prev in frontier for f in VERTEX_EDGES[u]
                    if f >= 0 and f != prev]
    return sorted({u for u, _ in frontier})


class JSettlersAgent(Agent):
    """JSettlers-style robot.  strategy: "fast" (droid bots) or "smart" (robot bots).
    combined_etas: estimate a settlement with the roads to it, the Largest Army's knights
    and the Longest Road's roads as the real robot does (one ETA of their whole cost from
    the current hand, ``SOCRobotDM.scoreSettlementsForDumb``), instead of the settlement's
    ETA plus a from-nothing ETA per road or card (the default, what every figure against
    ``jsettlers`` measured)."""

    name = "jsettlers"

    # the decision being made, set by act() before any helper reads them
    _s: np.ndarray             # the seat's public view
    _me: int
    _hand: np.ndarray
    _devs: np.ndarray
    _deck_left: int
    _legal: Set[int]
    _infoset: "InfoSet"

    def __init__(self, seed: Optional[int] = None, strategy: str = "fast", trading: bool = True,
                 eta_bonus: float = 0.13, adversarial: float = 1.0, leader_adversarial: float = 1.0,
                 dev_multiplier: float = 3.0, combined_etas: bool = False) -> None:
        super().__init__(seed)
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        self.strategy = strategy
        self.trading = bool(trading)
        self.eta_bonus = float(eta_bonus)
        self.adversarial = float(adversarial)
        self.leader_adversarial = float(leader_adversarial)
        self.dev_multiplier = float(dev_multiplier)
        self.combined_etas = bool(combined_etas)
        self.reset()

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.plan: List[PlanItem] = []
        self._turn: Optional[Tuple[int, int]] = None
        self._plan_pinned = False
        self.offers_made: Set[Tuple[int, int, int, int]] = set()
        self.not_holding: Set[Tuple[int, int]] = set()    # (opponent, resource) pairs refused this turn
        self._pending_get: Optional[int] = None    # resource asked for by our open offer
        self.failed_builds = 0
        self.failed_bank = 0

    def adopt_plan(self, plan: Iterable[PlanItem]) -> None:
        """Take plan (a list like ``[("road", e), ("settlement", v)]``) as the building
        plan for the current turn, kept through the next decision instead of replanned:
        for scenarios, and for callers that plan on the robot's behalf."""
        self.plan = list(plan)
        self._plan_pinned = True

    # ================================================================== entry point
    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        legal = legal_from(observation)
        if len(legal) == 1:
            return int(legal[0])
        s = infoset.public_state()
        me = infoset.seat
        self._hand = infoset.hand()
        self._devs = infoset.dev_cards()[0]
        self._deck_left = infoset.deck_size()
        self._legal = set(int(a) for a in legal)
        self._infoset = infoset
        self._s = s
        self._me = me
        turn_key = (int(s[L.TURN]), int(s[L.TURN_PLAYER]))
        if turn_key != self._turn and not self._plan_pinned:
            self._turn = turn_key
            self.plan = []
            self.offers_made = set()
            self.not_holding = set()
            self._pending_get = None
            self.failed_builds = 0
            self.failed_bank = 0
        self._turn = turn_key
        self._plan_pinned = False
        ph = int(s[L.PHASE])
        self._learn_from_offer(ph)
        a = self._decider(ph)()
        if a not in self._legal:  # never play an illegal move, and say so
            safe = A.END_TURN if A.END_TURN in self._legal else int(legal[0])
            a = self._fall_back(f"illegal plan in {L.PHASE_NAMES[ph]}", safe)
        return int(a)

    # the method that decides in each phase (the main phase's in any other)
    _DECIDERS = {
        L.PH_SETUP_SETTLEMENT: "_opening_settlement",
        L.PH_SETUP_ROAD: "_opening_road",
        L.PH_PRE_ROLL: "_pre_roll",
        L.PH_DISCARD: "_discard",
        L.PH_MOVE_ROBBER: "_robber",
        L.PH_ROAD_BUILDING: "_free_road",
        L.PH_TRADE_RESPONSE: "_answer_offer",
        L.PH_TRADE_CONFIRM: "_confirm",
    }

    def _decider(self, phase: int) -> Callable[[], int]:
        """The method that decides in this phase."""
        method: Callable[[], int] = getattr(self, self._DECIDERS.get(phase, "_main"))
        return method

    def _fall_back(self, reason: str, action: int) -> int:
        return self.fall_back(self._infoset, reason, action)

    # ================================================================== helpers
    def _model(self, p: Optional[int] = None, **kw: Any) -> PlayerModel:
        return PlayerModel(self._s, self._me if p is None else p, **kw)

    def _wgeta(self, p: int) -> int:
        vp = None
        if p == self._me:
            vp = int(self._s[L.PUBLIC_VP + p] + self._devs[L.VICTORY_POINT])
        return wgeta(self._s, p, vp)

    def _opponents(self) -> List[int]:
        n = int(self._s[L.OPT_PLAYERS])
        return [p for p in range(n) if p != self._me]

    def _target_cost(self) -> Optional[np.ndarray]:
        if not self.plan:
            self._make_plan()
        if not self.plan:
            return None
        kind = self.plan[0][0]
        return COSTS[kind]

    # ================================================================== opening
    def _opening_candidates(self) -> np.ndarray:
        return np.array(sorted(a - A.SETTLEMENT0 for a in self._legal
                               if A.SETTLEMENT0 <= a < A.CITY0), dtype=np.int64)

    def _opening_settlement(self) -> int:
        s, me = self._s, self._me
        terrain, numbers, robber, ports, pv = hex_arrays(s)
        cands = self._opening_candidates()
        own = np.flatnonzero(L.view(s, "v_owner") == me).astype(np.int64)
        own_l = np.ones(len(own), dtype=np.int64)
        if len(own) == 0:
            a, b, _ = SP.best_opening_pair(terrain, numbers, robber, ports, pv, cands, -1, own, own_l)
            if a < 0:
                return A.SETTLEMENT0 + int(max(cands, key=lambda v: vertex_pips(s, v)))
            zero = np.zeros(5, dtype=np.int64)

            def single(v: int) -> int:
                verts = np.array([v], dtype=np.int64)
                Rr = SP.rolls_per_resource(terrain, numbers, robber, verts, np.ones(1, np.int64), True)
                return int(SP.eta_table(Rr, SP.port_bits(ports, pv, verts), zero, CUTOFF).sum())
            first = a if single(a) <= single(b) else b
            return A.SETTLEMENT0 + int(first)
        # second settlement: best partner for what we have
        best: Optional[int] = None
        best_key: Optional[Tuple[int, int]] = None
        zero = np.zeros(5, dtype=np.int64)
        for v in cands:
            verts = np.append(own, v)
            Rr = SP.rolls_per_resource(terrain, numbers, robber, verts, np.ones(len(verts), np.int64), True)
            score = int(SP.eta_table(Rr, SP.port_bits(ports, pv, verts), zero, CUTOFF).sum())
            key = (score, -vertex_pips(s, v))
            if best_key is None or key < best_key:
                best, best_key = int(v), key
        assert best is not None  # the set-up phase offers at least one settlement
        return A.SETTLEMENT0 + best

    def _node_score(self, v: int, board: Board, own_numbers: Set[int], have_generic: bool,
                    lacking_rarity: Dict[int, int]) -> int:
        terrain, numbers, _, ports, pv = board
        total = 0
        for h in VERTEX_HEXES[v]:
            if h >= 0 and terrain[h] != L.DESERT:
                pct = int(SP.PIP_PCT[numbers[h]])
                total += pct * (1 if numbers[h] in own_numbers else 2)
        score = (100 * total // 80) * 3
        for i in range(N_PORTS):
            if v in pv[i]:
                if ports[i] == L.GENERIC_PORT and not have_generic:
                    score += 500
                elif ports[i] < L.GENERIC_PORT and lacking_rarity.get(int(ports[i]), 0) > 33:
                    score += 100 * (lacking_rarity[int(ports[i])] * 10 // 56)
        return score

    def _opening_road(self) -> int:
        s, me = self._s, self._me
        v0 = int(s[L.SETUP_VERTEX])
        board = hex_arrays(s)
        terrain, numbers, _, ports, pv = board
        owner = L.view(s, "v_owner")
        own_numbers: Set[int] = set()
        for v in np.flatnonzero(owner == me):
            for h in VERTEX_HEXES[v]:
                if h >= 0:
                    own_numbers.add(int(numbers[h]))
        owned_ports = [int(ports[i]) for i in range(N_PORTS) if any(owner[w] == me for w in pv[i])]
        rarity = {r: int(sum(SP.PIP_PCT[numbers[h]] for h in range(N_HEXES) if terrain[h] == r)) for r in range(5)}
        lacking = {r: rarity[r] for r in range(5) if r not in owned_ports}
        have_generic = L.GENERIC_PORT in owned_ports
        # nodes exactly two edges away, legal for a future settlement (on a crowded board
        # where there are none, three edges away; failing that, the road whose end touches
        # the most pips)
        options: List[Tuple[int, int, int]] = []  # (node score, node, road action)
        for depth in (2, 3):
            for a in self._legal:
                e = a - A.ROAD0
                for w in _nodes_beyond(_other_end(e, v0), e, depth - 1):
                    if P.distance_ok(s, w):
                        options.append((self._node_score(w, board, own_numbers, have_generic, lacking), w, a))
            if options:
                break
        if not options:
            return max(sorted(self._legal), key=lambda a: vertex_pips(s, _other_end(a - A.ROAD0, v0)))
        options.sort(reverse=True)
        step = int(s[L.SETUP_STEP])
        n = int(s[L.OPT_PLAYERS])
        if step < n:  # round one: opponents before our next settlement take the best nodes
            k = 2 * (n - 1 - step)
            taken = {w for _, w, _ in options[:k]} if k < len(options) else set()
            rest = [o for o in options if o[1] not in taken]
            if rest:
                options = rest
        return options[0][2]

    # ================================================================== turn
    def _producing_blocked(self) -> bool:
        return int(self._s[L.ROBBER]) in producing_hexes(self._s, self._me)

    def _pre_roll(self) -> int:
        if A.PLAY_KNIGHT in self._legal and self._producing_blocked():
            return A.PLAY_KNIGHT
        return A.ROLL

    def _main(self) -> int:
        s = self._s
        a = self._play_cards()
        if a is not None:
            return a
        for _ in range(3):
            if not self.plan:
                self._make_plan()
            if not self.plan:
                break
            item = self.plan[0]
            act = self._action_for(item)
            if act is None:  # spot gone: replan (at most 3 failed builds a turn)
                self.plan = []
                self.failed_builds += 1
                if self.failed_builds >= 3:
                    break
                continue
            if act in self._legal:
                self.plan.pop(0)
                return act
            break
        cost = self._target_cost() if self.failed_builds < 3 else None
        if cost is not None:
            if self.trading and s[L.OPT_TRADE]:
                a = self._make_offer(cost)
                if a is not None:
                    return a
            a = self._bank_trade(cost)
            if a is not None:
                return a
        return A.END_TURN

    def _action_for(self, item: PlanItem) -> Optional[int]:
        s, me = self._s, self._me
        kind = item[0]
        if kind == "road":
            e = item[1]
            return A.ROAD0 + e if P.road_spot_ok(s, me, e) else None
        if kind == "settlement":
            v = item[1]
            return A.SETTLEMENT0 + v if P.distance_ok(s, v) else None
        if kind == "city":
            v = item[1]
            return A.CITY0 + v if s[L.V_OWNER + v] == me and s[L.V_LEVEL + v] == 1 else None
        if kind == "lr_road":
            e = self._best_road_extension()
            return None if e is None else A.ROAD0 + e
        return A.BUY_DEV if self._deck_left > 0 else None

    def _best_road_extension(self) -> Optional[int]:
        s, me = self._s, self._me
        best: Optional[int] = None
        best_len = int(s[L.ROAD_LEN + me])
        t = s.copy()
        for e in range(N_EDGES):
            if P.road_spot_ok(s, me, e):
                t[L.E_OWNER + e] = me
                length = P.road_length(t, me)
                t[L.E_OWNER + e] = -1
                if length > best_len:
                    best, best_len = e, length
        return best

    # ------------------------------------------------------------------ planning
    def _make_plan(self) -> None:
        self.plan = self._plan_smart() if self.strategy == "smart" else self._plan_fast()

    def _settlement_options(self, model: PlayerModel) -> List[SettlementOption]:
        s, me = self._s, self._me
        if s[L.SETTLEMENTS_LEFT + me] <= 0:
            return []
        s_now = model.eta(self._hand, SP.SETTLEMENT)
        rd = int(model.nothing[2])
        out: List[SettlementOption] = []
        for v, path in settlement_spots(s, me):
            if len(path) > s[L.ROADS_LEFT + me]:
                continue
            if self.combined_etas and path:
                eta = model.eta(self._hand, SP.SETTLEMENT + len(path) * SP.ROAD, cutoff=ROBOT_CUTOFF)
            else:
                eta = s_now + len(path) * rd
            out.append((eta, -vertex_pips(s, v), v, path))
        out.sort()
        return out

    def _city_options(self, model: PlayerModel) -> List[Tuple[int, int]]:
        s, me = self._s, self._me
        if s[L.CITIES_LEFT + me] <= 0:
            return []
        out: List[Tuple[int, int]] = []  # (production gained, vertex)
        base = int(model.nothing.sum())
        for v in np.flatnonzero((L.view(s, "v_owner") == me) & (L.view(s, "v_level") == 1)):
            with_city = PlayerModel(s, me, extra_cities=[int(v)])
            out.append((base - int(with_city.nothing.sum()), int(v)))
        out.sort(reverse=True)
        return out

    def _plan_fast(self) -> List[PlanItem]:
        s, me = self._s, self._me
        model = self._model()
        setts = self._settlement_options(model)
        cities = self._city_options(model)
        city_eta = model.eta(self._hand, SP.CITY)
        deck = self._deck_left > 0
        vp = int(s[L.PUBLIC_VP + me] + self._devs[L.VICTORY_POINT])

        def sett_plan(opt: SettlementOption) -> List[PlanItem]:
            return [("road", e) for e in opt[3]] + [("settlement", opt[2])]
        if vp < 5:
            if setts and (not cities or setts[0][0] < city_eta):
                return sett_plan(setts[0])
            if cities:
                return [("city", cities[0][1])]
            return [("card",)] if deck else []
        best = 10 ** 9
        plan: List[PlanItem] = []
        rd, d = int(model.nothing[2]), int(model.nothing[3])
        k = knights_to_buy(s, me)
        if s[L.LA_HOLDER] != me and 0 < k and deck:
            la_eta = model.eta(self._hand, k * SP.CARD, cutoff=ROBOT_CUTOFF) if self.combined_etas else (d + 1) * k
            best, plan = la_eta, [("card",)] * k
        togo = roads_to_go(s, me)
        lr_eta = model.eta(self._hand, togo * SP.ROAD, cutoff=ROBOT_CUTOFF) if self.combined_etas else rd * togo
        if s[L.LR_HOLDER] != me and 0 < togo <= s[L.ROADS_LEFT + me] and lr_eta < best:
            if self._best_road_extension() is not None:
                best, plan = lr_eta, [("lr_road",)] * togo
        if cities and city_eta <= best:
            best, plan = city_eta, [("city", cities[0][1])]
        if setts and setts[0][0] < best:
            best, plan = setts[0][0], sett_plan(setts[0])
        if not plan and deck:
            plan = [("card",)]
        return plan

    def _plan_smart(self) -> List[PlanItem]:
        """Score each candidate by its effect on every player's WGETA, discounted by
        1.13^eta; pick city / road / settlement / card as the spec orders them."""
        s, me = self._s, self._me
        n = int(s[L.OPT_PLAYERS])
        model = self._model()
        w0 = [self._wgeta(p) for p in range(n)]
        leader_w = min(w0[p] for p in range(n) if p != me)
        # a candidate changes only our own buildings: the others' production models hold
        others = {p: PlayerModel(s, p) for p in range(n) if p != me}

        def bonus_for(t: np.ndarray, my_vp_extra: int = 0) -> float:
            w1 = [wgeta(t, p, (int(t[L.PUBLIC_VP + p]) + (int(self._devs[L.VICTORY_POINT]) + my_vp_extra
                                                          if p == me else 0)), model=others.get(p))
                  for p in range(n)]
            b = 0.0
            for p in range(n):
                w_before = max(w0[p], 1)
                delta = (w_before - w1[p]) / w_before
                if p == me:
                    b += 100.0 / n if w1[p] == 0 else 100.0 / n * delta
                elif w0[p] == leader_w:
                    b -= 100.0 / n * self.leader_adversarial * delta
                else:
                    b -= 100.0 / n * self.adversarial * delta * (leader_w / w_before)
            return b

        def discounted(bonus: float, eta: int) -> float:
            return bonus / (1.0 + self.eta_bonus) ** eta

        # per kind: (discounted bonus, ETA, plan)
        best: Dict[str, Tuple[float, int, List[PlanItem]]] = {}

        def consider(kind: str, place: Callable[[np.ndarray, int, int], None], spots: Iterable[int],
                     piece: np.ndarray) -> None:
            """The best spot for one more piece of this kind, by its discounted bonus."""
            eta = model.eta(self._hand, piece)
            for spot in spots:
                t = s.copy()
                place(t, me, spot)
                sc = discounted(bonus_for(t), eta)
                if kind not in best or sc > best[kind][0]:
                    best[kind] = (sc, eta, [(kind, spot)])

        if s[L.SETTLEMENTS_LEFT + me] > 0:
            consider("settlement", P.place_settlement, (v for v, _ in settlement_spots(s, me, max_roads=0)),
                     SP.SETTLEMENT)
        if s[L.ROADS_LEFT + me] > 0:
            consider("road", P.place_road, (e for e in range(N_EDGES) if P.road_spot_ok(s, me, e)), SP.ROAD)
        if s[L.CITIES_LEFT + me] > 0:
            towns = np.flatnonzero((L.view(s, "v_owner") == me) & (L.view(s, "v_level") == 1))
            consider("city", P.upgrade_to_city, (int(town) for town in towns), SP.CITY)
        choice: Optional[Tuple[float, int, List[PlanItem]]] = None
        c, r_, st = best.get("city"), best.get("road"), best.get("settlement")
        if c and c[0] > 0 and all(o is None or (c[0], -c[1]) > (o[0], -o[1]) for o in (st, r_)):
            choice = c
        elif r_ and r_[0] > 0 and (st is None or r_[0] > st[0]):
            choice = r_
        elif st:
            choice = st
        if self._deck_left > 0:
            d_eta = model.eta(self._hand, SP.CARD)
            t = s.copy()
            t[L.KNIGHTS + me] += 1
            P.update_largest_army(t, me)
            knight_bonus = bonus_for(t)
            vp_bonus = bonus_for(s, my_vp_extra=1)
            card = discounted(0.58 * knight_bonus + 0.21 * vp_bonus + self.dev_multiplier, d_eta)
            if choice is None or card > choice[0]:
                choice = (card, d_eta, [("card",)])
        if choice is None:
            return self._plan_fast()
        if choice[2][0][0] == "road" and not settlement_spots(s, me, max_roads=0) and \
                self._settlement_options(model):
            # follow the road toward the best settlement when that road is the plan
            opt = self._settlement_options(model)[0]
            return [("road", e) for e in opt[3]] + [("settlement", opt[2])]
        return choice[2]

    # ------------------------------------------------------------------ cards
    def _missing(self, cost: np.ndarray) -> np.ndarray:
        return np.maximum(np.asarray(cost) - self._hand, 0)

    def _play_cards(self) -> Optional[int]:
        s, me = self._s, self._me
        if A.PLAY_KNIGHT in self._legal and s[L.LA_HOLDER] != me:
            holder = int(s[L.LA_HOLDER])
            need = 3 if holder < 0 else int(s[L.KNIGHTS + holder]) + 1
            if int(s[L.KNIGHTS + me]) + int(self._devs[L.KNIGHT]) >= need:
                return A.PLAY_KNIGHT
        if A.PLAY_ROAD_BUILDING in self._legal:
            if not self.plan:
                self._make_plan()
            if len(self.plan) >= 2 and all(i[0] in ("road", "lr_road") for i in self.plan[:2]):
                return A.PLAY_ROAD_BUILDING
        cost = self._target_cost()
        yop = [a for a in self._legal if A.YOP0 <= a < A.MONOPOLY0]
        if yop and cost is not None:
            miss = self._missing(cost)
            if miss.sum() == 2:
                want = sorted(r for r in range(5) for _ in range(int(miss[r])))
                for a in yop:
                    i = a - A.YOP0
                    if [int(A.YOP_R1[i]), int(A.YOP_R2[i])] == want:
                        return a
        mono = [a for a in self._legal if A.MONOPOLY0 <= a < A.ROBBER0]
        if mono:
            model = self._model()
            know = L.view(s, "know")[me]
            best: Optional[int] = None
            best_v = 2
            for a in mono:
                r = a - A.MONOPOLY0
                value = int(sum(know[p, r] for p in self._opponents())) // model.rate(r)
                if value > best_v:
                    best, best_v = a, value
            if best is not None:
                return best
        return None

    # ------------------------------------------------------------------ robber, discard
    def _robber(self) -> int:
        s, me = self._s, self._me
        opps = self._opponents()
        w = {p: self._wgeta(p) for p in opps}
        target = min(opps, key=lambda p: (w[p], -int(s[L.PUBLIC_VP + p])))
        mine = producing_hexes(s, me)
        terrain, numbers, robber, ports, _ = hex_arrays(s)
        base = PlayerModel(s, target)
        zero = np.zeros(5, dtype=np.int64)
        best_h: Optional[int] = None
        best_key: Optional[Tuple[int, int, int]] = None
        for h in range(N_HEXES):
            if h == robber or h in mine:
                continue
            Rh = SP.rolls_per_resource(terrain, numbers, h, base.vertices, base.levels, True)
            total = int(SP.eta_table(Rh, base.ports, zero, CUTOFF).sum())
            on_hex = sum(int(s[L.V_LEVEL + v]) for v in HEX_VERTICES[h] if s[L.V_OWNER + v] == target)
            key = (total, on_hex * int(SP.PIP_PCT[numbers[h]]), int(SP.PIP_PCT[numbers[h]]))
            if best_key is None or key > best_key:
                best_h, best_key = h, key
        if best_h is None:
            best_h = next(h for h in range(N_HEXES) if h != robber)
        options = [a for a in self._legal if A.robber_hex(a) == best_h]
        if not options:
            self._fall_back("robber hex not legal", 0)
            options = sorted(self._legal)
        n = int(s[L.OPT_PLAYERS])

        def victim_key(a: int) -> Tuple[int, int]:
            p = A.robber_victim_seat(a, me, n)
            if p < 0:
                return (10 ** 6, 0)
            return (w.get(p, 10 ** 5), -int(s[L.PUBLIC_VP + p]))
        return min(options, key=victim_key)

    def _discard(self) -> int:
        cost = self._target_cost()
        model = self._model()
        options = [a - A.DISCARD0 for a in self._legal]
        if cost is None:
            return A.DISCARD0 + int(options[self.rng.integers(len(options))])
        surplus = [r for r in options if self._hand[r] > cost[r]]
        pool = surplus or options
        return A.DISCARD0 + max(pool, key=lambda r: (model.R[r], -r))

    def _free_road(self) -> int:
        for item in self.plan:
            if item[0] == "road" and A.ROAD0 + item[1] in self._legal:
                self.plan.remove(item)
                return A.ROAD0 + item[1]
        e = self._best_road_extension()
        if e is not None and A.ROAD0 + e in self._legal:
            return A.ROAD0 + e
        return self._fall_back("free road without a target", min(self._legal))

    # ================================================================== negotiator
    def _eta_after(self, model: PlayerModel, hand: np.ndarray, cost: np.ndarray) -> int:
        return model.eta(hand, cost, cutoff=1000)

    def _baseline(self, model: PlayerModel, cost: np.ndarray) -> int:
        return self._eta_after(model, self._hand, cost)

    def _learn_from_offer(self, ph: int) -> None:
        """Who refused our last offer no longer counts as holding what we asked for (this
        turn): at the confirm step the answers are visible; back in the main phase with no
        confirm step, everybody refused."""
        get = self._pending_get
        if get is None or int(self._s[L.TURN_PLAYER]) != self._me:
            return
        if ph == L.PH_TRADE_CONFIRM:
            for p in self._opponents():
                if int(self._s[L.TRADE_RESP + p]) == L.RESP_REJECT:
                    self.not_holding.add((p, get))
        elif ph == L.PH_MAIN:
            for p in self._opponents():
                self.not_holding.add((p, get))
        else:
            return
        self._pending_get = None

    def _believed_holders(self, r: int) -> List[int]:
        know = L.view(self._s, "know")[self._me]
        return [p for p in self._opponents()
                if (know[p, r] > 0 or know[p, 5] > 0) and (p, r) not in self.not_holding]

    def _rarest_missing(self, model: PlayerModel, cost: np.ndarray, holders_only: bool = False) -> Optional[int]:
        miss = self._missing(cost)
        types = [r for r in range(5) if miss[r] > 0]
        if holders_only:
            types = [r for r in types if self._believed_holders(r)]
        if not types:
            return None
        return max(types, key=lambda r: (model.R[r], -r))

    def _make_offer(self, cost: np.ndarray) -> Optional[int]:
        if not any(A.OFFER0 <= a < A.TRADE_ACCEPT for a in self._legal):
            return None
        if all(self._wgeta(p) < NO_TRADE_WGETA for p in self._opponents()):
            return None
        model = self._model()
        get = self._rarest_missing(model, cost, holders_only=True)
        if get is None:
            return None
        base = self._baseline(model, cost)
        need = np.asarray(cost)
        ladder: List[Tuple[int, int, int, int, bool]] = []  # (give n, give r, get n, get r, check)
        for r in range(5):  # 1. one non-needed card for one `get`
            if need[r] == 0 and self._hand[r] >= 1 and r != get:
                ladder.append((1, r, 1, get, False))
        for r in range(5):  # 2. one surplus needed card, checked against the baseline
            if need[r] > 0 and self._hand[r] > need[r] and r != get:
                ladder.append((1, r, 1, get, True))
        for r in range(5):  # 3. two-for-one of non-needed or surplus cards
            if r != get and self._hand[r] - need[r] >= 2:
                ladder.append((2, r, 1, get, True))
        for give_n, give_r, get_n, get_r, check in ladder:
            key = (give_n, give_r, get_n, get_r)
            if key in self.offers_made:
                continue
            if check:
                h = self._hand.copy()
                h[give_r] -= give_n
                h[get_r] += get_n
                if self._eta_after(model, h, cost) >= base:
                    continue
            a = A.OFFER0 + A.menu_index(give_n, give_r, get_n, get_r)
            if a in self._legal:
                self.offers_made.add(key)
                self._pending_get = get_r
                return a
        return None

    def _bank_trade(self, cost: np.ndarray) -> Optional[int]:
        if self.failed_bank >= 9:
            return None
        model = self._model()
        miss = self._missing(cost)
        if miss.sum() == 0:
            return None
        get = max((r for r in range(5) if miss[r] > 0), key=lambda r: (model.R[r], -r))
        need = np.asarray(cost)
        nonneeded = [r for r in range(5) if need[r] == 0 and self._hand[r] >= model.rate(r)]
        surplus = [r for r in range(5) if need[r] > 0 and self._hand[r] - need[r] >= model.rate(r)]
        for group in (nonneeded, surplus):
            for r in sorted(group, key=lambda r: -self._hand[r]):
                if A.maritime_action(r, get) in self._legal:
                    return A.maritime_action(r, get)
        self.failed_bank += 1
        return None

    def _answer_offer(self) -> int:
        s = self._s
        proposer = int(s[L.TURN_PLAYER])
        give_r, give_n = int(s[L.TRADE_GIVE_RES]), int(s[L.TRADE_GIVE_N])  # what we would get
        get_r, get_n = int(s[L.TRADE_GET_RES]), int(s[L.TRADE_GET_N])      # what we would give
        if not self.trading or self._wgeta(proposer) <= NO_TRADE_WGETA:
            return A.TRADE_REJECT
        if self._racing(proposer):
            return A.TRADE_REJECT
        cost = self._target_cost()
        if cost is None:
            return A.TRADE_REJECT
        model = self._model()
        base = self._baseline(model, cost)
        if A.TRADE_ACCEPT in self._legal:
            h = self._hand.copy()
            h[get_r] -= get_n
            h[give_r] += give_n
            if self._eta_after(model, h, cost) < base:
                return A.TRADE_ACCEPT
        # counter: ask for what the offerer gives, pay with a card we do not need
        need = np.asarray(cost)
        for r in sorted(range(5), key=lambda r: -(self._hand[r] - need[r])):
            if r == give_r or self._hand[r] - need[r] < 1:
                continue
            h = self._hand.copy()
            h[r] -= 1
            h[give_r] += 1
            if self._eta_after(model, h, cost) < base:
                a = A.COUNTER0 + A.menu_index(1, r, 1, give_r)
                if a in self._legal:
                    return a
        return A.TRADE_REJECT

    def _racing(self, other: int) -> bool:
        """True when other could settle (with at most one road) on the spot we plan to take."""
        if not self.plan:
            self._make_plan()
        targets = {item[1] for item in self.plan if item[0] == "settlement"}
        if not targets:
            return False
        return any(v in targets for v, path in settlement_spots(self._s, other, max_roads=1))

    def _confirm(self) -> int:
        s, me = self._s, self._me
        n = int(s[L.OPT_PLAYERS])
        cost = self._target_cost()
        model = self._model()
        best = A.TRADE_CANCEL
        best_eta: Optional[int] = None
        for a in sorted(self._legal):
            if not (A.CONFIRM0 <= a < A.TRADE_CANCEL):
                continue
            partner = A.confirm_partner(a, me, n)
            if self._wgeta(partner) < NO_TRADE_WGETA:
                continue
            resp = int(s[L.TRADE_RESP + partner])
            h = self._hand.copy()
            if resp == L.RESP_ACCEPT:
                h[int(s[L.TRADE_GIVE_RES])] -= int(s[L.TRADE_GIVE_N])
                h[int(s[L.TRADE_GET_RES])] += int(s[L.TRADE_GET_N])
            else:
                m = resp - L.RESP_COUNTER
                h[A.MENU_GIVE_RES[m]] += A.MENU_GIVE_N[m]
                h[A.MENU_GET_RES[m]] -= A.MENU_GET_N[m]
            eta = self._eta_after(model, h, cost) if cost is not None else 0
            if resp != L.RESP_ACCEPT and cost is not None and eta >= self._baseline(model, cost):
                continue
            if best_eta is None or eta < best_eta:
                best, best_eta = a, eta
        if best != A.TRADE_CANCEL:
            self.plan = []
        return best
