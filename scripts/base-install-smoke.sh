#!/usr/bin/env bash
# What a user installs: `pip install -e .` (no extras, today's newest allowed dependencies) in a
# fresh venv, then the README's main job and the Anthropic replay. The test suite runs with the
# test extra, whose ragas pins hold anthropic back to an older SDK; this job runs the newest one
# and checks that it folds the recorded responses and streams into the same scores as the
# suite's environment does.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --disable-pip-version-check -q -e "$repo"
"$work/venv/bin/pip" list --disable-pip-version-check 2>/dev/null | grep -iE '^(anthropic|pydantic|typer|docling-core) ' | sed 's/^/base install: /'

cd "$work"
# the README's main job: exit 0 (the reference backend passes the default gates)
"$work/venv/bin/citeval" eval "$repo/datasets/demo" --out runs --run-id main-job --report-out reports/main-job.html

# the README's Anthropic replay, folded by the newest SDK ...
"$work/venv/bin/citeval" run "$repo/datasets/demo" --backend replay:answers/anthropic_real.jsonl \
  --out runs --run-id anthropic-newest
"$work/venv/bin/citeval" score runs/anthropic-newest --judge none >/dev/null
# ... and by the SDK of the test environment (python3 here is the suite's interpreter)
python3 "$repo/cli.py" run "$repo/datasets/demo" --backend replay:answers/anthropic_real.jsonl \
  --out runs --run-id anthropic-suite >/dev/null
python3 "$repo/cli.py" score runs/anthropic-suite --judge none >/dev/null

python3 - "$work/runs" <<'PY'
import json
import sys
from pathlib import Path

runs = Path(sys.argv[1])


def comparable(run_id: str) -> dict:
    scores = json.loads((runs / run_id / "scores.json").read_text(encoding="utf-8"))
    for moment_or_machine in ("provenance", "scored_at", "run_id"):
        scores.pop(moment_or_machine)
    return scores


newest, suite = comparable("anthropic-newest"), comparable("anthropic-suite")
answered = newest["n_questions"] - newest["n_unanswered"]
assert newest == suite, "the newest anthropic SDK folds the replay into other scores than the suite's SDK"
assert newest["metrics"]["citation_validity"]["n"] > 0, "no Anthropic citation was checked"
print(f"base install: Anthropic replay scored the same under both SDKs "
      f"(citation_validity {newest['metrics']['citation_validity']['value']}, n {newest['metrics']['citation_validity']['n']})")
PY
