"""Catanatron: whole 4-player games of uniformly random legal play; prints games/s.
Usage: python catanatron_random.py [SECONDS]  (in the environment from setup_peers.sh)"""
import sys
import time

from catanatron import Color, Game, RandomPlayer

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10
colours = [Color.RED, Color.BLUE, Color.ORANGE, Color.WHITE]
t0 = time.perf_counter()
games = steps = 0
while time.perf_counter() - t0 < seconds:
    game = Game([RandomPlayer(c) for c in colours], seed=games)
    game.play()
    games += 1
    steps += len(game.state.actions)
el = time.perf_counter() - t0
print(f"catanatron random: games/s {games / el:.1f} steps/s {steps / el:.0f} steps/game {steps / games:.0f}")
