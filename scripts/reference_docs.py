"""Write docs/reference/metrics.md and docs/reference/findings.md from the contract's tables.

    python3 scripts/reference_docs.py          # rewrite both files
    python3 scripts/reference_docs.py --check  # exit 1 when a committed file differs

tests/test_reference_docs.py fails while the committed files differ from the tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.contract import findings, metrics  # noqa: E402 (after the path of this checkout)

DOCS = {
    ROOT / "docs" / "reference" / "metrics.md": metrics.markdown_table,
    ROOT / "docs" / "reference" / "findings.md": findings.markdown_table,
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
