"""A bundle that inflates (issue 33): read back as a --baseline, its decompressed stream is bounded
as it is read — the total, each member, and the ratio to the compressed bytes — so a small
archive that expands to hundreds of MB is refused with exit 2 before it is held in memory."""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

import pytest
from factories import init_eval_run
from typer.testing import CliRunner

from cli import app
from evals.errors import DataError
from evals.store.bundle import BUNDLE_MAX_ENV, INDEX, RATIO_FLOOR, open_run, write_bundle


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("bomb")
    return init_eval_run(root, invoke)


def _zeros_bundle(path: Path, size: int) -> Path:
    """A .tar.gz whose answers.jsonl is `size` zero bytes (compresses about 1,000×)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        index = tarfile.TarInfo(INDEX)
        index.size = 2
        tar.addfile(index, io.BytesIO(b"{}"))
        info = tarfile.TarInfo("answers.jsonl")
        info.size = size
        tar.addfile(info, _Zeros(size))
    path.write_bytes(gzip.compress(raw.getvalue(), compresslevel=9))
    return path


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def test_a_bundle_inflating_a_thousand_times_is_refused_with_exit_2(tmp_path, scored_run):
    bomb = _zeros_bundle(tmp_path / "bomb.tar.gz", 4 * RATIO_FLOOR)
    assert bomb.stat().st_size < RATIO_FLOOR // 200  # 64 MiB from some tens of KB
    with pytest.raises(DataError, match="inflates over 200×"):
        with open_run(bomb):
            pass
    gate = invoke("gate", str(scored_run), "--baseline", str(bomb))
    assert gate.exit_code == 2, gate.output
    assert str(bomb) in gate.output and "decompression bomb" in gate.output and "Traceback" not in gate.output


def test_the_total_bound_counts_what_is_read_not_what_headers_say(tmp_path, scored_run, monkeypatch):
    good = tmp_path / "good.tar.gz"
    write_bundle(scored_run, good)
    with open_run(good):
        pass  # within the default bound
    monkeypatch.setenv(BUNDLE_MAX_ENV, "4096")
    with pytest.raises(DataError, match=f"more than 4096 bytes.*{BUNDLE_MAX_ENV}"):
        with open_run(good):
            pass


def test_a_huge_pax_header_is_bounded_too(tmp_path, monkeypatch):
    """tarfile reads a pax header whole: the stream bound stops it, not the member's size."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo(INDEX)
        info.size = 2
        info.pax_headers = {"comment": "x" * 200_000}
        tar.addfile(info, io.BytesIO(b"{}"))
    bundle = tmp_path / "pax.tar.gz"
    bundle.write_bytes(gzip.compress(raw.getvalue()))
    monkeypatch.setenv(BUNDLE_MAX_ENV, "100000")
    with pytest.raises(DataError, match="bundle refused: more than 100000 bytes"):
        with open_run(bundle):
            pass


def test_a_bundle_of_another_compression_is_still_read(tmp_path, scored_run):
    good = tmp_path / "good.tar.gz"
    write_bundle(scored_run, good)
    for mode, name in (("w:xz", "b.tar.xz"), ("w:bz2", "b.tar.bz2"), ("w", "b.tar")):
        with tarfile.open(good) as src, tarfile.open(tmp_path / name, mode) as dst:
            for member in src.getmembers():
                dst.addfile(member, src.extractfile(member))
        with open_run(tmp_path / name) as run:
            assert (run / "scores.json").read_bytes() == (scored_run / "scores.json").read_bytes()


@pytest.mark.parametrize("index", [b"[" * 100_000 + b"]" * 100_000, b"[1, 2]", b'{"files": {}, "files": {}}',
                                   b"\xff\xfe"], ids=["nested-100000-deep", "a-list", "duplicate-key", "not-utf8"])
def test_a_hostile_bundle_index_is_a_clean_refusal(index, tmp_path, scored_run):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo(INDEX)
        info.size = len(index)
        tar.addfile(info, io.BytesIO(index))
    bundle = tmp_path / "index.tar.gz"
    bundle.write_bytes(gzip.compress(raw.getvalue()))
    gate = invoke("gate", str(scored_run), "--baseline", str(bundle))
    assert gate.exit_code == 2, gate.output
    assert f"{INDEX} is not a bundle index" in gate.output and "a bug in citeval" not in gate.output
