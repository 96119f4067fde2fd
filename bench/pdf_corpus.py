"""Generated PDF manuals with their source sentences known (for bench/pdf_sentences.py).

Each seed varies the body font (Helvetica, Times, Courier) and size (9-12 pt), line leading
(1.15-1.45), paragraph spacing (0.5-1.2 font sizes, or first-line indents with none), margins,
justified or ragged text, one or two columns, the running header and footer (with page numbers),
and the mix of blocks: headings (bold, larger), English and Chinese paragraphs (STSong-Light),
bullet lists with hanging indents, tables, lines in mixed fonts (bold and italic words), words
hyphenated at line ends and model numbers (KX-2000) broken after their hyphen. Lines are laid
out here (greedy, word by word), so every unit of the truth is a sentence as written.
"""
from __future__ import annotations

import io
import random
from dataclasses import dataclass

EN_WORDS = ("filter water tank compressor coil valve handle cord plug switch display sensor fan motor "
            "drain hose panel timer humidity temperature setting maintenance condensation reservoir "
            "warranty service technician cabinet outlet voltage airflow bracket gasket").split()
EN_VERBS = "clean check replace empty inspect unplug restart adjust drain store dry lift".split()
EN_ADJ = "damp clogged warm noisy loose cracked dusty frozen humid dry narrow standard".split()
LONG = ("extraordinarily maintenance condensation manufacturer recommendation responsibility "
        "installation circulation refrigerant temperature accumulated dehumidifier").split()
MODELS = ["KX-2000", "DH-20", "AB-310", "Wi-Fi", "QX-7"]
ZH_PARTS = ["本机在运行时会自动检测室内湿度", "请定期清洗过滤网", "水箱装满后压缩机将停止工作",
            "使用前请仔细阅读本说明书", "不要在低于五摄氏度的房间内使用本机", "排水管必须保持畅通",
            "如果指示灯闪烁请联系售后服务中心", "保修期内免费更换损坏的零件", "清洁前务必拔下电源插头",
            "设备应放置在平稳的地面上", "长时间不用时请倒空水箱", "出风口不得被遮挡"]


@dataclass
class Manual:
    """A generated PDF and the units it holds in reading order (sentences, headings, items, rows)."""

    pdf: bytes
    units: list[str]
    seed: int
    style: dict


def en_sentence(rng: random.Random) -> str:
    n = rng.randint(6, 22)
    words = []
    for _ in range(n):
        r = rng.random()
        w = (rng.choice(LONG) if r < 0.12 else rng.choice(MODELS) if r < 0.17 else str(rng.randint(2, 400))
             if r < 0.22 else rng.choice(EN_VERBS) if r < 0.4 else rng.choice(EN_ADJ) if r < 0.55
             else rng.choice(EN_WORDS) if r < 0.85 else rng.choice(["the", "a", "of", "and", "in", "when"]))
        words.append(w)
    if n > 10 and rng.random() < 0.4:
        words[n // 2] += rng.choice([",", ";"])
    words[0] = words[0][:1].upper() + words[0][1:]
    return " ".join(words) + rng.choice([".", ".", ".", ".", "?", "!"])


def zh_sentence(rng: random.Random) -> str:
    parts = rng.sample(ZH_PARTS, rng.randint(1, 3))
    return "，".join(parts) + rng.choice(["。", "。", "！", "？"])


class _Writer:
    """Greedy line layout on a reportlab canvas, column by column, page by page."""

    def __init__(self, rng: random.Random, style: dict, pages_total: int | None) -> None:
        from reportlab.lib.pagesizes import A4, LETTER
        from reportlab.pdfgen import canvas

        self.rng, self.s = rng, style
        self.W, self.H = (A4 if style["a4"] else LETTER)
        self.buf = io.BytesIO()
        self.c = canvas.Canvas(self.buf, pagesize=(self.W, self.H), invariant=1)
        self.total = pages_total
        self.page = 0
        m = style["margin"]
        gut = 24
        cw = (self.W - 2 * m - (gut if style["cols"] == 2 else 0)) / style["cols"]
        self.cols = [(m + k * (cw + gut), cw) for k in range(style["cols"])]
        self.col = 0
        self._new_page()

    def _new_page(self) -> None:
        if self.page:
            self.c.showPage()
        self.page += 1
        self.col = 0
        self.y = self.H - self.s["margin"] - 10
        s = self.s
        if s["header"]:
            self._plain(self.s["margin"], self.H - self.s["margin"] + 14, s["header"], "Helvetica", 8)
        foot = s["footer"].replace("{n}", str(self.page)).replace("{m}", str(self.total or 0))
        self._plain(self.W / 2 - 10, self.s["margin"] - 24, foot, "Helvetica", 8)

    def x(self) -> float:
        return self.cols[self.col][0]

    def width(self) -> float:
        return self.cols[self.col][1]

    def need(self, h: float) -> None:
        """Move to the next column or page unless ``h`` points fit."""
        if self.y - h < self.s["margin"]:
            if self.col + 1 < len(self.cols):
                self.col += 1
                self.y = self.H - self.s["margin"] - 10
            else:
                self._new_page()

    def space(self, h: float) -> None:
        self.y -= h

    # -- lines ---------------------------------------------------------------------------
    def paragraph(self, words: list[tuple[str, str]], size: float, justify: bool, cjk: bool,
                  indent: float = 0.0, hang: float = 0.0, hyphens: bool = True) -> None:
        """Lay out ``words`` (text, font) in lines of the current column; the first line is
        indented by ``indent``, the others by ``hang``."""
        from reportlab.pdfbase.pdfmetrics import stringWidth

        lead = size * self.s["lead"]
        todo = list(words)
        first = True
        while todo:
            off = indent if first else hang
            avail = self.width() - off
            line, todo = self._fill(todo, avail, size, cjk, stringWidth, hyphens)
            self.need(lead)
            self.y -= lead
            self._draw(line, self.x() + off, avail, size, justify and bool(todo), cjk, stringWidth)
            first = False

    def _fill(self, todo, avail, size, cjk, sw, hyphens=True):
        """The words of one line, and the rest (a long word hyphenated, a model number broken
        after its hyphen)."""
        line, w = [], 0.0
        gap = 0.0 if cjk else sw(" ", todo[0][1], size)
        for k, (text, font) in enumerate(todo):
            ww = sw(text, font, size)
            if not line or w + gap + ww <= avail:
                if line and w + gap + ww > avail:
                    break
                line.append((text, font))
                w += (gap if len(line) > 1 else 0) + ww
                continue
            room = avail - w - gap
            for cut in self._cuts(text) if hyphens else ():
                head = text[:cut] if text[cut - 1] == "-" else text[:cut] + "-"
                if sw(head, font, size) <= room:
                    return line + [(head, font)], [(text[cut:], font)] + todo[k + 1:]
            return line, todo[k:]
        return line, []

    @staticmethod
    def _cuts(text: str) -> list[int]:
        if len(text) >= 8 and text.isalpha() and text.islower():
            return list(range(len(text) - 3, 3, -1))
        if "-" in text and any(ch.isdigit() for ch in text):
            return [text.index("-") + 1]
        return []

    def _draw(self, line, x, avail, size, justify, cjk, sw) -> None:
        fonts = {f for _, f in line}
        sep = "" if cjk else " "
        natural = sum(sw(t, f, size) for t, f in line) + (0 if cjk else sw(" ", line[0][1], size) * (len(line) - 1))
        extra = max(0.0, avail - natural) if justify else 0.0
        c = self.c
        if len(fonts) == 1:
            t = c.beginText(x, self.y)
            t.setFont(line[0][1], size)
            text = sep.join(w for w, _ in line)
            t.setWordSpace(0)  # (reportlab keeps a text object's spacing for the next one)
            t.setCharSpace(0)
            if extra and cjk and len(text) > 1:
                t.setCharSpace(extra / (len(text) - 1))
            elif extra and len(line) > 1:
                t.setWordSpace(extra / (len(line) - 1))
            t.textOut(text)
            c.drawText(t)
            return
        space = sw(" ", line[0][1], size) + (extra / (len(line) - 1) if extra and len(line) > 1 else 0)
        for text, font in line:
            self._plain(x, self.y, text, font, size)
            x += sw(text, font, size) + space

    def _plain(self, x: float, y: float, text: str, font: str, size: float) -> None:
        """``text`` at ``x, y`` without the word or character spacing a justified line left set."""
        t = self.c.beginText(x, y)
        t.setFont(font, size)
        t.setWordSpace(0)
        t.setCharSpace(0)
        t.textOut(text)
        self.c.drawText(t)

    def cells(self, row: list[str], xs: list[float], font: str, size: float) -> None:
        self.need(size * self.s["lead"] * 1.4)
        self.y -= size * self.s["lead"] * 1.4
        for text, x in zip(row, xs):
            self._plain(self.x() + x, self.y, text, font, size)

    def done(self) -> tuple[bytes, int]:
        self.c.showPage()
        self.c.save()
        return self.buf.getvalue(), self.page


FAMILIES = {"Helvetica": ("Helvetica", "Helvetica-Bold", "Helvetica-Oblique"),
            "Times": ("Times-Roman", "Times-Bold", "Times-Italic"),
            "Courier": ("Courier", "Courier-Bold", "Courier-Oblique")}
TABLES = [["Model", "Power", "Weight"], ["Code", "Meaning", "Action"], ["Part", "Interval", "Note"]]
CELLS = ["DH-20", "KX-2000", "200 W", "12 kg", "E1", "tank full", "empty tank", "filter", "monthly",
         "replace", "3 months", "E4", "sensor fault", "call service", "350 W", "15 kg"]


def make_style(rng: random.Random) -> dict:
    fam = rng.choice(sorted(FAMILIES))
    indent_style = rng.random() < 0.3
    return {"family": fam, "size": rng.choice([9, 9.5, 10, 10.5, 11, 12]), "lead": rng.uniform(1.15, 1.45),
            "para": rng.uniform(0.0, 0.2) if indent_style else rng.uniform(0.5, 1.2),
            "indent": rng.uniform(1.5, 2.5) if indent_style else 0.0, "margin": rng.uniform(50, 90),
            "justify": rng.random() < 0.5, "cols": 2 if rng.random() < 0.4 else 1, "zh": rng.random() < 0.5,
            "a4": rng.random() < 0.5, "mixed": rng.random() < 0.5,
            "header": rng.choice(["", "DH-20 Dehumidifier User Manual", "KX-2000 Service Guide"]),
            "footer": rng.choice(["Page {n} of {m}", "{n}", "- {n} -", "Page {n}"])}


def manual(seed: int, blocks: int = 45) -> Manual:
    """The manual of ``seed`` (laid out twice: the second pass knows the page count)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    total = None
    for _ in range(2):
        rng = random.Random(seed)
        style = make_style(rng)
        w = _Writer(rng, style, total)
        units = _fill_manual(w, rng, style, blocks)
        pdf, total = w.done()
    return Manual(pdf, units, seed, style)


def _fill_manual(w: _Writer, rng: random.Random, s: dict, blocks: int) -> list[str]:
    regular, bold, italic = FAMILIES[s["family"]]
    size = s["size"]
    units: list[str] = []
    for b in range(blocks):
        r = rng.random()
        if r < 0.12 or b == 0:
            hs = size + rng.choice([2, 3, 4, 6])
            title = f"{b + 1} " + " ".join(rng.sample(EN_WORDS, rng.randint(1, 3))).capitalize()
            w.space(size * rng.uniform(0.8, 1.5))
            w.paragraph([(t, bold) for t in title.split()], hs, False, False, hyphens=False)
            w.space(size * rng.uniform(0.3, 0.6))
            units.append(title)
        elif r < 0.22:
            hang = size * 1.2
            for _ in range(rng.randint(2, 5)):
                sents = [en_sentence(rng) for _ in range(rng.randint(1, 2))]
                units.extend(["\u2022 " + sents[0]] + sents[1:])
                words = [("\u2022", regular)] + [(t, regular) for t in " ".join(sents).split()]
                w.paragraph(words, size, s["justify"], False, hang=hang)
                w.space(size * 0.3)
            w.space(size * s["para"])
        elif r < 0.3:
            from reportlab.pdfbase.pdfmetrics import stringWidth

            head = rng.choice(TABLES)
            rows = [[rng.choice(CELLS) for _ in head] for _ in range(rng.randint(2, 5))]
            pad = rng.uniform(12, 30)  # cell padding, as reportlab's Table (6 pt a side) or wider
            tsize = size
            while True:  # a table in a narrow column: less padding, then a smaller font
                widths = [max(stringWidth(r[c], bold, tsize) for r in [head] + rows) for c in range(len(head))]
                if sum(widths) + pad * (len(head) - 1) <= w.width() or tsize < 6:
                    break
                pad, tsize = (12, tsize) if pad > 12 else (pad, tsize - 0.5)
            xs = [0.0]
            for c in range(len(head) - 1):
                xs.append(xs[-1] + pad + widths[c])
            w.space(size * 0.5)
            w.need(size * s["lead"] * 1.4 * 3)  # no header alone at the foot of a column
            w.cells(head, xs, bold, tsize)
            units.append("\t".join(head))
            for row in rows:
                w.cells(row, xs, regular, tsize)
                units.append("\t".join(f"{h}: {c}" for h, c in zip(head, row)))
            w.space(size * (0.5 + s["para"]))
        elif s["zh"] and r < 0.55:
            sents = [zh_sentence(rng) for _ in range(rng.randint(2, 5))]
            units.extend(sents)
            w.paragraph([(ch, "STSong-Light") for ch in "".join(sents)], size, s["justify"], True,
                        indent=s["indent"] * size)
            w.space(size * s["para"])
        else:
            sents = [en_sentence(rng) for _ in range(rng.randint(1, 6))]
            units.extend(sents)
            words = [(t, rng.choice([bold, italic]) if s["mixed"] and rng.random() < 0.08 else regular)
                     for t in " ".join(sents).split()]
            w.paragraph(words, size, s["justify"], False, indent=s["indent"] * size)
            w.space(size * s["para"])
    return units
