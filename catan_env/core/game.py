"""Python face of the rules core: validated wrappers over the jitted kernels.

Functions take and return plain state vectors (``np.ndarray`` of int64).  They check
their input and raise clear errors; the kernels they call assume valid input.

    s = new_game(seed=1, players=4)
    while not is_over(s):
        mask = legal_mask(s)
        step(s, int(np.flatnonzero(mask)[0]))
"""
from typing import Any, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import actions as A
from . import layout as L
from . import cards as C
from . import chance as CH
from . import rules as R
from .board import read_board, write_board
from .determinize import determinize as _determinize
from .explain import explain_illegal
from .observe import (BOARD_SIZE, FULL_SIZE, GRID_H, GRID_W, PLANES, VECTOR_SIZE,
                      encode_full, encode_planes, encode_vector)
from .options import DEFAULT_MAX_TURNS, GameOptions, make_options
from .playout import POLICIES, playout as _playout



class IllegalActionError(ValueError):
    """An action that is not legal in the current state (the state is left unchanged)."""


class InvalidActionError(IllegalActionError, TypeError):
    """A value that is not an action at all: not an integer, a bool, or out of the id
    range.  Every env refuses it, whatever its policy for an in-range illegal move."""


def as_action(value: Any) -> int:
    """The action id a Python or numpy integer (or 0-d integer array) stands for, checked
    against the id range; InvalidActionError naming the problem for anything else
    (``74.5``, ``"7"``, ``True``, ``-3``).  Every env reads actions through this."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidActionError(f"an action is an integer id 0-{A.N_ACTIONS - 1}, got {value!r} "
                                 f"({type(value).__name__})")
    if not 0 <= value < A.N_ACTIONS:
        raise InvalidActionError(f"action id {int(value)} is out of range 0-{A.N_ACTIONS - 1}")
    return int(value)


class CorruptStateError(ValueError):
    """A state vector or saved game that breaks the game's invariants."""


def _seed_int(seed: Optional[int]) -> int:
    if seed is None:
        return int(np.random.default_rng().integers(2 ** 63))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    return int(seed) % (2 ** 63)


def new_game(options: Union[GameOptions, Mapping[str, Any], None] = None, seed: Optional[int] = 0,
             **kwargs: Any) -> np.ndarray:
    """A new game at the start of set-up.  options: GameOptions/dict; kwargs override."""
    opts = make_options(options, **kwargs)
    seed = _seed_int(seed)
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    board = opts.board_dict()
    args = (opts.players, opts.vp_to_win, opts.discard_limit, int(opts.friendly_robber),
            int(opts.domestic_trade), opts.max_offers_per_turn, seed)
    if board is None:
        R.new_random_game(s, *args)
    else:
        write_board(s, board)
        R.init_state(s, *args)
    R.set_rule_variants(s, *opts.rule_variants())
    return s


def _check_state(state: np.ndarray) -> None:
    if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.shape != (L.STATE_SIZE,):
        raise TypeError(f"state must be an int64 array of shape ({L.STATE_SIZE},)")


def legal_actions(state: np.ndarray) -> np.ndarray:
    """Sorted legal action ids for the decider (empty once the game is over)."""
    _check_state(state)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    n = R.legal_actions(state, buf)
    return buf[:n].copy()


def legal_mask(state: np.ndarray) -> np.ndarray:
    """int8 mask over all N_ACTIONS ids for the decider."""
    _check_state(state)
    out = np.zeros(A.N_ACTIONS, dtype=np.int8)
    R.legal_mask(state, out)
    return out


def decider(state: np.ndarray) -> int:
    """Seat that must act next, -1 once the game is over."""
    return int(C.current_decider(state))


def is_over(state: np.ndarray) -> bool:
    """Whether the game has ended (someone won)."""
    return int(state[L.PHASE]) == L.PH_GAME_OVER


def winner(state: np.ndarray) -> int:
    """The winning seat, or -1 while nobody has won."""
    return int(state[L.WINNER])


def victory_points(state: np.ndarray) -> List[int]:
    """Total VP (VP cards included) per seat; a list of n_players ints."""
    return [int(C.total_vp(state, p)) for p in range(int(state[L.OPT_PLAYERS]))]


def n_players(state: np.ndarray) -> int:
    """Players in this game (2-4)."""
    return int(state[L.OPT_PLAYERS])


def _forced_ok(state: np.ndarray, action: int, outcome: int) -> Tuple[bool, str]:
    p = decider(state)
    if action == A.ROLL:
        return 2 <= outcome <= 12, "a dice total 2..12"
    if A.is_robber(action) and A.robber_victim(action) > 0:
        victim = A.robber_victim_seat(action, p, n_players(state))
        ok = 0 <= outcome < L.N_RES and L.view(state, "hand")[victim, outcome] > 0
        return ok, f"a resource the victim (seat {victim}) holds"
    if action == A.BUY_DEV:
        ok = 0 <= outcome < L.N_DEV and state[L.DECK + outcome] > 0
        return ok, "a development card type left in the deck"
    return False, "no chance outcome (this action has none)"


def step(state: np.ndarray, action: int, outcome: Optional[int] = None) -> np.ndarray:
    """Apply a legal action in place.  outcome forces the chance result (dice total for
    ROLL, stolen resource for a robber move with a victim, card type for BUY_DEV).
    Raises IllegalActionError (state unchanged) naming the action and why."""
    _check_state(state)
    action = as_action(action)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    n = R.legal_actions(state, buf)
    if action not in buf[:n]:
        raise IllegalActionError(f"{A.action_name(action)} (id {action}) is illegal: "
                                 f"{explain_illegal(state, action)}")
    forced = -1
    if outcome is not None:
        ok, what = _forced_ok(state, action, int(outcome))
        if not ok:
            raise IllegalActionError(f"forced outcome {outcome} for {A.action_name(action)} "
                                     f"must be {what}")
        forced = int(outcome)
    R.apply_action(state, action, forced)
    return state


def chance_outcome(state: np.ndarray, action: int) -> Optional[int]:
    """Which chance outcome the last applied action had: dice total, stolen resource
    or drawn card type; None for actions without chance (a robber move without a
    victim included)."""
    kind = CH.chance_kind(state, int(action))
    return None if kind == CH.CHANCE_NONE else int(CH.recorded_outcome(state, kind))


def observe(state: np.ndarray, player: int, kind: str = "vector") -> np.ndarray:
    """Seat-relative observation of player: kind "vector" (VECTOR_SIZE,) or "planes"
    (PLANES, GRID_H, GRID_W), float32."""
    _check_state(state)
    if not 0 <= int(player) < n_players(state):
        raise ValueError(f"player must be in 0..{n_players(state) - 1}, got {player}")
    if kind == "vector":
        out = np.zeros(VECTOR_SIZE, dtype=np.float32)
        encode_vector(state, int(player), out)
    elif kind == "planes":
        out = np.zeros((PLANES, GRID_H, GRID_W), dtype=np.float32)
        encode_planes(state, int(player), out)
    else:
        raise ValueError(f"kind must be 'vector' or 'planes', got {kind!r}")
    return out


def full_state_tensor(state: np.ndarray) -> np.ndarray:
    """The whole true state as float32 features (hidden information included), for centralised critics."""
    out = np.zeros(FULL_SIZE, dtype=np.float32)
    encode_full(state, out)
    return out


def determinize(state: np.ndarray, observer: int, seed: Optional[int] = 0) -> np.ndarray:
    """A full state consistent with everything observer knows, the rest resampled."""
    _check_state(state)
    if not 0 <= int(observer) < n_players(state):
        raise ValueError(f"observer must be in 0..{n_players(state) - 1}, got {observer}")
    if not state.flags.writeable:  # (an InfoSet's view) a read-only array would compile a
        state = state.copy()       # second kernel; the kernel copies the state anyway
    return _determinize(state, int(observer), _seed_int(seed))


def playout(state: np.ndarray, policy: str = "random", seed: Optional[int] = 0,
            max_turns: int = DEFAULT_MAX_TURNS) -> Tuple[List[int], int]:
    """Play a copy of state to the end with a built-in policy ("random", "pruning",
    "weighted"); return (final VP per seat as a list, winner or -1 if the cap hit)."""
    _check_state(state)
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {list(POLICIES)}, got {policy!r}")
    vp, win = _playout(state, POLICIES[policy], _seed_int(seed), int(max_turns))
    return [int(x) for x in vp[:n_players(state)]], int(win)


def options_of(state: np.ndarray) -> GameOptions:
    """The GameOptions stored in a state, rule variants and development deck included
    (board taken from the state): ``new_game(**options_of(s).to_dict())`` plays the same
    rules."""
    bits = int(state[L.OPT_RULES])
    return make_options(players=int(state[L.OPT_PLAYERS]), vp_to_win=int(state[L.OPT_VP]),
                        discard_limit=int(state[L.OPT_DISCARD]),
                        friendly_robber=bool(state[L.OPT_FRIENDLY]),
                        domestic_trade=bool(state[L.OPT_TRADE]),
                        max_offers_per_turn=int(state[L.OPT_MAX_OFFERS]),
                        robber_on_desert=not bits & L.RULE_NO_DESERT_ROBBER,
                        bank_shortage="in_order" if bits & L.RULE_SHORTAGE_IN_ORDER else "official",
                        strict_trade=bool(bits & L.RULE_STRICT_TRADE),
                        direct_city=bool(bits & L.RULE_DIRECT_CITY),
                        vp_cards="played" if bits & L.RULE_VP_PLAYED else "held",
                        sevens_rule=int(state[L.OPT_SEVENS]),
                        dev_deck=tuple(int(x) for x in L.view(state, "deck_start")),
                        board=read_board(state))


__all__ = ["new_game", "legal_actions", "legal_mask", "decider", "is_over", "winner",
           "victory_points", "step", "chance_outcome", "explain_illegal", "observe",
           "determinize", "playout", "IllegalActionError", "CorruptStateError",
           "BOARD_SIZE", "VECTOR_SIZE", "PLANES", "GRID_H", "GRID_W", "FULL_SIZE"]
