"""The LLM rewrite of a follow-up: the messages (rules, worked examples, the bounded conversation,
the offline draft: :func:`condense_messages`) and the check of the reply (:func:`clean_llm_output`)."""
from __future__ import annotations

import re
from typing import Protocol

from swr.answer.history import bound_history, previous_question
from swr.answer.rewrite_offline import condense_offline, same_term, shape, terms
from swr.core.lang import has_cjk
from swr.core.rules.answer import DEFAULT_CONDENSE, CondenseRules
from swr.text.stopwords import EN_QUESTION_STOP


class Chat(Protocol):
    def chat(self, messages: list[dict], *, max_tokens: int | None = None,
             temperature: float | None = None) -> str: ...



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
    if any(shape(t) != "word" and t.lower() not in line.lower() for t in now):
        return None
    before = context_terms(history)
    carried = [t for t in before if not any(same_term(t, n) for n in now)]
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
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= chars and w not in EN_QUESTION_STOP]


def context_terms(history: list[dict]) -> list[str]:
    """What a rewrite may carry from the conversation: the terms of every user turn (most recent
    first: the subject may be two turns back) and the codes an answer named ("AF-360", "E1")."""
    out: list[str] = []
    for turn in reversed(history):
        found = terms(turn["content"])
        out += found if turn["role"] == "user" else [t for t in found if shape(t) == "code"]
    return list(dict.fromkeys(out))


def mentions(text: str, term: str, rules: CondenseRules = DEFAULT_CONDENSE) -> bool:
    """``text`` carries ``term``: as it is, as a term of ``text`` one contains the other
    ("水壶" / "电热水壶"), or for an English phrase any of its words of three letters or more
    ("rice cooker keep rice warm" is carried by "When does the rice cooker switch off?")."""
    low = text.lower()
    if term.lower() in low or any(same_term(term, t) for t in terms(text)):
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
