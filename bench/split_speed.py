"""Splitter speed on the 1 MB lines of tests/test_bad_input.py (and a line of flags), optionally
side by side with another version of swr/text/split.py (say the one before a change):

    python bench/split_speed.py                      # this tree's splitter
    git show REV:swr/text/split.py > /tmp/split_old.py && python bench/split_speed.py /tmp/split_old.py

Best of 5 runs per case (wall time; noisy on a shared machine), sentences per case.
"""
from __future__ import annotations

import importlib.util
import sys
import time

from swr.text import split as current

LONG_LINE = " ".join(f"word{k % 997}" for k in range(130_000))[:1_000_000]
_ZH = "电热水壶第一次使用前请将壶内装满水至刻度煮沸后倒掉重复两到三次以去除异味"
CASES = {
    "1 MB line, words, no punctuation": LONG_LINE,
    "1 MB of UTF-8 Chinese, no spaces": (_ZH * (1_000_000 // 3 // len(_ZH) + 1))[: 1_000_000 // 3],
    "100k one-character lines": "".join(chr(ord("a") + k % 26) + "\n" for k in range(100_000)),
    "1 MB line of flags": "a" + "\U0001F1E8\U0001F1F3" * 500_000,
}


def load(path: str):
    spec = importlib.util.spec_from_file_location("swr.split_other", path)  # in swr: relative imports work
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def best_ms(split_spans, text: str, runs: int = 5) -> tuple[float, int]:
    best, n = float("inf"), 0
    for _ in range(runs):
        t0 = time.perf_counter()
        n = len(split_spans(text, 300))
        best = min(best, time.perf_counter() - t0)
    return best * 1000, n


def main() -> None:
    versions = [("this tree", current)] + [(p, load(p)) for p in sys.argv[1:]]
    print("case\t" + "\t".join(f"{name}: ms\tsentences" for name, _ in versions))
    for case, text in CASES.items():
        row = [case]
        for _, mod in versions:
            ms, n = best_ms(mod.split_spans, text)
            row += [f"{ms:.0f}", str(n)]
        print("\t".join(row))


if __name__ == "__main__":
    main()
