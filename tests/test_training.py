"""Training paths past random: the single-file batched PPO, SB3 on the batched VecEnv
with a self-play pool, and trained policies as arena agents."""
import os
import subprocess
import sys

import numpy as np
import pytest

import catan_env
from catan_env.agents import make_agent
from catan_env.agents.arena import play_game
from catan_env.batched import BatchedCatan, MLPWeights, snapshot_pool

torch = pytest.importorskip("torch")
EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def test_snapshot_pool_weights():
    a, b, c = (MLPWeights([(np.zeros((2, 2)), np.zeros(2), "identity")]) for _ in range(3))
    pool = snapshot_pool(["weighted", "jsettlers"], [a, b, c], anchor_weight=0.4)
    assert pool["weighted"] == pytest.approx(0.2) and pool["jsettlers"] == pytest.approx(0.2)
    assert pool[a] < pool[b] < pool[c] and sum(pool.values()) == pytest.approx(1.0)
    assert snapshot_pool(["random"], []) == {"random": 1.0}
    with pytest.raises(ValueError, match="anchor_weight"):
        snapshot_pool(["random"], [a], anchor_weight=1.5)


def test_ppo_script_trains_saves_and_loads_as_an_arena_agent(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_ppo_batched.py"),
                          "--total-steps", "1024", "--num-envs", "8", "--num-steps", "64",
                          "--eval-games", "4", "--self-play", "--snapshot-every", "1",
                          "--opponents", "random,weighted", "--hidden", "32", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "steps/s" in out.stdout and "eval vs 3 random" in out.stdout
    assert "pool 2" in out.stdout  # a snapshot joined the pool after each update
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert rows[0].startswith("minutes,steps,opponent") and len(rows) == 5  # at start and end
    agent = make_agent(f"ppo:path={tmp_path / 'actor.npz'}")
    result = play_game([f"ppo:path={tmp_path / 'actor.npz'}", "random", "random", "random"], seed=3,
                       max_turns=60)
    assert result["turns"] >= 1
    # the saved actor equals the trained torch actor
    sys.path.insert(0, EXAMPLES)
    try:
        import train_ppo_batched as T
    finally:
        sys.path.pop(0)
    net = T.Agent(32)
    net.load_state_dict(torch.load(tmp_path / "agent.pt")["agent"])
    x = np.random.default_rng(0).random(net.actor[0].in_features).astype(np.float32)
    want = net.actor(torch.as_tensor(x)).detach().numpy()
    np.testing.assert_allclose(agent.weights.numpy_forward(x), want, atol=1e-5)
    # --resume continues from the saved step count
    again = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_ppo_batched.py"),
                            "--total-steps", "2048", "--num-envs", "8", "--num-steps", "64",
                            "--eval-games", "2", "--hidden", "32", "--resume", "--out", str(tmp_path)],
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "resumed at step 1024" in again.stdout, again.stderr[-2000:]


def test_mlp_policy_agent_plays_its_argmax_and_refuses_wrong_inputs(tmp_path):
    rng = np.random.default_rng(0)
    from catan_env.core.observe import VECTOR_SIZE
    from catan_env.core.actions import N_ACTIONS
    net = MLPWeights([(rng.normal(size=(VECTOR_SIZE, 8)), rng.normal(size=8), "tanh"),
                      (rng.normal(size=(8, N_ACTIONS)), rng.normal(size=N_ACTIONS), "identity")])
    net.save(tmp_path / "actor.npz")
    agent = make_agent(f"ppo:path={tmp_path}")  # a run folder works too
    mask = np.zeros(N_ACTIONS, np.int8)
    mask[[5, 17, 300]] = 1
    obs = {"observation": rng.random(VECTOR_SIZE).astype(np.float32), "action_mask": mask}
    logits = net.numpy_forward(obs["observation"])
    assert agent.act(obs, None) == [5, 17, 300][int(np.argmax(logits[[5, 17, 300]]))]
    with pytest.raises(ValueError, match="flat observation"):
        agent.act({"observation": np.zeros(3, np.float32), "action_mask": mask}, None)
    with pytest.raises(ValueError, match="path"):
        make_agent("ppo")


def test_sb3_self_play_callback_fills_the_pool_and_sb3_agent_spec(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from catan_env.wrappers.sb3 import make_batched_vec_env, self_play_callback
    venv = make_batched_vec_env(8, seed=0, opponents=["weighted"], skip_forced=True, max_turns=50)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    cb = self_play_callback(venv, anchors=["weighted"], every=256, pool_size=2, anchor_weight=0.5)
    model.learn(1024, callback=cb)
    assert len(cb.snapshots) == 2  # capped at pool_size
    assert venv.batch.layers.shape[0] == 2 * 3 and venv.batch.pool_kinds.tolist() == [2, 4, 5]
    for _ in range(200):  # the snapshots play inside numba
        venv.step_async(venv.batch.sample_actions())
        venv.step_wait()
    model.save(tmp_path / "m.zip")
    agent = make_agent(f"sb3:path={tmp_path / 'm.zip'}")
    result = play_game([agent, "random", "random"], seed=1, max_turns=40)
    assert result["turns"] >= 1


def test_external_python_agents_in_the_batch():
    b = BatchedCatan(3, opponents={"jsettlers": 1, "weighted": 1}, skip_forced=True, seed=2)
    b.reset()
    for _ in range(300):
        b.step(b.sample_actions())
        assert not b.games[:, 3].any()  # no game left waiting for a Python agent
    assert b._external_agents  # JSettlers copies were made per game and seat


def test_sb3_example_on_the_batched_vec_env_with_self_play(tmp_path):
    pytest.importorskip("sb3_contrib")
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_maskable_ppo.py"), "--batched", "8",
                          "--self-play-every", "256", "--timesteps", "1024", "--log-every", "512",
                          "--eval-games", "1", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "trained 1024 steps" in out.stdout and (tmp_path / "model.zip").exists()
    # 128 steps a game is too short to finish one: the run says so instead of an empty curve
    assert "no episode finished in 1024 learner steps (8 games side by side, 128 steps each)" in out.stdout


def test_clone_script_records_trains_and_warm_starts_ppo(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "clone_jsettlers.py"), "--games", "3",
                          "--epochs", "1", "--eval-games", "2", "--hidden", "32", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "held-out move agreement" in out.stdout and "clone vs 3 jsettlers" in out.stdout
    with np.load(tmp_path / "data.npz") as z:
        assert len(z["actions"]) == len(z["obs"]) > 100 and set(np.unique(z["outcome"])) <= {-1.0, 1.0}
    ppo = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_ppo_batched.py"), "--init",
                          str(tmp_path / "agent.pt"), "--hidden", "32", "--total-steps", "512",
                          "--num-envs", "8", "--num-steps", "64", "--eval-games", "2",
                          "--out", str(tmp_path / "ft")], capture_output=True, text=True, timeout=600)
    assert ppo.returncode == 0 and "initialised from" in ppo.stdout, ppo.stderr[-2000:]


def test_sb3_example_trains_to_a_time_budget_and_exports_its_greedy_policy(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_maskable_ppo.py"), "--envs", "2",
                          "--minutes", "0.03", "--eval-every", "1", "--curve-games", "2", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert rows[0] == "minutes,env_steps,wins,games,win_rate,lo,hi" and len(rows) >= 2
    model = MaskablePPO.load(tmp_path / "model.zip")
    agent = make_agent(f"ppo:path={tmp_path / 'actor.npz'}")
    env = catan_env.env(players=4, max_turns=60)
    env.reset(seed=6)
    for _ in range(200):
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        obs = env.observe(name)
        want, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool),
                                deterministic=True)
        assert obs["action_mask"][int(want)] and agent.act(obs, None) == int(want)
        env.step(int(want))
