"""The answer's citations linked to their passages, and the marks of the answer check
(:mod:`swr.verify.check`): each sentence's status, the support line, why an answer is rejected."""
from __future__ import annotations

import re
from collections.abc import Iterable

from swr.manage.escape import esc, passage_anchor

CITATION = re.compile(r"\[(\d{1,4}(?:\s*[,，、]\s*\d{1,4})*)\]|【(\d{1,4})】")


def _citation_html(match: re.Match, n_passages: int | None, anchor: str = "") -> str:
    """The HTML for one ``[1]`` / ``[1, 2]`` / ``【1】`` citation (unknown numbers stay text)."""
    numbers = [int(x) for x in re.findall(r"\d+", match.group(0))]

    def ok(k: int) -> bool:
        return k >= 1 and (n_passages is None or k <= n_passages)

    if not any(ok(k) for k in numbers):
        return esc(match.group(0))
    if len(numbers) == 1:
        return f'<a href="#{passage_anchor(anchor, numbers[0])}">[{numbers[0]}]</a>'
    inner = ", ".join(
        f'<a href="#{passage_anchor(anchor, k)}">{k}</a>' if ok(k) else esc(str(k)) for k in numbers
    )
    return f"&#91;{inner}&#93;"


def cited_html(text: str, n_passages: int | None, anchor: str, bad: Iterable[int] = ()) -> str:
    """``text`` escaped with its citations linked; a citation of ``bad`` carries the class
    ``swr-cite-bad`` (its passage does not support the sentence)."""
    bad = set(bad)
    out, pos = [], 0
    for m in CITATION.finditer(text):
        out.append(esc(text[pos:m.start()]))
        link = _citation_html(m, n_passages, anchor)
        if bad & {int(x) for x in re.findall(r"\d+", m.group(0))}:
            link = ('<span class="swr-cite-bad" title="this passage does not support the sentence">'
                    f"{link}</span>")
        out.append(link)
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


CHECK_STATUS = {"supported": "Supported by the evidence", "partly supported": "Partly supported",
                 "rejected": "Rejected by the check", "unchecked": "Nothing to check",
                 "unconfirmed": "Not confirmed: its evidence is in the other language",
                 "refused": "A refusal: the documents do not cover the question",
                 "off the question": "Quoted from the evidence, but it may not answer the question"}


def check_id(prefix: str, k: int) -> str:
    """``{prefix}check-{k}``: the id of answer sentence ``k``'s row (the prefix checked as for passages)."""
    passage_anchor(prefix, k)  # the same check of the prefix
    return f"{prefix}check-{int(k)}"


def sentence_ok(s: dict) -> bool:
    """Supported, and no citation of a passage that does not support it."""
    return bool(s.get("supported")) and not s.get("bad_citations")


def sentence_mark(s: dict) -> tuple[str, str, str]:
    """(css class, mark, words) of one checked sentence."""
    if sentence_ok(s):
        return "ok", "✓", "supported"
    if s.get("supported"):
        return "cite", "⚠", "supported, but a citation is wrong"
    if s.get("verdict") == "contradicted":
        return "bad", "✗", "contradicted by the evidence"
    if s.get("other_language"):
        return "cite", "?", "not confirmed: the evidence is in the other language"
    return "bad", "⚠", "not supported by the evidence"


def check_summary_html(check: dict) -> str:
    """``Rejected by the check · support 1 of 3 sentences (33 %) · 2 flagged`` as a line."""
    sents = check.get("sentences") or []
    ok = sum(bool(s.get("supported")) for s in sents)
    status = check.get("status") or "unchecked"
    flagged = sum(not sentence_ok(s) for s in sents)
    return (f'<div class="swr-support {esc(status.replace(" ", "-"))}"><b>{esc(CHECK_STATUS.get(status, status))}</b>'
            f" · support {ok} of {len(sents)} sentence{'' if len(sents) == 1 else 's'}"
            f" ({float(check.get('support') or 0):.0%})"
            + (f" · {flagged} flagged" if flagged else "") + "</div>")


def rejected_text(check: dict) -> str:
    """Why the check rejects an answer, in a sentence (the rows say it per sentence)."""
    sents = check.get("sentences") or []
    contra = sum(s.get("verdict") == "contradicted" for s in sents)
    absent = sum(not s.get("supported") for s in sents) - contra
    why = []
    if contra:
        why.append(f"{contra} of its {len(sents)} sentence{'s' if len(sents) > 1 else ''} "
                   f"{'is' if contra == 1 else 'are'} contradicted by the evidence")
    if absent:
        why.append(f"{absent} of its {len(sents)} {'is' if absent == 1 else 'are'} not in the evidence")
    return ("; ".join(why) or "it is not supported").capitalize() + (
        ". Do not pass it on as it stands: read the flagged sentences against the evidence.")
