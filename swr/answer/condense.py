"""Follow-up questions: rewrite the latest question into a standalone search question.

"那E2呢？" after "电饭煲显示E4是什么意思？" means "电饭煲显示E2是什么意思？". Two ways:

- :func:`condense_llm`: the LLM rewrites it from the recent turns (the history sent is bounded by
  tokens, :func:`bound_history`), given the offline fallback's question as a draft to correct;
  its output is checked (one line, not empty, not a copy of the history, not far longer than the
  inputs) and replaced by the fallback when it fails.
- :func:`condense_offline` (no LLM, or it failed). Terms are content words (jieba's
  part-of-speech tags for Chinese: nouns, verbs, adjectives, English words, codes; for English:
  runs of words between function words). An elliptical follow-up ("那X呢？", "What about X?",
  "And X?") becomes the previous question with X in place of its *parallel* term
  (:func:`substitute`: the same shape for codes and numbers, the closest in meaning for words,
  by ``similarity``: the e5 embedder's cosine, given by the engine). Any other follow-up gets the
  previous question's terms it lacks appended (:func:`carried_terms`: the subject carried; a
  term the follow-up replaces by one of the same shape is not).

No rule here names a product, a manual or a code of the sample knowledge base.
"""
from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import Callable, Protocol

from swr.core.lang import has_cjk
from swr.core.rules.answer import DEFAULT_CONDENSE, CondenseRules
from swr.core.tokens import count_tokens

log = logging.getLogger("swr.answer.condense")

METHOD_NONE = "none"  # no history: the question is already standalone
METHOD_LLM = "llm"
METHOD_OFFLINE = "offline"

Similarity = Callable[[str, list[str]], list[float]]

# Written here rather than reused from swr/text/sparse.py: these lists decide which words of a
# *question* are its subject, so they also hold question verbs ("mean", "happen") and pronouns
# that a BM25 stop list must not drop from documents.
_EN_FUNCTION = frozenset("""a an the and or but if then of to in on at by for with from into about as is are was
were be been being am do does did have has had it its it's this that these those there here what which who whom
whose when where why how i me my we our you your he him his she her they them their not no so than too very can
could should would will shall may might must just also only any all some more most other such mean means meaning
happen happens happened need needs use used using get got go goes make makes tell say long much many often
about please ok okay thanks thank yes one ones else""".split())
_ZH_FUNCTION = frozenset("""的 了 是 在 和 与 及 或 吗 呢 吧 啊 呀 么 什么 怎么 怎样 怎么样 如何 为什么 哪 哪个
哪些 哪里 多少 几 几个 请问 一下 可以 能 能否 会 要 需要 应该 这 那 这个 那个 这些 那些 有 没有
我 你 他 她 它 我们 你们 他们 它们 就 都 也 还 又 被 把 让 给 对 从 向 到
将 以 之 其 该 为 而 并 等 则 但 如果 所以 因为 是否 个 上 下 中 时 后 前
里 意思 多久 一次 做 用 呢 那么 还有 另外 怎么办 办""".split())
_ELLIPSIS_EN = re.compile(r"^\s*(and|also|then|so)?\s*(what|how)\s+about\b|^\s*and\b|^\s*(what|how)\s+of\b", re.I)
_ELLIPSIS_ZH = re.compile(r"呢\s*[?？]?\s*$")
_CODE = re.compile(r"^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9._/+-]*$")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)?[A-Za-z%°]{0,3}$")
_EN_RUN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+'-]*")
# jieba part-of-speech tags of content words: nouns (n*), verbs (v*), adjectives (a*), idioms
# and abbreviations (i, j, l); single characters are too vague to carry
_TERM_FLAGS = ("n", "v", "a", "i", "j", "l")
_jieba_lock = threading.Lock()


class Chat(Protocol):
    def chat(self, messages: list[dict], *, max_tokens: int | None = None,
             temperature: float | None = None) -> str: ...


@dataclass
class Condensed:
    """The question to search for, how it was made, and the question as asked."""

    question: str
    standalone: str
    method: str  # "none" | "llm" | "offline"
    llm_error: str | None = None
    llm_output: str | None = None  # the LLM's reply as given (also when it was refused)


# --------------------------------------------------------------------------------------------
# history


def check_history(history: object) -> list[dict]:
    """``history`` as a list of ``{"role": "user"|"assistant", "content": str}``;
    :class:`swr.core.errors.BadRequest` names the first bad entry."""
    from swr.core.errors import BadRequest

    if history is None:
        return []
    if not isinstance(history, list):
        raise BadRequest("history must be a JSON list of {\"role\", \"content\"} objects")
    out = []
    for n, turn in enumerate(history, 1):
        if not isinstance(turn, dict) or turn.get("role") not in ("user", "assistant") \
                or not isinstance(turn.get("content"), str):
            raise BadRequest(f"history entry {n} must be {{\"role\": \"user\"|\"assistant\", "
                             "\"content\": text}")
        out.append({"role": turn["role"], "content": turn["content"]})
    return out


def _cut(text: str, tokens: int) -> str:
    if count_tokens(text) <= tokens:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix within the budget
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if count_tokens(text[:mid]) <= tokens else (lo, mid - 1)
    return text[:lo] + "…"


def bound_history(history: list[dict], max_tokens: int = DEFAULT_CONDENSE.history_tokens,
                  turn_tokens: int = DEFAULT_CONDENSE.turn_tokens) -> list[dict]:
    """The most recent turns whose text fits ``max_tokens`` (each cut to ``turn_tokens``)."""
    kept: list[dict] = []
    used = 0
    for turn in reversed(history):
        content = _cut(turn["content"].strip(), turn_tokens)
        cost = count_tokens(content) + 4
        if kept and used + cost > max_tokens:
            break
        kept.append({"role": turn["role"], "content": content})
        used += cost
    return list(reversed(kept))


def previous_question(history: list[dict]) -> str | None:
    """The last user turn of the history, if any."""
    return next((t["content"] for t in reversed(history) if t["role"] == "user" and t["content"].strip()),
                None)


# --------------------------------------------------------------------------------------------
# offline: carry the subject


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
            if not w or w.lower() in _ZH_FUNCTION or w.lower() in _EN_FUNCTION:
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
        if word.lower() in _EN_FUNCTION:
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


def _shape(term: str) -> str:
    if _CODE.match(term):
        return "code"
    if _NUMBER.match(term):
        return "number"
    return "word"


def _same(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a == b or (len(a) > 1 and a in b) or (len(b) > 1 and b in a)


def is_elliptical(question: str) -> bool:
    """"那X呢？", "What about X?", "And X?": the follow-up names only what replaces something."""
    return bool(_ELLIPSIS_ZH.search(question) or _ELLIPSIS_EN.search(question))


_ANAPHORA_EN = re.compile(r"\b(it|its|it's|this|that|these|those|they|them|their|there|one|ones|same)\b", re.I)
_ANAPHORA_ZH = re.compile("[它其该此这那]")


def needs_context(question: str) -> bool:
    """True when ``question`` leans on the conversation: elliptical, a pronoun ("it", "它", "那"),
    or at most one content term of its own. A question that names its own subject is left as
    it is (no rewrite, no LLM call)."""
    if is_elliptical(question):
        return True
    if (_ANAPHORA_ZH if has_cjk(question) else _ANAPHORA_EN).search(question):
        return True
    return len(terms(question)) <= 1


def carried_terms(question: str, previous: str) -> list[str]:
    """The previous question's terms the follow-up ``question`` lacks, less those it replaces
    by a term of the same shape (a code for a code, a number for a number)."""
    now, before = terms(question), terms(previous)
    carry = [t for t in before if not any(_same(t, n) for n in now)]
    shapes_now = {_shape(n) for n in now}
    return [t for t in carry if _shape(t) == "word" or _shape(t) not in shapes_now]


def substitute(question: str, previous: str, similarity: Similarity | None = None) -> str | None:
    """For an elliptical follow-up ("那X呢？", "What about X?"): the previous question with X put
    in place of the term it parallels; None when some X has no parallel term.

    The parallel of a code or number is the previous question's first term of that shape; of a
    word, its word term closest in meaning (``similarity``; without it, None).
    """
    if not is_elliptical(question):
        return None
    now, before = terms(question), terms(previous)
    new = [n for n in now if not any(_same(n, b) for b in before)]
    if not new:
        return None
    out, used = previous, set()
    for term in new:
        shape = _shape(term)
        pool = [b for b in before if _shape(b) == shape and b not in used]
        if not pool:
            return None
        if shape == "word":
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


# --------------------------------------------------------------------------------------------
# LLM

CONDENSE_PROMPT = """You rewrite a follow-up question into one standalone search question. Use \
the conversation to fill in what the follow-up leaves out (the product, part, code or topic it \
refers to) and keep what the follow-up changes. Keep the follow-up's language. Output only the \
rewritten question, on one line."""
# The offline fallback's question goes with the follow-up as a draft for the model to correct
# (bench/followups.py, dev set, 1.5B: rewrites refused 5 of 15 without it, 1 of 15 with it; the
# draft "保修多久？ 电热水壶 额定功率" became "保修多久？电热水壶": the stale term dropped).
DRAFT_PROMPT = " A draft made from keywords is given: correct it into a fluent question; keep its subject."

# Worked examples (products that are in no sample manual and in neither follow-up set of
# bench/followups.py): a small model follows examples far better than rules; measured with the
# 0.5B model, without them it echoed "E2" or the previous question unchanged. More examples (nine,
# of every kind of follow-up) and a longer system prompt made the 1.5B echo more on the dev set
# (8 of 15 refused against 5 of 15), so these four stay.
_EXAMPLES = (
    (("打印机显示错误代码P3怎么办？", "请检查纸盒。"), "那P5呢？", "打印机显示错误代码P5怎么办？"),
    (("How do I descale the coffee machine?", "Run the descaling program with citric acid."),
     "How often should I do it?", "How often should I descale the coffee machine?"),
    (("What is the capacity of the blender?", "1.5 litres."), "What about its weight?",
     "What is the weight of the blender?"),
    (("洗衣机的保修期是多久？", "整机保修两年。"), "烘干机呢？", "烘干机的保修期是多久？"),
)


def _turns_text(history: list[dict]) -> str:
    return "\n".join(f"{t['role']}: {' '.join(t['content'].split())}" for t in history)


def _ask_text(turns: list[dict], follow: str, draft: str | None) -> str:
    text = f"Conversation:\n{_turns_text(turns)}\nFollow-up: {follow.strip()}"
    return text + (f"\nDraft: {draft}" if draft else "")


def condense_messages(question: str, history: list[dict], draft: str | None = None,
                      rules: CondenseRules = DEFAULT_CONDENSE) -> list[dict]:
    """Messages of the condense step: the rules, worked examples, the bounded conversation and
    the follow-up; with ``draft`` (the offline fallback's question) each example and the
    follow-up carry their draft for the model to correct (the examples' drafts are the offline
    fallback's, without similarity)."""
    msgs = [{"role": "system", "content": CONDENSE_PROMPT + (DRAFT_PROMPT if draft else "")}]
    for said, follow, rewritten in _EXAMPLES:
        turns = [{"role": ("user", "assistant")[i % 2], "content": t} for i, t in enumerate(said)]
        msgs.append({"role": "user", "content": _ask_text(turns, follow, condense_offline(follow, turns)
                                                          if draft else None)})
        msgs.append({"role": "assistant", "content": rewritten})
    msgs.append({"role": "user", "content": _ask_text(bound_history(history, rules.history_tokens, rules.turn_tokens),
                                                            question, draft)})
    return msgs


def _flat(text: str) -> str:
    return re.sub(r"\W+", "", text).lower()


def _common_run(a: str, b: str) -> int:
    """Length of the longest common substring of ``a`` and ``b``."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


def clean_llm_output(text: str, question: str, history: list[dict],
                     rules: CondenseRules = DEFAULT_CONDENSE) -> str | None:
    """The first line of the LLM's reply, without labels or quotes; None when it is no usable
    rewrite. A small model often echoes the follow-up or the previous question, copies the last
    answer, or drops the code the follow-up asks about; each is refused here (the offline
    fallback is used), so the condense step never does worse than its check allows:

    - not empty, not far longer than the inputs, in the follow-up's language;
    - not the previous question unchanged, not the follow-up unchanged (nothing resolved);
    - not mostly a copy of an assistant turn (beyond what it shares with the previous question:
      "电饭煲的保温时间最长多久？" after "电热水壶的保温时间最长多久？" / "保温时间最长为 12 小时" is fine);
    - every code and number of the follow-up kept, and some term of the conversation carried (of any
      user turn, or a code an answer named: :func:`context_terms`, :func:`mentions`).
    """
    line = next((ln.strip() for ln in (text or "").splitlines() if ln.strip()), "")
    line = re.sub(r"^(standalone question|question|rewritten question|独立问题|问题)\s*[:：]\s*", "", line,
                  flags=re.I).strip().strip("\"'“”「」").strip()
    previous = previous_question(history) or ""
    if not line or len(line) > len(question) + len(previous) + rules.extra_chars:
        return None
    if has_cjk(question) != has_cjk(line):  # answered in another language: not a rewrite
        return None
    flat = _flat(line)
    if flat in (_flat(previous), _flat(question)):
        return None
    asked = _flat(previous)
    for turn in history:  # a run shared with the previous question too is the subject, not a copy
        said = _flat(turn["content"]) if turn["role"] == "assistant" else ""
        run = _common_run(flat, said) if said else 0
        if run >= max(rules.copy_run_chars, int(len(flat) * rules.copy_run_share)) and run > _common_run(flat, asked):
            return None
    now = terms(question)
    if any(_shape(t) != "word" and t.lower() not in line.lower() for t in now):
        return None
    before = context_terms(history)
    carried = [t for t in before if not any(_same(t, n) for n in now)]
    # an English term the follow-up shares a word with ("air fryer shows" / "shows") still carries
    # its other words ("What code does the air fryer show three times?")
    n = rules.word_chars
    asked = set(_words(question, n))
    words = {w for t in before if not has_cjk(t) for w in _words(t, n)} - asked
    if (carried or words) and not any(mentions(line, t, rules) for t in carried) \
            and not words & set(_words(line, n)):
        return None
    return line


def _words(text: str, chars: int = DEFAULT_CONDENSE.word_chars) -> list[str]:
    """English content words of ``chars`` letters or more (three), lower case."""
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= chars and w not in _EN_FUNCTION]


def context_terms(history: list[dict]) -> list[str]:
    """What a rewrite may carry from the conversation: the terms of every user turn (most recent
    first: the subject may be two turns back) and the codes an answer named ("AF-360", "E1")."""
    out: list[str] = []
    for turn in reversed(history):
        found = terms(turn["content"])
        out += found if turn["role"] == "user" else [t for t in found if _shape(t) == "code"]
    return list(dict.fromkeys(out))


def mentions(text: str, term: str, rules: CondenseRules = DEFAULT_CONDENSE) -> bool:
    """``text`` carries ``term``: as it is, as a term of ``text`` one contains the other
    ("水壶" / "电热水壶"), or for an English phrase any of its words of three letters or more
    ("rice cooker keep rice warm" is carried by "When does the rice cooker switch off?")."""
    low = text.lower()
    if term.lower() in low or any(_same(term, t) for t in terms(text)):
        return True
    if has_cjk(term):
        return False
    words = set(re.findall(r"[a-z0-9]+", low))
    return any(len(w) >= rules.word_chars and w in words for w in re.findall(r"[a-z0-9]+", term.lower()))


def condense_llm(question: str, history: list[dict], llm: Chat, raw: list | None = None,
                 draft: str | None = None, rules: CondenseRules = DEFAULT_CONDENSE) -> str | None:
    """The LLM's standalone question, or None when its output is unusable (errors propagate);
    ``raw`` (a list), when given, receives the reply as it came; ``draft``: the offline
    fallback's question, given to the model to correct."""
    # temperature 0: a rewrite is no place for variety, and the same conversation gets the same
    # search question every time
    reply = llm.chat(condense_messages(question, history, draft, rules), max_tokens=64, temperature=0.0)
    if raw is not None:
        raw.append(reply)
    return clean_llm_output(reply, question, history, rules)


def stands_alone(question: str, unknown: Callable[[list[str]], list[str]] | None) -> bool:
    """A question that leans on nothing (not elliptical, no pronoun) whose every term the knowledge
    base never uses (``unknown``: the terms no document holds) is a new, off-topic question, not a
    follow-up: "今天天气怎么样？" after "扫地机器人显示E2是什么意思？" is searched as it is."""
    if unknown is None or is_elliptical(question) or \
            (_ANAPHORA_ZH if has_cjk(question) else _ANAPHORA_EN).search(question):
        return False
    own = [t for t in terms(question) if _shape(t) == "word"]
    try:
        return bool(own) and len(unknown(own)) == len(own)
    except Exception:  # noqa: BLE001 - a hint only: a failed probe leaves the follow-up as one
        return False


def condense(question: str, history: list[dict] | None, *, llm: Chat | None = None,
             similarity: Similarity | None = None,
             unknown: Callable[[list[str]], list[str]] | None = None,
             rules: CondenseRules = DEFAULT_CONDENSE) -> Condensed:
    """The standalone search question for ``question`` after ``history``.

    With ``llm`` (an :class:`swr.answer.llm.Answerer` that is configured) the LLM rewrites it, given
    the offline fallback's question as a draft to correct; on any failure or unusable output the
    offline fallback is used and ``llm_error`` says why.
    """
    from swr.core.errors import LLMUnavailable

    history = check_history(history)
    if not previous_question(history) or not needs_context(question) or stands_alone(question, unknown):
        return Condensed(question, question, METHOD_NONE)
    error, raw = None, []
    offline = condense_offline(question, history, similarity)
    if llm is not None:
        try:
            rewritten = condense_llm(question, history, llm, raw, draft=offline, rules=rules)
            if rewritten:
                return Condensed(question, rewritten, METHOD_LLM, llm_output=raw[0])
            error = "the LLM's rewrite was unusable"
        except LLMUnavailable as exc:
            error = exc.message
        log.info("condense: %s; using the offline fallback", error)
    return Condensed(question, offline, METHOD_OFFLINE, error, llm_output=raw[0] if raw else None)
