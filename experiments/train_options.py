"""The options of ``saboteur train`` (:class:`TrainConfig`) and its two command lines, kept
apart from :mod:`saboteur_experiments.train` so that ``--help`` works without torch.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass, fields
from pathlib import Path

from saboteur_env.engine.config import GameConfig
from saboteur_experiments.cli_args import player_ranges

#: the values of ``--precision``
PRECISIONS = ("fp32", "bf16")


@dataclass
class TrainConfig:
    """Every option of a training run (written into each checkpoint's JSON)."""

    num_players: int = 5
    num_rounds: int = 1
    reward: str = "win"
    expansion: bool = False
    num_envs: int = 16
    steps_per_iter: int = 2048
    iterations: int = 0  # 0 = no limit (use minutes / total_decisions)
    minutes: float = 0.0  # wall-clock budget, 0 = none
    total_decisions: int = 0  # learning decisions budget, 0 = none
    epochs: int = 3
    minibatch: int = 256
    lr: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.003
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    channels: int = 32
    hidden: int = 128
    conv_layers: int = 3
    pool_current: float = 0.45
    pool_snapshots: float = 0.15
    pool_heuristic: float = 0.1
    pool_random: float = 0.3
    pool_search: float = 0.0
    search_agent: str = "ismcts:iters=4+top=2+rollout=heuristic"
    snapshot_every: int = 10
    max_snapshots: int = 8
    shaping: float = 1.0  # potential-based shaping coefficient (0 = off)
    bc_decisions: int = 30000  # warm start: imitate this many heuristic decisions (0=off)
    bc_epochs: int = 3
    bc_lr: float = 1e-3
    eval_every: int = 40  # iterations between evaluations (and at the end), 0 = never
    eval_deals: int = 10
    checkpoint_every: int = 25
    seed: int = 0
    threads: int = 1
    overlap: bool = False  # learn the last batch while the next is collected (2 cores)
    precision: str = "fp32"  # "bf16": the update's forward pass in bfloat16 autocast
    out: str = "runs/ppo"
    progress: bool = True
    init: str = ""  # checkpoint to start from
    prior: str = ""  # an agent whose logits the policy adds to the network's (a residual)
    learner_role: str = ""  # a role name: the learning seat always holds it ('' = any role)
    privileged_critic: bool = False  # GAE's baseline from a critic that sees the hidden roles
    critic_lr: float = 1e-3  # the privileged critic's learning rate (Adam)

    def game_config(self) -> GameConfig:
        return GameConfig(
            num_players=self.num_players,
            num_rounds=self.num_rounds,
            reward=self.reward,
            expansion=self.expansion,
        )

    def learner_role_id(self) -> int | None:
        """``learner_role`` as a role id of the game's ruleset (``None``: every role).

        Raises:
            ValueError: not a role of this game (:meth:`problems` names it first).
        """
        return self.game_config().ruleset.role_id(self.learner_role) if self.learner_role else None

    def problems(self) -> list[str]:
        """Every unusable option as ``"--option value: why"`` (empty when the config is
        usable).  The game options are checked by :class:`GameConfig`; ``init`` and ``out`` are
        checked where they are used."""
        out: list[str] = []

        def need(ok: bool, name: str, why: str) -> None:
            if not ok:
                out.append(f"{_flag(name)} {getattr(self, name)}: {why}")

        def number(name: str) -> float:
            v = getattr(self, name)
            return v if isinstance(v, (int, float)) and math.isfinite(v) else float("nan")

        def a_number(name: str, bound: str) -> str:
            """``must be a number {bound}``, naming the fault of an infinite or NaN value."""
            v = getattr(self, name)
            bad = isinstance(v, float) and not math.isfinite(v)
            return f"must be a {'finite ' if bad else ''}number {bound}"

        for name in (
            "num_envs",
            "steps_per_iter",
            "epochs",
            "bc_epochs",
            "channels",
            "hidden",
            "conv_layers",
            "eval_deals",
            "threads",
        ):
            need(number(name) >= 1, name, "must be >= 1")
        need(
            number("minibatch") >= 2,
            "minibatch",
            "must be >= 2 (advantages are normalised per minibatch)",
        )
        for name in (
            "iterations",
            "total_decisions",
            "snapshot_every",
            "max_snapshots",
            "bc_decisions",
            "eval_every",
            "checkpoint_every",
            "seed",
            "minutes",
            "ent_coef",
            "vf_coef",
            "shaping",
            "pool_current",
            "pool_snapshots",
            "pool_heuristic",
            "pool_random",
            "pool_search",
        ):
            need(number(name) >= 0, name, a_number(name, ">= 0"))
        for name in ("lr", "bc_lr", "critic_lr", "clip", "max_grad_norm"):
            need(number(name) > 0, name, a_number(name, "> 0"))
        for name in ("gamma", "gae_lambda"):
            need(0 <= number(name) <= 1, name, "must be in [0, 1]")
        need(self.precision in PRECISIONS, "precision", f"must be one of {PRECISIONS}")
        if self.critic_lr != TrainConfig.critic_lr and not self.privileged_critic:
            out.append(f"--critic-lr {self.critic_lr}: only with --privileged-critic")
        pools = ("pool_current", "pool_snapshots", "pool_heuristic", "pool_random", "pool_search")
        if all(number(k) == 0 for k in pools):
            out.append("/".join(_flag(k) for k in pools) + ": all 0, at least one must be > 0")
        if self.prior:
            try:  # torch and the agents are only imported when a prior is asked for
                from saboteur_agents.network import prior_agent

                prior_agent(self.prior)
            except Exception as err:  # its message starts with the spec: not twice
                why = str(err).removeprefix(f"prior {self.prior!r}: ")
                out.append(f"--prior {self.prior!r}: {why}")
        if number("pool_search") > 0:
            try:  # the agents package is only imported when a search seat is asked for
                from saboteur_agents.base import make_agent

                make_agent(self.search_agent)
            except Exception as err:  # a bad spec names itself; a missing extra says which
                out.append(f"--search-agent {self.search_agent!r}: {err}")
        try:
            rules = self.game_config().ruleset
        except ValueError as err:  # ConfigError
            names = ("num_players", "num_rounds", "reward", "expansion")
            field = next((f for f in names if f"{f}=" in str(err)), None)
            out.append((f"{_flag(field)} {getattr(self, field)}: " if field else "") + str(err))
        else:
            out += self._learner_role_problems(rules)
        return out

    def _learner_role_problems(self, rules) -> list[str]:
        """Why ``learner_role`` cannot be trained in this game (empty: it can, or none is
        asked for): not a role of ``rules``, no dwarf card of it at this player count, more
        than one round (roles are dealt again each round) or a game whose roles change
        during a round (:attr:`~saboteur_env.engine.ruleset.Ruleset.roles_change_in_round`:
        the learning seat would not keep the role)."""
        if not self.learner_role:
            return []
        flag = f"--learner-role {self.learner_role}"
        try:
            role = rules.role_id(self.learner_role)
        except ValueError:
            return [f"{flag}: not a role of this game (one of {', '.join(rules.roles)})"]
        out = []
        if rules.role_deck(self.num_players)[role] == 0:
            out.append(f"{flag}: no player holds it at {self.num_players} players")
        if self.num_rounds != 1:
            out.append(f"{flag}: needs --rounds 1 (roles are dealt again each round)")
        if rules.roles_change_in_round:
            out.append(
                f"{flag}: in {rules.title} a role can change during a round (Swap your hats, "
                "RULES 6.5), so the learning seat would not keep it"
            )
        return out


#: options named as in every other command (``--players``/``--rounds``); the field names
#: (``--num-players``/``--num-rounds``) stay as aliases
_SHARED_FLAGS = {"num_players": "--players", "num_rounds": "--rounds"}


def _flag(name: str) -> str:
    """The command-line option of a :class:`TrainConfig` field."""
    return _SHARED_FLAGS.get(name, "--" + name.replace("_", "-"))


#: ``saboteur train --help`` text of each option (the default is appended)
HELP = {
    "num_players": f"players per game ({player_ranges()})",
    "num_rounds": "rounds per game (an episode is a whole game)",
    "reward": "'win' (+1/-1 for the winning/losing side) or 'gold' (gold received)",
    "expansion": "Saboteur 2 rules (RULES 6) instead of the base game",
    "num_envs": "games stepped together in one batched engine (saboteur_env.vector), with "
    "batched inference",
    "steps_per_iter": "learning decisions in finished games per PPO update (at least)",
    "iterations": "stop after this many iterations (0 = no limit; with --minutes and "
    "--total-decisions also 0, training runs until Ctrl-C or `kill` (SIGTERM), either of which "
    "saves final.pt)",
    "minutes": "stop after this wall-clock budget, warm start and the final evaluation included "
    "(the last evaluation's and the last PPO update's durations are kept back for them; the "
    "first update's is not known yet, so a budget shorter than the first iteration, two with "
    "--overlap, can still run over by one update; numba's first compile, 40-45 s once per "
    "machine, counts against it; 0 = none)",
    "total_decisions": "stop after this many learning decisions (0 = none)",
    "epochs": "PPO passes over each batch",
    "minibatch": "PPO and behaviour-cloning minibatch size",
    "lr": "PPO learning rate (Adam)",
    "gamma": "discount per decision of a seat",
    "gae_lambda": "GAE lambda",
    "clip": "PPO ratio clip",
    "ent_coef": "entropy bonus coefficient",
    "vf_coef": "value loss coefficient",
    "max_grad_norm": "gradient norm clip",
    "channels": "convolution channels (taken from the checkpoint with --init)",
    "hidden": "MLP width (taken from the checkpoint with --init)",
    "conv_layers": "3x3 convolutions in the board trunk (taken from the checkpoint with --init)",
    "pool_current": "pool weight: the current policy in a non-anchor seat",
    "pool_snapshots": "pool weight: frozen past snapshots (shared evenly)",
    "pool_heuristic": "pool weight: the heuristic agent",
    "pool_random": "pool weight: the random agent",
    "pool_search": "pool weight: the search agent (--search-agent; many times the heuristic's "
    "time per decision)",
    "search_agent": "the search agent's spec in the pool",
    "snapshot_every": "iterations between snapshots added to the pool (0 = none)",
    "max_snapshots": "snapshots kept (oldest dropped)",
    "shaping": "potential-based progress shaping coefficient (0 = off)",
    "bc_decisions": "behaviour-cloning warm start: heuristic decisions imitated before PPO, "
    "inside the --minutes budget (collection stops at a quarter of it, fitting at half; 0 = "
    "off, e.g. for short runs; skipped with --init)",
    "bc_epochs": "warm start epochs",
    "bc_lr": "warm start learning rate",
    "eval_every": "iterations between duplicate-deal evaluations against random and the "
    "heuristic, and at the end (0 = never)",
    "eval_deals": "dev-split deals per role per evaluation (role-probe protocol)",
    "checkpoint_every": "iterations between checkpoints/iter_XXXX.pt (0 = only final.pt)",
    "seed": "random seed",
    "threads": "torch threads (per thread of work: with --overlap the run uses two)",
    "overlap": "collect the next batch while the learner updates on the last one, in a "
    "second thread: about two cores' work, with one update of policy lag (PPO's ratio is "
    "taken to the policy that collected the batch); reproducible: the same seed gives the "
    "same weights (not those of a run without --overlap)",
    "precision": "fp32, or bf16: the PPO update's forward pass under bfloat16 autocast "
    "(losses, softmax and weights stay float32; about 2x faster on CPUs with AVX-512 BF16 or "
    "AMX, slower on others)",
    "out": "output folder",
    "progress": "progress bar on stderr",
    "init": "start from this checkpoint (its network shape and prior; no warm start; a fresh "
    "optimizer and iteration count)",
    "prior": "an agent spec whose logits the policy adds to the network's, e.g. "
    "'softmax:t=0.1' (the heuristic's scores over a temperature): the network learns a "
    "residual that starts at 0, so the first policy is the prior's; the warm start then fits "
    "the value only; the checkpoint keeps the prior, and every player of it adds the prior; "
    "each decision of a network seat then also costs the prior's scores ('' = none; with "
    "--init, the checkpoint's)",
    "learner_role": "a role specialist: the learning seat of every training game is one dealt "
    "this role (e.g. 'saboteur'; deals without it are skipped), only that role's decisions "
    "are learned from (the behaviour-cloning warm start without --init still fits every "
    "role's), and the in-training evaluations probe that role only ('' = every role; needs "
    "--rounds 1 and a game whose roles stay fixed during a round: the base game)",
    "privileged_critic": "an asymmetric actor-critic: the advantages' baseline is a critic "
    "that also sees what the round hides (every seat's role, the goal cards; "
    "VectorGame.round_truth), a residual on the network's own value; the policy still reads "
    "the observation only, and checkpoints hold the policy network alone (the critic is "
    "written beside each, NAME.critic.pt, and --init PATH with --privileged-critic starts from "
    "PATH's when there is one)",
    "critic_lr": "the privileged critic's learning rate (Adam; --privileged-critic)",
}


def _parser() -> argparse.ArgumentParser:
    """The parser of a training run: one option per :class:`TrainConfig` field."""
    p = argparse.ArgumentParser(
        prog="saboteur train",
        description="PPO self-play training against a pool.",
        epilog="saboteur train --evaluate CHECKPOINT [--deals N] evaluates a checkpoint "
        "instead (see saboteur train --evaluate CHECKPOINT --help); saboteur train --backend "
        "rllib trains on RLlib (the 'ray' extra; saboteur train --backend rllib --help).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    defaults = TrainConfig()
    for f in fields(TrainConfig):
        val = getattr(defaults, f.name)
        flags = [_flag(f.name)]
        if f.name in _SHARED_FLAGS:
            flags.append("--" + f.name.replace("_", "-"))  # the older name, an alias
        if isinstance(val, bool):
            p.add_argument(
                *flags,
                dest=f.name,
                action=argparse.BooleanOptionalAction,
                default=val,
                help=HELP.get(f.name),
            )
        else:
            p.add_argument(*flags, dest=f.name, type=type(val), default=val, help=HELP.get(f.name))
    # not a field: what to do with an earlier run's outputs, not how to train
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier run's outputs in --out (without it, such an --out is refused)",
    )
    return p


def parse_args(argv=None) -> TrainConfig:
    """The :class:`TrainConfig` of a command line; a bad option is a usage error (exit 2)
    naming the option and its value, before anything is trained or written."""
    from saboteur_experiments.cli_args import check_output_dir

    p = _parser()
    ns = vars(p.parse_args(argv))
    overwrite = ns.pop("overwrite")
    cfg = TrainConfig(**ns)
    bad = cfg.problems()
    if bad:
        p.error("; ".join(bad))
    check_output_dir(p, cfg.out, "--out")
    earlier = run_outputs(cfg.out)
    if earlier and not overwrite:
        # two runs' files in one folder mix: a report would read one run's curve beside the
        # other's checkpoints
        p.error(
            f"--out {cfg.out}: holds an earlier training run ({', '.join(earlier)}); pass "
            "--overwrite to replace it or choose another --out"
        )
    if cfg.init:
        from saboteur_agents.network import load_checkpoint

        if not Path(cfg.init).is_file():
            p.error(f"--init {cfg.init!r}: no such checkpoint file")
        try:
            net, _ = load_checkpoint(cfg.init, cfg.game_config())
        except ValueError as err:  # CheckpointMismatchError: the user's file, not a crash
            p.error(f"--init {cfg.init!r}: {err}")
        from saboteur_agents.network import prior_mismatch

        why = prior_mismatch(net.prior, cfg.prior)
        if why:
            p.error(f"--init {cfg.init!r}: {why}")
    return cfg


#: what a training run writes in its ``--out``: files, and files in its folders by pattern
#: (``checkpoints/``: iteration, best and latest-evaluation checkpoints with their JSON and
#: critic files; ``tb/``: TensorBoard's event files)
RUN_FILES = (
    "config.json",
    "metrics.csv",
    "eval.csv",
    "bc.json",
    "learning_curve.png",
    "final.pt",
    "final.json",
    "final.critic.pt",
)
RUN_FOLDER_FILES = {
    "checkpoints": ("iter_*.pt", "iter_*.json", "best_dev.*", "eval_latest.*"),
    "tb": ("events.out.tfevents.*",),
}


def _run_folder_files(out: Path) -> list[Path]:
    """The files of :data:`RUN_FOLDER_FILES` lying in ``out``'s folders."""
    found: list[Path] = []
    for folder, patterns in RUN_FOLDER_FILES.items():
        if (out / folder).is_dir():
            for pattern in patterns:
                found += [p for p in (out / folder).glob(pattern) if p.is_file()]
    return found


def run_outputs(out: str | Path) -> list[str]:
    """The outputs of an earlier training run in folder ``out``: the :data:`RUN_FILES` there,
    and ``"checkpoints/"`` / ``"tb/"`` where they hold a run's files
    (:data:`RUN_FOLDER_FILES`)."""
    out = Path(out)
    found = [f for f in RUN_FILES if (out / f).is_file()]
    folders = {p.parent.name for p in _run_folder_files(out)}
    return found + [f"{d}/" for d in RUN_FOLDER_FILES if d in folders]


def clear_run(out: str | Path) -> None:
    """Remove an earlier training run's outputs from ``out`` (:func:`run_outputs`: its files,
    and the run's files in its folders; any other file stays), so that a new run's are never
    mixed with them."""
    out = Path(out)
    for f in RUN_FILES:
        (out / f).unlink(missing_ok=True)
    for p in _run_folder_files(out):
        p.unlink()


def evaluate_parser() -> argparse.ArgumentParser:
    """The parser of ``saboteur train --evaluate CHECKPOINT`` (see
    :func:`saboteur_experiments.train.evaluate_checkpoint`)."""
    from saboteur_experiments.cli_args import DefaultsHelp, add_deal_range, at_least

    p = argparse.ArgumentParser(
        prog="saboteur train --evaluate",
        description="Evaluate a checkpoint: the role-probe protocol against random and "
        "the heuristic (the checkpoint in one seat and role, every other seat the "
        "reference, paired with an all-reference game of the same deal), per role.",
        formatter_class=DefaultsHelp,
    )
    p.add_argument(
        "--evaluate",
        required=True,
        metavar="CHECKPOINT",
        help="a checkpoint file (evaluated in the game it was trained for), or 'ppo' for the "
        "one shipped with the package (the base game's; with --expansion Saboteur 2's), or an "
        "earlier shipped one by name ('ppo:v1', 'ppo:sab2-v1')",
    )
    p.add_argument(
        "--expansion",
        action="store_true",
        help="with --evaluate ppo: the shipped Saboteur 2 checkpoint",
    )
    p.add_argument("--deals", type=at_least(1), default=500, help="deals per role")
    add_deal_range(p)
    p.add_argument("--seed", type=at_least(0), default=0, help="seeds the agents")
    p.add_argument("--workers", type=at_least(1), default=1, help="processes (same results)")
    p.add_argument(
        "--rounds",
        type=at_least(1),
        default=None,
        help="rounds per game (default: the checkpoint's training games)",
    )
    p.add_argument("--json", default="", help="also write the result to this file")
    return p


def print_help(argv: list[str]) -> None:
    """``saboteur train [--evaluate CHECKPOINT] --help``: the help, without torch (this module
    imports none, so the options show before the ``train`` extra is installed)."""
    (evaluate_parser() if "--evaluate" in argv else _parser()).parse_args(argv)
