"""Write the generated reference pages of docs/reference/ from the code.

- metrics.md and findings.md from the contract's tables (evals/contract/metrics.py, findings.py);
- cli.md from the command line: the click command tree of the typer app `cli:app` (every command
  and group with its help, usage, arguments and options), so it follows the app wherever its
  commands are defined, as long as `cli` exports `app`.

    python3 scripts/reference_docs.py          # rewrite every page
    python3 scripts/reference_docs.py --check  # exit 1 when a committed page differs

tests/test_reference_docs.py fails while a committed page differs from what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.contract import findings, metrics  # noqa: E402 (after the path of this checkout)

PROG = "citeval"


def _help_text(text: str | None) -> str:
    """A help string as Markdown: rich-markup escapes undone, click's no-rewrap marker dropped."""
    return (text or "").replace("\\[", "[").replace("\b\n", "").strip()


def _one_line(text: str | None) -> str:
    return " ".join(_help_text(text).split()).replace("|", "\\|")


def _subcommands(command: Any) -> dict[str, Any]:
    """A group's visible subcommands in the order they were added (duck-typed: typer ships its own click)."""
    found = getattr(command, "commands", None) or {}
    return {name: sub for name, sub in found.items() if not getattr(sub, "hidden", False)}


def _is_argument(param: Any) -> bool:
    return getattr(param, "param_type_name", "") == "argument"


def _type_text(param: Any) -> str:
    kind = param.type
    choices = getattr(kind, "choices", None)
    if choices:
        return " or ".join(f"`{c}`" for c in choices)
    if getattr(param, "is_flag", False):
        return "flag"
    text = str(getattr(kind, "name", "") or "").lower().removesuffix(" range")
    low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    if low is not None or high is not None:
        text += " " + ", ".join(part for part in (f"≥ {low}" if low is not None else "",
                                                   f"≤ {high}" if high is not None else "") if part)
    return text


def _default_text(param: Any) -> str:
    default = param.default
    if default is None or default is False or default == () or callable(default):
        return ""
    if getattr(param, "is_flag", False) and default is True:
        return "on"
    value = getattr(default, "value", default)  # an Enum's value
    return f"`{value}`"


def _names(param: Any) -> str:
    names = ", ".join(f"`{o}`" for o in param.opts)
    if getattr(param, "secondary_opts", None):
        names += " / " + ", ".join(f"`{o}`" for o in param.secondary_opts)
    return names


def _usage(path: list[str], command: Any) -> str:
    parts = [*path, "[OPTIONS]"] if any(not _is_argument(p) for p in command.params) else list(path)
    if _subcommands(command):
        parts.append("COMMAND [ARGS]...")
    for param in command.params:
        if _is_argument(param):
            name = param.name.upper() + ("..." if param.nargs == -1 else "")
            parts.append(name if param.required else f"[{name}]")
    return " ".join(parts)


def _command_section(path: list[str], command: Any) -> list[str]:
    title = " ".join(path)
    out = [f"## `{title}`", "", _help_text(command.help), "", "```", _usage(path, command), "```", ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        out += ["| argument or option | type | default | what it does |", "|---|---|---|---|"]
        for param in params:
            name = f"`{param.name.upper()}`" if _is_argument(param) else _names(param)
            required = " (required)" if param.required and not _is_argument(param) else ""
            out.append(f"| {name}{required} | {_type_text(param)} | {_default_text(param)} | {_one_line(param.help)} |")
        out.append("")
    subs = _subcommands(command)
    if subs:
        out += ["Commands: " + ", ".join(f"[`{name}`](#{_anchor([*path, name])})" for name in subs) + ".", ""]
    return out


def _anchor(path: list[str]) -> str:
    """GitHub's anchor of a command's heading: citeval data ingest -> citeval-data-ingest."""
    return "-".join(path)


def _walk(path: list[str], command: Any) -> list[tuple[list[str], Any]]:
    found = [(path, command)]
    for name, sub in _subcommands(command).items():
        found += _walk([*path, name], sub)
    return found


def cli_markdown() -> str:
    """docs/reference/cli.md: every command of `cli:app` with its help, usage, arguments and options."""
    import typer

    from cli import app

    root = typer.main.get_command(app)
    commands = _walk([PROG], root)
    lines = [
        "# Command line reference",
        "",
        "Generated from the command line itself (the typer app `cli:app`); regenerate with",
        "`python3 scripts/reference_docs.py`. Every command also prints this with `--help`.",
        "Exit codes are in [exit codes](exit-codes.md).",
        "",
    ]
    for path, _ in commands[1:]:
        depth = len(path) - 2
        lines.append("  " * depth + f"- [`{' '.join(path)}`](#{_anchor(path)})")
    lines.append("")
    for path, command in commands:
        lines += _command_section(path, command)
    return "\n".join(lines).rstrip() + "\n"


DOCS = {
    ROOT / "docs" / "reference" / "metrics.md": metrics.markdown_table,
    ROOT / "docs" / "reference" / "findings.md": findings.markdown_table,
    ROOT / "docs" / "reference" / "cli.md": cli_markdown,
}


def main(argv: list[str]) -> int:
    stale = []
    for path, render in DOCS.items():
        text = render()
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{path.relative_to(ROOT)} differs from its table: run python3 scripts/reference_docs.py")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
