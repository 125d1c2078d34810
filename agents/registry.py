"""Agents by short name, for CLIs: ``random``, ``weighted``, ``jsettlers``,
``jsettlers:strategy=smart``, ``trader``, ``opening_solver:base=weighted``, ... Options follow the name as ``:key=value``.
Register your own with ``register_agent("mine", MyAgent)``."""
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .base import AgentProtocol
from .deep import exit_agent, uctnet_agent
from .value.agent import pretrained_agent, value_agent, value_mcts_agent
from .value.search_trade import value_trader_agent
from .human import HumanAgent
from .jsettlers import JSettlersAgent
from .learned import MLPPolicyAgent, pretrained_policy_agent, rllib_agent, sb3_agent
from .mcts import MCTSAgent
from .opening import SolverOpeningAgent
from .random_agents import RandomAgent, WeightedRandomAgent
from .trader import TraderAgent

_REGISTRY: Dict[str, Callable[..., AgentProtocol]] = {
    "random": RandomAgent,
    "weighted": WeightedRandomAgent,
    "jsettlers": JSettlersAgent,
    "trader": TraderAgent,
    "opening_solver": SolverOpeningAgent,
    "mcts": MCTSAgent,
    "ppo": MLPPolicyAgent,
    "sb3": sb3_agent,
    "rllib": rllib_agent,
    "uctnet": uctnet_agent,
    "exit": exit_agent,
    "value": value_agent,
    "pretrained": pretrained_agent,
    "pretrained_policy": pretrained_policy_agent,
    "value_mcts": value_mcts_agent,
    "value_trader": value_trader_agent,
    "human": HumanAgent,
}


def register_agent(name: str, factory: Callable[..., AgentProtocol]) -> None:
    """Make ``factory(seed=..., **options)`` available as ``name`` in specs."""
    if not name or ":" in name or "," in name:
        raise ValueError(f"agent name must be non-empty without ':' or ',', got {name!r}")
    _REGISTRY[name] = factory


def available_agents() -> List[str]:
    """The names of every registered agent spec."""
    return sorted(_REGISTRY)


def _value(text: str) -> Union[bool, int, float, str]:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def parse_spec(spec: str) -> Tuple[str, Dict[str, Any]]:
    """'name:key=value:key=value' -> (name, {key: value})."""
    parts = spec.strip().split(":")
    name, options = parts[0], {}  # type: str, Dict[str, Any]
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; available: {available_agents()}")
    for part in parts[1:]:
        if "=" not in part:
            raise ValueError(f"agent option {part!r} in {spec!r} must look like key=value")
        k, v = part.split("=", 1)
        options[k] = _value(v)
    return name, options


def make_agent(spec: Union[str, AgentProtocol], seed: Optional[int] = None) -> AgentProtocol:
    """An agent instance from a spec string (or pass an Agent through)."""
    if not isinstance(spec, str):
        return spec
    name, options = parse_spec(spec)
    try:
        return _REGISTRY[name](seed=seed, **options)
    except TypeError as exc:
        raise ValueError(f"bad options for agent {name!r}: {exc}") from None
