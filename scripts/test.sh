#!/usr/bin/env bash
# The README's test command: install everything the suite needs, then run all tests.
# Works on a fresh machine (as root it also installs Debian's chromium); safe to re-run:
# each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium for the browser tests (report and Label Studio UI); playwright drives it
# with executable_path and downloads no browser of its own.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

python3 -m pip install --disable-pip-version-check -q -e '.[test]'

# Label Studio lives in its own venv (.venv-labelstudio/): its openai<2 pin conflicts with ragas.
bash scripts/labelstudio.sh install

# In CI a missing server or browser must fail the run, not skip its tests.
if [ -n "${CI:-}" ]; then
  export CITEVAL_REQUIRE_LABEL_STUDIO=1 CITEVAL_REQUIRE_BROWSER=1
fi

# lint and types first: cheap, and a failure here is a defect like any other
python3 -m ruff check .
python3 -m mypy evals

# one worker per core (pytest-xdist); CITEVAL_TEST_WORKERS=0 runs the tests in this one process
python3 -m pytest -n "${CITEVAL_TEST_WORKERS:-auto}" "$@"
# pytest exits 5 when it collected no test; set -e already turns that into a failure.
