"""Layers point one way, lazy imports included: the rules core and the numba learned
pieces import nothing above them, the envs import no agent, wrapper or application, the
agents import no wrapper or application, and no modules import each other in a cycle.

A layer is a folder (``FOLDER_LAYERS``): a new module is in the layer of the folder it
is put in, with no list to edit.  An AST scan of every module of the distribution
(``catan_env``, ``agents`` and ``wrappers``, installed as ``catan_env.agents`` and
``catan_env.wrappers``): every ``import`` statement counts, at module level, inside
functions or under ``TYPE_CHECKING``, and so does a module named in a string
(``importlib.import_module``, entry points, lazy maps).  Importing a module is an edge
to it alone (not to the packages above it, which Python also runs: those are
``__init__`` files, and theirs are edges too)."""
import os

import pytest

from catan_env.core.import_graph import closure, cycles, import_graph, imports_in, module_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = {"catan_env": "catan_env", "agents": "catan_env.agents", "wrappers": "catan_env.wrappers"}

# {package folder: rank}: a module may import modules of its own rank or lower only; the
# deepest folder a module lies in decides.
FOLDER_LAYERS = {
    "catan_env.core": 0, "catan_env.learned": 0,  # rules and numba kernels: numpy and numba only
    "catan_env": 1,                               # the envs: PettingZoo, Gymnasium, batched, rendering
    "catan_env.agents": 2,                        # agents, the arena, their training
    "catan_env.wrappers": 3,                      # RL libraries' adapters (they build opponents)
    "catan_env.apps": 4,                          # browser play, the bridges, CLIs over games, replays
}
LAYER_NAMES = {0: "the rules core", 1: "the envs", 2: "the agents", 3: "the wrappers", 4: "the applications"}


def modules():
    """{dotted name: file} of every module of the distribution."""
    return module_files({os.path.join(ROOT, folder): package for folder, package in FOLDERS.items()})


def imports(mods):
    return import_graph(mods)


def rank(name):
    best = max((len(folder), r) for folder, r in FOLDER_LAYERS.items()
               if name == folder or name.startswith(folder + "."))
    return best[1]


def test_the_scan_sees_every_kind_of_import():
    """The scanner itself: relative, absolute, lazy and TYPE_CHECKING imports all count."""
    mods = modules()
    graph = imports(mods)
    assert "catan_env.core.rules" in mods and "catan_env.agents.registry" in mods and "catan_env.wrappers.sb3" in mods
    assert "catan_env.core.layout" in graph["catan_env.core.rules"]            # from .layout import ...
    assert "catan_env.agents.registry" in graph["catan_env.agents"]            # package __init__, relative
    assert "catan_env.agents.learned" in graph["catan_env.wrappers.sb3"]       # absolute
    assert "catan_env.apps.win_chart" in graph["catan_env.apps.html_replay"]        # inside a function
    assert "catan_env.infoset" in graph["catan_env.agent_specs"]               # under TYPE_CHECKING
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert closure({"a": {"b"}, "b": {"c"}, "c": set(), "d": {"a"}}, "a") == {"a", "b", "c"}
    assert rank("catan_env.learned.mlp") == 0 and rank("catan_env.batched.env") == 1
    assert rank("catan_env.agents.value.agent") == 2 and rank("catan_env.apps.web.server") == 4
    assert rank("catan_env.apps.anything_new") == 4 and rank("catan_env.core.anything_new") == 0


def test_an_import_by_string_counts():
    """A module named in a string is an import: import_module's argument, an entry point,
    a lazy map's relative name; prose and other strings are not."""
    known = {"catan_env.agents.registry", "catan_env.aec_env", "catan_env.core.rules"}
    src = ("import importlib\n"
           "def f():\n"
           "    return importlib.import_module('catan_env.agents.registry')\n")
    assert imports_in(src, "catan_env.core.x", False, known) == {"catan_env.agents.registry"}
    assert imports_in("E = 'catan_env.agents.registry:make_agent'\n", "catan_env.m", False, known) \
        == {"catan_env.agents.registry"}
    assert imports_in("_LAZY = {'env': '.aec_env'}\n", "catan_env", True, known) == {"catan_env.aec_env"}
    prose = '"""See catan_env.agents.registry for specs."""\nX = ".json"\n'
    assert imports_in(prose, "catan_env.core.x", False, known) == set()

def test_layers_point_one_way():
    graph = imports(modules())
    upward = sorted(f"{a} ({LAYER_NAMES[rank(a)]}) imports {b} ({LAYER_NAMES[rank(b)]})"
                    for a, targets in graph.items() for b in targets if rank(b) > rank(a))
    assert not upward, "imports against the layers:\n" + "\n".join(upward)


def test_no_import_cycles():
    found = cycles(imports(modules()))
    assert not found, "modules that import each other (lazily or not): " + "; ".join(" <-> ".join(c) for c in found)


def test_specs_without_the_entry_point_say_how_to_install(monkeypatch):
    """Specs resolve through the entry point only (the env layer reaches the agents by no
    other route); without it the error says how to register it."""
    from catan_env import agent_specs
    monkeypatch.setattr(agent_specs, "entry_points", lambda group: [])
    agent_specs._resolver.cache_clear()
    try:
        with pytest.raises(ValueError, match="pip install -e"):
            agent_specs.resolve_agent("random", seed=3)
    finally:
        monkeypatch.undo()
        agent_specs._resolver.cache_clear()
    assert isinstance(agent_specs.resolve_agent("random", seed=3), agent_specs.AgentProtocol)
