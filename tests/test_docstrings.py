"""Every public function, class and method of the API modules (those the API reference
pages render) says what it does: a docstring of its own or, for an override, its base's."""
import importlib
import inspect
import os
import re
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def import_name(mypy_name):
    """A module's import name from mypy's (the agents/ and wrappers/ folders install inside
    the package)."""
    return mypy_name if mypy_name.startswith("catan_env") else "catan_env." + mypy_name


def typed_modules():
    """The fully annotated modules: all of the distribution where pyproject.toml's mypy
    settings disallow untyped defs globally, else those of its strict overrides."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        config = tomllib.load(f)["tool"]["mypy"]
    if config.get("disallow_untyped_defs"):
        from catan_env.core.import_graph import module_files
        roots = {os.path.join(ROOT, folder): import_name(folder) for folder in config["files"]}
        return sorted(module_files(roots))
    strict = [o for o in config.get("overrides", []) if o.get("disallow_untyped_defs")]
    return [import_name(m) for o in strict for m in o["module"]]


def api_modules():
    """Modules the API reference pages render (``::: name``), as import names."""
    out = []
    api = os.path.join(ROOT, "docs", "api")
    for name in sorted(os.listdir(api)):
        with open(os.path.join(api, name)) as f:
            out += [import_name(m) for m in re.findall(r"^::: ([\w.]+)", f.read(), re.M)]
    return out


def undocumented(module_name):
    module = importlib.import_module(module_name)
    missing = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
            continue
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if not inspect.getdoc(obj):
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                    continue
                if not inspect.getdoc(getattr(obj, attr, member)) and not inspect.getdoc(member):
                    missing.append(f"{name}.{attr}")
    return missing


def test_the_api_modules_are_found():
    mods = api_modules()
    assert "catan_env.core.game" in mods and "catan_env.agents.arena" in mods and len(mods) >= 15


def test_every_public_function_of_the_api_modules_has_a_docstring():
    missing = {m: names for m in api_modules() if (names := undocumented(m))}
    assert not missing, f"public functions without a docstring: {missing}"


def test_the_version_lives_in_one_place_and_heads_the_changelog():
    import importlib.metadata

    import catan_env
    assert importlib.metadata.version("catan_env") == catan_env.__version__
    assert 'dynamic = ["version"]' in open(os.path.join(ROOT, "pyproject.toml")).read()
    changelog = open(os.path.join(ROOT, "CHANGELOG.md")).read()
    assert "## [Unreleased]" in changelog
    assert f"## [{catan_env.__version__}] - " in changelog
