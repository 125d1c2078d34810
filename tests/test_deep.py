"""Deep Catan: the numba forward passes equal torch's, shards round-trip, move features
against a slow reading of the board, one tiny expert-iteration run end to end, and the
network-guided agents see only what their seat may know."""
import importlib.util
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from catan_env.agents.arena import play_game  # noqa: E402
from catan_env.agents.deep import load_networks  # noqa: E402
from catan_env.agents.deep.data import KEYS, load_folder  # noqa: E402
from catan_env.agents.training.shards import load_shard, save_shard  # noqa: E402
from catan_env.agents.deep.features import F_CONTEXT, F_VERTEX, KIND_OF, N_FEATURES, move_features  # noqa: E402
from catan_env.agents.deep.forward import state_value, value_forward  # noqa: E402
from catan_env.agents.deep.nets import ValueNet, local_net, save_networks  # noqa: E402
from catan_env.agents.registry import make_agent  # noqa: E402
from catan_env.learned.mlp import from_torch, mlp_forward, pack  # noqa: E402
from catan_env.core import actions as A  # noqa: E402
from catan_env.core import game as G  # noqa: E402
from catan_env.core.layout import HEX_NUMBER, HEX_TERRAIN, MAX_PLAYERS, N_RES  # noqa: E402
from catan_env.core.observe import (BOARD_SIZE, GRID_H, GRID_W, P_VP, PLANES, TAIL_SIZE,  # noqa: E402
                                   VECTOR_SIZE, obs_view)
from catan_env.core.observe import encode_planes, encode_vector  # noqa: E402
from catan_env.core.options import GameOptions  # noqa: E402
from catan_env.core.topology import HEX_VERTICES  # noqa: E402

from catan_env.infoset import InfoSet  # noqa: E402
from helpers import hidden_variants, observation  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def random_midgame(seed, players, turns=12):
    """A position some turns into a game of random moves."""
    rng = np.random.default_rng(seed)
    s = G.new_game(GameOptions(players=players), seed=seed)
    while int(s[G.L.TURN]) < turns and not G.is_over(s):
        G.step(s, int(rng.choice(G.legal_actions(s))))
    return s


def random_net(seed, **kw):
    torch.manual_seed(seed)
    net = ValueNet(**kw)
    with torch.no_grad():  # larger weights than the default init: a stricter comparison
        for p in net.parameters():
            p.mul_(3.0)
    return net.eval()


@pytest.mark.parametrize("channels,blocks,players", [(8, 1, 4), (4, 2, 3), (6, 0, 2)])
def test_value_forward_equals_torch(channels, blocks, players):
    net = random_net(channels + blocks, channels=channels, blocks=blocks, tail_hidden=16, hidden=24)
    params, spec = net.export()
    rng = np.random.default_rng(players)
    for _ in range(5):
        planes = (rng.random((PLANES, GRID_H, GRID_W)) < 0.2) * rng.random((PLANES, GRID_H, GRID_W))
        planes = planes.astype(np.float32)
        tail = rng.random(TAIL_SIZE).astype(np.float32)
        out = np.zeros(MAX_PLAYERS)
        value_forward(params, spec, planes, tail, players, out)
        with torch.no_grad():
            logits = net(torch.as_tensor(planes)[None], torch.as_tensor(tail)[None], torch.tensor([players]))
            ref = torch.softmax(logits.double(), dim=1)[0].numpy()
        assert np.allclose(out, ref, atol=1e-5), (out, ref)
        assert out[players:].sum() == 0 and abs(out.sum() - 1) < 1e-9


def test_state_value_forward_reads_the_seat_view_and_maps_seats_back():
    net = random_net(1, channels=4, blocks=1, tail_hidden=8, hidden=8)
    params, spec = net.export()
    s = random_midgame(seed=3, players=3)
    for seat in range(3):
        got = state_value(params, spec, s, seat)
        planes = np.zeros((PLANES, GRID_H, GRID_W), np.float32)
        encode_planes(s, seat, planes)
        vec = np.zeros(VECTOR_SIZE, np.float32)
        encode_vector(s, seat, vec)
        with torch.no_grad():
            rel = torch.softmax(net(torch.as_tensor(planes)[None], torch.as_tensor(vec[BOARD_SIZE:])[None],
                                    torch.tensor([3])).double(), 1)[0].numpy()
        assert np.allclose(got[:3], [rel[(p - seat) % 3] for p in range(3)], atol=1e-5)


def test_local_net_forward_equals_torch():
    torch.manual_seed(0)
    net = local_net(32).eval()
    weights = from_torch(net)
    params, layers, nets = pack([weights])
    x = np.random.default_rng(0).random((20, N_FEATURES)).astype(np.float32)
    h1, h2, out = np.empty(64, np.float32), np.empty(64, np.float32), np.empty(1, np.float32)
    with torch.no_grad():
        ref = net(torch.as_tensor(x))[:, 0].numpy()
    for i in range(20):
        mlp_forward(params, layers, nets[0], x[i], out, h1, h2)
        assert abs(out[0] - ref[i]) < 1e-5


def slow_vertex_pips(s, v):
    """Pips per resource around vertex v, read hex by hex."""
    pips = np.zeros(N_RES)
    ways = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
    for h in range(19):
        if v in HEX_VERTICES[h] and s[HEX_TERRAIN + h] < N_RES:
            pips[s[HEX_TERRAIN + h]] += ways.get(int(s[HEX_NUMBER + h]), 0) / 5.0
    return pips


def test_move_features_against_a_slow_reading():
    s = random_midgame(seed=5, players=4)
    out = np.zeros(N_FEATURES, np.float32)
    for v in range(54):
        for a in (A.SETTLEMENT0 + v, A.CITY0 + v):
            move_features(s, 1, a, out)
            assert out[KIND_OF[a]] == 1 and out[:KIND_OF.max() + 1].sum() == 1
            assert np.allclose(out[F_VERTEX:F_VERTEX + 5], slow_vertex_pips(s, v), atol=1e-6)
            assert np.allclose(out[F_CONTEXT:F_CONTEXT + 5], [s[G.L.hand_i(1, r)] / 10 for r in range(5)])


def test_shard_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"planes": rng.random((3, PLANES, GRID_H, GRID_W)).astype(np.float32),
              "tail": rng.random((3, TAIL_SIZE)).astype(np.float32), "players": np.array([4, 4, 3]),
              "root": rng.random((3, 4)).astype(np.float32), "outcome": np.eye(4, dtype=np.float32)[:3],
              "game": np.array([0, 0, 1]), "local_x": rng.random((5, N_FEATURES)).astype(np.float32),
              "local_q": rng.random(5).astype(np.float32), "local_visits": np.arange(5, dtype=np.float32),
              "local_pos": np.array([0, 0, 1, 2, 2])}
    path = save_shard(str(tmp_path / "s.npz"), arrays, KEYS)
    back = load_shard(path, KEYS)
    for k, v in arrays.items():
        tol = 1e-3 if k == "planes" else 0  # planes are stored as float16
        assert back[k].shape == v.shape and np.allclose(back[k], v, atol=tol), k
    with pytest.raises(ValueError, match="misses"):
        save_shard(str(tmp_path / "bad.npz"), {"planes": arrays["planes"]}, KEYS)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a shard holding"):
        load_shard(str(tmp_path / "junk.npz"), KEYS)


def load_example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_tiny_expert_iteration_end_to_end(tmp_path, capsys):
    exit_train = load_example("exit_train")
    out = tmp_path / "exit"
    exit_train.main(["--iterations", "2", "--games", "2", "--players", "2", "--playouts", "30",
                     "--max-turns", "30", "--epochs", "1", "--channels", "4", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "iteration 2" in printed
    for it in (1, 2):
        value, local, meta = load_networks(out / f"nets-{it}.npz")
        assert value is not None and local is not None and meta["iteration"] == it
        data = load_folder(str(out / f"data-{it}"))
        assert len(data["players"]) > 0 and np.allclose(data["outcome"].sum(1), 1)
        assert len(data["local_q"]) > 0 and data["local_pos"].max() < len(data["players"])
    # the second iteration's expert was guided by the first network
    import json
    manifest = json.loads((out / "data-2" / "manifest.json").read_text())
    assert "nets-1.npz" in manifest["settings"]["players"][0]
    for spec in (f"exit:path={out / 'nets-2.npz'}:playouts=20", f"uctnet:path={out / 'nets-1.npz'}:playouts=20"):
        result = play_game([spec, "random"], seed=1, max_turns=15)
        assert result["steps"] > 20


def test_network_agents_decide_from_what_the_seat_knows(tmp_path):
    """True states that differ only in what the decider cannot know (opponents' hands,
    their development cards, the RNG, others' knowledge) give the same decision."""
    net = random_net(2, channels=4, blocks=1, tail_hidden=8, hidden=8)
    torch.manual_seed(0)
    path = save_networks(str(tmp_path / "n.npz"), value=net, local=local_net(16), meta={"iteration": 0})
    rng = np.random.default_rng(3)
    kinds = set()
    for seed in range(6):
        s = random_midgame(seed, players=4, turns=8 + seed)
        seat = G.decider(s)
        for label, other in hidden_variants(s, seat, rng):
            for spec in (f"exit:path={path}:playouts=30", f"uctnet:path={path}:playouts=30"):
                acts = [make_agent(spec, seed=5).act(observation(x, seat), InfoSet(x, seat, secret_seed=9))
                        for x in (s, other)]
                assert acts[0] == acts[1], f"{spec} reads hidden {label}"
            kinds.add(label)
    assert len(kinds) >= 3


def test_bad_network_files_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="needs path"):
        make_agent("exit")
    with pytest.raises(ValueError, match="no network file"):
        make_agent(f"uctnet:path={tmp_path / 'missing.npz'}")
    (tmp_path / "bad.npz").write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a Deep Catan network file"):
        make_agent(f"exit:path={tmp_path / 'bad.npz'}")
    only_value = save_networks(str(tmp_path / "v.npz"), value=random_net(0, channels=4, blocks=0))
    with pytest.raises(ValueError, match="no local network"):
        make_agent(f"uctnet:path={only_value}")
    assert make_agent(f"exit:path={only_value}:playouts=10") is not None  # value only: no prior
    with pytest.raises(ValueError, match="no local network"):  # a prior asked for must exist
        make_agent(f"exit:path={only_value}:playouts=10:prior=true")


def test_selfplay_generation_resumes_and_refuses_other_settings(tmp_path):
    from catan_env.agents.deep.selfplay import generate
    folder = str(tmp_path / "sp")
    players = ["mcts:variant=best:playouts=10", "mcts:variant=best:playouts=10"]
    first = generate(folder, players, 2, shard_games=1, sample=0.5, max_turns=20)
    assert [s["first_game"] for s in first["shards"]] == [0, 1]
    stamp = os.path.getmtime(os.path.join(folder, "shard-000000.npz"))
    again = generate(folder, players, 2, shard_games=1, sample=0.5, max_turns=20)
    assert again["shards"] == first["shards"]
    assert os.path.getmtime(os.path.join(folder, "shard-000000.npz")) == stamp  # not replayed
    with pytest.raises(ValueError, match="other settings"):
        generate(folder, players, 2, shard_games=1, sample=0.9, max_turns=20)
    more = generate(folder, players, 3, shard_games=1, sample=0.5, max_turns=20)  # extends the run
    assert [s["first_game"] for s in more["shards"]] == [0, 1, 2]
    data = load_folder(folder)
    assert len(data["players"]) == sum(s["positions"] for s in more["shards"]) > 0
    # a position's root estimate is a distribution over the seats in the game
    assert np.all(data["root"][:, 2:] == 0) and np.all((data["root"] >= 0) & (data["root"] <= 1))


def test_a_network_compiles_one_search_kernel_per_process(tmp_path):
    """Agents built from the same file share hooks and kernel (a compilation is ~20 s)."""
    torch.manual_seed(0)
    path = save_networks(str(tmp_path / "n.npz"), value=random_net(0, channels=4, blocks=0),
                         local=local_net(8))
    a, b = make_agent(f"exit:path={path}", seed=1), make_agent(f"exit:path={path}:playouts=50", seed=2)
    assert a._grow is b._grow
    c = make_agent(f"uctnet:path={path}", seed=1)
    assert c._grow is not a._grow  # another pair of hooks: its own kernel


def test_winner_accuracy_reads_public_vp_and_outcomes():
    from catan_env.agents.deep import nets
    s = random_midgame(seed=9, players=4, turns=25)
    vec = np.zeros(VECTOR_SIZE, np.float32)
    encode_vector(s, 2, vec)
    tail = vec[BOARD_SIZE:]
    for k in range(4):  # the baseline reads each relative seat's public VP
        assert round(float(obs_view(tail, "players")[k, P_VP]) * 10) == s[G.L.PUBLIC_VP + (2 + k) % 4]

    class FavoursSeat1(torch.nn.Module):
        def forward(self, planes, tail, players):
            return torch.tensor([[0.0, 1.0, 0.0, 0.0]]).repeat(len(planes), 1)

    rows = 4
    data = {"planes": np.zeros((rows, PLANES, GRID_H, GRID_W), np.float32),
            "tail": np.zeros((rows, TAIL_SIZE), np.float32), "players": np.full(rows, 4),
            "outcome": np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0.25] * 4], np.float32)}
    obs_view(data["tail"], "players")[:, 2, P_VP] = 0.5  # relative seat 2 leads on VP everywhere
    acc = nets.winner_accuracy(FavoursSeat1(), data, np.arange(rows))
    assert acc == {"test_picks_winner": 2 / 3, "test_vp_leader": 0.0}  # the capped game is left out
