"""Search options, their validation, and the presets of the papers.

Every MCTS variant is a preset of one :class:`SearchConfig`; options given beside a
preset override it (``mcts:variant=mp_ensemble:playouts=10000:c=0.1``).  The presets
and the papers they come from:

  ismcts        this library's first agent: information-set MCTS (a determinization
                per iteration), open-loop chance, Szita et al.'s virtual wins, pruning
                playouts.
  plain_uct     "Optimizing UCT for Settlers of Catan" (Gonzalez et al.) PlainUCT: UCT,
                Cp 0.25, one determinization per search, dice as sparse-UCT chance
                nodes, random playouts.
  vw_uct        the same paper's VW-UCT: PlainUCT with virtual wins on expansion (20 a
                settlement, 10 a city; Szita, Chaslot and Spronck), not backed up.
  mp_uct        its MP-UCT: move pruning (a city if possible, else a settlement, else
                anything) in expansion and in the playouts.
  mp_ensemble   its MP-EnsembleUCT: 10 independent MP-UCT trees from the root, each
                with its own determinization and a tenth of the playouts, merged by
                summing visits and rewards (root parallelisation).
  mpt_ensemble  its MPT-EnsembleUCT: MP-EnsembleUCT with the trade-optimistic search
                (1:1 offers to all players for the best trade-optimistic root move, a
                second search without them, one trading round per turn, offers answered
                by a two-option search).  Trading on.
  szita         "MCTS in Settlers of Catan" (Szita, Chaslot, Spronck): virtual wins and
                their domain-weighted playouts (hidden information kept: ISMCTS).
  dipl_v5       the Diplomacy MCTS thesis, version 5: expansion in order of a domain
                weight (here Szita's action weights) instead of at random.
  dipl_v8       the thesis' version 8: playout opponents drawn per playout from a
                mixture of policies (random, pruning, weighted).
  best          this library's pick on its measurements (docs/search.md): MP-ISMCTS, i.e.
                mp_uct's move pruning in the tree and the playouts on ismcts's
                information-set search (a determinization per iteration, open-loop
                chance), without virtual wins.
"""
from dataclasses import dataclass, fields, replace
from typing import Any, Dict, Tuple

import numpy as np

from catan_env.core.playout import POLICIES

from . import kernel as K

PLAYOUTS = dict(POLICIES, mixture=3)
CHOICES = {
    "determinize": ("iteration", "search"),
    "chance": ("open", "sparse"),
    "expand": ("random", "weight"),
    "playout": tuple(PLAYOUTS),
    "reward": ("win", "vp"),
    "prior": ("none", "weights"),
    "opening": ("search", "jsettlers", "solver"),
}


@dataclass(frozen=True)
class SearchConfig:
    """All options of the search (see ``agents/mcts/kernel.py`` for their meaning)."""

    playouts: int = 1000         # iterations per decision (split over the ensemble)
    seconds: float = 0.0         # > 0: a time budget per decision instead of playouts
    c: float = 0.25              # exploration constant Cp
    reward: str = "win"
    determinize: str = "iteration"
    chance: str = "open"
    chance_width: int = 11
    chance_depth: int = 2
    virtual_wins: bool = True
    prune: bool = False          # MP-UCT's move pruning in the tree
    expand: str = "random"
    playout: str = "pruning"
    mix_random: float = 1.0      # mixture weights (playout="mixture")
    mix_pruning: float = 1.0
    mix_weighted: float = 1.0
    rollout_turns: int = -1      # -1 to the end; 0 evaluate the leaf; k: k turns then evaluate
    horizon: int = 200           # playouts stop this many turns past the decision (a draw)
    prior: str = "none"          # "weights": PUCT with the domain-weight prior hook
    fpu: float = 0.25
    pw_c: float = 1.0            # progressive widening (pw_alpha > 0)
    pw_alpha: float = 0.0
    ensemble: int = 1            # independent trees merged at the root
    threads: int = 1             # trees grown in parallel threads
    trading: bool = False        # domestic trade: the trade-optimistic search and answers
    opening: str = "search"      # set-up placements: searched, or JSettlers' / the solver's
    accept_margin: float = -1.0  # >= 0: accept an offer only if its mean beats rejecting by this
    max_nodes: int = 0           # 0: sized from the budget

    def __post_init__(self) -> None:
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"mcts option {name} must be one of {list(allowed)}, "
                                 f"got {getattr(self, name)!r}{_did_you_mean(name, getattr(self, name))}")
        checks = [("playouts", self.playouts >= 1), ("seconds", self.seconds >= 0),
                  ("c", self.c >= 0), ("accept_margin", self.accept_margin >= -1), ("chance_width", self.chance_width >= 1),
                  ("chance_depth", self.chance_depth >= 0), ("rollout_turns", self.rollout_turns >= -1),
                  ("horizon", self.horizon >= 1), ("ensemble", self.ensemble >= 1),
                  ("threads", self.threads >= 1), ("pw_alpha", 0 <= self.pw_alpha <= 1),
                  ("pw_c", self.pw_c > 0), ("max_nodes", self.max_nodes == 0 or self.max_nodes >= 4),
                  ("mixture weights", min(self.mix_random, self.mix_pruning, self.mix_weighted) >= 0
                   and self.mix_random + self.mix_pruning + self.mix_weighted > 0)]
        for name, ok in checks:
            if not ok:
                raise ValueError(f"mcts option {name} out of range in {self}")
        if self.ensemble > self.playouts and self.seconds == 0:
            raise ValueError(f"ensemble ({self.ensemble}) needs at least one playout per tree "
                             f"(playouts={self.playouts})")

    def arrays(self, turn: int) -> Tuple[np.ndarray, np.ndarray]:
        """(ci, cf) for the kernel at a decision on the given turn."""
        ci = np.zeros(K.N_CI, dtype=np.int64)
        ci[K.I_DET] = CHOICES["determinize"].index(self.determinize)
        ci[K.I_CHANCE] = CHOICES["chance"].index(self.chance)
        ci[K.I_CHANCE_WIDTH] = self.chance_width
        ci[K.I_CHANCE_DEPTH] = self.chance_depth
        ci[K.I_VIRTUAL] = int(self.virtual_wins)
        ci[K.I_PRUNE] = int(self.prune)
        ci[K.I_EXPAND] = CHOICES["expand"].index(self.expand)
        ci[K.I_POLICY] = PLAYOUTS[self.playout]
        ci[K.I_REWARD] = CHOICES["reward"].index(self.reward)
        ci[K.I_ROLLOUT_TURNS] = self.rollout_turns
        ci[K.I_TURN_CAP] = turn + self.horizon
        ci[K.I_PRIOR] = CHOICES["prior"].index(self.prior)
        ci[K.I_NO_TRADE] = 1
        cf = np.zeros(K.N_CF)
        cf[K.F_C] = self.c
        cf[K.F_PW_C] = self.pw_c
        cf[K.F_PW_ALPHA] = self.pw_alpha
        cf[K.F_MIX:K.F_MIX + 3] = (self.mix_random, self.mix_pruning, self.mix_weighted)
        cf[K.F_FPU] = self.fpu
        return ci, cf


_UCT_PAPER: Dict[str, Any] = dict(determinize="search", chance="sparse", virtual_wins=False, playout="random")
PRESETS: Dict[str, Dict[str, Any]] = {
    "ismcts": dict(),
    "plain_uct": dict(_UCT_PAPER),
    "vw_uct": dict(_UCT_PAPER, virtual_wins=True),
    "mp_uct": dict(_UCT_PAPER, prune=True, playout="pruning"),
    "mp_ensemble": dict(_UCT_PAPER, prune=True, playout="pruning", ensemble=10),
    "mpt_ensemble": dict(_UCT_PAPER, prune=True, playout="pruning", ensemble=10, trading=True),
    "szita": dict(playout="weighted"),
    "dipl_v5": dict(expand="weight"),
    "dipl_v8": dict(playout="mixture"),
    "best": dict(prune=True, virtual_wins=False),
}
ALIASES = {"iterations": "playouts"}


def _did_you_mean(name: str, value: Any) -> str:
    """A hint when a value fits an option of a similar name better (``playout=100`` for
    ``playouts=100``), else ''."""
    import difflib
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    for other in difflib.get_close_matches(name, [f.name for f in fields(SearchConfig)], n=3, cutoff=0.8):
        if other != name and numeric and _FIELDS[other] in (int, float):
            return f" (did you mean {other}={value}?)"
    return ""
_FIELDS = {f.name: f.type for f in fields(SearchConfig)}


def make_config(variant: str = "ismcts", **options: Any) -> SearchConfig:
    """The preset's config with the given options replacing its values."""
    if variant not in PRESETS:
        raise ValueError(f"unknown mcts variant {variant!r}; available: {sorted(PRESETS)}")
    merged = dict(PRESETS[variant])
    for name, value in options.items():
        name = ALIASES.get(name, name)
        if name not in _FIELDS:
            import difflib
            close = difflib.get_close_matches(name, list(_FIELDS), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ValueError(f"unknown mcts option {name!r}{hint}; options: {sorted(_FIELDS)}")
        kind = _FIELDS[name]
        if kind is bool and not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"mcts option {name} must be true or false, got {value!r}")
        if kind is int:
            if isinstance(value, (bool, np.bool_)) or int(value) != value:
                raise ValueError(f"mcts option {name} must be an integer, got {value!r}")
            value = int(value)
        if kind is float:
            value = float(value)
        merged[name] = value
    return replace(SearchConfig(), **merged)
