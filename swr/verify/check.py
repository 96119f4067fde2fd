"""Answer check: every sentence of an answer (an LLM's, or pasted from anywhere) checked against
the passages it was written from, with the verdict machinery of :mod:`swr.verify.verdict`.

- The answer is split into sentences (swr's splitter); citation marks ``[n]`` are read and
  removed, so are list numbers ("11. ") and the extractive answer's 【】 marks.
- A short sentence ("可以。", "Yes.", "一年。") says nothing alone: it is checked as the statement
  it makes about the question (the question without its question mark, then the answer).
- Windows of two sentences slide over every passage; ALL windows are embedded in ONE
  ``encode_passages`` call (the embedder's cache makes repeats free), single sentences too.
- Each sentence is ``supported`` when a window supports it (cosine and coverage, and numbers,
  codes, negation and subject agree), else not, with the reasons of the deciding window
  (``number: the claim says 三年, the window says 两年``...). A citation ``[n]`` whose passage
  has no window supporting its sentence is flagged in ``bad_citations``.
- ``support`` is the share of supported sentences (0..1); ``status`` sums it up: ``supported``
  (every sentence, no wrong citation), ``partly supported``, or ``rejected`` (a sentence the
  evidence contradicts, or fewer than half supported): an answer not to pass on as it stands;
  ``unconfirmed``: nothing contradicted or missing, but some sentences could only be set beside
  evidence in the other language, where the check confirms numbers, not wording (a Chinese
  "E2 表示风扇故障" from the English "E2 means fan fault": cosine 0.891). Those sentences
  (``other_language``) are left out of the share that rejects.
- :func:`checkable` is the part of an answer to check: of an extractive answer, the hits it marks.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from enum import Enum

import numpy as np

import swr.verify.verdict as vd
from swr.core.lang import has_cjk
from swr.core.params import VerifyParams
from swr.core.rules.verify import DEFAULT_CHECK, CheckRules
from swr.core.types import Passage
from swr.retrieve import subjects as subj
from swr.retrieve.aliases import sources_named
from swr.text import claims as cl
from swr.text.split import split_spans
from swr.verify.check_language import closest_other_language, other_language, translated
from swr.verify.windows import slide

_CITE = re.compile(r"\s*(?:\[(\d{1,3}(?:\s*[,，、]\s*\d{1,3})*)\]|【(\d{1,3})】)")
_LIST_NO = re.compile(r"^\s*(?:\d{1,3}[.)、]|[-*•])\s+")
_MARKS = re.compile("[【】*_`#>]")
_LEAD = re.compile(r"^(?:根据|依据|按照)\s*(?:\[\d+\]|资料|文档|说明书)?[^，,。]{0,12}[，,]\s*"
                   r"|^(?:according to|based on) "
                   r"(?:the )?(?:\[\d+\]|passage|document|manual|evidence)[^,]{0,20},\s*", re.I)
_QMARK = re.compile(r"[?？]+\s*$|吗\s*[?？]?\s*$")


@dataclass
class SentenceCheck:
    text: str  # the sentence as written
    statement: str  # what was checked
    supported: bool
    verdict: str
    score: float | None  # the deciding window's cosine
    passage: int | None  # 1-based passage number of the deciding window
    window: str
    reasons: list[str] = field(default_factory=list)
    citations: list[int] = field(default_factory=list)
    bad_citations: list[int] = field(default_factory=list)
    # not found, but its closest window of its product is in the other language, on the topic and
    # in no conflict: the check cannot compare wording across languages (check_language.other_language)
    other_language: bool = False
    translation: str | None = None  # the LLM's translation it was checked through (into the evidence's language)

    def to_dict(self) -> dict:
        return asdict(self)


class Rule(str, Enum):
    """How the check judged an answer as a whole (kept in its trace)."""

    REFUSAL = "check.refusal"  # the answer says the documents do not cover the question: nothing to reject
    QUOTED_RELEVANT = "check.quoted_relevant"  # an extractive answer's sentence, and it answers the question
    QUOTED_OFF = "check.quoted_off_question"  # an extractive answer's sentence that may not answer the question
    SENTENCES = "check.sentences"  # each sentence against the evidence


_REFUSAL = re.compile(r"\b(?:i (?:do not|don't) know|not (?:in|covered by) the (?:documents?|passages?|knowledge base)|"
                      r"(?:documents?|passages?|evidence) (?:do|does) not (?:cover|mention|say)|no information)\b|"
                      r"不知道|无法回答|没有(?:找到)?相关(?:内容|信息)|(?:文档|资料|段落)中?(?:没有|未)(?:提及|提到|涉及|说明)",
                      re.I)


def is_refusal(answer: str, rules: CheckRules = DEFAULT_CHECK) -> bool:
    """An answer that says the documents do not cover the question ("I don't know: the documents do
    not cover this."): at most ``rules.refusal_sentences`` sentences, one of them a refusal."""
    parts = [answer[a:b] for a, b in split_spans(answer or "") if answer[a:b].strip()]
    return 0 < len(parts) <= rules.refusal_sentences and any(_REFUSAL.search(p) for p in parts)


@dataclass
class AnswerCheck:
    sentences: list[SentenceCheck]
    support: float
    counts: dict = field(default_factory=dict)
    refused: bool = False  # the answer is a refusal (:func:`is_refusal`): not checked, never rejected
    answers: bool | None = None  # an extractive answer: its sentence passes the relevance test (None: not one)
    trace: list = field(default_factory=list)  # the Rule ids that decided
    rules: CheckRules = DEFAULT_CHECK  # the numbers it was checked with (reject_below decides the status)

    @property
    def flagged(self) -> list[SentenceCheck]:
        """The sentences not supported, or citing a passage that does not support them."""
        return [s for s in self.sentences if not s.supported or s.bad_citations]

    @property
    def status(self) -> str:
        """``supported`` / ``partly supported`` / ``rejected`` / ``unconfirmed`` (see the module
        doc); ``unchecked``
        when the answer has no sentence to check; ``refused`` for a refusal; ``off the question`` for
        an extractive answer whose sentence the evidence states but that may not answer the question."""
        if self.refused:
            return "refused"
        if not self.sentences:
            return "unchecked"
        if self.answers is False and all(s.supported for s in self.sentences):
            return "off the question"
        if any(s.verdict == "contradicted" for s in self.sentences):
            return "rejected"
        judged = [s for s in self.sentences if not s.other_language]  # what the check can judge
        if not judged:
            return "unconfirmed"
        if sum(s.supported for s in judged) / len(judged) < self.rules.reject_below:
            return "rejected"
        if any(not s.supported or s.bad_citations for s in judged):
            return "partly supported"
        return "unconfirmed" if len(judged) < len(self.sentences) else "supported"

    def to_dict(self) -> dict:
        """The JSON form (``check --json``, ``ask --json``, the chat and the evidence card)."""
        return {"sentences": [s.to_dict() for s in self.sentences], "support": self.support,
                "status": self.status, "flagged": len(self.flagged), "counts": dict(self.counts),
                "trace": list(self.trace)}


_MARKED = re.compile(r"【([^】]+)】")


def checkable(answer: str, kind: str = "llm") -> str:
    """The part of ``answer`` to check: all of it; of an extractive answer, its label line
    ("Extractive answer (no LLM configured): … from [1] file:") dropped, which is no claim, and
    only the hit sentences it marks 【】 when it marks any. The rest is the passage quoted as
    context, word for word: checked as claims, its short sentences were read as answers to the
    question, and "E1 means overheating." beside the marked "E2 means fan fault." was
    "contradicted" as an answer to "空气炸锅显示E2是什么意思？", rejecting a right answer."""
    text = answer or ""
    if kind == "extractive" and "\n\n" in text:
        body = text.split("\n\n", 1)[1]
        marked = [m.strip() for m in _MARKED.findall(body) if m.strip()]
        return "\n".join(marked) if marked else body
    return text


def answer_sentences(answer: str) -> list[tuple[str, str, list[int]]]:
    """(as written, cleaned, cited passage numbers) per sentence of ``answer``."""
    out = []
    for a, b in split_spans(answer or ""):
        raw = answer[a:b].strip()
        cites = [int(n) for m in _CITE.finditer(raw) for n in re.findall(r"\d+", m.group(0))]
        text = _MARKS.sub("", _CITE.sub("", raw))
        text = _LEAD.sub("", _LIST_NO.sub("", text)).strip()
        if len(re.sub(r"\W", "", text)) < 1:
            continue
        out.append((raw, text, cites))
    return out


def stands_alone(sentence: str, question: str = "", rules: CheckRules = DEFAULT_CHECK) -> bool:
    """A sentence that makes its own statement: long enough, or short but stating a number of its
    own where the question states one too ("整机保修一年。" for "电热水壶保修五年吗？": read with the
    question it became one claim of both years, and the true sentence was contradicted). "可以。",
    "Yes.", "E2 表示风扇坏了。" say what they say about the question: they are read with it."""
    bare = re.sub(r"[\s\W]", "", sentence)
    long_enough = has_cjk(sentence) or len(sentence.split()) > rules.short_words  # no spaces in Chinese
    if len(bare) > rules.short_chars and long_enough:
        return True
    return bool(cl.quantities(sentence)) and bool(cl.quantities(question or ""))


def statement(question: str, sentence: str, rules: CheckRules = DEFAULT_CHECK) -> str:
    """The sentence, or for one that cannot stand alone (:func:`stands_alone`) the statement it
    makes about the question: "电热水壶保修五年吗？ 整机保修一年。" was checked as one claim of
    both years, and the true sentence marked contradicted."""
    if stands_alone(sentence, question, rules):
        return sentence
    q = _QMARK.sub("", (question or "").strip()).strip()
    return f"{q} {sentence}".strip() if q else sentence


def _windows(passages: list[Passage], size: int) -> list[tuple[int, list[str]]]:
    out = []
    for n, p in enumerate(passages):
        sents = [p.text[a:b] for a, b in split_spans(p.text) if p.text[a:b].strip()]
        for a, b in slide(0, len(sents) - 1, size, 1):
            out.append((n, sents[a:b + 1]))
    return out


def _codes_together(facts: vd.ClaimFacts, ws: list[str], finding: vd.Finding, rules: CheckRules) -> vd.Finding:
    """A window of several sentences supports a claim with error codes only when ONE of its
    sentences holds all those codes and states at least  ``rules.code_cover`` of the claim's facts:
    else the claim may join one code's label to the next code's meaning ("E2 顶部传感器短路" from
    "E1 底部传感器短路。E2 顶部传感器开路。"), which the window as a whole seems to support."""
    if not finding.supports or len(ws) <= 1 or not facts.own_codes:
        return finding
    for sent in ws:
        have = cl.codes(sent)
        if all(any(vd._same_code(c, h) for h in have) for c in facts.own_codes) and \
                facts.coverage(sent) >= rules.code_cover:
            return finding
    why = (f"codes: no one sentence of the window states {', '.join(facts.own_codes)} with what the claim "
           "says of it (its words come from a neighbouring sentence)")
    return vd.Finding(role="weak", cosine=finding.cosine, literal=finding.literal, focus=finding.focus,
                      reasons=[why], cover=finding.cover)


def question_subjects(engine, kb: str | None, question: str, index: subj.SubjectIndex) -> set[int]:
    """The subjects ``question`` asks about: those it mentions, else (across languages: the
    Chinese "空气炸锅" of the English air fryer manual) the documents the search's aliases say it
    names (:class:`swr.retrieve.aliases.Subjects`, in any language). Without them a window of another
    product's manual could contradict the answer ("E0 ..." of the rice cooker against the air
    fryer's "E2 表示风扇故障")."""
    found = index.mentioned(question)
    if found or not kb:
        return found
    weights = sources_named(engine, kb, question)
    return {s.key for s in index.subjects.values() if any(n in weights for n in s.names)}


def check_answer(engine, question: str, answer: str, passages: list[Passage], *, kb: str | None = None,
                 embedder=None, params: VerifyParams | None = None) -> AnswerCheck:
    """Check each sentence of ``answer`` against ``passages`` (see the module doc). ``kb``
    (when given) supplies the documents' subjects; else they are learnt from the passages' names.
    ``params`` (default :class:`VerifyParams`) carries the verdict and check rules."""
    embedder = embedder or engine.embedder
    p = params or VerifyParams()
    cr = p.check
    if is_refusal(answer, cr):  # a refusal is a refusal, not an answer the evidence rejects
        return AnswerCheck([], 0.0, {"sentences": 0}, refused=True, trace=[Rule.REFUSAL.value], rules=cr)
    parts = answer_sentences(answer)
    windows = _windows(passages, cr.window)
    index = subj.for_kb(engine, kb) if kb else subj.build([(p.doc_id, p.source, []) for p in passages])
    texts = list(dict.fromkeys([t.strip() for _, ws in windows for t in ws if t.strip()]
                               + ["".join(ws).strip() for _, ws in windows if len(ws) > 1]))
    calls0 = embedder.calls
    vecs = embedder.encode_passages(texts) if texts and parts else np.zeros((0, 1), dtype=np.float32)
    encode_calls = embedder.calls - calls0
    ctx = _Context(engine, question, passages, windows, dict(zip(texts, np.asarray(vecs, dtype=np.float32))),
                   index, question_subjects(engine, kb, question, index) if parts else set(),
                   vd.thresholds_for(engine.embedder.name, rules=p.verdict), p)
    checks = [_check_sentence(ctx, raw, text, cites) for raw, text, cites in parts]
    support = round(sum(c.supported for c in checks) / len(checks), 4) if checks else 0.0
    return AnswerCheck(checks, support, {"sentences": len(checks), "windows": len(windows),
                                         "encode_calls": encode_calls, "encoded_texts": len(texts)},
                       trace=[Rule.SENTENCES.value], rules=cr)


@dataclass(frozen=True)
class _Context:
    """What every sentence of one answer is checked against: the passages' windows and their vectors."""

    engine: object
    question: str
    passages: list[Passage]
    windows: list[tuple[int, list[str]]]
    vec: dict
    index: subj.SubjectIndex
    asked: set[int]  # the subjects the question asks about
    t: vd.Thresholds
    p: VerifyParams


def _judge(c: _Context, st: str, sentence: str) -> tuple[str, int | None, list[vd.Finding]]:
    """The verdict of the statement of one sentence over every window (the deciding window's index)."""
    facts = vd.ClaimFacts.read(st, c.index)
    facts.given = c.question  # its numbers and codes are the question's, not the answer's
    facts.sentence = sentence
    if not facts.subjects:  # an answer is about what the question asks about
        facts.subjects = c.asked
    q = np.asarray(c.engine.embedder.encode_query(st), dtype=np.float32)
    findings = []
    for n, ws in c.windows:
        cos = [float(c.vec[w.strip()] @ q) if w.strip() in c.vec else None for w in ws]
        wcos = cos[0] if len(ws) == 1 else float(c.vec["".join(ws).strip()] @ q)
        findings.append(_codes_together(facts, ws, vd.judge(facts, ws, cos, wcos, c.passages[n].doc_id, c.index,
                                                            c.t, c.p.verdict), c.p.check))
    verdict, k = vd.decide(findings) if findings else ("not found", None)
    return verdict, k, findings


def check_result(engine, result, params: VerifyParams | None = None) -> AnswerCheck | None:
    """The check of an answer (a :class:`swr.answer.result.AskResult`) against its own passages:
    None for a not-found answer or one with no passages. An extractive answer is checked without
    its label line (:func:`checkable`), and whether it answers is its extract's relevance test."""
    if not result.answerable or not result.passages or not (result.answer or "").strip():
        return None
    checked = check_answer(engine, result.standalone_question or result.question,
                           checkable(result.answer, result.answer_kind), result.passages, kb=result.kb,
                           params=params)
    if result.answer_kind == "extractive" and result.extract and not checked.refused:
        # the quoted sentence matches itself, so whether it answers the question is the extract's
        # relevance test (swr.answer.extractive)
        checked.answers = bool(result.extract.get("relevant"))
        checked.trace.append((Rule.QUOTED_RELEVANT if checked.answers else Rule.QUOTED_OFF).value)
    return checked


def _check_sentence(c: _Context, raw: str, text: str, cites: list[int]) -> SentenceCheck:
    """One sentence of the answer checked: directly, else through the LLM's translation into the
    evidence's language, else marked as set beside evidence in the other language."""
    cr, windows = c.p.check, c.windows
    st = statement(c.question, text, cr)
    verdict, k, findings = _judge(c, st, text)
    via = None
    evidence = closest_other_language(vd.language_text(text, st), findings) if verdict != "supported" else None
    if evidence is not None:  # the LLM that wrote the answer puts it into the evidence's language
        # the sentence, not its statement: a short one's statement carries the question's words
        # (its code), which draw the translation's focus to the code's own line
        via = translated(c.engine, text, evidence)
        if via is not None:
            verdict2, k2, findings2 = _judge(c, statement(c.question, via, cr), via)
            if verdict2 != "not found":
                verdict, k, findings = verdict2, k2, findings2
            else:
                via = None
    other = other_language(vd.language_text(via or text, st), findings, c.t) if verdict == "not found" else None
    f = findings[k] if k is not None else None
    supporting = {windows[j][0] + 1 for j, g in enumerate(findings) if g.supports}
    bad = [n for n in cites if n not in supporting]
    reasons = list(f.reasons) if f else ["no passage to check against"]
    if other is not None:
        k, f = other, findings[other]
        reasons = [f"the closest window is in the other language (cosine {f.cosine:.3f}): across languages "
                   "the check confirms an answer's numbers, not its wording; read it against the passage"]
    if via is not None:
        reasons = [f"checked through its translation by the LLM, “{via}”: {reasons[0]}"] + reasons[1:]
    reasons += [f"citation [{n}]: that passage does not support this sentence" for n in bad]
    reasons = list(dict.fromkeys(reasons))  # each reason once
    return SentenceCheck(text=raw, statement=st, supported=verdict == "supported", verdict=verdict,
                         score=round(f.cosine, 6) if f and f.cosine is not None else None,
                         passage=windows[k][0] + 1 if k is not None else None,
                         window="".join(windows[k][1]).strip() if k is not None else "",
                         reasons=reasons, citations=cites, bad_citations=bad,
                         other_language=other is not None, translation=via)
