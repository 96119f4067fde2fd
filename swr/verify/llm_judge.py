"""The LLM's say on a verdict the verification rules reached (:func:`llm_verdict`)."""
from __future__ import annotations

import swr.verify.verdict as vd
from swr.verify.windows import WindowView

LLM_JUDGE_PROMPT = (
    "You check claims against a passage. Reply with exactly one word: YES if the passage states the "
    "claim, NO if the passage says something else (another number, name, product or the opposite), "
    "UNKNOWN if the passage does not say.")


def llm_verdict(answerer, claim: str, judged: list[tuple], views: list[WindowView], verdict: str) -> tuple[str, str]:
    """The LLM's say on a verdict the rules reached: only a ``supported`` is put to it (the
    deciding window and the claim, one short call); its NO makes the claim ``contradicted``, its
    UNKNOWN ``not found``. The LLM can take a support away, never give one: the rules' conflicts
    (numbers, codes, polarity, subject) stand whatever it says. Returns (verdict, reason);
    :class:`swr.core.errors.LLMUnavailable` propagates."""
    if verdict != "supported" or not judged:
        return verdict, ""
    _, k = vd.decide([j[0] for j in judged])
    w = views[k]
    passage = "".join(w.sentences).strip()[:1500]
    reply = answerer.chat([{"role": "system", "content": LLM_JUDGE_PROMPT},
                           {"role": "user", "content": f"Passage:\n{passage}\n\nClaim: {claim}\n\nAnswer:"}],
                          max_tokens=4)
    word = (reply or "").strip().strip("*.:'\"").split()
    word = word[0].upper() if word else ""
    if word.startswith("NO"):
        return "contradicted", f"the LLM judge says the window does not state the claim ({reply.strip()!r})"
    if word.startswith(("UNK", "NOT")):
        return "not found", f"the LLM judge says the window does not say ({reply.strip()!r})"
    return "supported", f"the LLM judge agrees ({reply.strip()!r})"
