"""fastcatan (C++): whole 4-player games of uniformly random legal play through a Python
loop over one ``Env``; prints games/s.  Usage: python fastcatan_random.py [SECONDS]"""
import random
import sys
import time

import fastcatan

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10
rng = random.Random(0)
t0 = time.perf_counter()
games = steps = 0
while time.perf_counter() - t0 < seconds:
    env = fastcatan.Env()
    env.reset(seed=games)
    while not env.done:
        env.step(rng.choice(env.legal_actions()))
        steps += 1
    games += 1
el = time.perf_counter() - t0
print(f"fastcatan python-loop: games/s {games / el:.1f} steps/s {steps / el:.0f} steps/game {steps / games:.0f}")
