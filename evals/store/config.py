"""Finding, reading and checking citeval.toml (the model: evals.contract.config).

    config = load_config(find_config())            # None when the folder has no citeval.toml
    config.table("run")                             # {"backend": "reference", "out": "/abs/runs"}

Every problem of the file is a DataError naming the file, the line and the key (all of them at
once: `DataErrors`); paths are made absolute against the file's folder, so the settings mean
the same whichever folder a command runs in.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from evals.contract.config import CONFIG_FILE_NAME, CitevalConfig, path_keys
from evals.errors import DataError, DataErrors
from evals.store.reading import TomlDocument, read_toml_document

CONFIG_ENV = "CITEVAL_CONFIG"  # a settings file to read instead of ./citeval.toml

_TYPES = {
    "int_type": "must be an integer", "float_type": "must be a number", "bool_type": "must be true or false",
    "string_type": "must be a string", "model_type": "must be a table", "dict_type": "must be a table",
    "int_from_float": "must be an integer",
}


def find_config(folder: Path | str | None = None) -> Path | None:
    """citeval.toml of `folder` (default: the current folder), if there is one."""
    path = Path(folder) / CONFIG_FILE_NAME if folder is not None else Path(CONFIG_FILE_NAME)
    return path if path.is_file() else None


@dataclass(frozen=True)
class LoadedConfig:
    path: Path  # absolute
    sha256: str
    config: CitevalConfig

    def table(self, name: str | None) -> dict[str, Any]:
        """The keys a table (None: the top level, without the tables) sets, paths made absolute."""
        model: BaseModel = self.config if name is None else getattr(self.config, name)
        given = {k: v for k, v in model.model_dump(exclude_unset=True).items() if not isinstance(v, dict)}
        for key in path_keys(type(model)) & given.keys():
            if given[key] is not None:
                given[key] = str((self.path.parent / Path(given[key]).expanduser()).resolve())
        return given


def load_config(path: Path | str) -> LoadedConfig:
    """Read and check a settings file; any unknown key, wrong type or bad value is a DataError."""
    doc = read_toml_document(path, missing="settings file not found")
    try:
        config = CitevalConfig.model_validate(doc.data)
    except ValidationError as exc:
        problems = sorted((_problem(doc, error) for error in exc.errors(include_url=False)),
                          key=lambda problem: problem.line or 0)
        raise (problems[0] if len(problems) == 1 else DataErrors(problems)) from None
    return LoadedConfig(Path(path).resolve(), doc.sha256, config)


def _problem(doc: TomlDocument, error: ErrorDetails) -> DataError:
    loc = [str(part) for part in error["loc"]]
    section, key = loc[:-1], loc[-1] if loc else None
    line = doc.line(section, key)
    if line is None and key is not None:
        line = doc.line([*section, key], None) or doc.line(section, None)  # a table's header
    return DataError(doc.path, line, _message(error, section), field=".".join(loc) or None)


def _known(section: list[str]) -> list[str]:
    model: Any = CitevalConfig
    for name in section:
        model = model.model_fields[name].annotation
    def table(name: str) -> bool:
        annotation = model.model_fields[name].annotation
        return isinstance(annotation, type) and issubclass(annotation, BaseModel)

    return [f"[{name}]" if table(name) else name for name in model.model_fields]


def _message(error: ErrorDetails, section: list[str]) -> str:
    kind = error["type"]
    got = json.dumps(error.get("input"), ensure_ascii=False, default=str)[:60]
    if kind == "extra_forbidden":
        where = f"in [{'.'.join(section)}]" if section else "at the top level"
        known = _known(section)
        near = difflib.get_close_matches(str(error["loc"][-1]), [k.strip("[]") for k in known], n=1)
        hint = f"did you mean {near[0]}? " if near else ""
        return f"unknown key {where} ({hint}known: {', '.join(known)})"
    if kind in _TYPES:
        return f"{_TYPES[kind]} (got {got})"
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        return f"must be one of {expected.replace(chr(39), '')} (got {got})"
    return f"{error['msg'].removeprefix('Value error, ')} (got {got})"
