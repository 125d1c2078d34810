"""Per-seat transitions (catan_env.wrappers.per_seat): constructed sequences, then real
games against a slow, obvious reference built from the AEC stream; and the next-step
autoreset vector env behind RLlib's env runners (no Ray needed)."""
import numpy as np
import pytest

import catan_env
from catan_env.batched import BatchedCatan
from catan_env.wrappers.per_seat import PerSeatGames, SeatTransitions, Transition
from catan_env.wrappers.rllib import CatanBatchedVectorEnv

P = ["player_0", "player_1", "player_2"]


def test_a_reward_earned_on_another_seats_move_reaches_the_seat():
    t = SeatTransitions(P)
    assert t.decide("player_0", "a0", 5) == []
    t.reward({"player_0": 0.1, "player_1": 0.0, "player_2": 0.0})
    assert t.decide("player_1", "b0", 7) == []
    t.reward({"player_0": -0.25, "player_1": 0.25, "player_2": 0.0})  # player_1's move costs player_0
    assert t.decide("player_2", "c0", 9) == []
    t.reward({"player_0": -0.5})
    done = t.decide("player_0", "a1", 3)
    assert done == [Transition("player_0", "a0", 5, pytest.approx(0.1 - 0.25 - 0.5), "a1", False, False)]


def test_a_discard_out_of_turn_opens_and_closes_the_discarders_own_transitions():
    t = SeatTransitions(P)
    t.decide("player_1", "b0", 1)       # player_1's earlier move
    t.reward({"player_1": 0.0})
    t.decide("player_0", "a0", 0)       # player_0 rolls a 7
    t.reward({"player_0": 0.0})
    done = t.decide("player_1", "b1", 281)  # player_1 discards out of turn
    assert done == [Transition("player_1", "b0", 1, 0.0, "b1", False, False)]
    t.reward({"player_1": -0.05})
    done = t.decide("player_0", "a1", 205)  # player_0 goes on: moves the robber
    assert done == [Transition("player_0", "a0", 0, 0.0, "a1", False, False)]
    t.reward({"player_0": 0.0})
    done = t.decide("player_1", "b2", 366)
    assert done == [Transition("player_1", "b1", 281, pytest.approx(-0.05), "b2", False, False)]


def test_the_game_end_closes_every_seat_including_those_that_did_not_act_last():
    t = SeatTransitions(P)
    for agent, obs in (("player_0", "a0"), ("player_1", "b0"), ("player_2", "c0"), ("player_0", "a1")):
        t.decide(agent, obs, 0)
    t.reward({"player_0": 1.0, "player_1": -1.0, "player_2": -1.0})  # player_0's last move wins
    done = t.end({"player_0": "A", "player_1": "B", "player_2": "C"}, terminated=True, truncated=False)
    assert sorted(done) == sorted([Transition("player_0", "a1", 0, 1.0, "A", True, False),
                                   Transition("player_1", "b0", 0, -1.0, "B", True, False),
                                   Transition("player_2", "c0", 0, -1.0, "C", True, False)])
    assert t.end({}, True, False) == []  # nothing open after the end


def test_truncation_flags_and_seats_that_never_acted_and_bad_agents():
    t = SeatTransitions(P)
    t.decide("player_2", "c0", 4)
    done = t.end({"player_0": "A", "player_1": "B", "player_2": "C"}, terminated=False, truncated=True)
    assert done == [Transition("player_2", "c0", 4, 0.0, "C", False, True)]
    with pytest.raises(KeyError, match="player_7"):
        t.decide("player_7", "x", 0)


def reference_transitions(seed, players, choose, max_turns):
    """The obvious construction: record the whole AEC stream, then for each seat cut it at
    its decisions and sum its rewards over each stretch."""
    env = catan_env.env(players=players, max_turns=max_turns, vp_reward=0.05)
    env.reset(seed=seed)
    stream = []  # (agent, observation, action, this step's rewards)
    while not (any(env.terminations.values()) or any(env.truncations.values())):
        agent = env.agent_selection
        obs = env.observe(agent)
        action = choose(obs)
        env.step(action)
        stream.append((agent, obs, action, dict(env.rewards)))
    final = {a: env.observe(a) for a in env.possible_agents}
    term, trunc = any(env.terminations.values()), any(env.truncations.values())
    out = {}
    for agent in env.possible_agents:
        idx = [k for k, (a, *_) in enumerate(stream) if a == agent]
        seq = []
        for j, k in enumerate(idx):
            nxt = idx[j + 1] if j + 1 < len(idx) else len(stream)
            reward = sum(stream[m][3][agent] for m in range(k, nxt))
            last = nxt == len(stream)
            seq.append(Transition(agent, stream[k][1], stream[k][2], reward,
                                  final[agent] if last else stream[nxt][1], last and term, last and trunc))
        out[agent] = seq
    return out


def same(a, b):
    return (a.agent == b.agent and a.action == b.action and a.reward == pytest.approx(b.reward, abs=1e-9)
            and (a.terminated, a.truncated) == (b.terminated, b.truncated)
            and all(np.array_equal(x[k], y[k]) for x, y in ((a.obs, b.obs), (a.obs_next, b.obs_next))
                    for k in ("observation", "action_mask")))


@pytest.mark.parametrize("players,seed,max_turns", [(3, 11, 400), (4, 5, 400), (2, 8, 12)])
def test_per_seat_games_equal_the_reference_on_real_games(players, seed, max_turns):
    rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
    choose = lambda rng: (lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"]))))  # noqa: E731
    want = reference_transitions(seed, players, choose(rng_b), max_turns)
    games = PerSeatGames(1, learners="all", players=players, vp_reward=0.05, max_turns=max_turns)
    games.reset(seed=seed)
    got = {a: [] for a in games.agents}
    pick = choose(rng_a)
    while not games.finished:
        streams, obs = games.pending()
        assert streams[0] == games.agents.index(games.envs[0].agent_selection)  # stream = seat in game 0
        for stream, t in games.step([pick(obs[0])]):
            assert stream == games.agents.index(t.agent)
            got[t.agent].append(t)
    for agent in games.agents:
        assert len(got[agent]) == len(want[agent]) > 0
        assert all(same(a, b) for a, b in zip(got[agent], want[agent]))
    assert (games.finished[0]["winner"] >= 0) == want[games.agents[0]][-1].terminated


def test_one_learner_per_game_streams_chain_and_carry_the_learners_outcome():
    games = PerSeatGames(3, opponents=["random", "weighted"], learners="random", players=4, vp_reward=0.0,
                         max_turns=300)
    games.reset(seed=2)
    rng = np.random.default_rng(0)
    last = {}
    outcomes = []
    while len(outcomes) < 6:
        streams, obs = games.pending()
        assert list(streams) == [0, 1, 2]  # one stream per game
        done = games.step([int(rng.choice(np.flatnonzero(o["action_mask"]))) for o in obs])
        for stream, t in done:
            prev = last.get(stream)
            if prev is not None and not (prev.terminated or prev.truncated):
                assert prev.agent == t.agent
                assert np.array_equal(prev.obs_next["observation"], t.obs["observation"])
            last[stream] = t
            if t.terminated or t.truncated:
                outcomes.append(t.reward)
        for st in games.pop_finished():
            assert len(st["learners"]) == 1
    # no VP shaping: the learner's last transition carries exactly +1, -1 or 0 (a capped game)
    assert set(outcomes) <= {1.0, -1.0, 0.0}


def test_a_pool_of_opponents_is_drawn_per_seat_and_game_and_takes_snapshots():
    """opponents={spec: weight} draws each non-learning seat of each game by weight (the
    league the batched env takes); set_opponents swaps in a pool holding a frozen snapshot
    of the learner (MLPWeights, played greedily); bad pools are refused by name."""
    from catan_env.agents.learned import MLPPolicyAgent
    from catan_env.batched import snapshot_pool
    from catan_env.core.observe import VECTOR_SIZE
    from catan_env.core.actions import N_ACTIONS
    from catan_env.learned.mlp import MLPWeights
    games = PerSeatGames(4, opponents={"random": 1.0, "weighted": 3.0}, learners="random", players=4,
                         max_turns=30)
    games.reset(seed=5)
    drawn = []
    for _ in range(6):  # new games start as old ones end: the draws go on
        drawn += [type(bot).__name__ for bots in games._bots for bot in bots.values()]
        for i in range(games.n_games):
            games._start(i)
    assert {"RandomAgent", "WeightedRandomAgent"} <= set(drawn), set(drawn)
    assert drawn.count("WeightedRandomAgent") > drawn.count("RandomAgent")  # by weight
    rng = np.random.default_rng(0)
    snapshot = MLPWeights([(rng.normal(0, 0.1, (VECTOR_SIZE, N_ACTIONS)), np.zeros(N_ACTIONS), "identity")])
    games.set_opponents(snapshot_pool(["random"], [snapshot], anchor_weight=0.5))
    for i in range(games.n_games):
        games._start(i)
    bots = [bot for bots in games._bots for bot in bots.values()]
    assert any(isinstance(bot, MLPPolicyAgent) and bot.weights is snapshot for bot in bots)
    for _ in range(30):  # the snapshot's moves are legal
        _, obs = games.pending()
        games.step([int(rng.choice(np.flatnonzero(o["action_mask"]))) for o in obs])
    with pytest.raises(ValueError, match="positive number"):
        games.set_opponents({"random": 0.0})
    with pytest.raises(ValueError, match="unknown agent"):
        games.set_opponents({"nosuch": 1.0})
    with pytest.raises(ValueError, match="at least one"):
        games.set_opponents({})


def test_bad_per_seat_options_are_clear_errors():
    with pytest.raises(ValueError, match="n_games"):
        PerSeatGames(0)
    with pytest.raises(ValueError, match="learners"):
        PerSeatGames(1, learners="some")
    with pytest.raises(ValueError, match="seat 5"):
        PerSeatGames(1, learners=5, players=4)
    with pytest.raises(ValueError, match="opponents"):
        PerSeatGames(1, opponents=None, learners="random")
    games = PerSeatGames(2, players=3)
    games.reset(seed=0)
    with pytest.raises(ValueError, match="2 actions"):
        games.step([0])


def test_held_games_do_not_move():
    a = BatchedCatan(4, opponents="random", seed=3)
    obs, masks = a.reset(seed=3)
    before = (obs.copy(), masks.copy(), a.games.copy())
    hold = np.array([True, False, True, False])
    obs, rew, term, trunc, masks = a.step(a.sample_actions(), hold=hold)
    assert np.array_equal(obs[hold], before[0][hold]) and np.array_equal(masks[hold], before[1][hold])
    assert np.array_equal(a.games[hold], before[2][hold]) and not rew[hold].any()
    assert not np.array_equal(obs[~hold], before[0][~hold])
    with pytest.raises(ValueError, match="hold"):
        a.step(a.sample_actions(), hold=[True])


def test_rllib_vector_env_autoresets_on_the_next_step():
    env = CatanBatchedVectorEnv({"num_envs": 8, "opponents": "random", "max_turns": 60, "vp_reward": 0.0})
    ref = BatchedCatan(8, opponents="random", max_turns=60, vp_reward=0.0, skip_forced=True)
    obs, _ = env.reset(seed=4)
    ref_obs, ref_masks = ref.reset(seed=4)
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(1)
    restarting = np.zeros(8, bool)
    ends = 0
    for _ in range(400):
        mask = obs["action_mask"].astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        ref_actions = np.where(restarting, 0, actions)
        obs, rew, term, trunc, _ = env.step(actions)
        r_obs, r_rew, r_term, r_trunc, r_masks = ref.step(ref_actions, hold=restarting)
        done = term | trunc
        assert np.array_equal(done, r_term | r_trunc) and np.allclose(rew, r_rew)
        for i in range(8):
            if done[i]:  # the finished game's final view, then its successor's first
                assert np.array_equal(obs["observations"][i], ref.final_observation(i))
                ends += 1
            else:
                assert np.array_equal(obs["observations"][i], r_obs[i])
                assert np.array_equal(obs["action_mask"][i].astype(bool), r_masks[i])
            if restarting[i]:
                assert rew[i] == 0 and not done[i]
        restarting = done
    assert ends >= 8
