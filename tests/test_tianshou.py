"""Tianshou on our envs: its own PettingZoo adapter, the per-seat collector (each seat's
stored transitions are its own) and examples/train_tianshou.py (masked PPO).  Needs the
[tianshou] extra: .ci/run runs this file in its own environment, with skips forbidden."""
import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.extras
pytest.importorskip("tianshou")

import torch  # noqa: E402
from tianshou.algorithm import PPO  # noqa: E402
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Batch  # noqa: E402
from tianshou.env import PettingZooEnv  # noqa: E402
from tianshou.trainer import OnPolicyTrainerParams  # noqa: E402

import catan_env  # noqa: E402
from catan_env.agents.registry import make_agent  # noqa: E402
from catan_env.wrappers.per_seat import PerSeatGames  # noqa: E402
from catan_env.wrappers.tianshou import (ACTION_SPACE, MaskedActor, MaskedCritic,  # noqa: E402
                                         PerSeatCollector, observation_batch)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_tianshou_pettingzoo_env_runs_a_game_with_masks():
    env = PettingZooEnv(catan_env.env(players=3, max_turns=200))
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    steps = 0
    while not done:
        mask = np.asarray(obs["mask"], dtype=bool)
        assert mask.any() and obs["agent_id"] in env.agents
        obs, rewards, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
        steps += 1
    assert steps > 50
    assert sorted(rewards) in ([-1, -1, 1], [0, 0, 0])


def ppo(hidden=(32,)):
    actor, critic = MaskedActor(hidden), MaskedCritic(hidden)
    policy = DiscreteActorPolicy(actor=actor, action_space=ACTION_SPACE, deterministic_eval=True)
    return PPO(policy=policy, critic=critic, optim=AdamOptimizerFactory(lr=1e-3)), actor


def test_stored_transitions_of_a_seat_never_hold_another_seats_observation():
    torch.manual_seed(0)
    algorithm, _ = ppo()
    games = PerSeatGames(2, learners="all", players=3, vp_reward=0.05, max_turns=12)
    decisions = {}  # observation bytes -> seats that saw it at a decision
    step = games.step

    def recording_step(actions):
        for env in games.envs:
            agent = env.agent_selection
            decisions.setdefault(env.observe(agent)["observation"].tobytes(), set()).add(env.agent_name_mapping[agent])
        return step(actions)

    games.step = recording_step
    collector = PerSeatCollector(algorithm, games, buffer_size=6 * 400)
    collector.reset()
    stats = collector.collect(n_step=600)
    assert stats.n_collected_steps >= 600 and stats.n_collected_episodes >= 6  # 12-turn games end
    buf = collector.buffer
    checked = ends = 0
    for b, (lo, hi) in enumerate(zip(buf._offset, buf._offset + buf._lengths)):
        seat = b % 3  # stream = game * players + seat
        idx = np.arange(lo, hi)
        assert (buf.info.seat[idx] == seat).all()
        for k in idx:
            assert decisions[buf.obs.obs[k].tobytes()] == {seat}
            if buf.done[k]:
                ends += 1
                assert decisions.get(buf.obs_next.obs[k].tobytes(), {seat}) == {seat}  # the seat's final view
            else:  # bootstraps from the same seat's next decision, the next stored row
                assert decisions[buf.obs_next.obs[k].tobytes()] == {seat}
                if k + 1 < hi:  # (the stream's newest transition waits for its next one)
                    assert np.array_equal(buf.obs_next.obs[k], buf.obs.obs[k + 1])
                    checked += 1
    assert checked > 400 and ends >= 6  # every seat of every finished game closes


def test_tianshou_trainer_runs_on_the_per_seat_collector_and_plays_legal_moves():
    torch.manual_seed(1)
    algorithm, actor = ppo()
    games = PerSeatGames(2, opponents="random", players=4, vp_reward=0.05, max_turns=40)
    collector = PerSeatCollector(algorithm, games, buffer_size=2 * 1000)
    result = algorithm.run_training(OnPolicyTrainerParams(
        training_collector=collector, max_epochs=1, epoch_num_steps=300, collection_step_num_env_steps=150,
        update_step_num_repetitions=1, batch_size=64, verbose=False, show_progress=False))
    assert result.train_step >= 300
    policy = algorithm.policy
    policy.eval()
    env = catan_env.env(players=4, max_turns=60)
    env.reset(seed=4)
    for _ in range(300):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs = env.observe(agent)
        action = int(policy(Batch(obs=observation_batch([obs]), info=Batch())).act[0])
        assert obs["action_mask"][action], f"the trained policy chose a masked action {action}"
        env.step(action)


def test_train_tianshou_example_trains_to_its_budget_and_exports_the_arena_agent(tmp_path):
    spec = importlib.util.spec_from_file_location("train_tianshou", os.path.join(ROOT, "examples", "train_tianshou.py"))
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    args = ["--minutes", "0.05", "--eval-every", "1", "--eval-games", "2", "--games", "2",
            "--steps-per-update", "256", "--batch-size", "128", "--hidden", "32", "--max-turns", "60",
            "--out", str(tmp_path)]
    out = train.main(args)
    assert out["steps"] >= 256 and 0.0 <= out["rate"] <= 1.0
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert rows[0] == "minutes,env_steps,wins,games,win_rate,lo,hi" and len(rows) >= 3
    # the exported actor is the torch actor: same greedy moves, all legal
    agent = make_agent(f"ppo:path={tmp_path / 'actor.npz'}")
    ckpt = torch.load(tmp_path / "agent.pt")
    actor = MaskedActor([32])
    actor.load_state_dict({k[len("policy.actor."):]: v for k, v in ckpt["algorithm"].items()
                           if k.startswith("policy.actor.")})
    env = catan_env.env(players=4, max_turns=60)
    env.reset(seed=2)
    for _ in range(200):
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        obs = env.observe(name)
        logits, _ = actor(observation_batch([obs]))
        want = int(logits.argmax())
        assert obs["action_mask"][want] and agent.act(obs, None) == want
        env.step(want)
    again = train.main(args + ["--resume"])
    assert again["steps"] >= out["steps"]


def test_train_tianshou_example_plays_a_league_with_snapshots(tmp_path):
    """--opponents as a pool and --self-play-every: frozen snapshots of the policy join
    the anchors the opponents are drawn from (SB3's league, for Tianshou)."""
    spec = importlib.util.spec_from_file_location("train_tianshou", os.path.join(ROOT, "examples", "train_tianshou.py"))
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    out = train.main(["--minutes", "0.08", "--eval-every", "100", "--eval-games", "2", "--games", "2",
                      "--steps-per-update", "256", "--batch-size", "128", "--hidden", "32", "--max-turns", "60",
                      "--opponents", "random,weighted", "--self-play-every", "256", "--pool-size", "2",
                      "--out", str(tmp_path)])
    assert out["steps"] >= 512 and 1 <= out["snapshots"] <= 2


def test_train_tianshou_example_starts_from_a_cloned_actor_and_critic(tmp_path):
    """--init: the exported actor.npz and critic.npz of a cloned policy are the networks
    PPO starts from (the recipe's step 3 through Tianshou)."""
    from catan_env.learned.mlp import MLPWeights
    from catan_env.core.actions import N_ACTIONS
    from catan_env.core.observe import VECTOR_SIZE
    rng = np.random.default_rng(0)

    def mlp(n_out):
        return MLPWeights([(rng.normal(0, 0.1, (VECTOR_SIZE, 32)), rng.normal(0, 0.1, 32), "relu"),
                           (rng.normal(0, 0.1, (32, 32)), rng.normal(0, 0.1, 32), "relu"),
                           (rng.normal(0, 0.1, (32, n_out)), rng.normal(0, 0.1, n_out), "identity")])
    init = tmp_path / "bc"
    init.mkdir()
    actor_w, critic_w = mlp(N_ACTIONS), mlp(1)
    actor_w.save(str(init / "actor.npz"))
    critic_w.save(str(init / "critic.npz"))
    spec = importlib.util.spec_from_file_location("train_tianshou", os.path.join(ROOT, "examples", "train_tianshou.py"))
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    args = train.parse_args(["--hidden", "32", "32", "--init", str(init), "--games", "2"])
    algorithm, actor, collector = train.build(args)
    from catan_env.learned.mlp import load_into
    load_into(actor.net, actor_w)
    load_into(algorithm.critic.net, critic_w)
    x = rng.random((3, VECTOR_SIZE)).astype(np.float32)
    np.testing.assert_allclose(actor.net(torch.as_tensor(x)).detach().numpy(), actor_w.numpy_forward(x), atol=1e-4)
    flags = ["--eval-every", "1", "--eval-games", "2", "--games", "2", "--steps-per-update", "256",
             "--batch-size", "128", "--hidden", "32", "32", "--max-turns", "40", "--init", str(init), "--ent-coef", "0",
             "--eval-opponent", "weighted"]
    out = train.main(["--minutes", "0", "--out", str(tmp_path / "start"), *flags])  # no training: the start
    assert out["steps"] == 0
    start = MLPWeights.load(str(tmp_path / "start" / "actor.npz"))
    np.testing.assert_allclose(start.numpy_forward(x), actor_w.numpy_forward(x), atol=1e-5)
    out = train.main(["--minutes", "0.02", "--out", str(tmp_path / "run"), *flags])
    assert out["steps"] >= 256
    rows = (tmp_path / "run" / "curve.csv").read_text().splitlines()
    assert len(rows) >= 3
