"""catanatron-gym 4.0 (1 learner vs 1 random bot), uniformly random valid actions (this file
is not named catanatron_gym.py: it would import itself instead of the package);
prints env steps/s.  Usage: python catanatron_gym_env.py [SECONDS]"""
import random
import sys
import time

import catanatron_gym  # noqa: F401  (registers the env)
import gymnasium

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10
env = gymnasium.make("catanatron_gym:catanatron-v1")
obs, info = env.reset(seed=0)
t0 = time.perf_counter()
steps = 0
while time.perf_counter() - t0 < seconds:
    obs, reward, terminated, truncated, info = env.step(random.choice(info["valid_actions"]))
    steps += 1
    if terminated or truncated:
        obs, info = env.reset()
print(f"catanatron-gym 1v1: env steps/s {steps / (time.perf_counter() - t0):.0f}")
