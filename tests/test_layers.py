"""Layers point one way, lazy imports included: the rules core and the numba learned
pieces import nothing above them, the envs import no agent, wrapper or application, the
agents import no wrapper or application, and no modules import each other in a cycle.

An AST scan of every module of the distribution (``catan_env``, ``agents`` and
``wrappers``, installed as ``catan_env.agents`` and ``catan_env.wrappers``): every
``import`` statement counts, at module level, inside functions or under
``TYPE_CHECKING``.  Importing a module is an edge to it alone (not to the packages above
it, which Python also runs: those are ``__init__`` files, and theirs are edges too)."""
import os
import warnings

import pytest

from catan_env.core.import_graph import closure, cycles, import_graph, module_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = {"catan_env": "catan_env", "agents": "catan_env.agents", "wrappers": "catan_env.wrappers"}

# (rank, module prefixes): a module may import modules of its own rank or lower only.
# Prefixes match whole dotted names; the longest match decides.
LAYERS = [
    (0, ("catan_env.core", "catan_env.learned")),     # rules and numba kernels: numpy and numba only
    (1, ("catan_env",)),                              # the envs: PettingZoo, Gymnasium, batched, rendering
    (2, ("catan_env.agents",)),                       # agents, the arena, their training
    (3, ("catan_env.wrappers",)),                     # RL libraries' adapters (they build opponents)
    (4, ("catan_env.web", "catan_env.bridge", "catan_env.pioneers", "catan_env.jsettlers_bridge", "catan_env.play",  # applications
         "catan_env.replays", "catan_env.html_replay", "catan_env.win_chart")),  # the bridges, CLIs
]
LAYER_NAMES = {0: "the rules core", 1: "the envs", 2: "the agents", 3: "the wrappers", 4: "the applications"}


def modules():
    """{dotted name: file} of every module of the distribution."""
    return module_files({os.path.join(ROOT, folder): package for folder, package in FOLDERS.items()})


def imports(mods):
    return import_graph(mods)


def rank(name):
    best = max(((len(p), r) for r, prefixes in LAYERS for p in prefixes if name == p or name.startswith(p + ".")))
    return best[1]


def test_the_scan_sees_every_kind_of_import():
    """The scanner itself: relative, absolute, lazy and TYPE_CHECKING imports all count."""
    mods = modules()
    graph = imports(mods)
    assert "catan_env.core.rules" in mods and "catan_env.agents.registry" in mods and "catan_env.wrappers.sb3" in mods
    assert "catan_env.core.layout" in graph["catan_env.core.rules"]            # from .layout import ...
    assert "catan_env.agents.registry" in graph["catan_env.agents"]            # package __init__, relative
    assert "catan_env.agents.learned" in graph["catan_env.wrappers.sb3"]       # absolute
    assert "catan_env.agents.value.agent" in graph["catan_env.win_chart"]      # inside a function
    assert "catan_env.infoset" in graph["catan_env.agent_specs"]               # under TYPE_CHECKING
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert closure({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}, "a") == {"a", "b", "c"}
    assert rank("catan_env.learned.mlp") == 0 and rank("catan_env.batched.env") == 1
    assert rank("catan_env.agents.value.agent") == 2 and rank("catan_env.web.server") == 4


def test_layers_point_one_way():
    graph = imports(modules())
    upward = sorted(f"{a} ({LAYER_NAMES[rank(a)]}) imports {b} ({LAYER_NAMES[rank(b)]})"
                    for a, targets in graph.items() for b in targets if rank(b) > rank(a))
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def test_no_import_cycles():
    found = cycles(imports(modules()))
    assert not found, "modules that import each other (lazily or not): " + "; ".join(" <-> ".join(c) for c in found)


def test_specs_resolve_without_the_entry_point_with_a_warning(monkeypatch):
    """An editable install made before the entry point existed still resolves specs (the
    package's registry, found by name) and says how to register it."""
    from catan_env import agent_specs
    monkeypatch.setattr(agent_specs, "entry_points", lambda group: [])
    agent_specs._resolver.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="pip install -e"):
            agent = agent_specs.resolve_agent("random", seed=3)
        assert isinstance(agent, agent_specs.AgentProtocol)
    finally:
        monkeypatch.undo()
        agent_specs._resolver.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agent_specs._resolver() is not None  # the entry point again, silently
