"""The answer check across languages: the closest window in the other language than a sentence
(:func:`closest_other_language`, :func:`other_language`) and the sentence put into the evidence's
language by the LLM (:func:`translated`)."""
from __future__ import annotations

import swr.verify.verdict as vd
from swr.core.lang import detect_lang
from swr.text import claims as cl

_TRANSLATE = ("You translate one sentence between English and Simplified Chinese. Reply with the translation "
              "only. Keep names, model numbers, codes, numbers and units exactly as written; add nothing, leave "
              "nothing out, answer nothing.")


def translated(engine, text: str, evidence: str) -> str | None:
    """``text`` in the language of ``evidence``, by the configured (or local) LLM, or None: no
    LLM, a failure, or a reply that is no translation (the wrong language, a copy, a changed
    number or code: :func:`swr.retrieve.xl_translate.check_translation`, plus the numbers and codes kept).
    Written by hand: no library checks a translation's facts; the answer's own LLM is the one
    reader of both languages here (an answer check runs for an LLM answer)."""
    from swr.retrieve.xl_translate import check_translation

    llm = getattr(engine, "answerer", None)
    if llm is None or not getattr(llm, "configured", False):
        return None
    lang = detect_lang(evidence)
    target = "Simplified Chinese" if lang == "zh" else "English"
    try:
        out = llm.chat([{"role": "system", "content": _TRANSLATE},
                        {"role": "user", "content": f"Translate into {target}:\n{text}"}], max_tokens=160,
                       temperature=0.0)
    except Exception:  # noqa: BLE001  (no translation: the sentence stays "not confirmed")
        return None
    out = check_translation(text, (out or "").strip().split("\n")[0].strip(), lang)
    if not out or sorted(cl.codes(out)) != sorted(cl.codes(text)):
        return None
    have, want = cl.quantities(out), cl.quantities(text)  # "4.2升" may become "4.2 L", not "4.5 L"
    if len(have) != len(want) or not all(any(x.same(y) for y in have) for x in want):
        return None
    return out


def _closest(findings: list[vd.Finding]) -> int | None:
    """The index of the closest window about the sentence's product (None: there is none)."""
    ours = [j for j, g in enumerate(findings) if g.fits and g.cosine is not None]
    return max(ours, key=lambda j: findings[j].cosine) if ours else None


def closest_other_language(statement: str, findings: list[vd.Finding]) -> str | None:
    """The focus of the closest window about the sentence's product when it is in the other
    language than the sentence (what an LLM translation is checked against), else None."""
    j = _closest(findings)
    return findings[j].focus if j is not None and detect_lang(findings[j].focus) != detect_lang(statement) else None


def other_language(statement: str, findings: list[vd.Finding], t) -> int | None:
    """The index of the window a "not found" sentence is closest to, when that window is about the
    sentence's product, in the other language, on its topic (cosine ``topic``) and with no conflict
    and nothing missing (no number or code of the sentence it does not state), and no window of
    another product says the sentence in its own words: the check could not compare their words.
    None otherwise: the sentence is simply not found."""
    j = _closest(findings)
    if j is None or any(not g.fits and (g.literal >= t.literal or (
            (g.cosine or 0) >= t.support and g.cover >= t.cover)) for g in findings):
        return None  # (another product's window says it, in its words: the rice cooker's E2, asked of the air fryer)
    g = findings[j]
    if g.cosine < t.topic or not g.clean or detect_lang(g.focus) == detect_lang(statement):
        return None
    return j
