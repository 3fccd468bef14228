"""The Bayes detector: exact (or sampled) inference over role assignments with per-event
likelihoods, its hand-set event models and their maximum-likelihood fit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from saboteur_env.engine.events import EventType
from saboteur_env.engine.ruleset import BASE, RULESETS, SABOTEUR_2, Ruleset

from .assignments import DealtAssignments, RoleAssignments, hat_swap_target
from .base import Detector
from .categories import CATEGORY_TABLES, X_CATEGORIES, X_HARMFUL, X_HELPFUL, PublicTracker
from .priors import exact_prior, role_deck, roles_change

#: Hand-set likelihoods P(category | actor's role), rows gold-digger, saboteur.  Reasoning: a
#: gold-digger mostly extends the tunnel east, rarely plays a dead end or breaks a tunnel; a
#: saboteur plays dead ends, rockfalls on through cards and broken tools more often.
#: Ratio saboteur/gold-digger per category: advance 0.43, other 1.0, dead end 7.5, rockfall on a
#: dead end 0.4, rockfall on a through card 3.3, map 0.5, discard 1.0, break 1.8, repairs 1.0.
DEFAULT_CATEGORY_PROBS = np.array(
    [
        [0.35, 0.15, 0.02, 0.05, 0.03, 0.10, 0.10, 0.10, 0.05, 0.05],
        [0.15, 0.15, 0.15, 0.02, 0.10, 0.05, 0.10, 0.18, 0.05, 0.05],
    ]
)
#: Hand-set target ratios f(actor role, target role) for targeted categories: how much more
#: likely the pair is than the base rate.  Breaking: a gold-digger breaks a saboteur's tool
#: (ratio 2) rather than a fellow digger's (0.5); a saboteur breaks a digger's (1.5), seldom a
#: fellow saboteur's (0.3).  Repairing someone else: friends repair friends (2, 2), rarely foes.
DEFAULT_TARGET_RATIOS = {
    "break": np.array([[0.5, 2.0], [1.5, 0.3]]),
    "repair_other": np.array([[2.0, 0.5], [0.5, 2.0]]),
}


#: Hand-set likelihoods P(category | role) for Saboteur 2, columns :data:`X_CATEGORIES`, rows
#: ``SABOTEUR_2.roles`` (green gold-digger, blue gold-digger, boss, profiteer, geologist,
#: saboteur): a base rate per category (a gold-digger's turn mix: mostly tunnel cards and
#: passes) times a role multiplier, each row normalised.  Reasoning per role (RULES 6.9):
#: the two digger teams dig for the gold, play their own colour's doors (never the other
#: team's) and rockfall the other team's doors; the boss and the profiteer win with either team,
#: so they dig but shun doors; a geologist is paid per crystal, not for the gold, so it places
#: crystal cards, digs little and passes a lot; a saboteur plays dead ends, rockfalls on
#: tunnel cards, broken tools and Trapped! (as in the base game, ratio about 2-8 against a
#: digger) and, being the target of the others' harm, repairs and frees itself more.
X_CATEGORY_TABLE = {
    # category:          (base rate, (green, blue, boss, profiteer, geologist, saboteur))
    "path_advance": (0.17, (1.0, 1.0, 1.0, 1.0, 0.3, 0.4)),
    "path_other": (0.25, (1.0, 1.0, 1.0, 1.0, 0.5, 0.8)),
    "path_dead_end": (0.01, (1.0, 1.0, 1.0, 1.0, 2.0, 8.0)),
    "door_green": (0.02, (2.0, 0.1, 0.3, 0.5, 0.5, 1.0)),
    "door_blue": (0.02, (0.1, 2.0, 0.3, 0.5, 0.5, 1.0)),
    "crystal": (0.08, (1.0, 1.0, 1.0, 1.0, 3.0, 0.6)),
    "rockfall_dead_end": (0.01, (1.0, 1.0, 1.0, 1.0, 0.5, 0.3)),
    "rockfall_through": (0.02, (0.7, 0.7, 0.7, 0.7, 1.0, 3.0)),
    "rockfall_door_green": (0.003, (0.2, 3.0, 1.0, 1.0, 0.5, 0.5)),
    "rockfall_door_blue": (0.003, (3.0, 0.2, 1.0, 1.0, 0.5, 0.5)),
    "map": (0.07, (1.0, 1.0, 1.0, 1.0, 1.0, 0.6)),
    "pass": (0.12, (1.0, 1.0, 1.0, 1.0, 3.0, 1.3)),
    "remove": (0.02, (1.0, 1.0, 1.0, 1.0, 0.5, 1.5)),
    "break": (0.04, (0.7, 0.7, 0.7, 0.8, 0.5, 2.0)),
    "repair_self": (0.01, (1.0, 1.0, 1.0, 1.0, 0.5, 1.5)),
    "repair_other": (0.01, (1.0, 1.0, 1.0, 1.0, 1.0, 0.7)),
    "trapped": (0.02, (0.7, 0.7, 0.7, 0.8, 0.5, 2.0)),
    "free_self": (0.004, (1.0, 1.0, 1.0, 1.0, 0.5, 1.5)),
    "free_other": (0.004, (1.0, 1.0, 1.0, 1.0, 1.0, 0.7)),
    "theft": (0.04, (1.0, 1.0, 1.0, 1.2, 1.2, 1.0)),
    "hands_off": (0.015, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "inspection": (0.02, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "swap_hats_self": (0.002, (1.0, 1.0, 0.5, 1.0, 2.0, 2.0)),
    "swap_hats_other": (0.006, (1.0, 1.0, 1.0, 1.0, 1.0, 1.5)),
    "swap_hand": (0.004, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
    "steal": (0.02, (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
}
X_DEFAULT_CATEGORY_PROBS = np.array(
    [
        [X_CATEGORY_TABLE[c][0] * X_CATEGORY_TABLE[c][1][r] for c in X_CATEGORIES]
        for r in range(SABOTEUR_2.n_roles)
    ]
)
X_DEFAULT_CATEGORY_PROBS /= X_DEFAULT_CATEGORY_PROBS.sum(axis=1, keepdims=True)
#: Who takes whom for a friend (+1), a rival (-0.5: the other digger team, RULES 6.9 doors) or
#: an enemy (-1), rows the actor's role, columns the target's, in ``SABOTEUR_2.roles`` order.
#: The boss wins with either team; the profiteer with anyone and the geologist with nobody, so
#: their rows are neutral.
X_RELATION = np.array(
    [
        # green blue boss  prof geol  sab
        [1.0, -0.5, 1.0, 0.0, 0.0, -1.0],  # green gold-digger
        [-0.5, 1.0, 1.0, 0.0, 0.0, -1.0],  # blue gold-digger
        [1.0, 1.0, 0.0, 0.0, 0.0, -1.0],  # boss
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],  # profiteer
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],  # geologist
        [-1.0, -1.0, -1.0, 0.0, 0.0, 1.0],  # saboteur
    ]
)
#: Hand-set target ratios for Saboteur 2, as in the base game: a harmful card goes to an enemy
#: (factor 2) rather than a friend (0.5), ``2 ** -relation``; a helpful one the other way,
#: ``2 ** relation``; Inspection and Swap your hand say nothing (1).
X_DEFAULT_TARGET_RATIOS = {
    **{c: 2.0**-X_RELATION for c in X_HARMFUL},
    **{c: 2.0**X_RELATION for c in X_HELPFUL},
    "inspection": np.ones((SABOTEUR_2.n_roles,) * 2),
    "swap_hand": np.ones((SABOTEUR_2.n_roles,) * 2),
}

#: ruleset name (``config.ruleset.name``) -> its hand-set event model ``(P(category | role)
#: float ``(n_roles, n_categories)``, target ratios category -> ``(n_roles, n_roles)``)``, the
#: columns those of :data:`~.categories.CATEGORY_TABLES`
DEFAULT_EVENT_MODELS: Mapping[str, tuple[np.ndarray, dict[str, np.ndarray]]] = MappingProxyType(
    {
        BASE.name: (DEFAULT_CATEGORY_PROBS, DEFAULT_TARGET_RATIOS),
        SABOTEUR_2.name: (X_DEFAULT_CATEGORY_PROBS, X_DEFAULT_TARGET_RATIOS),
    }
)


class BayesDetector(Detector):
    """Bayesian inference over role assignments with per-event likelihoods.

    Every possible assignment of roles to seats (RULES 2.2, :func:`enumerate_assignments`,
    held by :class:`DealtAssignments`) carries a log weight, starting at the exact prior
    conditioned on the observer's role.  A public event of category ``c`` (the game's
    :data:`~.categories.CATEGORY_TABLES` entry, by ``config.ruleset.name``) by actor ``a``
    (and target ``t``) multiplies each assignment ``rho`` by ``P(c | rho_a) * f_c(rho_a,
    rho_t)`` (the target factor only for the table's targeted categories).  The event model
    is a pseudo-likelihood: it ignores which actions were legal.  ``belief()`` is the exact
    posterior marginal of this model, so it is always a feasible set of marginals.

    **Saboteur 2** (RULES 6; roles change mid-round, :func:`~.priors.roles_change`): the same
    model over the six roles of the 15-card dwarf deck (RULES 6.2), with the categories
    :data:`X_CATEGORIES` (the table :data:`~.categories.S2_CATEGORIES`), the hand-set
    :data:`X_DEFAULT_CATEGORY_PROBS` and :data:`X_DEFAULT_TARGET_RATIOS` by default
    (:data:`DEFAULT_EVENT_MODELS`), on a :class:`RoleAssignments` set: exact
    enumeration when the seats allow at most ``max_exact`` assignments (2-6 players), else
    ``particles`` seeded samples from the exact prior.  Roles change mid-round: a public Swap
    your hats on seat ``t`` (RULES 6.5, 7.21) redraws ``t``'s role in every assignment from that
    assignment's undealt cards (its old card out for the round), so the belief is always over
    the roles held *now*.  In-seat, the observer's own card conditions the set at the deal and
    after every Swap your hats on it (its private ``role_dealt``), and its private Inspection
    results condition it too; the observer's own actions are not used as evidence (they say
    what it believed, not what the others hold).

    Args:
        category_probs: ``(n_roles, n_categories)``, rows summing to 1 (``None``: the
            hand-set table of the game being played).
        target_ratios: category -> ``(n_roles, n_roles)`` positive factors.
        name: the detector's name in reports.
        max_exact, particles, seed, moves: Saboteur 2 only, see :class:`RoleAssignments`.

    Raises:
        ValueError: at ``reset``, tables whose shape does not fit the game.
    """

    name = "bayes"

    def __init__(
        self,
        category_probs=None,
        target_ratios=None,
        name: str | None = None,
        *,
        max_exact: int = 50_000,
        particles: int = 4096,
        seed: int = 0,
        moves: int = 20,
    ):
        self._hand_set = category_probs is None and target_ratios is None
        self.category_probs = np.asarray(
            DEFAULT_CATEGORY_PROBS if category_probs is None else category_probs, float
        )
        self.target_ratios = {
            k: np.asarray(v, float)
            for k, v in (DEFAULT_TARGET_RATIOS if target_ratios is None else target_ratios).items()
        }
        self._logc = np.log(self.category_probs)
        self._logt = {k: np.log(v) for k, v in self.target_ratios.items()}
        self.max_exact, self.particles, self.seed = max_exact, particles, seed
        self.moves = moves
        if name:
            self.name = name

    def reset(self, seat, config, own_role) -> None:
        rules = config.ruleset
        table = CATEGORY_TABLES[rules.name]
        if self._hand_set:  # the hand-set tables of the game being played (also on reuse)
            self.category_probs, self.target_ratios = DEFAULT_EVENT_MODELS[rules.name]
            self._logc = np.log(self.category_probs)
            self._logt = {k: np.log(v) for k, v in self.target_ratios.items()}
        k = rules.n_roles
        if self.category_probs.shape != (k, len(table.categories)) or any(
            v.shape != (k, k) for v in self.target_ratios.values()
        ):
            raise ValueError(
                f"{rules.title} needs category_probs of shape "
                f"{(k, len(table.categories))} and {(k, k)} target ratios, got "
                f"{self.category_probs.shape}"
            )
        self._cat_index = table.index
        self.tracker = PublicTracker(table)
        if roles_change(config):
            self.assignments = RoleAssignments(
                role_deck(config),
                config.num_players,
                max_exact=self.max_exact,
                particles=self.particles,
                seed=self.seed,
                moves=self.moves,
            )
        else:
            self.assignments = DealtAssignments(config)
        super().reset(seat, config, own_role)

    def new_round(self) -> None:
        self.tracker.new_round()
        fixed = [] if self.seat is None or self.own_role is None else [(self.seat, self.own_role)]
        self.assignments.start(fixed)

    def role_changed(self) -> None:
        # Saboteur 2: a Swap your hats on the observer (the public action came first and
        # redrew its role in every assignment); its private new card conditions the set
        self.assignments.fix(self.seat, self.own_role)

    def update(self, event) -> None:
        A = self.assignments
        if event.visible_to is not None:  # the event model uses public events only
            if event.type == EventType.INSPECTION_RESULT and event.seat == self.seat:
                A.fix(int(event.data["target"]), int(event.data["role"]))
            return
        cat = self.tracker.categorize(event)
        # own actions say what the observer believed, not what the others hold
        if cat is not None and cat[0] != self.seat:
            a, c, tg = cat
            A.factor(a, self._logc[:, self._cat_index[c]])
            if c in self._logt and tg >= 0:
                A.pair(a, tg, self._logt[c])
        t = hat_swap_target(event)
        if t is not None:
            A.swap(t)

    def belief(self) -> np.ndarray:
        b = self.assignments.marginals()
        if b is None:  # no assignment fits the evidence (never with true events)
            b = exact_prior(self.config, self.seat, self.own_role, self.held)
        return b

    @classmethod
    def fit(
        cls,
        samples: Sequence[tuple[int, int, int, int]],
        n_roles: int | None = None,
        smoothing: float = 1.0,
        name: str = "bayes-fit",
        *,
        ruleset: Ruleset | str | None = None,
        **kwargs,
    ) -> BayesDetector:
        """Maximum-likelihood event model from training records.

        Args:
            samples: ``(actor_role, category_index, target_role or -1, base_role_mix)`` per
                public event, with the true roles at that moment (Saboteur 2: the roles held
                when the event happened); ``base_role_mix`` is unused for untargeted events
                (pass -1) and for targeted ones is the role of a target drawn uniformly from
                the other players (the base rate).  Category indexes into the ruleset's
                :data:`~.categories.CATEGORY_TABLES` entry (:data:`CATEGORIES` in the base
                game, :data:`X_CATEGORIES` in Saboteur 2).
            n_roles: picks the ruleset with that many roles when ``ruleset`` is not given (2:
                the base game, 6: Saboteur 2; neither given: the base game).
            smoothing: add-``smoothing`` (Laplace) counts.
            ruleset: the :class:`~saboteur_env.engine.ruleset.Ruleset` (or its name) whose
                roles and categories the samples use.
            kwargs: passed to the detector (``max_exact``, ``particles``, ``seed``,
                ``moves``).

        ``P(c | role)`` is the (smoothed) maximum-likelihood categorical; the target factor
        ``f_c(a, b) = P(target role b | actor a, c) / P(role b of a random other player | a)``.

        Raises:
            ValueError: no ruleset has ``n_roles`` roles.
        """
        rules = _ruleset(ruleset, n_roles)
        table = CATEGORY_TABLES[rules.name]
        n_roles = rules.n_roles
        cats, targeted = table.categories, table.targeted
        k = len(cats)
        cc = np.full((n_roles, k), smoothing)
        tc = {c: np.full((n_roles, n_roles), smoothing) for c in targeted}
        bc = {c: np.full((n_roles, n_roles), smoothing) for c in targeted}
        for ar, ci, tr, br in samples:
            cc[ar, ci] += 1
            c = cats[ci]
            if c in tc and tr >= 0:
                tc[c][ar, tr] += 1
                bc[c][ar, br] += 1
        probs = cc / cc.sum(axis=1, keepdims=True)
        ratios = {}
        for c in targeted:
            pt = tc[c] / tc[c].sum(axis=1, keepdims=True)
            pb = bc[c] / bc[c].sum(axis=1, keepdims=True)
            ratios[c] = pt / pb
        return cls(probs, ratios, name=name, **kwargs)


def _ruleset(ruleset: Ruleset | str | None, n_roles: int | None) -> Ruleset:
    """``ruleset`` (a name is looked up), else the ruleset with ``n_roles`` roles, else
    :data:`~saboteur_env.engine.ruleset.BASE`."""
    if isinstance(ruleset, Ruleset):
        return ruleset
    if ruleset is not None:
        return RULESETS[ruleset]
    if n_roles is None:
        return BASE
    for rules in RULESETS.values():
        if rules.n_roles == n_roles:
            return rules
    raise ValueError(
        f"n_roles={n_roles}: no ruleset has that many roles "
        f"({', '.join(f'{r.name}: {r.n_roles}' for r in RULESETS.values())})"
    )
