"""Which local GGUF model should the demo use? Answers to a few sample questions, side by side.

    .venv/bin/python bench/local_models.py --gguf models/a.gguf --gguf /path/b.gguf [--threads 1]

For each model: the answer to each question over the sample KB (window 3, top 3), time to the
first token and to the full answer, and generated tokens/s (llama.cpp's own count from the
server's usage figures is not streamed, so tokens are counted with swr's tokenizer: an estimate).
Quality is read by a person: the printed answers are the result.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from swr.core.settings import Settings
from swr.core.tokens import count_tokens
from swr.engine import Engine

QUESTIONS = [
    "电热水壶第一次使用前要做什么？",
    "空气炸锅可以用来煮咖啡吗？",
    "电热水壶整机保修多久？",
    "What does E4 mean on the rice cooker?",
    "How long is the air fryer's warranty?",
    "Who won the 2018 football world cup?",  # off-topic: the answer should be "not in the documents"
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguf", action="append", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--home", default=os.environ.get("SWR_HOME", "bench/out/home_local_models"))
    a = ap.parse_args()
    for gguf in a.gguf:
        s = Settings.from_env(env={}, home=Path(a.home), llm_gguf=gguf, llm_threads=a.threads)
        eng = Engine(s)
        eng.ensure_sample()
        print(f"\n=== {Path(gguf).name} ({a.threads} thread(s))")
        t0 = time.perf_counter()
        eng.answerer.local_server().start()
        print(f"load: {time.perf_counter() - t0:.1f} s")
        for q in QUESTIONS:
            result, stream = eng.ask_stream(q, "sample", window_size=3, top_k=3)
            t0 = time.perf_counter()
            first = [None]

            def on_delta(_d, first=first, t0=t0):
                if first[0] is None:
                    first[0] = time.perf_counter() - t0

            eng.finish(result, stream, on_delta)
            total = time.perf_counter() - t0
            gen = count_tokens(result.answer)
            decode = max(total - (first[0] or 0), 1e-6)
            print(f"\nQ: {q}\nA ({result.answer_kind}; first token {first[0] or 0:.2f} s, full {total:.2f} s, "
                  f"~{gen / decode:.1f} tokens/s, prompt ~{result.context_tokens} context tokens):\n"
                  f"{result.answer.strip()}")
            if result.llm_error:
                print("LLM error:", result.llm_error)
        eng.close()


if __name__ == "__main__":
    main()
