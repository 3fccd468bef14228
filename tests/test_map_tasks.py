"""``saboteur_experiments.backends.map_tasks``: worker processes of a process that runs torch
(a user's torch agent is built in the parent to check its spec) do not hang."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

TASKS = textwrap.dedent(
    """
    import torch

    def net():
        # large enough that torch copies its weights with its thread pool
        m = torch.nn.Linear(1024, 1024)
        m.load_state_dict(torch.nn.Linear(1024, 1024).state_dict())
        return m

    def task(i):
        with torch.no_grad():
            return float(net()(torch.ones(64, 1024)).shape[0]) + i

    def dies(i):
        import os

        if i == 5:
            os._exit(3)  # as a worker killed for its memory
        return i
    """
)
MAIN = textwrap.dedent(
    """
    import torch_tasks
    from saboteur_experiments.backends import map_tasks

    torch_tasks.net()  # the parent's thread pool starts, as when a user's agent is built
    print(map_tasks(torch_tasks.task, [0, 1, 2, 3], workers=2))
    """
)


def _run(tmp_path, script: str) -> subprocess.CompletedProcess:
    """``script`` in a fresh interpreter with the ``torch_tasks`` module importable (by the
    workers too), within a timeout: a hang fails the test."""
    (tmp_path / "torch_tasks.py").write_text(TASKS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    return subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )


def _map(fn: str, items: list[int]) -> str:
    """A script printing ``map_tasks(torch_tasks.<fn>, items, workers=2)``."""
    return (
        "import torch_tasks\n"
        "from saboteur_experiments.backends import map_tasks\n"
        f"print(map_tasks(torch_tasks.{fn}, {items!r}, workers=2))\n"
    )


def test_workers_of_a_process_running_torch_finish(tmp_path):
    # forked from a process whose torch threads had started, the workers waited forever
    out = _run(tmp_path, MAIN)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[64.0, 65.0, 66.0, 67.0]"


def test_a_worker_that_dies_fails_the_call_instead_of_hanging(tmp_path):
    out = _run(tmp_path, _map("dies", list(range(40))))
    assert out.returncode != 0 and "BrokenProcessPool" in out.stderr, out.stderr[-500:]
    out = _run(tmp_path, _map("dies", [0, 1, 2, 3, 4, 6, 7]))
    assert out.stdout.strip() == "[0, 1, 2, 3, 4, 6, 7]", out.stderr[-500:]
