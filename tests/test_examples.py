"""The examples run as written (issue 31).

Every command in the fenced shell blocks of examples/README.md and examples/label_studio.md is
run in order, each line by bash, in a scratch folder laid out like the repository (a copy of
examples/, the demo dataset and the default gates), with a `citeval` on PATH that runs this
checkout. Each must exit 0, or the code its line names (`# exits N`). A line ending in `&` is
started in the background — the example HTTP bot, on a free port of 127.0.0.1 that replaces
the page's 8765 — and `kill %1` stops it (it must still be running then). The Label Studio
block runs against a real server where Label Studio is installed (the test starts the server
and sets LABEL_STUDIO_URL / LABEL_STUDIO_API_KEY in place of the block's own `scripts/
labelstudio.sh` and `export` lines) and is skipped otherwise.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from labelstudio import server as S
from labelstudio.fixtures import ls_server  # noqa: F401  (fixture used by name)

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
PAGE_PORT = "8765"
pytestmark = pytest.mark.slow


def shell_lines(page: Path) -> list[list[str]]:
    """The command lines of each ```bash block of a page (comments and blank lines left out)."""
    blocks = re.findall(r"^```bash\n(.*?)^```", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    out = []
    for block in blocks:
        text = block.replace("\\\n", " ")
        out.append([line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")])
    return out


def split_comment(line: str) -> tuple[str, int]:
    """The command and the exit code it must end with (`# exits N`, else 0)."""
    mark = re.search(r"\s#\s", line)  # a comment starts at " # " (a URL's #fragment has no space before it)
    command, comment = (line[:mark.start()], line[mark.end():]) if mark else (line, "")
    found = re.search(r"\bexits (\d+)", comment)
    return command.strip(), int(found.group(1)) if found else 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[str], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the background command exited with {proc.returncode}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


@pytest.fixture()
def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder laid out like the repository, and the environment the commands run in."""
    shutil.copytree(EXAMPLES, tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "datasets" / "demo", tmp_path / "datasets" / "demo",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "gates").mkdir()
    shutil.copy(REPO / "gates" / "default.toml", tmp_path / "gates" / "default.toml")
    (tmp_path / "scripts").symlink_to(REPO / "scripts")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "citeval"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "cli.py"}" "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    python = bin_dir / "python"  # the page's `python …` is this interpreter
    python.symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEVAL_", "LABEL_STUDIO_"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", CI="true", COLUMNS="120")
    return tmp_path, env


class Shell:
    """Runs a page's lines one by one, each in bash, and keeps the background ones."""

    def __init__(self, cwd: Path, env: dict[str, str], port: str = PAGE_PORT) -> None:
        self.cwd, self.env, self.port = cwd, env, port
        self.background: list[subprocess.Popen[str]] = []
        self.outputs: dict[str, subprocess.CompletedProcess[str]] = {}

    def run(self, line: str) -> None:
        command, expected = split_comment(line.replace(PAGE_PORT, self.port))
        if command == "kill %1":
            proc = self.background.pop()
            assert proc.poll() is None, f"the background command ended early with {proc.returncode}"
            proc.terminate()
            proc.wait(timeout=10)
            return
        if command.endswith("&"):
            proc = subprocess.Popen(["bash", "-c", "exec " + command[:-1].strip()], cwd=self.cwd, env=self.env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
            self.background.append(proc)
            wait_for_port(int(self.port), proc)
            return
        done = subprocess.run(["bash", "-c", command], cwd=self.cwd, env=self.env, capture_output=True, text=True,
                              timeout=900)
        self.outputs[command] = done
        assert done.returncode == expected, (
            f"`{command}` exited {done.returncode}, the page says {expected}\n"
            f"stdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}"
        )

    def close(self) -> None:
        for proc in self.background:
            proc.terminate()
            proc.wait(timeout=10)


def test_every_command_of_the_examples_page_runs_as_written(scratch: tuple[Path, dict[str, str]]) -> None:
    cwd, env = scratch
    blocks = shell_lines(EXAMPLES / "README.md")
    assert sum(len(b) for b in blocks) >= 15
    shell = Shell(cwd, env, str(free_port()))
    try:
        for block in blocks:
            for line in block:
                shell.run(line)
        assert not shell.background, "a background command the page never stops"
    finally:
        shell.close()
    out = shell.outputs
    # what the page says about the results
    assert not (cwd / "citeval.toml").exists()
    manifest = json.loads((cwd / "runs" / "from-file" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["label"] == "demo" and manifest["options"]["config_file"] == str(cwd.resolve() / "citeval.toml")
    assert json.loads((cwd / "runs" / "checks-only" / "scores.json").read_text(encoding="utf-8"))["judge"] is None
    assert (cwd / "reports" / "latest.html").is_file()  # [report] out is eval's --report-out
    http_bot = next(r for c, r in out.items() if "--run-id http-bot" in c)
    assert "gate FAILED" in http_bot.stdout and "SHOULD_HAVE_ABSTAINED" in http_bot.stdout
    python_bot = next(r for c, r in out.items() if c.startswith("citeval score runs/python-bot"))
    assert "ACCESS_DENIED" in python_bot.stdout and "VERSION_SUPERSEDED" in python_bot.stdout
    wrong = next(r for c, r in out.items() if "wrong_answers.jsonl" in c)
    page = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for line in wrong.stderr.splitlines():
        assert line in page, line  # the page shows the output as it is
    judged = next(r for c, r in out.items() if c == "citeval judge examples/pairs.jsonl")
    assert "accuracy 0.875" in judged.stderr  # 7 of 8, as the page says
    assert [ln.split("\t")[:2] for ln in judged.stdout.splitlines()][5] == ["p6", "supported"]
    logs = next(r for c, r in out.items() if c.startswith("citeval run datasets/demo --backend replay:bot-answers"))
    assert "148 question(s): 2 answered, 1 abstained, 145 error(s)" in logs.stdout
    assert len((cwd / "review.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def test_the_typo_the_page_shows_is_what_citeval_says(scratch: tuple[Path, dict[str, str]]) -> None:
    cwd, env = scratch
    text = (EXAMPLES / "citeval.toml").read_text(encoding="utf-8").replace("concurrency = 4", "concurency = 4")
    (cwd / "citeval.toml").write_text(text, encoding="utf-8")
    done = subprocess.run(["citeval", "eval"], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    page = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"`(error: citeval\.toml:\d+: run\.concurency: [^`]*?)…\)`", page)
    assert shown is not None and done.stderr.startswith(shown.group(1)), done.stderr


def test_the_label_studio_page_without_a_server(scratch: tuple[Path, dict[str, str]]) -> None:
    cwd, env = scratch
    without, _ = shell_lines(EXAMPLES / "label_studio.md")
    shell = Shell(cwd, env)
    for line in without:
        shell.run(line)
    tasks = json.loads((cwd / "tasks.json").read_text(encoding="utf-8"))
    assert 0 < len(tasks) <= 12


def test_the_label_studio_page_with_a_server(
    scratch: tuple[Path, dict[str, str]], ls_server: S.LabelStudioServer  # noqa: F811
) -> None:
    cwd, env = scratch
    without, server_block = shell_lines(EXAMPLES / "label_studio.md")
    env = {**env, "LABEL_STUDIO_URL": ls_server.url, "LABEL_STUDIO_API_KEY": S.ADMIN_TOKEN}
    shell = Shell(cwd, env)
    for line in without:
        shell.run(line)
    ours = [line for line in server_block if not line.startswith(("scripts/labelstudio.sh", "export "))
            and "scripts/labelstudio.sh" not in line]
    assert len(ours) == len(server_block) - 3  # install, start, export: done by the test
    for line in ours:
        shell.run(line)
    pull = next(r for c, r in shell.outputs.items() if c.startswith("citeval label pull"))
    assert "missing" in pull.stdout
    assert (cwd / "runs" / "review" / "agreement.json").is_file()
