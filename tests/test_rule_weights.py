"""Training only some input slots' first-layer weights (``train(trainable_inputs=...)``,
``examples/value_rule_weights.py``): every other weight stays the starting network's bit
for bit, so positions where those slots are 0 are valued exactly as before."""

import numpy as np
import pytest

from catan_env.agents.value.positions import generate, load_positions
from catan_env.core import game as G
from catan_env.core.options import PIONEERS_RULES
from catan_env.learned.features import F_RULES, RULE_BITS

RULE_SLOTS = list(range(F_RULES, F_RULES + len(RULE_BITS)))


def _positions(options, seed, n=40):
    rng = np.random.default_rng(seed)
    s = G.new_game(dict(options), seed=seed)
    out = []
    while len(out) < n and not G.is_over(s):
        out.append(s.copy())
        G.step(s, int(rng.choice(G.legal_actions(s))))
    return out


def test_only_the_rule_bit_rows_train_and_official_values_keep_their_bits(tmp_path):
    pytest.importorskip("torch")
    from catan_env.agents.value.train import train
    from catan_env.learned.network import load_network
    folder = str(tmp_path / "d")
    generate(folder, ["weighted"] * 4, 3, seed=5, sample=0.5, max_turns=60, options=dict(PIONEERS_RULES))
    rows = load_positions(folder, dtype=np.float32)
    assert (rows["x"][:, RULE_SLOTS] == 1).all()  # every Pioneers position has the five bits on
    shipped = load_network(None)
    run = train(rows, epochs=2, lr=1e-2, weight_decay=0.0, holdout=0.3, init=shipped, trainable_inputs=RULE_SLOTS)
    net = run["network"]
    assert net.meta["trainable_inputs"] == RULE_SLOTS
    for k, ((w, b, act), (w0, b0, act0)) in enumerate(zip(net.weights.layers, shipped.weights.layers)):
        assert act == act0
        np.testing.assert_array_equal(b, b0)
        rest = np.ones(w.shape[0], bool)
        if k == 0:
            rest[RULE_SLOTS] = False
            assert np.abs(w[RULE_SLOTS] - w0[RULE_SLOTS]).max() > 1e-4  # the rows did train
        np.testing.assert_array_equal(w[rest], w0[rest])
    for s in _positions({}, 1):  # official rules: the rule bits are 0, the values the same bits
        for seat in range(G.n_players(s)):
            np.testing.assert_array_equal(net.win_probs(s, seat), shipped.win_probs(s, seat))
    moved = [np.abs(net.win_probs(s, 0) - shipped.win_probs(s, 0)).max() for s in _positions(PIONEERS_RULES, 2)]
    assert max(moved) > 1e-4  # under the Pioneers rules it values positions otherwise


def test_trainable_inputs_are_checked():
    pytest.importorskip("torch")
    from catan_env.agents.value.train import train
    from catan_env.learned.network import load_network
    rows = {"x": np.zeros((4, 372), np.float32), "outcome": np.full((4, 4), 0.25, np.float32),
            "value": np.full((4, 4), np.nan, np.float32), "players": np.full(4, 4), "game": np.arange(4)}
    with pytest.raises(ValueError, match="trainable_inputs needs init"):
        train(rows, epochs=1, holdout=0, trainable_inputs=[1])
    with pytest.raises(ValueError, match="trainable input slots must lie in 0..371"):
        train(rows, epochs=1, holdout=0, init=load_network(None), trainable_inputs=[372])
