#!/usr/bin/env bash
# GPU benchmarks on a lent machine with no network: embedding throughput (bench/gpu_embed.py) and
# swr's index build with its overlapped pipeline off and on (bench/index_build.py --device cuda).
# Needs the git-ignored carry folders made by scripts/gpu_carry.py: .whl (swr's imports missing
# there, installed into /tmp/site) and .gpumodel (all-MiniLM-L6-v2 in int8, restored to float32,
# and the SQuAD v1.1 dev file). Each output is tee'd into $OUT (default bench/out/gpu); each command
# has its own timeout so the whole script ends within 8 minutes.
#   GPU_BENCH_DEVICE=cuda|cpu (default cuda), GPU_BENCH_SENTENCES (default 20000),
#   GPU_BENCH_ARTICLES (default: all 48), GPU_BENCH_TIMEOUT (seconds per command, default 140)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/bench/out/gpu}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
DEVICE=${GPU_BENCH_DEVICE:-cuda}
LIMIT=${GPU_BENCH_TIMEOUT:-140}
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PIP_ROOT_USER_ACTION=ignore

"$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || { echo "gpu_bench: installing .whl failed" >&2; exit 1; }
export PYTHONPATH=/tmp/site:$PWD
SWR_HOME=$(mktemp -d); export SWR_HOME
"$PY" scripts/gpu_carry.py restore .gpumodel/minilm /tmp/minilm || exit 1
mkdir -p /tmp/squad && gunzip -c .gpumodel/squad-dev-v1.1.json.gz >/tmp/squad/dev-v1.1.json || exit 1
export SWR_BENCH_MODEL=/tmp/minilm SWR_BENCH_SQUAD=/tmp/squad/dev-v1.1.json

{
  date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1; nproc
  "$PY" -c 'import sys, torch, transformers, sentence_transformers as st, llama_index.core as li, pydantic
print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available(),
      "transformers", transformers.__version__, "sentence-transformers", st.__version__,
      "llama-index-core", li.__version__, "pydantic", pydantic.VERSION)' 2>&1
} | tee "$OUT/env.txt"

articles=()
[ -n "${GPU_BENCH_ARTICLES:-}" ] && articles=(--articles "$GPU_BENCH_ARTICLES")
status=0
run() {  # run NAME COMMAND...: output tee'd into $OUT/NAME.txt, killed after $LIMIT seconds
  local name=$1; shift
  echo "== $name: $*" | tee "$OUT/$name.txt"
  timeout -k 5 "$LIMIT" "$@" 2>&1 | tee -a "$OUT/$name.txt"
  local rc=${PIPESTATUS[0]}
  echo "== $name exit $rc" | tee -a "$OUT/$name.txt"
  [ "$rc" -eq 0 ] || status=$rc
}
run gpu_embed "$PY" bench/gpu_embed.py --model /tmp/minilm --sentences "${GPU_BENCH_SENTENCES:-20000}"
for overlap in off on; do
  run "index_build_overlap_$overlap" "$PY" bench/index_build.py --one-file --rows limit swr --overlap "$overlap" \
    --device "$DEVICE" "${articles[@]}" --json "$OUT/index_build_overlap_$overlap.json"
done
exit $status
