"""Experiments: playing games, tournaments, benchmarks and the ``saboteur`` command line."""
