"""Jitted kernels of the batched env: N games stepped in one call.

Per-game bookkeeping lives in tables with named columns, so the kernels take few
arguments: ``games`` (int64), ``vals`` (float64) and ``rngs`` (each game's own
generator, in the core's RNG slot: learner seats, next seeds, opponents' choices).
Outputs go into the caller's preallocated arrays.  Two modes share the kernels:

- learner mode: one learner seat per game; every other seat is an opponent kind
  (``OPP_RANDOM``, ``OPP_PRUNING``, ``OPP_WEIGHTED``: the core's playout policies;
  ``OPP_MLP + k``: net k of the MLP pool; ``OPP_EXTERNAL``: an opponent the caller plays:
  the kernel stops and the caller resumes the game with ``resume`` (a Python agent, or a
  value network whose greedy decisions the env computes for all waiting games in one
  numba call, ``catan_env.learned.greedy.greedy_batch``, compiled only when used; its
  offer memory lives in the games table's G_MEMORY columns).  A step applies the learner's
  action, then opponents' moves until the learner decides again or the game ends.
- all-seats mode: the caller acts for every seat; a step applies the action of each
  game's current decider and reports rewards for every seat.

Rewards follow the single envs exactly: +1 win / -1 loss at the end, 0 on truncation
(``max_turns``), plus ``vp_reward`` x the change of (own VP - mean public VP of the
others); an illegal action costs ``illegal_penalty``, leaves the game unchanged, and
after ``max_illegal`` of them the episode is truncated.  Finished games reset
automatically in the same step, their last observation kept in ``final_obs``.
"""
from collections import namedtuple
from typing import Union

import numpy as np
from numba import njit, prange
from ..core.jit_options import NO_RUNTIME, RUNTIME

from ..core.actions import N_ACTIONS
from ..core.arrays import copy_into
from ..core.cards import current_decider, shaping_value, total_vp
from ..core.layout import (BOARD_END, CITIES_LEFT, MAX_PLAYERS, PHASE, PH_GAME_OVER, PH_TRADE_RESPONSE, ROADS_LEFT,
                           ROBBER, SETTLEMENTS_LEFT, TURN, WINNER)
from ..core.observe import (VECTOR_SIZE, encode_board, encode_planes, encode_tail, encode_vector,
                            reseat_board)
from ..core.playout import pick_action
from ..core.rng import next_u64, randint, seed_rng
from ..core.rules import (FROM_RNG, apply_action, init_state, legal_actions, new_random_game, random_answer,
                          set_rule_variants)
from ..learned.greedy import MEMORY_SIZE, M_COUNT, M_TURN
from ..learned.mlp import masked_logits

# opponent kinds
OPP_RANDOM, OPP_PRUNING, OPP_WEIGHTED, OPP_EXTERNAL, OPP_MLP = 0, 1, 2, 3, 4

# config (int64 array)
C_PLAYERS, C_VP, C_DISCARD, C_FRIENDLY, C_TRADE, C_MAX_OFFERS = 0, 1, 2, 3, 4, 5
C_MAX_TURNS, C_MAX_ILLEGAL, C_FIXED_SEAT, C_SKIP_FORCED, C_ALL_SEATS = 6, 7, 8, 9, 10
C_PLANES, C_FIXED_BOARD, C_MLP_SAMPLE = 11, 12, 13  # C_MLP_SAMPLE: the env's opponent_sample (pool_sample's default)
C_RULES, C_SEVENS, C_DECK = 14, 15, 16  # rule variants; C_DECK: 5 columns
N_CONFIG = 21
# float config
F_VP_REWARD, F_ILLEGAL_PENALTY = 0, 1
N_FCONFIG = 2

# games table (int64, one row per game)
G_LEARNER, G_ILLEGAL, G_EP_LEN, G_WAITING, G_NEW, G_SEED, G_DECIDER = 0, 1, 2, 3, 4, 5, 6
G_OPP = 7           # 3 columns: pool index of the opponents at relative seats 1..3
G_BOARD_KEY = 10    # board_key of the board part now in the game's observation row
G_BOARD_SEAT = 11   # the observer that board part was encoded for
G_MEMORY = 12       # MEMORY_SIZE columns: the offers a value opponent made this turn
N_GAME_COLS = G_MEMORY + MEMORY_SIZE
# vals table (float64)
V_BASE = 0          # 4 columns: each seat's shaping value when it was last rewarded
V_RETURN = 4        # episode return so far (learner mode: the learner's)
N_VAL_COLS = 5
# statistics of the episodes that ended this step (int64 rows; valid where done)
E_WINNER, E_TURNS, E_LEN, E_LEARNER, E_VP, E_SEED = 0, 1, 2, 3, 4, 5
N_EP_COLS = 6
RNG_SEED_MIX = 0x5851F42D4C957F2D  # a game's RNG is seeded from its game seed xor this
# _end_episode's `over` for a truncated episode: a bool value, not the literal False (numba
# would compile a second _end_episode for the literal)
NOT_OVER = np.bool_(False)


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def _uniform(rng: np.ndarray) -> float:
    return (next_u64(rng) >> np.uint64(11)) / float(1 << 53)


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def _new_game(s: np.ndarray, cfg: np.ndarray, template: np.ndarray, seed: int) -> None:
    if cfg[C_FIXED_BOARD]:
        copy_into(s, template[:BOARD_END])
        init_state(s, cfg[C_PLAYERS], cfg[C_VP], cfg[C_DISCARD], cfg[C_FRIENDLY], cfg[C_TRADE],
                   cfg[C_MAX_OFFERS], seed)
    else:
        new_random_game(s, cfg[C_PLAYERS], cfg[C_VP], cfg[C_DISCARD], cfg[C_FRIENDLY],
                        cfg[C_TRADE], cfg[C_MAX_OFFERS], seed)
    set_rule_variants(s, cfg[C_RULES], cfg[C_SEVENS], cfg[C_DECK:C_DECK + 5])


# ---- the kernels' arguments, grouped (named tuples of arrays: two arrays of one dtype
# cannot be swapped by position)
# the games: states (N, STATE_SIZE), games table, vals table, each game's RNG
Batch = namedtuple("Batch", ["states", "games", "vals", "rngs"])
# the fixed setup: int and float config, the fixed board's template, the opponent pool
# (kind of each entry, cumulative draw probabilities, whether an MLP entry samples its
# move (1) or plays its argmax (0))
Setup = namedtuple("Setup", ["cfg", "fcfg", "template", "pool_kinds", "pool_cum", "pool_sample"])
# the MLP opponents' weights (``mlp.pack``)
Nets = namedtuple("Nets", ["params", "layers", "nets"])
# the caller's per-step outputs
Outputs = namedtuple("Outputs", ["rewards", "terminated", "truncated", "final_obs", "final_planes",
                                 "ep_stats", "ep_returns", "obs", "planes", "masks"])
# work buffers of one kernel call, made by ``make_scratch`` outside the stepping kernels:
# those run with ``**NO_RUNTIME`` (no numba runtime: they allocate nothing), so the arrays
# they pass around and the row views they take cost no atomic reference counts.  With the
# runtime, those counts were a third of an all-seats step's time (perf: NRT_incref and
# NRT_decref); without it a step at 256 games took 782 against 1,310 ns.
Scratch = namedtuple("Scratch", ["buf", "work", "x", "logits", "h1", "h2"])


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def _start_episode(b: Batch, i: int, seed: int, setup: Setup) -> None:
    """Game i starts the game of seed: learner seat and opponents drawn from its RNG."""
    s, games, vals, rng = b.states[i], b.games, b.vals, b.rngs[i]
    cfg, pool_cum = setup.cfg, setup.pool_cum
    games[i, G_SEED] = seed
    _new_game(s, cfg, setup.template, seed)
    if cfg[C_FIXED_SEAT] >= 0:
        games[i, G_LEARNER] = cfg[C_FIXED_SEAT]
    else:
        games[i, G_LEARNER] = randint(rng, cfg[C_PLAYERS])
    for k in range(3):
        x = _uniform(rng)
        j = 0
        while j < pool_cum.shape[0] - 1 and x >= pool_cum[j]:
            j += 1
        games[i, G_OPP + k] = j
    games[i, G_ILLEGAL] = 0
    games[i, G_EP_LEN] = 0
    games[i, G_WAITING] = 0
    games[i, G_NEW] = 1
    games[i, G_BOARD_KEY] = -1  # a new board: encode it afresh
    games[i, G_MEMORY + M_TURN] = -1
    games[i, G_MEMORY + M_COUNT] = 0
    vals[i, V_RETURN] = 0.0


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def _mlp_choice(s: np.ndarray, d: int, n: int, net: int, sample: int, rng: np.ndarray, nets: Nets, sc: Scratch) -> int:
    """Net's move for seat d among sc.buf[:n]: argmax of its legal logits, or a softmax
    sample."""
    buf, logits = sc.buf, sc.logits
    encode_vector(s, d, sc.x)
    masked_logits(nets.params, nets.layers, nets.nets[net], sc.x, buf, n, logits, sc.h1, sc.h2)
    best = 0
    for k in range(1, n):
        if logits[k] > logits[best]:
            best = k
    if not sample:
        return buf[best]
    top = logits[best]
    total = 0.0
    for k in range(n):
        logits[k] = np.exp(logits[k] - top)
        total += logits[k]
    u = _uniform(rng) * total
    for k in range(n):
        u -= logits[k]
        if u < 0.0:
            return buf[k]
    return buf[n - 1]


@njit(cache=True, inline='always')
def _advance(s: np.ndarray, rng: np.ndarray, games: np.ndarray, i: int, setup: Setup, nets: Nets, sc: Scratch) -> int:
    """Play game i's opponents (and with skip_forced any forced move of a caller-controlled
    seat) until a caller seat decides (0), an external opponent must act (1) or the
    episode ends (2).  s and rng: game i's state and RNG rows (views made once per
    settle)."""
    cfg, buf = setup.cfg, sc.buf
    learner = games[i, G_LEARNER]
    n_players = cfg[C_PLAYERS]
    max_turns = cfg[C_MAX_TURNS] if cfg[C_MAX_TURNS] > 0 else np.int64(1) << 62
    while True:
        if s[PHASE] == PH_GAME_OVER or s[TURN] > max_turns:
            return 2
        d = current_decider(s)
        if d == learner or cfg[C_ALL_SEATS]:
            if cfg[C_SKIP_FORCED] and legal_actions(s, buf) == 1:
                apply_action(s, buf[0], FROM_RNG)
                continue
            return 0
        entry = games[i, G_OPP + (d - learner + n_players) % n_players - 1]
        kind = setup.pool_kinds[entry]
        if kind == OPP_EXTERNAL:
            return 1
        if kind == OPP_RANDOM and s[PHASE] == PH_TRADE_RESPONSE:
            apply_action(s, random_answer(s, rng), FROM_RNG)  # the same draw, without the list
            continue
        n = legal_actions(s, buf)
        if kind == OPP_RANDOM:  # the draw inline: a call passing arrays costs more (core/cards.py)
            a = buf[randint(rng, n)]
        elif kind >= OPP_MLP:
            a = _mlp_choice(s, d, n, kind - OPP_MLP, setup.pool_sample[entry], rng, nets, sc)
        else:
            a = pick_action(s, buf, n, kind, rng, sc.work)
        apply_action(s, a, FROM_RNG)


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def board_key(s: np.ndarray) -> int:
    """Changes whenever the board part of an observation can change for a given observer
    (a piece placed or upgraded, the robber moved), so an unchanged key lets the encoder
    keep the board part already in the row, or only re-seat it for another observer (the
    single envs' tests check it)."""
    k = s[ROBBER]
    for p in range(MAX_PLAYERS):
        k = k * 4096 + s[ROADS_LEFT + p] * 256 + s[SETTLEMENTS_LEFT + p] * 16 + s[CITIES_LEFT + p]
    return k


@njit(cache=True, inline='always')
def _observe(s: np.ndarray, seat: int, games: np.ndarray, i: int, cfg: np.ndarray, buf: np.ndarray,
             out: Outputs) -> None:
    """Seat's observation and legal mask into row i of the output arrays."""
    obs, planes, masks = out.obs, out.planes, out.masks
    key = board_key(s)
    if key != games[i, G_BOARD_KEY]:
        encode_board(s, seat, obs[i])
        games[i, G_BOARD_KEY] = key
        games[i, G_BOARD_SEAT] = seat
    elif seat != games[i, G_BOARD_SEAT]:
        reseat_board(s, games[i, G_BOARD_SEAT], seat, obs[i])
        games[i, G_BOARD_SEAT] = seat
    encode_tail(s, seat, obs[i])
    if cfg[C_PLANES]:
        encode_planes(s, seat, planes[i])
    masks[i, :] = False
    if current_decider(s) == seat:
        n = legal_actions(s, buf)
        for k in range(n):
            masks[i, buf[k]] = True


@njit(cache=True, inline='always')
def _settle(b: Batch, i: int, setup: Setup, nets: Nets, out: Outputs, sc: Scratch) -> None:
    """After an action in game i: advance it; on an episode's end pay the final rewards,
    keep the final observation and statistics, start the next game and advance that;
    finally encode the observation of the seat to act.  Sets G_WAITING when an external
    opponent must act first (the caller resumes the game)."""
    s, rng, games, vals, rewards = b.states[i], b.rngs[i], b.games, b.vals, out.rewards
    cfg = setup.cfg
    vp_reward = setup.fcfg[F_VP_REWARD]
    all_seats = cfg[C_ALL_SEATS]
    n_players = cfg[C_PLAYERS]
    while True:
        status = _advance(s, rng, games, i, setup, nets, sc)
        if status == 1:
            games[i, G_WAITING] = 1
            return
        games[i, G_WAITING] = 0
        new = games[i, G_NEW] == 1
        learner = games[i, G_LEARNER]
        if not new:  # rewards of this transition (shaping telescopes over skipped moves)
            for p in range(n_players):
                if all_seats or p == learner:
                    r = 0.0
                    if vp_reward != 0.0:  # (no shaping: nothing to compute)
                        v = shaping_value(s, p)
                        r = vp_reward * (v - vals[i, p])
                        vals[i, p] = v
                    if status == 2 and s[PHASE] == PH_GAME_OVER:
                        r += 1.0 if s[WINNER] == p else -1.0
                    if all_seats:
                        rewards[i, p] += r
                    else:
                        rewards[i, 0] += r
                    if p == learner:
                        vals[i, V_RETURN] += r
        else:
            if vp_reward != 0.0:
                for p in range(n_players):
                    vals[i, p] = shaping_value(s, p)
            games[i, G_NEW] = 0
        if status == 0:
            d = current_decider(s)
            games[i, G_DECIDER] = d
            _observe(s, learner if not all_seats else d, games, i, cfg, sc.buf, out)
            return
        _end_episode(b, i, setup, out, s[PHASE] == PH_GAME_OVER)


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def _end_episode(b: Batch, i: int, setup: Setup, out: Outputs, over: Union[bool, np.bool_]) -> None:
    """Record game i's finished episode and start the next game (seed from its RNG)."""
    s, games, vals, cfg = b.states[i], b.games, b.vals, setup.cfg
    final_obs, ep_stats = out.final_obs, out.ep_stats
    learner = games[i, G_LEARNER]
    if over:
        out.terminated[i] = True
    else:
        out.truncated[i] = True
    if cfg[C_ALL_SEATS]:
        for p in range(cfg[C_PLAYERS]):
            encode_vector(s, p, final_obs[i, p])
    else:
        encode_vector(s, learner, final_obs[i, 0])
        if cfg[C_PLANES]:
            encode_planes(s, learner, out.final_planes[i])
    out.ep_returns[i] = vals[i, V_RETURN]
    ep_stats[i, E_WINNER] = s[WINNER] if over else -1
    ep_stats[i, E_TURNS] = s[TURN]
    ep_stats[i, E_LEN] = games[i, G_EP_LEN]
    ep_stats[i, E_LEARNER] = learner
    ep_stats[i, E_VP] = total_vp(s, learner)
    ep_stats[i, E_SEED] = games[i, G_SEED]
    seed = np.int64(next_u64(b.rngs[i]) >> np.uint64(2))
    _start_episode(b, i, seed, setup)


@njit(cache=True, **NO_RUNTIME)
def reset_games(idx: np.ndarray, seeds: np.ndarray, b: Batch, setup: Setup, nets: Nets, out: Outputs,
                sc: Scratch) -> None:
    """Start games idx from seeds (each game's RNG seeded from its seed too)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        seed_rng(b.rngs[i], seeds[k] ^ RNG_SEED_MIX)
        _start_episode(b, i, seeds[k], setup)
        _settle(b, i, setup, nets, out, sc)


@njit(cache=True)
def make_scratch(nets: Nets) -> Scratch:
    """Work buffers for one kernel call at a time (one per stepping thread)."""
    width = VECTOR_SIZE  # a one-layer net copies its input into h1
    for k in range(nets.layers.shape[0]):
        width = max(width, nets.layers[k, 1])
    return Scratch(np.empty(N_ACTIONS, dtype=np.int64), np.empty(N_ACTIONS),
                   np.empty(VECTOR_SIZE, dtype=np.float32),
                   np.empty(N_ACTIONS), np.empty(width, dtype=np.float32), np.empty(width, dtype=np.float32))


@njit(cache=True, nogil=True, **NO_RUNTIME)
def step_slice(actions: np.ndarray, b: Batch, setup: Setup, nets: Nets, out: Outputs, sc: Scratch, lo: int,
               hi: int) -> None:
    """Apply actions[i] for game i's caller-controlled decider, for games lo..hi-1 (games
    waiting for an external opponent are skipped), and settle them; clears their per-step
    outputs.  Touches rows lo..hi-1 only and releases the GIL, so threads can step
    disjoint slices of one batch at once (each with its own scratch)."""
    games, vals, rewards, masks = b.games, b.vals, out.rewards, out.masks
    rewards[lo:hi] = 0.0
    out.terminated[lo:hi] = False
    out.truncated[lo:hi] = False
    cfg = setup.cfg
    all_seats = cfg[C_ALL_SEATS]
    for i in range(lo, hi):
        if games[i, G_WAITING]:
            continue
        s = b.states[i]
        a = actions[i]
        if a < 0 or a >= N_ACTIONS or not masks[i, a]:
            games[i, G_ILLEGAL] += 1
            pen = setup.fcfg[F_ILLEGAL_PENALTY]
            if all_seats:
                rewards[i, games[i, G_DECIDER]] += pen
            else:
                rewards[i, 0] += pen
                vals[i, V_RETURN] += pen
            if games[i, G_ILLEGAL] >= cfg[C_MAX_ILLEGAL]:
                _end_episode(b, i, setup, out, NOT_OVER)
                _settle(b, i, setup, nets, out, sc)
            continue
        apply_action(s, a, FROM_RNG)
        games[i, G_EP_LEN] += 1
        _settle(b, i, setup, nets, out, sc)


@njit(cache=True, parallel=True, nogil=True)
def step_slices(actions: np.ndarray, states: np.ndarray, games: np.ndarray, vals: np.ndarray, rngs: np.ndarray,
                cfg: np.ndarray, fcfg: np.ndarray, template: np.ndarray, pool_kinds: np.ndarray,
                pool_cum: np.ndarray, pool_sample: np.ndarray, params: np.ndarray, layers: np.ndarray,
                nets: np.ndarray, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray,
                final_obs: np.ndarray, final_planes: np.ndarray, ep_stats: np.ndarray, ep_returns: np.ndarray,
                obs: np.ndarray, planes: np.ndarray, masks: np.ndarray, bufs: np.ndarray, works: np.ndarray,
                xs: np.ndarray, logits: np.ndarray, h1s: np.ndarray, h2s: np.ndarray, bounds: np.ndarray) -> None:
    """:func:`step_slice` over slices bounds[k]..bounds[k+1] at once, on numba's own
    threads (a parallel loop: its threads hand the work over without waking a Python
    thread each step).  A parallel loop takes arrays only, so the groups come as their
    arrays, and slice k's scratch is row k of each scratch array."""
    for k in prange(bounds.shape[0] - 1):
        step_slice(actions, Batch(states, games, vals, rngs),
                   Setup(cfg, fcfg, template, pool_kinds, pool_cum, pool_sample), Nets(params, layers, nets),
                   Outputs(rewards, terminated, truncated, final_obs, final_planes, ep_stats, ep_returns, obs,
                           planes, masks),
                   Scratch(bufs[k], works[k], xs[k], logits[k], h1s[k], h2s[k]), bounds[k], bounds[k + 1])


@njit(cache=True, **NO_RUNTIME)
def resume_games(idx: np.ndarray, actions: np.ndarray, b: Batch, setup: Setup, nets: Nets, out: Outputs,
                 sc: Scratch) -> None:
    """Apply external opponents' actions (legal: the caller checked) in games idx, then
    settle those games (rewards add to this step's)."""
    for k in range(idx.shape[0]):
        i = idx[k]
        apply_action(b.states[i], actions[k], FROM_RNG)
        _settle(b, i, setup, nets, out, sc)


BYTE_SUM = np.uint64(0x0101010101010101)  # w * BYTE_SUM >> 56: the sum of w's bytes (each 0 or 1)
assert N_ACTIONS % 8 == 0, "sample_legal reads the masks as 64-bit words"


@njit(cache=True)
def sample_legal(masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    """A uniformly random legal action per row of masks into out (benchmarks, baselines):
    one draw among the row's legal ids, in ascending order; 0 for a row with no legal
    action.  The row is read eight flags at a time (as little-endian uint64 words of a
    C-contiguous bool array, N_ACTIONS being a multiple of 8; the env's masks are): a
    count pass, then a pass to the drawn flag's word."""
    words = masks.view(np.uint64)
    shift = np.uint64(56)
    for i in range(masks.shape[0]):
        row = words[i]
        count = 0
        for w in range(row.shape[0]):
            count += np.int64((row[w] * BYTE_SUM) >> shift)
        if count == 0:
            out[i] = 0
            continue
        k = randint(rng, count)
        w = 0
        while True:
            c = np.int64((row[w] * BYTE_SUM) >> shift)
            if k < c:
                break
            k -= c
            w += 1
        a = w * 8
        word = row[w]
        while True:
            if word & np.uint64(0xFF):
                if k == 0:
                    break
                k -= 1
            word >>= np.uint64(8)
            a += 1
        out[i] = a


@njit(cache=True)
def draw_seeds(rngs: np.ndarray, idx: np.ndarray, out: np.ndarray) -> None:
    """out[k, :] := fresh seeds from game idx[k]'s RNG (a value opponent's determinizations)."""
    for k in range(idx.shape[0]):
        for j in range(out.shape[1]):
            out[k, j] = np.int64(next_u64(rngs[idx[k]]) >> np.uint64(2))

