"""The game's fixed numbers, each defined once: costs, supplies, decks, tokens, dice.

Every other module (rules, invariants, determinization, agents) reads these tables; the
slow references in ``reference.py`` restate the rules but import these numbers too.
"""
import numpy as np

ROAD_COST = np.array([1, 1, 0, 0, 0], dtype=np.int64)        # brick, lumber
SETTLEMENT_COST = np.array([1, 1, 1, 1, 0], dtype=np.int64)  # brick, lumber, wool, grain
CITY_COST = np.array([0, 0, 0, 2, 3], dtype=np.int64)        # 2 grain, 3 ore
DEV_COST = np.array([0, 0, 1, 1, 1], dtype=np.int64)         # wool, grain, ore

CARDS_PER_RESOURCE = 19                                      # the bank starts with all of them
OFFICIAL_DECK = np.array([14, 5, 2, 2, 2], dtype=np.int64)   # knight, VP, road b., YoP, monopoly
PIONEERS_DECK = np.array([13, 5, 2, 2, 2], dtype=np.int64)   # Pioneers: 13 soldiers, 24 cards
ROADS_PER_PLAYER = 15
SETTLEMENTS_PER_PLAYER = 5
CITIES_PER_PLAYER = 4

TERRAIN_DECK = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5], dtype=np.int64)
NUMBER_TOKENS = np.array([2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12], dtype=np.int64)
PORT_DECK = np.array([0, 1, 2, 3, 4, 5, 5, 5, 5], dtype=np.int64)

# Ways to roll each total with two dice (index 0..12), and the probabilities.
DICE_WAYS = np.array([0, 0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1], dtype=np.int64)
DICE_PROB = DICE_WAYS / 36.0

MARITIME_BASE_RATE = 4
GENERIC_PORT_RATE = 3
SPECIAL_PORT_RATE = 2
LONGEST_ROAD_MIN = 5
LARGEST_ARMY_MIN = 3
HOLDER_BONUS_VP = 2

for _a in (ROAD_COST, SETTLEMENT_COST, CITY_COST, DEV_COST, OFFICIAL_DECK, PIONEERS_DECK, TERRAIN_DECK,
           NUMBER_TOKENS, PORT_DECK, DICE_WAYS, DICE_PROB):
    _a.setflags(write=False)
