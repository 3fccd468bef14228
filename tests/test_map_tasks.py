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


def test_workers_of_a_process_running_torch_finish(tmp_path):
    (tmp_path / "torch_tasks.py").write_text(TASKS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    # forked from a process whose torch threads had started, the workers waited forever
    out = subprocess.run(
        [sys.executable, "-c", MAIN], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[64.0, 65.0, 66.0, 67.0]"


def test_a_worker_that_dies_fails_the_call_instead_of_hanging(tmp_path):
    (tmp_path / "torch_tasks.py").write_text(TASKS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    main = (
        "import torch_tasks\n"
        "from saboteur_experiments.backends import map_tasks\n"
        "print(map_tasks(torch_tasks.dies, list(range(40)), workers=2))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", main], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode != 0 and "BrokenProcessPool" in out.stderr, out.stderr[-500:]
    ok = (
        "import torch_tasks\n"
        "from saboteur_experiments.backends import map_tasks\n"
        "print(map_tasks(torch_tasks.dies, [0, 1, 2, 3, 4, 6, 7], workers=2))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", ok], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.strip() == "[0, 1, 2, 3, 4, 6, 7]", out.stderr[-500:]
