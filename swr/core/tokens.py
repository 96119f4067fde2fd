"""Token counts: tiktoken's cl100k_base from the copy llama-index ships (never the network), else
a deterministic heuristic. Context sizes, chunk sizes and prompt budgets are all counted here.
"""
from __future__ import annotations

import functools
import logging
import math
from typing import Any

from swr.core.lang import count_cjk

log = logging.getLogger("swr.core.tokens")

_CL100K_FILE = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"  # sha1 of the cl100k_base blob URL
_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


def heuristic_tokens(text: str) -> int:
    """Deterministic token estimate: each CJK character counts 1, other text about len/4."""
    cjk = count_cjk(text)
    return cjk + math.ceil((len(text) - cjk) / 4)


@functools.lru_cache(maxsize=1)
def offline_encoding() -> Any:
    """tiktoken's cl100k_base loaded from the copy llama-index-core ships, or None.

    Only a local file path is ever given to tiktoken, so this never touches the network.
    """
    try:
        import importlib.util
        import os

        import tiktoken
        from tiktoken.load import load_tiktoken_bpe

        spec = importlib.util.find_spec("llama_index.core")
        if spec is None or not spec.submodule_search_locations:
            return None
        base = list(spec.submodule_search_locations)[0]
        path = os.path.join(base, "_static", "tiktoken_cache", _CL100K_FILE)
        if "://" in path or not os.path.isfile(path):
            return None
        ranks = load_tiktoken_bpe(path, expected_hash=_CL100K_SHA256)
        return tiktoken.Encoding(
            name="cl100k_base", pat_str=_CL100K_PAT, mergeable_ranks=ranks, special_tokens={}
        )
    except Exception as exc:  # any failure: fall back to the heuristic
        log.debug("tiktoken unavailable offline, using the heuristic (%s)", type(exc).__name__)
        return None


def count_tokens(text: str) -> int:
    """Number of tokens in ``text``: tiktoken cl100k_base when its files are on disk, else
    :func:`heuristic_tokens`. Never makes a network call."""
    enc = offline_encoding()
    if enc is not None:
        return len(enc.encode_ordinary(text))
    return heuristic_tokens(text)


def tokenizer():
    """A ``text -> list`` tokenizer of the same counts (for llama-index's splitters)."""
    enc = offline_encoding()
    if enc is not None:
        return enc.encode_ordinary
    return lambda text: [0] * heuristic_tokens(text)
