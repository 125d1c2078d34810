"""The value network played greedily in numba (the ``pretrained:search=0`` agent, the
batched env's value opponents, the distillation teacher: one decision), and the
distillation data: shards that round-trip, resume and hold only legal moves."""
import copy
import json

import numpy as np
import pytest

from catan_env import InfoSet
from catan_env.agents import distill as D
from catan_env.agents import make_agent
from catan_env.agents.value.search import search_values
from catan_env.batched import BatchedCatan
from catan_env.batched import kernel as K
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.observe import VECTOR_SIZE
from catan_env.learned import greedy as GR
from catan_env.learned.trading import answer_gains, confirm_gains, offer_gains
from catan_env.learned.value import SEARCHABLE, macro_values


def states_of_every_phase(n, seed=0):
    """States from random games with domestic trade: set-up, main, robber, discards, trade
    responses and confirmations all among them."""
    rng = np.random.default_rng(seed)
    out, g = [], 0
    while len(out) < n:
        s = G.new_game({"players": 3 + g % 2}, seed=seed * 100 + g)
        g += 1
        while not G.is_over(s) and int(s[L.TURN]) < 120:
            legal = G.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.08:
                out.append(s.copy())
            G.step(s, int(rng.choice(legal)))
    return out[:n]


def reference_decision(net, base, seat, legal, seeds, memory, opts):
    """The greedy decision spelled out in Python from the search's building blocks (as
    the agent made it before the numba decision existed)."""
    if len(legal) == 1:
        return int(legal[0])
    args = (net.evaluator(),)
    view = G.determinize(base, seat, int(seeds[0]))
    phase = int(view[L.PHASE])
    if phase == L.PH_TRADE_RESPONSE:
        answers = np.array([a for a in legal if GR.IS_ANSWER[a]], np.int64)
        if len(answers):
            gains = np.empty(len(answers))
            answer_gains(*args, view, seat, answers, gains)
            if gains.max() > opts[GR.O_ACCEPT_MARGIN]:
                return int(answers[int(np.argmax(gains))])
        return A.TRADE_REJECT
    if phase == L.PH_TRADE_CONFIRM:
        confirms = np.array([a for a in legal if GR.IS_CONFIRM[a]], np.int64)
        if len(confirms):
            gains = np.empty(len(confirms))
            confirm_gains(*args, view, seat, confirms, gains)
            if gains.max() > 0.0:
                return int(confirms[int(np.argmax(gains))])
        return A.TRADE_CANCEL
    if phase == L.PH_MAIN and opts[GR.O_OFFERS] > 0:
        if memory[GR.M_TURN] != view[L.TURN]:
            memory[GR.M_TURN], memory[GR.M_COUNT] = view[L.TURN], 0
        made = list(memory[GR.M_IDS:GR.M_IDS + memory[GR.M_COUNT]])
        offers = np.array([a for a in legal if GR.IS_OFFER[a] and a not in made], np.int64)
        if len(made) < opts[GR.O_OFFERS] and len(offers):
            gains = np.empty(len(offers))
            offer_gains(*args, view, seat, offers, gains)
            if gains.max() > opts[GR.O_OFFER_MARGIN]:
                a = int(offers[int(np.argmax(gains))])
                memory[GR.M_IDS + len(made)] = a
                memory[GR.M_COUNT] += 1
                return a
    moves = np.array([a for a in legal if SEARCHABLE[a]], np.int64)
    if len(moves) == 1:
        return int(moves[0])
    total = np.zeros(len(moves))
    q = np.empty(len(moves))
    for d in range(int(opts[GR.O_VIEWS])):
        if d:
            view = G.determinize(base, seat, int(seeds[d]))
        search_values(*args, view, seat, moves, 1, 6, q)
        total += q
    mean = total / opts[GR.O_VIEWS]
    best = int(np.argmax(mean))
    if phase == L.PH_MAIN:
        first, value = np.empty(A.N_ACTIONS, np.int64), np.empty(A.N_ACTIONS)
        m = macro_values(*args, view, seat, first, value)
        if m and value[:m].max() > mean[best]:
            return int(first[int(np.argmax(value[:m]))])
    return int(moves[best])


@pytest.fixture(scope="module")
def network():
    return make_agent("pretrained:search=0").network


@pytest.fixture(scope="module")
def states():
    return states_of_every_phase(240)


def test_the_states_cover_every_kind_of_decision(states):
    phases = {int(s[L.PHASE]) for s in states}
    for phase in (L.PH_SETUP_SETTLEMENT, L.PH_MAIN, L.PH_TRADE_RESPONSE, L.PH_TRADE_CONFIRM, L.PH_MOVE_ROBBER):
        assert phase in phases, L.PHASE_NAMES[phase]


def test_greedy_decision_equals_the_spelled_out_reference(network, states):
    opts = GR.options()
    net = network
    rng = np.random.default_rng(1)
    kinds = set()
    for s in states:
        seat = G.decider(s)
        legal = G.legal_actions(s).astype(np.int64)
        seeds = rng.integers(0, 2 ** 62, size=2, dtype=np.int64)
        memory = GR.new_memory()
        ref_memory = memory.copy()
        a, kind, _ = GR.greedy_decision(net.evaluator(), s, seat, legal, len(legal),
                                        seeds, memory, opts)
        assert int(a) == reference_decision(net, s, seat, legal, seeds, ref_memory, opts)
        assert np.array_equal(memory, ref_memory)
        assert int(a) in legal
        kinds.add(GR.KIND_NAMES[kind])
        scores = np.full(A.N_ACTIONS, np.nan)
        again, _, _ = GR.greedy_scored(net.evaluator(), s, seat, legal, len(legal),
                                       seeds, GR.new_memory(), opts, scores)
        assert again == a and np.nanargmax(scores) == a  # what it compared ranks its move first
        assert np.isnan(scores[np.setdiff1d(np.arange(A.N_ACTIONS), legal)]).all()
    assert {"move", "offer", "reject", "cancel"} <= kinds, kinds


def test_moves_valued_once_are_the_same_on_every_view(network, states):
    """The greedy decision values a move on the first determinization only where
    ``same_on_every_view`` says no hidden card changes it: on every kind of decision and
    three determinizations, those moves' one-ply values are equal to the bit, and the
    moves it leaves out (a card drawn or stolen, a monopoly) do differ somewhere."""
    from catan_env.learned.value import one_ply_value, same_on_every_view, set_base
    ev = network.evaluator()
    shared = differs = 0
    for k, s in enumerate(states):
        seat = G.decider(s)
        views = [G.determinize(s, seat, 100 * k + j) for j in range(3)]
        for a in G.legal_actions(s):
            if not SEARCHABLE[a]:
                continue
            values = []
            for view in views:
                set_base(ev, view, seat)
                values.append(one_ply_value(ev, view, int(a), seat, np.empty_like(view)))
            if same_on_every_view(views[0], int(a)):
                assert values[0] == values[1] == values[2], G.A.action_name(int(a))
                shared += 1
            elif len(set(values)) > 1:
                differs += 1
    assert shared > 100 and differs > 0, (shared, differs)


def test_the_agent_plays_the_numba_decision(network, states):
    """``pretrained:search=0`` = greedy_decision on its information set's view with the
    seeds its generator draws."""
    net = network
    for k, s in enumerate(states[:120]):
        seat = G.decider(s)
        agent = make_agent("pretrained:search=0", seed=k)
        info = InfoSet(s, seat, secret_seed=k)
        obs = {"observation": G.observe(s, seat), "action_mask": G.legal_mask(s)}
        legal = G.legal_actions(s).astype(np.int64)
        rng = copy.deepcopy(agent.rng)
        seeds = np.array([rng.integers(2 ** 62) for _ in range(2)], np.int64) if len(legal) > 1 else np.zeros(2, np.int64)
        # (a writable copy, as the agent passes: a read-only view would compile a second
        # version of the whole decision kernel, about 25 s of a cold CI run)
        expected, _, _ = GR.greedy_decision(net.evaluator(), info.view.copy(), seat, legal,
                                            len(legal), seeds, GR.new_memory(), GR.options())
        assert agent.act(obs, info) == int(expected)
        # the decision depends on the true state only through what the seat knows: the
        # information set's view and the true state give the same move (the batched env
        # decides from the true state)
        direct, _, _ = GR.greedy_decision(net.evaluator(), s, seat, legal, len(legal),
                                          seeds, GR.new_memory(), GR.options())
        assert direct == expected


def test_batched_value_opponents_play_exactly_the_greedy_decision(network):
    """Each step of the batched env with value opponents, replayed outside it: the learner's
    move, then every opponent's greedy_decision (seeds from the game's RNG, the game's
    offer memory), gives bitwise the env's state."""
    net, opts = network, GR.options()
    venv = BatchedCatan(6, opponents="pretrained:search=0", seed=3, max_turns=60)
    venv.reset(seed=3)
    checked = 0
    for _ in range(60):
        states, rngs, games = venv.states.copy(), venv.rngs.copy(), venv.games.copy()
        actions = venv.sample_actions()
        venv.step(actions)
        done = venv.terminated | venv.truncated
        for i in np.flatnonzero(~done):
            s, rng, row = states[i].copy(), rngs.copy(), games[i].copy()
            learner = int(row[K.G_LEARNER])
            G.step(s, int(actions[i]))
            while not G.is_over(s) and G.decider(s) != learner:
                seat = G.decider(s)
                seeds = np.empty((1, 2), np.int64)
                K.draw_seeds(rng, np.array([i], np.int64), seeds)
                legal = G.legal_actions(s).astype(np.int64)
                a, _, _ = GR.greedy_decision(net.evaluator(), s, seat, legal, len(legal),
                                             seeds[0], row[K.G_MEMORY:K.G_MEMORY + GR.MEMORY_SIZE], opts)
                G.step(s, int(a))
                checked += 1
            assert np.array_equal(s, venv.states[i])
    assert checked > 100


def test_a_searching_agent_is_not_played_in_numba():
    from catan_env.learned.plays import ValueNetworkPlay
    assert isinstance(make_agent("pretrained:search=0").batched_opponent(), ValueNetworkPlay)
    assert make_agent("pretrained:search=1").batched_opponent() is None
    assert make_agent("pretrained:search=0:opening=jsettlers").batched_opponent() is None


# ---- distillation data

def test_shards_round_trip_resume_and_hold_legal_moves(tmp_path):
    folder = str(tmp_path / "d")
    m = D.generate(folder, games=2, shard_games=1, batch=4, max_turns=40, seed=5)
    assert [s["first_game"] for s in m["shards"]] == [0, 1]
    assert m["settings"]["kind"] == "distill" and m["settings"]["batch"] == 4
    first = open(f"{folder}/shard-000000.npz", "rb").read()
    data = D.load(folder)
    obs, masks = D.observations(data["state"], data["seat"])
    assert len(data["seat"]) > 50
    assert masks[np.arange(len(masks)), data["action"]].all()
    assert (masks.sum(1) > 1).all()  # forced moves are not kept
    assert (data["state"][:, L.RNG] == 0).all()
    assert np.array_equal(data["score_ids"][:, 0], data["action"])  # the soft targets rank the move first
    assert (np.diff(data["score_values"], axis=1)[data["score_ids"][:, 1:] >= 0] <= 0).all()
    for k in range(0, len(data["seat"]), 37):  # the observation is the seat's, as the envs give it
        s = data["state"][k].astype(np.int64)
        assert np.array_equal(obs[k], G.observe(s, int(data["seat"][k])))
        assert int(data["seat"][k]) == G.decider(s)
    values = data["value"][~np.isnan(data["value"])]
    assert len(values) and ((values >= 0) & (values <= 1)).all()
    m = D.generate(folder, games=3, shard_games=1, batch=4, max_turns=40, seed=5)  # extends: one more shard
    assert [s["first_game"] for s in m["shards"]] == [0, 1, 2]
    assert [s["positions"] for s in m["shards"]] == [int((data["game"] == g).sum()) for g in range(2)] + \
        [int((D.load(folder)["game"] == 2).sum())]
    assert open(f"{folder}/shard-000000.npz", "rb").read() == first
    again = str(tmp_path / "again")
    D.generate(again, games=1, shard_games=1, batch=4, max_turns=40, seed=5)
    assert np.array_equal(D.load(again)["action"], D.load(folder)["action"][D.load(folder)["game"] == 0])
    with pytest.raises(ValueError, match="other settings"):
        D.generate(folder, games=3, shard_games=1, batch=4, max_turns=50, seed=5)
    with pytest.raises(ValueError, match="not a distill folder"):
        D.load(str(tmp_path))  # no manifest there
    # two folders load as the plain concatenation of their shards, games numbered across them
    from catan_env.agents.training.shards import load_shard
    both = D.load(folder, again)
    parts = [load_shard(f"{folder}/shard-00000{g}.npz", D.KEYS) for g in range(3)]
    parts.append(load_shard(f"{again}/shard-000000.npz", D.KEYS))
    parts[-1]["game"] = parts[-1]["game"] + 3
    for k in D.KEYS:
        want = np.concatenate([p[k] for p in parts])
        assert both[k].dtype == want.dtype and np.array_equal(both[k], want, equal_nan=k == "value"), k
    manifest = json.load(open(f"{again}/manifest.json"))
    del manifest["shards"][0]["positions"]  # an entry without its count: read from the shard
    json.dump(manifest, open(f"{again}/manifest.json", "w"))
    assert np.array_equal(D.load(folder, again)["action"], both["action"])
    manifest["shards"][0]["positions"] = int((both["game"] == 3).sum()) + 1
    json.dump(manifest, open(f"{again}/manifest.json", "w"))
    with pytest.raises(ValueError, match="shard-000000.npz holds .* rows where its manifest says"):
        D.load(folder, again)
    manifest["shards"][0]["positions"] -= 1
    json.dump(manifest, open(f"{again}/manifest.json", "w"))
    with np.load(f"{again}/shard-000000.npz") as z:  # a shard of another format: int64 states
        arrays = {k: z[k] for k in z.files}
    np.savez_compressed(f"{again}/shard-000000.npz", **dict(arrays, state=arrays["state"].astype(np.int64)))
    with pytest.raises(ValueError, match="its 'state' is int64 .* the first shard's int32"):
        D.load(folder, again)


def test_any_agent_teaches_through_the_arena(tmp_path):
    folder = str(tmp_path / "w")
    m = D.generate(folder, teacher="weighted", games=1, shard_games=1, max_turns=30)
    assert m["settings"]["engine"] == "arena"
    data = D.load(folder)
    assert m["shards"][0]["winners"] == [int(data["winner"][0])]
    obs, masks = D.observations(data["state"], data["seat"])
    assert masks[np.arange(len(masks)), data["action"]].all()
    assert np.isnan(data["value"]).all()  # the weighted agent gives no estimate
    with pytest.raises(ValueError, match="cannot play inside numba"):
        D.batched_shard("weighted", 1, 0, 0)


def test_value_opponents_through_gymnasium_make_vec_and_in_a_pool():
    import gymnasium
    envs = gymnasium.make_vec("catan_env/Catan-v0", num_envs=2, opponents="pretrained:search=0", max_turns=30)
    obs, info = envs.reset(seed=1)
    for _ in range(20):
        mask = info["action_mask"] if "action_mask" in info else envs.batch.masks
        actions = np.array([np.flatnonzero(m)[0] for m in mask])
        obs, rewards, term, trunc, info = envs.step(actions)
    pool = BatchedCatan(4, opponents={"pretrained:search=0": 2.0, "weighted": 1.0, "random": 1.0}, seed=2,
                        max_turns=40)
    pool.reset(seed=2)
    for _ in range(40):
        pool.step(pool.sample_actions())
    drawn = {int(k) for k in pool.games[:, K.G_OPP:K.G_OPP + 3].ravel()}
    assert drawn <= {0, 1, 2} and len(pool.pool_kinds) == 3


def test_each_learned_module_imports_first_and_without_the_agents():
    import subprocess
    import sys
    for module in ("mlp", "features", "value", "trading", "greedy"):
        code = (f"import sys; import catan_env.learned.{module}; "
                "assert not any(m.startswith('catan_env.agents') for m in sys.modules), 'imports the agents'")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, (module, out.stderr[-1500:])


def test_the_board_encoder_comparison_encodes_what_the_envs_show_and_trains_both(tmp_path):
    """benchmarks/board_encoder.py: its batch encoder gives each row's observation vector,
    board planes and legal mask exactly as the env shows them to that row's seat, and both
    networks train on a tiny run and report held-out figures."""
    pytest.importorskip("torch")
    import catan_env
    from catan_env.core.observe import PLANES
    from catan_env.core.topology import GRID_H, GRID_W
    from helpers import load_benchmark
    bench = load_benchmark("board_encoder")
    folder = str(tmp_path / "d")
    D.generate(folder, games=2, shard_games=1, batch=4, max_turns=40, seed=5)
    d = bench.first_games(folder, 1)
    assert len(np.unique(d["game"])) == 1 and len(d["seat"]) > 20
    rows = np.arange(0, len(d["seat"]), 7, dtype=np.int64)
    vectors = np.zeros((len(rows), D.VECTOR_SIZE), np.float32)
    planes = np.zeros((len(rows), PLANES, GRID_H, GRID_W), np.float32)
    masks = np.zeros((len(rows), D.N_ACTIONS), np.bool_)
    bench.encode_batch(d["state"], d["seat"], rows, vectors, planes, masks)
    for i, r in enumerate(rows):
        env = catan_env.raw_env(obs_type="planes")
        env.reset(seed=0)
        env._state[:] = d["state"][r]  # (the row's true state, as the env holds it)
        seen = env.observe(f"player_{d['seat'][r]}")
        assert np.array_equal(planes[i], seen["observation"]["board"])
        assert np.array_equal(vectors[i, -len(seen["observation"]["vector"]):], seen["observation"]["vector"])
        assert np.array_equal(masks[i], seen["action_mask"].astype(bool))
        assert masks[i, d["action"][r]]
    for arch in bench.ARCHS:
        run = bench.train(arch, folder, 2, steps=4, batch=16, every=2, lr=1e-3, seed=0)
        assert [c["step"] for c in run["curve"]] == [2, 4]
        assert all(0.0 <= c["val_agreement"] <= 1.0 and c["val_ce"] > 0 for c in run["curve"])


def test_policy_moves_are_the_policy_agents_moves():
    """The roll-in's batched argmax equals the ``ppo`` agent's own decision, row by row."""
    agent = make_agent("pretrained_policy")
    venv = BatchedCatan(8, mode="learner", opponents=["weighted"], seed=3)
    venv.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        moves = D.policy_moves(agent.weights, venv.obs, venv.masks, False, rng)
        for i in range(8):
            obs = {"observation": venv.obs[i], "action_mask": venv.masks[i]}
            assert moves[i] == agent.act(obs, None)
        sampled = D.policy_moves(agent.weights, venv.obs, venv.masks, True, rng)
        assert venv.masks[np.arange(8), sampled].all()
        venv.step(moves)


def test_dagger_rows_are_the_teachers_labels_on_the_policys_own_games():
    """The policy's moves drive the games (replayed here without any labelling: the same
    positions), every game started is played to its end (not only the first to finish),
    the teacher's moves are the labels, and only the policy's seat is kept."""
    games, seed = 3, 7
    rows, results = D.dagger_shard("pretrained:search=0", "pretrained_policy", ["weighted"], games, seed, 0,
                                   batch=8, max_turns=60)
    assert len(results) == games and len(np.unique(rows["game"])) == games
    agent = make_agent("pretrained_policy")
    venv = BatchedCatan(games, mode="learner", opponents=["weighted"], max_turns=60, seed=seed, skip_forced=True)
    venv.reset(seed=seed)
    replay = {i: [] for i in range(games)}  # each slot's first game: the policy's positions with a choice
    seats, finished = {}, []  # finished: (slot, turns) in the order the first games end
    while len(finished) < games:
        for i in range(games):
            if venv.masks[i].sum() > 1 and i not in dict(finished):
                replay[i].append(venv.states[i].copy())
        moves = np.array([agent.act({"observation": venv.obs[i], "action_mask": venv.masks[i]}, None)
                          for i in range(games)])
        venv.step(moves)
        for i, stats in venv.episode_stats().items():
            if i not in dict(finished):
                finished.append((i, stats["turns"]))
                seats[i] = stats["learner_seat"]
    for g, (slot, turns) in enumerate(finished):
        mine = rows["state"][rows["game"] == g].astype(np.int64)
        expected = np.array(replay[slot])
        expected[:, L.RNG] = 0
        assert np.array_equal(mine, expected) and results[g]["turns"] == turns
        assert (rows["seat"][rows["game"] == g] == seats[slot]).all()  # the policy's seat alone
    obs, masks = D.observations(rows["state"], rows["seat"])
    assert masks[np.arange(len(masks)), rows["action"]].all()
    assert np.array_equal(rows["score_ids"][:, 0], rows["action"])  # the teacher's own ranking
    policy = D.policy_moves(agent.weights, obs, masks, False, np.random.default_rng(0))
    assert 0.2 < np.mean(policy == rows["action"]) < 1.0  # labels are the teacher's, not the policy's


def test_the_teachers_offer_memory_holds_the_policys_offers():
    state = G.new_game(seed=3)
    while int(state[L.PHASE]) != L.PH_MAIN:
        G.step(state, int(G.legal_actions(state)[0]))
    states = np.stack([state, state])
    memory = np.zeros((2, GR.MEMORY_SIZE), np.int64)
    memory[:, GR.M_TURN] = -1
    offer = A.OFFER0 + 5
    D._note_offers(memory, states, np.array([offer, A.END_TURN]))
    assert memory[0, GR.M_TURN] == state[L.TURN] and memory[0, GR.M_COUNT] == 1 and memory[0, GR.M_IDS] == offer
    assert memory[1, GR.M_COUNT] == 0  # no offer made
    later = states.copy()
    later[:, L.TURN] += 1
    D._note_offers(memory, later, np.array([offer + 1, A.END_TURN]))  # a new turn starts a new memory
    assert memory[0, GR.M_COUNT] == 1 and memory[0, GR.M_IDS] == offer + 1


class _CountingTeacher:
    """Labels the first legal move and notes how many of its labels it remembers making."""
    seen: list = []

    def __init__(self):
        self.made = 0

    def act(self, observation, infoset):
        _CountingTeacher.seen.append(self.made)
        self.made += 1
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_a_python_teacher_remembers_only_the_labels_the_policy_played(monkeypatch):
    _CountingTeacher.seen = []
    monkeypatch.setattr(D, "make_agent", lambda spec, seed=None: _CountingTeacher() if spec == "counting"
                        else make_agent(spec, seed=seed))
    rows, _ = D.dagger_shard("counting", "pretrained_policy", ["weighted"], 1, 5, 0, batch=1, max_turns=40)
    obs, masks = D.observations(rows["state"], rows["seat"])
    played = D.policy_moves(make_agent("pretrained_policy").weights, obs, masks, False, np.random.default_rng(0))
    agreed = played == rows["action"]
    assert 0 < agreed.sum() < len(agreed)
    assert _CountingTeacher.seen == [int(agreed[:j].sum()) for j in range(len(agreed))]


def test_a_dagger_run_records_its_roll_in_and_refuses_what_cannot_roll_in(tmp_path):
    folder = str(tmp_path / "dagger")
    m = D.generate(folder, games=2, shard_games=2, batch=4, max_turns=40, roll_in="pretrained_policy",
                   opponents=["weighted"])
    assert m["settings"]["roll_in"] == "pretrained_policy" and m["settings"]["opponents"] == ["weighted"]
    assert len(np.unique(D.load(folder)["game"])) == 2
    with pytest.raises(ValueError, match="other settings"):  # another roll-in is another run
        D.generate(folder, games=2, shard_games=2, batch=4, max_turns=40, roll_in="pretrained_policy",
                   opponents=["random"])
    assert m["settings"]["roll_in_weights"] == D.weights_digest(make_agent("pretrained_policy").weights)
    with pytest.raises(ValueError, match="not a policy network"):
        D.generate(str(tmp_path / "x"), games=1, roll_in="weighted")
    from catan_env.learned.mlp import MLPWeights
    critic = str(tmp_path / "critic.npz")
    MLPWeights([(np.zeros((VECTOR_SIZE, 4), np.float32), np.zeros(4, np.float32), "relu"),
                (np.zeros((4, 1), np.float32), np.zeros(1, np.float32), "identity")]).save(critic)
    with pytest.raises(ValueError, match="a critic.npz is not one"):
        D.generate(str(tmp_path / "x"), games=1, roll_in=f"ppo:path={critic}")
    with pytest.raises(ValueError, match="unknown"):
        D.generate(str(tmp_path / "x"), games=1, roll_in="pretrained_policy", opponents="no_such_agent")
    assert not (tmp_path / "x").exists()
    with pytest.raises(SystemExit):  # --opponents alone would be ignored: refused
        D.main(["--out", str(tmp_path / "x"), "--opponents", "weighted"])


def test_any_agent_labels_the_policys_positions_and_the_games_stay_the_policys():
    """A Python teacher (here the JSettlers robot) labels from the seat's information set;
    the games are the same as under the numba teacher, since only the policy's moves
    steer them."""
    args = (["weighted"], 2, 11, 0)
    numba_rows, _ = D.dagger_shard("pretrained:search=0", "pretrained_policy", *args, batch=2, max_turns=50)
    rows, results = D.dagger_shard("jsettlers", "pretrained_policy", *args, batch=2, max_turns=50)
    assert np.array_equal(rows["state"], numba_rows["state"]) and np.array_equal(rows["seat"], numba_rows["seat"])
    obs, masks = D.observations(rows["state"], rows["seat"])
    assert masks[np.arange(len(masks)), rows["action"]].all()
    assert not np.array_equal(rows["action"], numba_rows["action"])  # its own labels
    assert (rows["score_ids"] == -1).all() and np.isnan(rows["value"]).all()  # it gives no scores, no estimate
    again, _ = D.dagger_shard("jsettlers", "pretrained_policy", *args, batch=2, max_turns=50)
    assert np.array_equal(again["action"], rows["action"])  # from the seed alone


def test_the_opponent_digest_repeats_and_sees_another_game(monkeypatch):
    """benchmarks/value_opponent_digest.py (what the A/B files cite for "the same moves"):
    one seed gives the same two digests twice, with decisions counted; another seed other
    digests; a move changed by a fault in the greedy decision changes the decisions'
    digest; the opponent's decide is left as it was; opponents that are no value network
    are refused."""
    from helpers import load_benchmark
    bench = load_benchmark("value_opponent_digest")
    decide = GR.ValueOpponent.decide
    first = bench.digests(4, 30, "pretrained:search=0", seed=7)
    assert first == bench.digests(4, 30, "pretrained:search=0", seed=7) and first[2] > 20
    other = bench.digests(4, 30, "pretrained:search=0", seed=8)
    assert other[0] != first[0] and other[1] != first[1]
    assert GR.ValueOpponent.decide is decide

    def off_by_one_value(self, states, idx, seeds, memories, mem_col, actions, values, scores=None):
        kinds = decide(self, states, idx, seeds, memories, mem_col, actions, values, scores)
        values[:1] = np.nextafter(values[:1], 2.0)  # one value one ulp off: a planted fault
        return kinds

    monkeypatch.setattr(GR.ValueOpponent, "decide", off_by_one_value)
    faulty = bench.digests(4, 30, "pretrained:search=0", seed=7)
    assert faulty[0] == first[0] and faulty[1] != first[1]
    with pytest.raises(SystemExit):  # no value-network decision: an empty digest compares nothing
        bench.main(["--games", "2", "--steps", "3", "--opponent", "random"])
