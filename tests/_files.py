"""Builders of test files (PDF, DOCX) and sample texts in several scripts, shared by the loader
tests (test_load.py) and the bad-input table (test_bad_input.py)."""
from __future__ import annotations

import io

ZH_SIMPLIFIED = (
    "检索增强生成是一种把信息检索和大语言模型结合起来的方法。系统先把知识库中的文档切分成句子，"
    "再为每个句子计算向量并存入向量数据库。用户提问时，系统找到最相关的句子，并把它们前后的上下文"
    "一起交给模型，让模型根据这些材料回答问题，从而减少编造的内容。\n"
    "我们的公司成立于二零一五年，总部位于上海，主要为中小企业提供财务软件和咨询服务。"
)
ZH_TRADITIONAL = (
    "檢索增強生成是一種把資訊檢索和大型語言模型結合起來的方法。系統先把知識庫中的文件切分成句子，"
    "再為每個句子計算向量並存入向量資料庫。使用者提問時，系統找到最相關的句子，並把它們前後的上下文"
    "一起交給模型，讓模型根據這些資料回答問題，從而減少編造的內容。\n"
    "我們的公司成立於二零一五年，總部位於臺北，主要為中小企業提供財務軟體和諮詢服務。"
)
LATIN = "Un café, un résumé et une idée naïve. Größe über alles! Déjà vu à Zürich.\n" * 3


def make_pdf(pages: list[str | None]) -> bytes:
    """A PDF with one page per entry: text drawn on it, or only a rectangle for None."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for text in pages:
        if text is None:
            c.rect(100, 100, 300, 400, fill=1)
        else:
            y = 750
            for line in text.split("\n"):
                c.drawString(72, y, line)
                y -= 20
        c.showPage()
    c.save()
    return buf.getvalue()


def make_encrypted_pdf(pages: list[str | None], user_password: str = "secret") -> bytes:
    """:func:`make_pdf`, encrypted: it opens only with ``user_password``."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(make_pdf(pages))).pages:
        writer.add_page(page)
    writer.encrypt(user_password=user_password, owner_password="owner")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def make_docx(paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    """A .docx with the first paragraph, then the table (if any), then the other paragraphs."""
    import docx

    d = docx.Document()
    for p in paragraphs[:1]:
        d.add_paragraph(p)
    if table:
        t = d.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for k, value in enumerate(row):
                t.cell(r, k).text = value
    for p in paragraphs[1:]:
        d.add_paragraph(p)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()
