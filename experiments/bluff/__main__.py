"""``python -m saboteur_experiments.bluff``: the same as ``saboteur bluff``."""

from .cli import main

main()
