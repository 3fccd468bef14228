"""The evaluation module (DESIGN 9): deal splits, deal-clustered statistics, protocols, ratings.

Every figure the project publishes comes from here: a named protocol
(:mod:`~experiments.evaluation.protocols`: ``role-probe`` or ``mixed``), deal seeds from the test
split (:mod:`~experiments.evaluation.splits`), deal-clustered 95% intervals
(:mod:`~experiments.evaluation.stats`) and team-aware ratings
(:mod:`~experiments.evaluation.team`).  ``saboteur tournament``, ``saboteur evaluate``,
``saboteur train --evaluate`` and ``python -m experiments.reference`` all use it.
"""
