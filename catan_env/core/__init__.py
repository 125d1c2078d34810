"""The numba rules core: pure functions over a flat int64 state vector.

See ``layout`` for the state fields, ``actions`` for the action table, ``rules`` for the
jitted kernels and ``game`` for the validated Python API re-exported here.
Depends on numpy and numba only.
"""
from .cache_guard import clear_stale as _clear_stale

_clear_stale()  # every package's stale kernels, before any kernel is loaded

from .actions import (ACTION_TABLE, N_ACTIONS, action_args, action_id, action_kind,
                      action_name)
from .board import BEGINNER_BOARD, read_board, validate_board
from .game import (BOARD_SIZE, FULL_SIZE, GRID_H, GRID_W, PLANES, VECTOR_SIZE,
                   CorruptStateError, IllegalActionError, InvalidActionError, as_action, chance_outcome, decider,
                   determinize, explain_illegal, full_state_tensor, is_over, legal_actions,
                   legal_mask, n_players, new_game, observe, options_of, playout, step,
                   victory_points, winner)
from .layout import STATE_SIZE
from .options import GameOptions, make_options
from .record import GameRecord, load_state, save_state

__all__ = [
    "ACTION_TABLE", "N_ACTIONS", "action_args", "action_id", "action_kind", "action_name",
    "BEGINNER_BOARD", "read_board", "validate_board",
    "BOARD_SIZE", "FULL_SIZE", "GRID_H", "GRID_W", "PLANES", "VECTOR_SIZE", "STATE_SIZE",
    "CorruptStateError", "IllegalActionError", "InvalidActionError", "as_action", "chance_outcome", "decider", "determinize",
    "explain_illegal", "full_state_tensor", "is_over", "legal_actions", "legal_mask",
    "n_players", "new_game", "observe", "options_of", "playout", "step", "victory_points",
    "winner", "GameOptions", "make_options", "GameRecord", "load_state", "save_state",
]
