"""The bilingual FAQ set (bench/data/faq_bilingual/): its shape, and every answer verbatim in its page."""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAQ = ROOT / "bench" / "data" / "faq_bilingual"
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def real_data():
    """bench/real_data.py, where bench/real_kbs.py's sets are read."""
    sys.path.insert(0, str(ROOT / "bench"))
    import real_data

    return real_data


def test_every_answer_is_verbatim_in_its_page(real_data):
    docs, qs, off = real_data.faq()
    assert len(docs) == 60 and len(qs) == 120 and len(off) == 20
    cells = Counter((q["kind"], q["lang"]) for q in qs)
    assert cells == {("same", "en"): 30, ("same", "zh"): 30, ("cross", "en"): 30, ("cross", "zh"): 30}
    for q in qs:
        page_lang = q["doc"][:2]
        assert (q["lang"] == page_lang) == (q["kind"] == "same"), q
        assert bool(HAN.search(q["q"])) == (q["lang"] == "zh"), q
    assert Counter(q["lang"] for q in off) == {"en": 10, "zh": 10}


def test_pages_are_one_language_each():
    for p in sorted((FAQ / "pages").glob("*.md")):
        han = len(HAN.findall(p.read_text(encoding="utf-8")))
        assert (han == 0) if p.name.startswith("en") else han > 40, p.name


def test_a_changed_answer_is_caught(real_data, tmp_path, monkeypatch):
    qs = json.loads((FAQ / "questions.json").read_text(encoding="utf-8"))
    qs[0]["answers"] = ["not written on any page"]
    (tmp_path / "pages").symlink_to(FAQ / "pages")
    (tmp_path / "questions.json").write_text(json.dumps(qs, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setattr(real_data, "FAQ", tmp_path)
    with pytest.raises(ValueError, match="not written on any page"):
        real_data.faq()
