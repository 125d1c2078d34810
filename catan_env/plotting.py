"""Figures written to files: matplotlib (the ``[viz]`` extra) imported lazily, headless.

Every script and agent that draws a figure takes pyplot from ``pyplot()`` and writes the
figure with ``save()``, so a machine without matplotlib gets None (and skips the figure)
instead of an ImportError, and no figure stays open in a long run."""
from types import ModuleType
from typing import Any, Optional


def pyplot() -> Optional[ModuleType]:
    """matplotlib.pyplot on the file-only Agg backend, or None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save(fig: Any, path: str, dpi: int = 100) -> str:
    """Lay the figure out, write it to path and close it; returns path."""
    import matplotlib.pyplot as plt
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path
