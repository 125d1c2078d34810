"""``value_trader``: every trade answer and confirmation is the expectimax trader's, an
offer comes first when one pays, and every other move is the search's, never an offer."""
import numpy as np

from catan_env.agents import make_agent
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.infoset import InfoSet
from catan_env.learned import acceptance as M
from helpers import game_after_setup, give, observation, quiet_roll

IS_OFFER = np.zeros(A.N_ACTIONS, bool)
IS_OFFER[A.OFFER0:A.OFFER0 + A.N_MENU] = True


def _main(seed=0):
    s = game_after_setup(seed=seed)
    quiet_roll(s)
    give(s, 0, brick=2, lumber=1, ore=3)
    for p in (1, 2, 3):
        give(s, p, wool=2, grain=2, lumber=1)
    assert s[L.PHASE] == L.PH_MAIN and any(IS_OFFER[a] for a in G.legal_actions(s))
    return s


def _acts(agent, s):
    seat = int(G.decider(s))
    return agent.act(observation(s, seat), InfoSet(s, seat, secret_seed=3))


def _model(tmp_path, bias):
    coef = np.zeros(M.N_FEATURES)
    coef[0] = bias
    path = tmp_path / f"m{bias}.json"
    M.AcceptanceModel(coef).save(str(path))
    return str(path)


def test_an_offer_that_pays_comes_first_and_moves_are_the_searchs(tmp_path):
    s = _main()
    keen = make_agent(f"value_trader:playouts=50:accept={_model(tmp_path, 30.0)}", seed=4)
    a = _acts(keen, s)
    trader = make_agent(f"pretrained:search=0:accept={_model(tmp_path, 30.0)}:offers=3", seed=4)
    assert IS_OFFER[a] and a == trader.choose_offer(observation(s, 0), InfoSet(s, 0, secret_seed=3))
    # nobody ever accepts: no offer, and the search is never handed one to choose
    shy = make_agent(f"value_trader:playouts=50:accept={_model(tmp_path, -30.0)}", seed=4)
    handed = []
    real = shy.mover.act
    shy.mover.act = lambda obs, info: handed.append(obs["action_mask"].copy()) or real(obs, info)
    a = _acts(shy, s)
    assert not IS_OFFER[a] and shy.trade_counts["offers"] == 0
    assert len(handed) == 1 and not handed[0][IS_OFFER].any() and handed[0].sum() > 1


def test_answers_are_the_traders():
    s = _main()
    G.step(s, next(a for a in G.legal_actions(s) if IS_OFFER[a]))
    assert s[L.PHASE] == L.PH_TRADE_RESPONSE
    agent = make_agent("value_trader:playouts=50", seed=9)
    trader = make_agent("pretrained:search=0:accept=jsettlers-smart:offers=3", seed=9)
    seat = int(G.decider(s))
    got = agent.act(observation(s, seat), InfoSet(s, seat, secret_seed=3))
    assert got == trader.act(observation(s, seat), InfoSet(s, seat, secret_seed=3))
    assert got in (A.TRADE_ACCEPT, A.TRADE_REJECT) or A.COUNTER0 <= got < A.COUNTER0 + A.N_MENU


def test_fallbacks_of_both_parts_are_reported():
    agent = make_agent("value_trader:playouts=50", seed=1)
    agent.trader.fallbacks["a"] += 2
    agent.mover.fallbacks["b"] += 1
    assert agent.fallbacks == {"a": 2, "b": 1}
    assert agent.network.digest() == make_agent("pretrained").network.digest()
