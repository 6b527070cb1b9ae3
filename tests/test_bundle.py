"""citeval bundle: a portable scored run, read back safely as a --baseline."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from factories import init_eval_run
from typer.testing import CliRunner

from cli import app
from evals.errors import DataError
from evals.store.bundle import INDEX, open_run, write_bundle

SECRET = "s3cr3t-token-value-0042"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory) -> Path:
    """A real run: `citeval init`, then `citeval eval` with its replay answers."""
    root = tmp_path_factory.mktemp("bundle")
    return init_eval_run(root, invoke)


def members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}


def test_bundle_holds_the_run_files_and_an_index(tmp_path, scored_run):
    out = tmp_path / "ci" / "run.tar.gz"
    result = invoke("bundle", str(scored_run), "--out", str(out))
    assert result.exit_code == 0, result.output
    files = members(out)
    assert set(files) == {INDEX, "manifest.json", "answers.jsonl", "findings.jsonl", "judgments.jsonl",
                          "per_question.jsonl", "scores.json", "score.complete"}  # no junit.xml, no judge cache
    index = json.loads(files[INDEX])
    assert index["run_id"] == "main" and index["format"] == 1
    assert files["per_question.jsonl"] == (scored_run / "per_question.jsonl").read_bytes()
    assert not list(tmp_path.glob("ci/*.tmp"))


def test_gate_against_a_bundle_equals_gate_against_the_folder(tmp_path, scored_run):
    bundle = tmp_path / "main.tar.gz"
    write_bundle(scored_run, bundle)
    gates = tmp_path / "g.toml"
    gates.write_text("[baseline]\nmin_shared = 1\ncitation_validity = { max_drop = 0 }\npass_rate = { max_drop = 0 }\n",
                     encoding="utf-8")
    outs = []
    for base in (scored_run, bundle):
        result = invoke("gate", str(scored_run), "--gates", str(gates), "--baseline", str(base), "--format", "json")
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert doc["baseline"]["shared_questions"] == 2 and doc["baseline"]["run_id"] == "main"
        outs.append([(o["rule"], o["status"], o["delta"], o["p_value"]) for o in doc["baseline_outcomes"]])
    assert outs[0] == outs[1] == [("baseline.citation_validity", "pass", 0.0, 1.0), ("baseline.pass_rate", "pass", 0.0, 1.0)]


def test_bundle_writes_no_secret(tmp_path, scored_run, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    for f in scored_run.iterdir():
        (run / f.name).write_bytes(f.read_bytes())
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    manifest["backend"] = "http:https://bot:hunter2pass@rag.example/api?api_key=abc123xyz&lang=ru"
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    answers = (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(answers[0])
    first["raw"] = {"echo": f"Authorization: Bearer {SECRET}"}
    (run / "answers.jsonl").write_text("\n".join([json.dumps(first), *answers[1:]]) + "\n", encoding="utf-8")
    monkeypatch.setenv("RAG_API_TOKEN", SECRET)
    result = write_bundle(run, tmp_path / "b.tar.gz")
    assert result.redactions == 3
    text = b"".join(members(tmp_path / "b.tar.gz").values()).decode("utf-8")
    for secret in (SECRET, "hunter2pass", "abc123xyz"):
        assert secret not in text
    assert "https://***@rag.example/api?api_key=***&lang=ru" in text  # the one marker (evals.store.secrets)


def _tar(path: Path, entries: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return path


def _file(name: str, data: bytes = b"{}") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _link(name: str, target: str) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    return info, b""


@pytest.mark.parametrize(
    ("entries", "fragment"),
    [
        ([_file("../evil.json")], "unexpected member '../evil.json'"),
        ([_file("/tmp/evil.json")], "unexpected member '/tmp/evil.json'"),
        ([_file("sub/scores.json")], "unexpected member 'sub/scores.json'"),
        ([_link("scores.json", "/etc/passwd")], "not a regular file"),
        ([_file("scores.json")], "citeval-bundle.json missing"),
    ],
)
def test_a_hostile_bundle_is_refused_before_anything_is_written(tmp_path, scored_run, entries, fragment):
    bad = _tar(tmp_path / "bad.tar.gz", entries)
    with pytest.raises(DataError) as info:
        with open_run(bad):
            pass
    assert fragment in str(info.value) and str(bad) in str(info.value)
    assert not (tmp_path / "evil.json").exists() and not Path("/tmp/evil.json").exists()
    gate = invoke("gate", str(scored_run), "--baseline", str(bad))
    assert gate.exit_code == 2 and fragment in gate.output


def test_an_altered_bundle_does_not_match_its_index(tmp_path, scored_run):
    good = tmp_path / "good.tar.gz"
    write_bundle(scored_run, good)
    files = members(good)
    files["per_question.jsonl"] = files["per_question.jsonl"].replace(b'"findings": []', b'"findings": ["X"]', 1)
    bad = _tar(tmp_path / "bad.tar.gz", [_file(name, data) for name, data in files.items()])
    with pytest.raises(DataError, match="does not match the bundle index"):
        with open_run(bad):
            pass
    not_tar = tmp_path / "x.tar.gz"
    not_tar.write_bytes(b"not a tar")
    with pytest.raises(DataError, match="not a readable .tar.gz bundle"):
        with open_run(not_tar):
            pass


def test_bundle_of_an_unscored_run_is_a_clear_error(tmp_path):
    run = tmp_path / "r"
    run.mkdir()
    (run / "manifest.json").write_text("{}", encoding="utf-8")
    result = invoke("bundle", str(run), "--out", str(tmp_path / "o.tar.gz"))
    assert result.exit_code == 2 and "per_question.jsonl: file not found" in result.output
    assert not (tmp_path / "o.tar.gz").exists()


def test_a_bundle_repacked_by_hand_with_tar_is_read(tmp_path, scored_run):
    """`tar -czf main.tar.gz -C unpacked .` (a CI step that unpacks and repacks the artifact) names
    the members ./manifest.json … and adds the folder itself as "."."""
    good = tmp_path / "good.tar.gz"
    write_bundle(scored_run, good)
    files = members(good)
    top = tarfile.TarInfo(".")
    top.type = tarfile.DIRTYPE
    repacked = _tar(tmp_path / "repacked.tar.gz", [(top, b""), *(_file("./" + n, d) for n, d in files.items())])
    with open_run(repacked) as folder:
        assert sorted(p.name for p in folder.iterdir()) == sorted(files)
        assert (folder / "scores.json").read_bytes() == files["scores.json"]
    twice = _tar(tmp_path / "twice.tar.gz", [*(_file(n, d) for n, d in files.items()), _file("./scores.json")])
    with pytest.raises(DataError, match="member 'scores.json' appears twice"):
        with open_run(twice):
            pass
