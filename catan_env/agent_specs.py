"""Agents as the envs see them: the protocol an agent offers, and agent specs
(``"jsettlers"``, ``"mcts:iterations=200"``) turned into agents.

The env layer names no agent module: specs are resolved by whatever registers itself
under the ``catan_env.agent_specs`` entry-point group, a function ``(spec, seed) ->
agent``.  The package registers ``catan_env.agents.registry:make_agent`` there (in
``pyproject.toml``), so ``gymnasium.make("catan_env/Catan-v0", opponents=["jsettlers"])``
and ``BatchedCatan(opponents="pretrained")`` keep taking specs while the agents sit above
the envs.  Envs also take agent objects and callables directly.
"""
import functools
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .infoset import InfoSet

SPEC_GROUP = "catan_env.agent_specs"
DEFAULT_RESOLVER = "agents"  # the package's own entry in SPEC_GROUP

LIGHT_AGENTS = ("random", "weighted", "pruning", "human")  # they compile no numba kernel of their own


def compiles_kernels(spec: Any) -> bool:
    """Whether a player compiles numba kernels beyond the rules (a search or network
    agent; an agent object counts as one)."""
    return not (isinstance(spec, str) and spec.split(":", 1)[0] in LIGHT_AGENTS)


# What an agent receives: {"observation": float32 vector (or {"board", "vector"} with
# obs_type="planes"), "action_mask": int8[N_ACTIONS]}, as the PettingZoo env gives it.
Observation = Dict[str, Any]


@runtime_checkable
class AgentProtocol(Protocol):
    """What every env loop, the arena and the wrappers need of an agent."""

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        """The action id to play (legal under observation["action_mask"])."""
        ...


def resolve_agent(spec: str, seed: Optional[int] = None) -> Any:
    """The agent an agent spec names, built by the registered resolver."""
    return _resolver()(spec, seed=seed)


@functools.lru_cache(maxsize=None)
def _resolver() -> Callable[..., Any]:
    found = {ep.name: ep for ep in entry_points(group=SPEC_GROUP)}
    if not found:  # a source tree on sys.path, or an install older than the entry point
        raise ValueError(f"agent specs need an agent registry under the entry-point group {SPEC_GROUP!r}; "
                         f"catan_env registers its own when installed (pip install -e . in a checkout), "
                         f"or pass agent objects instead of specs")
    ep = found.get(DEFAULT_RESOLVER) or found[sorted(found)[0]]
    return ep.load()
