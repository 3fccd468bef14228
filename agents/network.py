"""The policy/value network of the PPO agent and its checkpoint format.

:class:`PolicyValueNet` reads the observation's named views
(:mod:`saboteur_env.encoding.observation`):

* ``board`` (C, H, W), plus two coordinate planes, goes through a small convolutional trunk;
* every other view (hand, role, players, history, tools, recent, game, private) is flattened,
  squashed with ``sign(x) * log1p(|x|)`` and read by an MLP; the MLP's output conditions the
  board features (a per-channel bias, broadcast over the cells);
* placement and rockfall logits come from one 1x1 convolution with ``n_variants + 1`` output
  channels: the first ``n_variants`` laid out exactly like the codec's ``place`` block
  (variant-major, cells row-major over the board window), the last one the ``rockfall`` block;
  every other block (map, tool, discard; in Saboteur 2 also the expansion's action cards,
  remove, done and steal, RULES 6) and the value from linear layers over the pooled board
  features fused with the MLP vector, in the codec's block order.

Masking (:func:`masked_logits`): illegal actions get the finite logit ``MASKED_LOGIT``
(-1e9), so ``softmax`` gives them probability exactly 0 (they are never sampled) and the entropy
and log-probabilities stay finite (no ``-inf * 0`` NaN) for any mask with at least one legal
action.

Checkpoints (:func:`save_checkpoint`, :func:`load_checkpoint`) are one ``.pt`` file holding the
state dict and a JSON string of the network hyper-parameters, the training config and the
observation/action *spec* (sizes, view shapes, action blocks and a fingerprint of them); they are
loaded with ``torch.load(weights_only=True)``.  A ``.json`` copy of the metadata is written next to
the weights for people to read.  Loading into an environment whose spaces differ raises
:class:`CheckpointMismatchError` naming what differs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from saboteur_env.encoding.codec import Codec
from saboteur_env.encoding.observation import ObservationEncoder
from saboteur_env.engine.config import GameConfig
from saboteur_env.engine.ruleset import ruleset_of

MASKED_LOGIT = -1e9
#: bump when the network's layout or the checkpoint format changes
CHECKPOINT_FORMAT = 1
#: the board-shaped blocks, first in the codec's order; every later block is a flat head
SPATIAL_BLOCKS = ("place", "rockfall")


#: the accepted range of each network shape field of a checkpoint's metadata (its ``"net"``):
#: a shape outside it is refused before any layer is built (a ``conv_layers`` of 10**7 would
#: otherwise allocate until the machine runs out of memory)
NET_SHAPE_BOUNDS = {"channels": (1, 1024), "hidden": (1, 8192), "conv_layers": (1, 64)}


class CheckpointMismatchError(ValueError):
    """A checkpoint does not fit the environment's observation or action space, or its
    metadata or weights are unusable (a shape out of :data:`NET_SHAPE_BOUNDS`, a ``game_config``
    that is not an object, non-finite weights)."""


def check_net_shape(hparams, where: str = "checkpoint") -> None:
    """Raise :class:`CheckpointMismatchError` unless ``hparams`` has exactly the network shape
    fields, each an int within :data:`NET_SHAPE_BOUNDS`."""
    if not isinstance(hparams, dict) or set(hparams) != set(NET_SHAPE_BOUNDS):
        raise CheckpointMismatchError(
            f"{where}: metadata 'net' must be an object with {sorted(NET_SHAPE_BOUNDS)}, "
            f"got {hparams!r}"
        )
    for key, (lo, hi) in NET_SHAPE_BOUNDS.items():
        value = hparams[key]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise CheckpointMismatchError(
                f"{where}: metadata net.{key}={value!r} must be an int in {lo}..{hi}"
            )


def env_spec(config: GameConfig) -> dict:
    """The observation/action spec of ``config`` as JSON-able data, with a fingerprint.

    Keys: ``obs_size``, ``views`` ([name, shape, offset]), ``n_actions``, ``blocks``
    ({name: [offset, size]}), ``variants``, ``board_window``, ``fingerprint`` (sha256 of the rest,
    16 hex digits).
    """
    enc = ObservationEncoder(config)
    codec = Codec(config)
    spec = {
        "obs_size": int(enc.size),
        "views": [[v.name, list(v.shape), int(v.offset)] for v in enc.spec()],
        "n_actions": int(codec.n),
        "blocks": {k: [int(o), int(s)] for k, (o, s) in codec.blocks.items()},
        "variants": [int(v) for v in codec.variants],
        "board_window": list(config.board_window),
    }
    spec["fingerprint"] = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:16]
    return spec


def symlog(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.log1p(torch.abs(x))


class PolicyValueNet(nn.Module):
    """Policy logits over the full flat action space and a state value.

    Args:
        spec: :func:`env_spec` of the environment.
        channels: convolution channels of the board trunk.
        hidden: width of the MLP over the non-board views.
        conv_layers: 3x3 convolutions in the trunk (>= 1).

    ``forward(obs)`` takes float32 ``(B, obs_size)`` and returns ``(logits (B, n_actions),
    value (B,))``; the logits are *unmasked* (use :func:`masked_logits`).

    :attr:`prior` (default ``""``: none) is the spec of an agent whose logits the policy adds
    to the network's (``make_agent(prior).logits(observation, action_mask, info)``, e.g.
    ``"softmax:t=0.1"``, the heuristic's scores over a temperature): the network then learns
    a residual on that agent's policy.  It is part of the policy, so checkpoints keep it
    (:func:`save_checkpoint`), and every player of the network (:class:`~saboteur_agents.ppo.
    PPOAgent`, the trainer) adds it; :func:`prior_agent` builds it.
    """

    def __init__(
        self, spec: dict, channels: int = 32, hidden: int = 128, conv_layers: int = 3
    ) -> None:
        super().__init__()
        self.spec = spec
        self.hparams = {"channels": channels, "hidden": hidden, "conv_layers": conv_layers}
        if tuple(spec["blocks"])[: len(SPATIAL_BLOCKS)] != SPATIAL_BLOCKS:
            raise CheckpointMismatchError(
                f"PolicyValueNet needs the action blocks {SPATIAL_BLOCKS} first, the "
                f"environment has {list(spec['blocks'])}"
            )
        views = {name: (tuple(shape), off) for name, shape, off in spec["views"]}
        self.board_shape, board_off = views["board"]
        c, h, w = self.board_shape
        self.board_slice = (board_off, board_off + c * h * w)
        other = [
            (off, int(np.prod(shape))) for name, (shape, off) in views.items() if name != "board"
        ]
        idx = np.concatenate([np.arange(o, o + s) for o, s in other])
        self.register_buffer("other_idx", torch.as_tensor(idx, dtype=torch.long), persistent=False)
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
        self.register_buffer("coords", torch.stack([ys, xs])[None], persistent=False)
        self.n_variants = len(spec["variants"])
        self.prior = ""
        size = {name: s for name, (_, s) in spec["blocks"].items()}  # (offset, size) each
        if size["place"] != self.n_variants * h * w or size["rockfall"] != h * w:
            raise CheckpointMismatchError("place/rockfall blocks do not match the board view")
        self.n_actions = spec["n_actions"]
        # the flat blocks follow the board-shaped ones, contiguous, to the end of the space
        self.n_flat_head = self.n_actions - size["place"] - size["rockfall"]

        self.mlp = nn.Sequential(
            nn.Linear(len(idx), hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.conv_in = nn.Conv2d(c + 2, channels, 3, padding=1)
        self.film = nn.Linear(hidden, channels)
        self.convs = nn.ModuleList(
            nn.Conv2d(channels, channels, 3, padding=1) for _ in range(conv_layers - 1)
        )
        self.film_head = nn.Linear(hidden, channels)
        self.place_head = nn.Conv2d(channels, self.n_variants + 1, 1)  # + rockfall channel
        self.fuse = nn.Sequential(nn.Linear(hidden + 2 * channels, hidden), nn.ReLU())
        self.flat_head = nn.Linear(hidden, self.n_flat_head)
        self.value_head = nn.Linear(hidden, 1)
        with torch.no_grad():  # small initial logits: a near-uniform starting policy
            for m in (self.place_head, self.flat_head):
                m.weight.mul_(0.01)
                m.bias.zero_()
            self.value_head.weight.mul_(0.1)
            self.value_head.bias.zero_()

    def start_at_prior(self, prior: str) -> None:
        """Play ``prior`` (see :attr:`prior`) plus a residual that starts at exactly 0: the
        policy heads' weights and biases are zeroed, so the first policy *is* the prior's.

        Raises:
            ValueError: ``prior`` is not a usable prior spec (:func:`prior_agent`).
        """
        prior = canonical_prior(prior)  # refuses a bad spec before changing anything
        with torch.no_grad():
            for m in (self.place_head, self.flat_head):
                m.weight.zero_()
                m.bias.zero_()
        self.prior = prior

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value, _ = self.forward_features(obs)
        return logits, value

    def forward_features(
        self, obs: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`forward` of float32 ``obs (B, obs_size)``, and the fused features the value
        and flat heads read, ``(B, hidden)`` (float32, or bfloat16 under bf16 autocast): what
        a :class:`PrivilegedCritic` adds the hidden state to."""
        b = obs.shape[0]
        c, h, w = self.board_shape
        board = obs[:, self.board_slice[0] : self.board_slice[1]].reshape(b, c, h, w)
        other = symlog(obs.index_select(1, self.other_idx))
        z = self.mlp(other)
        x = torch.cat([board, self.coords.expand(b, -1, -1, -1)], dim=1)
        x = F.relu(self.conv_in(x) + self.film(z)[:, :, None, None])
        for conv in self.convs:
            x = F.relu(conv(x)) + x
        pooled = torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)
        zz = self.fuse(torch.cat([z, pooled], dim=1))
        hx = F.relu(x + self.film_head(zz)[:, :, None, None])
        cells = self.place_head(hx).reshape(b, self.n_variants + 1, h * w)
        place = cells[:, : self.n_variants].reshape(b, -1)
        rockfall = cells[:, self.n_variants]
        logits = torch.cat([place, rockfall, self.flat_head(zz)], dim=1)
        return logits, self.value_head(zz).squeeze(1), zz


class PrivilegedCritic(nn.Module):
    """A training-only value of the *state*: the policy network's features of the
    observation (:meth:`PolicyValueNet.forward_features`) plus what the round hides, every
    seat's role and the goal cards (:meth:`truth_features` of
    :meth:`~saboteur_env.vector.VectorGame.round_truth`), through a one-hidden-layer MLP
    whose output is added to the network's own value of the observation (a residual: its last
    layer starts at 0, so a critic added to a trained network starts at that network's value
    and does not disturb the first updates).

    Why: in a hidden-role game much of a round's outcome hangs on facts no player sees (who
    the saboteurs are, where the gold lies); a value of the observation alone leaves that
    luck in every advantage.  A critic that sees them (an asymmetric actor-critic) takes it
    out, so PPO's advantages are less noisy; the policy still reads the observation only,
    and checkpoints hold the policy network alone.

    Args:
        hidden: the policy network's feature width (its ``hidden``).
        config: the game; the truth's layout is the spectator state's ``all_roles`` and
            ``goals`` views (:data:`~saboteur_env.encoding.observation.HIDDEN_VIEWS`), the
            roles in the observer's seat order.

    ``forward(features (B, hidden), truth (B, truth_size), value (B,))`` returns the value
    float32 ``(B,)``: ``value`` (the network's, taken as a constant) plus the MLP's output;
    ``features`` and ``value`` are inputs only (no gradient reaches the network).
    """

    def __init__(self, hidden: int, config: GameConfig) -> None:
        super().__init__()
        if not isinstance(config, GameConfig):
            raise TypeError(f"PrivilegedCritic: config must be a GameConfig, not {config!r}")
        if isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1:
            raise ValueError(f"PrivilegedCritic: hidden={hidden!r}, a positive int")
        self.hidden, self.num_players = hidden, config.num_players
        views = {v.name: v for v in ObservationEncoder(config).state_spec()}
        mp, nr = views["all_roles"].shape
        ng, nk = views["goals"].shape
        self.roles_shape, self.goals_shape = (int(mp), int(nr)), (int(ng), int(nk))
        self.roles_size = int(mp * nr)
        self.truth_size = self.roles_size + int(ng * nk)
        self.net = nn.Sequential(
            nn.Linear(hidden + self.truth_size, hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )
        with torch.no_grad():
            self.net[2].weight.zero_()
            self.net[2].bias.zero_()

    def truth_features(self, roles: np.ndarray, goals: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """float32 ``(B, truth_size)``: per row, the role one-hot of every seat in play in
        the order of the observer ``seats[i]`` and the seats after it (as the observation's
        ``players`` view orders them), padded to ``max_players`` rows (the ``all_roles``
        view's shape), then each goal slot's card one-hot (the ``goals`` view's).

        Args:
            roles: int ``(B, n)`` role ids of the critic's game (``n`` its players; the
                ruleset's role ids, :meth:`~saboteur_env.vector.VectorGame.round_truth`);
            goals: int ``(B, 3)`` goal identities;
            seats: int ``(B,)`` observers, each in ``0..n-1``.

        Raises:
            ValueError: shapes that do not agree or another player count than the critic's
                game, values that are not integers, a seat outside ``0..n-1``, a role or a
                goal identity out of range (each message names the bad values).
        """
        roles, goals, seats = np.asarray(roles), np.asarray(goals), np.asarray(seats)
        mp, nr = self.roles_shape
        ng, nk = self.goals_shape
        n = self.num_players
        b = len(seats) if seats.ndim == 1 else -1
        if roles.shape != (b, n) or goals.shape != (b, ng) or seats.shape != (b,):
            raise ValueError(
                f"truth_features: roles {roles.shape}, goals {goals.shape} and seats "
                f"{seats.shape} must be (B, {n}), (B, {ng}) and (B,) (this critic's game has "
                f"{n} players)"
            )
        for name, a in (("roles", roles), ("goals", goals), ("seats", seats)):
            if a.size and not np.issubdtype(a.dtype, np.integer):
                raise ValueError(f"truth_features: {name} must be integers, not {a.dtype}")
        for name, a, hi in (("seat", seats, n), ("role", roles, nr), ("goal identity", goals, nk)):
            bad = (a < 0) | (a >= hi)
            if bad.any():
                raise ValueError(
                    f"truth_features: {name} {int(a[bad].flat[0])} outside 0..{hi - 1} "
                    f"(row {int(np.argwhere(bad)[0][0])})"
                )
        out = np.zeros((b, self.truth_size), dtype=np.float32)
        rows = np.arange(b)[:, None]
        rel = (seats[:, None] + np.arange(n)[None, :]) % n  # relative row -> absolute seat
        out[rows, np.arange(n)[None, :] * nr + roles[rows, rel]] = 1
        out[rows, self.roles_size + np.arange(ng)[None, :] * nk + goals] = 1
        return out

    def forward(
        self, features: torch.Tensor, truth: torch.Tensor, value: torch.Tensor
    ) -> torch.Tensor:
        """The value of the states, float32 ``(B,)``: ``value`` (the network's, ``(B,)``)
        plus the MLP's output on ``features`` ``(B, hidden)`` and ``truth`` ``(B,
        truth_size)`` (:meth:`truth_features`).

        Raises:
            ValueError: shapes other than these (a ``(B, 1)`` value would broadcast).
        """
        b = features.shape[0]
        want = ((b, self.hidden), (b, self.truth_size), (b,))
        got = (tuple(features.shape), tuple(truth.shape), tuple(value.shape))
        if got != want:
            raise ValueError(
                f"PrivilegedCritic: features, truth and value of shapes {got}, expected {want}"
            )
        # the network's features and value are inputs, not trained through the critic: a
        # trunk trained to predict outcomes from hidden roles fits its batches' luck
        x = torch.cat([features.detach(), truth.to(features.dtype)], dim=1)
        return value.detach() + self.net(x).squeeze(1)


class AveragedPolicy(nn.Module):
    """The seed-averaged policy of several :class:`PolicyValueNet` of one spec: their logits
    and values averaged.  Averaging logits gives the normalised geometric mean of the
    policies, which is the same whether the mask is applied before or after (each policy's
    normalisation over the legal actions cancels), so masking and sampling work as for one
    network.

    Args:
        nets: at least one network, all with the same spec.

    Raises:
        ValueError: no network, or networks of different specs.
    """

    def __init__(self, nets) -> None:
        super().__init__()
        nets = list(nets)
        if not nets:
            raise ValueError("AveragedPolicy: at least one network")
        prints = {n.spec["fingerprint"] for n in nets}
        if len(prints) != 1:
            raise ValueError(f"AveragedPolicy: networks of different specs {sorted(prints)}")
        priors = {n.prior for n in nets}
        if len(priors) != 1:
            raise ValueError(f"AveragedPolicy: networks with different priors {sorted(priors)}")
        self.nets = nn.ModuleList(nets)
        self.prior = nets[0].prior  # the same for all: the average of the residuals adds it
        self.spec = nets[0].spec
        self.n_actions = nets[0].n_actions

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        outs = [n(obs) for n in self.nets]
        logits = torch.stack([o[0] for o in outs]).mean(0)
        return logits, torch.stack([o[1] for o in outs]).mean(0)


def prior_agent(spec: str):
    """The agent of a prior spec (:attr:`PolicyValueNet.prior`), not yet reset.

    Raises:
        ValueError: an unknown spec, or an agent without a ``logits(observation, action_mask,
            info)`` method (``"softmax[:t=T]"`` has one).
    """
    from .base import make_agent

    try:
        agent = make_agent(spec)
    except (TypeError, ValueError) as err:
        raise ValueError(f"prior {spec!r}: {err}") from err
    if not callable(getattr(agent, "logits", None)):
        raise ValueError(
            f"prior {spec!r}: the agent has no logits() to add to the network's "
            "(use 'softmax' or 'softmax:t=T')"
        )
    return agent


def canonical_prior(spec: str) -> str:
    """The canonical form of a prior spec (``"softmax"`` -> ``"softmax:t=0.1"``): what a
    network keeps in :attr:`PolicyValueNet.prior`, and what two priors are compared by.

    Raises:
        ValueError: as :func:`prior_agent`.
    """
    return str(getattr(prior_agent(spec), "spec", spec)) if spec else ""


def prior_mismatch(net_prior: str, spec: str) -> str | None:
    """Why a network of prior ``net_prior`` cannot continue training with prior ``spec``
    (``--init`` with ``--prior``), or ``None`` when they are the same policy's prior or
    ``spec`` is ``""`` (the run takes the network's prior, as it takes its shape).

    Raises:
        ValueError: ``spec`` is not a usable prior spec.
    """
    if not spec or canonical_prior(spec) == net_prior:
        return None
    return (
        f"its prior is {net_prior!r}, --prior is {spec!r} (a residual only means something "
        "on its own prior: pass the checkpoint's)"
    )


def prior_rows(
    priors: list[tuple[np.ndarray, np.ndarray]], n_actions: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pack per-row prior logits ``[(legal (k,), z (k,)), ...]`` into padded ``(index int64
    (B, K), value float32 (B, K))`` with ``K`` the longest ``k`` (at least 1); padding is index
    0 with value 0, so :func:`add_prior` adds nothing there.  A -inf logit (a legal action
    the prior gives probability 0) becomes :data:`MASKED_LOGIT`, as for a masked action.

    Raises:
        ValueError: an index outside ``0..n_actions-1``, or a NaN or +inf value.
    """
    k = max([1, *(len(legal) for legal, _ in priors)])
    idx = np.zeros((len(priors), k), dtype=np.int64)
    val = np.zeros((len(priors), k), dtype=np.float32)
    for r, (legal, z) in enumerate(priors):
        idx[r, : len(legal)] = legal
        val[r, : len(legal)] = np.where(np.isneginf(z), MASKED_LOGIT, z)
    if idx.size and (idx.min() < 0 or idx.max() >= n_actions):
        raise ValueError(f"prior_rows: an action index outside 0..{n_actions - 1}")
    if not np.isfinite(val).all():
        raise ValueError("prior_rows: a prior logit that is NaN or +inf")
    return torch.from_numpy(idx), torch.from_numpy(val)


def add_prior(logits: torch.Tensor, index: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """``logits`` (float32 ``(B, n)``) plus prior logits packed by :func:`prior_rows`
    (``index`` int64 ``(B, K)``, ``value`` float32 ``(B, K)``); differentiable in ``logits``."""
    return logits.scatter_add(1, index, value.to(logits.dtype))


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action whose ``mask`` entry is 0 set to :data:`MASKED_LOGIT`."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, MASKED_LOGIT))


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the masked categorical (finite everywhere; illegal ones ~ -1e9)."""
    return F.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(logp: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Entropy of a masked categorical from its log-probabilities (masked terms add 0).

    With ``mask`` (the same mask as the log-probabilities') the masked entries are set to 0
    before the exponential: the same value and gradient, without exponentials of -1e9 (the
    slow path of ``exp`` on CPUs: about 5% of a PPO update)."""
    if mask is None:
        return -(logp.exp() * logp).sum(-1)
    safe = torch.where(mask.bool(), logp, torch.zeros_like(logp))  # masked terms: 1 * 0
    return -(safe.exp() * safe).sum(-1)


def sample_masked(
    logits: torch.Tensor,
    mask: torch.Tensor,
    generator: torch.Generator | None = None,
    greedy: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one action per row among the legal ones (Gumbel-max restricted to the mask).

    Returns ``(actions (B,) int64, log-probabilities (B,))``.

    Raises:
        ValueError: a row of ``mask`` has no legal action.
    """
    legal = mask.bool()
    if not bool(legal.any(dim=1).all()):
        raise ValueError("sample_masked: a mask with no legal action")
    logp = masked_log_probs(logits, mask)
    if greedy:
        score = logp
    else:
        u = torch.rand(logp.shape, generator=generator, dtype=logp.dtype)
        score = logp - torch.log(-torch.log(u.clamp_(1e-20, 1.0 - 1e-7)))
    score = torch.where(legal, score, torch.full_like(score, -float("inf")))
    actions = score.argmax(dim=1)
    return actions, logp.gather(1, actions[:, None]).squeeze(1)


# --- checkpoints --------------------------------------------------------------------------
def save_checkpoint(
    path: str | Path,
    net: PolicyValueNet,
    config: GameConfig | dict,
    train_config: dict | None = None,
    extra: dict | None = None,
) -> Path:
    """Write ``path`` (.pt: state dict + JSON metadata) and ``path`` with suffix ``.json``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    game_config = config if isinstance(config, dict) else _config_dict(config)
    meta = {
        "format": CHECKPOINT_FORMAT,
        "net": net.hparams,
        "spec": net.spec,
        "game_config": game_config,
        "train_config": train_config or {},
        "torch_version": torch.__version__,
        **({"prior": net.prior} if net.prior else {}),  # part of the policy: see PolicyValueNet
        **(extra or {}),
    }
    text = json.dumps(meta, sort_keys=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    torch.save({"state_dict": state, "meta": text}, path)
    path.with_suffix(".json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return path


def _config_dict(config: GameConfig) -> dict:
    return config.options()


def read_checkpoint(path: str | Path) -> tuple[dict, dict]:
    """``(state_dict, meta)`` of a checkpoint, loaded with ``weights_only=True``."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"checkpoint {path} not found")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:
        # torch's first line, cut before its advice to retry with weights_only=False (which a
        # file of unknown origin must not be loaded with)
        why = str(err).split("\n")[0]
        for advice in ("Weights only load failed", "weights_only"):
            why = why.split(advice)[0]
        why = why.strip(" .:") or "not a torch file of weights"
        raise CheckpointMismatchError(
            f"{path}: cannot be read as a saboteur PPO checkpoint (torch.load with "
            f"weights_only=True raised {type(err).__name__}: {why})"
        ) from err
    if not isinstance(blob, dict) or "state_dict" not in blob or "meta" not in blob:
        raise CheckpointMismatchError(f"{path}: not a saboteur PPO checkpoint")
    try:
        meta = json.loads(blob["meta"])
    except (TypeError, ValueError) as err:
        raise CheckpointMismatchError(f"{path}: unreadable checkpoint metadata ({err})") from err
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        meta = meta if isinstance(meta, dict) else {}
        raise CheckpointMismatchError(
            f"{path}: checkpoint format {meta.get('format')}, this code reads {CHECKPOINT_FORMAT}"
        )
    if "game_config" in meta and not isinstance(meta["game_config"], dict):
        raise CheckpointMismatchError(
            f"{path}: metadata 'game_config' must be an object (the GameConfig fields), "
            f"got {meta['game_config']!r}"
        )
    if "net" in meta:
        check_net_shape(meta["net"], where=str(path))
    state = blob["state_dict"]
    if not isinstance(state, dict):
        raise CheckpointMismatchError(f"{path}: 'state_dict' is not a dict of tensors")
    for key, value in state.items():
        if not isinstance(value, torch.Tensor):
            raise CheckpointMismatchError(f"{path}: weight {key!r} is not a tensor")
        if value.is_floating_point() and not bool(torch.isfinite(value).all()):
            raise CheckpointMismatchError(f"{path}: weight {key!r} has NaN or infinite values")
    return state, meta


def check_spec(meta_spec: dict, spec: dict, where: str = "checkpoint") -> None:
    """Raise :class:`CheckpointMismatchError` when two specs differ, naming the difference."""
    if meta_spec.get("fingerprint") == spec["fingerprint"]:
        return
    diffs = []
    noun = where.split()[0]  # "checkpoint /path.pt" is named once, in the first line
    for key in ("obs_size", "n_actions", "blocks", "views", "variants", "board_window"):
        if meta_spec.get(key) != spec.get(key):
            a, b = meta_spec.get(key), spec.get(key)
            if key in ("views", "variants"):
                a, b = f"{len(a or [])} entries", f"{len(b)} entries (different)"
            diffs.append(f"{key}: {noun} has {a}, the environment has {b}")
    raise CheckpointMismatchError(
        f"the {where} does not match the environment's spaces (spec fingerprint "
        f"{meta_spec.get('fingerprint')} != {spec['fingerprint']}): "
        + "; ".join(diffs or ["spec differs"])
    )


def load_checkpoint(
    path: str | Path, config: GameConfig | None = None
) -> tuple[PolicyValueNet, dict]:
    """Rebuild the network of a checkpoint.

    Args:
        path: the ``.pt`` file.
        config: the environment's config; its spec must match the checkpoint's (default: the
            checkpoint's own game config).

    Raises:
        CheckpointMismatchError: not a checkpoint, another format, spaces that differ,
            unusable metadata (a network shape out of :data:`NET_SHAPE_BOUNDS`, a
            ``game_config`` that is not a game config) or non-finite weights.
    """
    state, meta = read_checkpoint(path)
    if config is None:
        try:
            gc = dict(meta["game_config"])
            gc["board_window"] = tuple(gc["board_window"])
            config = GameConfig(**gc)
        except (KeyError, TypeError, ValueError) as err:
            raise CheckpointMismatchError(
                f"{path}: metadata 'game_config' is not a usable game config ({err})"
            ) from err
    spec = env_spec(config)
    try:
        check_spec(meta.get("spec", {}), spec, where=f"checkpoint {path}")
    except CheckpointMismatchError as err:
        made = meta.get("game_config", {}).get("expansion")
        if isinstance(made, bool) and made != config.expansion:  # the likely cause, first
            raise CheckpointMismatchError(
                f"{path} was trained for {ruleset_of(made).title} and the environment plays "
                f"{config.ruleset.title}: pass expansion={made} (--expansion on the command "
                f"line{'' if made else ', left out'}) or another checkpoint. In detail: {err}"
            ) from None
        raise
    try:
        net = PolicyValueNet(spec, **meta["net"])
        net.load_state_dict(state)
    except (KeyError, TypeError, RuntimeError) as err:  # weights that do not fit their metadata
        raise CheckpointMismatchError(
            f"{path}: the weights do not fit the network its metadata describes ({err})"
        ) from err
    prior = meta.get("prior", "")
    try:
        if not isinstance(prior, str):
            raise ValueError(f"must be an agent spec string, got {prior!r}")
        prior = canonical_prior(prior)
    except ValueError as err:
        raise CheckpointMismatchError(f"{path}: metadata 'prior' is unusable ({err})") from err
    net.prior = prior
    net.eval()
    return net, meta
