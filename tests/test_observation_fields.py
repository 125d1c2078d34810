"""The observation's field table: it covers the vector exactly, each named field holds
what its meaning says, and the docs page is generated from it."""
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import catan_env.core.observe  # noqa: F401  (the module; catan_env.core.observe is the function)
from catan_env.core import game as G
from catan_env.core import layout as L
from helpers import game_after_setup, play_random

O = sys.modules["catan_env.core.observe"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_fields_tile_the_vector_without_gaps_or_overlaps():
    covered = np.zeros(O.VECTOR_SIZE, np.int64)
    end = 0
    for name, off, shape, meaning in O.OBS_FIELDS:
        assert off == end, f"{name} starts at {off}, the previous field ends at {end}"
        end = off + int(np.prod(shape))
        covered[off:end] += 1
        assert meaning
    assert end == O.VECTOR_SIZE == 1147 and (covered == 1).all()
    assert O.BOARD_SIZE == dict((n, o) for n, o, _, _ in O.OBS_FIELDS)["own_hand"]
    assert O.TAIL_SIZE == O.VECTOR_SIZE - O.BOARD_SIZE


def test_named_fields_hold_what_they_say():
    s = game_after_setup(seed=3, players=3)
    seat = int(s[L.DECIDER])
    vec = G.observe(s, seat)
    hand = L.view(s, "hand")[seat]
    assert np.allclose(O.obs_view(vec, "own_hand"), hand / 10.0)
    players = O.obs_view(vec, "players")
    for k in range(3):
        p = (seat + k) % 3
        assert players[k, O.P_VP] == pytest.approx(s[L.PUBLIC_VP + p] / 10.0)
        assert players[k, O.P_CARDS] == pytest.approx(L.view(s, "hand")[p].sum() / 10.0)
        assert players[k, O.P_ROADS_LEFT] == pytest.approx(s[L.ROADS_LEFT + p] / 15.0)
    assert (players[3] == 0).all()  # no fourth seat
    phase = O.obs_view(vec, "phase")
    assert phase.argmax() == s[L.PHASE] and phase.sum() == 1
    assert O.obs_view(vec, "decides")[0] == 1.0
    hexes = O.obs_view(vec, "hexes")
    assert (hexes[:, O.HEX_TERRAIN_COL:O.HEX_TERRAIN_COL + 6].argmax(1) == L.view(s, "hex_terrain")).all()
    assert hexes[:, O.HEX_ROBBER_COL].argmax() == s[L.ROBBER]
    assert O.obs_view(vec, "bank").tolist() == pytest.approx((L.view(s, "bank") / 19.0).tolist())
    # the vector part alone, and batches, read the same
    tail = vec[O.BOARD_SIZE:]
    assert (O.obs_view(tail, "players") == players).all()
    batch = np.stack([vec, vec])
    assert O.obs_view(batch, "players").shape == (2, L.MAX_PLAYERS, O.PLAYER_FEATURES)
    with pytest.raises(KeyError, match="unknown observation field"):
        O.obs_view(vec, "nope")
    with pytest.raises(KeyError, match="board field"):
        O.obs_view(tail, "hexes")


def test_the_docs_page_is_the_generated_table():
    with open(os.path.join(ROOT, "docs", "observations-actions.md")) as f:
        assert O.observation_table() in f.read()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reseating_the_board_equals_encoding_it_for_the_new_observer(players):
    """The batched env re-seats a board part encoded for one observer instead of encoding
    it again for the next: the result equals encode_board's, for every pair of seats."""
    rng = np.random.default_rng(players)
    s = G.new_game(seed=players, players=players)
    checked = 0
    while not G.is_over(s) and checked < 40:
        G.step(s, int(rng.choice(G.legal_actions(s))))
        if s[L.TURN] % 7 or rng.random() < 0.9:
            continue
        for old in range(players):
            row = np.full(O.VECTOR_SIZE, 7.0, np.float32)  # the tail is left alone
            O.encode_board(s, old, row)
            for new in range(players):
                moved = row.copy()
                O.reseat_board(s, old, new, moved)
                fresh = row.copy()
                O.encode_board(s, new, fresh)
                np.testing.assert_array_equal(moved, fresh)
        checked += 1
    assert checked >= 5


def _encodings(s, seat, dtype):
    vec = np.zeros(O.COMPACT_SIZE if dtype == np.uint8 else O.VECTOR_SIZE, dtype)
    O.encode_vector(s, seat, vec)
    planes = np.zeros((O.PLANES, O.GRID_H, O.GRID_W), dtype)
    O.encode_planes(s, seat, planes)
    return vec, planes


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), players=st.sampled_from([2, 3, 4]), trade=st.booleans(),
       steps=st.integers(0, 1500))
def test_compact_observations_expand_to_the_float_encoders(seed, players, trade, steps):
    """The compact (uint8) form, expanded, equals the float32 vector and planes for every
    seat; re-seating a compact board equals encoding it for the new seat."""
    s = play_random(G.new_game(seed=seed, players=players, domestic_trade=trade), steps,
                    np.random.default_rng(seed))
    for turn in (None, 300, 4321, 9999):  # the turn needs its second byte past 255, and saturates at 5,000
        if turn is not None:
            s[L.TURN] = turn
        for seat in range(players):
            vec, planes = _encodings(s, seat, np.float32)
            small, small_planes = _encodings(s, seat, np.uint8)
            np.testing.assert_array_equal(O.expand(small), vec)
            np.testing.assert_array_equal(O.expand(small[O.BOARD_SIZE:]), vec[O.BOARD_SIZE:])
            np.testing.assert_array_equal(O.expand_planes(small_planes), planes)
            for new in range(players):
                moved = small.copy()
                O.reseat_board(s, seat, new, moved)
                np.testing.assert_array_equal(moved[:O.BOARD_SIZE], _encodings(s, new, np.uint8)[0][:O.BOARD_SIZE])
    assert O.expand(small)[O.O_TURN] == np.float32(5000 / 100)


def test_expand_names_what_it_cannot_read():
    with pytest.raises(ValueError, match=str(O.COMPACT_SIZE)):
        O.expand(np.zeros(O.VECTOR_SIZE, np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        O.expand(np.zeros(O.COMPACT_SIZE, np.float32))
    with pytest.raises(ValueError, match="planes"):
        O.expand_planes(np.zeros((3, 4), np.uint8))


def test_multiplying_by_a_reciprocal_rounds_like_dividing():
    """The float encoders multiply a count by its divisor's reciprocal: the float32 stored
    is the same as the count divided by the divisor, for every divisor and every count a
    state can hold (``expand`` divides)."""
    counts = np.arange(-1000, 100_001, dtype=np.float64)
    for divisor in sorted(set(O.DIVISORS) | set(O.PLANE_DIVISORS)):
        np.testing.assert_array_equal((counts * (1.0 / divisor)).astype(np.float32),
                                      (counts / divisor).astype(np.float32), err_msg=str(divisor))
