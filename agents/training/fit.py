"""The torch training loop every learned agent uses (the ``[rl]`` extra).

:func:`fit` runs minibatch gradient steps over the training rows, epoch by epoch: Adam by
default or the caller's optimizer, a learning-rate schedule over the run (:func:`cosine`,
:func:`linear_to`), optional gradient clipping, an optional time budget, an optional
held-out evaluation after each epoch and, from ``first_epoch``, a resumed run.  With
``keep_best`` it keeps the epoch whose held-out figure is lowest (early stopping: the
positions of one game share one label, so a network can learn games by heart).  What is
learned stays with the caller: ``loss_of(model, rows)`` computes one minibatch's loss.
:func:`split_games` holds out whole games, never single positions of a game.
"""
import contextlib
import copy
import math
import time
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional

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


def cosine(progress: float) -> float:
    """The learning rate's share at ``progress`` (0 to 1) of the run: annealed to 0 on a
    half cosine."""
    return 0.5 * (1.0 + math.cos(math.pi * progress))


def linear_to(final: float) -> Callable[[float], float]:
    """A schedule that falls in a straight line from the whole rate to ``final`` of it."""
    return lambda progress: 1.0 - (1.0 - final) * progress


@contextlib.contextmanager
def _subnormals_flushed(torch: Any) -> Iterator[None]:
    """The calling thread's float arithmetic with subnormals read and written as zero
    (``torch.set_flush_denormal``), then as it was.  Weights that get no gradient (dead
    ReLU units, unused inputs) decay into subnormals, and on hosts without fast subnormal
    arithmetic each operation on one takes a microcode assist: the wide value network's
    epochs took 195-518 s on 2.2 M positions without this and 80-95 s on 4.0 M with it
    (docs/results/value_big/).  The setting is per thread, and torch gives no way to set
    its worker threads': those started before keep theirs inside, those started inside
    keep flushing after (harmless: a subnormal result reads as zero)."""
    was_on = (torch.tensor([1e-39], dtype=torch.float32) * 1.0).item() == 0.0
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(was_on)


def input_columns_optimizer(model: Any, columns: Any, lr: float) -> Any:
    """An Adam optimizer for ``fit`` that trains only the first ``Linear`` layer's weights on
    the input slots ``columns`` (distinct integers): every other parameter is frozen and the
    first layer's gradient is masked to those columns, with no weight decay (Adam moves a
    weight whose gradient was always 0 by exactly 0), so every other weight keeps its value.
    (One exception: ``fit`` flushes subnormal floats, so a subnormal weight in the first
    layer's other columns comes back as 0; ``agents.value.train.with_input_rows`` copies
    the untrained weights back from the starting network.)"""
    import torch
    first = next(m for m in model.modules() if isinstance(m, torch.nn.Linear))
    columns = np.asarray(columns)
    width = first.weight.shape[1]
    if columns.ndim != 1 or len(columns) == 0:
        raise ValueError("trainable input slots: give at least one slot, a flat list of integers")
    if columns.dtype.kind not in "iu":
        raise ValueError(f"trainable input slots must be integers, got {columns.tolist()}")
    if columns.min() < 0 or columns.max() >= width:
        raise ValueError(f"trainable input slots must lie in 0..{width - 1}, got {columns.tolist()}")
    if len(np.unique(columns)) != len(columns):
        raise ValueError(f"trainable input slots are named twice: {columns.tolist()}")
    for p in model.parameters():
        p.requires_grad_(False)
    first.weight.requires_grad_(True)
    mask = torch.zeros_like(first.weight)
    mask[:, torch.from_numpy(columns.astype(np.int64))] = 1.0
    first.weight.register_hook(lambda g: g * mask)
    return torch.optim.Adam([first.weight], lr=lr, weight_decay=0.0)


def fit(model: Any, train_rows: np.ndarray, loss_of: Callable[[Any, np.ndarray], Any], *, epochs: int,
        lr: float = 1e-3, batch: int = 256, weight_decay: float = 0.0, optimizer: Any = None,
        lr_schedule: Optional[Callable[[float], float]] = None, clip_grad: Optional[float] = None,
        seconds: Optional[float] = None, first_epoch: int = 1, rng: Optional[np.random.Generator] = None,
        heldout: Optional[Callable[[Any], Dict[str, Any]]] = None, keep_best: Optional[str] = None,
        progress: Optional[Callable[[Dict[str, Any]], None]] = None) -> Fit:
    """Train ``model`` in place on ``train_rows``, epochs ``first_epoch`` to ``epochs``.

    ``loss_of(model, rows)``: a minibatch's scalar loss tensor.  ``optimizer``: the
    caller's (for example AdamW with its state loaded to resume); by default Adam with
    ``lr`` and ``weight_decay``.  ``lr_schedule(progress)``: the share of the base rate at
    that point of the whole run (0 to 1, counted from epoch 1, so a resumed run goes on
    where it was).  ``clip_grad``: the largest gradient norm.  ``seconds``: stop after the
    minibatch that passes this budget (its epoch ends there and counts).
    ``heldout(model)``: the figures after an epoch (the model in eval mode).
    ``keep_best``: a key of those figures; the model ends with the weights of the epoch
    where it was lowest.  ``rng``: the minibatch order (seed 0 when not given).
    ``progress(entry)`` after each epoch (save a checkpoint there)."""
    import torch
    if first_epoch < 1:
        raise ValueError(f"first_epoch must be >= 1, got {first_epoch}")
    rng = rng if rng is not None else np.random.default_rng(0)
    opt = optimizer if optimizer is not None else \
        torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    for group in opt.param_groups:  # the base rate, kept in the optimizer's state as torch's schedulers keep it
        group.setdefault("initial_lr", group["lr"])
    base_lrs = [group["initial_lr"] for group in opt.param_groups]
    steps_per_epoch = max(1, -(-len(train_rows) // batch))
    history: List[Dict[str, Any]] = []
    best: Optional[tuple] = None  # (figure, epoch, weights)
    start = time.perf_counter()

    def spent() -> bool:  # the time budget is used up
        return seconds is not None and time.perf_counter() - start > seconds
    with _subnormals_flushed(torch):  # weight decay leaves subnormals; each costs a microcode assist
        for epoch in range(first_epoch, epochs + 1):
            model.train()
            t0, total, seen = time.perf_counter(), 0.0, 0
            for k, rows in enumerate(minibatches(train_rows, batch, rng)):
                if lr_schedule is not None:
                    share = lr_schedule(((epoch - 1) * steps_per_epoch + k) / (epochs * steps_per_epoch))
                    for group, base in zip(opt.param_groups, base_lrs):
                        group["lr"] = base * share
                loss = loss_of(model, rows)
                opt.zero_grad()
                loss.backward()
                if clip_grad is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
                opt.step()
                total += float(loss.detach()) * len(rows)
                seen += len(rows)
                if spent():
                    break
            entry: Dict[str, Any] = {"epoch": epoch, "train_loss": total / max(seen, 1),
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
            if spent():
                break
        model.eval()
        if best is not None:
            model.load_state_dict(best[2])
            return Fit(history, best[1])
        return Fit(history, history[-1]["epoch"] if history else first_epoch - 1)
