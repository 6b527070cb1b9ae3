"""Functions named by their qualified name, looked up on first use.

The contract's tables (evals.contract.metrics, evals.contract.findings) say which function of a
stage computes a metric or emits a finding; a base layer must not import a stage, so the table
holds the name (`evals.score.metrics.citation_validity`, `evals.score.checks.EvidenceChecker`)
and this module finds the object when someone asks for it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["resolve"]


def resolve(qualified_name: str) -> Any:
    """The object a dotted name names: the longest importable module prefix, then attributes
    (a class's method too). ImportError or AttributeError when the name names nothing."""
    parts = qualified_name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            found: Any = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and not module_name.startswith(exc.name):
                raise  # the module exists, but something it imports does not
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(f"{qualified_name!r} names no importable module")
