"""JSON Schemas of citeval's contracts (`citeval schema NAME`), generated from the pydantic
models that read them, never written by hand.

SCHEMAS maps a name to the model's qualified name ("module:Class"). The models of a stage (a
quotes-file line, the gates file) are imported by that name only when their schema is asked
for, so this base layer imports no stage. Register a new contract with one line.
"""

from __future__ import annotations

import importlib
from typing import Any

from evals.errors import UsageError

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"  # what pydantic generates

SCHEMAS: dict[str, str] = {
    "answer": "evals.contract.models:Answer",  # a line of answers.jsonl or of a replay file (DESIGN 3)
    "question": "evals.contract.models:Question",  # a line of questions.jsonl (DESIGN 2)
    "document": "evals.contract.models:Document",  # registry/documents.jsonl
    "version": "evals.contract.models:Version",  # registry/versions.jsonl
    "chunk": "evals.contract.models:Chunk",  # registry/chunks.jsonl
    "judgment": "evals.contract.models:Judgment",  # a line of judgments.jsonl (DESIGN 5)
    "finding": "evals.contract.models:Finding",  # a line of findings.jsonl (DESIGN 4)
    "manifest": "evals.contract.models:RunManifest",  # runs/<run_id>/manifest.json
    "scores": "evals.contract.scores:Scores",  # scores.json (DESIGN 6)
    "quotes": "evals.contract.quotes:QuoteAnswer",  # a line of a quotes file (DESIGN 9)
    "quotes-eval": "evals.contract.quotes:QuotesDocument",  # quotes.json of `citeval quotes eval --out`
    "agreement": "evals.contract.agreement:AgreementDocument",  # agreement.json (DESIGN 6)
    "adjudication": "evals.contract.adjudication:ResolvedLabel",  # a line of `label adjudicate --from FILE`
    "probe": "evals.contract.probe:ProbeDocument",  # probe.json (DESIGN 10)
    "gates": "evals.gate.spec:GatesFile",  # the gates file (TOML, DESIGN 7)
    "config": "evals.contract.config:CitevalConfig",  # citeval.toml, the settings file (DESIGN 7)
}


def schema_names() -> list[str]:
    return sorted(SCHEMAS)


def contract_model(name: str) -> Any:
    """The pydantic model class a schema name stands for; UsageError (listing the names) if none."""
    if name not in SCHEMAS:
        raise UsageError(f"unknown schema {name!r} (known: {', '.join(schema_names())})")
    module, _, qualname = SCHEMAS[name].partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the contract `name`, as the model validates it."""
    schema: dict[str, Any] = contract_model(name).model_json_schema()
    return {"$schema": JSON_SCHEMA_DIALECT, **schema}
