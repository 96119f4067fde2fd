"""The answer when no LLM is configured (or it failed): the sentence of the evidence that answers
the question, hits marked 【】, with the passage around it as context.

:func:`extractive_answer` quotes the best passage with its hits marked (no model needed: the LLM
fallback). :func:`grounded_answer` (the engine's, with its embedder) picks the one sentence of the
passages that answers the question (:func:`pick`: closest to the question by cosine, the
question's terms and numbers found in it, never another product's document), says whether it
answers at all (the relevance test of :class:`swr.core.rules.answer.ExtractiveRules`), and for a
yes/no question says "No" when the
sentence contradicts the question's claim (a number, a code, a negation) and "Yes" when it states
it (:func:`polarity`). Every decision records a :class:`Rule` in the result's ``trace``.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from enum import Enum

from swr.core.lang import has_han, question_lang
from swr.core.rules.answer import DEFAULT_EXTRACTIVE, ExtractiveRules
from swr.core.types import Passage
from swr.text import claims as cl
from swr.text.split import split_spans

_LABELS = {
    "en": {
        "extractive": "Extractive answer (no LLM configured): the most relevant passage, from [{n}] {source}:",
        "quoted": "Extractive answer (no LLM configured): the sentence that answers it, from [{n}] {source}:",
        "context": "Context:",
        "not_found": "Nothing relevant was found in this knowledge base.",
        "small_talk": "I answer questions about this knowledge base's documents: ask me about them.",
        "yes": "Yes.", "no": "No.",
    },
    "zh": {
        "extractive": "摘录式回答（未配置大语言模型）：最相关的段落，来自 [{n}] {source}：",
        "quoted": "摘录式回答（未配置大语言模型）：回答问题的句子，来自 [{n}] {source}：",
        "context": "上下文：",
        "not_found": "在此知识库中没有找到相关内容。",
        "small_talk": "我只回答与此知识库文档有关的问题，请就文档内容提问。",
        "yes": "是的。", "no": "不是。",
    },
}

_MARK_OPEN, _MARK_CLOSE = "【", "】"
_HEADING_MARKS = re.compile(r"(?m)^[ \t]*#{1,6}[ \t]+")


class Rule(str, Enum):
    """Why the extractive answer says what it says (kept in its trace)."""

    PICKED = "extractive.picked"  # the sentence closest to the question, its terms and numbers counted
    RELEVANT = "extractive.relevant"  # the sentence passes the relevance test: it answers the question
    NOT_RELEVANT = "extractive.not_relevant"  # closest, but too far from the question to say it answers it
    YES = "yesno.yes"  # a yes/no question whose claim the sentence states
    NO_NUMBER = "yesno.no.number"  # ... whose number the sentence states otherwise (300 W vs 220 W)
    NO_CODE = "yesno.no.code"  # ... whose code the sentence states otherwise
    NO_NEGATION = "yesno.no.negation"  # ... the sentence negates what the question asks (不支持 5 GHz)
    UNDECIDED = "yesno.undecided"  # a yes/no question the sentence neither confirms nor contradicts




def not_found_message(question: str, small_talk: bool = False) -> str:
    """The "nothing found in this knowledge base" message, in the question's language (``small_talk``:
    the question was refused as small talk, answerable.small_talk: what the assistant answers instead)."""
    return _LABELS[question_lang(question)]["small_talk" if small_talk else "not_found"]


def plain(text: str) -> str:
    """Document text as an answer shows it: no Markdown heading marks (``## 保修`` -> ``保修``)."""
    return _HEADING_MARKS.sub("", text or "")


def _merged_spans(text: str, passage: Passage) -> list[tuple[int, int]]:
    """Hit spans clamped to the text, trimmed of surrounding whitespace, merged when overlapping."""
    spans: list[tuple[int, int]] = []
    for hit in sorted(passage.hits, key=lambda h: (h.start, h.end)):
        start, end = max(0, hit.start), min(len(text), hit.end)
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end <= start:
            continue
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], end))
        else:
            spans.append((start, end))
    return spans


def mark_hits(passage: Passage, open_mark: str = _MARK_OPEN, close_mark: str = _MARK_CLOSE) -> str:
    """The passage text with each hit sentence wrapped in 【】 (or the given marks)."""
    text = passage.text
    out, pos = [], 0
    for start, end in _merged_spans(text, passage):
        out += [text[pos:start], open_mark, text[start:end], close_mark]
        pos = end
    out.append(text[pos:])
    return plain("".join(out)).strip()


def extractive_answer(question: str, passages: list[Passage]) -> str:
    """The best passage with its hits marked 【】, after a label (in the question's language)
    saying it is extractive (no model needed: the LLM's fallback)."""
    if not passages:
        return not_found_message(question)
    n, best = max(enumerate(passages, 1), key=lambda item: item[1].score)
    label = _LABELS[question_lang(question)]["extractive"].format(n=n, source=best.source)
    return f"{label}\n\n{mark_hits(best)}"


# -- yes/no questions ----------------------------------------------------------------------------
_YESNO_EN = re.compile(r"^\s*(?:does|do|did|is|are|was|were|can|could|will|would|should|has|have|had|may|"
                       r"must|shall)\b", re.I)
_YESNO_ZH = re.compile(r"吗\s*[?？]?\s*$|能不能|可不可以|是不是|有没有|会不会|要不要|对不对|行不行")
_A_NOT_A = re.compile("能不能|可不可以|是不是|有没有|会不会|要不要|对不对|行不行")


def is_yes_no(question: str) -> bool:
    """A question a "yes" or a "no" answers ("Does the DH-20 have Wi-Fi?", "保修五年吗？")."""
    return bool(_YESNO_EN.search(question or "") or _YESNO_ZH.search(question or ""))


_CLAUSE = re.compile(r"[，,;；。！？!?]|(?<=[a-z])\.\s|:\s|：")


def _clause(claim, sentence: str) -> str:
    """The clause of ``sentence`` that speaks of the claim: the one stating its number, else the one
    holding most of its terms ("只支持 2.4 GHz 的 WiFi 网络，不支持 5 GHz 的 WiFi": for 5 GHz, the second)."""
    parts = [p for p in _CLAUSE.split(sentence) if p.strip()] or [sentence]
    for p in parts:
        if any(q.same(h) for q in claim.quantities for h in cl.quantities(p)):
            return p
    return max(parts, key=lambda p: len(cl.contained(claim.content, p)))


def polarity(question: str, sentence: str,
             rules: ExtractiveRules = DEFAULT_EXTRACTIVE) -> tuple[str | None, Rule, str]:
    """("yes" | "no" | None, rule, why) of ``sentence`` as the answer to the yes/no ``question``:
    "no" when it states the question's number or code otherwise or negates what the question
    asks; "yes" when it states the question's numbers (or, without any, most of its terms) with
    the same polarity; else None."""
    from swr.verify.verdict import ClaimFacts, compare_codes, compare_numbers

    claim = ClaimFacts.read(_A_NOT_A.sub("", question), None)
    conflicts, gaps = compare_numbers(claim, sentence)
    if conflicts:
        return "no", Rule.NO_NUMBER, conflicts[0]
    code_conflicts, _ = compare_codes(claim, sentence, None)
    if code_conflicts:
        return "no", Rule.NO_CODE, code_conflicts[0]
    if cl.negated(_clause(claim, sentence)) != claim.negated:
        return "no", Rule.NO_NEGATION, "the sentence says the opposite of what the question asks"
    terms = [t for t in claim.content if not cl.codes(t)]
    cover = len(cl.contained(terms, sentence)) / len(terms) if terms else 0.0
    if claim.quantities and not gaps:
        return "yes", Rule.YES, "the sentence states the question's numbers"
    if not claim.quantities and cover >= rules.yes_cover:
        return "yes", Rule.YES, f"the sentence states {cover:.0%} of the question's terms"
    return None, Rule.UNDECIDED, "the sentence neither states nor contradicts the question's claim"


# -- the sentence that answers -------------------------------------------------------------------
@dataclass
class Extract:
    """The extractive answer and how it was made: the sentence, its passage (1-based), its cosine
    to the question, whether it answers it, the yes/no polarity, and the rules that decided."""

    text: str
    sentence: str = ""
    passage: int | None = None
    cosine: float | None = None
    relevant: bool = False
    polarity: str | None = None
    trace: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


_ASKING = re.compile(r"[?？]\W*$")


def _candidates(passages: list[Passage], foreign: frozenset, allowed=None,
                min_chars: int = DEFAULT_EXTRACTIVE.min_chars) -> list[tuple[int, int, int, str, str]]:
    """(passage index, start, end, sentence, the question it answers) of every real sentence of the
    passages that states something (not a heading, not a question: an FAQ's "Is the basket
    dishwasher safe?" asks, its next line answers: that question is kept beside it, else ""), none
    of a ``foreign`` document (another product's than the question names) unless ``allowed(source,
    sentence)`` (the sentence names the asked product: an FAQ's line)."""
    from swr.answer.substantive import substantive_text

    out = []
    for k, p in enumerate(passages):
        asked = ""
        for a, b in split_spans(p.text):
            s = p.text[a:b].strip()
            if not substantive_text(s) or s.lstrip().startswith("#") or len(re.sub(r"\W", "", s)) < min_chars:
                continue
            if _ASKING.search(s):
                asked = s
                continue
            if not (p.source in foreign and not (allowed is not None and allowed(p.source, s))):
                out.append((k, a, b, s, asked))
            asked = ""
    return out


_ASKS_TIME = re.compile(r"\bhow long\b|多久|多长时间|几个?小时|几分钟|几年|几个月", re.I)
_ASKS_AMOUNT = re.compile(r"\bhow (?:much|many|big|heavy|loud|high|large|fast|far)\b|多少|多大|多重|多高|多快|几", re.I)


def asked_dims(question: str) -> set[str]:
    """The kinds of number a question asks for: ``time`` ("how long", "多久"), a kind its words
    name (:func:`swr.text.claims.named_kinds`: "电池容量" a charge, "噪音" a loudness), any (``*``: "how much",
    "多少"), or none."""
    q = question or ""
    if _ASKS_TIME.search(q):
        return {"time"}
    named = cl.named_kinds(q)
    if named:
        return named
    return {"*"} if _ASKS_AMOUNT.search(q) else set()


def pick(embedder, question: str, passages: list[Passage], foreign=frozenset(), subjects=None, allowed=None,
         rules: ExtractiveRules = DEFAULT_EXTRACTIVE, query_vector=None, translations: dict | None = None,
         top_k: int | None = None, within: set[int] | None = None):
    """(score, cosine, candidate, cover) of the sentence of ``passages`` that best answers
    ``question``: its cosine to the question, plus ``rules``' bonuses for the share of the
    question's terms it holds (those that do not name a product of ``subjects``, a
    :class:`swr.retrieve.subjects.SubjectIndex`: "扫地机器人" is in every sentence of the FAQ; a sentence
    of another language: the share of its translation's terms, ``translations`` by language, as the
    search made them), for a number of the kind the question asks about, and for being a hit ranked
    ``top_k`` or higher (any hit without it: the places cross-lingual search adds beside the top k are
    context, and with the hit bonus their sentences outranked the top k's answer, bench/new_user.py);
    ``within``: the indexes of the passages read (None: all). None when there is no candidate."""
    import numpy as np

    from swr.verify.verdict import ClaimFacts

    cands = [c for c in _candidates(passages, frozenset(foreign or ()), allowed, rules.min_chars)
             if within is None or c[0] in within]
    if not cands:
        return None
    # the search's own vector of the question when the caller has it: an answer never embeds it again
    q = np.asarray(embedder.encode_query(question) if query_vector is None else query_vector, dtype=np.float32)
    texts = list(dict.fromkeys([c[3] for c in cands] + [c[4] for c in cands if c[4]]))
    vec = dict(zip(texts, np.asarray(embedder.encode_passages(texts), dtype=np.float32)))
    facts = ClaimFacts.read(_A_NOT_A.sub("", question), subjects)
    terms = [t for t in facts.about if not cl.codes(t)] or facts.content
    # across languages no word of the question is in a sentence, its translation's are ("How long is the
    # kettle warranty?": 保修 of 整机保修一年, not the keep-warm line's 12 小时 that the hit bonus chose)
    translated = [[t for t in ClaimFacts.read(tr, subjects).about if not cl.codes(t)]
                  for tr in (translations or {}).values() if tr]
    zh = has_han(question)
    dims = {x.dim for x in facts.quantities if x.dim} | asked_dims(question)
    own = [c for c in facts.codes if not (subjects and any(c in s.codes for s in subjects.subjects.values()))]
    hits = {(k, h.start) for k, p in enumerate(passages) for h in p.hits if top_k is None or h.rank <= top_k}
    best = None
    for c in cands:
        # an FAQ's answer line is as close to the question as the FAQ question it answers
        cos = max(float(vec[c[3]] @ q), float(vec[c[4]] @ q) if c[4] else -1.0)
        cover = _share(terms, c[3])
        # a sentence of another language: the share of the translation's terms, at its own weight
        moved = max([0.0, *(_share(ts, c[3]) for ts in translated)]) if has_han(c[3]) != zh else 0.0
        have = {x.dim for x in cl.quantities(c[3])}
        kind = bool(dims & have or ("*" in dims and have))
        code = bool(own) and all(cl.written(x, c[3]) for x in own)
        hit = any(k == c[0] and c[1] <= start < c[2] for k, start in hits)
        score = cos + rules.term_weight * cover + rules.translated_term_weight * moved \
            + rules.number_weight * kind + rules.code_weight * code + rules.hit_weight * hit
        cover = max(cover, moved)
        if best is None or score > best[0]:
            # a sentence with numbers of none of the kinds the question asks for states another fact
            # ("5200 mAh" for "How long does the battery last?"): kind None fails the relevance test
            other = bool(dims - {"*"}) and bool(have) and not kind
            best = (score, cos, c, cover, None if other else (kind or code))
    return best


def _share(terms: list[str], sentence: str) -> float:
    """The share of ``terms`` in ``sentence``: an English term by stem, a Chinese one also inside a
    longer word (电池 in 锂电池: jieba cuts 锂电池 whole)."""
    if not terms:
        return 0.0
    low = cl.norm(sentence)
    found = set(cl.contained(terms, sentence)) | {t for t in terms if has_han(t) and t in low}
    return len(found) / len(terms)


def relevant(cos: float, cover: float, fact: bool | None = False,
             rules: ExtractiveRules = DEFAULT_EXTRACTIVE) -> bool:
    """The relevance test: the sentence answers the question (not merely shares its topic): close
    enough, or nearly so and holding half the question's terms or the fact it asks for (``fact``:
    its code, or a number of the kind it asks about)."""
    if fact is None:  # its numbers are of another kind than the question asks for
        return False
    return cos >= rules.relevance or (cos >= rules.relevance_terms and (cover >= rules.relevance_cover or fact))


def grounded_answer(embedder, question: str, passages: list[Passage], foreign=frozenset(),
                    subjects=None, asked: str | None = None, allowed=None,
                    rules: ExtractiveRules = DEFAULT_EXTRACTIVE, query_vector=None,
                    translations: dict | None = None, top_k: int | None = None) -> Extract:
    """The extractive answer: the label (in the question's language), the sentence that answers
    (:func:`pick`) marked 【】, after "Yes." / "No." for a yes/no question (:func:`polarity`), then
    its passage as context. Without a candidate sentence: :func:`extractive_answer`. ``asked``: the
    question as the user typed it (a follow-up's rewrite may be in another language): the label's.
    ``query_vector``: the search's vector of ``question`` (else it is embedded); ``translations``: the
    search's translations of it, by language; ``top_k``: the hits ranked this high or higher are the
    search's (:func:`pick`): their passages are read first, the others (the places cross-lingual search
    adds) when none of those answers."""
    lang = question_lang(asked or question)
    args = (embedder, question, passages, foreign, subjects, allowed, rules, query_vector, translations, top_k)
    top = {k for k, p in enumerate(passages) if top_k is None or any(h.rank <= top_k for h in p.hits)}
    found = pick(*args, within=top)
    if len(top) < len(passages) and (found is None or not relevant(found[1], found[3], found[4], rules)):
        found = pick(*args) or found
    if found is None:
        return Extract(extractive_answer(question, passages))
    _, cos, (k, a, b, sentence, _), cover, fact = found
    p = passages[k]
    ok = relevant(cos, cover, fact, rules)
    trace = [{"rule": Rule.PICKED.value, "why": f"cosine {cos:.3f}, {cover:.0%} of the question's terms"},
             {"rule": (Rule.RELEVANT if ok else Rule.NOT_RELEVANT).value,
              "why": f"cosine {cos:.3f} (answers at {rules.relevance:g}, or {rules.relevance_terms:g} "
                     "with half the question's terms, its code or a number of the kind it asks for)"}]
    yes_no = None
    if is_yes_no(question) and ok:
        yes_no, rule, why = polarity(question, sentence, rules)
        trace.append({"rule": rule.value, "why": why})
    words = _LABELS[lang]
    head = words["quoted"].format(n=k + 1, source=p.source)
    line = (words[yes_no] + " " if yes_no else "") + f"{_MARK_OPEN}{plain(sentence).strip()}{_MARK_CLOSE}"
    context = plain(p.text).strip()
    text = f"{head}\n\n{line}\n\n{words['context']}\n{context}"
    return Extract(text, sentence=plain(sentence).strip(), passage=k + 1, cosine=round(cos, 6), relevant=ok,
                   polarity=yes_no, trace=trace)
