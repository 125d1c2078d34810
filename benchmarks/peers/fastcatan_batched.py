"""fastcatan's ``BatchedEnv``: N games stepped together with uniformly random legal
actions.  The "simulator-only" figure excludes the numpy action choice.
Usage: OMP_NUM_THREADS=1 python fastcatan_batched.py N SECONDS"""
import sys
import time

import fastcatan
import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
games = fastcatan.BatchedEnv(n, 0)
games.reset()
masks = np.zeros((n, fastcatan.MASK_WORDS), dtype=np.uint64)
actions = np.zeros(n, dtype=np.uint32)
dones = np.zeros(n, dtype=np.uint8)
rng = np.random.default_rng(0)
t0 = time.perf_counter()
completed = steps = 0
in_simulator = 0.0
while time.perf_counter() - t0 < seconds:
    a = time.perf_counter()
    games.write_masks(masks)
    in_simulator += time.perf_counter() - a
    bits = np.unpackbits(masks.view(np.uint8), axis=1, bitorder="little")[:, :fastcatan.NUM_ACTIONS]
    actions[:] = np.argmax(rng.random(bits.shape) * bits, axis=1)
    a = time.perf_counter()
    games.step_autoreset(actions, dones)
    in_simulator += time.perf_counter() - a
    completed += int(dones.sum())
    steps += n
el = time.perf_counter() - t0
print(f"BatchedEnv n={n}: {completed} games, {steps:,} steps in {el:.2f}s -> {completed / el:.0f} games/s, "
      f"{steps / el:,.0f} steps/s overall; simulator-only {in_simulator:.2f}s -> "
      f"{steps / in_simulator:,.0f} steps/s, ~{completed / in_simulator:.0f} games/s")
