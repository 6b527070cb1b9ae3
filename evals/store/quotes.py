"""Reading quotes files (DESIGN 9) with the file:line errors every citeval input has."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from evals.contract.quotes import QuoteAnswer
from evals.errors import DataError, DatasetInvalid
from evals.store.jsonl import read_jsonl

QUOTES_DIR = "quotes"


def quote_files(path: Path | str) -> list[Path]:
    """A quotes file itself, every `quotes/*.jsonl` of a dataset folder, or every *.jsonl of
    another folder."""
    root = Path(path)
    if root.is_dir():
        is_dataset = (root / "registry").is_dir() or (root / "questions.jsonl").exists()
        # a dataset's quotes live in quotes/; any other folder is taken as a folder of quotes files
        folder = root / QUOTES_DIR if (root / QUOTES_DIR).is_dir() or is_dataset else root
        files = sorted(folder.glob("*.jsonl"))
        if not files:
            raise DataError(folder, None, "no quotes file (*.jsonl) in this folder")
        return files
    if not root.exists():
        raise DataError(root, None, "file not found")
    return [root]


def answer_problems(path: Path | str, lineno: int, answer: QuoteAnswer) -> list[DataError]:
    """What a schema cannot say: citation ids unique, one gold entry per citation, spans inside
    answer_text, gold spans that overlap only when identical."""
    problems: list[DataError] = []
    seen: dict[str, int] = {}
    for i, citation in enumerate(answer.citations):
        if citation.citation_id in seen:
            problems.append(
                DataError(
                    path,
                    lineno,
                    f"duplicate citation_id {citation.citation_id!r} (first at citations.{seen[citation.citation_id]})",
                    f"citations.{i}.citation_id",
                )
            )
        seen.setdefault(citation.citation_id, i)
    if answer.gold is None:
        return problems
    length = len(answer.answer_text)
    gold_seen: set[str] = set()
    for i, entry in enumerate(answer.gold):
        where = f"gold.{i}"
        if entry.citation_id not in seen:
            problems.append(DataError(path, lineno, f"no citation {entry.citation_id!r} in this answer", where))
        elif entry.citation_id in gold_seen:
            problems.append(DataError(path, lineno, f"second gold entry for {entry.citation_id!r}", where))
        gold_seen.add(entry.citation_id)
        if entry.span is not None and entry.span[1] > length:
            problems.append(
                DataError(
                    path,
                    lineno,
                    f"span {list(entry.span)} ends past answer_text ({length} characters)",
                    where + ".span",
                )
            )
    placed = [(i, e) for i, e in enumerate(answer.gold) if e.span is not None]
    for k, (_, a) in enumerate(placed):
        for j, b in placed[k + 1 :]:
            assert a.span is not None and b.span is not None
            if a.span != b.span and a.span[0] < b.span[1] and b.span[0] < a.span[1]:
                problems.append(
                    DataError(
                        path,
                        lineno,
                        f"gold spans of {a.citation_id!r} {list(a.span)} and {b.citation_id!r} {list(b.span)} overlap "
                        "(spans of one answer never overlap unless identical)",
                        f"gold.{j}.span",
                    )
                )
    missing = [cid for cid in seen if cid not in gold_seen]
    if missing:
        problems.append(DataError(path, lineno, f"no gold entry for citation(s) {', '.join(missing)}", "gold"))
    return problems


def check_quotes_file(
    path: Path | str, on_error: Callable[[DataError], None], seen_ids: dict[str, str] | None = None
) -> list[QuoteAnswer]:
    """Every valid answer of one file; each problem (schema, references, duplicate answer_id
    across the files sharing seen_ids) goes to on_error."""
    seen_ids = {} if seen_ids is None else seen_ids
    out: list[QuoteAnswer] = []
    for lineno, answer in read_jsonl(path, QuoteAnswer, on_error):
        problems = answer_problems(path, lineno, answer)
        if answer.answer_id in seen_ids:
            problems.append(
                DataError(
                    path, lineno, f"duplicate answer_id {answer.answer_id!r} (first at {seen_ids[answer.answer_id]})"
                )
            )
        for problem in problems:
            on_error(problem)
        if not problems:
            seen_ids[answer.answer_id] = f"{path}:{lineno}"
            out.append(answer)
    return out


def read_quotes(path: Path | str) -> list[QuoteAnswer]:
    """Every answer of a quotes file or dataset; any bad line raises DatasetInvalid listing all
    problems (the first names file, line and field), so nothing is evaluated on half the data."""
    problems: list[DataError] = []
    seen_ids: dict[str, str] = {}
    answers: list[QuoteAnswer] = []
    for file in quote_files(path):
        answers.extend(check_quotes_file(file, problems.append, seen_ids))
    if problems:
        if len(problems) == 1:
            raise problems[0]
        raise DatasetInvalid(problems)
    if not answers:
        raise DataError(path, None, "no answers in the quotes file(s)")
    return answers


def validate_quotes_folder(dataset: Path | str, problems: list[DataError]) -> int:
    """For `citeval data validate`: check DATASET/quotes/*.jsonl when the folder exists;
    returns how many answers passed."""
    folder = Path(dataset) / QUOTES_DIR
    if not folder.is_dir():
        return 0
    seen_ids: dict[str, str] = {}
    return sum(len(check_quotes_file(f, problems.append, seen_ids)) for f in sorted(folder.glob("*.jsonl")))
