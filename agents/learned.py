"""Agents that play a learned policy: ``ppo:path=actor.npz`` (an MLP exported with
``catan_env.batched.MLPWeights``, e.g. by examples/train_ppo_batched.py; numpy and numba
only, no torch), ``pretrained_policy`` (the one shipped in the package) and
``sb3:path=model.zip`` (a saved Stable-Baselines3 model; needs the
``[rl]`` extra) and ``rllib:path=checkpoint`` (an RLlib checkpoint; needs the ``[rllib]``
extra)."""
import io
import os
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple, Union

import numpy as np

from catan_env.learned.mlp import MLPWeights, masked_logits, pack
from catan_env.learned.network import PRETRAINED_POLICY
from catan_env.learned.plays import PolicyNetworkPlay

from .base import Agent, Observation, choose_from_logits, legal_from

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet

StrPath = Union[str, "os.PathLike[str]"]


class MLPPolicyAgent(Agent):
    """Plays the masked argmax (or, with ``deterministic=False``, a softmax sample) of an
    exported MLP's logits over the seat's flat observation."""

    name = "ppo"

    def __init__(self, path: Optional[StrPath] = None, deterministic: bool = True, seed: Optional[int] = None,
                 weights: Optional[MLPWeights] = None) -> None:
        super().__init__(seed)
        if weights is None:
            if path is None:
                raise ValueError("ppo agent needs path=<actor.npz> (or weights=MLPWeights)")
            path = os.fspath(path)
            if os.path.isdir(path):
                path = os.path.join(path, "actor.npz")
            weights = MLPWeights.load(path)
        self.weights = weights
        self.path = path
        self.deterministic = bool(deterministic)
        self._params, self._layers, self._nets = pack([weights])
        width = max(w.shape[1] for w, _, _ in weights.layers)
        size = max(width, weights.n_in)
        self._h1, self._h2 = np.empty(size, np.float32), np.empty(size, np.float32)

    def logits(self, observation: Observation) -> Tuple[np.ndarray, np.ndarray]:
        """Logits of the legal actions (in ascending id order) and those ids."""
        x = np.ascontiguousarray(observation["observation"], dtype=np.float32)
        if x.shape != (self.weights.n_in,):
            raise ValueError(f"the policy takes a flat observation of {self.weights.n_in} floats, "
                             f"got shape {x.shape} (use obs_type='vector')")
        legal = legal_from(observation).astype(np.int64)
        out = np.empty(legal.size)
        masked_logits(self._params, self._layers, self._nets[0], x, legal, legal.size, out,
                      self._h1, self._h2)
        return out, legal

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        logits, legal = self.logits(observation)
        return choose_from_logits(legal, logits, self.deterministic, self.rng)

    def batched_opponent(self) -> PolicyNetworkPlay:
        """The batched env plays this policy inside numba (its MLP pool), argmax or sampled
        as this agent would play it."""
        return PolicyNetworkPlay(self.weights, sample=not self.deterministic)

    def __repr__(self) -> str:
        return f"MLPPolicyAgent(path={self.path!r})"


def pretrained_policy_agent(deterministic: bool = True, seed: Optional[int] = None) -> MLPPolicyAgent:
    """``pretrained_policy``: the policy network shipped in the package (an MLP over the
    observation vector, 2 x 512 ReLU: cloned from the greedy win-probability network, then
    fine-tuned by MaskablePPO against a league with the network as potential-based shaping;
    docs/rl-recipe.md), played alone, no search: the masked argmax of its logits
    (``deterministic=false``: a softmax sample).  Numpy weights, numba forward pass; no
    torch needed.  In the batched env it plays inside numba's MLP pool."""
    if not os.path.exists(PRETRAINED_POLICY):
        raise ValueError(f"no shipped policy at {PRETRAINED_POLICY}")
    agent = MLPPolicyAgent(path=PRETRAINED_POLICY, deterministic=deterministic, seed=seed)
    agent.name = "pretrained_policy"
    return agent


class SB3PolicyAgent(Agent):
    """Plays with an SB3 model (MaskablePPO uses the mask; a model without masking that
    picks an illegal move is replaced by a random legal one, counted as a fallback).

    model: a model object, or the path of one saved with ``model.save(path)`` (then
    ``algo`` is its class, MaskablePPO by default), loaded on first use.  The agent
    pickles (SubprocVecEnv sends opponents to its worker processes): a model object
    travels as its saved bytes and is loaded again, on the CPU, in the child."""

    name = "sb3_policy"
    _path: Optional[str]   # where the model was saved, when given as a path
    _model: Any            # the SB3 model; None until loaded from _path or _blob
    _algo: Any             # its class (MaskablePPO when None)

    def __init__(self, model: Any, deterministic: bool = True, seed: Optional[int] = None,
                 algo: Any = None) -> None:
        super().__init__(seed)
        self.deterministic = deterministic
        self._blob: Optional[bytes] = None
        if isinstance(model, (str, os.PathLike)):
            path = os.fspath(model)
            if not (os.path.isfile(path) or os.path.isfile(path + ".zip")):  # (SB3 adds .zip to a bare name)
                raise ValueError(f"no saved SB3 model at {path!r} (a file written by model.save(), e.g. runs/ppo/model.zip)")
            self._path, self._model = path, None
            self._algo = algo
        else:
            self._path, self._model = None, model
            self._algo = algo or type(model)

    @property
    def model(self) -> Any:
        if self._model is None:
            algo: Any = self._algo
            if algo is None:
                import sb3_contrib
                algo = sb3_contrib.MaskablePPO
            source = io.BytesIO(self._blob) if self._blob is not None else self._path
            self._model = algo.load(source, device="cpu")
        return self._model

    def __getstate__(self) -> Dict[str, Any]:
        state = self.__dict__.copy()
        if self._path is None and self._blob is None:
            buf = io.BytesIO()
            self._model.save(buf)
            state["_blob"] = buf.getvalue()
        state["_model"] = None
        return state

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        obs = observation["observation"]
        mask = observation["action_mask"].astype(bool)
        try:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        except TypeError:  # a model without masking support
            action, _ = self.model.predict(obs, deterministic=self.deterministic)
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:
            legal = np.flatnonzero(mask)
            return self.fall_back(infoset, "illegal_model_move", int(legal[self.rng.integers(len(legal))]))
        return action


def sb3_agent(path: StrPath, deterministic: bool = True, seed: Optional[int] = None) -> SB3PolicyAgent:
    """A saved SB3 model (MaskablePPO by default) as an agent (``sb3:path=model.zip``)."""
    try:
        import sb3_contrib  # noqa: F401 (the model class loads on first use)
    except ImportError as e:  # pragma: no cover
        raise ImportError("the sb3 agent needs the [rl] extra: pip install 'catan_env[rl]'") from e
    return SB3PolicyAgent(path, deterministic=deterministic, seed=seed)


SHARED_POLICY = "shared"  # the RLModule id of a policy shared by every seat


def rllib_agent(path: Optional[StrPath] = None, policy: str = SHARED_POLICY, deterministic: bool = True,
                seed: Optional[int] = None) -> "RLlibAgent":
    """An RLlib checkpoint's policy as an agent (``rllib:path=DIR``; ``[rllib]`` extra)."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        raise ImportError("the rllib agent needs the [rllib] extra: "
                          "pip install torch==2.13.0 && pip install 'catan_env[rllib]'") from e
    return RLlibAgent(path, policy=policy, deterministic=deterministic, seed=seed)


def module_path(checkpoint: StrPath, policy: str = SHARED_POLICY) -> str:
    """Folder of one policy's RLModule inside an ``algo.save()`` checkpoint."""
    return os.path.join(os.fspath(checkpoint), "learner_group", "learner", "rl_module", policy)


class RLlibAgent(Agent):
    """Plays an RLlib checkpoint's masked policy (``rllib:path=DIR[:policy=shared]``): the
    argmax of its logits over the legal actions, or a sample with ``deterministic=False``."""

    name = "rllib"

    def __init__(self, path: Optional[StrPath] = None, policy: str = SHARED_POLICY, deterministic: bool = True,
                 seed: Optional[int] = None) -> None:
        super().__init__(seed)
        if path is None:
            raise ValueError("rllib agent needs path=<checkpoint folder written by algo.save()>")
        folder = module_path(path, policy)
        if not os.path.isdir(folder):
            raise ValueError(f"no policy {policy!r} in RLlib checkpoint {path!r} (looked for {folder})")
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        self._torch = torch
        self.module = RLModule.from_checkpoint(os.path.abspath(folder))
        self.module.eval()
        self.path, self.policy, self.deterministic = os.fspath(path), policy, bool(deterministic)

    def logits(self, observation: Observation) -> np.ndarray:
        """Masked logits over all actions for one observation dict of our env."""
        torch = self._torch
        obs = {"observations": torch.as_tensor(np.asarray(observation["observation"], np.float32))[None],
               "action_mask": torch.as_tensor(observation["action_mask"].astype(np.float32))[None]}
        with torch.no_grad():
            out = self.module.forward_inference({"obs": obs})
        return out["action_dist_inputs"][0].numpy()

    def act(self, observation: Observation, infoset: "InfoSet") -> int:
        legal = legal_from(observation)
        return choose_from_logits(legal, self.logits(observation)[legal], self.deterministic, self.rng)

    def __repr__(self) -> str:
        return f"RLlibAgent(path={self.path!r}, policy={self.policy!r})"

