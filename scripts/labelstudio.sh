#!/usr/bin/env bash
# Label Studio for citeval's review rounds, in its own virtual environment.
#
# label-studio 1.23.2 pins openai<2 while citeval's ragas stack needs openai>=2, so the
# server cannot live in the project's environment; citeval itself only needs
# label-studio-sdk. This script keeps the server in .venv-labelstudio/ (ignored by git).
#
#   scripts/labelstudio.sh install            create or reuse .venv-labelstudio/ with label-studio
#   scripts/labelstudio.sh start DATA_DIR PORT
#         start a server on 127.0.0.1:PORT with sqlite in DATA_DIR, offline (no analytics,
#         no version check, no Sentry), sign-up by invite link only. The first admin comes
#         from LABEL_STUDIO_USERNAME / LABEL_STUDIO_PASSWORD (and, optionally, a preset
#         legacy API token LABEL_STUDIO_USER_TOKEN), read when DATA_DIR is first created.
#         Runs in the foreground (exec); stop it with Ctrl-C or SIGTERM.
#   scripts/labelstudio.sh version            print the installed server's version
#
# Environment: LABEL_STUDIO_VENV (default: <repo>/.venv-labelstudio),
#              LABEL_STUDIO_PYTHON (interpreter for the venv, default: python3).
set -euo pipefail

LS_VERSION="1.23.2"
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LABEL_STUDIO_VENV:-$REPO/.venv-labelstudio}"
PY="${LABEL_STUDIO_PYTHON:-python3}"

die() { echo "labelstudio.sh: $*" >&2; exit 2; }

installed_version() {
  [ -x "$VENV/bin/python" ] || return 1
  "$VENV/bin/python" - <<'EOF' 2>/dev/null
import importlib.metadata as m
print(m.version("label-studio"))
EOF
}

offline_env() {
  # keep the server offline and quiet; never inherit a stray HOST/PORT/USERNAME/DEBUG
  unset HOST PORT USERNAME DEBUG
  export COLLECT_ANALYTICS=false LATEST_VERSION_CHECK=false SENTRY_DSN= FRONTEND_SENTRY_DSN=
  export LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK=true LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true
}

cmd_install() {
  if [ "$(installed_version || true)" = "$LS_VERSION" ]; then
    echo "label-studio $LS_VERSION already in $VENV"
    return 0
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
  fi
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "label-studio==$LS_VERSION"
  # `label-studio version` (never --version: that starts a server) initialises a throwaway data dir
  local scratch
  scratch="$(mktemp -d)"
  ( offline_env; LABEL_STUDIO_BASE_DATA_DIR="$scratch" "$VENV/bin/label-studio" version >"$scratch/version.txt" 2>&1 ) \
    || { cat "$scratch/version.txt" >&2; rm -rf "$scratch"; die "label-studio does not run"; }
  grep -q "\"release\": \"$LS_VERSION\"" "$scratch/version.txt" || { cat "$scratch/version.txt" >&2; rm -rf "$scratch"; die "unexpected label-studio version"; }
  rm -rf "$scratch"
  echo "label-studio $LS_VERSION installed in $VENV"
}

port_free() {
  "$PY" - "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT does not count
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
EOF
}

cmd_start() {
  [ $# -eq 2 ] || die "usage: $0 start DATA_DIR PORT"
  local data_dir="$1" port="$2"
  [[ "$port" =~ ^[0-9]+$ ]] || die "PORT must be a number"
  [ -x "$VENV/bin/label-studio" ] || die "no label-studio in $VENV; run: $0 install"
  # a busy port would silently move the server to the next one
  port_free "$port" || die "port $port on 127.0.0.1 is busy"
  mkdir -p "$data_dir"
  data_dir="$(cd "$data_dir" && pwd)"
  if [ ! -f "$data_dir/label_studio.sqlite3" ]; then
    [ -n "${LABEL_STUDIO_USERNAME:-}" ] && [ -n "${LABEL_STUDIO_PASSWORD:-}" ] \
      || die "a new DATA_DIR needs LABEL_STUDIO_USERNAME and LABEL_STUDIO_PASSWORD for its first admin"
  fi
  offline_env
  export LABEL_STUDIO_BASE_DATA_DIR="$data_dir"
  exec "$VENV/bin/label-studio" start --no-browser --data-dir "$data_dir" \
    --internal-host 127.0.0.1 --port "$port"
}

case "${1:-}" in
  install) shift; cmd_install "$@" ;;
  start) shift; cmd_start "$@" ;;
  version) installed_version || die "label-studio is not installed in $VENV" ;;
  *) die "usage: $0 install | start DATA_DIR PORT | version" ;;
esac
