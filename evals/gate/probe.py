"""The former entry points of a gates file with only a `[probe]` table, kept for callers that
still pick one (cli.py's `gate` command): `run_gate` gates every gates file now, such a file
included, so `gate_probe_run` is `run_gate` and `is_probe_only_gates` only says which kind of
file it is."""

from __future__ import annotations

from pathlib import Path

from evals.errors import DataError
from evals.gate.config import load_gates
from evals.gate.core import run_gate

__all__ = ["gate_probe_run", "is_probe_only_gates"]

gate_probe_run = run_gate


def is_probe_only_gates(path: Path | str | None) -> bool:
    """Whether the gates file holds a `[probe]` table and no rule on scores. An unreadable or
    invalid file is not probe-only: `run_gate` reports what is wrong with it."""
    if path is None:
        return False
    try:
        return load_gates(path, allow_probe_only=True).probe_only
    except DataError:
        return False
