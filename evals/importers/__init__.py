"""`citeval data import alce|ragchecker|ragas FILE --out DATASET`: a peer tool's file → a
citeval dataset (a registry synthesised from its passages, questions with gold) and a replay
file of its answers, so `citeval eval DATASET --backend replay:answers/<kind>.jsonl` runs on it.
See evals/importers/build.py for how the registry is made."""

from __future__ import annotations

from pathlib import Path

from evals.errors import UsageError
from evals.importers.alce import read_alce
from evals.importers.build import ImportReport, Passage, PeerRecord, write_dataset
from evals.importers.ragas_file import read_ragas
from evals.importers.ragchecker import read_ragchecker

PEER_FORMATS = ("alce", "ragchecker", "ragas")


def import_peer(
    kind: str,
    source: Path | str,
    out: Path | str,
    *,
    answers: Path | str | None = None,
    force: bool = False,
    use_ragas: bool | None = None,
) -> ImportReport:
    """Read SOURCE in the peer format KIND and write DATASET (and the replay file)."""
    source = Path(source)
    if kind == "alce":
        records, notes = read_alce(source)
    elif kind == "ragchecker":
        records, notes = read_ragchecker(source)
    elif kind == "ragas":
        records, notes = read_ragas(source, use_ragas=use_ragas)
    else:
        raise UsageError(f"unknown format {kind!r} (expected one of {', '.join(PEER_FORMATS)})")
    report = write_dataset(kind, source, records, out, answers, force=force)
    report.notes.extend(notes)
    return report


__all__ = ["PEER_FORMATS", "ImportReport", "Passage", "PeerRecord", "import_peer", "read_alce", "read_ragas",
           "read_ragchecker", "write_dataset"]
