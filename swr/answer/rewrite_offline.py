"""The offline rewrite of a follow-up (no LLM): a question's content terms (:func:`terms`), whether
it leans on the conversation (:func:`needs_context`), the parallel term an elliptical follow-up
replaces (:func:`substitute`) and the subject carried otherwise (:func:`carried_terms`), put
together by :func:`condense_offline`."""
from __future__ import annotations

import re
import threading
from typing import Callable

from swr.core.lang import has_cjk
from swr.text.stopwords import EN_QUESTION_STOP, ZH_QUESTION_STOP

Similarity = Callable[[str, list[str]], list[float]]

_ELLIPSIS_EN = re.compile(r"^\s*(and|also|then|so)?\s*(what|how)\s+about\b|^\s*and\b|^\s*(what|how)\s+of\b", re.I)
_ELLIPSIS_ZH = re.compile(r"呢\s*[?？]?\s*$")
_CODE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._/+-]*$")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)?[A-Za-z%°]{0,3}$")
_EN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+'-]*")
# jieba part-of-speech tags of content words: nouns (n*), verbs (v*), adjectives (a*), idioms
# and abbreviations (i, j, l); single characters are too vague to carry
_TERM_FLAGS = ("n", "v", "a", "i", "j", "l")
_jieba_lock = threading.Lock()


def _zh_terms(text: str) -> list[tuple[str, str]]:
    import jieba
    import jieba.posseg as pseg

    with _jieba_lock:
        jieba.setLogLevel(60)
        pairs = [(w.word, w.flag) for w in pseg.cut(text, HMM=False)]
    return pairs


def terms(text: str) -> list[str]:
    """Content terms of a question, in order: nouns, codes, English noun phrases."""
    out: list[str] = []
    if has_cjk(text):
        for word, flag in _zh_terms(text):
            w = word.strip()
            if not w or w.lower() in ZH_QUESTION_STOP or w.lower() in EN_QUESTION_STOP:
                continue
            if _CODE.match(w) or _NUMBER.match(w) or flag == "eng" or (
                    flag.startswith(_TERM_FLAGS) and len(w) > 1):
                out.append(w)
        return list(dict.fromkeys(out))
    run: list[str] = []
    for m in _EN_RUN.finditer(text):
        word = m.group(0).strip("'.-")
        if not word:
            continue
        if word.lower() in EN_QUESTION_STOP:
            if run:
                out.append(" ".join(run))
            run = []
        elif _CODE.match(word) or _NUMBER.match(word):
            if run:
                out.append(" ".join(run))
            run = []
            out.append(word)
        else:
            run.append(word)
    if run:
        out.append(" ".join(run))
    return list(dict.fromkeys(out))


def shape(term: str) -> str:
    """``code``, ``number`` or ``word``: what a term may be replaced by."""
    if _CODE.match(term):
        return "code"
    if _NUMBER.match(term):
        return "number"
    return "word"


def same_term(a: str, b: str) -> bool:
    """The same term, or one contains the other (case aside)."""
    a, b = a.lower(), b.lower()
    return a == b or (len(a) > 1 and a in b) or (len(b) > 1 and b in a)


def is_elliptical(question: str) -> bool:
    """"那X呢？", "What about X?", "And X?": the follow-up names only what replaces something."""
    return bool(_ELLIPSIS_ZH.search(question) or _ELLIPSIS_EN.search(question))


_ANAPHORA_EN = re.compile(r"\b(it|its|it's|this|that|these|those|they|them|their|there|one|ones|same)\b", re.I)
_ANAPHORA_ZH = re.compile("[它其该此这那]")


def has_anaphora(question: str) -> bool:
    """A pronoun that points into the conversation ("it", "它", "那")."""
    return bool((_ANAPHORA_ZH if has_cjk(question) else _ANAPHORA_EN).search(question))


def needs_context(question: str) -> bool:
    """True when ``question`` leans on the conversation: elliptical, a pronoun ("it", "它", "那"),
    or at most one content term of its own. A question that names its own subject is left as
    it is (no rewrite, no LLM call)."""
    if is_elliptical(question):
        return True
    if has_anaphora(question):
        return True
    return len(terms(question)) <= 1


def carried_terms(question: str, previous: str) -> list[str]:
    """The previous question's terms the follow-up ``question`` lacks, less those it replaces
    by a term of the same shape (a code for a code, a number for a number)."""
    now, before = terms(question), terms(previous)
    carry = [t for t in before if not any(same_term(t, n) for n in now)]
    shapes_now = {shape(n) for n in now}
    return [t for t in carry if shape(t) == "word" or shape(t) not in shapes_now]


def substitute(question: str, previous: str, similarity: Similarity | None = None) -> str | None:
    """For an elliptical follow-up ("那X呢？", "What about X?"): the previous question with X put
    in place of the term it parallels; None when some X has no parallel term.

    The parallel of a code or number is the previous question's first term of that shape; of a
    word, its word term closest in meaning (``similarity``; without it, None).
    """
    if not is_elliptical(question):
        return None
    now, before = terms(question), terms(previous)
    new = [n for n in now if not any(same_term(n, b) for b in before)]
    if not new:
        return None
    out, used = previous, set()
    for term in new:
        kind = shape(term)
        pool = [b for b in before if shape(b) == kind and b not in used]
        if not pool:
            return None
        if kind == "word":
            if similarity is None:
                return None
            scores = similarity(term, pool)
            target = pool[max(range(len(pool)), key=scores.__getitem__)]
        else:
            target = pool[0]
        if target not in out:
            return None
        out = out.replace(target, term, 1)
        used.add(target)
    return out


def embed_similarity(encode: Callable[[str], "object"]) -> Similarity:
    """A :data:`Similarity` from a query encoder returning unit vectors (cosine = dot)."""
    import numpy as np

    def similarity(term: str, others: list[str]) -> list[float]:
        v = np.asarray(encode(term), dtype=np.float32)
        return [float(np.dot(v, np.asarray(encode(o), dtype=np.float32))) for o in others]

    return similarity


def standalone_previous(history: list[dict], similarity: Similarity | None = None) -> str | None:
    """The previous question as it was searched: itself a follow-up ("那E2呢？" after
    "电饭煲显示E4是什么意思？"), its own offline rewrite, so a third turn ("What about E1?") still
    carries the rice cooker, not a bare "那E1呢？"."""
    turns = [k for k, t in enumerate(history) if t["role"] == "user" and t["content"].strip()]
    if not turns:
        return None
    last = turns[-1]
    previous = history[last]["content"]
    earlier = history[:last]
    if len(turns) > 1 and needs_context(previous):
        return condense_offline(previous, earlier, similarity)
    return previous


def condense_offline(question: str, history: list[dict], similarity: Similarity | None = None) -> str:
    """The follow-up with the previous question's subject appended (see the module doc)."""
    previous = standalone_previous(history, similarity)
    if not previous:
        return question
    swapped = substitute(question, previous, similarity)
    if swapped:
        return swapped
    carry = carried_terms(question, previous)
    if not carry:
        return question
    return question.rstrip() + " " + " ".join(carry)
