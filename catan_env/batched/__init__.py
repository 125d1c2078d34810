"""Batched Catan: N games stepped in one numba call (``BatchedCatan``), its Gymnasium
vector-env face (``CatanVectorEnv``), and MLPs evaluated in numba from exported weights
(``MLPWeights``) for frozen opponents and search hooks."""
import importlib
from typing import Any

from .env import BatchedCatan, snapshot_pool
from ..learned.mlp import MLPWeights

_LAZY = {"CatanVectorEnv": ".vector_env"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BatchedCatan", "CatanVectorEnv", "MLPWeights", "snapshot_pool"]
