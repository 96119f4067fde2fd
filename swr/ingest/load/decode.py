"""Plain-text files: encoding detection (see :mod:`swr.ingest.load` for the order of the steps)."""
from __future__ import annotations

import re
from functools import lru_cache

from swr.core.errors import EmptyDocument, Undecodable
from swr.core.lang import CJK_PUNCT_RE
from swr.ingest.load.names import normalize_newlines, require_text

_CONTROL_SHARE_LIMIT = 0.10
_LEGACY_MIN_SCORE = 0.6
_SCORE_SAMPLE_CHARS = 4000


def load_text(data: bytes, src: str) -> tuple[str, str]:
    if not data:
        raise EmptyDocument(f"{src}: the file is empty", source=src)
    text, encoding = decode_bytes(data, src)
    text = normalize_newlines(text)
    require_text(src, text, "the file contains only whitespace, no text")
    return text, encoding


def decode_bytes(data: bytes, src: str) -> tuple[str, str]:
    """Decode a text file's bytes by detection (see the module docstring): (text, encoding).

    Raises :class:`Undecodable` (naming ``src``) for binary data.
    """
    result = decode_bom(data, src)
    if result is None and b"\0" in data:
        result = _decode_utf16_without_bom(data, src)
    if result is None:
        result = _decode_utf8(data)
    if result is None:
        result = _decode_legacy(data)
    text, encoding = result
    reject_binary_text(text, src)
    return text, encoding


_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig", "utf-8"),
    (b"\xff\xfe\x00\x00", "utf-32-le", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be", "utf-16-be"),
)


def decode_bom(data: bytes, src: str) -> tuple[str, str] | None:
    for bom, label, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec), label
            except UnicodeDecodeError as e:
                raise Undecodable(
                    f"{src}: starts with a {label.upper()} byte-order mark but is not valid "
                    f"{label.upper()} at byte {e.start + len(bom)}",
                    source=src,
                ) from None
    return None


def _decode_utf16_without_bom(data: bytes, src: str) -> tuple[str, str]:
    """UTF-16 when the NUL bytes say so (ASCII-heavy UTF-16), or when one byte order decodes
    to plausible text (CJK-heavy UTF-16: ``一`` is ``00 4E`` in UTF-16-LE, so its NULs sit on
    the other parity than those of ASCII); else the data is binary."""
    even = data[0::2].count(0)
    odd = data[1::2].count(0)
    total = even + odd
    if len(data) % 2 == 0 and total:
        likely = "utf-16-le" if odd >= even else "utf-16-be"
        by_nul = max(even, odd) >= 0.95 * total
        best: tuple[float, str, str] | None = None
        for codec in (likely, "utf-16-be" if likely == "utf-16-le" else "utf-16-le"):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                continue
            if _control_share(text) > _CONTROL_SHARE_LIMIT:
                continue
            if codec == likely and by_nul:
                return text, codec
            score = _utf16_score(text)
            if best is None or score > best[0]:
                best = (score, text, codec)
        if best is not None and best[0] >= _UTF16_MIN_SCORE:
            return best[1], best[2]
    raise Undecodable(f"{src}: the file is binary (contains NUL bytes), not text", source=src)


_UTF16_MIN_SCORE = 0.9


def _utf16_score(text: str) -> float:
    """Share of characters of the first ~4000 that are ordinary text in a common script.

    Bytes read in the wrong order (or binary data) land mostly on rare ideographs, Hangul or
    private-use characters, far below 0.9; text read in the right order scores near 1.
    """
    sample = text[:_SCORE_SAMPLE_CHARS]
    if not sample:
        return 0.0
    common = _common_cjk()
    good = 0
    for ch in sample:
        cp = ord(ch)
        if (0x20 <= cp < 0x7F or ch in "\t\n\r\f\v" or 0xA0 <= cp <= 0x6FF or 0x2000 <= cp <= 0x206F
                or 0x3000 <= cp <= 0x30FF or 0xFF01 <= cp <= 0xFF65 or ch in common):
            good += 1
    return good / len(sample)


def _decode_utf8(data: bytes) -> tuple[str, str] | None:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    non_ascii = sum(len(m) for m in _NON_ASCII_RUN.findall(text[:200_000]))
    if non_ascii >= 100 and bad * 100 <= non_ascii:
        return text, "utf-8 (repaired)"
    return None


def _decode_legacy(data: bytes) -> tuple[str, str]:
    """Best of gb18030 / big5 / cp1252 (or latin-1) by plausibility; charset-normalizer after."""
    candidates: list[tuple[float, str, str]] = []
    latin = "cp1252"
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        latin, text = "latin-1", data.decode("latin-1")
    candidates.append((_latin_score(text), text, latin))
    for codec in ("gb18030", "big5"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        candidates.append((_cjk_score(text), text, codec))
    best = candidates[0]
    for cand in candidates[1:]:
        if cand[0] > best[0]:
            best = cand
    if best[0] >= _LEGACY_MIN_SCORE:
        return best[1], best[2]
    guess = _charset_normalizer_guess(data)
    return guess if guess is not None else (best[1], best[2])


def _charset_normalizer_guess(data: bytes) -> tuple[str, str] | None:
    try:
        from charset_normalizer import from_bytes

        match = from_bytes(data).best()
    except Exception:  # a detector failure is not the user's problem
        return None
    if match is None or not match.encoding:
        return None
    return str(match), match.encoding


_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]+")
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")


def _control_share(text: str) -> float:
    sample = text[:200_000]
    if not sample:
        return 0.0
    return len(_CONTROL_CHARS.findall(sample)) / len(sample)


def reject_binary_text(text: str, src: str) -> None:
    if _control_share(text) > _CONTROL_SHARE_LIMIT:
        raise Undecodable(
            f"{src}: the file looks binary (too many control characters), not text", source=src
        )


def _non_ascii_runs(text: str) -> list[re.Match]:
    """The first non-ASCII runs of ``text``, about _SCORE_SAMPLE_CHARS characters in all."""
    runs: list[re.Match] = []
    total = 0
    for m in _NON_ASCII_RUN.finditer(text):
        runs.append(m)
        total += m.end() - m.start()
        if total >= _SCORE_SAMPLE_CHARS:
            break
    return runs


def _cjk_score(text: str) -> float:
    """Share of non-ASCII characters that are common CJK ideographs or CJK punctuation."""
    runs = [m.group() for m in _non_ascii_runs(text)]
    total = sum(len(r) for r in runs)
    if not total:
        return 0.0
    common = _common_cjk()
    good = sum(1 for r in runs for ch in r if ch in common or _is_cjk_punct(ch))
    return good / total


def _latin_score(text: str) -> float:
    """Share of non-ASCII characters that look like accents inside Latin words.

    A run counts when it is short (<= 3 characters), made of Latin-1/Latin Extended letters or
    typographic punctuation, and is a single character or touches an ASCII letter (``café``,
    ``naïve``, ``à la``, `` – ``, ``“Hi”``). CJK bytes read as Latin-1 come in long runs, or in
    pairs between spaces and digits.
    """
    runs = _non_ascii_runs(text)
    total = sum(m.end() - m.start() for m in runs)
    if not total:
        return 0.0
    good = 0
    for m in runs:
        a, b = m.start(), m.end()
        run = m.group()
        if b - a > 3 or not all(_is_latin_char(ch) for ch in run):
            continue
        before = text[a - 1] if a else ""
        after = text[b] if b < len(text) else ""
        if b - a == 1 or _ascii_letter(before) or _ascii_letter(after):
            good += b - a
    return good / total


def _ascii_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha()


def _is_latin_char(ch: str) -> bool:
    cp = ord(ch)
    if 0xA0 <= cp <= 0x24F:
        return True
    return ch in "‘’‚“”„–—…•†‡‰‹›€™ˆ˜"


def _is_cjk_punct(ch: str) -> bool:
    return CJK_PUNCT_RE.match(ch) is not None or ch in "‘’“”…—·•"


@lru_cache(maxsize=1)
def _common_cjk() -> frozenset[str]:
    """GB2312 level-1 hanzi (simplified) and Big5 level-1 characters (traditional)."""
    chars: set[str] = set()
    for lead in range(0xB0, 0xD8):
        for trail in range(0xA1, 0xFF):
            try:
                chars.add(bytes((lead, trail)).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    trails = list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF))
    for lead in range(0xA4, 0xC7):
        for trail in trails:
            try:
                chars.add(bytes((lead, trail)).decode("big5"))
            except UnicodeDecodeError:
                pass
    return frozenset(chars)
