"""The store layer's single rules (issue 27): one reading of an answers.jsonl line and its torn last
line, one secret scrubber with one marker, one folder swap, and the crash log the CLI writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from answer_server import AnswerServer
from factories import write_dataset

from evals.errors import DataError, UsageError
from evals.run.runner import resume_run, start_run
from evals.store.answerindex import AnswerIndex
from evals.store.answers import answers_sha256, read_answers, repair_answers
from evals.store.atomic import STAGING_PREFIX, staged_folder, write_crash_log
from evals.store.reading import open_binary, read_file_bytes
from evals.store.secrets import is_scrubbed, scrub, scrub_counted, scrub_spec

GOOD = [
    {"question_id": "q1", "status": "answered", "answer_text": "one"},
    {"question_id": "q2", "status": "abstained", "abstain_reason": "no document"},
]
COMPLETE_LAST = b'{"question_id": "q3", "status": "answered", "answer_text": "three"}'


def _answers_file(tmp_path: Path, last: bytes) -> tuple[Path, bytes]:
    head = "".join(json.dumps(a) + "\n" for a in GOOD).encode("utf-8")
    path = tmp_path / "answers.jsonl"
    path.write_bytes(head + last)
    return path, head


@pytest.mark.parametrize(
    ("last", "torn"),
    [
        (b'{"question_id": "q3", "sta', True),  # cut by a kill
        (b"[1, 2]", True),  # JSON, but no answer object: torn for every reader alike
        (b'{"question_id": "q3", "status": "answered", "answer_text": "\xc3', True),  # cut inside a character
        (COMPLETE_LAST, False),  # a whole answer that only lacks its newline
    ],
)
def test_every_reader_of_answers_treats_an_unended_last_line_alike(tmp_path: Path, last: bytes, torn: bool) -> None:
    path, head = _answers_file(tmp_path, last)
    counted = head if torn else head + last
    expected_ids = ["q1", "q2"] if torn else ["q1", "q2", "q3"]

    assert list(read_answers(path)) == expected_ids
    index = AnswerIndex(path)
    assert len(index) == len(expected_ids)
    assert [where is not None for where in index.locate(["q1", "q2", "q3"])] == [True, True, not torn]
    assert answers_sha256(path) == hashlib.sha256(counted).hexdigest()
    assert path.read_bytes() == head + last  # reading never writes

    assert list(repair_answers(path)) == expected_ids
    assert path.read_bytes() == (head if torn else head + last + b"\n")
    assert answers_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()  # the same answers, same hash


def test_a_bad_line_that_is_not_last_is_an_error_naming_its_line(tmp_path: Path) -> None:
    path, head = _answers_file(tmp_path, b"[1, 2]\n" + COMPLETE_LAST + b"\n")
    with pytest.raises(DataError, match=r"answers.jsonl:3: expected an Answer object, got an array"):
        read_answers(path)
    with pytest.raises(DataError, match=r"answers.jsonl:3: expected an Answer object"):
        AnswerIndex(path)


def test_one_scrubber_one_marker() -> None:
    text = "GET https://bot:pw@rag.example/x?api_key=abc123&lang=ru with Authorization: Bearer sk-secret-77"
    scrubbed, count = scrub_counted(text, ["Bearer sk-secret-77", "sk-secret-77"], urls=True)
    # the header goes whole (longest first), then the URL's credentials and its secret query value
    assert scrubbed == "GET https://***@rag.example/x?api_key=***&lang=ru with Authorization: ***"
    assert count == 3
    assert scrub("reply: sk-secret-77", ["sk-secret-77", None, ""]) == "reply: ***"
    assert scrub("a plain answer", ["a"], min_length=4) == "a plain answer"  # too short to be a secret
    assert scrub("https://u:p@host/x?token=t", []) == "https://u:p@host/x?token=t"  # URLs only when asked


def test_a_spec_scrubbed_only_in_its_query_is_still_known_as_scrubbed() -> None:
    spec = scrub_spec("http:https://api.example/answer?api_key=k-123&lang=ru")
    assert spec == "http:https://api.example/answer?api_key=%2A%2A%2A&lang=ru"
    assert is_scrubbed(spec) and is_scrubbed(scrub_spec("http:https://bob:pw@api.example/x"))
    assert not is_scrubbed(scrub_spec("http:https://api.example/answer?lang=ru"))


def test_resume_asks_for_a_backend_whose_query_secret_was_scrubbed(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    with AnswerServer() as server:
        result = start_run(ds, f"http:{server.url}?api_key=sk-query-5511", out=tmp_path / "runs", run_id="s")
        with pytest.raises(UsageError, match="secrets removed; pass --backend again"):
            resume_run(result.run_dir)


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file()}


def test_one_folder_swap_replaces_refuses_or_merges(tmp_path: Path) -> None:
    target = tmp_path / "registry"
    target.mkdir()
    (target / "old.txt").write_text("old", encoding="utf-8")
    (tmp_path / f"{STAGING_PREFIX}registry-0badf00d").mkdir()  # a killed earlier attempt's leftover

    with staged_folder(target) as stage:
        (stage / "new.txt").write_text("new", encoding="utf-8")
    assert _files(target) == {"new.txt": "new"}

    with pytest.raises(ValueError), staged_folder(target) as stage:
        (stage / "half.txt").write_text("half", encoding="utf-8")
        raise ValueError("validation failed")
    assert _files(target) == {"new.txt": "new"}  # a failed fill leaves the old folder as it was

    with pytest.raises(UsageError, match="exists already"), staged_folder(target, existing="refuse") as stage:
        (stage / "x.txt").write_text("x", encoding="utf-8")
    assert _files(target) == {"new.txt": "new"}

    (target / "mine.txt").write_text("kept", encoding="utf-8")
    with staged_folder(target, existing="merge") as stage:
        (stage / "sub").mkdir()
        (stage / "sub" / "a.txt").write_text("a", encoding="utf-8")
        (stage / "new.txt").write_text("newer", encoding="utf-8")
    assert _files(target) == {"mine.txt": "kept", "new.txt": "newer", "sub/a.txt": "a"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["registry"]  # no staging folder left


def test_the_crash_log_holds_any_traceback_and_a_missing_folder_is_an_oserror(tmp_path: Path) -> None:
    log = write_crash_log(tmp_path, "Traceback: bad \ud800 text\n")
    assert log.parent == tmp_path and log.name.startswith("citeval-error-") and log.suffix == ".log"
    assert log.read_bytes() == b"Traceback: bad ? text\n"
    with pytest.raises(OSError):
        write_crash_log(tmp_path / "absent", "x")


def test_a_file_that_cannot_be_read_is_a_data_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"gates.toml: gates file not found"):
        read_file_bytes(tmp_path / "gates.toml", missing="gates file not found")
    with pytest.raises(DataError, match=r"doc.pdf: file not found"):
        open_binary(tmp_path / "doc.pdf")
    with pytest.raises(DataError, match="is a folder, not a file"):
        open_binary(tmp_path)


def _with_umask(mask: int):
    import contextlib
    import os

    @contextlib.contextmanager
    def scope():
        old = os.umask(mask)
        try:
            yield
        finally:
            os.umask(old)

    return scope()


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_written_files_get_the_mode_the_umask_gives_any_new_file(tmp_path: Path, mask: int, mode: int) -> None:
    import stat

    from evals.store.atomic import write_text_atomic

    with _with_umask(mask):
        write_text_atomic(tmp_path / "scores.json", "{}\n")
        (tmp_path / "plain.txt").write_text("x")  # what open() makes: the mode to match
    assert stat.S_IMODE((tmp_path / "scores.json").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode) == mode


def test_a_report_and_scores_are_readable_by_others_under_umask_022(tmp_path: Path) -> None:
    import stat

    from evals.evaluate import evaluate
    from evals.run.runner import RunOptions

    demo = Path(__file__).resolve().parents[1] / "datasets" / "demo"
    with _with_umask(0o022):
        evaluate(demo, "reference", out=tmp_path / "runs", run_id="modes", report=tmp_path / "report.html",
                 options=RunOptions(limit=5))
    for path in (tmp_path / "report.html", tmp_path / "runs" / "modes" / "scores.json",
                 tmp_path / "runs" / "modes" / "junit.xml", tmp_path / "runs" / "modes" / "manifest.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
