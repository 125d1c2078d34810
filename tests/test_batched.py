"""The batched numba env: step-for-step equivalence with the single envs, opponents in
numba (built-in policies and exported MLPs), the Gymnasium VectorEnv and SB3 VecEnv
faces, and the numba MLP forward pass against torch."""
import warnings

import numpy as np
import pytest

import catan_env
from catan_env import core as C
from catan_env.agents.base import Agent
from catan_env.agents.learned import MLPPolicyAgent
from catan_env.batched import BatchedCatan, CatanVectorEnv, MLPWeights
from catan_env.core import invariants
from catan_env.core import layout as L
from catan_env.core.observe import VECTOR_SIZE
from catan_env.core.options import PIONEERS_RULES
from catan_env.gym_env import CatanGymEnv


class ObsHashAgent(Agent):
    """A deterministic opponent whose move is a function of its observation only, so the
    single env and the batched env (which hold separate copies) play it identically."""

    def act(self, observation, infoset):
        legal = np.flatnonzero(observation["action_mask"])
        x = observation["observation"]
        k = int(np.dot(x, np.arange(x.size) % 7) * 1000) % legal.size
        return int(legal[k])


def random_mlp(seed, hidden=(32,), acts=("relu",), n_in=VECTOR_SIZE, n_out=C.N_ACTIONS):
    rng = np.random.default_rng(seed)
    sizes = (n_in,) + tuple(hidden) + (n_out,)
    layers = []
    for k in range(len(sizes) - 1):
        act = acts[k] if k < len(acts) else "identity"
        layers.append((rng.normal(0, 1 / np.sqrt(sizes[k]), (sizes[k], sizes[k + 1])),
                       rng.normal(0, 0.1, sizes[k + 1]), act))
    return MLPWeights(layers)


def _play_pair(batch, singles, seat, steps, rng, illegal_every=0):
    """Drive the batch and one single env per game with the same learner actions and
    compare everything the learner sees, step by step.  Returns episodes compared."""
    obs, masks = batch.obs, batch.masks
    episodes = 0
    for t in range(steps):
        actions = np.empty(batch.num_envs, np.int64)
        for i, g in enumerate(singles):
            legal = np.flatnonzero(masks[i])
            actions[i] = legal[rng.integers(legal.size)]
            if illegal_every and t % illegal_every == 3:
                actions[i] = int(np.flatnonzero(~masks[i])[0])  # an illegal move on purpose
        obs, rewards, term, trunc, masks = batch.step(actions)
        for i, g in enumerate(singles):
            o, r, te, tr, info = g.step(int(actions[i]))
            assert te == term[i] and tr == trunc[i], (t, i)
            assert r == pytest.approx(rewards[i], abs=1e-9), (t, i)
            if te or tr:
                episodes += 1
                np.testing.assert_array_equal(o, batch.final_obs[i, 0])
                st = batch.episode_stats()[i]
                assert st["winner"] == (info["winner"] if te else -1)
                o, info = g.reset(seed=int(batch.game_seeds[i]))  # the batch's next game
            np.testing.assert_array_equal(o, obs[i], err_msg=f"obs step {t} game {i}")
            np.testing.assert_array_equal(g.action_masks(), masks[i], err_msg=f"mask step {t} game {i}")
            assert batch.learner_seats[i] == seat
    return episodes


@pytest.mark.parametrize("skip_forced,vp_reward", [(False, 0.0), (True, 0.05)])
def test_learner_mode_equals_single_env(skip_forced, vp_reward):
    seat, n = 2, 3
    kw = dict(learner_seat=seat, vp_reward=vp_reward, max_turns=40, vp_to_win=5,
              max_illegal=4, illegal_penalty=-0.25)
    batch = BatchedCatan(n, opponents=ObsHashAgent(), skip_forced=skip_forced, **kw)
    batch.reset(seed=100)
    singles = []
    for i in range(n):
        g = CatanGymEnv(opponents=[ObsHashAgent()] * 3, skip_forced=skip_forced, **kw)
        g.reset(seed=100 + i)
        singles.append(g)
    episodes = _play_pair(batch, singles, seat, 500, np.random.default_rng(0), illegal_every=50)
    assert episodes >= 4  # episodes ended (wins, the turn cap, illegal moves) and restarted


def test_mlp_opponent_in_numba_plays_like_the_python_agent():
    net = random_mlp(1, hidden=(24, 16), acts=("relu", "tanh"))
    kw = dict(learner_seat=0, max_turns=30)
    batch = BatchedCatan(2, opponents=net, opponent_sample=False, **kw)
    batch.reset(seed=7)
    singles = [CatanGymEnv(opponents=[MLPPolicyAgent(weights=net)] * 3, **kw) for _ in range(2)]
    for i, g in enumerate(singles):
        g.reset(seed=7 + i)
    assert _play_pair(batch, singles, 0, 250, np.random.default_rng(1)) >= 1


@pytest.mark.parametrize("rules", [{}, PIONEERS_RULES], ids=["official", "pioneers"])
def test_all_seats_mode_equals_aec_env(rules):
    n = 3
    batch = BatchedCatan(n, mode="all_seats", vp_reward=0.1, max_turns=30, players=3, **rules)
    batch.reset(seed=5)
    envs = [catan_env.raw_env(vp_reward=0.1, max_turns=30, players=3, **rules) for _ in range(n)]
    for i, e in enumerate(envs):
        e.reset(seed=5 + i)
    rng = np.random.default_rng(2)
    ended = 0
    for t in range(600):
        for i, e in enumerate(envs):
            agent = e.agent_selection
            assert e.agent_name_mapping[agent] == batch.deciders[i]
            np.testing.assert_array_equal(e.observe(agent)["observation"], batch.obs[i])
            np.testing.assert_array_equal(e.observe(agent)["action_mask"].astype(bool), batch.masks[i])
        actions = np.array([rng.choice(np.flatnonzero(batch.masks[i])) for i in range(n)])
        _, rewards, term, trunc, _ = batch.step(actions)
        for i, e in enumerate(envs):
            e.step(int(actions[i]))
            for p, a in enumerate(e.possible_agents):
                assert e.rewards[a] == pytest.approx(rewards[i, p], abs=1e-9)
            assert all(e.terminations.values()) == term[i]
            assert all(e.truncations.values()) == trunc[i]
            if term[i] or trunc[i]:
                ended += 1
                for p in range(3):
                    np.testing.assert_array_equal(batch.final_obs[i, p], e.observe(e.possible_agents[p])["observation"])
                e.reset(seed=int(batch.game_seeds[i]))
    assert ended >= 3


@pytest.mark.parametrize("opponents", ["random", "weighted", "pruning",
                                       {"random": 1, "weighted": 2}, "mlp"])
def test_opponents_in_numba_keep_games_valid(opponents):
    if opponents == "mlp":
        opponents = [random_mlp(3), "random"]
    batch = BatchedCatan(8, opponents=opponents, skip_forced=True)
    batch.reset(seed=11)
    rng = np.random.default_rng(0)
    finished = 0
    for t in range(1000):
        for i in range(t % 3, 8, 4):  # the learner sees exactly its own view and legal moves
            s = batch.states[i]
            seat = batch.learner_seats[i]
            assert C.decider(s) == seat
            np.testing.assert_array_equal(batch.obs[i], C.observe(s, seat))
            np.testing.assert_array_equal(batch.masks[i], C.legal_mask(s).astype(bool))
            assert batch.masks[i].sum() >= 2  # forced moves were played
            assert invariants.problems(s) == []
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in batch.masks])
        _, _, term, trunc, _ = batch.step(actions)
        finished += int(term.sum() + trunc.sum())
    assert finished >= 1


def test_same_seed_same_games_and_seeds_per_game():
    a, b = BatchedCatan(4, seed=3), BatchedCatan(4, seed=3)
    a.reset(), b.reset()
    np.testing.assert_array_equal(a.game_seeds, [3, 4, 5, 6])
    for _ in range(400):
        acts = a.sample_actions()
        np.testing.assert_array_equal(acts, b.sample_actions())
        a.step(acts), b.step(acts)
    np.testing.assert_array_equal(a.states, b.states)
    c = BatchedCatan(4)
    c.reset(seed=4)
    assert not np.array_equal(c.states, a.states)
    # game i is the game raw_env plays from the same seed
    e = catan_env.raw_env()
    e.reset(seed=5)
    fresh = BatchedCatan(4, learner_seat=0)
    fresh.reset(seed=3)
    np.testing.assert_array_equal(fresh.states[2][:40], e.game_state[:40])


@pytest.mark.parametrize("mode,opponents", [("learner", "random"), ("learner", ["random", "jsettlers"]),
                                             ("all_seats", "random")])
def test_threads_step_the_same_games_as_one_thread(mode, opponents):
    """threads=3 (slices stepped at once by a parallel kernel) gives what one thread gives,
    game for game: states, observations, masks, rewards, ends and episode statistics;
    illegal actions in the mix; Python opponents (the kernel pauses for them) too."""
    one = BatchedCatan(7, mode=mode, opponents=opponents, max_turns=40, vp_reward=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (fewer than 3 cores: numba runs fewer threads)
        three = BatchedCatan(7, mode=mode, opponents=opponents, max_turns=40, vp_reward=0.1, threads=3)
    assert three.threads == 3
    one.reset(seed=11), three.reset(seed=11)
    for k in range(600):
        acts = one.sample_actions()
        if k % 50 == 7:
            acts[k % 7] = int(np.flatnonzero(~one.masks[k % 7])[0])  # an illegal action
        a = one.step(acts)
        b = three.step(acts)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        assert one.episode_stats() == three.episode_stats()
    np.testing.assert_array_equal(one.states, three.states)
    three.close()
    three.step(three.sample_actions())  # still works after close
    with pytest.raises(ValueError, match="threads"):
        BatchedCatan(2, threads=0)


def test_more_threads_than_numba_runs_is_said():
    import numba
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with pytest.warns(RuntimeWarning, match="numba runs 1 thread"):
            env = BatchedCatan(4, threads=2)
        assert env.threads == 2  # still asked: the slices are stepped in turn
    finally:
        numba.set_num_threads(before)


def test_sample_legal_draws_legal_actions_uniformly():
    from catan_env.batched import kernel as K
    masks = np.zeros((3, C.N_ACTIONS), np.bool_)
    masks[0, [3, 70, 431]] = True
    masks[1, 200] = True  # row 2: nothing legal
    rng = np.zeros(C.STATE_SIZE, np.int64)
    rng[L.RNG] = 12345
    out = np.empty(3, np.int64)
    counts = {3: 0, 70: 0, 431: 0}
    for _ in range(3000):
        K.sample_legal(masks, rng, out)
        counts[int(out[0])] += 1
        assert out[1] == 200 and out[2] == 0
    assert all(900 < c < 1100 for c in counts.values()), counts


def test_planes_observations_and_episode_statistics():
    batch = BatchedCatan(4, obs_type="planes", skip_forced=True, max_turns=60)
    obs, _ = batch.reset(seed=1)
    assert obs["board"].shape == (4, C.PLANES, C.GRID_H, C.GRID_W)
    for _ in range(3000):
        obs, r, term, trunc, _ = batch.step(batch.sample_actions())
        for i in range(4):
            s, seat = batch.states[i], batch.learner_seats[i]
            np.testing.assert_array_equal(obs["board"][i], C.observe(s, seat, "planes"))
        stats = batch.episode_stats()
        for i, st in stats.items():
            assert st["truncated"] == bool(trunc[i])
            assert st["r"] == pytest.approx(r[i]) if st["l"] <= 1 else True
            assert st["winner"] in (-1, 0, 1, 2, 3) and st["l"] >= 1
            assert batch.final_observation(i)["board"].shape == (C.PLANES, C.GRID_H, C.GRID_W)
        if stats:
            return
    pytest.fail("no episode ended")


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="mode"):
        BatchedCatan(2, mode="both")
    with pytest.raises(ValueError, match="unknown opponent"):
        BatchedCatan(2, opponents=42)
    with pytest.raises(ValueError, match="players"):
        BatchedCatan(2, players=7)
    with pytest.raises(ValueError, match="must map"):
        BatchedCatan(2, opponents=random_mlp(0, n_in=10))
    with pytest.raises(ValueError, match="all_seats"):
        BatchedCatan(2, mode="all_seats", opponents=random_mlp(0))
    b = BatchedCatan(2)
    with pytest.raises(RuntimeError, match="reset"):
        b.step([0, 0])
    b.reset(seed=0)
    with pytest.raises(ValueError, match="2 actions"):
        b.step([0])


def test_illegal_action_leaves_game_unchanged_and_is_penalised():
    b = BatchedCatan(1, illegal_penalty=-0.5, max_illegal=3)
    b.reset(seed=0)
    before = b.states.copy()
    bad = int(np.flatnonzero(~b.masks[0])[0])
    _, r, term, trunc, _ = b.step([bad])
    assert r[0] == -0.5 and not term[0] and not trunc[0]
    np.testing.assert_array_equal(b.states, before)
    b.step([bad])
    held = b.states.copy()
    with pytest.raises(C.InvalidActionError, match="must be 0-"):  # not an action at all: refused
        b.step([C.N_ACTIONS + 5])
    np.testing.assert_array_equal(b.states, held)
    _, r, term, trunc, _ = b.step([bad])
    assert trunc[0] and b.episode_stats()[0]["r"] == pytest.approx(-1.5)


def test_vector_env_api():
    envs = CatanVectorEnv(4, opponents="random", max_turns=50, skip_forced=True)
    obs, info = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert envs.single_observation_space.shape == (VECTOR_SIZE,)
    assert info["action_mask"].shape == (4, C.N_ACTIONS)
    seen_end = False
    for _ in range(400):
        actions = envs.batch.sample_actions()
        assert envs.action_space.contains(actions)
        obs, rew, term, trunc, info = envs.step(actions)
        assert obs.dtype == np.float32 and rew.shape == (4,) and term.dtype == bool
        np.testing.assert_array_equal(envs.action_masks(), info["action_mask"])
        if "final_obs" in info:
            seen_end = True
            i = int(np.flatnonzero(info["_final_obs"])[0])
            assert info["final_obs"][i].shape == (VECTOR_SIZE,)
            assert info["_episode"][i] and info["episode"]["l"][i] >= 1
    assert seen_end
    with pytest.raises(ValueError, match="all_seats"):
        CatanVectorEnv(2, mode="all_seats")


def test_sb3_vecenv_trains_maskable_ppo_and_reports_episodes():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecEnv

    from catan_env.wrappers.sb3 import make_batched_vec_env
    venv = make_batched_vec_env(8, seed=0, skip_forced=True, max_turns=40)
    assert isinstance(venv, VecEnv) and is_masking_supported(venv)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert obs.shape == (8, VECTOR_SIZE) and masks.shape == (8, C.N_ACTIONS) and masks.any(1).all()
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0)
    model.learn(512)
    assert model.num_timesteps >= 512
    ends = 0
    for _ in range(300):
        venv.step_async(venv.batch.sample_actions())
        obs, rew, dones, infos = venv.step_wait()
        for i in np.flatnonzero(dones):
            ends += 1
            assert infos[i]["terminal_observation"].shape == (VECTOR_SIZE,)
            assert {"r", "l"} <= set(infos[i]["episode"])
    assert ends >= 1


def test_numba_mlp_forward_equals_torch():
    torch = pytest.importorskip("torch")
    from catan_env.learned.mlp import from_torch, masked_logits, mlp_forward, pack
    torch.manual_seed(0)
    for act in (torch.nn.ReLU, torch.nn.Tanh):
        seq = torch.nn.Sequential(torch.nn.Linear(50, 64), act(), torch.nn.Linear(64, 32), act(),
                                  torch.nn.Linear(32, 20))
        w = from_torch(seq)
        params, layers, nets = pack([random_mlp(5, n_in=50, n_out=20), w])
        h1, h2 = np.empty(64), np.empty(64)
        for _ in range(20):
            x = torch.randn(50) * (torch.rand(50) < 0.5)  # sparse, as observations are
            want = seq(x).detach().numpy()
            out = np.empty(20)
            mlp_forward(params, layers, nets[1], x.numpy(), out, h1, h2)
            assert np.max(np.abs(out - want)) < 1e-5
            legal = np.array([1, 4, 19], np.int64)
            part = np.empty(3)
            masked_logits(params, layers, nets[1], x.numpy(), legal, 3, part, h1, h2)
            assert np.max(np.abs(part - want[legal])) < 1e-5
            np.testing.assert_allclose(w.numpy_forward(x.numpy()), want, atol=1e-5)


def test_sb3_policy_exports(tmp_path):
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from catan_env.learned.mlp import from_torch
    from catan_env.wrappers.sb3 import make_batched_vec_env
    model = MaskablePPO("MlpPolicy", make_batched_vec_env(2, seed=0), n_steps=16, batch_size=32)
    w = from_torch(model.policy)
    x = np.random.default_rng(0).random(VECTOR_SIZE).astype(np.float32)
    with torch.no_grad():
        feats = model.policy.extract_features(torch.as_tensor(x[None]))
        want = model.policy.action_net(model.policy.mlp_extractor.forward_actor(feats))[0].numpy()
    np.testing.assert_allclose(w.numpy_forward(x), want, atol=1e-5)
    w.save(tmp_path / "a.npz")
    again = MLPWeights.load(tmp_path / "a.npz")
    np.testing.assert_array_equal(again.numpy_forward(x), w.numpy_forward(x))
    with pytest.raises(ValueError, match="not an exported MLP"):
        (tmp_path / "bad.npz").write_bytes(b"nope")
        MLPWeights.load(tmp_path / "bad.npz")


def test_throughput_benchmark_prints_steps_per_second():
    import os
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "batched_throughput.py")
    out = subprocess.run([sys.executable, script, "--seconds", "0.2", "--sizes", "8", "--no-peers"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 5 and all(line.endswith("steps/s") for line in lines)
    assert "compact uint8" in lines[-1]


def test_gymnasium_make_vec_builds_the_batched_env():
    import gymnasium
    envs = gymnasium.make_vec("catan_env/Catan-v0", num_envs=3, opponents="weighted", max_turns=50)
    assert isinstance(envs, CatanVectorEnv) and envs.num_envs == 3
    obs, info = envs.reset(seed=4)
    np.testing.assert_array_equal(envs.batch.game_seeds, [4, 5, 6])
    sync = gymnasium.make_vec("catan_env/Catan-v0", num_envs=2, vectorization_mode="sync")
    assert not isinstance(sync, CatanVectorEnv)


def test_the_batched_kernels_load_with_the_runtime_settings_they_name():
    """The stepping kernels run without numba's reference counting (``_nrt=False``) and
    nothing this process compiled or loaded inherited that setting or returns an array
    from it (a kernel loaded from the cache hides its callees: the static test below
    covers those)."""
    from catan_env.batched import kernel as K
    from catan_env.batched.runtime_check import _without_runtime, runtime_free_functions
    for mode in ("learner", "all_seats"):
        batch = BatchedCatan(4, mode=mode, opponents=["random", "pruning", "weighted"] if mode == "learner" else "random")
        batch.reset(seed=3)
        for _ in range(200):
            batch.step(batch.sample_actions())
    assert runtime_free_functions() == []
    assert all(_without_runtime(c.fndesc.abi_tags) for c in K.step_slice.overloads.values())
    assert not any(_without_runtime(c.fndesc.abi_tags) for c in K.make_scratch.overloads.values())


def test_every_function_a_runtime_free_kernel_calls_names_its_runtime():
    """numba compiles a function first called from a runtime-free kernel without the
    runtime too unless it names its own setting: every njit function such a kernel calls
    (through inlined helpers too) names one (``core.jit_options``).  Read from the sources,
    so it holds whatever the cache holds."""
    from catan_env.batched.runtime_check import reachable_without_naming
    assert reachable_without_naming() == []


@pytest.mark.parametrize("mode,obs_type", [("learner", "vector"), ("learner", "planes"), ("all_seats", "vector")])
def test_compact_observations_expand_to_the_float32_env(mode, obs_type):
    """obs_dtype="uint8": the same games, masks and rewards, and observations (final ones
    included) that expand to the float32 env's, step for step."""
    full = BatchedCatan(6, mode=mode, obs_type=obs_type, max_turns=25)
    small = BatchedCatan(6, mode=mode, obs_type=obs_type, obs_dtype="uint8", max_turns=25)
    assert small.obs.dtype == np.uint8 and small.obs.shape == (6, VECTOR_SIZE + 1)
    obs, _ = full.reset(seed=5)
    compact, _ = small.reset(seed=5)
    finals = 0
    for _ in range(1200):
        actions = full.sample_actions()
        obs, rewards, term, trunc, masks = full.step(actions)
        compact, rewards2, term2, trunc2, masks2 = small.step(actions)
        expanded = small.expanded(compact)
        for key in (["board", "vector"] if obs_type == "planes" else [None]):
            np.testing.assert_array_equal(expanded[key] if key else expanded, obs[key] if key else obs)
        np.testing.assert_array_equal(masks, masks2)
        np.testing.assert_array_equal(rewards, rewards2)
        np.testing.assert_array_equal(term | trunc, term2 | trunc2)
        for i in np.flatnonzero(term | trunc):
            last, last2 = full.final_observation(i), small.expanded(small.final_observation(i))
            for key in (["board", "vector"] if obs_type == "planes" else [None]):
                np.testing.assert_array_equal(last2[key] if key else last2, last[key] if key else last)
            np.testing.assert_array_equal(small.expanded(small.final_obs[i]), full.final_obs[i])  # every seat
            finals += 1
    assert finals > 0
    with pytest.raises(ValueError, match="obs_dtype"):
        BatchedCatan(2, obs_dtype="float16")


def test_the_vector_env_declares_compact_observations():
    venv = CatanVectorEnv(3, obs_dtype="uint8")
    obs, info = venv.reset(seed=2)
    assert venv.single_observation_space.dtype == np.uint8 and obs.dtype == np.uint8
    assert venv.observation_space.contains(obs)
    obs, *_ = venv.step(venv.batch.sample_actions())
    assert venv.observation_space.contains(obs)


def test_the_sb3_and_rllib_batched_wrappers_refuse_compact_observations():
    from catan_env.wrappers.sb3 import make_batched_vec_env
    with pytest.raises(ValueError, match="float32"):
        make_batched_vec_env(2, obs_dtype="uint8")
