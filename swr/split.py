"""Sentence splitting for mixed Chinese/English text.

Everything here is a pure function of its arguments (stdlib only). The central function is
:func:`split_spans`, which returns character spans that tile the text *losslessly*: joining
``text[a:b]`` over all spans rebuilds ``text`` exactly, so stored sentences can be stitched back
into passages and mapped to offsets/pages.

Rules, in order of application:

1. **Boundaries.** A sentence ends

   * after a run of ``。！？；…`` (plus ``‼⁇⁈⁉｡``), together with any closing quotes/brackets
     right after it (``”’」』）)]}"'》〉】`` ...);
   * after a run of ASCII ``!``/``?`` (plus closers) unless an ASCII letter/digit or a URL
     character (``= & / % # + - _``) follows directly, so ``a.com/?q=1`` stays whole while
     ``Really?! Yes`` and ``好吗?我们`` split;
   * after ``.`` (or ``...``, plus closers) followed by whitespace or the end of the text, except
     after an abbreviation (``Dr. Mr. Mrs. Ms. Prof. St. vs. etc. e.g. i.e. U.S. U.K. No. Fig.
     approx. Inc. Ltd. Co. Jr. Sr.``, any dotted initialism such as ``a.m.``, a single capital
     letter as in ``J. Smith``) and except a 1-3 digit list marker at the start of a line
     (``1. Install``). ``3.5`` and ``v1.2`` never split (no whitespace follows); ``in 2020. The``
     does;
   * after a line break: ``\\n``, ``\\r\\n`` (one unit), ``\\r``, ``\\v``, ``\\f``, ``\\x1c-\\x1e``,
     ``\\x85``, U+2028, U+2029.

2. **Whitespace.** All whitespace right after a boundary belongs to the sentence before it, so no
   span starts with whitespace except possibly the first one. A leading whitespace-only piece is
   merged into the next span.

3. **Length cap.** A sentence whose content is longer than ``max_chars`` is cut: at the last
   ``，；、`` or ``,;`` (an ASCII ``,``/``;`` directly before a digit does not count, so
   ``1,000`` stays whole) in the second half of the allowed window, else at the last whitespace
   there, else hard at the cap (moved back a few characters so that combining marks, ZWJ emoji
   sequences and variation selectors are not torn apart). Whitespace after a cut again belongs to
   the piece before it.

Guarantees of :func:`split_spans` (for ``max_chars >= 1``):

* ``[]`` for ``""``; a single span ``(0, len(text))`` for whitespace-only text;
* otherwise spans tile the text: ``spans[0][0] == 0``, ``spans[-1][1] == len(text)``,
  ``spans[k][1] == spans[k+1][0]``, and every span is non-empty;
* no span is whitespace-only, and no span but the first starts with whitespace;
* ``len(text[a:b].strip()) <= max_chars`` for every span: only leading whitespace (first span
  only) and trailing whitespace can make a span longer than ``max_chars``;
* linear time: a 1 MB line without punctuation takes a few milliseconds.
"""
from __future__ import annotations

import re
import unicodedata

from .lang import detect_lang  # noqa: F401  (re-exported: swr.split.detect_lang)

SPLITTER_VERSION = "zh-en-1"

_CJK_TERMINATORS = "。！？；…‼⁇⁈⁉｡"
_CLOSERS = "”’」』）)\\]}\"'》〉】〕〗〙〛›»*_`"
_LINE_BREAK = "\\r\\n|[\\n\\r\\x0b\\x0c\\x1c-\\x1e\\x85\\u2028\\u2029]"
_LINE_BREAK_CHAR = re.compile("[\\n\\r\\x0b\\x0c\\x1c-\\x1e\\x85\\u2028\\u2029]")

# One scan finds every candidate boundary. Each alternative also swallows the whitespace that
# follows it, so m.end() is where the next sentence starts. Possessive quantifiers (*+) stop the
# closers from being given back to satisfy a lookahead; the lookbehinds make a failed "!?" or
# "." run fail once, not once per character (a 1 MB run of dots stays linear).
_BOUNDARY = re.compile(
    f"(?P<cjk>[{_CJK_TERMINATORS}]++[{_CLOSERS}]*+\\s*)"
    f"|(?P<bang>(?<![!?])[!?]++[{_CLOSERS}]*+(?![A-Za-z0-9_=&/%#+\\-])\\s*)"
    f"|(?P<dot>(?<!\\.)\\.++[{_CLOSERS}]*+(?:\\s+|\\Z))"
    f"|(?P<lb>(?:{_LINE_BREAK})\\s*)"
)

_ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof st vs etc e.g i.e u.s u.k no fig approx inc ltd co jr sr".split()
)
_DOTTED_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_LIST_MARKER = re.compile(r"[0-9]{1,3}")
_OPENERS = "([{\"'“‘「『（《〈【"
_TOKEN_WINDOW = 32  # no abbreviation is longer than this

_WS = re.compile(r"\s*")
_LAST_SOFT_BREAK = re.compile(r"[\s\S]*(?:[，；、]|[,;](?![0-9]))")
_LAST_WS = re.compile(r"[\s\S]*\s")
_HARD_CUT_BACKOFF = 32



def split_spans(text: str, max_chars: int = 300) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` that tile ``text`` exactly; see the module docstring.

    ``max_chars`` (>= 1) caps the length of each span's content (the span without its leading
    and trailing whitespace). Raises ``ValueError`` for ``max_chars < 1``.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be >= 1, got {max_chars}")
    n = len(text)
    if n == 0:
        return []
    if text.isspace():
        return [(0, n)]
    starts = [0] + _boundaries(text)
    if len(starts) > 1 and text[0 : starts[1]].isspace():
        del starts[1]  # a leading whitespace-only piece joins the next sentence
    ends = starts[1:] + [n]
    spans: list[tuple[int, int]] = []
    for start, end in zip(starts, ends):
        if end - start <= max_chars:
            spans.append((start, end))
        else:
            spans.extend(_cap(text, start, end, max_chars))
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` as strings (``text[a:b]`` for each span of :func:`split_spans`).

    Usable as llama-index's ``SentenceWindowNodeParser(sentence_splitter=split_sentences)``;
    ``"".join(split_sentences(t)) == t`` always holds.
    """
    return [text[a:b] for a, b in split_spans(text)]


# --------------------------------------------------------------------------------------------
# boundaries


def _boundaries(text: str) -> list[int]:
    """Sorted offsets (0 < offset < len(text)) where a new sentence starts."""
    n = len(text)
    out: list[int] = []
    last = 0
    for m in _BOUNDARY.finditer(text):
        if m.lastgroup == "dot" and not _dot_ends_sentence(text, m.start()):
            if not _LINE_BREAK_CHAR.search(m.group()):
                continue  # abbreviation: no boundary, unless a line break follows it
        end = m.end()
        if last < end < n:
            out.append(end)
            last = end
    return out


def _dot_ends_sentence(text: str, dot: int) -> bool:
    """Whether the ``.`` at offset ``dot`` (followed by whitespace) ends a sentence."""
    window_start = max(0, dot - _TOKEN_WINDOW)
    window = text[window_start:dot]
    parts = window.split()
    if not parts or window[-1:].isspace():
        return True  # " ." or "...": nothing to call an abbreviation
    token = parts[-1]
    token_start = dot - len(token)
    if token_start == window_start and window_start > 0:
        return True  # longer than any abbreviation
    bare = token.lstrip(_OPENERS)
    if not bare:
        return True
    if bare.lower() in _ABBREVIATIONS or _DOTTED_INITIALISM.fullmatch(bare):
        return False
    if len(bare) == 1 and "A" <= bare <= "Z":
        return False  # an initial, as in "J. Smith"
    if _LIST_MARKER.fullmatch(token) and _at_line_start(text, token_start):
        return False  # "1. Install ..."
    return True


def _at_line_start(text: str, pos: int) -> bool:
    """Whether only spaces/tabs lie between the previous line break (or text start) and pos."""
    lo = max(0, pos - _TOKEN_WINDOW)
    prefix = text[lo:pos]
    breaks = list(_LINE_BREAK_CHAR.finditer(prefix))
    if breaks:
        return not prefix[breaks[-1].end() :].strip()
    return lo == 0 and not prefix.strip()


# --------------------------------------------------------------------------------------------
# length cap


def _cap(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut the sentence ``text[start:end]`` into pieces whose stripped length is <= max_chars."""
    content_start = _WS.match(text, start).end()
    piece = text[content_start:end]
    content_end = content_start + len(piece.rstrip())
    cuts: list[int] = []
    c = content_start
    while content_end - c > max_chars:
        cut = _cut_point(text, c, max_chars)
        cut = _WS.match(text, cut).end()  # whitespace after a cut stays with the piece before
        cuts.append(cut)
        c = cut
    bounds = [start] + cuts + [end]
    return list(zip(bounds[:-1], bounds[1:]))


def _cut_point(text: str, c: int, max_chars: int) -> int:
    """Where to end a piece whose content starts at ``c`` (non-whitespace), ``c < cut <= c+max``.

    Looks for a soft break, then whitespace, in the second half of the window; else cuts hard.
    """
    limit = c + max_chars
    lo = c + max(1, max_chars // 2)
    m = _LAST_SOFT_BREAK.match(text, lo, limit)
    if m:
        return m.end()
    m = _LAST_WS.match(text, lo, limit + 1)
    if m:
        return m.end() - 1  # the piece ends before this whitespace char; the cut absorbs it
    return _hard_cut(text, c, limit)


def _hard_cut(text: str, c: int, limit: int) -> int:
    """``limit``, moved back (a little) so that it does not split a grapheme-like cluster."""
    cut = limit
    floor = max(c + 1, limit - _HARD_CUT_BACKOFF)
    while cut > floor and _joins_previous(text[cut - 1], text[cut]):
        cut -= 1
    return cut


def _joins_previous(prev: str, ch: str) -> bool:
    """Whether ``ch`` should stay attached to ``prev`` (combining mark, ZWJ, modifiers...)."""
    if prev == "\u200d" or ch == "\u200d":
        return True
    cp = ord(ch)
    if 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF:  # variation selectors
        return True
    if 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F:  # skin tones, emoji tags
        return True
    if 0xDC00 <= cp <= 0xDFFF:  # low surrogate (only in strings built from surrogatepass)
        return True
    return unicodedata.category(ch) in ("Mn", "Mc", "Me")
