"""Small talk (answerable.small_talk): a question closer to a small-talk example than to the
knowledge base is refused as small talk; a question about the documents that opens with a greeting is not."""
from __future__ import annotations

import numpy as np

from swr.answer import smalltalk
from swr.core.rules.answerable import DEFAULT_ANSWER
from swr.manage.presets import preset_questions


class _Embedder:
    """Small-talk examples on one axis, everything else on another; counts its batch calls."""

    name, runtime, dim = "smalltalk-test", "test", 2

    def __init__(self) -> None:
        self.batches = 0
        self.chat = set(smalltalk.examples())

    def encode_query(self, text: str) -> np.ndarray:
        if text in self.chat or text.startswith("chat:"):
            return np.array([1.0, 0.0], dtype=np.float32)
        if text.startswith("half:"):
            return np.array([0.92, 0.392], dtype=np.float32)
        return np.array([0.0, 1.0], dtype=np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        self.batches += 1
        return np.stack([self.encode_query(t) for t in texts])


def test_the_examples_speak_both_languages():
    rows = [line.split("\t") for line in smalltalk.EXAMPLES.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    assert len(rows) >= 50 and {lang for lang, _ in rows} == {"en", "zh"}


def test_small_talk_needs_the_bar_and_the_margin_above_the_knowledge_base():
    e = _Embedder()
    assert smalltalk.small_talk(e, "chat: hello", 0.80, DEFAULT_ANSWER)  # 1.0 to an example, 0.2 above
    assert smalltalk.small_talk(e, "chat: hello", 0.97, DEFAULT_ANSWER) is None  # the KB is as close
    assert smalltalk.small_talk(e, "half: hello", 0.50, DEFAULT_ANSWER)  # 0.92 >= 0.90
    assert smalltalk.small_talk(e, "How do I descale the kettle?", 0.80, DEFAULT_ANSWER) is None  # 0.0
    assert e.batches == 1  # the examples are embedded once per process and model
    e.encode_query = None  # the retrieval's own vector: nothing asked of the embedder about the question
    assert smalltalk.small_talk(e, "How do I descale the kettle?", 0.5, DEFAULT_ANSWER,
                                vector=np.array([1.0, 0.0], dtype=np.float32))


def test_small_talk_is_refused_as_such_and_a_greeting_before_a_question_is_not(e5_engine):
    for q in ("Tell me a joke.", "给我讲个笑话吧。", "谢谢，再见！"):
        a = e5_engine.ask(q, "sample", llm=False)
        assert not a.answerable and a.answerability["rules"] == ["answerable.small_talk"], q
        assert "small talk" in a.answerability["reason"]
        assert a.answer in ("I answer questions about this knowledge base's documents: ask me about them.",
                            "我只回答与此知识库文档有关的问题，请就文档内容提问。")  # not "nothing found"
    for q in ("Hi! How do I descale the kettle?", "你好，电饭煲显示E4是什么意思？"):
        a = e5_engine.ask(q, "sample", llm=False)
        assert a.answerable and "answerable.small_talk" not in a.answerability["rules"], q


def test_no_preset_question_of_the_sample_reads_as_small_talk(e5_engine):
    questions = preset_questions(e5_engine.settings, "sample")
    assert questions
    for q in questions:
        a = e5_engine.ask(q, "sample", llm=False)
        assert "answerable.small_talk" not in a.answerability["rules"], q
