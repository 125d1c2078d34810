"""Options, boards, the action table and clear errors that leave state unchanged."""
import json

import numpy as np
import pytest

import catan_env
from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.board import BEGINNER_BOARD, validate_board
from helpers import game_after_setup, quiet_roll


def test_action_helpers_agree_with_the_action_table():
    """The jitted encoders / decoders of the two-argument families (used by the core,
    the search, the features, the robot and the Pioneers bridge) against the table, and
    the documented stride (id 205 + 4 h + k) as an independent check."""
    for i in range(C.N_ACTIONS):
        kind, args = C.action_kind(i), C.action_args(i)
        assert A.is_robber(i) == (kind == "MOVE_ROBBER")
        if kind == "MOVE_ROBBER":
            h, k = args
            assert (A.robber_hex(i), A.robber_victim(i)) == (h, k) and A.robber_action(h, k) == i
            assert i == 205 + 4 * h + k
            for n in (2, 3, 4):
                for mover in range(n):
                    assert A.robber_victim_seat(i, mover, n) == ((mover + k) % n if k else -1)
        elif kind == "TRADE_CONFIRM":
            (k,) = args
            assert A.confirm_action(k) == i
            for n in (2, 3, 4):
                for proposer in range(n):
                    assert A.confirm_partner(i, proposer, n) == (proposer + k) % n
        elif kind == "MARITIME_TRADE":
            assert A.maritime_action(*args) == i


def test_action_table_is_complete_and_reversible():
    names = [C.action_name(i) for i in range(C.N_ACTIONS)]
    assert len(set(names)) == C.N_ACTIONS == 432
    for i, n in enumerate(names):
        assert C.action_id(n) == i
    assert C.action_name(A.ROAD0 + 17) == "BUILD_ROAD(e17)"
    assert C.action_kind(A.ROBBER0 + 4 * 3 + 2) == "MOVE_ROBBER"
    assert C.action_args(A.ROBBER0 + 4 * 3 + 2) == (3, 2)
    kinds = [C.action_kind(i) for i in range(C.N_ACTIONS)]
    # every kind occupies one contiguous id range
    for k in set(kinds):
        ids = [i for i, x in enumerate(kinds) if x == k]
        assert ids == list(range(ids[0], ids[-1] + 1))
    # the ranges declared in actions.RANGES are exactly the table's kinds, in id order
    start = 0
    for kind, size in A.RANGES:
        assert kinds[start:start + size] == [kind] * size
        start += size
    assert start == C.N_ACTIONS
    # the documented ids are a stable contract (README, saved records)
    assert (A.ROAD0, A.SETTLEMENT0, A.CITY0, A.BUY_DEV, A.YOP0, A.MONOPOLY0, A.ROBBER0, A.DISCARD0,
            A.MARITIME0, A.OFFER0, A.TRADE_ACCEPT, A.COUNTER0, A.CONFIRM0, A.TRADE_CANCEL) == (
        2, 74, 128, 182, 185, 200, 205, 281, 286, 306, 366, 368, 428, 431)
    with pytest.raises(ValueError, match="unknown action name"):
        C.action_id("FLY")
    with pytest.raises(ValueError, match="out of range"):
        C.action_name(432)


@pytest.mark.parametrize("kw,match", [
    ({"players": 5}, "players"), ({"players": 1}, "players"), ({"vp_to_win": 0}, "vp_to_win"),
    ({"discard_limit": "7"}, "discard_limit"), ({"friendly_robber": 1}, "friendly_robber"),
    ({"max_offers_per_turn": -1}, "max_offers_per_turn"), ({"board": "hexagonal"}, "board"),
    ({"colour": "red"}, "unknown option"),
])
def test_bad_options_raise_naming_the_option(kw, match):
    with pytest.raises(ValueError, match=match):
        C.new_game(seed=0, **kw)


def _board(**change):
    b = json.loads(json.dumps(BEGINNER_BOARD))
    b.update(change)
    return b


@pytest.mark.parametrize("board,match", [
    (_board(terrain=BEGINNER_BOARD["terrain"][:18]), "19 hexes"),
    (_board(terrain=["lava"] + BEGINNER_BOARD["terrain"][1:]), "unknown terrain 'lava'"),
    (_board(terrain=["hills"] + BEGINNER_BOARD["terrain"][1:]), "expected 3 hills"),
    (_board(numbers=[5 if t == "desert" else n for t, n in zip(BEGINNER_BOARD["terrain"], BEGINNER_BOARD["numbers"])]),
     "desert"),
    (_board(numbers=[7] + BEGINNER_BOARD["numbers"][1:]), "invalid number 7"),
    (_board(harbours=["generic"] * 9), "harbour"),
    (_board(harbours=["gold"] + BEGINNER_BOARD["harbours"][1:]), "unknown harbour"),
    ({"terrain": []}, "missing keys"),
    ("{not json", "not valid JSON"),
])
def test_bad_boards_raise_clear_errors(board, match):
    with pytest.raises(ValueError, match=match):
        C.new_game(seed=0, board=board)


def test_board_round_trip_and_custom_board():
    b = validate_board(json.dumps(BEGINNER_BOARD))
    s = C.new_game(seed=0, board=b)
    assert C.read_board(s) == b
    assert s[L.ROBBER] == b["terrain"].index("desert")


def test_random_boards_have_no_adjacent_red_numbers_and_vary():
    from catan_env.core.rules import red_numbers_adjacent
    boards = set()
    for seed in range(50):
        s = C.new_game(seed=seed)
        assert not red_numbers_adjacent(s[L.HEX_NUMBER:L.HEX_NUMBER + 19].copy())
        validate_board(C.read_board(s))
        boards.add(tuple(s[:47]))
    assert len(boards) == 50


def test_illegal_action_raises_and_leaves_state_unchanged():
    s = game_after_setup()
    before = s.copy()
    with pytest.raises(C.IllegalActionError, match=r"END_TURN .*not allowed in phase pre_roll"):
        C.step(s, A.END_TURN)
    with pytest.raises(C.IllegalActionError, match="out of range"):
        C.step(s, 9999)
    with pytest.raises(C.IllegalActionError, match="an integer id"):
        C.step(s, "ROLL")
    with pytest.raises(C.IllegalActionError, match="dice total"):
        C.step(s, A.ROLL, outcome=13)
    assert np.array_equal(s, before)
    quiet_roll(s)
    before = s.copy()
    with pytest.raises(C.IllegalActionError, match="cannot afford"):
        C.step(s, A.CITY0 + 12)
    assert np.array_equal(s, before)


def test_forced_outcomes_are_read_back():
    s = game_after_setup()
    C.step(s, A.ROLL, outcome=9)
    assert C.chance_outcome(s, A.ROLL) == 9 and s[L.LAST_DIE1] + s[L.LAST_DIE2] == 9


def test_clear_messages_for_boards_and_keywords(tmp_path):
    import catan_env
    import gymnasium
    with pytest.raises(ValueError, match=r"unknown board 'beginer'; use 'random', 'beginner', a dict or a JSON file"):
        catan_env.raw_env(board="beginer")
    path = tmp_path / "board.json"
    path.write_text(json.dumps(BEGINNER_BOARD))
    e = catan_env.raw_env(board=str(path))          # a JSON file works too
    e.reset(seed=0)
    assert C.read_board(e.game_state) == BEGINNER_BOARD
    with pytest.raises(ValueError, match="max_turn.*accepted keywords: .*obs_type.*max_turns.*vp_reward.*players"):
        catan_env.raw_env(max_turn=5)
    with pytest.raises(ValueError, match="foo.*accepted keywords: .*opponents.*learner_seat.*max_turns.*players"):
        gymnasium.make("catan_env/Catan-v0", foo=1)


def test_gym_env_takes_agent_specs_like_the_clis():
    import gymnasium
    from catan_env.agents import JSettlersAgent
    g = gymnasium.make("catan_env/Catan-v0", opponents="jsettlers", players=3).unwrapped
    assert all(isinstance(o, JSettlersAgent) for o in g.opponents) and len(g.opponents) == 2
    g = gymnasium.make("catan_env/Catan-v0", opponents=["weighted", "mcts:iterations=5", "random"]).unwrapped
    obs, _ = g.reset(seed=1)
    for _ in range(40):
        _, _, term, trunc, _ = g.step(int(np.flatnonzero(g.action_masks())[0]))
        if term or trunc:
            break
    with pytest.raises(ValueError, match="unknown agent"):
        gymnasium.make("catan_env/Catan-v0", opponents="grandmaster")


def test_the_public_editing_api_keeps_cards_conserved_and_knowledge_true():
    """``core.edit`` (used by the Pioneers mirror and the scenario helpers) moves cards in
    public: totals are conserved and every observer's knowledge row stays a true bound."""
    from catan_env.core import edit as E
    from catan_env.core import invariants
    s = game_after_setup()
    quiet_roll(s)
    E.pay_to_bank(s, 0, L.view(s, "hand")[0].copy())
    E.gain_from_bank(s, 0, 0, 4)
    E.bank_trade(s, 0, 0, 4, 3)          # a 4:1 brick-for-grain trade seen elsewhere
    assert s[L.hand_i(0, 0)] == 0 and s[L.hand_i(0, 3)] == 1
    E.gain_from_bank(s, 1, 2, 2)
    E.transfer(s, 1, 0, 2, 1)
    s[L.dev_i(0, L.MONOPOLY)] += 1
    L.view(s, "deck")[L.MONOPOLY] -= 1
    E.play_dev_card(s, 0, L.MONOPOLY)
    assert s[L.DEV_PLAYED] == 1 and s[L.DEV_USED + L.MONOPOLY] == 1
    E.pay_to_bank(s, 0, L.view(s, "hand")[0].copy())
    assert invariants.problems(s) == []
    for o in list(range(4)) + [L.PUBLIC]:
        assert L.view(s, "know")[o, 0, :L.N_RES].sum() == 0  # seat 0's empty hand is public


@pytest.mark.parametrize("bad", [74.5, "7", True, np.bool_(True), -3, 10 ** 6, np.float32(2.0), None])
def test_every_env_refuses_a_value_that_is_no_action_and_changes_nothing(bad):
    """Integers (Python or numpy) in range only, in the raw and wrapped AEC envs, the
    Gymnasium env and the batched env; an error naming the problem, state unchanged."""
    import gymnasium
    from catan_env.batched.env import BatchedCatan
    for env in (catan_env.raw_env(), catan_env.env()):
        env.reset(seed=3)
        before = env.unwrapped.game_state.copy()
        with pytest.raises(C.IllegalActionError, match="integer id|out of range|must act"):
            env.step(bad)
        assert np.array_equal(env.unwrapped.game_state, before) and not any(env.terminations.values())
    gym = gymnasium.make("catan_env/Catan-v0")
    gym.reset(seed=3)
    before = gym.unwrapped._aec.game_state.copy()
    with pytest.raises(C.InvalidActionError, match="integer id|out of range"):
        gym.step(bad)
    assert np.array_equal(gym.unwrapped._aec.game_state, before)
    if bad is None or isinstance(bad, str):
        return
    batched = BatchedCatan(3)
    batched.reset(seed=3)
    games = batched.games.copy()
    with pytest.raises(C.InvalidActionError, match="integer ids|must be 0-"):
        batched.step(np.full(3, bad))
    assert np.array_equal(batched.games, games)


def test_numpy_integers_and_0d_integer_arrays_are_actions():
    env = catan_env.raw_env()
    env.reset(seed=3)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.int32(legal))
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.array(legal))
    assert len(env.unwrapped._history) == 2


def test_observing_an_unknown_agent_names_the_known_ones():
    env = catan_env.raw_env(players=3)
    env.reset(seed=0)
    with pytest.raises(KeyError, match="unknown agent 'player_9'.*player_0, player_1, player_2"):
        env.observe("player_9")
