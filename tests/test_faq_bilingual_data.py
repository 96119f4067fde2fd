"""The bilingual FAQ sets (bench/data/faq_bilingual/, faq_bilingual2/, 3/ and 4/): their shape,
and every answer verbatim in its page."""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAQ = ROOT / "bench" / "data" / "faq_bilingual"
FAQ2 = ROOT / "bench" / "data" / "faq_bilingual2"
FAQ3 = ROOT / "bench" / "data" / "faq_bilingual3"
FAQ4 = ROOT / "bench" / "data" / "faq_bilingual4"
# (folder, pages, answerable questions a cell)
SETS = [(FAQ, 60, 30), (FAQ2, 40, 20), (FAQ3, 50, 20), (FAQ4, 40, 20)]
IDS = [folder.name for folder, _, _ in SETS]
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def real_data():
    """bench/real_data.py, where bench/real_kbs.py's sets are read."""
    sys.path.insert(0, str(ROOT / "bench"))
    import real_data

    return real_data


@pytest.mark.parametrize("folder,pages,per_cell", SETS, ids=IDS)
def test_every_answer_is_verbatim_in_its_page(real_data, folder, pages, per_cell):
    docs, qs, off = real_data.faq(folder)
    assert len(docs) == pages and len(qs) == 4 * per_cell and len(off) == 20
    cells = Counter((q["kind"], q["lang"]) for q in qs)
    assert cells == {("same", "en"): per_cell, ("same", "zh"): per_cell, ("cross", "en"): per_cell,
                     ("cross", "zh"): per_cell}
    assert {q["doc"] for q in qs} == {name for name, _ in docs}  # every page is asked about
    for q in qs:
        page_lang = q["doc"][:2]
        assert (q["lang"] == page_lang) == (q["kind"] == "same"), q
        assert bool(HAN.search(q["q"])) == (q["lang"] == "zh"), q
    assert Counter(q["lang"] for q in off) == {"en": 10, "zh": 10}


@pytest.mark.parametrize("folder", [f for f, _, _ in SETS], ids=IDS)
def test_pages_are_one_language_each(folder):
    for p in sorted((folder / "pages").glob("*.md")):
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
