"""The Deep Catan networks in torch (the ``[rl]`` extra): definitions, training, export.

- :class:`ValueNet`: the paper's value network, scaled for a CPU (see
  :mod:`agents.deep.forward` for the architecture); MAE loss on the softmax over the
  players' winning probabilities (cross-entropy as an option).
- :func:`local_net`: the local value estimation network, an MLP from a move's features
  (:mod:`agents.deep.features`) to its estimated score for the mover.

Trained networks leave torch through :func:`save_networks` as one ``.npz`` that the
numba forward passes read (:mod:`agents.deep.forward`, ``catan_env.learned.mlp``).
"""
import json
import os
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union, cast

import numpy as np
import torch
from torch import nn

from catan_env.learned.mlp import from_torch
from catan_env.core.layout import MAX_PLAYERS
from catan_env.core.observe import GRID_H, GRID_W, P_VP, PLANES, TAIL_SIZE, obs_view

from ..training.fit import fit
from .features import N_FEATURES
from .forward import KH, KW, SPEC_FIELDS, param_count


class ValueNet(nn.Module):
    """Board planes -> residual 5x3 convolutions -> 2-channel 1x1 head, flattened; the
    vector part -> dense; joined -> dense -> one logit per relative seat."""

    def __init__(self, channels: int = 8, blocks: int = 1, tail_hidden: int = 32, hidden: int = 64) -> None:
        super().__init__()
        pad = (KH // 2, KW // 2)
        self.spec = dict(planes=PLANES, channels=channels, blocks=blocks, height=GRID_H, width=GRID_W,
                         tail=TAIL_SIZE, tail_hidden=tail_hidden, hidden=hidden, outputs=MAX_PLAYERS)
        self.stem = nn.Conv2d(PLANES, channels, (KH, KW), padding=pad)
        self.blocks = nn.ModuleList(
            nn.ModuleList([nn.Conv2d(channels, channels, (KH, KW), padding=pad),
                           nn.Conv2d(channels, channels, (KH, KW), padding=pad)]) for _ in range(blocks))
        self.head = nn.Conv2d(channels, 2, 1)
        self.tail = nn.Linear(TAIL_SIZE, tail_hidden)
        self.joint = nn.Linear(2 * GRID_H * GRID_W + tail_hidden, hidden)
        self.out = nn.Linear(hidden, MAX_PLAYERS)

    def forward(self, planes: torch.Tensor, tail: torch.Tensor,
                n_players: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Logits (batch, 4); seats beyond n_players (a (batch,) tensor) are masked out."""
        a = torch.relu(self.stem(planes))
        for c1, c2 in cast(Iterable[Tuple[nn.Module, nn.Module]], self.blocks):  # ModuleLists of two
            a = torch.relu(c2(torch.relu(c1(a))) + a)
        board = torch.relu(self.head(a)).flatten(1)
        joined = torch.cat([board, torch.relu(self.tail(tail))], dim=1)
        logits = self.out(torch.relu(self.joint(joined)))
        if n_players is not None:
            seats = torch.arange(MAX_PLAYERS, device=logits.device)[None, :]
            logits = logits.masked_fill(seats >= n_players[:, None], -1e9)
        return logits

    def export(self) -> Tuple[np.ndarray, np.ndarray]:
        """(params float32, spec int64) in the order the numba forward reads them."""
        conv = lambda m: [m.weight.detach().permute(1, 2, 3, 0).reshape(-1), m.bias.detach()]  # noqa: E731
        dense = lambda m: [m.weight.detach().t().reshape(-1), m.bias.detach()]  # noqa: E731
        parts = conv(self.stem)
        for c1, c2 in cast(Iterable[Tuple[nn.Module, nn.Module]], self.blocks):  # ModuleLists of two
            parts += conv(c1) + conv(c2)
        head_bias = self.head.bias
        assert head_bias is not None  # every layer here is built with a bias
        parts += [self.head.weight.detach()[:, :, 0, 0].t().reshape(-1), head_bias.detach()]
        parts += dense(self.tail) + dense(self.joint) + dense(self.out)
        params = torch.cat([p.float().reshape(-1) for p in parts]).numpy().astype(np.float32)
        spec = np.array([self.spec[k] for k in SPEC_FIELDS], dtype=np.int64)
        assert params.size == param_count(spec)
        return params, spec


def local_net(hidden: int = 32) -> nn.Sequential:
    """The local value estimation network: move features -> a score (a logit of the
    move's win-rate estimate for the mover).  Small: the search evaluates it for every
    legal move at every node it selects through."""
    return nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, 1))


def value_loss(logits: torch.Tensor, target: torch.Tensor, kind: str = "mae") -> torch.Tensor:
    """MAE between the softmax and the target distribution (the paper's), or cross-entropy."""
    if kind == "mae":
        return (torch.softmax(logits, dim=1) - target).abs().sum(dim=1).mean()
    if kind == "ce":
        return -(target * torch.log_softmax(logits, dim=1).clamp(min=-30)).sum(dim=1).mean()
    raise ValueError(f"value loss must be 'mae' or 'ce', got {kind!r}")


def train_value(data: Dict[str, np.ndarray], epochs: int = 5, lr: float = 1e-3, batch: int = 128, loss: str = "mae",
                target: str = "mix", net: Optional[ValueNet] = None, seed: int = 0, holdout: float = 0.1,
                **net_options: Any) -> Tuple[ValueNet, Dict[str, Any]]:
    """Train (or go on training) a ValueNet on shard data with the shared loop
    (:func:`agents.training.fit.fit`); returns (net, history) where history has the train
    and held-out loss per epoch (a tenth of the games held out whole).  target:
    "outcome" (the game's winner), "root" (the search's root estimates) or "mix" (their
    mean)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    y = {"outcome": data["outcome"], "root": data["root"],
         "mix": 0.5 * (data["outcome"] + data["root"])}[target]
    # held out by whole games: positions of one game are too alike to test each other
    games = np.unique(data["game"])
    held = rng.permutation(games)[:int(len(games) * holdout)] if len(games) >= 10 else games[:0]
    is_test = np.isin(data["game"], held)
    test, train = np.flatnonzero(is_test), np.flatnonzero(~is_test)
    net = net or ValueNet(**net_options)
    tensors = (torch.as_tensor(data["planes"], dtype=torch.float32), torch.as_tensor(data["tail"]),
               torch.as_tensor(data["players"]), torch.as_tensor(y, dtype=torch.float32))

    def loss_of(model: nn.Module, rows: np.ndarray) -> torch.Tensor:
        planes, tail, players, target_y = (t[torch.as_tensor(rows)] for t in tensors)
        return value_loss(model(planes, tail, players), target_y, loss)

    heldout = (lambda model: {"loss": float(loss_of(model, test))}) if len(test) else None
    run = fit(net, train, loss_of, epochs=epochs, lr=lr, batch=batch, rng=rng, heldout=heldout)
    history: Dict[str, Any] = {"train": [e["train_loss"] for e in run.history],
               "test": [e["heldout"]["loss"] for e in run.history if "heldout" in e]}
    if len(test):
        history.update(winner_accuracy(net, data, test))
    return net, history


def winner_accuracy(net: nn.Module, data: Dict[str, np.ndarray], rows: np.ndarray) -> Dict[str, float]:
    """On the finished games' positions among rows: how often the network's most likely
    winner won, beside the same rate for the public VP leader (a baseline it should beat)."""
    rows = rows[data["outcome"][rows].max(axis=1) == 1.0]
    if len(rows) == 0:
        return {}
    with torch.no_grad():
        logits = net(torch.as_tensor(data["planes"][rows], dtype=torch.float32), torch.as_tensor(data["tail"][rows]),
                     torch.as_tensor(data["players"][rows]))
    winner = data["outcome"][rows].argmax(axis=1)
    leader = obs_view(data["tail"][rows], "players")[:, :, P_VP].argmax(axis=1)
    return {"test_picks_winner": float(np.mean(logits.argmax(1).numpy() == winner)),
            "test_vp_leader": float(np.mean(leader == winner))}


def train_local(data: Dict[str, np.ndarray], epochs: int = 5, lr: float = 1e-3, batch: int = 256,
                net: Optional[nn.Module] = None, seed: int = 0, hidden: int = 32) -> Tuple[nn.Module, List[float]]:
    """Train the local network: each searched root move's features -> its mean reward
    for the mover (binary cross-entropy on the logit, weighted by the move's visits)."""
    torch.manual_seed(seed)
    net = net or local_net(hidden)
    x = torch.as_tensor(data["local_x"])
    y = torch.as_tensor(data["local_q"], dtype=torch.float32).clamp(0, 1)
    w = torch.as_tensor(data["local_visits"], dtype=torch.float32)
    w = w / w.mean().clamp(min=1e-6) if len(w) else w

    def loss_of(model: nn.Module, rows: np.ndarray) -> torch.Tensor:
        idx = torch.as_tensor(rows)
        logit = model(x[idx])[:, 0]
        return (nn.functional.binary_cross_entropy_with_logits(logit, y[idx], reduction="none") * w[idx]).mean()

    run = fit(net, np.arange(len(y)), loss_of, epochs=epochs, lr=lr, batch=batch, rng=np.random.default_rng(seed))
    return net, [e["train_loss"] for e in run.history]


def save_networks(path: Union[str, "os.PathLike[str]"], value: Optional[ValueNet] = None,
                  local: Optional[nn.Module] = None, temperature: float = 0.05,
                  meta: Optional[Dict[str, Any]] = None) -> Union[str, "os.PathLike[str]"]:
    """Write the exported networks to one .npz (read by :func:`agents.deep.load_networks`)."""
    arrays: Dict[str, Any] = {"meta": np.array(json.dumps(dict(meta or {}, temperature=temperature)))}
    if value is not None:
        arrays["value_params"], arrays["value_spec"] = value.export()
    if local is not None:
        for k, (w, b, act) in enumerate(from_torch(local).layers):
            arrays[f"local_w{k}"], arrays[f"local_b{k}"] = w, b
            arrays[f"local_act{k}"] = np.array(act)
        arrays["local_layers"] = np.array(len(from_torch(local).layers))
    np.savez(path, **arrays)
    return path
