"""Bluff-detection detectors: the protocol and the baseline detectors.

A **detector** watches one game and says, at any moment, how likely each player is to hold each
role.  The protocol (DESIGN 6)::

    det.reset(seat, config, own_role)   # seat=None: spectator; own_role None for a spectator
    det.observe(event)                  # every event the track allows, in order
    det.belief() -> float array (n_players, n_roles), every row summing to 1

Roles are redealt every round (RULES 2.4, 5.4): a ``round_start`` event starts a new round and
detectors forget the last round's evidence; an in-seat detector learns its new role from its
private ``role_dealt`` event.  The role dimension is the ruleset's (``config.ruleset``:
``n_roles`` columns in ``roles`` order, the role deck given by :func:`role_deck`): the base game
has two columns, gold-digger (0) and saboteur (1); Saboteur 2 six (RULES 6.2).  What differs
per ruleset is data keyed by ``Ruleset.name``: the public-event categories
(:data:`CATEGORY_TABLES`) and the hand-set event models (:data:`DEFAULT_EVENT_MODELS`).

Baselines:

* :class:`UniformDetector`: every row uniform over the roles.
* :class:`PriorDetector`: the exact prior, by enumeration of every role assignment the role deck
  allows (RULES 2.2: one more dwarf card than players, the extra set aside), conditioned on the
  observer's own role.
* :class:`BayesDetector`: exact enumeration over role assignments, each public event multiplying
  every assignment by a documented likelihood (see :data:`DEFAULT_CATEGORY_PROBS` and
  :data:`DEFAULT_TARGET_RATIOS`); :meth:`BayesDetector.fit` sets them by maximum likelihood.
  Saboteur 2: the same over the 15-card dwarf deck (:class:`RoleAssignments`: exact up to 6
  players, seeded particles with resample-move beyond; Swap your hats redraws the target's
  role from each assignment's undealt cards), events in :data:`X_CATEGORIES` with the hand-set
  :data:`X_DEFAULT_CATEGORY_PROBS` and :data:`X_DEFAULT_TARGET_RATIOS`.
* :class:`LogisticDetector`: multinomial logistic regression on per-player public-history
  features (numpy), temperature-calibrated on a validation split.
* :class:`AgentBeliefDetector`: an agent's own ``belief()`` (e.g. the heuristic agent), in-seat
  only.
* :class:`PolicyBayesDetector`: the Bayes ceiling, exact Bayes with the population's own
  policies as likelihoods (:func:`population_models`: the PPO, random and softmax-heuristic
  agents give action probabilities); privileged, it is shown every actor's observation with
  its role blanked (both games; in Saboteur 2 it follows every Swap your hats and conditions
  on what the actors' Inspections showed them); ``samples=K`` makes it a true spectator that
  averages the policies over K spectator determinizations per decision (``policy-bayes``).
* :class:`OracleDetector`: knows the true roles (tests: it must score skill 1).

Modules: :mod:`.priors` (role decks, assignments, the exact prior), :mod:`.assignments`
(:class:`RoleAssignments`), :mod:`.base` (the protocol, uniform, prior, oracle),
:mod:`.categories` (public-event categories and their tracker), :mod:`.bayes`,
:mod:`.logistic` (features, the classifier and its fitting), :mod:`.agent`, :mod:`.policy` (the
Bayes ceiling: :class:`PolicyBayesDetector`, the :class:`ActionModel` of each policy,
:func:`population_models`).
"""

from .agent import AgentBeliefDetector
from .assignments import DealtAssignments, RoleAssignments
from .base import (
    BUILTIN_NAMES,
    Detector,
    OracleDetector,
    PriorDetector,
    UniformDetector,
    load_detector,
    load_detectors,
)
from .bayes import (
    DEFAULT_CATEGORY_PROBS,
    DEFAULT_EVENT_MODELS,
    DEFAULT_TARGET_RATIOS,
    X_DEFAULT_CATEGORY_PROBS,
    X_DEFAULT_TARGET_RATIOS,
    BayesDetector,
)
from .categories import (
    BASE_CATEGORIES,
    CAT_INDEX,
    CATEGORIES,
    CATEGORY_TABLES,
    S2_CATEGORIES,
    TARGETED,
    X_CAT_INDEX,
    X_CATEGORIES,
    X_HARMFUL,
    X_HELPFUL,
    X_TARGETED,
    CategoryTable,
    PublicTracker,
    event_categories,
)
from .logistic import (
    FeatureDetector,
    LogisticDetector,
    fit_logistic,
    fit_temperature,
    player_features,
)
from .policy import (
    ActionModel,
    PolicyBayesDetector,
    ceiling_problem,
    gives_probabilities,
    policy_model,
    population_models,
)
from .priors import (
    count_assignments,
    digger_roles,
    enumerate_assignments,
    exact_prior,
    feasible_count_bounds,
    marginals,
    p_no_saboteur,
    role_deck,
    roles_change,
    saboteur_index,
)

__all__ = [
    "BUILTIN_NAMES",
    "load_detector",
    "load_detectors",
    "ActionModel",
    "PolicyBayesDetector",
    "ceiling_problem",
    "gives_probabilities",
    "policy_model",
    "population_models",
    "BASE_CATEGORIES",
    "CATEGORIES",
    "CATEGORY_TABLES",
    "CAT_INDEX",
    "DEFAULT_CATEGORY_PROBS",
    "DEFAULT_EVENT_MODELS",
    "DEFAULT_TARGET_RATIOS",
    "S2_CATEGORIES",
    "TARGETED",
    "X_CATEGORIES",
    "X_CAT_INDEX",
    "X_DEFAULT_CATEGORY_PROBS",
    "X_DEFAULT_TARGET_RATIOS",
    "X_HARMFUL",
    "X_HELPFUL",
    "X_TARGETED",
    "AgentBeliefDetector",
    "BayesDetector",
    "CategoryTable",
    "DealtAssignments",
    "Detector",
    "FeatureDetector",
    "LogisticDetector",
    "OracleDetector",
    "PriorDetector",
    "PublicTracker",
    "RoleAssignments",
    "UniformDetector",
    "count_assignments",
    "digger_roles",
    "enumerate_assignments",
    "event_categories",
    "exact_prior",
    "feasible_count_bounds",
    "fit_logistic",
    "fit_temperature",
    "marginals",
    "p_no_saboteur",
    "player_features",
    "role_deck",
    "roles_change",
    "saboteur_index",
]
