"""RLlib glue: the turn-based multi-agent env (frozen seats included), PPO training from
examples/train_rllib.py, and its checkpoint as an arena agent.  Needs the [rllib] extra
(ray pins gymnasium 1.2.2): .ci/run runs this file in its own environment, with skips
forbidden."""
import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.extras
pytest.importorskip("ray.rllib")

import catan_env  # noqa: E402
from catan_env.agents.arena import play_game  # noqa: E402
from catan_env.agents.registry import make_agent  # noqa: E402
from catan_env.wrappers.rllib import CatanMultiAgentEnv, ppo_config, rllib_env  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play(env, seed, rng):
    """A game of masked random learner moves: (trace of (agent, action), reward sums, flags)."""
    obs, _ = env.reset(seed=seed)
    trace, totals = [], dict.fromkeys(env.possible_agents, 0.0)
    while True:
        (agent, o), = obs.items()
        assert agent in env.possible_agents and env.observation_space[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        trace.append((agent, action))
        obs, rew, term, trunc, _ = env.step({agent: action})
        for a, r in rew.items():
            totals[a] += r
        if term["__all__"] or trunc["__all__"]:
            assert sorted(obs) == sorted(env.possible_agents)  # everyone sees the end
            return trace, totals, term, trunc


def test_env_plays_full_games_with_masks_and_zero_sum_ends():
    env = rllib_env({"players": 3, "max_turns": 300})
    rng = np.random.default_rng(0)
    finished = 0
    for seed in range(3):
        trace, totals, term, trunc = play(env, seed, rng)
        assert len(trace) > 50
        if term["__all__"]:
            finished += 1
            winner = env.game.game_stats()["winner"]
            assert totals == {a: (1.0 if a == f"player_{winner}" else -1.0) for a in env.possible_agents}
        else:
            assert trunc["__all__"] and set(totals.values()) == {0.0}
    assert finished >= 1


def test_frozen_seats_are_played_inside_and_never_exposed():
    env = CatanMultiAgentEnv({"players": 4, "max_turns": 200,
                              "opponents": {2: "jsettlers", "player_3": "weighted"}})
    assert env.possible_agents == ["player_0", "player_1"]
    trace, _, _, _ = play(env, 7, np.random.default_rng(1))
    assert {a for a, _ in trace} == {"player_0", "player_1"}
    assert sum(env.game.game_stats()["vp"][2:]) > 4  # the robots built beyond their set-up
    # the same seed and learner moves replay the same game, robots included
    again, _, _, _ = play(env, 7, np.random.default_rng(1))
    assert again == trace


def test_illegal_action_ends_the_game_with_minus_one():
    env = rllib_env({"players": 2})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rew, term, trunc, _ = env.step({agent: illegal})
    assert term["__all__"] and rew[agent] == -1.0
    assert all(r == 0.0 for a, r in rew.items() if a != agent)


def test_bad_options_are_clear_errors():
    with pytest.raises(ValueError, match="not a seat"):
        CatanMultiAgentEnv({"players": 2, "opponents": {3: "random"}})
    with pytest.raises(ValueError, match="leave at least one seat"):
        CatanMultiAgentEnv({"players": 2, "opponents": {0: "random", 1: "random"}})
    with pytest.raises(ValueError, match="unknown agent"):
        CatanMultiAgentEnv({"players": 2, "opponents": {1: "nobody"}})
    with pytest.raises(ValueError, match="not in"):
        ppo_config("catan", {}, policies=["a"], policy_mapping={"player_0": "b"})
    with pytest.raises(ValueError, match="needs path"):
        make_agent("rllib")
    with pytest.raises(ValueError, match="no policy"):
        make_agent(f"rllib:path={ROOT}")


def test_policy_mapping_training_saves_a_checkpoint_that_plays_in_the_arena(tmp_path, capsys):
    train = load_example("train_rllib")
    out = tmp_path / "ckpt"
    path = train.main(["--players", "4", "--opponents", "2=jsettlers,3=weighted", "--per-seat-policies",
                       "--iterations", "2", "--env-runners", "1", "--batch", "400", "--minibatch", "200",
                       "--epochs", "1", "--max-turns", "40", "--num-cpus", "2", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "'player_0': 'learner_0'" in printed and "'player_1': 'learner_1'" in printed
    assert "iter   2" in printed and "steps/s" in printed
    pids = printed.split("env-runner pids ")[1].split("\n")[0]
    assert str(os.getpid()) not in pids and pids.startswith("[")  # env runners: other processes
    for policy in ("learner_0", "learner_1"):
        agent = make_agent(f"rllib:path={path}:policy={policy}")
        result = play_game([agent, "random", "jsettlers", "random"], seed=3, max_turns=40)
        assert result["steps"] > 50
        # the agent plays its policy's masked argmax, a legal move by construction
        env = CatanMultiAgentEnv({"players": 2})
        obs, _ = env.reset(seed=1)
        (name, o), = obs.items()
        logits = agent.logits({"observation": o["observations"], "action_mask": o["action_mask"].astype(np.int8)})
        legal = np.flatnonzero(o["action_mask"])
        assert agent.act({"observation": o["observations"], "action_mask": o["action_mask"]}, None) \
            == legal[np.argmax(logits[legal])]


def test_single_agent_training_on_the_batched_vector_env_exports_the_same_policy(tmp_path):
    train = load_example("train_rllib")
    out = tmp_path / "single"
    res = train.main(["--vs", "random", "--env-runners", "1", "--games-per-runner", "8", "--batch", "512",
                      "--minibatch", "256", "--epochs", "1", "--iterations", "2", "--eval-games", "2",
                      "--hidden", "32", "--max-turns", "60", "--num-cpus", "2", "--out", str(out)])
    assert res["steps"] >= 1024 and 0.0 <= res["rate"] <= 1.0
    rows = (out / "curve.csv").read_text().splitlines()
    assert rows[0] == "minutes,env_steps,wins,games,win_rate,lo,hi" and len(rows) == 2
    # the exported MLP plays the RLModule's own masked greedy moves, all legal
    rl = make_agent(f"rllib:path={out}:policy=default_policy")
    mlp = make_agent(f"ppo:path={out / 'actor.npz'}")
    env = catan_env.env(players=4, max_turns=60)
    env.reset(seed=5)
    for _ in range(300):
        name = env.agent_selection
        if env.terminations[name] or env.truncations[name]:
            break
        obs = env.observe(name)
        action = rl.act(obs, None)
        assert obs["action_mask"][action] and mlp.act(obs, None) == action
        env.step(action)
