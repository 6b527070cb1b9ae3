"""Names of a package that load their module on first use (PEP 562).

A worker process that scores shards imports `evals.score.scoring`; with the package's names bound
eagerly, that import alone pulled in the backends (anthropic, bm25s), scipy and the ingest stack,
about 135 MB of every process. Here a name is looked up in its module when first asked for.

Two public functions share their name with a module or package (`evals.evaluate`, `evals.ingest`).
Importing a submodule binds its name on the package; the package keeps the function instead,
as it did when the names were bound eagerly (`from evals.evaluate import evaluate` still reads
the module).
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping

__all__ = ["lazy_names"]


class _Package(types.ModuleType):
    """A package module whose public functions win over submodules of the same name."""

    _functions_over_modules: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in type(self)._functions_over_modules:
            return
        super().__setattr__(name, value)


def lazy_names(package: str, names: Mapping[str, str]) -> Callable[[str], object]:
    """The module `__getattr__` of `package`: each name in `names` comes from its module (a
    submodule's name relative to the package) when first asked for."""
    module = sys.modules[package]
    namespace = vars(module)
    # a function sharing its name with a submodule (`evals.evaluate`, `evals.ingest`) stays the function
    shadowed = frozenset(names)
    module.__class__ = type("Package", (_Package,), {"_functions_over_modules": shadowed})

    def __getattr__(name: str) -> object:
        source = names.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{source}", package), name)
        namespace[name] = value  # later look-ups skip this function
        return value

    return __getattr__
