"""The torch training loop every learned agent uses (the ``[rl]`` extra).

:func:`fit` runs minibatch Adam over the training rows, epoch by epoch, with an optional
cosine-annealed learning rate and an optional held-out evaluation after each epoch; with
``keep_best`` it keeps the epoch whose held-out figure is lowest (early stopping: the
positions of one game share one label, so a network can learn games by heart).  What is
learned stays with the caller: ``loss_of(model, rows)`` computes one minibatch's loss.
:func:`split_games` holds out whole games, never single positions of a game.
"""
import copy
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional

import numpy as np


class Fit(NamedTuple):
    """A finished run: per-epoch ``history`` ({"epoch", "train_loss", "seconds"[,
    "heldout"]}) and the epoch whose weights the model holds (1-based)."""
    history: List[Dict[str, Any]]
    kept_epoch: int


def split_games(game: np.ndarray, holdout: float, seed: int) -> np.ndarray:
    """A boolean mask of the rows whose game is held out (a ``holdout`` share of games,
    at least one game on each side when there are two or more)."""
    games = np.unique(game)
    rng = np.random.default_rng(seed)
    size = int(round(len(games) * holdout))
    if holdout > 0 and len(games) > 1:
        size = min(max(size, 1), len(games) - 1)
    held = rng.choice(games, size=size, replace=False)
    return np.isin(game, held)


def minibatches(rows: np.ndarray, size: int, rng: np.random.Generator) -> List[np.ndarray]:
    """``rows`` shuffled and cut into minibatches, each sorted (reads stay in order)."""
    order = rows[rng.permutation(len(rows))]
    return [np.sort(order[i:i + size]) for i in range(0, len(order), size)]


def fit(model: Any, train_rows: np.ndarray, loss_of: Callable[[Any, np.ndarray], Any], *, epochs: int,
        lr: float = 1e-3, batch: int = 256, weight_decay: float = 0.0, cosine: bool = False,
        rng: Optional[np.random.Generator] = None, heldout: Optional[Callable[[Any], Dict[str, Any]]] = None,
        keep_best: Optional[str] = None,
        progress: Optional[Callable[[Dict[str, Any]], None]] = None) -> Fit:
    """Train ``model`` in place on ``train_rows`` for ``epochs`` passes.

    ``loss_of(model, rows)``: a minibatch's scalar loss tensor.  ``heldout(model)``: the
    figures after an epoch (the model in eval mode).  ``keep_best``: a key of those
    figures; the model ends with the weights of the epoch where it was lowest.
    ``cosine``: anneal the learning rate to 0 over all the run's steps.  ``rng``: the
    minibatch order (seed 0 when not given).  ``progress(entry)`` after each epoch."""
    import torch
    rng = rng if rng is not None else np.random.default_rng(0)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = None
    if cosine:
        steps = max(1, epochs * (len(train_rows) // batch + 1))
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    history: List[Dict[str, Any]] = []
    best: Optional[tuple] = None  # (figure, epoch, weights)
    for epoch in range(1, epochs + 1):
        model.train()
        t0, total = time.perf_counter(), 0.0
        for rows in minibatches(train_rows, batch, rng):
            loss = loss_of(model, rows)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
            total += float(loss.detach()) * len(rows)
        entry: Dict[str, Any] = {"epoch": epoch, "train_loss": total / max(len(train_rows), 1),
                                 "seconds": time.perf_counter() - t0}
        if heldout is not None:
            model.eval()
            with torch.no_grad():
                entry["heldout"] = heldout(model)
            if keep_best is not None:
                figure = entry["heldout"][keep_best]
                if best is None or figure < best[0]:
                    best = (figure, epoch, copy.deepcopy(model.state_dict()))
        history.append(entry)
        if progress:
            progress(entry)
    model.eval()
    if best is not None:
        model.load_state_dict(best[2])
        return Fit(history, best[1])
    return Fit(history, epochs)
