"""Training the win-probability network in torch (the ``[rl]`` extra), and judging it.

The loss is the cross-entropy between the softmax over the seats in the game and the
target: the game's outcome, mixed with the search's estimate where a search agent
played the position (``value_weight``).  With ``vp_weight`` > 0 the network also
predicts each seat's final victory points while training (an auxiliary head, dropped on
export: the played network is the same shape): the points are a denser signal than who
won, and say by how much a position was ahead.  Games, not positions, are held out, so that the
held-out figures are about games the network never saw; the epoch with the best held-out
log loss is the one kept (early stopping: a game's positions share one label, so a
network can learn games by heart).  :func:`evaluate` reports
accuracy (the predicted favourite won), the "public VP leader" baseline on the same
positions, log loss and calibration bins.
"""
from typing import Any, Callable, Dict, Optional, Sequence

import numpy as np

from catan_env.core.layout import MAX_PLAYERS

from catan_env.learned.features import N_FEATURES
from ..training.fit import cosine, fit, input_columns_optimizer, split_games
from catan_env.learned.network import ValueNetwork
from catan_env.plotting import pyplot, save


VP_SCALE = 10.0  # final victory points are predicted divided by this (about 0-1)


def make_model(hidden: Sequence[int] = (256, 128), dropout: float = 0.0, aux: bool = False) -> Any:
    """The MLP: features -> ReLU layers (dropout after each while training) -> one logit
    per relative seat, then (``aux``) one final-VP prediction per relative seat."""
    from torch import nn
    layers, width = [], N_FEATURES
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        if dropout > 0:
            layers.append(nn.Dropout(dropout))
        width = h
    layers.append(nn.Linear(width, 2 * MAX_PLAYERS if aux else MAX_PLAYERS))
    return nn.Sequential(*layers)


def targets(data: Dict[str, np.ndarray], value_weight: float) -> np.ndarray:
    """Per-row targets: outcome, blended with the search's estimate where there is one."""
    y = data["outcome"].copy()
    has = ~np.isnan(data["value"][:, 0])
    if value_weight > 0 and has.any():
        y[has] = (1 - value_weight) * y[has] + value_weight * data["value"][has]
    return y


def train(data: Dict[str, np.ndarray], hidden: Sequence[int] = (256, 128), epochs: int = 6, lr: float = 1e-3,
          batch: int = 512, weight_decay: float = 1e-5, dropout: float = 0.0, holdout: float = 0.1, value_weight: float = 0.0,
          seed: int = 0, init: Optional[ValueNetwork] = None, vp_weight: float = 0.0,
          trainable_inputs: Optional[Sequence[int]] = None,
          progress: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """Fit a network on ``data`` (from ``positions.load_positions``) with the shared loop
    (:func:`agents.training.fit.fit`: Adam, cosine-annealed, the best held-out epoch
    kept); returns {"network": ValueNetwork, "history": per-epoch losses, "heldout":
    evaluate(...) of the kept epoch, "heldout_mask"}.  ``init``: start from these
    weights (same shape) instead of at random.  ``vp_weight``: the weight of the
    auxiliary loss, the squared error of each seat's final VP / ``VP_SCALE`` (needs
    ``data["final_vp"]``; 0: no auxiliary head).  ``trainable_inputs``: train only the
    first layer's weights on these feature slots, every other weight and bias staying
    ``init``'s bit for bit (no weight decay on them): on positions where those slots are 0
    the network computes exactly what ``init`` does (``with_input_rows``)."""
    import torch
    if trainable_inputs is not None and init is None:
        raise ValueError("trainable_inputs needs init: the network whose other weights stay")
    if trainable_inputs is not None and vp_weight > 0:
        raise ValueError("trainable_inputs with vp_weight > 0: the final-VP head would start at random "
                         "and stay frozen; train the chosen inputs with vp_weight=0")
    if trainable_inputs is not None and weight_decay != 0:
        raise ValueError(f"trainable_inputs trains without weight decay (the other weights stay as they "
                         f"are); pass weight_decay=0, not {weight_decay}")
    if not 0 <= vp_weight < float("inf"):
        raise ValueError(f"vp_weight must be 0 or more (and finite), not {vp_weight}")
    if vp_weight > 0 and "final_vp" not in data:
        raise ValueError("vp_weight > 0 needs data['final_vp'] (positions.load_positions gives it)")
    torch.manual_seed(seed)
    aux = vp_weight > 0
    model = make_model(hidden, dropout, aux)
    if init is not None:
        _load_into(model, init)
    optimizer = None
    if trainable_inputs is not None:
        optimizer = input_columns_optimizer(model, trainable_inputs, lr)
    held = split_games(data["game"], holdout, seed) if holdout > 0 else np.zeros(len(data["game"]), bool)
    train_rows = np.flatnonzero(~held)
    y_all = targets(data, value_weight)
    weights = data.get("weight")  # optional per-row loss weights (newer rounds' games count more)
    if weights is not None:
        weights = np.asarray(weights, np.float32)
    seats = np.arange(MAX_PLAYERS)[None, :]

    def loss_of(model: Any, rows: np.ndarray) -> Any:
        x = torch.from_numpy(data["x"][rows].astype(np.float32))
        y = torch.from_numpy(y_all[rows])
        mask = torch.from_numpy(seats >= data["players"][rows][:, None])
        out = model(x)
        per_row = -(y * torch.log_softmax(out[:, :MAX_PLAYERS].masked_fill(mask, -1e9), dim=1)).sum(dim=1)
        if aux:
            vp = torch.from_numpy(data["final_vp"][rows] / np.float32(VP_SCALE))
            per_row = per_row + vp_weight * ((out[:, MAX_PLAYERS:] - vp) ** 2).masked_fill(mask, 0.0).sum(dim=1)
        if weights is None:
            return per_row.mean()
        w = torch.from_numpy(weights[rows])
        return (per_row * w).sum() / w.sum()

    def report(entry: Dict[str, Any]) -> None:
        if progress:
            h = entry.get("heldout", {})
            progress(f"epoch {entry['epoch']}: train loss {entry['train_loss']:.4f}, held-out loss "
                     f"{h.get('log_loss', float('nan')):.4f}, accuracy {h.get('accuracy', float('nan')):.3f} "
                     f"(VP leader {h.get('vp_leader_accuracy', float('nan')):.3f}), {entry['seconds']:.0f} s")

    def exported(model: Any, meta: Dict[str, Any]) -> ValueNetwork:
        network = export(model, meta)
        if trainable_inputs is None:
            return network
        assert init is not None
        return with_input_rows(init, network, trainable_inputs, meta)

    heldout = (lambda model: evaluate(exported(model, {}), data, held)) if held.any() else None
    run = fit(model, train_rows, loss_of, epochs=epochs, lr=lr, batch=batch, weight_decay=weight_decay,
              lr_schedule=cosine, rng=np.random.default_rng(seed), heldout=heldout, keep_best="log_loss",
              progress=report, optimizer=optimizer)
    history = run.history
    meta = {"hidden": list(hidden), "dropout": dropout, "weight_decay": weight_decay, "epochs": epochs,
            "kept_epoch": run.kept_epoch, "lr": lr, "batch": batch,
            "value_weight": value_weight, "vp_weight": vp_weight, "rows": int(len(train_rows)), "seed": seed}
    if trainable_inputs is not None:
        meta["trainable_inputs"] = [int(i) for i in trainable_inputs]
    network = exported(model, meta)
    return {"network": network, "history": history,
            "heldout": history[run.kept_epoch - 1].get("heldout") if history else None, "heldout_mask": held}


def export(model: Any, meta: Dict[str, Any]) -> ValueNetwork:
    """The torch model as a ValueNetwork (numpy weights for the numba forward pass): the
    win logits only (an auxiliary head's rows are dropped)."""
    from torch import nn

    from catan_env.learned.mlp import MLPWeights, from_torch
    plain = nn.Sequential(*[m for m in model if not isinstance(m, nn.Dropout)])  # identity at play time
    layers = from_torch(plain).layers
    w, b, act = layers[-1]
    return ValueNetwork(MLPWeights(layers[:-1] + [(w[:, :MAX_PLAYERS], b[:MAX_PLAYERS], act)]), meta)


def with_input_rows(base: ValueNetwork, trained: ValueNetwork, rows: Sequence[int],
                    meta: Dict[str, Any]) -> ValueNetwork:
    """base's network with its first layer's weights on the input slots ``rows`` taken
    from trained (every other weight and bias base's own, bit for bit).  Its meta is
    ``meta`` (this training's) with base's under ``"init"``: what base was trained on does
    not describe this network."""
    from catan_env.learned.mlp import MLPWeights
    layers = [(w.copy(), b.copy(), act) for w, b, act in base.weights.layers]
    w0 = layers[0][0]
    w0[list(rows)] = trained.weights.layers[0][0][list(rows)]
    return ValueNetwork(MLPWeights(layers), dict(meta, init=dict(base.meta)))


def _load_into(model: Any, network: ValueNetwork) -> None:
    import torch
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    if len(linear) != len(network.weights.layers):
        raise ValueError("init network has another number of layers")
    with torch.no_grad():
        for k, (m, (w, b, _)) in enumerate(zip(linear, network.weights.layers)):
            rows = w.shape[1]  # (an auxiliary head's rows, beyond the last layer's, keep their start)
            fits = (rows, 2 * rows) if k == len(linear) - 1 else (rows,)
            if m.weight.shape[1] != w.shape[0] or m.weight.shape[0] not in fits:
                raise ValueError(f"init network layer shape {w.shape} does not fit {tuple(m.weight.shape)}")
            m.weight[:rows].copy_(torch.from_numpy(w.T.copy()))
            m.bias[:rows].copy_(torch.from_numpy(b))


def evaluate(network: ValueNetwork, data: Dict[str, np.ndarray], rows: Optional[np.ndarray] = None,
             bins: int = 10) -> Dict[str, Any]:
    """Held-out figures on ``rows`` (a mask or indices; all rows by default), over the
    positions of games that had a winner: ``accuracy`` (the seat the net rates most
    likely to win did), ``vp_leader_accuracy`` (the same for the most public VP, ties
    split evenly), ``log_loss``, ``positions`` and ``games``, and ``calibration``: per
    bin of predicted chance, (mean predicted, observed win rate, count) over all seats."""
    idx = np.arange(len(data["game"]))[rows] if rows is not None else np.arange(len(data["game"]))
    decided = data["outcome"][idx].max(axis=1) == 1.0
    idx = idx[decided]
    p = np.zeros((len(idx), MAX_PLAYERS), np.float32)
    for i in range(0, len(idx), 65536):
        part = idx[i:i + 65536]
        p[i:i + len(part)] = network.predict(data["x"][part].astype(np.float32), data["players"][part])
    y = data["outcome"][idx]
    n = data["players"][idx]
    valid = np.arange(MAX_PLAYERS)[None, :] < n[:, None]
    win = y.argmax(axis=1)
    accuracy = float((p.argmax(axis=1) == win).mean()) if len(idx) else float("nan")
    vp = np.where(valid, data["public_vp"][idx].astype(np.float64), -1.0)
    leaders = vp == vp.max(axis=1, keepdims=True)
    vp_acc = float((leaders[np.arange(len(idx)), win] / leaders.sum(axis=1)).mean()) if len(idx) else float("nan")
    log_loss = float(-np.log(np.clip(p[np.arange(len(idx)), win], 1e-7, 1)).mean()) if len(idx) else float("nan")
    flat_p, flat_y = p[valid], y[valid]
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(flat_p, edges) - 1, 0, bins - 1)
    calibration = []
    for b in range(bins):
        m = which == b
        if m.any():
            calibration.append((float(flat_p[m].mean()), float(flat_y[m].mean()), int(m.sum())))
    return {"accuracy": accuracy, "vp_leader_accuracy": vp_acc, "log_loss": log_loss, "positions": int(len(idx)),
            "games": int(len(np.unique(data["game"][idx]))), "calibration": calibration}


def reliability_plot(calibration: Sequence[Sequence[float]], path: str, title: str = "") -> Optional[str]:
    """Draw calibration bins (mean predicted, observed, count) as a reliability diagram
    (needs matplotlib, the [viz] extra); returns the path, or None without matplotlib."""
    plt = pyplot()
    if plt is None:
        return None
    pred = [c[0] for c in calibration]
    seen = [c[1] for c in calibration]
    counts = [c[2] for c in calibration]
    fig, (ax, hist) = plt.subplots(2, 1, figsize=(4.5, 5.5), gridspec_kw={"height_ratios": [3, 1]}, sharex=True)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, label="perfect calibration")
    ax.plot(pred, seen, "o-", label="network (held-out games)")
    ax.set(ylabel="observed win rate", title=title or "win-probability network: reliability")
    ax.legend(fontsize=8)
    hist.bar(pred, counts, width=0.08)
    hist.set(xlabel="predicted chance to win", ylabel="seat-positions")
    return save(fig, path)


def ship(net_path: str, heldout: Dict[str, Any], title: str, plot_path: str,
         weights_path: Optional[str] = None) -> Optional[str]:
    """Make the network at ``net_path`` the package's ``pretrained`` weights (or
    ``weights_path``) and draw its held-out calibration (``heldout["calibration"]``, from
    :func:`evaluate`) into ``plot_path`` (the repository's docs/value_calibration.png);
    returns the plot's path (None without matplotlib).  The file is loaded first, so a
    file that is not a value network of today's features is refused before anything is
    replaced."""
    import os
    import shutil

    from catan_env.learned.network import PRETRAINED
    if "calibration" not in heldout:
        raise ValueError(f"no held-out calibration for {net_path}: ship a network trained with held-out games")
    ValueNetwork.load(net_path)
    weights_path = weights_path or PRETRAINED
    os.makedirs(os.path.dirname(weights_path), exist_ok=True)
    shutil.copyfile(net_path, weights_path)
    return reliability_plot(heldout["calibration"], plot_path, title=title)
