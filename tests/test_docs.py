"""The user docs: README.md is a front page, every link stays in the repository, the answer
contract's example line is an Answer, and the commands the docs show are commands of `cli:app`."""

from __future__ import annotations

import re
import shlex
import threading
import unicodedata
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
GENERATED = {DOCS / "reference" / name for name in ("metrics.md", "findings.md", "cli.md")}

# Links to outside sites are allowed only where they cite a paper or a tool's own docs.
OUTSIDE_HOSTS = {
    "labelstud.io": "Label Studio, the tool review rounds run in",
    "doi.org": "a paper (prediction-powered inference)",
    "arxiv.org": "a paper (citation faithfulness)",
    "core.telegram.org": "Telegram's Bot API docs (formatting options)",
}
LOCAL_HOSTS = {"localhost", "127.0.0.1"}

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)  # a code span may run over a line break
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)
AUTOLINK = re.compile(r"<((?:https?|ftp|file)://[^>\s]+)>")
BARE_URL = re.compile(r"(?<![(<\w/])((?:https?|ftp|file)://[^\s)>\]]+)")


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _prose(text: str) -> str:
    """The page without its code: links inside code are examples, not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def _targets(text: str) -> list[str]:
    prose = _prose(text)
    return [*LINK.findall(prose), *REFERENCE.findall(prose), *AUTOLINK.findall(prose), *BARE_URL.findall(prose)]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = unicodedata.normalize("NFC", text.strip().lower())
    text = "".join(c for c in text if c.isalnum() or c in "-_ " or unicodedata.category(c) == "Mn")
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = _slug(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def _link_problem(page: Path, target: str) -> str | None:
    """Why a link of `page` is not allowed, or None."""
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        host = (parts.hostname or "").lower().removeprefix("www.")
        if host in LOCAL_HOSTS:
            return None  # an example address of your own bot (a help text's `--backend http:…`), no site
        if host not in OUTSIDE_HOSTS:
            return f"links to an outside site ({host}); allowed only for {sorted(OUTSIDE_HOSTS)}"
        return None
    if parts.scheme or parts.netloc:
        return f"{parts.scheme or 'network'} link: only relative links inside the repository"
    if target.startswith("/"):
        return "absolute path: links must be relative to the page"
    file_part, anchor = unquote(parts.path), parts.fragment
    destination = (page.parent / file_part).resolve() if file_part else page.resolve()
    if not destination.is_relative_to(ROOT):
        return "points outside the repository"
    if not destination.exists():
        return f"{_rel(destination)} does not exist"
    if anchor and destination.suffix == ".md" and anchor not in _anchors(destination):
        return f"{_rel(destination)} has no heading #{anchor}"
    return None


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 400, f"README.md has {len(lines)} lines; move detail into docs/"
    text = "\n".join(lines)
    # the two set-up commands that work on a fresh machine, exactly as they are
    assert "```bash\npip install -e . && citeval eval datasets/demo\n```" in text
    assert "```bash\nbash scripts/test.sh\n```" in text
    assert "](docs/index.md)" in text


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_link_stays_in_the_repository(page):
    problems = [f"{target}: {why}" for target in _targets(page.read_text(encoding="utf-8"))
                if (why := _link_problem(page, target))]
    assert not problems, f"{_rel(page)}:\n" + "\n".join(problems)


def test_the_link_check_refuses_what_it_should():
    page = DOCS / "tutorials" / "first-run.md"
    assert _link_problem(page, "../../../shared/DESIGN.md") == "points outside the repository"
    assert _link_problem(page, "../reference/nothing.md").endswith("does not exist")
    assert _link_problem(page, "../reference/answer.md#no-such-heading").endswith("has no heading #no-such-heading")
    assert "outside site" in _link_problem(page, "https://example.com/x")
    assert _link_problem(page, "/etc/passwd").startswith("absolute path")
    assert _link_problem(page, "../reference/answer.md#a-complete-example-line") is None
    assert _targets("see [x](../y.md) and `[z](../../no.md)` and <https://a.example/b>") == [
        "../y.md", "https://a.example/b"]


@pytest.mark.parametrize("page", [p for p in PAGES if p not in GENERATED], ids=_rel)
def test_written_pages_state_the_contract_themselves(page):
    """The design notes live outside the repository: a page may not send the reader there."""
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text, f"{_rel(page)} points at ../shared"
    assert not re.search(r"\bDESIGN(\.md| \d)", text), f"{_rel(page)} refers to the design notes outside the repository"


def test_the_index_maps_every_page():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = {(DOCS / t.split("#")[0]).resolve() for t in _targets(index) if not urlsplit(t).scheme}
    missing = [_rel(p) for p in DOCS.rglob("*.md") if p.resolve() not in linked and p.name != "index.md"]
    assert not missing, f"docs/index.md does not link: {missing}"


# --- the answer contract's example -------------------------------------------------------


def _example_answer_line() -> str:
    text = (DOCS / "reference" / "answer.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- example-answer -->\s*```json\n(.*?)\n```", text, re.S)
    assert match, "docs/reference/answer.md lost its <!-- example-answer --> block"
    lines = match.group(1).strip().splitlines()
    assert len(lines) == 1, "the example answer is one line of a replay file"
    return lines[0]


def test_the_example_answer_line_is_an_answer():
    from evals.contract.models import Answer

    answer = Answer.model_validate_json(_example_answer_line())
    assert answer.status == "answered" and answer.claims and answer.evidence and answer.links
    assert all(e.chunk_id for e in answer.evidence), "the example shows evidence that resolves by chunk_id"


def test_the_example_answer_has_no_finding_on_the_demo():
    from evals.contract.models import Answer
    from evals.data.registry import Registry
    from evals.score.checks import check_answer
    from evals.store.jsonl import read_questions

    answer = Answer.model_validate_json(_example_answer_line())
    demo = ROOT / "datasets" / "demo"
    question = next(q for _, q in read_questions(demo / "questions.jsonl") if q.question_id == answer.question_id)
    check = check_answer(question, answer, Registry.load(demo), question.asked_at)
    assert [f.code for f in check.findings] == []
    assert check.key_facts_stated and all(check.key_facts_stated)
    assert check.gold_evidence_reached and all(check.gold_evidence_reached)


# --- commands shown in the docs ------------------------------------------------------------


def _cli_tree():
    import typer

    from cli import app

    return typer.main.get_command(app)


SHELL_BLOCKS = {"bash", "sh", "shell", "console", "zsh"}


def _fenced_commands(text: str) -> list[str]:
    """`citeval …` command lines of the page's shell blocks (continuations joined, comments cut)."""
    commands: list[str] = []
    for block in FENCE.findall(text):
        if block.splitlines()[0].strip("`").strip().lower() not in SHELL_BLOCKS:
            continue  # program output, pictures, usage lines: not commands to run
        body = re.sub(r"\\\n\s*", " ", "\n".join(block.splitlines()[1:-1]))
        for line in body.splitlines():
            for part in re.split(r"&&|\|\||;|\|(?!\w)", line):
                words = part.strip().removeprefix("$ ").split()
                while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
                    words = words[1:]  # VAR=value before the command
                if words and words[0] == "citeval":
                    commands.append(" ".join(words).split(" #")[0].strip())
    return commands


def _command_problem(root, command: str) -> str | None:
    """Why `command` is not a command of the app (an unknown (sub)command or option), or None."""
    try:
        words = shlex.split(command)[1:]
    except ValueError:
        words = command.split()[1:]
    node, path = root, ["citeval"]
    while getattr(node, "commands", None) and words and not words[0].startswith("-"):
        name = words.pop(0)
        if name not in node.commands:
            return f"{' '.join(path)} has no command {name!r}"
        node, path = node.commands[name], [*path, name]
    if getattr(node, "commands", None) and not any(w in ("--help", "--version") for w in words):
        return f"{' '.join(path)} is a group: name one of its commands"
    known = {opt for p in node.params for opt in (*p.opts, *getattr(p, "secondary_opts", []))} | {"--help"}
    for word in words:
        option = word.strip("[]").split("=")[0]
        if option.startswith("--") and option not in known:
            return f"{' '.join(path)} has no option {option}"
    return None


def test_every_command_of_the_first_run_is_a_command_of_the_cli():
    commands = _fenced_commands((DOCS / "tutorials" / "first-run.md").read_text(encoding="utf-8"))
    assert "citeval eval datasets/demo --run-id first-run" in commands
    root = _cli_tree()
    problems = [f"{c}: {why}" for c in commands if (why := _command_problem(root, c))]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_command_the_docs_show_is_a_command_of_the_cli(page):
    root = _cli_tree()
    commands = _fenced_commands(page.read_text(encoding="utf-8"))
    problems = [f"{c}: {why}" for c in commands if (why := _command_problem(root, c))]
    assert not problems, f"{_rel(page)}:\n" + "\n".join(problems)


def test_the_command_check_refuses_what_it_should():
    root = _cli_tree()
    assert _command_problem(root, "citeval eval datasets/demo --run-id x") is None
    assert _command_problem(root, "citeval data import alce f.json --out d") is None
    assert _command_problem(root, "citeval evaluate datasets/demo") == "citeval has no command 'evaluate'"
    assert _command_problem(root, "citeval data frobnicate x") == "citeval data has no command 'frobnicate'"
    assert _command_problem(root, "citeval gate runs/x --gate g.toml") == "citeval gate has no option --gate"
    assert _command_problem(root, "citeval data") == "citeval data is a group: name one of its commands"
    assert _fenced_commands("```bash\nPYTHONPATH=tests citeval probe d \\\n  --limit 2   # note\nls && citeval gate r\n```") == [
        "citeval probe d --limit 2", "citeval gate r"]
    assert _fenced_commands("```\nciteval label push/pull RUN  → rows\n```") == []  # a picture, not a command


# --- the example bots of the tutorial (examples/http_bot, examples/python_backend) -----------

REGISTRY_PROBLEMS = {"UNKNOWN_EVIDENCE_ID", "UNRESOLVED_CHUNK", "CHUNK_TEXT_MISMATCH", "ACCESS_DENIED",
                     "VERSION_SUPERSEDED", "VERSION_REVOKED", "VERSION_DELETED", "VERSION_NOT_YET_EFFECTIVE",
                     "LINK_NOT_FROM_REGISTRY", "LINK_VERSION_REDIRECT", "QUOTE_NOT_FOUND"}
# the python bot ignores asked_at and the user's groups, as the tutorial says: only these may remain
IGNORES_TIME_AND_USER = {"ACCESS_DENIED", "VERSION_SUPERSEDED", "VERSION_REVOKED", "VERSION_DELETED",
                         "VERSION_NOT_YET_EFFECTIVE"}


def _registry_codes(answer_function) -> set[str]:
    from evals.contract.models import Answer
    from evals.data.registry import Registry
    from evals.run.backends.base import request_payload
    from evals.score.checks import check_answer
    from evals.store.jsonl import read_questions

    demo = ROOT / "datasets" / "demo"
    registry = Registry.load(demo)
    codes: set[str] = set()
    for _, question in list(read_questions(demo / "questions.jsonl"))[:40]:
        payload = request_payload(question, question.asked_at)
        answer = Answer.model_validate({"question_id": question.question_id, **answer_function(payload)})
        codes |= {f.code for f in check_answer(question, answer, registry, question.asked_at).findings}
    return codes & REGISTRY_PROBLEMS


def test_the_example_bots_answer_in_the_contract_and_their_citations_resolve():
    from examples.http_bot import bot as http_bot
    from examples.python_backend import bot as python_bot

    assert not _registry_codes(http_bot.answer)  # it reads asked_at and the user's groups
    assert not _registry_codes(python_bot.answer) - IGNORES_TIME_AND_USER


def test_the_http_bot_serves_the_http_backend_protocol_as_the_tutorial_shows():
    from examples.http_bot import bot as http_bot

    server = ThreadingHTTPServer(("127.0.0.1", 0), http_bot.Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        request = {"question_id": "q-p1-007", "asked_at": "2024-11-22T21:40:00+05:00",
                   "question": "Укололась иглой после пациента. В какие сроки надо сообщить эпидемиологу?",
                   "user": {"user_id": "nurse-009", "groups": ["clinical"]}}
        reply = httpx.post(f"http://127.0.0.1:{server.server_address[1]}/answer", json=request, timeout=10)
        body = reply.json()
    finally:
        server.shutdown()
        server.server_close()
    assert reply.status_code == 200 and body["status"] == "answered"
    assert body["evidence"][0]["chunk_id"] == "66aea1a0428bf6f9"
    tutorial = (DOCS / "tutorials" / "your-own-bot.md").read_text(encoding="utf-8")
    assert body["answer_text"] in tutorial and body["model"] in tutorial
