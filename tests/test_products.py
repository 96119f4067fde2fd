"""Another product's question (answerable.product_absent): a question that asks about a kind of product
or a maker no document of the knowledge base names, in either language, is refused; one that names a
product in passing, or one the knowledge base names, is not."""
from __future__ import annotations

from types import SimpleNamespace

from swr.answer import products
from swr.manage.presets import preset_questions


def _names(question: str) -> list[str]:
    return [k.said() for k in products.asked(question)]


def test_the_subject_is_read_and_a_product_named_in_passing_is_not():
    assert _names("How do I clean the lint filter of my tumble dryer?") == ["a tumble dryer"]
    assert _names("洗衣机的滚筒怎么清洁？") == ["a washing machine"]
    assert _names("How often should I change the cabin air filter in my car?") == ["a car"]  # "in my": its subject
    assert _names("What is the warranty on the refrigerators?") == ["a refrigerator"]  # the plural
    assert _names("德龙咖啡机的除垢灯一直亮，怎么关掉") == ["a coffee machine", "De'Longhi"]  # a maker too
    # in passing: where a manual's "hand wash only" answers it
    assert _names("Can I put the basket in the washing machine?") == []
    assert _names("滤网能放进洗衣机洗吗？") == [] and _names("拖布能直接扔洗衣机里洗吗？") == []
    assert _names("Can I use the power station in my car?") == []  # a place of use
    assert _names("Does the XK32 support Bluetooth headsets?") == [] and _names("能连蓝牙耳机吗") == []  # a peripheral
    assert _names("How do I pair my Roborock S8 with the Mi Home app?") == ["Roborock"]  # what is paired: theirs
    assert _names("Can I put the portafilter in my Bosch dishwasher?") == []
    assert _names("我在小米手机的蓝牙里配对了 EB-300") == []  # the maker of the customer's phone
    assert _names("Does it work with my Samsung Galaxy S23 phone?") == []
    assert _names("小牛电动车 NQi 怎么绑定手机 App？") == ["an e-bike", "NIU"]
    assert _names("Can I connect the AB-3 to my laptop and my phone?") == []
    assert _names("can i dry them with a hair dryer") == []
    # a form inside a longer one of another kind is not read; a word inside another word is no form
    assert _names("My hair dryer smells of burning.") == ["a hair dryer"]
    assert _names("Is the lid dishwasher-safe?") == [] and _names("Does the card carry a chip?") == []
    # platforms a product works with are no makers: a manual answers "Does it work with Alexa?"
    assert _names("Does the app work with Alexa and Google Home?") == []


class _Store:
    """One knowledge base's sentences; counts the batched searches."""

    def __init__(self, texts: list[str]) -> None:
        self.texts, self.calls, self.gen = texts, 0, 0

    def generation(self, kb: str) -> int:
        return self.gen

    def search_many(self, reqs):
        self.calls += 1
        return [[SimpleNamespace(sentence=SimpleNamespace(text=t)) for t in self.texts] for _ in reqs]


class _Sparse:
    def encode_query(self, text: str):
        return SimpleNamespace(indices=[1] if text.strip() else [])


def test_a_kind_is_absent_only_when_no_form_of_it_is_written_in_either_language():
    store = _Store(["扫地机器人经常被困住时，可以尝试以下方法。", "The dock keeps the robot charged."])
    eng = SimpleNamespace(store=store, sparse=_Sparse())
    assert products.absent_products(eng, "How do I empty my robot vacuum?", "kb1") == ()  # its Chinese form
    assert products.absent_products(eng, "My washer leaks, what do I do?", "kb1") == ("a washing machine",)
    calls = store.calls
    assert products.absent_products(eng, "My washer leaks again.", "kb1") == ("a washing machine",)
    assert store.calls == calls  # cached until the knowledge base changes
    said = [SimpleNamespace(text="Clean the washing machine's drum monthly.")]  # in the retrieved passages
    assert products.absent_products(eng, "My washer leaks again.", "kb1", said) == ()
    other = SimpleNamespace(store=_Store(["Empty the washer's filter monthly."]), sparse=_Sparse())
    assert products.absent_products(other, "My washer leaks again.", "kb1") == ()  # another store's kb1
    store.texts.append("Never put the robot in the washing machine.")
    store.gen += 1
    assert products.absent_products(eng, "My washer leaks again.", "kb1") == ()
    calls = store.calls
    assert products.absent_products(eng, "How do I reset it?", "kb1") == () and store.calls == calls  # none asked
    broken = SimpleNamespace(store=None, sparse=_Sparse())
    assert products.absent_products(broken, "My Dyson is loud.", "kb2") == ()  # a hint only: never a failure


def test_another_products_question_is_refused_on_the_sample_manuals(e5_engine):
    for q in ("How do I clean the filter of my dehumidifier?", "冰箱冷藏室温度设置多少合适？",
              "My washing machine shows E4, what does it mean?", "How do I descale my Nespresso?"):
        a = e5_engine.ask(q, "sample", llm=False)
        assert not a.answerable and a.answerability["rules"] == ["answerable.product_absent"], q
        assert "no document of this knowledge base names" in a.answerability["reason"]
    # what the manuals name, in either language, is not: the rice cooker's manual is Chinese
    for q in ("How do I descale the kettle?", "What does E4 mean on the rice cooker?", "空气炸锅可以放进洗碗机吗？"):
        a = e5_engine.ask(q, "sample", llm=False)
        assert "answerable.product_absent" not in a.answerability["rules"], q
    for q in preset_questions(e5_engine.settings, "sample"):
        assert "answerable.product_absent" not in e5_engine.ask(q, "sample", llm=False).answerability["rules"], q
