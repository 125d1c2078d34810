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
    # its meta describes this training; the starting network's is kept apart
    assert net.meta["init"]["rows"] == shipped.meta["rows"] and "shipped" not in net.meta
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
    shipped = load_network(None)
    for slots, error in (([372], "must lie in 0..371, got \\[372\\]"), ([], "give at least one slot"),
                         ([3.7], "must be integers"), ([3, 3], "named twice")):
        with pytest.raises(ValueError, match=error):
            train(rows, epochs=1, holdout=0, weight_decay=0.0, init=shipped, trainable_inputs=slots)
    with pytest.raises(ValueError, match="the final-VP head would start at random"):
        train(rows, epochs=1, holdout=0, weight_decay=0.0, init=shipped, trainable_inputs=[1], vp_weight=1.0)
    with pytest.raises(ValueError, match="pass weight_decay=0"):
        train(rows, epochs=1, holdout=0, init=shipped, trainable_inputs=[1])


def test_the_optimizer_moves_only_the_chosen_input_columns():
    """Straight through the shared loop, without the copy-back of ``with_input_rows``: the
    first layer's other columns, its bias and every later layer keep their exact values."""
    torch = pytest.importorskip("torch")
    from catan_env.agents.training.fit import fit, input_columns_optimizer
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    x, y = torch.randn(64, 6), torch.randn(64, 2)

    def loss_of(m, rows):
        return ((m(x[rows]) - y[rows]) ** 2).mean()
    fit(model, np.arange(64), loss_of, epochs=3, batch=16, optimizer=input_columns_optimizer(model, [1, 4], 0.05))
    after = model.state_dict()
    w, w0 = after["0.weight"], before["0.weight"]
    assert (w[:, [1, 4]] != w0[:, [1, 4]]).any()  # the chosen columns trained
    assert torch.equal(w[:, [0, 2, 3, 5]], w0[:, [0, 2, 3, 5]])
    for name in ("0.bias", "2.weight", "2.bias"):
        assert torch.equal(after[name], before[name]), name
