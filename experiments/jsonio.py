"""The summary files' JSON: strict JSON of the experiments' results.

Every summary a command writes (tournament, evaluate, bluff, report, reference, train
--evaluate) goes through :func:`write_json`, so each holds plain JSON values: numpy values as
numbers and lists, and no ``NaN`` (an estimate with no data, e.g. a role no agent was dealt),
which ``JSON.parse``, ``jq`` and strict parsers refuse, but ``null``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def json_ready(obj: Any) -> Any:
    """``obj`` (dicts, lists, tuples, numbers, numpy scalars and arrays) as plain JSON values:
    numpy values as Python ones, tuples as lists, and every float that is not finite (NaN, an
    estimate with no data; +-inf) as ``None``.  Dict keys are kept; anything else is returned
    as it is."""
    if isinstance(obj, dict):
        return {k: json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return json_ready(obj.tolist())
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_json(
    path: str | Path, obj: Any, indent: int = 1, default: Callable[[Any], Any] | None = None
) -> None:
    """Write ``obj`` to ``path`` as strict JSON (:func:`json_ready`, then ``json.dumps`` with
    ``allow_nan=False``) and a final newline.  ``default``: as ``json.dumps``'s, for objects
    JSON has no form of (e.g. ``str``).

    Raises:
        OSError: the file cannot be written.  TypeError: a value has no JSON form and no
            ``default``.
    """
    text = json.dumps(json_ready(obj), indent=indent, default=default, allow_nan=False)
    Path(path).write_text(text + "\n")
