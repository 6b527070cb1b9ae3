"""The file system says no (issue 33): links, special files, a full disk, a read-only folder, a name
too long. Each is made real — a symlink, a FIFO, /dev/zero, a small tmpfs (or the process's
file-size limit where no tmpfs can be mounted), a read-only mount — and each ends in one line and
exit 2 naming the path, with nothing torn: appends whole or not at all, no staging folder or
OUT.tmp left behind, the files readers use unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from factories import scored_run, write_dataset, write_replay
from servers.llm import start_fake_llm

from evals.label.tasks import TaskBuilder
from evals.store.runfolder import RunFolder

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "cli.py")]
FAKE_KEY = "AKIAIOSFODNN7EXAMPLE"


def cli(*args: str, cwd: Path, fsize: int | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """citeval in a child; fsize: the child's file-size limit in bytes (RLIMIT_FSIZE)."""
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(ROOT), "CITEVAL_LOG_DIR": str(cwd)}

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=limit)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def clean_refusal(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, one line on stderr, no traceback, the words said."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr and "a bug in citeval" not in done.stderr, done.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture()
def scored(tmp_path: Path) -> Path:
    return scored_run(tmp_path, cli)


def export_for(run: Path, comment: str = "") -> Path:
    """A Label Studio export: rater 7 answers should_abstain for every question of the run."""
    tasks = {t["data"]["question_id"]: t for t in TaskBuilder(RunFolder(run)).tasks()}
    result = [{"from_name": "should_abstain", "to_name": "answer", "type": "choices", "value": {"choices": ["no"]}}]
    if comment:
        result.append({"from_name": "comment", "to_name": "answer", "type": "textarea", "value": {"text": [comment]}})
    export = [{"id": i, "data": t["data"], "meta": t["meta"], "annotations": [
        {"id": 100 + i, "completed_by": 7, "was_cancelled": False, "updated_at": "2024-04-01T10:00:00Z", "task": i,
         "result": result}]} for i, t in enumerate(tasks.values(), 1)]
    path = run.parent.parent / "export.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.startswith(".citeval-staging") or p.suffix == ".tmp")


# --- links and special files --------------------------------------------------------------


def test_resume_never_writes_through_a_linked_answers_file(scored: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n", encoding="utf-8")
    (scored / "answers.jsonl").unlink()
    (scored / "answers.jsonl").symlink_to(outside)
    clean_refusal(cli("run", "--resume", str(scored), cwd=tmp_path), "answers.jsonl", "symbolic link")
    assert outside.read_text(encoding="utf-8") == "not yours\n"


def test_label_pull_never_appends_through_a_linked_judgments_file(scored: Path, tmp_path: Path) -> None:
    export = export_for(scored)
    outside = tmp_path / "outside.jsonl"
    shutil.move(scored / "judgments.jsonl", outside)
    before = sha(outside)
    (scored / "judgments.jsonl").symlink_to(outside)
    clean_refusal(cli("label", "pull", str(scored), "--from-file", str(export), "--rater", "7=a@bank.test",
                      cwd=tmp_path), "judgments.jsonl", "symbolic link")
    assert sha(outside) == before


def test_the_llm_judge_never_appends_through_a_linked_cache(scored: Path, tmp_path: Path) -> None:
    outside = tmp_path / "cache.jsonl"
    outside.write_text("", encoding="utf-8")
    (scored / "judge_cache.jsonl").symlink_to(outside)
    llm = start_fake_llm("openai")
    try:
        done = cli("score", str(scored), "--judge", "llm", "--llm-base-url", llm.base_url, "--llm-model", "m",
                   "--workers", "1", cwd=tmp_path)
    finally:
        llm.stop()
    clean_refusal(done, "judge_cache.jsonl", "symbolic link")
    assert outside.read_text(encoding="utf-8") == ""


def test_bundle_never_packs_a_linked_file(scored: Path, tmp_path: Path) -> None:
    secret = tmp_path / "credentials"
    secret.write_text(json.dumps({"aws_access_key_id": FAKE_KEY}), encoding="utf-8")
    (scored / "agreement.json").symlink_to(secret)
    out = tmp_path / "b.tar.gz"
    clean_refusal(cli("bundle", str(scored), "--out", str(out), cwd=tmp_path), "agreement.json", "symbolic link")
    assert not out.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("target", ["fifo", "link"])
def test_an_output_path_that_is_a_link_or_a_device_is_never_replaced(target: str, scored: Path, tmp_path: Path) -> None:
    """`--out /dev/stdout` or `/dev/full`: the rename that publishes a file would put a regular file
    in place of the link or the device. Each output option is refused instead, naming the path
    (not the temporary sibling), and what was there stays."""
    aim = tmp_path / "kept.txt"
    aim.write_text("kept\n", encoding="utf-8")
    commands = {
        "report": ("report", str(scored), "--out"),
        "bundle": ("bundle", str(scored), "--out"),
        "summary": ("gate", str(scored), "--summary"),
        "junit": ("gate", str(scored), "--junit"),
        "tasks": ("label", "push", str(scored), "--to-file"),
    }
    for name, command in commands.items():
        out = tmp_path / f"{name}.out"
        if target == "fifo":
            os.mkfifo(out)
        else:
            out.symlink_to(aim)
        done = cli(*command, str(out), cwd=tmp_path)
        assert done.returncode == 2, (name, done.stdout, done.stderr)
        assert str(out) in done.stderr and ".tmp" not in done.stderr, done.stderr
        assert (out.is_fifo() if target == "fifo" else out.is_symlink()), name
        assert aim.read_text(encoding="utf-8") == "kept\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder"])
def test_inputs_that_are_no_regular_file_are_refused(kind: str, scored: Path, tmp_path: Path) -> None:
    if kind == "dev-zero":
        path = Path("/dev/zero")
    elif kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)  # no writer ever comes: a reader that opened it blocking would hang here
    else:
        path = tmp_path / "folder"
        path.mkdir()
    for args in (["gate", str(scored), "--gates", str(path)],
                 ["label", "pull", str(scored), "--from-file", str(path)],
                 ["agree", str(path)] if kind != "folder" else ["gate", str(scored), "--baseline", str(path)]):
        done = cli(*args, cwd=tmp_path, timeout=30)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr and "a bug" not in done.stderr, done.stderr


# --- a full disk ------------------------------------------------------------------------------


@contextmanager
def small_disk(folder: Path, size_kb: int) -> Iterator[Callable[[int], None]]:
    """A tmpfs of size_kb at folder (root only); yields fill(free_bytes), which leaves about that
    much space. Skips where nothing can be mounted (the file-size-limit tests below still run)."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(folder)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("no tmpfs can be mounted here (not root)")

    def fill(free: int) -> None:
        filler = folder / "filler"
        filler.unlink(missing_ok=True)
        left = shutil.disk_usage(folder).free
        with filler.open("wb") as handle:
            handle.write(b"\0" * max(0, left - free))

    try:
        yield fill
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_fails_each_writer_cleanly_and_tears_nothing(scored: Path, tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", 256) as fill:
        run = tmp_path / "disk" / "r"
        shutil.copytree(scored, run)
        before = {p.name: sha(p) for p in run.iterdir() if p.is_file() and not p.name.startswith(".")}
        export = export_for(run, comment="x" * 20000)
        fill(0)
        for args, name in (
            (["score", str(run)], "r"),
            (["label", "pull", str(run), "--from-file", str(export), "--rater", "7=a@bank.test"], "r"),
            (["bundle", str(run), "--out", str(tmp_path / "disk" / "b.tar.gz")], "b.tar.gz"),
            (["report", str(run), "--out", str(tmp_path / "disk" / "r.html")], "r.html"),
            (["run", str(tmp_path / "ds"), "--backend", f"replay:{tmp_path / 'replay.jsonl'}", "--out",
              str(tmp_path / "disk"), "--run-id", "r2"], "r2"),
        ):
            done = cli(*args, cwd=tmp_path)
            clean_refusal(done, "no space", name)
        assert {p.name: sha(p) for p in run.iterdir() if p.is_file() and not p.name.startswith(".")} == before
        assert leftovers(tmp_path / "disk") == []
        assert not (tmp_path / "disk" / "r2").exists()
        fill(1 << 30)  # space again: everything works on the folder as it was left
        assert cli("label", "pull", str(run), "--from-file", str(export), "--rater", "7=a@bank.test",
                   cwd=tmp_path).returncode == 0
        assert cli("score", str(run), cwd=tmp_path).returncode == 0
        assert cli("agree", str(run), cwd=tmp_path).returncode == 0


def test_an_append_cut_short_by_the_file_size_limit_is_taken_back(scored: Path, tmp_path: Path) -> None:
    export = export_for(scored, comment="y" * 5000)
    judgments = scored / "judgments.jsonl"
    before = sha(judgments)
    # the limit lets the append start and stops it halfway through its first line
    done = cli("label", "pull", str(scored), "--from-file", str(export), "--rater", "7=a@bank.test", cwd=tmp_path,
               fsize=judgments.stat().st_size + 2000)
    clean_refusal(done, "judgments.jsonl")
    assert sha(judgments) == before  # whole lines or nothing: nothing
    for args in (["agree", str(scored)], ["label", "pull", str(scored), "--from-file", str(export), "--rater",
                                          "7=a@bank.test"], ["score", str(scored)]):
        assert cli(*args, cwd=tmp_path).returncode == 0, args


def test_a_run_that_hits_the_file_size_limit_resumes(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    rows = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines()]
    rows[1]["answer_text"] = "Не знаю. " * 300  # a long second answer: the first fits, it does not
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    args = ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", "r",
            "--concurrency", "1"]
    done = cli(*args, cwd=tmp_path, fsize=2000)  # the manifest fits; the answers do not
    clean_refusal(done, "answers.jsonl")
    run = tmp_path / "runs" / "r"
    lines = (run / "answers.jsonl").read_bytes()
    assert len(lines) < 2000 and (lines == b"" or lines.endswith(b"\n"))  # what was written is whole lines
    assert cli("run", "--resume", str(run), cwd=tmp_path).returncode == 0
    assert len((run / "answers.jsonl").read_text(encoding="utf-8").splitlines()) == 3


# --- read-only, a name too long, a closed stdout ------------------------------------------------


def test_a_read_only_run_folder_is_refused_with_its_path(scored: Path, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    shutil.copytree(scored, ro)
    if os.geteuid() == 0:
        bound = subprocess.run(["mount", "--bind", "-o", "ro", str(ro), str(ro)], capture_output=True)
        if bound.returncode != 0:
            pytest.skip("no read-only bind mount here")
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=False)
    else:
        ro.chmod(0o555)
    try:
        for args in (["score", str(ro)], ["label", "pull", str(ro), "--from-file", str(export_for(scored)),
                                          "--rater", "7=a@bank.test"]):
            clean_refusal(cli(*args, cwd=tmp_path), str(ro))
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", str(ro)], check=False)
        else:
            ro.chmod(0o755)


def test_a_name_too_long_is_refused_with_its_path(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    out = tmp_path / ("n" * 300)
    done = cli("run", str(ds), "--backend", f"replay:{write_replay(tmp_path / 'replay.jsonl')}", "--out", str(out),
               cwd=tmp_path)
    clean_refusal(done, "name too long")


def test_a_closed_stdout_stays_quiet(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    piped = subprocess.run(f"{sys.executable} {ROOT / 'cli.py'} schema scores | head -c 1", shell=True, cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=60)
    assert piped.stdout == "{" and piped.stderr == ""


def test_no_free_inode_is_a_clean_refusal(scored: Path, tmp_path: Path) -> None:
    disk = tmp_path / "inodes"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,nr_inodes=64", "tmpfs", str(disk)],
                      capture_output=True).returncode != 0:
        pytest.skip("no tmpfs can be mounted here (not root)")
    try:
        run = disk / "r"
        shutil.copytree(scored, run)
        before = {p.name: sha(p) for p in run.iterdir() if p.is_file()}
        for i in range(100):  # every inode taken
            try:
                (disk / f"f{i}").touch()
            except OSError:
                break
        done = cli("score", str(run), cwd=tmp_path)
        clean_refusal(done, "no free inode")
        assert {p.name: sha(p) for p in run.iterdir() if p.is_file()} == before and leftovers(disk) == []
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_run_whose_answers_file_is_refused_stops_asking(tmp_path: Path) -> None:
    from factories import write_jsonl
    from servers.answers import start_answer_service

    ds = write_dataset(tmp_path / "ds")
    write_jsonl(ds / "questions.jsonl", [{"question_id": f"q{i:02d}", "question": f"Вопрос {i}?"} for i in range(40)])
    service = start_answer_service()
    try:
        done = cli("run", str(ds), "--backend", f"http:{service.url}", "--out", str(tmp_path / "runs"),
                   "--run-id", "r", "--concurrency", "1", cwd=tmp_path, fsize=1500)
    finally:
        service.stop()
    clean_refusal(done, "answers.jsonl")
    assert service.hits < 10  # not 40: once a write is refused, no more questions are asked
