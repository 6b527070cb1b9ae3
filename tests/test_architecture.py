"""The package's shape, measured from the source (issue 27; docs/architecture.md).

- no import cycle inside evals/, counting imports inside functions and under TYPE_CHECKING;
- the base layers (contract, store, text, stats, and data: the registry) import no stage;
- at most 8 modules directly in evals/, no function over 80 lines, no CLI file over 400 lines;
- at most 8 modules of evals/ open files themselves (the store does it for the others);
- no metric name of scores.json spelled as a string in more than 2 modules of evals/ (the
  metric table and the code that computes it); nothing under evals/ prints or exits.

An import `from P import N` counts as an import of the module P.N when that is a module, else of
P itself (so a name re-exported by a package __init__ makes the importer depend on that
__init__ and everything it imports).
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVALS = ROOT / "evals"
BASE_LAYERS = ("evals.contract", "evals.store", "evals.text", "evals.stats", "evals.data")
FILE_OPENERS = {"open", "read_text", "write_text", "read_bytes", "write_bytes", "fdopen", "mkstemp",
                "NamedTemporaryFile", "TemporaryFile"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(EVALS.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if MODULES[module].name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, tree in TREES.items():
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, node)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in MODULES else base)
            for target in targets:
                owner = _owner(target) if target.startswith("evals") else None
                if owner and owner != module:
                    graph[module].add(owner)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(MODULES):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_inside_evals():
    assert cycles(import_graph()) == []


def test_base_layers_import_no_stage():
    graph = import_graph()
    wrong = [
        f"{module} -> {target}"
        for module, targets in graph.items() if module.startswith(BASE_LAYERS)
        for target in targets
        if not target.startswith(BASE_LAYERS) and target not in ("evals._version", "evals._lazy", "evals.errors")
    ]
    assert wrong == []


def test_at_most_eight_modules_directly_in_evals():
    direct = sorted(p.name for p in EVALS.glob("*.py"))
    assert len(direct) <= 8, direct


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_function_over_80_lines():
    sources = {**MODULES, **{p.stem: p for p in [ROOT / "cli.py", *(ROOT / "citeval_cli").glob("*.py")] if p.exists()}}
    long = [
        f"{name}:{fn.lineno} {fn.name} ({fn.end_lineno - fn.lineno + 1} lines)"
        for name, path in sources.items()
        for fn in _functions(ast.parse(path.read_text(encoding="utf-8")))
        if fn.end_lineno - fn.lineno + 1 > 80
    ]
    assert long == []


def test_no_cli_file_over_400_lines():
    files = [ROOT / "cli.py", *sorted((ROOT / "citeval_cli").glob("*.py"))]
    long = {p.name: n for p in files if p.exists() and (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert long == {}


def _opens_files(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in FILE_OPENERS:
                return True
    return False


def test_at_most_eight_modules_open_files():
    openers = sorted(name for name, tree in TREES.items() if _opens_files(tree))
    assert len(openers) <= 8, openers


def _strings(tree: ast.AST):
    """String constants that are not docstrings."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def scores_metric_names() -> list[str]:
    golden = json.loads((ROOT / "tests" / "golden" / "demo_scores.json").read_text(encoding="utf-8"))
    return sorted(golden["metrics"])


def test_no_metric_name_spelled_in_more_than_two_modules():
    strings = {name: list(_strings(tree)) for name, tree in TREES.items()}
    spread = {}
    for metric in scores_metric_names():
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(metric)}(?![A-Za-z0-9_])")
        where = sorted(name for name, values in strings.items() if any(word.search(v) for v in values))
        if len(where) > 2:
            spread[metric] = where
    assert spread == {}


def test_nothing_under_evals_prints_or_exits():
    found = []
    for name, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Name) and func.id in ("print", "exit", "quit"):
                    found.append(f"{name}:{node.lineno} {func.id}")
                if isinstance(func, ast.Attribute) and func.attr == "exit" and isinstance(func.value, ast.Name) \
                        and func.value.id in ("sys", "os"):
                    found.append(f"{name}:{node.lineno} {func.value.id}.exit")
    assert found == []
