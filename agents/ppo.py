"""PPOAgent: the trained policy network as an :class:`~saboteur_agents.base.Agent`.

Specs (``make_agent``):

* ``"ppo"``: the checkpoint shipped with the package for the game being played
  (:data:`SHIPPED`: ``agents/checkpoints/ppo_base_5p.pt`` for the base game,
  ``ppo_sab2_5p.pt`` for Saboteur 2; each trained at 5 players and usable at every player
  count of its game, since seats are padded);
* ``"ppo:v1"``: the previous base-game checkpoint (``ppo_base_5p_v1.pt``, trained against the
  first heuristic; the figures the README marks as measured with it);
* ``"ppo:sab2-v1"``: the previous Saboteur 2 checkpoint (``ppo_sab2_5p_v1.pt``, PPO from a
  behaviour-cloning warm start; the shipped one since is a residual on the softmax
  heuristic, ``saboteur train --prior``);
* ``"ppo:/path/to/checkpoint.pt"``: another checkpoint;
* ``"ppo:avg=A.pt|B.pt|C.pt"``: the seed-averaged policy of several checkpoints of one game
  (:class:`~saboteur_agents.network.AveragedPolicy`: their logits averaged);
* ``"ppo:greedy"`` / ``"ppo:/path.pt,greedy"`` (or ``"ppo:/path.pt+greedy"``, which passes
  through the comma-separated ``--agents``): take the most probable legal action instead of
  sampling.

The agent samples from the masked categorical (never a masked action) with its own generator,
seeded by ``reset(seat, config, seed)``, so the same observation and seed give the same action.
A network trained as a residual on a prior (:attr:`~saboteur_agents.network.PolicyValueNet.prior`,
``saboteur train --prior``) plays its logits plus the prior's: the agent keeps the prior agent
of its seat, which reads the events of every decision's ``info`` (so pass ``info``, as every
loop of the project does).
Torch is imported only when a PPO agent is built (``pip install saboteur-env[train]``).

Raises (at ``reset``): :class:`~saboteur_agents.network.CheckpointMismatchError` when the checkpoint
does not match the game's observation/action spaces (e.g. a 5-player checkpoint works for every
player count of the base game, since seats are padded, but not for another board window).
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np

from .base import Agent, register_agent

CHECKPOINT_DIR = Path(__file__).resolve().parent / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINT_DIR / "ppo_base_5p.pt"
#: the shipped checkpoint of each game (by ``Ruleset.name``): what ``"ppo"`` plays
SHIPPED = {"base": DEFAULT_CHECKPOINT, "saboteur_2": CHECKPOINT_DIR / "ppo_sab2_5p.pt"}
#: earlier shipped checkpoints by name (``"ppo:v1"``, ``"ppo:sab2-v1"``), kept so that their
#: figures reproduce
PREVIOUS = {
    "v1": CHECKPOINT_DIR / "ppo_base_5p_v1.pt",
    "sab2-v1": CHECKPOINT_DIR / "ppo_sab2_5p_v1.pt",
}


def shipped_checkpoint(config) -> Path:
    """The shipped checkpoint for ``config``'s game (base or Saboteur 2).

    Raises:
        FileNotFoundError: it is missing from this install.
    """
    path = SHIPPED[config.ruleset.name]
    if not path.exists():
        raise FileNotFoundError(
            f"PPO checkpoint {path} not found (the shipped checkpoint for "
            f"{config.ruleset.title} is missing from this install)"
        )
    return path


#: loaded networks by (path, size, mtime, spec fingerprint): a tournament builds one agent per
#: game, and the weights are read once (networks are only ever used for inference here)
_NET_CACHE: dict = {}


def _load(path: Path, config):
    from .network import env_spec, load_checkpoint

    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, env_spec(config)["fingerprint"])
    if key not in _NET_CACHE:
        if len(_NET_CACHE) > 8:
            _NET_CACHE.clear()
        _NET_CACHE[key] = load_checkpoint(path, config)
    return _NET_CACHE[key]


class PPOAgent(Agent):
    """Acts with a :class:`~saboteur_agents.network.PolicyValueNet`.

    Args:
        path: checkpoint file (default: the shipped one of the game the agent is reset for,
            :func:`shipped_checkpoint`); ignored when ``net`` is given.
        greedy: argmax over the legal actions instead of sampling.
        net: an in-memory network (used during training and evaluation).
        paths: several checkpoint files, played as their seed-averaged policy (``path`` is
            then the first, for its metadata).

    Raises:
        FileNotFoundError: a checkpoint file that does not exist.
    """

    name = "ppo"

    def __init__(
        self, path: str | Path | None = None, greedy: bool = False, net=None, paths=None
    ) -> None:
        import torch

        self._torch = torch
        self.paths = [Path(p) for p in paths] if paths else []
        if self.paths:
            path = self.paths[0]
        self.path = Path(path) if path is not None else None  # None: the shipped one
        # the shipped checkpoint follows the game: reset for another game loads that game's
        self._shipped = self.path is None and net is None
        self.greedy = greedy
        self.net = net
        self._checked_spec = None if net is None else net.spec["fingerprint"]
        self.meta: dict = {}
        self.prior = None  # the prior agent of this seat (reset), when the network has one
        self._warned = False  # act without info, with a prior: warned once
        self.gen = torch.Generator().manual_seed(0)
        for p in self.paths or ([self.path] if net is None and self.path is not None else []):
            if not p.exists():
                raise FileNotFoundError(f"PPO checkpoint {p} not found")

    def checkpoint_files(self, config) -> list[Path]:
        """The checkpoint files this agent loads for ``config``'s game: the shipped one of
        that game for ``"ppo"``, several for a seed-averaged policy, none for a network
        passed in.

        Raises:
            FileNotFoundError: the shipped checkpoint is missing from this install.
        """
        if self.paths:
            return list(self.paths)
        if self.path is not None:
            return [self.path]
        return [shipped_checkpoint(config)] if self._shipped else []

    def __deepcopy__(self, memo):
        """A copy with its own state (seat, generator) that shares the network, which is only
        used for inference here, and the torch module (which cannot be copied)."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            shared = key in ("_torch", "net")
            setattr(new, key, value if shared else copy.deepcopy(value, memo))
        return new

    def reset(self, seat, config, seed=None) -> None:
        super().reset(seat, config, seed)
        from .network import check_spec, env_spec

        spec = env_spec(config)
        if self._shipped and self._checked_spec not in (None, spec["fingerprint"]):
            self.net = None
        if self.net is None and self.paths:
            from .network import AveragedPolicy

            loaded = [_load(p, config) for p in self.paths]
            self.net, self.meta = AveragedPolicy(n for n, _ in loaded), loaded[0][1]
        elif self.net is None:
            path = self.path if self.path is not None else shipped_checkpoint(config)
            self.net, self.meta = _load(path, config)
        elif self._checked_spec != spec["fingerprint"]:
            check_spec(self.net.spec, spec, where="network")
        self._checked_spec = spec["fingerprint"]
        self.gen = self._torch.Generator().manual_seed(
            int(np.random.SeedSequence(seed).generate_state(1)[0])
            if seed is not None
            else int(self.rng.integers(2**31))
        )
        self.prior = None
        if getattr(self.net, "prior", ""):
            from .network import prior_agent

            self.prior = prior_agent(self.net.prior)
            self.prior.reset(seat, config, seed=seed)

    def observe(self, events) -> None:
        """Events between turns: passed to the prior agent, if the network has one."""
        if self.prior is not None:
            self.prior.observe(events)

    def act(self, observation, action_mask, info=None) -> int:
        from .network import sample_masked

        mask = np.asarray(action_mask)
        logits = self.policy_logits(observation, mask, info)
        a, _ = sample_masked(logits, self._torch.tensor(mask)[None], self.gen, greedy=self.greedy)
        return int(a[0])

    def policy_logits(self, observation, action_mask, info=None):
        """The unmasked logits the agent samples from, float32 torch ``(1, n_actions)``: the
        network's, plus its prior's when it has one.  With a prior this *is* the decision's
        update (the prior reads the events of ``info`` and counts the turn), as :meth:`act`
        is (which calls it): call one of them once per decision.

        Raises:
            RuntimeError: before :meth:`reset`.
            ValueError: the mask has no legal action.
        """
        torch = self._torch
        if self.net is None:
            raise RuntimeError("PPOAgent.act before reset()")
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("PPOAgent.act: the action mask has no legal action")
        with torch.no_grad():
            # a copy: the batch's observations are read-only views, which torch warns of
            obs = torch.tensor(np.asarray(observation, dtype=np.float32))[None]
            logits, _ = self.net(obs)
            if self.prior is not None:
                from .network import add_prior, prior_rows

                if info is None and not self._warned:
                    import warnings

                    self._warned = True
                    warnings.warn(
                        "PPOAgent.act without info: this network's prior reads the seat's "
                        "events from info, and without them it plays another policy than "
                        "the one trained",
                        stacklevel=3,  # the caller of act
                    )
                legal_z = self.prior.logits(observation, mask, info)
                logits = add_prior(logits, *prior_rows([legal_z], logits.shape[1]))
        return logits


def parse_option(option: str) -> tuple[str, bool]:
    """A ``ppo`` spec's option as ``(path, greedy)`` (no torch needed): ``path`` is ``""``
    for the shipped checkpoint, a name of :data:`PREVIOUS` resolved to its file, an
    ``avg=A|B`` list or a file path (commas included); ``greedy`` a leading or trailing
    ``greedy`` token (``,greedy`` or ``+greedy``)."""
    # "+greedy" as well as ",greedy": a comma cannot pass through --agents' comma list
    if option.endswith("+greedy"):
        option = option[: -len("+greedy")] + ",greedy"
    if option.startswith("greedy+"):
        option = "greedy," + option[len("greedy+") :]
    parts = option.split(",")
    greedy = False
    while parts and parts[0] in ("greedy", ""):
        greedy |= parts.pop(0) == "greedy"
    while parts and parts[-1] in ("greedy", ""):
        greedy |= parts.pop() == "greedy"
    path = ",".join(parts)
    return str(PREVIOUS.get(path, path)), greedy  # "v1": the previous shipped checkpoint


def checkpoint_path(option: str, rules) -> str:
    """The checkpoint file a ``ppo[:option]`` spec plays in ``rules``' game (a
    :class:`~saboteur_env.engine.ruleset.Ruleset`): the option's path (a name of
    :data:`PREVIOUS` resolved to its file; ``greedy`` dropped), else the game's shipped
    checkpoint (:data:`SHIPPED`).  No torch needed; the file is not opened."""
    path, _ = parse_option(option)
    return path or str(SHIPPED[rules.name])


def _factory(option: str = "") -> PPOAgent:
    """``make_agent("ppo[:path][,greedy]")`` (also ``ppo:greedy[,path]``, and ``+`` for the
    comma: ``ppo:path+greedy`` passes through ``--agents``).  Only a leading or
    trailing ``greedy`` is an option: the rest is the path, commas included (a run folder may
    have one).  Batch-1 inference gains nothing from threads, so torch is limited to one thread
    here (tournaments run one process per core; callers that train restore their own count)."""
    from .base import require_extra

    require_extra("train", ["torch"], "the 'ppo' agent")
    import torch

    if torch.get_num_threads() > 1:
        torch.set_num_threads(1)
    path, greedy = parse_option(option)
    if path.startswith("avg="):  # the seed-averaged policy of several checkpoints
        paths = [p for p in path[len("avg=") :].split("|") if p]
        if not paths:
            raise ValueError(f"ppo:{option}: avg= needs checkpoint paths joined by '|'")
        return PPOAgent(greedy=greedy, paths=paths)
    return PPOAgent(path or None, greedy=greedy)


register_agent("ppo", _factory)
