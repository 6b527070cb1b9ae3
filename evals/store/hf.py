"""Hugging Face `datasets`: question rows read from a dataset folder, result rows written as one.

A team that keeps its question bank (or wants its results) where its ML tooling reads them has
a Hugging Face dataset: a `Dataset.save_to_disk` folder (dataset_info.json, state.json, Arrow
files), or a folder of Parquet / JSON Lines / JSON files that `datasets.load_dataset` reads with
its packaged builders. Both are read offline: the hub is switched off before `datasets` is
imported, the builders' cache goes to a temporary folder removed afterwards (nothing is written
outside the folder a command names), and no progress bar is printed.

`datasets` is an optional extra (`pip install 'citeval[hf]'`, about 21 MB over the base install's
pyarrow and pandas); without it these functions raise UsageError naming the extra.
"""

from __future__ import annotations

import importlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evals.errors import DataError, UsageError
from evals.store.atomic import staged_folder

# the file endings load_dataset's packaged builders read, by builder
_BUILDERS = {".parquet": "parquet", ".pq": "parquet", ".jsonl": "json", ".json": "json", ".ndjson": "json"}
HF_EXTRA = "pip install 'citeval[hf]'"


def _datasets() -> Any:
    """The `datasets` module, with the hub off; UsageError naming the extra when it is missing."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    try:
        # by name: the repository's own datasets/ folder (the demo) must not shadow it for type checkers
        datasets = importlib.import_module("datasets")
    except ImportError:
        raise UsageError(f"Hugging Face datasets need the datasets package: {HF_EXTRA}") from None
    datasets.disable_progress_bars()
    return datasets


def is_saved_dataset(folder: Path) -> bool:
    """A `save_to_disk` folder: a Dataset (state.json) or a DatasetDict (dataset_dict.json)."""
    return (folder / "state.json").is_file() or (folder / "dataset_dict.json").is_file()


def is_hf_folder(folder: Path) -> bool:
    """A folder `iter_hf_rows` reads: saved with save_to_disk, or holding Parquet / JSON files."""
    return folder.is_dir() and (is_saved_dataset(folder) or bool(_data_files(folder)))


def _data_files(folder: Path) -> dict[str, list[str]]:
    """The folder's data files (not in hidden folders), by the builder that reads them."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and path.suffix.lower() in _BUILDERS and not any(p.startswith(".") for p in relative.parts):
            found.setdefault(_BUILDERS[path.suffix.lower()], []).append(str(path))
    return found


def _one_split(loaded: Any, folder: Path, datasets: Any) -> Any:
    """A Dataset, or the only split of a DatasetDict; several splits are a DataError (which to use?)."""
    if isinstance(loaded, datasets.DatasetDict):
        splits = list(loaded.keys())
        if len(splits) != 1:
            raise DataError(folder, None, f"a DatasetDict with {len(splits)} splits ({', '.join(splits)}): save the "
                            "split that holds the questions on its own (dataset['test'].save_to_disk(...))")
        return loaded[splits[0]]
    return loaded


def iter_hf_rows(folder: Path | str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number from 1, {column: value}) for each row of a Hugging Face dataset folder."""
    from evals.store.reading import _plain

    folder = Path(folder)
    datasets = _datasets()
    with tempfile.TemporaryDirectory(prefix="citeval-hf-") as cache:
        try:
            if is_saved_dataset(folder):
                loaded = datasets.load_from_disk(str(folder), keep_in_memory=True)
            else:
                files = _data_files(folder)
                if not files:
                    raise DataError(folder, None, "no save_to_disk dataset and no .parquet / .jsonl / .json file")
                if len(files) > 1:
                    raise DataError(folder, None, f"mixes {' and '.join(sorted(files))} files: keep one format")
                (builder, paths), = files.items()
                loaded = datasets.load_dataset(builder, data_files=paths, split="train", cache_dir=cache,
                                               keep_in_memory=True)
            rows = _one_split(loaded, folder, datasets).to_list()
        except DataError:
            raise
        except Exception as exc:  # noqa: BLE001 - datasets and pyarrow raise many types for a bad folder
            raise DataError(folder, None, f"not a readable Hugging Face dataset ({type(exc).__name__}: {exc})"[:400]
                            ) from None
    for index, row in enumerate(rows, 1):
        yield index, {str(k): _without_nulls(_plain(v)) for k, v in row.items()}


def _without_nulls(value: Any) -> Any:
    """Arrow gives every row of a struct column every key, null where the row had none: drop them,
    so a nested object reads as it was written (`gold` without `answer` has no `answer`)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _cell(value: Any) -> Any:
    """A value Arrow stores in a column of one type: scalars and lists of scalars as they are; an
    object (its keys vary from row to row) as JSON text, as the questions tables keep `gold`."""
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return json.dumps(value, ensure_ascii=False)
    return value


def save_hf_dataset(rows: list[dict[str, Any]], out: Path | str) -> int:
    """Write rows as a Hugging Face dataset (`Dataset.from_list`, `save_to_disk`) into OUT, swapped in
    whole (a half-written OUT is never left); returns the rows written."""
    datasets = _datasets()
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    table = [{c: _cell(row.get(c)) for c in columns} for row in rows]
    try:
        dataset = datasets.Dataset.from_list(table)
    except Exception as exc:  # noqa: BLE001 - pyarrow's type inference raises several types
        raise DataError(Path(out), None, f"rows do not make one table ({type(exc).__name__}: {exc})"[:400]) from None
    with staged_folder(out, existing="replace", point="export-hf:staged") as staging:
        dataset.save_to_disk(str(staging))
    return len(table)
