"""The dataset a run is judged against (DESIGN 2): the provenance registry read into memory
(`Registry`: documents, editions, chunks, access rules, each edition's status at a time),
`citeval data validate`, and page images of cited regions for reports and Label Studio.

The on-disk records themselves are typed in `evals.contract.models`; building a registry from
Markdown, PDF or DoclingDocument editions is the ingest stage (`evals.ingest`).
"""

# Submodules load on first use (PEP 562): scoring a run needs the registry, not validation.
from __future__ import annotations

from typing import TYPE_CHECKING

from evals._lazy import lazy_names

if TYPE_CHECKING:
    from evals.data.registry import Registry, default_chunk_id, sha256_text
    from evals.data.validate import (
        DatasetNotValid,
        ValidationReport,
        require_valid,
        validate_dataset,
        validate_registry,
    )

_LAZY = {
    "Registry": "registry",
    "default_chunk_id": "registry",
    "sha256_text": "registry",
    "DatasetNotValid": "validate",
    "ValidationReport": "validate",
    "require_valid": "validate",
    "validate_dataset": "validate",
    "validate_registry": "validate",
}

__getattr__ = lazy_names(__name__, _LAZY)

__all__ = list(_LAZY)
