"""Sentence splitting for mixed Chinese/English text.

Everything here is a pure function of its arguments (stdlib and ``regex``, for Unicode's grapheme
clusters). The central function is
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
     (``1. Install``, ``## 3. Before First Use``). ``3.5`` and ``v1.2`` never split (no whitespace
     follows); ``in 2020. The`` does;
   * after a line break: ``\\n``, ``\\r\\n`` (one unit), ``\\r``, ``\\v``, ``\\f``, ``\\x1c-\\x1e``,
     ``\\x85``, U+2028, U+2029; with ``wraps=True`` (plain text, Markdown, .docx and HTML: the
     indexer's choice) not after a single line break that only wraps a paragraph: the line is
     long (:class:`WrapRules`), of a paragraph or list item, ends without ``。！？；….!?``, and
     the next line is text that starts with a lowercase letter, a digit, a code (``KX-2000``,
     ``Wi-Fi``), a Chinese character, or any letter after a line ending in a hyphen. The
     line break then stays inside the sentence (the spans still tile the text).

2. **Wordless pieces.** A piece with no word character that starts in the middle of a line (the
   `` |`` closing a table row after a cell's ``。``, a stray ``）``) joins the sentence before it;
   a wordless line of its own (``| --- | --- |``) stays a sentence.

3. **Whitespace.** All whitespace right after a boundary belongs to the sentence before it, so no
   span starts with whitespace except possibly the first one. A leading whitespace-only piece is
   merged into the next span.

4. **Length cap.** A sentence whose content is longer than ``max_chars`` is cut: at the last
   ``，；、`` or ``,;`` (an ASCII ``,``/``;`` directly before a digit does not count, so
   ``1,000`` stays whole) in the second half of the allowed window, else at the last whitespace
   there, else hard at the cap. Whitespace after a cut again belongs to the piece before it.

5. **Grapheme clusters.** No boundary or cut falls inside an extended grapheme cluster (Unicode
   UAX 29, as the ``regex`` module's ``\\X`` knows it): flags, keycaps, emoji tag sequences,
   ZWJ sequences, skin tones, combining marks and Hangul syllables stay whole. A hard cut moves
   back to the start of the cluster it would split; a boundary or soft cut followed by a mark that
   extends the character before it moves forward past the mark. The one exception: a single
   cluster longer than ``max_chars`` (say 400 combining marks on one letter) is cut at the cap.

Guarantees of :func:`split_spans` (for ``max_chars >= 1``):

* ``[]`` for ``""``; a single span ``(0, len(text))`` for whitespace-only text;
* otherwise spans tile the text: ``spans[0][0] == 0``, ``spans[-1][1] == len(text)``,
  ``spans[k][1] == spans[k+1][0]``, and every span is non-empty;
* no span is whitespace-only, and no span but the first starts with whitespace (except a
  whitespace character that a combining mark extends: the pair is one cluster, kept whole);
* every span boundary is a grapheme-cluster boundary, unless one cluster is longer than
  ``max_chars``;
* ``len(text[a:b].strip()) <= max_chars`` for every span: only leading whitespace (first span
  only) and trailing whitespace can make a span longer than ``max_chars``;
* linear time: a 1 MB line without punctuation takes a few milliseconds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from swr.core.lang import HAN_RE, count_cjk

SPLITTER_VERSION = "zh-en-3"


@dataclass(frozen=True)
class WrapRules:
    """When a single line break of plain text only wraps a paragraph (``split_spans(wraps=True)``);
    calibrated on bench/pdf_sentences.py's hard-wrapped text (60-90 columns) and 100k one-char lines."""

    min_width: int = 40  # the wrapped line's width at least (a CJK character counts 2): titles stay apart
    ends: str = "。！？；….!?"  # a line ending with one of these ends its sentence (as the splitter's terminators)


WRAPS = WrapRules()
_CODE = re.compile(r"[0-9]|[A-Z]{1,4}[0-9]|[A-Z][A-Za-z]{0,3}-[A-Za-z0-9]")  # a number or a code (KX-2000, Wi-Fi)

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
_HEADING_MARKS = re.compile(r"#{0,6}")  # nothing, or a Markdown heading's marks, before a list marker
_OPENERS = "([{\"'“‘「『（《〈【"
_TOKEN_WINDOW = 32  # no abbreviation is longer than this

_WS = re.compile(r"\s*")
_LAST_SOFT_BREAK = re.compile(r"[\s\S]*(?:[，；、]|[,;](?![0-9]))")
_LAST_WS = re.compile(r"[\s\S]*\s")
# Unicode's extended grapheme clusters (UAX 29) from the regex module rather than a hand-kept
# list of joiners: regional-indicator pairs, emoji tag and ZWJ sequences, Indic conjuncts...
# Matched on slices that start at a known cluster boundary: at an offset into the whole text,
# regex looks back over every regional indicator before it (quadratic on a line of flags).
_CLUSTER = regex.compile(r"\X")
_LAST_CLUSTER = regex.compile(r"(?:\X)*(\X)")
# characters that take part in a grapheme rule beyond their pair (or extend the one before)
_CONTEXT = regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}\p{GCB=Prepend}\p{GCB=Regional_Indicator}]")
_EXTENDER = regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}]")
_SAFE_LOOKBACK = 32
_RI_PAIR = regex.compile(r"\p{GCB=Regional_Indicator}{2}")
_RI_RUN_BEFORE = regex.compile(r"(?r)\p{GCB=Regional_Indicator}*")



def split_spans(text: str, max_chars: int = 300, *, wraps: bool = False) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` that tile ``text`` exactly; see the module docstring.

    ``max_chars`` (>= 1) caps the length of each span's content (the span without its leading
    and trailing whitespace). ``wraps``: a line break that only wraps a paragraph is no
    boundary. Raises ``ValueError`` for ``max_chars < 1``.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be >= 1, got {max_chars}")
    n = len(text)
    if n == 0:
        return []
    if text.isspace():
        return [(0, n)]
    starts = [0] + _boundaries(text, wraps)
    if len(starts) > 1 and text[0 : starts[1]].isspace():
        del starts[1]  # a leading whitespace-only piece joins the next sentence
    starts = _wordless_joined(text, starts)
    ends = starts[1:] + [n]
    spans: list[tuple[int, int]] = []
    for start, end in zip(starts, ends):
        if end - start <= max_chars:
            spans.append((start, end))
        else:
            spans.extend(_cap(text, start, end, max_chars))
    return spans


_WORD = re.compile(r"\w")


def _wordless_joined(text: str, starts: list[int]) -> list[int]:
    """``starts`` without the boundaries that open a piece with no word character in the middle of
    a line: the `` |`` that closes a table row after a cell's ``。`` ("| E6 | 溢出报警 | 泡沫过多。 |"),
    a stray ``。`` or ``）``. Alone such a piece was a sentence whose vector sits near every question
    (an English question on a Chinese help centre found 50 of them before any text); it belongs to
    the sentence before it. A wordless line of its own (a table's ``| --- |`` rule) stays apart."""
    out = starts[:1]
    for k in range(1, len(starts)):
        end = starts[k + 1] if k + 1 < len(starts) else len(text)
        if not _WORD.search(text, starts[k], end) and not _LINE_BREAK_CHAR.search(text, out[-1], starts[k]):
            continue
        out.append(starts[k])
    return out


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` as strings (``text[a:b]`` for each span of :func:`split_spans`).

    Usable as llama-index's ``SentenceWindowNodeParser(sentence_splitter=split_sentences)``;
    ``"".join(split_sentences(t)) == t`` always holds.
    """
    return [text[a:b] for a, b in split_spans(text)]


# --------------------------------------------------------------------------------------------
# boundaries


def _boundaries(text: str, wraps: bool = False) -> list[int]:
    """Sorted offsets (0 < offset < len(text)) where a new sentence starts."""
    n = len(text)
    out: list[int] = []
    last = 0
    for m in _BOUNDARY.finditer(text):
        if wraps and m.lastgroup == "lb" and _wraps(text, m):
            continue
        if m.lastgroup == "dot" and not _dot_ends_sentence(text, m.start()):
            if not _LINE_BREAK_CHAR.search(m.group()):
                continue  # abbreviation: no boundary, unless a line break follows it
        end = m.end()
        if end < n and text[end] >= "\u0300":  # below U+0300 nothing extends the character before
            end = _settle(text, end)
        if last < end < n:
            out.append(end)
            last = end
    return out


def _wraps(text: str, m: re.Match) -> bool:
    """Whether the line break ``m`` only wraps a paragraph."""
    end = m.start()
    if m.end() >= len(text):
        return False
    line_start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1  # (other breaks: rare, a longer line)
    if end - line_start < WRAPS.min_width // 2:
        return False
    nxt = text[m.end()]
    hyphen = text[end - 1] == "-" and text[end - 2 : end - 1].isalnum() and nxt.isalnum()  # "Wi-\nFi"
    if not (hyphen or nxt.islower() or HAN_RE.match(nxt) or _CODE.match(text, m.end())):
        return False
    if len(_LINE_BREAK_CHAR.findall(m.group())) != 1:
        return False
    line = text[line_start:end].rstrip()
    if not line or line[-1] in WRAPS.ends or len(line) + count_cjk(line) < WRAPS.min_width:
        return False
    from swr.text.structure import classify  # (structure does not import the splitter)

    stop = text.find("\n", m.end())
    nxt_line = text[m.end():stop if stop >= 0 else None]
    return classify(line).kind in ("text", "item") and classify(nxt_line).kind == "text"


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
    """Whether only spaces/tabs, or a Markdown heading's ``#`` marks ("## 3. 首次使用前"), lie between
    the previous line break (or text start) and pos."""
    lo = max(0, pos - _TOKEN_WINDOW)
    prefix = text[lo:pos]
    breaks = list(_LINE_BREAK_CHAR.finditer(prefix))
    if breaks:
        return _HEADING_MARKS.fullmatch(prefix[breaks[-1].end() :].strip()) is not None
    return lo == 0 and _HEADING_MARKS.fullmatch(prefix.strip()) is not None


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
        cut = _cut_point(text, c, max_chars, end)
        cuts.append(cut)
        c = cut
    bounds = [start] + cuts + [end]
    return list(zip(bounds[:-1], bounds[1:]))


def _cut_point(text: str, c: int, max_chars: int, end: int) -> int:
    """Where the piece whose content starts at ``c`` ends (and the next one starts), ``c < cut``.

    Looks for a soft break, then whitespace, in the second half of the window; else cuts hard.
    The whitespace after the cut is included; the piece's content stays within ``c + max_chars``.
    """
    limit = c + max_chars
    lo = c + max(1, max_chars // 2)
    m = _LAST_SOFT_BREAK.match(text, lo, limit)
    if m:
        cut = _settle(text, m.end())
        if _content_end(text, c, cut) <= limit:
            return cut
    m = _LAST_WS.match(text, lo, limit + 1)
    if m:
        cut = _settle(text, m.end() - 1)  # the piece ends before this whitespace char; the cut absorbs it
        if _content_end(text, c, cut) <= limit:
            return cut
    return _hard_cut(text, c, limit, end)


def _content_end(text: str, c: int, cut: int) -> int:
    """The end of ``text[c:cut]`` without its trailing whitespace."""
    return c + len(text[c:cut].rstrip())


def _settle(text: str, pos: int) -> int:
    """``pos``, moved forward past whitespace and past any mark that extends the character before.

    ``pos`` follows a terminator, closer, soft-break comma or whitespace: none of them is a
    regional indicator, ZWJ, Indic linker, Prepend or Hangul jamo, so ``pos`` is a cluster
    boundary unless ``text[pos]`` extends the character before it (GB9, GB9a; not a control).
    """
    n = len(text)
    while pos < n:
        if text[pos].isspace():
            pos = _WS.match(text, pos).end()
        elif pos > 0 and _EXTENDER.match(text, pos) and _cluster_end(text, pos - 1, n) > pos:
            pos = _cluster_end(text, pos - 1, n)  # e.g. "，" + U+0301: the mark stays with it
        else:
            return pos  # (after a line break, a control, a mark starts a cluster of its own)
    return pos


def _hard_cut(text: str, c: int, limit: int, end: int) -> int:
    """``limit``, or the start of the grapheme cluster that ``limit`` falls inside.

    ``c`` is a cluster boundary (a sentence start or an earlier cut). Clusters are counted from
    the last position before ``limit`` that is surely a boundary (one with no context rule on
    either side), else from ``c``; only a single cluster longer than the cap is cut inside.
    """
    if _is_safe_boundary(text, limit):
        start = limit
    elif _RI_PAIR.fullmatch(text, limit - 1, limit + 1):
        # inside a run of flags regex's \X counts the indicators back to the slice's start at each
        # match (quadratic); the rule itself (GB12/13) is simple: flags pair up from c, a boundary
        run = limit - _RI_RUN_BEFORE.match(text, c, limit).start()
        if run % 2 == 0:
            return limit
        if limit - 1 > c:
            return limit - 1
    else:
        start = next((p for p in range(limit - 1, max(c, limit - _SAFE_LOOKBACK), -1)
                      if _is_safe_boundary(text, p)), c)
        last = start + _LAST_CLUSTER.match(text[start:limit]).start(1)  # clusters before limit are whole
        if last > c and _cluster_end(text, last, end) > limit:
            return last
    if text[limit].isspace():  # whitespace after the cut joins the piece, unless a mark extends it
        settled = _settle(text, limit)
        if _content_end(text, c, settled) <= limit:
            return settled
        if _cluster_end(text, limit, end) - limit > limit - c:  # longer than the cap: torn anyway
            return _WS.match(text, limit).end()
    return limit


def _is_safe_boundary(text: str, pos: int) -> bool:
    """Whether ``0 < pos < len(text)`` is surely a cluster boundary: no character on either side
    takes part in a rule with context (regional indicator, ZWJ, extender, prepend), and the pair
    rules of UAX 29 break there. False where that cannot be told from the pair."""
    pair = text[pos - 1 : pos + 1]
    if max(pair) < "\u0300":
        return pair != "\r\n"  # below U+0300 nothing extends or joins (tests/test_graphemes.py)
    if _CONTEXT.search(pair):
        return False
    return _CLUSTER.match(pair).end() == 1


def _cluster_end(text: str, pos: int, end: int) -> int:
    """The end of the grapheme cluster starting at ``pos`` (a cluster boundary, ``pos < end``)."""
    width = 64
    while True:
        stop = min(end, pos + width)
        found = pos + _CLUSTER.match(text[pos:stop]).end()
        if found < stop or stop == end:
            return found
        width *= 8  # a cluster longer than the window (hundreds of combining marks): look further
