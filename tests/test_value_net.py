"""The learned agent: features (no peeking, against a slow reference), the numba forward
pass (against torch), the expectimax (against a slow reference), shards, the shipped
weights (no torch needed, legal games in every env), bad input, one tiny ExIt round."""
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from catan_env.agents import make_agent
from catan_env.learned import features as F
from catan_env.learned.network import PRETRAINED, PRETRAINED_POLICY, ValueNetwork, feature_digest
from catan_env.agents.value.positions import generate, load_positions, record_game
from catan_env.agents.value.search import search_values
from catan_env.learned.value import SEARCHABLE
from catan_env.learned.mlp import MLPWeights
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.observe import BOARD_SIZE, PIPS, TAIL_SIZE
from catan_env.core.tables import DICE_WAYS
from catan_env.core.cards import total_vp
from catan_env.core.topology import (
    EDGE_VERTICES, N_EDGES, N_PORTS, N_VERTICES, VERTEX_EDGES, VERTEX_HEXES, VERTEX_VERTICES,
)
from helpers import hidden_variants

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def random_states(n_states, seed, players=4, p_keep=0.05):
    """States along random games (every phase shows up)."""
    rng = np.random.default_rng(seed)
    out, game = [], 0
    while len(out) < n_states:
        s = G.new_game({"players": players}, seed=seed * 100 + game)
        game += 1
        while not G.is_over(s) and len(out) < n_states:
            if rng.random() < p_keep:
                out.append(s.copy())
            G.step(s, int(rng.choice(G.legal_actions(s))))
    return out


def features(s, seat):
    out = np.zeros(F.N_FEATURES, np.float32)
    F.encode_features(s, seat, out)
    return out


def small_network(seed=0, hidden=(16,)):
    rng = np.random.default_rng(seed)
    layers, width = [], F.N_FEATURES
    for h in hidden:
        layers.append((rng.normal(0, 0.1, (width, h)), rng.normal(0, 0.1, h), "relu"))
        width = h
    layers.append((rng.normal(0, 0.5, (width, L.MAX_PLAYERS)), rng.normal(0, 0.1, L.MAX_PLAYERS), "identity"))
    return ValueNetwork(MLPWeights(layers), {"test": True})


# ---- features

def test_features_read_only_what_the_seat_knows():
    rng = np.random.default_rng(1)
    seen = set()
    for s in random_states(40, seed=1):
        for seat in range(G.n_players(s)):
            base = features(s, seat)
            for label, other in hidden_variants(s, seat, rng):
                assert np.array_equal(features(other, seat), base), f"features read hidden {label}"
                seen.add(label)
            det = G.determinize(s, seat, int(rng.integers(1 << 30)))
            assert np.array_equal(features(det, seat), base)
    assert {"hand make-up", "rng"} <= seen


def _reference_seat_block(s, p, observer):
    """The per-seat columns computed the slow, obvious way."""
    cols = {name: np.zeros(size) for name, _, size, _ in F.SEAT_COLS}
    owner, level = L.view(s, "v_owner"), L.view(s, "v_level")
    roads = L.view(s, "e_owner")
    terrain, number = L.view(s, "hex_terrain"), L.view(s, "hex_number")
    vp = G.victory_points(s)[p] if p == observer else int(L.view(s, "public_vp")[p])
    cols["vp"][0] = vp / 10
    cols["vp_left"][0] = max(int(s[L.OPT_VP]) - vp, 0) / 10
    slot = [n for n in range(2, 13) if n != 7]
    for v in range(N_VERTICES):
        if owner[v] != p:
            continue
        cols["settlements" if level[v] == 1 else "cities"][0] += 1 / (5 if level[v] == 1 else 4)
        for h in VERTEX_HEXES[v]:
            if h < 0 or terrain[h] == L.DESERT:
                continue
            cards = level[v] * PIPS[number[h]] / 36 * 3
            if h == s[L.ROBBER]:
                cols["robbed"][0] += cards
            else:
                cols["production"][terrain[h]] += cards
            cols["numbers"][slot.index(number[h])] += level[v] / 3
    cols["production_total"][0] = cols["production"].sum()
    cols["diversity"][0] = (cols["production"] > 0).sum() / 5
    cols["roads"][0] = (roads == p).sum() / 15
    for i in range(9):
        e = s[L.PORT_EDGE + i]
        if p in (owner[EDGE_VERTICES[e, 0]], owner[EDGE_VERTICES[e, 1]]):
            cols["harbours"][s[L.PORT_TYPE + i]] = 1

    def free(v):
        return owner[v] < 0 and all(w < 0 or owner[w] < 0 for w in VERTEX_VERTICES[v])

    def pips(v):
        return sum(PIPS[number[h]] for h in VERTEX_HEXES[v] if h >= 0 and terrain[h] != L.DESERT)

    def own_road_at(v):
        return any(e >= 0 and roads[e] == p for e in VERTEX_EDGES[v])

    for v in range(N_VERTICES):
        if not free(v):
            continue
        if own_road_at(v):
            cols["spots"][0] += 1 / 5
            cols["spot_pips"][0] = max(cols["spot_pips"][0], pips(v) / 13)
            continue
        for e in VERTEX_EDGES[v]:
            if e < 0 or roads[e] >= 0:
                continue
            w = EDGE_VERTICES[e, 0] if EDGE_VERTICES[e, 1] == v else EDGE_VERTICES[e, 1]
            if owner[w] in (-1, p) and (own_road_at(w) or owner[w] == p):
                cols["spots_near"][0] += 1 / 5
                cols["near_pips"][0] = max(cols["near_pips"][0], pips(v) / 13)
                break
    return np.concatenate([cols[name] for name, _, _, _ in F.SEAT_COLS])


def test_engineered_features_match_a_slow_reference():
    for players in (2, 3, 4):
        for s in random_states(15, seed=players, players=players, p_keep=0.02):
            for observer in range(players):
                x = features(s, observer)
                assert np.array_equal(x[:TAIL_SIZE], G.observe(s, observer)[BOARD_SIZE:])
                for k in range(players):
                    p = (observer + k) % players
                    got = x[F.F_SEATS + k * F.SEAT_WIDTH:F.F_SEATS + (k + 1) * F.SEAT_WIDTH]
                    np.testing.assert_allclose(got, _reference_seat_block(s, p, observer), atol=1e-6)
                blank = x[F.F_SEATS + players * F.SEAT_WIDTH:F.F_SEATS + L.MAX_PLAYERS * F.SEAT_WIDTH]
                assert not blank.any()
                assert x[F.F_TURN_PLAYER + (int(s[L.TURN_PLAYER]) - observer) % players] == 1
                assert x[F.F_PLAYERS + players - 2] == 1
                unseen = (L.view(s, "deck_start") - L.view(s, "dev_used") - L.view(s, "dev_hand")[observer])
                if unseen.sum():
                    np.testing.assert_allclose(x[F.F_UNSEEN_DEV:F.F_UNSEEN_DEV + 5], unseen / unseen.sum(), atol=1e-6)


@njit(cache=True)
def _per_seat_block(s, p, observer, out, o, spot_pips, reach):
    """One seat's engineered columns, a pass over the board per seat: how
    ``features._seat_columns`` computed them before its single pass (2026-12-01), in the
    same float32 sums; the single pass must give these bits, so the network's moves did
    not change."""
    vp = total_vp(s, p) if p == observer else s[L.PUBLIC_VP + p]
    out[o + F.C_VP] = vp / 10.0
    out[o + F.C_VP_LEFT] = max(s[L.OPT_VP] - vp, 0) / 10.0
    reach[:] = False
    for e in range(N_EDGES):
        if s[L.E_OWNER + e] == p:
            out[o + F.C_ROADS] += 1.0 / 15.0
            for j in range(2):
                reach[EDGE_VERTICES[e, j]] = True
    for v in range(N_VERTICES):
        if s[L.V_OWNER + v] != p:
            continue
        level = s[L.V_LEVEL + v]
        reach[v] = True
        if level == 1:
            out[o + F.C_SETTLEMENTS] += 1.0 / 5.0
        else:
            out[o + F.C_CITIES] += 1.0 / 4.0
        for k in range(3):
            h = VERTEX_HEXES[v, k]
            if h < 0 or s[L.HEX_TERRAIN + h] >= L.N_RES:
                continue
            cards = level * PIPS[s[L.HEX_NUMBER + h]] / 36.0 * 3.0
            if h == s[L.ROBBER]:
                out[o + F.C_ROBBED] += cards
            else:
                out[o + F.C_PROD + s[L.HEX_TERRAIN + h]] += cards
            out[o + F.C_NUMBERS + F.NUMBER_SLOT[s[L.HEX_NUMBER + h]]] += level / 3.0
    kinds = 0
    for r in range(L.N_RES):
        out[o + F.C_PROD_TOTAL] += out[o + F.C_PROD + r]
        if out[o + F.C_PROD + r] > 0.0:
            kinds += 1
    out[o + F.C_DIVERSITY] = kinds / 5.0
    for i in range(N_PORTS):
        e = s[L.PORT_EDGE + i]
        if s[L.V_OWNER + EDGE_VERTICES[e, 0]] == p or s[L.V_OWNER + EDGE_VERTICES[e, 1]] == p:
            out[o + F.C_HARBOURS + s[L.PORT_TYPE + i]] = 1.0
    for v in range(N_VERTICES):
        pips = spot_pips[v]
        if pips < 0.0:
            continue
        now = False
        if reach[v]:
            for k in range(3):
                e = VERTEX_EDGES[v, k]
                if e >= 0 and s[L.E_OWNER + e] == p:
                    now = True
        if now:
            out[o + F.C_SPOTS] += 1.0 / 5.0
            out[o + F.C_SPOT_PIPS] = max(out[o + F.C_SPOT_PIPS], pips / 13.0)
            continue
        for k in range(3):
            e = VERTEX_EDGES[v, k]
            if e < 0 or s[L.E_OWNER + e] >= 0:
                continue
            w = EDGE_VERTICES[e, 0] if EDGE_VERTICES[e, 1] == v else EDGE_VERTICES[e, 1]
            if reach[w] and (s[L.V_OWNER + w] < 0 or s[L.V_OWNER + w] == p):
                out[o + F.C_SPOTS_NEAR] += 1.0 / 5.0
                out[o + F.C_NEAR_PIPS] = max(out[o + F.C_NEAR_PIPS], pips / 13.0)
                break


def _spot_pips(s):
    """Each vertex's pips where a settlement may stand by the distance rule, else -1 (the
    per-seat reference's own, not the code under test's)."""
    from catan_env.core.placement import distance_ok
    return np.array([F.vertex_pips(s, v) if distance_ok(s, v) else -1.0 for v in range(N_VERTICES)])


def test_the_single_pass_seat_columns_equal_a_pass_per_seat_bit_for_bit():
    """``_seat_columns`` walks the board once for every seat; a pass per seat
    (``_per_seat_block``) gives the same float32 bits, for 2-4 players, every observer, on
    positions from set-up to the end of games: cities, harbours, the robber, and open
    spots that two seats' roads reach (each case counted, so the positions do show them);
    and on a 4-player position relabelled as 2 players, whose other seats' pieces both
    leave out."""
    rng = np.random.default_rng(0)
    seen = {"city": 0, "harbour": 0, "spot two seats reach now": 0, "spot one road away": 0, "relabelled": 0}

    def check(s, observer, players):
        scratch = F.new_feature_scratch()
        scratch.reach[:] = rng.random(scratch.reach.shape) < 0.5  # (scratch left dirty)
        got = np.zeros(F.N_FEATURES, np.float32)
        F._seat_columns(s, observer, got, scratch.pips, scratch.reach)
        want = np.zeros(F.N_FEATURES, np.float32)
        pips, reach = _spot_pips(s), np.zeros(N_VERTICES, np.bool_)
        for k in range(players):
            _per_seat_block(s, (observer + k) % players, observer, want, F.F_SEATS + k * F.SEAT_WIDTH, pips, reach)
        assert np.array_equal(got.view(np.int32), want.view(np.int32))
        return pips, got

    for players in (2, 3, 4):
        for s in random_states(40, seed=60 + players, players=players, p_keep=0.002):
            for observer in range(players):
                pips, got = check(s, observer, players)
            blocks = got[F.F_SEATS:F.F_SEATS + players * F.SEAT_WIDTH].reshape(players, F.SEAT_WIDTH)
            seen["city"] += bool(blocks[:, F.C_CITIES].any())
            seen["harbour"] += bool(blocks[:, F.C_HARBOURS:F.C_HARBOURS + 6].any())
            seen["spot one road away"] += bool(blocks[:, F.C_SPOTS_NEAR].any())
            roads = L.view(s, "e_owner")
            for v in np.flatnonzero(pips >= 0):
                owners = {int(roads[e]) for e in VERTEX_EDGES[v] if e >= 0 and roads[e] >= 0}
                seen["spot two seats reach now"] += len(owners) >= 2
            if players == 4:
                relabelled = s.copy()
                relabelled[L.OPT_PLAYERS] = 2
                if (L.view(s, "v_owner") >= 2).any():
                    check(relabelled, 1, 2)
                    seen["relabelled"] += 1
    assert all(count >= 3 for count in seen.values()), seen


def test_features_copied_by_seat_key_equal_the_full_encoding():
    """``encode_features_keyed`` copies the per-seat columns of a position with the same
    seat key: on every one-ply leaf of random roots (chance expanded), keyed by the root,
    by the root seen by another observer or counted with another player count, and by a
    root of another game, the same bits as ``encode_features``; most leaves did take the
    copy, and none with another observer's or player count's key."""
    from catan_env.core.chance import MAX_OUTCOMES
    from catan_env.core.rules import apply_action
    from catan_env.learned.value import move_outcomes
    roots = [(s, players) for players in (2, 3, 4) for s in random_states(20, seed=20 + players, players=players)]
    outs, probs = np.empty(MAX_OUTCOMES, np.int64), np.empty(MAX_OUTCOMES)
    scratch = F.new_feature_scratch()  # one for every call, as an evaluator keeps it
    copied = leaves = 0
    for i, (s, players) in enumerate(roots):
        observer = i % players
        other, other_players = roots[(i + 7) % len(roots)]
        recounted = s.copy()
        recounted[L.OPT_PLAYERS] = 2 if players > 2 else 3
        keys = []
        for key_state, key_observer in ((s, observer), (s, (observer + 1) % players), (recounted, observer % 2),
                                        (other, observer % other_players)):
            key = F.new_seat_key()
            F.set_seat_key(key_state, key_observer, key)
            keys.append((key, features(key_state, key_observer)))
        for a in G.legal_actions(s)[:12]:
            for k in range(move_outcomes(s, int(a), outs, probs)):
                leaf = s.copy()
                apply_action(leaf, int(a), int(outs[k]))
                expected = features(leaf, observer)
                for key, known in keys:
                    got = np.full(F.N_FEATURES, np.nan, np.float32)
                    F.encode_features_keyed(leaf, observer, got, key, known, scratch)
                    assert np.array_equal(got.view(np.int32), expected.view(np.int32))
                leaves += 1
                copied += F.has_seat_key(leaf, observer, keys[0][0])
                assert not F.has_seat_key(leaf, observer, keys[1][0]) and not F.has_seat_key(leaf, observer, keys[2][0])
    assert leaves > 500 and copied > leaves // 2


def test_the_seat_columns_read_only_the_seat_key_and_the_vp_fields():
    """What makes the keyed copy exact: with every state field outside the seat key
    (hands, cards, counts, holders, phase, ...) scrambled, player count kept, the per-seat
    columns but the VP ones are the same."""
    rng = np.random.default_rng(4)
    outside = np.ones(L.STATE_SIZE, bool)
    outside[F.SEAT_KEY_FROM:F.SEAT_KEY_TO] = False
    outside[L.OPT_PLAYERS] = False
    vp = np.zeros(F.N_FEATURES, bool)
    for k in range(L.MAX_PLAYERS):
        vp[F.F_SEATS + k * F.SEAT_WIDTH + F.C_VP] = vp[F.F_SEATS + k * F.SEAT_WIDTH + F.C_VP_LEFT] = True
    nonempty = 0
    for players in (2, 4):
        for s in random_states(10, seed=30 + players, players=players, p_keep=0.02):
            scrambled = s.copy()
            scrambled[outside] = rng.integers(0, 4, int(outside.sum()))
            for observer in range(players):
                a, b = np.zeros(F.N_FEATURES, np.float32), np.zeros(F.N_FEATURES, np.float32)
                scratch = F.new_feature_scratch()
                F._seat_columns(s, observer, a, scratch.pips, scratch.reach)
                F._seat_columns(scrambled, observer, b, scratch.pips, scratch.reach)
                assert np.array_equal(a[~vp], b[~vp])
                nonempty += bool(a[~vp].any())
    assert nonempty > 30


def test_feature_table_names_every_slot():
    table = F.feature_table()
    for name, _, _, _ in F.FEATURE_FIELDS + F.SEAT_COLS:
        assert f"`{name}`" in table
    assert sum(f[2] for f in F.FEATURE_FIELDS) == F.N_FEATURES


# ---- the network

def _grouped_dense(w, b, x):
    """x @ w + b summed as ``mlp.dense_layer`` documents it, in float32: the nonzero inputs
    in order, eight rows at a time as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)),
    the last fewer than eight one at a time."""
    out = b.copy()
    nonzero = [i for i in range(len(x)) if x[i] != 0.0]
    k = 0
    while k + 8 <= len(nonzero):
        r = [x[i] * w[i] for i in nonzero[k:k + 8]]
        out = out + (((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])))
        k += 8
    for i in nonzero[k:]:
        out = out + x[i] * w[i]
    return out


@pytest.mark.parametrize("n_out", [4, 37, 128])
def test_dense_layer_sums_in_its_documented_order_to_the_bit(n_out):
    """``dense_layer`` gives the bits of its documented order of sums (0, 7, 8, 9, 17 and
    all-but-one nonzero inputs; -0.0 skipped like 0.0, NaN carried)."""
    from catan_env.learned.mlp import dense_layer
    rng = np.random.default_rng(n_out)
    n_in = 40
    w = rng.standard_normal((n_in, n_out)).astype(np.float32)
    b = rng.standard_normal(n_out).astype(np.float32)
    params = np.concatenate([w.ravel(), b])
    for nonzeros in (0, 7, 8, 9, 17, n_in - 1):
        x = np.zeros(n_in, np.float32)
        x[np.sort(rng.choice(n_in, nonzeros, replace=False))] = rng.standard_normal(nonzeros).astype(np.float32)
        for special in (None, np.float32(-0.0), np.float32(np.nan)):
            if special is not None:
                x = x.copy()
                x[rng.integers(n_in)] = special
            h = np.full(n_out + 3, 7.0, np.float32)
            dense_layer(params, 0, n_in, n_out, x, h, np.full(n_in + 2, -5, np.int64))  # (scratch left dirty)
            expected = _grouped_dense(w, b, x)
            np.testing.assert_array_equal(h[:n_out].view(np.int32)[~np.isnan(expected)],
                                          expected.view(np.int32)[~np.isnan(expected)])
            assert np.array_equal(np.isnan(h[:n_out]), np.isnan(expected)) and (h[n_out:] == 7.0).all()


def test_a_strength_result_names_the_network_that_played(tmp_path):
    """benchmarks/value_strength.py writes each value agent's network digest into its game's
    line: the same weights by another file give the same digest, other weights another."""
    from helpers import load_benchmark
    shipped = make_agent("pretrained:search=0").network
    copy = str(tmp_path / "copy.npz")
    shipped.save(copy)
    assert ValueNetwork.load(copy).digest() == shipped.digest()
    w = shipped.weights.layers
    other = ValueNetwork(MLPWeights([(w[0][0] * 2, w[0][1], w[0][2])] + list(w[1:])))
    assert other.digest() != shipped.digest()
    bench = load_benchmark("value_strength")
    row = bench.play(f"value:path={copy}:search=0", "random", 0, 1)
    assert row["network"] == shipped.digest() and row["spec"].startswith("value:path=")
    assert bench.play("random", "random", 0, 1)["network"] is None


def test_strength_games_under_the_pioneers_rules_are_played_and_kept_apart(tmp_path, monkeypatch, capsys):
    """value_strength.py --rules pioneers plays its games with core.options.PIONEERS_RULES,
    says so in each line and in the report, and resumes only its own rule set's games: the
    official rules' games of the same seed in the same file are neither counted as done nor
    reported with them."""
    from helpers import load_benchmark
    from catan_env.core.options import PIONEERS_RULES
    bench = load_benchmark("value_strength")
    played = []
    real = bench.play_game

    def spy(agents, seed, **kw):
        played.append(kw.get("options"))
        return real(agents, seed, **kw)

    monkeypatch.setattr(bench, "play_game", spy)
    out = str(tmp_path / "games.jsonl")
    common = ["--specs", "random", "--opponent", "random", "--games", "2", "--seed", "5", "--out", out]
    assert bench.main(common) == 0
    assert played == [{}, {}]
    assert bench.main(common + ["--rules", "pioneers"]) == 0
    assert played[2:] == [PIONEERS_RULES, PIONEERS_RULES]  # not taken as done by the official games
    rows = [json.loads(line) for line in open(out)]
    assert [r["rules"] for r in rows] == ["official", "official", "pioneers", "pioneers"]
    assert bench.main(common + ["--rules", "pioneers"]) == 0 and len(played) == 4  # resumed: nothing left
    report = capsys.readouterr().out.splitlines()[-2:]
    assert report[0].split()[2] == "official" and report[1].split()[2] == "pioneers"
    assert all(re.search(r"\s(\d+)\s+\d+\s+[0-9.]+ \[", line).group(1) == "2" for line in report)  # not 4 together
    with pytest.raises(SystemExit):
        bench.main(common + ["--rules", "house"])


def test_shipping_a_network_copies_it_and_refuses_what_is_not_one(tmp_path):
    """agents.value.train.ship (value_exit's and value_retrain's --ship): the file becomes the
    weights; a network without held-out calibration, or a file that is no value network,
    is refused before anything is replaced."""
    from catan_env.agents.value.train import ship
    rng = np.random.default_rng(1)
    net = ValueNetwork(MLPWeights([(rng.standard_normal((F.N_FEATURES, 8)) * 0.1, np.zeros(8), "relu"),
                                   (rng.standard_normal((8, 4)) * 0.1, np.zeros(4), "identity")]))
    src, dest, plot = str(tmp_path / "net.npz"), str(tmp_path / "pkg" / "pretrained.npz"), str(tmp_path / "cal.png")
    net.save(src)
    heldout = {"games": 3, "calibration": [[0.1, 0.12, 50], [0.5, 0.4, 20]]}
    ship(src, heldout, "a test", plot, weights_path=dest)
    assert open(dest, "rb").read() == open(src, "rb").read()
    with pytest.raises(ValueError, match="calibration"):
        ship(src, {"games": 3}, "a test", plot, weights_path=str(tmp_path / "other.npz"))
    np.savez(str(tmp_path / "junk.npz"), a=np.zeros(3))
    with pytest.raises(ValueError):
        ship(str(tmp_path / "junk.npz"), heldout, "a test", plot, weights_path=dest)
    assert open(dest, "rb").read() == open(src, "rb").read()  # left as it was
    assert not os.path.exists(tmp_path / "other.npz")


@pytest.mark.parametrize("aux", [False, True])
def test_forward_pass_equals_torch(aux):
    """The exported network is the torch model's win logits (with an auxiliary final-VP
    head, its rows are dropped)."""
    torch = pytest.importorskip("torch")
    from catan_env.agents.value.train import export, make_model
    torch.manual_seed(0)
    model = make_model((64, 32), aux=aux)
    assert model[-1].out_features == (8 if aux else 4)
    net = export(model, {})
    states = random_states(30, seed=5, players=3)
    x = np.array([features(s, int(G.decider(s))) for s in states], np.float32)
    players = np.full(len(x), 3)
    with torch.no_grad():
        logits = model(torch.from_numpy(x))[:, :3]
        expected = torch.softmax(logits, dim=1).numpy()
    got = net.predict(x, players)
    np.testing.assert_allclose(got[:, :3], expected, atol=1e-5)
    assert not got[:, 3].any()
    for s, row in zip(states, got):  # the state-level call rotates relative seats to absolute ones
        seat = int(G.decider(s))
        absolute = net.win_probs(s, seat)
        np.testing.assert_allclose([absolute[(seat + k) % 3] for k in range(3)], row[:3], atol=1e-6)


def test_a_one_layer_value_opponent_decides_as_the_agent():
    """The batched env's value opponent sizes its scratch as the network does: a one-layer
    net copies its input (N_FEATURES floats) into h1, wider than its 4 outputs."""
    from catan_env.learned import greedy as GR
    rng = np.random.default_rng(0)
    w = MLPWeights([(rng.standard_normal((F.N_FEATURES, 4)) * 0.1, np.zeros(4), "identity")])
    net, opp = ValueNetwork(w), GR.ValueOpponent(w, GR.options())
    assert opp.evaluator.h1.shape[0] == net.evaluator().h1.shape[0] == F.N_FEATURES
    states = np.stack(random_states(40, seed=4))
    seeds = rng.integers(2 ** 62, size=(len(states), 2))
    memories = np.stack([GR.new_memory() for _ in states])
    actions, values = np.empty(len(states), np.int64), np.empty(len(states))
    opp.decide(states, np.arange(len(states)), seeds, memories, 0, actions, values)
    for k, s in enumerate(states):
        legal = G.legal_actions(s).astype(np.int64)
        a, _, _ = GR.greedy_decision(net.evaluator(), s.copy(), G.decider(s), legal, len(legal), seeds[k],
                                     GR.new_memory(), GR.options())
        assert a == actions[k]


@pytest.mark.parametrize("hidden", [(), (16,), (24, 12)])
def test_leaves_valued_from_the_roots_first_layer_equal_a_full_forward_pass(hidden):
    """A leaf's first layer is its root's sums plus the rows of the features that changed
    (``value.set_base``): the same chances as the whole forward pass (``win_probs``), and
    the same bits whatever was valued before (a value depends on the leaf and the root
    only, so the agent and the batched env agree)."""
    from catan_env.learned import value as V
    net = small_network(seed=3, hidden=hidden)
    changed = 0
    elsewhere = random_states(1, seed=9)[0]
    for s in random_states(40, seed=8):
        root = int(G.decider(s))
        leaves = []
        for a in G.legal_actions(s)[:6]:
            leaf = s.copy()
            G.step(leaf, int(a))
            leaves.append(leaf)
        ev = net.evaluator()
        V.set_base(ev, s, root)
        firsts = []
        for leaf in leaves:
            if leaf[L.PHASE] == L.PH_GAME_OVER:
                continue
            got = V.leaf_value(ev, leaf, root)
            assert got == pytest.approx(net.win_probs(leaf, root)[root], abs=1e-6)
            firsts.append(got)
            changed += int(np.count_nonzero(features(leaf, root) != features(s, root)))
        again = net.evaluator()
        other = (root + 1) % 4  # another observer's leaf first: a whole forward pass in the evaluator's buffers
        if leaves[-1][L.PHASE] != L.PH_GAME_OVER:
            assert V.leaf_value(again, leaves[-1], other) == net.win_probs(leaves[-1], other)[other]  # the same bits
        V.set_base(again, elsewhere, root)  # another game's root, then this root twice (the second returns early)
        V.set_base(again, s, root)
        V.set_base(again, s, root)
        kept = [V.leaf_value(again, leaf, root) for leaf in reversed(leaves) if leaf[L.PHASE] != L.PH_GAME_OVER]
        assert kept[::-1] == firsts
    assert changed > 0  # the leaves did differ from their roots


def test_the_first_layer_from_the_roots_sums_adds_the_changed_rows_in_order():
    """``_first_layer_from_base`` lists the changed features and adds their rows eight to a
    pass: the same bits as adding them one row at a time in index order (numpy float32,
    one addition per row), before the activation; leaves of 8 or more changed features
    (the grouped path) and fewer both occur."""
    from catan_env.learned import value as V
    net = small_network(seed=4, hidden=(24, 12))
    params, layers = net.params, net.layers
    n_in, n_out, off = (int(v) for v in (layers[0, 0], layers[0, 1], layers[0, 3]))
    w = params[off:off + n_in * n_out].reshape(n_in, n_out)
    sizes = set()
    for s in random_states(60, seed=12):
        root = int(G.decider(s))
        ev = net.evaluator()
        V.set_base(ev, s, root)
        for a in G.legal_actions(s)[:8]:
            leaf = s.copy()
            G.step(leaf, int(a))
            x = features(leaf, root)
            ev.x[:] = x
            V._first_layer_from_base(ev)
            h = ev.base_z.copy()
            changed = np.flatnonzero(x != ev.base_x)
            for i in changed:
                h = h + (x[i] - ev.base_x[i]) * w[i]
            np.testing.assert_array_equal(ev.h1[:n_out].view(np.int32), np.maximum(h, np.float32(0)).view(np.int32))
            sizes.add(min(len(changed) // 8, 2))
    assert sizes == {0, 1, 2}


def _reference_trade_gains(net, s, root, ids, per_partner=False):
    """The trade valuations (``learned.trading``) spelled out: every position built from a
    fresh copy by the rules' own calls, valued by a whole forward pass (1 or 0 once the
    game is over).  A partner's sampled hand is topped up to what its answer shows, and
    the proposer's to what its offer shows."""
    from catan_env.core import rules as R

    def value(t):
        if t[L.PHASE] == L.PH_GAME_OVER:
            return 1.0 if t[L.WINNER] == root else 0.0
        return float(net.win_probs(t, root)[root])

    def lapsed(t):
        t = t.copy()
        R.close_trade(t)
        return t

    def confirmed(t, proposer, partner):
        t = t.copy()
        resp = int(t[L.TRADE_RESP + partner])
        if resp == L.RESP_ACCEPT:
            res, need, pay, owe = t[L.TRADE_GET_RES], t[L.TRADE_GET_N], t[L.TRADE_GIVE_RES], t[L.TRADE_GIVE_N]
        else:
            m = resp - L.RESP_COUNTER
            res, need, pay, owe = A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m], A.MENU_GET_RES[m], A.MENU_GET_N[m]
        t[L.hand_i(partner, res)] = max(t[L.hand_i(partner, res)], need)
        t[L.hand_i(proposer, pay)] = max(t[L.hand_i(proposer, pay)], owe)
        R.confirm_trade(t, proposer, A.confirm_action((partner - proposer) % int(t[L.OPT_PLAYERS])))
        return t

    n, phase, out = int(s[L.OPT_PLAYERS]), int(s[L.PHASE]), []
    if phase == L.PH_TRADE_RESPONSE:
        base, proposer = value(lapsed(s)), int(s[L.TURN_PLAYER])
        for a in ids:
            t = s.copy()
            if a == A.TRADE_ACCEPT:
                t[L.TRADE_RESP + root] = L.RESP_ACCEPT
            else:
                m = a - A.COUNTER0
                if s[L.hand_i(proposer, A.MENU_GET_RES[m])] < A.MENU_GET_N[m]:
                    out.append(-1.0)
                    continue
                t[L.TRADE_RESP + root] = L.RESP_COUNTER + m
            out.append(value(confirmed(t, proposer, root)) - base)
    elif phase == L.PH_TRADE_CONFIRM:
        base = value(lapsed(s))
        out = [value(confirmed(s, root, A.confirm_partner(a, root, n))) - base for a in ids]
    else:
        for a in ids:
            made = s.copy()
            R.apply_action(made, int(a), R.FROM_RNG)
            base = value(lapsed(made))
            after = {}
            for k in range(1, n):
                q = (root + k) % n
                if s[L.hand_i(q, made[L.TRADE_GET_RES])] < made[L.TRADE_GET_N]:
                    continue
                t = made.copy()
                for p in range(n):
                    if p != root:
                        t[L.TRADE_RESP + p] = L.RESP_ACCEPT if p == q else L.RESP_REJECT
                after[k] = value(confirmed(t, root, q))
            if per_partner:  # (partner k of 3: (root + k) % n, -1 where it cannot pay or sits out)
                out.append([after[k] - base if k in after else -1.0 for k in range(1, 4)])
            else:
                out.append(np.mean(list(after.values())) - base if after else -1.0)
    return np.array(out)


def _short_of_the_trade(s):
    """s with the other side of the open trade holding none of what it showed (a
    determinization's sampled hands may lack what an offer or an answer revealed): the
    proposer's offered cards when s asks for an answer, each answering partner's cards
    when the proposer confirms."""
    t = s.copy()
    if t[L.PHASE] == L.PH_TRADE_RESPONSE:
        t[L.hand_i(int(t[L.TURN_PLAYER]), t[L.TRADE_GIVE_RES])] = 0
    else:
        for p in range(int(t[L.OPT_PLAYERS])):
            resp = int(t[L.TRADE_RESP + p])
            if resp == L.RESP_ACCEPT:
                t[L.hand_i(p, t[L.TRADE_GET_RES])] = 0
            elif resp >= L.RESP_COUNTER:
                t[L.hand_i(p, A.MENU_GIVE_RES[resp - L.RESP_COUNTER])] = 0
    return t


def test_trade_valuations_equal_positions_built_afresh():
    """The offer, answer and confirmation gains build their positions in the evaluator's
    scratch rows: with one evaluator reused across every decision (scratch left over from
    the one before), each gain equals the reference's, built from fresh copies, on the
    true states, on the root's determinizations, and on views whose other side lacks the
    cards it showed (where the valuation tops its hand up); every kind of trade decision
    is checked many times."""
    from catan_env.learned.greedy import IS_ANSWER, IS_CONFIRM, IS_OFFER
    from catan_env.learned.trading import answer_gains, confirm_gains, offer_gains
    net = small_network(seed=5, hidden=(24, 12))
    ev = net.evaluator()
    kinds = {L.PH_TRADE_RESPONSE: (IS_ANSWER, answer_gains), L.PH_TRADE_CONFIRM: (IS_CONFIRM, confirm_gains),
             L.PH_MAIN: (IS_OFFER, offer_gains)}
    checked = {phase: 0 for phase in kinds}
    short = 0
    for k, true in enumerate(random_states(400, seed=31, p_keep=0.3)):
        phase, root = int(true[L.PHASE]), int(G.decider(true))
        if phase not in kinds:
            continue
        table, gains = kinds[phase]
        ids = np.array([a for a in G.legal_actions(true) if table[a]], np.int64)
        if not len(ids):
            continue
        views = [true, G.determinize(true, root, k)]
        if phase != L.PH_MAIN:
            views.append(_short_of_the_trade(true))
        for s in views:
            got = np.full(len(ids), np.nan)
            gains(ev, s, root, ids, got)
            np.testing.assert_allclose(got, _reference_trade_gains(net, s, root, ids), atol=1e-6)
        checked[phase] += 1
        short += phase != L.PH_MAIN and not np.array_equal(views[-1], true)
    assert min(checked.values()) >= 10 and short >= 100, (checked, short)


def test_each_partners_offer_gain_equals_the_reference():
    """offer_partner_gains (what an offer is worth if each partner takes it, for the
    acceptance-weighted offers) equals the reference built from fresh copies, per partner,
    on true states and determinizations, with 2, 3 and 4 players; offer_gains is the mean
    of its partners that can pay."""
    from catan_env.learned.greedy import IS_OFFER
    from catan_env.learned.trading import offer_gains, offer_partner_gains
    net = small_network(seed=6, hidden=(16, 8))
    ev = net.evaluator()
    checked = 0
    for players in (2, 3, 4):
        for k, true in enumerate(random_states(150, seed=40 + players, players=players, p_keep=0.3)):
            if int(true[L.PHASE]) != L.PH_MAIN:
                continue
            root = int(G.decider(true))
            ids = np.array([a for a in G.legal_actions(true) if IS_OFFER[a]], np.int64)
            if not len(ids):
                continue
            for s in (true, G.determinize(true, root, k)):
                got = np.full((len(ids), 3), np.nan)
                offer_partner_gains(ev, s, root, ids, got)
                np.testing.assert_allclose(got, _reference_trade_gains(net, s, root, ids, per_partner=True), atol=1e-6)
                mean = np.empty(len(ids))
                offer_gains(ev, s, root, ids, mean)
                can = got > -1.0
                want = np.where(can.any(1), np.where(can, got, 0).sum(1) / np.maximum(can.sum(1), 1), -1.0)
                np.testing.assert_allclose(mean, want, atol=1e-6)
            checked += 1
    assert checked >= 20, checked


def test_weight_files_round_trip_and_refuse_bad_input(tmp_path):
    net = small_network()
    path = net.save(str(tmp_path / "n.npz"))
    back = ValueNetwork.load(path)
    s = random_states(1, seed=2)[0]
    np.testing.assert_array_equal(back.win_probs(s, 1), net.win_probs(s, 1))
    with pytest.raises(ValueError, match="no value network file"):
        ValueNetwork.load(str(tmp_path / "missing.npz"))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a value network file"):
        ValueNetwork.load(str(tmp_path / "junk.npz"))
    with np.load(path) as z:
        arrays = dict(z)
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps(dict(meta, features="0123456789abcdef")))
    np.savez(tmp_path / "other.npz", **arrays)
    with pytest.raises(ValueError, match="another feature layout"):
        ValueNetwork.load(str(tmp_path / "other.npz"))
    with pytest.raises(ValueError, match="features to"):
        ValueNetwork(MLPWeights([(np.zeros((3, 4)), np.zeros(4), "identity")]))
    with pytest.raises(ValueError, match="search must be"):
        make_agent(f"value:path={path}:search=5")
    with pytest.raises(ValueError, match="pretrained uses the shipped network"):
        make_agent(f"pretrained:path={path}")
    with pytest.raises(ValueError, match="no value network file"):
        make_agent("value:path=/nonexistent/n.npz")


# ---- the search

def _reference_q(net, s, a, root, depth, beam):
    """Expected value of a, searched the slow way (the public step API with forced outcomes)."""
    outcomes = []
    if a == A.ROLL:
        outcomes = [(t, DICE_WAYS[t] / 36) for t in range(2, 13)]
    elif a == A.BUY_DEV:
        deck = L.view(s, "deck")
        outcomes = [(t, deck[t] / deck.sum()) for t in range(5) if deck[t]]
    elif A.is_robber(a) and A.robber_victim(a):
        victim = A.robber_victim_seat(a, G.decider(s), G.n_players(s))
        hand = L.view(s, "hand")[victim]
        outcomes = [(r, hand[r] / hand.sum()) for r in range(5) if hand[r]]
    total = 0.0
    for outcome, p in outcomes or [(None, 1.0)]:
        c = G.step(s.copy(), a, outcome)
        total += p * _reference_v(net, c, root, depth - 1, beam)
    return total


def _reference_v(net, s, root, depth, beam):
    if G.is_over(s):
        return float(G.winner(s) == root)
    if depth == 0 or G.decider(s) != root:
        return float(net.win_probs(s, root)[root])
    moves = [int(a) for a in G.legal_actions(s) if SEARCHABLE[a]]
    if not moves:
        return float(net.win_probs(s, root)[root])
    if depth == 1:
        return max(_reference_q(net, s, a, root, 1, beam) for a in moves)
    first = sorted(moves, key=lambda a: -_reference_q(net, s, a, root, 1, beam))[:beam]
    return max(_reference_q(net, s, a, root, depth, beam) for a in first)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_expectimax_matches_a_slow_reference(depth):
    net = small_network(seed=depth)
    states = [s for s in random_states(60, seed=10 + depth, p_keep=0.08)]
    checked = 0
    for s in states:
        root = int(G.decider(s))
        moves = np.array([a for a in G.legal_actions(s) if SEARCHABLE[a]], np.int64)
        if len(moves) < 2 or (depth == 3 and len(moves) > 12):
            continue
        beam = 3
        q = np.empty(len(moves))
        search_values(net.evaluator(), s, root, moves, depth, beam, q)
        one = [_reference_q(net, s, int(a), root, 1, beam) for a in moves]
        order = np.argsort(-np.array(one), kind="stable")
        tol = 1e-6  # the search's leaves add the changed features to the root's first layer (float32)
        for j, i in enumerate(order):
            if depth == 1:
                assert q[i] == pytest.approx(one[i], abs=tol)
            elif j < beam:
                assert q[i] == pytest.approx(_reference_q(net, s, int(moves[i]), root, depth, beam), abs=tol)
            else:
                assert q[i] == pytest.approx(one[i] - 1.0, abs=tol)
        checked += 1
        if checked >= (12 if depth < 3 else 4):
            break
    assert checked >= 3


# ---- data

def test_positions_round_trip_and_resume(tmp_path):
    folder = str(tmp_path / "d")
    players = ["weighted", "random", "weighted"]
    m1 = generate(folder, players, 2, seed=3, shard_games=1, sample=0.5, max_turns=40)
    assert [s["games"] for s in m1["shards"]] == [1, 1]
    rows = load_positions(folder)
    assert len(rows["x"]) == sum(s["positions"] for s in m1["shards"])
    np.testing.assert_allclose(rows["outcome"].sum(axis=1), 1.0, atol=1e-6)
    # each row's features are its seat's view of the stored state
    again, stats = record_game([players[i] for i in np.random.default_rng(3).permutation(3)], 0, 0.5, 40)
    assert again["state"].dtype == np.int32 and (again["state"][:, L.RNG] == 0).all()
    first = again["state"][0].astype(np.int64)
    np.testing.assert_array_equal(features(first, 1), features(first, 1))
    mtime = os.path.getmtime(os.path.join(folder, "shard-000000.npz"))
    m2 = generate(folder, players, 3, seed=3, shard_games=1, sample=0.5, max_turns=40)
    assert len(m2["shards"]) == 3 and os.path.getmtime(os.path.join(folder, "shard-000000.npz")) == mtime
    more = load_positions(folder)
    assert len(more["x"]) > len(rows["x"]) and more["game"].max() == 2
    with pytest.raises(ValueError, match="other settings"):
        generate(folder, players, 3, seed=4, shard_games=1, sample=0.5, max_turns=40)
    with pytest.raises(ValueError, match="not a positions folder"):
        load_positions(str(tmp_path))


def test_position_rows_are_each_seats_view(tmp_path):
    folder = str(tmp_path / "d")
    manifest = generate(folder, ["weighted"] * 4, 1, seed=1, sample=0.3, max_turns=30)
    rows = load_positions(folder, dtype=np.float32)
    from catan_env.agents.training.shards import load_shard
    from catan_env.agents.value.positions import KEYS
    raw = load_shard(os.path.join(folder, manifest["shards"][0]["file"]), KEYS)
    k = 0
    for state, winner in zip(raw["state"], raw["winner"]):
        s = state.astype(np.int64)
        for seat in range(4):
            np.testing.assert_array_equal(rows["x"][k], features(s, seat))
            if winner >= 0:
                assert rows["outcome"][k, (winner - seat) % 4] == 1
            k += 1
    assert k == len(rows["x"])
    # the in-process path (one worker, the default) keeps no shard's states alive: each
    # column a shard gives owns its memory (a view of the shard's per-row states kept
    # every row's whole state, seven times the rows' own size over a real data set)
    from catan_env.agents.value.positions import shard_positions
    part = shard_positions((os.path.join(folder, manifest["shards"][0]["file"]), 0, np.dtype(np.float16).str))
    assert {name for name, column in part.items() if column.base is not None} == set()
    np.testing.assert_array_equal(part["turn"], rows["turn"])
    assert part["public_vp"].shape == (len(rows["x"]), 4)
    # final_vp: every seat's points at the end, relative to the row's seat
    seat_of = np.tile(np.arange(4), len(raw["state"]))
    expected = np.stack([np.roll(vp, -seat) for vp, seat in zip(np.repeat(raw["final_vp"], 4, axis=0), seat_of)])
    np.testing.assert_array_equal(rows["final_vp"], expected)
    assert rows["final_vp"].max() > 0


def test_the_final_vp_head_trains_and_leaves_the_played_network_its_shape(tmp_path):
    """vp_weight adds a head predicting each seat's final VP while training: it changes
    what the shared layers learn, not the exported network's shape; initial weights load
    into the larger head."""
    pytest.importorskip("torch")
    from catan_env.agents.value.train import _load_into, export, make_model, train
    folder = str(tmp_path / "d")
    manifest = generate(folder, ["weighted"] * 3, 4, seed=2, sample=0.5, max_turns=60)
    rows = load_positions(folder, dtype=np.float32)
    # three players: each row's final VP wraps around the three seats from its own, the fourth slot 0
    from catan_env.agents.training.shards import load_shard
    from catan_env.agents.value.positions import KEYS
    finals = np.concatenate([load_shard(os.path.join(folder, sh["file"]), KEYS)["final_vp"]
                             for sh in manifest["shards"]])
    expected = [[f[(seat + j) % 3] if j < 3 else 0 for j in range(4)] for f in finals for seat in range(3)]
    np.testing.assert_array_equal(rows["final_vp"], expected)
    plain = train(rows, hidden=(8,), epochs=1, holdout=0, seed=0)["network"]
    aux = train(rows, hidden=(8,), epochs=1, holdout=0, seed=0, vp_weight=1.0)["network"]
    assert [w.shape for w, _, _ in aux.weights.layers] == [w.shape for w, _, _ in plain.weights.layers]
    assert aux.meta["vp_weight"] == 1.0 and plain.meta["vp_weight"] == 0.0
    # the same head and start, the VP loss all but off: the shared layers learn only from it
    faint = train(rows, hidden=(8,), epochs=1, holdout=0, seed=0, vp_weight=1e-30)["network"]
    assert not np.allclose(aux.weights.layers[0][0], faint.weights.layers[0][0], atol=1e-4)
    with pytest.raises(ValueError, match="final_vp"):
        train({k: v for k, v in rows.items() if k != "final_vp"}, hidden=(8,), epochs=1, holdout=0, vp_weight=1.0)
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="vp_weight"):
            train(rows, hidden=(8,), epochs=1, holdout=0, vp_weight=bad)
    model = make_model((8,), aux=True)
    _load_into(model, plain)  # the win rows start from the network, the VP rows keep theirs
    for (a, _, _), (b, _, _) in zip(export(model, {}).weights.layers, plain.weights.layers):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="does not fit"):
        _load_into(make_model((16,), aux=True), plain)


# ---- the shipped network

needs_weights = pytest.mark.skipif(not os.path.exists(PRETRAINED), reason="no shipped weights in this checkout")


def test_weights_too_small_to_matter_are_stored_as_zero():
    """Subnormal floats make every product with them slow on some x86 hosts (FLUSH_BELOW in
    learned.mlp): no weight of a built or loaded network is below it, and zeroing them moves
    the outputs by float32 rounding only."""
    from catan_env.learned.mlp import FLUSH_BELOW, pack
    rng = np.random.default_rng(5)
    w0, w1 = rng.normal(size=(30, 16)).astype(np.float32), rng.normal(size=(16, 4)).astype(np.float32)
    b0 = rng.normal(size=16).astype(np.float32)
    w0[rng.random(w0.shape) < 0.3] = np.float32(3e-39)  # subnormal, as weight decay leaves them
    w1[0, :2], b0[:3] = np.float32(-1e-40), np.float32(1e-33)
    net = MLPWeights([(w0, b0, "relu"), (w1, np.zeros(4, np.float32), "identity")])
    for w, b, _ in net.layers:
        for a in (w, b):
            assert not ((a != 0) & (np.abs(a) < FLUSH_BELOW)).any() and a.dtype == np.float32
    params, _, _ = pack([net])
    assert not ((params != 0) & (np.abs(params) < FLUSH_BELOW)).any()
    x = rng.normal(size=(50, 30))
    raw = np.maximum(x @ w0.astype(np.float64) + b0, 0) @ w1.astype(np.float64)  # the unflushed weights
    np.testing.assert_allclose(net.numpy_forward(x), raw, rtol=0, atol=1e-12)
    assert (w0 == np.float32(3e-39)).sum() > 0 and (b0[:3] == np.float32(1e-33)).all()  # the caller's arrays stay
    if os.path.exists(PRETRAINED):
        params = ValueNetwork.load(PRETRAINED).params
        assert not ((params != 0) & (np.abs(params) < FLUSH_BELOW)).any()


@needs_weights
def test_shipped_weights_load_without_torch():
    code = f"""
import sys
sys.modules["torch"] = None   # importing torch now fails
import catan_env
from catan_env import InfoSet
from catan_env.agents import make_agent
from catan_env.learned.network import ValueNetwork, PRETRAINED
from catan_env.core import game as G
net = ValueNetwork.load(PRETRAINED)
assert net.meta["features"] == {feature_digest()!r}
s = G.new_game(seed=2)
p = net.win_probs(s, 0)
assert abs(p.sum() - 1) < 1e-5, p
agent = make_agent("pretrained", seed=0)
a = agent.act({{"action_mask": G.legal_mask(s)}}, InfoSet(s, G.decider(s), 1))
assert G.legal_mask(s)[a]
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ok")


@needs_weights
@pytest.mark.skipif(not os.path.exists(PRETRAINED_POLICY), reason="no shipped policy in this checkout")
def test_shipped_agents_play_legal_games_in_every_env():
    from catan_env.agents.arena import play_game
    from catan_env.batched.env import BatchedCatan
    from catan_env.gym_env import CatanGymEnv
    r = play_game(["pretrained", "jsettlers", "pretrained:search=0", "weighted"], 3, max_turns=300)
    assert sum(r["fallbacks"]) == 0 and r["steps"] > 100
    # (the anytime search on a smaller budget than the default's here: the same code, a third of the time)
    env = CatanGymEnv(opponents=[make_agent(spec, seed=i) for i, spec in
                                 enumerate(["pretrained:leaves=500", "pretrained:search=1", "pretrained_policy"])])
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        done = term or trunc
    assert info["illegal_actions"] == 0
    venv = BatchedCatan(2, opponents="pretrained:search=0", seed=0, max_turns=60)
    venv.reset()
    for _ in range(2000):
        _, _, terminated, truncated, _ = venv.step(venv.sample_actions())
        if (terminated | truncated).any():
            break
    assert (terminated | truncated).any()
    assert not venv.opponent_fallbacks, venv.opponent_fallbacks


# ---- expert iteration, end to end

def test_tiny_expert_iteration_round(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "exit"
    cmd = [sys.executable, os.path.join(ROOT, "examples", "value_exit.py"), "--rounds", "1", "--robot-games", "3",
           "--games", "2", "--eval-games", "2", "--epochs", "1", "--hidden", "8", "--workers", "1",
           "--lineup", "agent,jsettlers,jsettlers", "--out", str(out)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    rounds = json.loads((out / "rounds.json").read_text())["rounds"]
    assert [r["round"] for r in rounds] == [0, 1]
    for r in rounds:
        assert r["eval"]["games"] == 2 and 0 <= r["eval"]["win_rate"] <= 1
        assert (out / f"round-{r['round']}.npz").exists()
    # round 1's positions were played by the round-0 agent, which recorded its estimates
    rows = load_positions(str(out / "data-1"))
    assert (~np.isnan(rows["value"][:, 0])).any()
    # a rerun finds every stage done and replays nothing
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0 and again.stdout.count("round ") == 2
    assert json.loads((out / "data-1" / "manifest.json").read_text())["settings"]["players"][0] == \
        f"value:path={out / 'round-0.npz'}:search=1:determinizations=2"
    # --start-from: round 1's games are played by another network's agent (a copy of round 0's here)
    other, start = tmp_path / "from", tmp_path / "start.npz"
    start.write_bytes((out / "round-0.npz").read_bytes())
    run = subprocess.run([*cmd[:-1], str(other), "--start-from", str(start)], capture_output=True, text=True,
                         timeout=900, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    players = json.loads((other / "data-1" / "manifest.json").read_text())["settings"]["players"]
    assert players == [f"value:path={start}:search=1:determinizations=2", "jsettlers", "jsettlers"]
    bad = subprocess.run([*cmd[:-1], str(tmp_path / "bad"), "--start-from", str(tmp_path / "none.npz")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert bad.returncode == 2 and "--start-from" in bad.stderr and "none.npz" in bad.stderr
    bad = subprocess.run([*cmd[:-1], str(tmp_path / "bad"), "--vp-weight", "-1"], capture_output=True, text=True,
                         timeout=300, cwd=ROOT)
    assert bad.returncode == 2 and "--vp-weight" in bad.stderr
    # value_retrain: round 1 trained again on its own data; the run's own settings give its
    # network back, another value weight another one; bad variants and rounds are refused
    retrain = [sys.executable, os.path.join(ROOT, "examples", "value_retrain.py"), "--run", str(out), "--round", "1",
               "--workers", "1", "--out", str(tmp_path / "re")]
    run = subprocess.run([*retrain, "0.3:0", "1.0:0"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    retrained, own, heavier = (ValueNetwork.load(str(p)) for p in (
        tmp_path / "re" / "vw0.3-s0-e1.npz", out / "round-1.npz", tmp_path / "re" / "vw1.0-s0-e1.npz"))
    for (a, _, _), (b, _, _) in zip(retrained.weights.layers, own.weights.layers):
        np.testing.assert_allclose(a, b, atol=1e-6)
    assert not np.allclose(heavier.weights.layers[0][0], own.weights.layers[0][0], atol=1e-6)
    record = json.loads((tmp_path / "re" / "retrain.json").read_text())["networks"]
    assert sorted(record) == ["vw0.3-s0-e1.npz", "vw1.0-s0-e1.npz"] and record["vw1.0-s0-e1.npz"]["value_weight"] == 1.0
    again = subprocess.run([*retrain, "0.3:0"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0 and "exists: skipped" in again.stdout and "positions" not in again.stdout
    aux = subprocess.run([*retrain, "--vp-weight", "1", "0.3:0"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert aux.returncode == 0, aux.stderr[-3000:]  # (its own file: the plain variant's is not reused)
    assert ValueNetwork.load(str(tmp_path / "re" / "vw0.3-s0-e1-vp1.npz")).meta["vp_weight"] == 1.0
    assert json.loads((tmp_path / "re" / "retrain.json").read_text())["networks"]["vw0.3-s0-e1-vp1.npz"]["vp_weight"] == 1
    for extra, said in ((["0.3"], "VALUE_WEIGHT:SEED"), (["2:0"], "0-1"), (["--round", "2", "0.3:0"], "data-2"),
                        (["--vp-weight", "-1", "0.3:0"], "--vp-weight"),
                        (["--ship", "0.3:0", "1.0:0"], "exactly one variant"),
                        (["--run", str(other), "0.3:0"], "holds networks of"),  # another run's round, same folder
                        (["--run", str(tmp_path), "0.3:0"], "rounds.json")):
        bad = subprocess.run([*retrain, *extra], capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert bad.returncode == 2 and said in bad.stderr, bad.stderr


def test_an_ensemble_is_the_mean_of_its_members_logits(tmp_path):
    """examples/value_ensemble.py: one network whose win chances are the normalised
    geometric mean of its members' (the softmax of their mean logits), for members of
    other widths too, in 2-4 player games; one network alone, or members of other depths,
    are refused by name."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("value_ensemble", os.path.join(ROOT, "examples", "value_ensemble.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    members = [small_network(1, (16, 8)), small_network(2, (12, 8)), small_network(3, (16, 4))]
    paths = [str(m.save(str(tmp_path / f"m{i}.npz"))) for i, m in enumerate(members)]
    out = str(tmp_path / "ens.npz")
    assert module.main(["--out", out, *paths]) == 0
    ens = ValueNetwork.load(out)
    checked = 0
    for players in (2, 3, 4):
        for s in random_states(6, seed=players, p_keep=0.05, players=players):
            for observer in range(players):
                logs = np.mean([np.log(m.win_probs(s, observer)[:players]) for m in members], axis=0)
                want = np.exp(logs) / np.exp(logs).sum()
                np.testing.assert_allclose(ens.win_probs(s, observer)[:players], want, rtol=1e-5, atol=1e-6)
                checked += 1
    assert checked >= 30
    with pytest.raises(ValueError, match="at least two"):
        module.ensemble(members[:1])
    with pytest.raises(ValueError, match="differ in layers"):
        module.ensemble([members[0], small_network(4, (16,))])
    with pytest.raises(ValueError, match="need a hidden layer"):
        module.ensemble([small_network(5, ()), small_network(6, ())])
    assert ens.meta["ensemble_files"] == paths and [m["test"] for m in ens.meta["ensemble_of"]] == [True] * 3


def test_trade_plans_are_legal_and_pay_for_the_build():
    from catan_env.learned.value import MAX_PLAN, trade_plan
    from catan_env.core.rules import action_cost
    planned = 0
    for s in random_states(120, seed=21, p_keep=0.1):
        if s[L.PHASE] != L.PH_MAIN:
            continue
        p = int(G.decider(s))
        for a in (A.ROAD0, A.SETTLEMENT0, A.CITY0, A.BUY_DEV):
            cost = action_cost(a)
            plan = np.empty(MAX_PLAN, np.int64)
            k = trade_plan(s, p, cost, plan)
            hand = L.view(s, "hand")[p]
            if (hand >= cost).all():
                assert k == 0
                continue
            if k < 0:
                continue
            c = s.copy()
            for t in plan[:k]:
                G.step(c, int(t))  # raises if a planned trade is illegal
            assert (L.view(c, "hand")[p] >= cost).all()
            assert L.view(c, "hand")[p].sum() < hand.sum()
            planned += 1
    assert planned >= 5


def test_macro_moves_start_with_a_legal_trade():
    from catan_env.learned.value import macro_values
    net = small_network(seed=4)
    found = 0
    for s in random_states(150, seed=22, p_keep=0.1):
        if s[L.PHASE] != L.PH_MAIN:
            continue
        root = int(G.decider(s))
        first = np.empty(A.N_ACTIONS, np.int64)
        value = np.empty(A.N_ACTIONS)
        m = macro_values(net.evaluator(), s, root, first, value)
        legal = set(G.legal_actions(s).tolist())
        for i in range(m):
            assert first[i] in legal and A.MARITIME0 <= first[i] < A.OFFER0
            assert 0.0 <= value[i] <= 1.0
        found += m
    assert found > 0


def test_the_docs_page_holds_the_generated_feature_table():
    with open(os.path.join(ROOT, "docs", "value_network.md")) as f:
        assert F.feature_table() in f.read()


@pytest.mark.parametrize("limit", [7, 9])
def test_the_over_the_discard_limit_feature_reads_the_games_limit(limit):
    from catan_env.core import game as CG
    from catan_env.learned.features import F_OVER_SEVEN, N_FEATURES, encode_features
    from helpers import give, take_all
    s = CG.new_game(seed=4, discard_limit=limit)
    out = np.zeros(N_FEATURES, np.float32)
    for cards, over in ((limit, 0.0), (limit + 1, 1.0)):
        take_all(s, 0)
        give(s, 0, ore=cards)
        encode_features(s, 0, out)
        assert out[F_OVER_SEVEN] == over, (limit, cards)
