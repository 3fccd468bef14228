"""The evaluation module (DESIGN 9): deal splits, deal-clustered statistics, protocols, ratings.

Every figure the project publishes comes from here: a named protocol
(:mod:`~saboteur_experiments.evaluation.protocols`: ``role-probe`` or ``mixed``), deal seeds from
the test split (:mod:`~saboteur_experiments.evaluation.splits`), deal-clustered 95% intervals
(:mod:`~saboteur_experiments.evaluation.stats`) and team-aware ratings
(:mod:`~saboteur_experiments.evaluation.team`).  ``saboteur tournament``, ``saboteur evaluate``,
``saboteur train --evaluate`` and ``python -m saboteur_experiments.reference`` all use it.
"""
