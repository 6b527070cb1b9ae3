"""Edition status, access windows, evidence resolution and chunk ids, worked out by hand."""

import hashlib
from datetime import datetime, timezone

from factories import write_dataset

from evals.contract.models import AclEntry, Document, Evidence, User, Version, VersionStatus
from evals.data.registry import Registry, default_chunk_id


def t(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def version(**kw) -> Version:
    base = {"version_id": "v", "document_id": "d", "revision": 1, "content_sha256": "x",
            "effective_from": "2024-01-01", "effective_to": "2025-01-01"}
    return Version.model_validate({**base, **kw})


def test_status_boundaries():
    v = version()
    assert v.status_at(t("2023-12-31T23:59:59")) is VersionStatus.not_yet_effective
    assert v.status_at(t("2024-01-01T00:00:00")) is VersionStatus.active  # start inclusive
    assert v.status_at(t("2024-12-31T23:59:59")) is VersionStatus.active
    assert v.status_at(t("2025-01-01T00:00:00")) is VersionStatus.superseded  # end exclusive


def test_revoked_and_deleted_win_in_order():
    v = version(revoked_at="2024-06-01", deleted_at="2024-09-01")
    assert v.status_at(t("2024-05-31T23:59:59")) is VersionStatus.active
    assert v.status_at(t("2024-06-01")) is VersionStatus.revoked
    assert v.status_at(t("2024-09-01")) is VersionStatus.deleted
    # deleted before it took effect is still deleted; revoked before effect is revoked
    assert version(deleted_at="2023-01-01").status_at(t("2023-06-01")) is VersionStatus.deleted
    assert version(revoked_at="2023-01-01").status_at(t("2023-06-01")) is VersionStatus.revoked


def test_dates_alone_mean_utc_midnight_and_offsets_count():
    v = version(effective_from="2024-01-01T00:00:00+05:00")  # = 2023-12-31T19:00Z
    assert v.status_at(t("2023-12-31T19:00:00")) is VersionStatus.active
    assert v.status_at(t("2023-12-31T18:59:59")) is VersionStatus.not_yet_effective


def test_acl_windows():
    doc = Document(document_id="d", title="T", acl=[AclEntry.model_validate({"group": "hr", "from": "2024-01-01", "to": "2024-07-01"})])
    reg = Registry([doc, Document(document_id="open", title="O", acl=[])], [], [])
    hr = User(user_id="u", groups=["hr"])
    nurse = User(user_id="n", groups=["clinical"])
    assert not reg.can_read(hr, "d", t("2023-12-31T23:59:59"))
    assert reg.can_read(hr, "d", t("2024-01-01"))
    assert reg.can_read(hr, "d", t("2024-06-30T23:59:59"))
    assert not reg.can_read(hr, "d", t("2024-07-01"))
    assert not reg.can_read(nurse, "d", t("2024-03-01"))
    assert not reg.can_read(None, "d", t("2024-03-01"))
    assert reg.can_read(None, "open", t("2024-03-01"))
    assert not reg.can_read(hr, "missing", t("2024-03-01"))


def test_resolve_evidence(tmp_path):
    reg = Registry.load(write_dataset(tmp_path))
    assert reg.resolve(Evidence(evidence_id="E1", chunk_id="a1-2")).chunk_id == "a1-2"
    assert reg.resolve(Evidence(evidence_id="E1", chunk_id="nope")) is None
    # by version and span: a sub-span of chunk a1-2 (55..78) resolves to it
    assert reg.resolve(Evidence(evidence_id="E1", version_id="train-v1", char_start=60, char_end=70)).chunk_id == "a1-2"
    assert reg.resolve(Evidence(evidence_id="E1", version_id="train-v1", char_start=0, char_end=53)).chunk_id == "a1-1"
    # a span crossing two chunks, or in the gap between them, resolves to nothing
    assert reg.resolve(Evidence(evidence_id="E1", version_id="train-v1", char_start=50, char_end=60)) is None
    assert reg.resolve(Evidence(evidence_id="E1", version_id="train-v1", char_start=53, char_end=55)) is None
    assert reg.resolve(Evidence(evidence_id="E1", version_id="train-v1")) is None
    assert reg.text("train-v1").startswith("Обучение")
    assert reg.active_edition("train", t("2025-03-01")).version_id == "train-v2"
    assert reg.version_for_url("https://docs.example/d/train/v/2#page=3").version_id == "train-v2"
    assert reg.version_for_url("https://docs.example/d/train/v/22") is None


def test_default_chunk_id_follows_design():
    expected = hashlib.sha256("v1\x1fA/B\x1fтекст пункта".encode()).hexdigest()[:16]
    assert default_chunk_id("v1", ["A", "B"], "  текст\n\n  пункта ") == expected
    assert len(expected) == 16


def test_page_checks_are_skipped_only_for_editions_without_pages(tmp_path):
    reg = Registry(
        [Document(document_id="d", title="D", acl=[])],
        [version(version_id="paged"), version(version_id="bare", pages_known=False), version(version_id="said", pages_known=True)],
        [],
        texts_dir=tmp_path / "texts",
    )
    assert [reg.pages_known(v) for v in ("paged", "bare", "said", "unknown")] == [True, False, True, True]
    assert reg.page_check_skip_reason("paged") is None and reg.page_check_skip_reason(None) is None
    assert reg.page_check_skip_reason("bare") == (
        "edition bare has no page information (pages_known: false); page anchor not checked"
    )


def test_source_pdf_only_inside_the_registry(tmp_path):
    folder = tmp_path / "registry"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "a.pdf").write_bytes(b"%PDF")
    (tmp_path / "outside.pdf").write_bytes(b"%PDF")  # exists, but out of the registry
    reg = Registry(
        [],
        [version(version_id="a", source_file="files/a.pdf"), version(version_id="b", source_file="../outside.pdf"),
         version(version_id="c", source_file="files/missing.pdf"), version(version_id="d")],
        [],
        texts_dir=folder / "texts",
    )
    assert reg.source_pdf("a") == (folder / "files" / "a.pdf").resolve()
    assert [reg.source_pdf(v) for v in ("b", "c", "d", "nope")] == [None, None, None, None]
