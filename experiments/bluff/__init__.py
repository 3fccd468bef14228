"""The bluff-detection benchmark: ``saboteur bluff``.

Pipeline
========

1. **Record sets, on paired deals.**  Every population of actors (:data:`POPULATIONS`) plays
   the same seeded deals at each player count (:func:`record_seeds`): test games on deals of
   the project's test split, training games on train-split deals, calibration games on
   dev-split deals (:mod:`saboteur_experiments.evaluation.splits`, DESIGN 9).  A deal fixes the
   role cards of every round, so paired populations share their role assignments.  Each game
   is written once as a game record (:mod:`saboteur_env.record`, the project's one JSON Lines
   format) under ``<out>/records/paired/<population>_n<N>/game_<seed>.jsonl``
   (``<population>@<hash>`` for PPO checkpoints, :func:`fingerprint`;
   ``game_<seed>_r<rounds>.jsonl`` for games of other than 3 rounds) with every event and its
   visibility (record format version 2) and read back from there afterwards, so a record set
   is frozen: a later run with the same options reuses it.  The events of a game (with their
   visibility) and the true roles of every round come from replaying its record through the
   engine (:func:`saboteur_env.record.replay`; the replay checks every round result against
   the record).
2. **Fitting, leave one population out.**  The detectors with parameters (:data:`FITTED`) are
   fitted once per scored population on the training games (and calibrated on the
   calibration games) of every other population, and scored on that population's test games
   only; each cell's ``fitted_on`` names the populations its fit saw.
3. **Scoring.**  The test split of every population is replayed; before every decision of a
   round each detector is asked for its belief.  Two tracks:

   * ``spectator``: one detector per game (``reset(None, config, None)``), fed public events
     only; targets are all players.
   * ``in-seat``: one detector per seat (``reset(seat, config, own_role)``), fed public events
     and that seat's private events; targets are the other players (a saboteur must find its
     fellow saboteurs too).

   The harness (:class:`BoundDetector`) refuses to pass an event that the track may not see
   (:class:`LeakError`), rejects a belief that is not a distribution (:class:`BeliefError`) and
   records beliefs whose marginals no role assignment can produce (role counts outside what
   the role deck allows, or an in-seat own row other than the own role).
4. **Metrics** (:mod:`.metrics`): log loss and Brier score over all targets, their skill
   scores against the exact prior, AUROC by decile of round progress, reliability and ECE,
   detection survival and false-accusation rate; the label is the target's true role at that
   moment; every round weighs the same; 95% intervals by bootstrap over test deals (seeded).
5. **Deception.**  Each saboteur policy (random, heuristic blatant, subtle and default, PPO, a
   search agent, the adversarial :mod:`.adversary`) also plays beside the *same* heuristic
   gold-diggers (:mod:`.actors`) on the same deals, and ``heuristic-mimic`` saboteurs play
   exactly like gold-diggers (no sabotage, nothing to detect; Saboteur 2: like the boss).  The
   *bluff frontier* plots, per policy and player count, the detection axis (the spectator
   panel's, :data:`PANEL`, mean log-loss skill against the exact prior over all players,
   anchored: 0 for the mimic saboteurs, 1 for the blatant ones, :func:`bluff_frontier`)
   against the drop of the gold-diggers' round win rate below the mimic reference; 95%
   intervals by a paired deal bootstrap.  A good bluffer sits low and to the right; the dashed
   line joins the non-dominated policies.

Saboteur 2 track (``--expansion``, RULES 6)
===========================================

The same pipeline on Saboteur 2 games (records under ``<population>_x<N>``, default 5 players,
200 test games per population), with six roles (columns in
``SABOTEUR_2.roles`` order; the saboteur column is 5) and roles that change mid-round: the
label is the role a target holds at that moment (Swap your hats, RULES 6.5).  The exact prior is
the 15-card dwarf deck's (RULES 6.2), conditioned in-seat on every card the observer held.
Populations (:data:`EXPANSION_POPULATIONS`): random; the heuristic in its default, blatant and
subtle styles (their non-saboteur seats play alike); ``heuristic-mimic`` (saboteurs play as the
boss would: dig for either team, no sabotage) and ``heuristic-randomsab`` (random saboteurs)
beside the same heuristic non-saboteurs.  Every detector runs, the Bayes detectors on exact or
sampled Saboteur 2 role assignments with their own event categories
(:class:`.detectors.BayesDetector`).  The bluff frontier runs too, with one
difference: the gold-diggers' "round win rate" is the share of rounds in which the gold is found
(the saboteurs' loss; which digger team, the boss or the profiteer then wins depends on the
doors, RULES 6.9).  The PPO populations play the Saboteur 2 checkpoint the README's figures
were measured with (``ppo:sab2-v1``, the previous shipped one: the shipped one now has a prior,
whose event-fed state the ceiling cannot follow through Swap your hats); a checkpoint of the
other game is skipped with the reason (:func:`population_problem`).

Outputs under ``--out`` (default ``runs/bluff``): ``summary.csv`` (one row per track x detector
x population x player count), ``summary.json`` (also the skill and AUROC by progress decile,
reliability bins, survival curves, the frontier), ``skill_by_progress_<track>.png``,
``reliability_<track>.png``, ``survival_<track>.png``, ``bluff_frontier.png``, and a table per
track on the terminal.

Modules, one per job: :mod:`.populations` (who plays), :mod:`.records` (record sets, seeds,
splits), :mod:`.actors` (the ``rolesplit`` agents of the frontier populations),
:mod:`.detectors` (the detector protocol and the baselines), :mod:`.harness` (binding,
scoring, fitting), :mod:`.metrics`, :mod:`.report` (summaries, frontier, tables, plots, output
files), :mod:`.pipeline` (:func:`run`, the whole benchmark) and :mod:`.cli` (``saboteur
bluff``, :func:`main`).
"""

from .cli import main
from .harness import (
    TRACKS,
    BeliefError,
    BoundDetector,
    LeakError,
    Scored,
    check_belief,
    fit_detectors,
    fit_from_data,
    merge_training_data,
    score_record,
    training_data,
)
from .pipeline import FITTED, run
from .populations import (
    BLATANT,
    EXPANSION_POPULATIONS,
    FRONTIER,
    MIMIC,
    POPULATIONS,
    fingerprint,
    policies,
    population_problem,
    usable_populations,
)
from .records import (
    MAX_GAMES,
    MIN_GAMES,
    SPLITS,
    play_recorded,
    record_seeds,
    record_set,
)
from .report import (
    CSV_FIELDS,
    PANEL,
    bluff_frontier,
    format_tables,
    make_plots,
    panel_skill,
    pareto,
    summarize,
)

__all__ = [
    "CSV_FIELDS",
    "BLATANT",
    "EXPANSION_POPULATIONS",
    "FITTED",
    "MIMIC",
    "FRONTIER",
    "MAX_GAMES",
    "MIN_GAMES",
    "PANEL",
    "POPULATIONS",
    "SPLITS",
    "TRACKS",
    "BeliefError",
    "BoundDetector",
    "LeakError",
    "Scored",
    "bluff_frontier",
    "check_belief",
    "fingerprint",
    "fit_detectors",
    "fit_from_data",
    "merge_training_data",
    "panel_skill",
    "format_tables",
    "main",
    "make_plots",
    "pareto",
    "play_recorded",
    "policies",
    "population_problem",
    "record_seeds",
    "record_set",
    "run",
    "score_record",
    "summarize",
    "training_data",
    "usable_populations",
]
