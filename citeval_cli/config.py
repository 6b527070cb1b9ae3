"""citeval.toml → click's default_map: the settings file feeds every command's options.

Click looks a parameter up on the command line, then in its environment variable, then in the
context's default_map, then takes its default — the precedence DESIGN 7 asks for. The app's
callback reads ./citeval.toml (or --config FILE, or $CITEVAL_CONFIG) and sets the default_map
for the command about to run; a command needs nothing of its own, and records the file
(path and sha256) through `settings_file()`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from citeval_cli.common import handles_errors
from evals.contract.config import SettingsFile
from evals.store.config import LoadedConfig, find_config, load_config

_META_KEY = "citeval.config"
_LLM = ("llm_model", "llm_base_url", "llm_provider", "llm_key_env")
_NOT_IN_PROBE = ("limit",)  # [run] limit is "the first N questions"; probe's is "N of each kind"


def _pick(table: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: table[key] for key in keys if key in table}


def default_map(loaded: LoadedConfig) -> dict[str, Any]:
    """Each command's defaults from the file: its own table over the tables it shares, over the
    top-level keys (see evals.contract.config)."""
    top = loaded.table(None)
    run, score, gate, report, probe, eval_ = (
        loaded.table(name) for name in ("run", "score", "gate", "report", "probe", "eval")
    )
    dataset = _pick(top, "dataset")
    gates = {**_pick(top, "gates"), **_pick(gate, "gates")}
    report_out = {"report_out": report["out"]} if "out" in report else {}
    run_for_probe = {k: v for k, v in run.items() if k not in _NOT_IN_PROBE}
    return {
        "run": {**dataset, **run},
        "score": score,
        "gate": {**gates, **gate},
        "report": {**gates, **report},
        "probe": {**dataset, **gates, **run_for_probe, **probe},
        "eval": {**dataset, **run, **score, **gates, **report_out, **eval_},
        "selftest": dataset,
        "judge": _pick(score, *_LLM),
        "data": {"validate": dataset},
    }


@handles_errors
def apply_config(ctx: typer.Context, path: Path | None) -> None:
    """Read the settings file (--config, else ./citeval.toml when there is one) into `ctx`."""
    found = path if path is not None else find_config()
    if found is None:
        return
    loaded = load_config(found)  # a problem: exit 2 naming the file, the line and the key
    ctx.default_map = default_map(loaded)
    ctx.meta[_META_KEY] = loaded


def settings_file(ctx: typer.Context) -> SettingsFile | None:
    """The settings file the running command read, if any (for the manifest and provenance)."""
    loaded = ctx.meta.get(_META_KEY)
    return None if loaded is None else SettingsFile(str(loaded.path), loaded.sha256)


def from_command_line(ctx: typer.Context, name: str, value: Any) -> Any:
    """`value` when the user gave it (an option or its environment variable), None when it came
    from the settings file: `--resume` keeps the run's own backend and settings files."""
    source = ctx.get_parameter_source(name)
    return None if source is not None and source.name == "DEFAULT_MAP" else value
