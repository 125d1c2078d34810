"""PettingZoo AEC env, Gymnasium env, rendering and replay."""
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test, state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import catan_env
from catan_env.core import game as G
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core import game as G
from catan_env.core.observe import TAIL_SIZE, VECTOR_SIZE
from catan_env.core.actions import N_ACTIONS as C_N_ACTIONS


def test_pettingzoo_api_test_vector_and_planes():
    api_test(catan_env.env(), num_cycles=300)
    api_test(catan_env.env(obs_type="planes", players=3), num_cycles=200)


def test_pettingzoo_seed_render_state_tests():
    seed_test(catan_env.env)
    render_test(lambda render_mode=None: catan_env.env(render_mode=render_mode))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state_test(catan_env.env(), turn_based_aec_to_parallel(catan_env.raw_env()))


def test_registration_and_make():
    if hasattr(pettingzoo, "make"):  # PettingZoo >= 1.27 has an env registry
        e = pettingzoo.make("aec", "catan_v0", players=2)
        e.reset(seed=1)
        assert e.possible_agents == ["player_0", "player_1"]
    g = gymnasium.make("catan_env/Catan-v0", players=3)
    obs, info = g.reset(seed=0)
    assert obs.shape == (VECTOR_SIZE,)


def test_spaces_are_the_same_objects_and_masks_only_for_decider():
    e = catan_env.raw_env(obs_type="planes")
    assert e.observation_space("player_1") is e.observation_space("player_1")
    assert e.action_space("player_1") is e.action_space("player_1")
    e.reset(seed=3)
    sel = e.agent_selection
    for a in e.agents:
        o = e.observe(a)
        assert o["action_mask"].dtype == np.int8
        assert (o["action_mask"].sum() > 0) == (a == sel)
        assert o["observation"]["vector"].shape == (TAIL_SIZE,)
        assert e.observation_space(a).contains(o)


def _drive(e, seed, steps):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    for agent in e.agent_iter(steps):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, a, rew))
        e.step(a)
    return trace


def test_agent_selection_follows_decider_with_out_of_turn_actors():
    e = catan_env.raw_env()
    trace = _drive(e, 5, 4000)
    agents = [t[0] for t in trace]
    repeats = sum(1 for x, y in zip(agents, agents[1:]) if x == y)
    assert repeats > 10  # the same agent acts many times in a row
    names = [A.action_name(t[1]) for t in trace]
    assert any(n.startswith(("DISCARD", "TRADE_ACCEPT", "TRADE_REJECT", "TRADE_COUNTER")) for n in names)


def test_rewards_and_termination():
    e = catan_env.raw_env(players=3)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in e.agents}
    for agent in e.agent_iter(100000):
        obs, rew, term, trunc, info = e.last()
        totals[agent] += rew
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winner = int(e.game_state[L.WINNER])
    assert winner >= 0, "this seed's random game must end in a win (pick another seed if the rules change)"
    assert totals == {a: (1.0 if i == winner else -1.0) for i, a in enumerate(e.possible_agents)}


def test_truncation_gives_zero_reward():
    e = catan_env.raw_env(max_turns=3)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = {}
    for agent in e.agent_iter(10000):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            seen[agent] = (rew, term, trunc)
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert set(seen) == set(e.possible_agents)
    assert all(v == (0.0, False, True) for v in seen.values())


def test_vp_shaping_rewards():
    e = catan_env.raw_env(vp_reward=0.1)
    trace = _drive(e, 1, 200)
    assert any(abs(r) > 0 for _, _, r in trace)


def test_raw_env_illegal_action_raises_and_keeps_state():
    e = catan_env.raw_env()
    e.reset(seed=0)
    before = e.game_state.copy()
    with pytest.raises(catan_env.IllegalActionError, match=r"END_TURN .*illegal"):
        e.step(A.END_TURN)
    assert np.array_equal(before, e.game_state)


def test_wrapped_env_terminates_on_illegal_action():
    e = catan_env.env()
    e.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(A.END_TURN)
    assert all(e.terminations.values())
    assert e.rewards[e.possible_agents[0]] == -1


def _trace(e, seed, rng_seed, illegal_every, steps=700):
    """Everything the agents see over random play with an illegal or out-of-range move
    every so often (and None steps for finished agents until the game is empty)."""
    e.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k, agent in enumerate(e.agent_iter(steps)):
            obs, r, term, trunc, info = e.last()
            out.append((agent, r, term, trunc, info.get("last_action"), obs["observation"].sum(),
                        obs["action_mask"].tobytes()))
            if term or trunc:
                action = None
            elif k % illegal_every == illegal_every - 1:
                action = int(np.flatnonzero(obs["action_mask"] == 0)[rng.integers(10)])
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            e.step(action)
    return out


@pytest.mark.parametrize("illegal_every", [40, 10 ** 6])
def test_env_matches_pettingzoo_wrapper_chain(illegal_every):
    """env() builds the classic wrappers' checks in; it must behave exactly as raw_env
    inside PettingZoo's own chain (the reference), illegal moves included."""
    from catan_env.aec_env import wrapped_env
    for seed in (0, 1):
        fast = _trace(catan_env.env(vp_reward=0.1, max_turns=30), seed, seed, illegal_every)
        ref = _trace(wrapped_env(vp_reward=0.1, max_turns=30), seed, seed, illegal_every)
        assert fast == ref and len(fast) > 30


def test_env_order_enforcing_and_bounds_like_the_wrappers():
    from catan_env.aec_env import wrapped_env
    for make in (catan_env.env, wrapped_env):
        e = make()
        for name in ("rewards", "agent_selection", "agents", "num_agents"):
            with pytest.raises(AttributeError, match="before reset"):
                getattr(e, name)
        for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.state(),
                     lambda: e.agent_iter()):
            with pytest.raises(AssertionError, match="reset"):
                call()
        e.reset(seed=0)
        # ours names the problem; PettingZoo's own chain raises its bare AssertionError
        expected = (G.InvalidActionError, "integer id|out of range") if make is catan_env.env else \
            (AssertionError, "action space")
        for bad in (-1, C_N_ACTIONS, None, 2.5):
            with pytest.raises(expected[0], match=expected[1]):
                e.step(bad)
        assert not any(e.terminations.values())


def test_same_seed_same_trajectory_in_separate_processes():
    code = ("import numpy as np, catan_env\n"
            "e = catan_env.raw_env(); e.reset(seed=11); rng = np.random.default_rng(3); out = []\n"
            "for agent in e.agent_iter(1500):\n"
            "    obs, r, t, tr, _ = e.last()\n"
            "    a = None if (t or tr) else int(rng.choice(np.flatnonzero(obs['action_mask'])))\n"
            "    out.append((agent, a, round(float(obs['observation'].sum()), 4))); e.step(a)\n"
            "print(str(out)[-2000:], len(out))\n")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) > 100


def test_infoset_hides_truth_and_determinizes():
    e = catan_env.raw_env()
    _drive(e, 4, 1500)
    agent = e.agent_selection
    info = e.infoset()
    seat = e.agent_name_mapping[agent]
    assert np.array_equal(info.hand(), G.L.view(e.game_state, "hand")[seat])
    assert np.array_equal(info.observe(), G.observe(e.game_state, seat))
    d = info.determinize(7)
    assert np.array_equal(G.observe(d, seat), G.observe(e.game_state, seat))
    pub = info.public_state()
    other = (seat + 1) % 4
    assert (G.L.view(pub, "hand")[other] == -1).all()
    assert list(info.legal_actions()) == list(G.legal_actions(e.game_state))


def test_gym_env_checkers_and_illegal_actions():
    from gymnasium.utils.env_checker import check_env
    from catan_env.gym_env import CatanGymEnv
    g = CatanGymEnv(max_illegal=5)
    check_env(g, skip_render_check=True)
    obs, info = g.reset(seed=0)
    illegal = int(np.flatnonzero(~g.action_masks())[0])
    state = g.game_state.copy()
    for k in range(4):
        _, r, term, trunc, info = g.step(illegal)
        assert r == g.illegal_penalty and not trunc and info["illegal_actions"] == k + 1
    assert np.array_equal(state, g.game_state)
    _, _, _, trunc, _ = g.step(illegal)
    assert trunc


def test_gym_env_plays_full_episodes_with_seat_randomised():
    from catan_env.gym_env import CatanGymEnv
    g = CatanGymEnv(opponents=["random", lambda o: int(np.flatnonzero(o["action_mask"])[0]), "random"])
    seats = set()
    for ep in range(4):
        obs, info = g.reset(seed=ep)
        seats.add(info["learner_seat"])
        done = False
        total = 0.0
        while not done:
            legal = np.flatnonzero(g.action_masks())
            obs, r, term, trunc, info = g.step(int(legal[0]) if len(legal) == 1 else int(legal[-1]))
            total += r
            done = term or trunc
        assert total in (-1.0, 1.0, 0.0)
    assert len(seats) > 1


def test_sb3_check_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env
    from catan_env.gym_env import CatanGymEnv
    check_env(CatanGymEnv(), warn=False)


def test_render_modes_and_replay(tmp_path):
    e = catan_env.raw_env(render_mode="rgb_array")
    _drive(e, 0, 300)
    frame = e.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10
    e = catan_env.raw_env(render_mode="ansi")
    _drive(e, 0, 300)
    text = e.render()
    assert "phase" in text and "P0" in text
    # record a game, replay it, and export frames
    s = G.new_game(seed=4)
    rec = catan_env.GameRecord(G.options_of(s), 4)
    rng = np.random.default_rng(1)
    for _ in range(120):
        a = int(rng.choice(G.legal_actions(s)))
        G.step(s, a)
        rec.append(a)
    path = tmp_path / "g.json"
    rec.save(path)
    steps = list(catan_env.replay(path, render_mode="ansi"))
    assert len(steps) == 121 and np.array_equal(steps[-1].state, s)
    from catan_env.apps.replays import main
    main([str(path), "--out", str(tmp_path / "frames"), "--gif", str(tmp_path / "g.gif"), "--every", "40"])
    assert len(list((tmp_path / "frames").glob("*.png"))) == 4
    assert (tmp_path / "g.gif").stat().st_size > 1000


def test_train_example_runs_with_a_tiny_budget(tmp_path):
    pytest.importorskip("sb3_contrib")
    import subprocess
    import os
    script = os.path.join(os.path.dirname(__file__), "..", "examples", "train_maskable_ppo.py")
    out = subprocess.run([sys.executable, script, "--timesteps", "1536", "--log-every", "512",
                          "--eval-games", "1", "--out", str(tmp_path)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "win rate" in out.stdout and "step " in out.stdout          # progress lines
    assert (tmp_path / "model.zip").exists() and (tmp_path / "curve.csv").exists()
    assert (tmp_path / "learning_curve.png").exists()
    from catan_env.wrappers.sb3 import PolicyAgent                     # the saved model plays
    agent = PolicyAgent(str(tmp_path / "model.zip"))
    obs = {"observation": np.zeros(catan_env.core.VECTOR_SIZE, np.float32),
           "action_mask": np.ones(catan_env.N_ACTIONS, np.int8)}
    assert 0 <= agent.act(obs, None) < catan_env.N_ACTIONS


def test_human_render_mode_draws_without_a_screen():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    e = catan_env.raw_env(render_mode="human")
    _drive(e, 0, 20)
    assert e.render() is None
    e.close()


def test_bad_env_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="obs_type"):
        catan_env.raw_env(obs_type="pixels")
    with pytest.raises(ValueError, match="render_mode"):
        catan_env.raw_env(render_mode="video")
    with pytest.raises(ValueError, match="players"):
        catan_env.raw_env(players=7)
    from catan_env.gym_env import CatanGymEnv
    with pytest.raises(ValueError, match="opponents"):
        CatanGymEnv(opponents=["random"])
    with pytest.raises(ValueError, match="learner_seat"):
        CatanGymEnv(learner_seat=4)
