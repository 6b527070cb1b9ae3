"""`citeval data import alce|ragchecker|ragas FILE --out DATASET`: a peer tool's file → a
citeval dataset (a registry synthesised from its passages, questions with gold) and a replay
file of its answers, so `citeval eval DATASET --backend replay:answers/<kind>.jsonl` runs on it.
See evals/importers/build.py for how the registry is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.errors import UsageError
from evals.importers.alce import read_alce
from evals.importers.build import ImportReport, Passage, PeerRecord, write_dataset
from evals.importers.ragas_file import read_ragas
from evals.importers.ragchecker import read_ragchecker, read_ragchecker_file

PEER_FORMATS = ("alce", "ragchecker", "ragas")


def import_peer(
    kind: str,
    source: Path | str,
    out: Path | str,
    *,
    answers: Path | str | None = None,
    force: bool = False,
    use_ragas: bool | None = None,
    at_most_citations: int | None = None,
) -> ImportReport:
    """Read SOURCE in the peer format KIND and write DATASET (and the replay file).
    at_most_citations (ALCE only): keep each claim's first N markers, as ALCE's eval.py does."""
    source = Path(source)
    options: dict[str, Any] = {}
    overall: dict[str, Any] | None = None
    if at_most_citations is not None and kind != "alce":
        raise UsageError("--at-most-citations is ALCE's option (eval.py --at_most_citations): only for alce")
    if at_most_citations is not None and at_most_citations < 1:
        raise UsageError(f"--at-most-citations must be 1 or more (got {at_most_citations})")
    if kind == "alce":
        records, notes = read_alce(source, at_most_citations=at_most_citations)
        options["at_most_citations"] = at_most_citations
    elif kind == "ragchecker":
        records, notes, overall = read_ragchecker_file(source)
    elif kind == "ragas":
        records, notes = read_ragas(source, use_ragas=use_ragas)
    else:
        raise UsageError(f"unknown format {kind!r} (expected one of {', '.join(PEER_FORMATS)})")
    return write_dataset(kind, source, records, out, answers, force=force, options=options, notes=notes,
                         peer_overall=overall)


__all__ = ["PEER_FORMATS", "ImportReport", "Passage", "PeerRecord", "import_peer", "read_alce", "read_ragas",
           "read_ragchecker", "write_dataset"]
