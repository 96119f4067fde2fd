"""The forward pass of :class:`swr.embed.e5_torch.E5Torch` (BERT's, written out by hand: why there),
run op by op or compiled by TorchScript: one call that runs in C++ with the GIL released, instead
of ~200 Python-dispatched operations that each take it.

Why: torch releases the GIL inside every operation but takes it back between them,
so an eager pass in a busy process queues for the GIL about 200 times. On the 2-core AMD EPYC,
a question and its translation took 13 ms alone and 3.9 s beside three Python threads running
pure Python; scripted, 12 ms and 68 ms (the CPU share of four threads on two cores). Under
eight askers and an upload a question's pass took 61 ms of wall clock for 21 ms of CPU.

One module for both ways: the scripted pass is used only when it equals the op-by-op one to the
bit (checked at load; tests/test_e5_torch.py on real texts). Imported by ``E5Torch`` after torch.
"""
from __future__ import annotations

from typing import List, Optional, Union

import torch
import torch.nn.functional as F

# ``Scalar?[]`` of mkldnn::_linear_pointwise (TorchScript calls Scalar "number")
_NO_SCALARS = List[Optional[Union[int, float, complex]]]


class Layer(torch.nn.Module):
    """One BERT layer: fused QKV, attention, output, feed-forward."""

    def __init__(self, ly: dict, heads: int, eps: float, dtype, prepacked: bool) -> None:
        super().__init__()
        self.heads, self.eps, self.dtype, self.prepacked = heads, eps, dtype, prepacked
        for k in ("qkv", "ao", "fi", "fo", "aln", "oln"):
            self.register_buffer(k + "_w", ly[k][0])
            self.register_buffer(k + "_b", ly[k][1])

    def linear(self, x, w, b):
        if self.prepacked:
            return torch.ops.mkldnn._linear_pointwise(x, w, b, "none", torch.jit.annotate(_NO_SCALARS, []), "")
        return F.linear(x, w, b)

    def forward(self, x, attend: Optional[torch.Tensor]):
        B, T, H = x.shape
        nh = self.heads
        qkv = self.linear(x.to(self.dtype), self.qkv_w, self.qkv_b).view(B, T, 3, nh, H // nh).permute(2, 0, 3, 1, 4)
        ctx = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=attend)
        ctx = ctx.transpose(1, 2).reshape(B, T, H)
        x = F.layer_norm(x + self.linear(ctx, self.ao_w, self.ao_b).float(), [H], self.aln_w, self.aln_b, self.eps)
        h = F.gelu(self.linear(x.to(self.dtype), self.fi_w, self.fi_b))
        return F.layer_norm(x + self.linear(h, self.fo_w, self.fo_b).float(), [H], self.oln_w, self.oln_b, self.eps)


class Encoder(torch.nn.Module):
    """Embedding LayerNorm and the layers: last hidden states of word embeddings under a mask."""

    def __init__(self, model) -> None:
        super().__init__()
        self.eps = model.eps
        self.register_buffer("pos", model.pos)
        self.register_buffer("type0", model.type0)
        self.register_buffer("eln_w", model.eln[0])
        self.register_buffer("eln_b", model.eln[1])
        self.layers = torch.nn.ModuleList([Layer(ly, model.heads, model.eps, model.dtype, model.prepacked)
                                           for ly in model.layers])

    def forward(self, emb, mask, masked: bool):
        B, T, H = emb.shape
        x = F.layer_norm(emb + self.pos[:T] + self.type0, [H], self.eln_w, self.eln_b, self.eps)
        attend: Optional[torch.Tensor] = None
        if masked:
            attend = mask[:, None, None, :] > 0
        for layer in self.layers:
            x = layer(x, attend)
        return x


def compile_encoder(encoder: Encoder):
    """``encoder`` scripted (about 0.05 s), or None where this torch cannot script it.

    TorchScript, not ``torch.compile``: torch 2.13 marks ``torch.jit.script`` deprecated, but
    ``torch.compile`` on a CPU generates and builds C++ at first use (a compiler at run time, tens
    of seconds on two cores, again for new shapes), and ``torch.export`` needs the same to run
    without Python. A torch without TorchScript gets None here, and so the eager pass."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return torch.jit.script(encoder.eval())
    except Exception:  # noqa: BLE001 - any TorchScript failure: the eager pass is used instead
        return None
