"""The per-seat statistics a bridged game records, checked against the game itself: the
set-up settlements read from the move list are the buildings each seat owns when the
set-up ends, and the final pieces add up to each seat's public VP."""
import numpy as np
import pytest

import catan_env.core as C
from catan_env.apps.bridge.mirror import Entry
from catan_env.apps.bridge.seat_stats import seat_statistics, setup_settlements, vertex_pips
from catan_env.core import layout as L
from catan_env.core.tables import DICE_WAYS
from catan_env.core.topology import HEX_VERTICES


def _random_game(seed, n_players, cap=4000):
    """A random game as mirror entries (one action each), with the state at the end of
    the set-up and at the end."""
    rng = np.random.default_rng(seed)
    s = C.new_game({"players": n_players}, seed=seed)
    entries, after_setup = [], None
    for _ in range(cap):
        if C.is_over(s):
            break
        a = int(rng.choice(C.legal_actions(s)))
        entries.append(Entry([(a, -1)]))
        entries.append(Entry(kind="edit", args=("noise",)))  # edits are not moves: skipped
        C.step(s, a)
        if after_setup is None and s[L.TURN] >= 1:
            after_setup = s.copy()
    return entries, after_setup, s


@pytest.mark.parametrize("seed,n_players", [(1, 4), (2, 3), (3, 2), (4, 4)])
def test_setup_settlements_are_what_each_seat_owns_when_the_setup_ends(seed, n_players):
    entries, after_setup, _ = _random_game(seed, n_players)
    placed = setup_settlements(entries, n_players)
    for p in range(n_players):
        owned = sorted(int(v) for v in np.flatnonzero(after_setup[L.V_OWNER:L.V_OWNER + 54] == p))
        assert sorted(placed[p]) == owned and len(placed[p]) == 2


def test_a_corner_counts_the_pips_of_every_numbered_hex_it_touches():
    s = C.new_game(seed=5)
    for v in range(54):
        slow = sum(int(DICE_WAYS[s[L.HEX_NUMBER + h]]) for h in range(19) if v in HEX_VERTICES[h])
        assert vertex_pips(s, v) == slow


@pytest.mark.parametrize("seed", range(5, 11))
def test_final_pieces_and_cards_add_up_to_the_public_vp(seed):
    entries, _, s = _random_game(seed, 4)
    stats = seat_statistics(s, setup_settlements(entries, 4))
    assert sum(x["largest_army"] for x in stats) == int(s[L.LA_HOLDER] >= 0)
    for p, x in enumerate(stats):
        vp = x["settlements"] + 2 * x["cities"] + 2 * x["largest_army"] + 2 * x["longest_road"]
        assert vp == x["public_vp"] == int(s[L.PUBLIC_VP + p])
        assert x["roads"] == 15 - int(s[L.ROADS_LEFT + p])
        assert x["knights"] == int(s[L.KNIGHTS + p])
        assert 0 < x["opening_pips"] <= 30
