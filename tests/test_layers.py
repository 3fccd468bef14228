"""DESIGN 1, 8: the rules engine and the encoding import no RL library, and the env adapter
holds no rule of its own."""

import subprocess
import sys

import saboteur_env

BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pettingzoo", "gymnasium", "torch"):
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Block())
"""


def test_engine_and_encoding_import_without_pettingzoo_or_gymnasium():
    code = (
        BLOCK
        + """
import saboteur_env.engine as E
import saboteur_env.encoding as C
g = E.Game(E.GameConfig(expansion=True, num_players=4), seed=1)
m = C.Codec(g.config).mask(g)
assert m.sum() > 0
assert not any(k.split(".")[0] in ("pettingzoo", "gymnasium") for k in sys.modules)
print("ok")
"""
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_blocked_pettingzoo_really_blocks_the_adapter():
    """The check above can fail: the same blocker stops the env adapter."""
    code = BLOCK + "import saboteur_env\nsaboteur_env.raw_env()\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0 and "blocked" in out.stderr


def test_env_attributes_are_the_functions_in_any_order():
    """``saboteur_env.env`` is the function whichever module a program imports first."""
    firsts = (
        "import saboteur_env",
        "import saboteur_env.aec",
        "import saboteur_env.saboteur_v0",
        "from saboteur_env.aec import raw_env",
        "from saboteur_env import saboteur_v0",
        "import saboteur_env.engine",
    )
    for first in firsts:
        code = (
            first + "\nimport saboteur_env\n"
            "e = saboteur_env.env(num_players=3); e.reset(seed=1)\n"
            "assert callable(saboteur_env.raw_env)\n"
            "assert saboteur_env.saboteur_v0.env is saboteur_env.env\nprint('ok')\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip() == "ok", (first, out.stderr)
    assert callable(saboteur_env.raw_env) and callable(saboteur_env.env)
