"""The recipe end to end on a tiny budget: the teacher's games, behaviour cloning into an
SB3 MaskablePPO policy, PPO fine-tuning from it (SB3 and the single-file PPO), the exported
policy's greedy moves legal in every env, and the shipped policy without torch."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import catan_env
from catan_env.agents import make_agent
from catan_env.agents import distill as D
from catan_env.agents.learned import PRETRAINED_POLICY
from catan_env.batched import BatchedCatan, MLPWeights

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def greedy_moves_are_legal(spec, games=2):
    """The agent's moves in the AEC env, the Gymnasium env (as the learner) and the
    batched env (as an opponent) are all legal."""
    agent = make_agent(spec, seed=0)
    env = catan_env.env(players=4, max_turns=40)
    env.reset(seed=1)
    moves = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = agent.act(obs, None)
        assert obs["action_mask"][a]
        env.step(a)
        moves += 1
    import gymnasium
    gym_env = gymnasium.make("catan_env/Catan-v0", opponents="weighted", max_turns=40)
    obs, info = gym_env.reset(seed=2)
    done = False
    while not done:
        mask = gym_env.unwrapped.action_masks()
        a = agent.act({"observation": obs, "action_mask": mask}, None)
        assert mask[a]
        obs, _, term, trunc, info = gym_env.step(a)
        done = term or trunc
    venv = BatchedCatan(4, opponents=spec, seed=3, max_turns=40)
    venv.reset(seed=3)
    for _ in range(50):
        venv.step(venv.sample_actions())
    return moves


def test_the_shipped_policy_plays_legal_moves_everywhere():
    if not os.path.exists(PRETRAINED_POLICY):
        pytest.fail(f"the package ships no policy at {PRETRAINED_POLICY}")
    assert greedy_moves_are_legal("pretrained_policy") > 20
    venv = BatchedCatan(2, opponents="pretrained_policy", seed=0)
    assert venv.pool_kinds[0] >= 4  # played by the numba MLP pool, not paused for Python


def test_the_shipped_policy_loads_and_plays_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from catan_env.agents.arena import play_game\n"
            "r = play_game(['pretrained_policy', 'weighted', 'weighted', 'weighted'], seed=4, max_turns=60)\n"
            "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
            "print('turns', r['turns'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and "turns" in out.stdout, out.stderr[-2000:]


def test_clone_then_fine_tune_with_maskable_ppo_and_the_single_file_ppo(tmp_path):
    pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    data = str(tmp_path / "data")
    D.generate(data, games=2, shard_games=1, batch=2, max_turns=30, seed=1)
    bc = str(tmp_path / "bc")
    example("distill_policy").main(["--data", data, "--out", bc, "--epochs", "2", "--hidden", "32",
                                    "--batch", "256", "--eval-games", "0"])
    for name in ("model.zip", "actor.npz", "critic.npz", "state.json"):
        assert os.path.exists(os.path.join(bc, name)), name
    # the exported actor is the SB3 policy: same masked argmax on the data's observations
    from sb3_contrib import MaskablePPO
    model = MaskablePPO.load(os.path.join(bc, "model.zip"))
    rows = D.load(data)
    obs, masks = D.observations(rows["state"][:64], rows["seat"][:64])
    want, _ = model.predict(obs, action_masks=masks, deterministic=True)
    logits = MLPWeights.load(os.path.join(bc, "actor.npz")).numpy_forward(obs)
    logits[~masks] = -np.inf
    assert np.array_equal(logits.argmax(1), want)
    critic = MLPWeights.load(os.path.join(bc, "critic.npz")).numpy_forward(obs)[:, 0]
    with torch.no_grad():
        values = model.policy.predict_values(torch.as_tensor(obs)).numpy()[:, 0]
    np.testing.assert_allclose(critic, values, atol=1e-4)
    assert greedy_moves_are_legal(f"ppo:path={os.path.join(bc, 'actor.npz')}") > 20
    # resumable: more epochs continue from the saved one
    example("distill_policy").main(["--data", data, "--out", bc, "--epochs", "3", "--hidden", "32",
                                    "--batch", "256", "--eval-games", "0"])
    import json
    assert json.load(open(os.path.join(bc, "state.json")))["epoch"] == 3
    # a DAgger round: the clone plays, the teacher labels, and --init starts from the clone
    dagger = str(tmp_path / "dagger")
    D.generate(dagger, games=2, shard_games=2, batch=2, max_turns=30, seed=2,
               roll_in=f"ppo:path={os.path.join(bc, 'actor.npz')}", opponents=["weighted"])
    held = example("distill_policy").held_out_games
    alone = held(D.load(data)["game"], [data], 0)
    both = held(D.load(data, dagger)["game"], [data, dagger], 0)
    assert np.array_equal(both[:len(alone)], alone) and both[len(alone):].any()  # the first folder's split kept
    still = str(tmp_path / "bc_still")  # learning rate 0: the clone's own weights come out
    example("distill_policy").main(["--data", data, dagger, "--init", os.path.join(bc, "model.zip"), "--lr", "0",
                                    "--out", still, "--epochs", "1", "--hidden", "32", "--batch", "256",
                                    "--eval-games", "0"])
    for a, b in zip(MLPWeights.load(os.path.join(bc, "actor.npz")).layers,
                    MLPWeights.load(os.path.join(still, "actor.npz")).layers):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    # --init from exported weights (a folder with actor.npz and critic.npz): the same weights come out
    exported = str(tmp_path / "bc_exported")
    example("distill_policy").main(["--data", data, dagger, "--init", bc, "--lr", "0", "--out", exported,
                                    "--epochs", "1", "--batch", "256", "--eval-games", "0"])
    for name in ("actor.npz", "critic.npz"):
        before, after = (MLPWeights.load(os.path.join(f, name)).layers for f in (bc, exported))
        assert len(before) == len(after) == 3
        for a, b in zip(before, after):
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    with pytest.raises(ValueError, match="--init nowhere.npz: no such file"):
        example("distill_policy").main(["--data", data, "--init", "nowhere.npz", "--out", exported])
    # MaskablePPO fine-tuning starts from the cloned weights
    ppo = str(tmp_path / "ppo")
    example("train_maskable_ppo").main(["--init", os.path.join(bc, "model.zip"), "--batched", "4",
                                        "--timesteps", "64", "--eval-games", "1", "--lr", "2e-5",
                                        "--opponents", "pretrained:search=0,weighted", "--out", ppo])
    tuned = MaskablePPO.load(os.path.join(ppo, "model.zip"))
    assert tuned.learning_rate == 2e-5 and tuned.num_timesteps >= 64
    # the single-file PPO starts from the exported actor and critic
    T = example("train_ppo_batched")
    net = T.Agent(32)
    from catan_env.learned.mlp import load_into
    load_into(net.actor, MLPWeights.load(os.path.join(bc, "actor.npz")))
    x = torch.as_tensor(obs[:4])
    np.testing.assert_allclose(net.actor(x).detach().numpy(),
                               MLPWeights.load(os.path.join(bc, "actor.npz")).numpy_forward(obs[:4]), atol=1e-4)
    with pytest.raises(ValueError, match="cannot start the actor"):
        load_into(T.Agent(16).actor, MLPWeights.load(os.path.join(bc, "actor.npz")), "actor")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "train_ppo_batched.py"),
                          "--init", bc, "--total-steps", "256", "--num-envs", "4", "--num-steps", "32",
                          "--eval-games", "2", "--hidden", "32", "--opponents", "weighted",
                          "--out", str(tmp_path / "single")], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and "initialised from the exported actor and critic" in out.stdout, out.stderr[-2000:]


def test_potential_shaping_adds_gamma_phi_next_minus_phi():
    pytest.importorskip("stable_baselines3")
    from catan_env.learned.network import load_network
    from catan_env.wrappers.sb3 import make_batched_vec_env
    net = load_network()
    plain = make_batched_vec_env(3, seed=5, opponents=["weighted"], max_turns=12)
    shaped = make_batched_vec_env(3, seed=5, opponents=["weighted"], max_turns=12, potential="pretrained",
                                  potential_gamma=0.9, potential_scale=2.0)
    plain.reset()
    shaped.reset()
    phi = lambda venv: np.array([net.win_probs(s, int(p))[int(p)] for s, p in  # noqa: E731
                                 zip(venv.batch.states, venv.batch.learner_seats)])
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        masks = plain.action_masks()
        assert np.array_equal(masks, shaped.action_masks())  # the same games
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = phi(shaped)
        plain.step_async(actions)
        _, r_plain, done, _ = plain.step_wait()
        shaped.step_async(actions)
        _, r_shaped, done2, infos = shaped.step_wait()
        assert np.array_equal(done, done2)
        cut = np.array([bool(i.get("TimeLimit.truncated")) for i in infos])
        after = np.where(done & ~cut, 0.0, np.where(cut, before, phi(shaped)))
        np.testing.assert_allclose(r_shaped, r_plain + 2.0 * (0.9 * after - before), atol=1e-5)
        ends += int(done.sum())
    assert ends >= 1
