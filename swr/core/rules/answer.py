"""The numbers of the answer stage: follow-up rewrites (swr/answer/condense.py, rewrite_offline.py,
rewrite_llm.py) and the extractive answer (swr/answer/extractive.py).

Reachable from :class:`swr.core.params.RetrievalParams` (``condense``, ``extractive``), so a
request, a benchmark or a test sets another value with ``with_()``. Calibrated numbers say so with
the benchmark to re-run before changing them; the others are free (a product choice).
"""
from __future__ import annotations

from dataclasses import dataclass

from swr.core.rules import FromDict


@dataclass(frozen=True)
class ExtractiveRules(FromDict):
    """The numbers of the extractive answer. Calibrated on bench/new_user.py (36 questions over a PDF
    manual and a .docx FAQ) with the sample presets as a check (tests/test_answer.py): re-run
    bench/new_user.py before changing the calibrated ones."""

    relevance: float = 0.845  # question-to-sentence cosine (e5) at which the sentence answers the question; calibrated
    relevance_terms: float = 0.80  # ... or at which it does when it holds relevance_cover of its terms; calibrated
    relevance_cover: float = 0.5  # the share of the question's terms that lowers the bar to relevance_terms; calibrated
    term_weight: float = 0.1  # ranking bonus per share of the question's terms (not its product's) it holds; calibrated
    number_weight: float = 0.08  # ranking bonus when it states a number of the kind the question asks; calibrated
    code_weight: float = 0.1  # ranking bonus when it writes the question's code ("F3"); calibrated
    # ranking bonus per share of the search's translation's terms a sentence of another language holds
    # (none of the question's words is in it). bench/extract_terms.py, the three bilingual FAQs' answered
    # other-language questions: the quoted sentence holds the answer 11 -> 16 of 94 at 0.05, 19 at 0.1,
    # same-language unchanged; bench/new_user.py 34 of 36 at 0.05, 33 at 0.1 (the compressor's 5 years
    # lost to the whole unit's 2-year line); calibrated
    translated_term_weight: float = 0.05
    hit_weight: float = 0.02  # ranking bonus for a hit of the search (its words ranked it); calibrated
    yes_cover: float = 0.5  # share of the question's terms a sentence must hold to confirm it ("Yes"); calibrated
    min_chars: int = 4  # a candidate sentence has at least this many word characters ("注意：" is not one); free



@dataclass(frozen=True)
class CondenseRules(FromDict):
    """The numbers of the follow-up rewrite. Set on tests/test_condense.py's conversations and
    bench/followups.py (the sample manuals' follow-ups with the local 0.5B): re-run it before
    changing the calibrated ones."""

    history_tokens: int = 600  # recent turns sent to the LLM; the oldest are dropped first; free
    turn_tokens: int = 200  # one long answer is cut to this many tokens; free
    # an LLM rewrite longer than the question and the previous question together by more than this
    # many characters is not a rewrite (it answered); calibrated
    extra_chars: int = 40
    # a rewrite sharing a run of at least this many characters with an answer copied it; calibrated
    copy_run_chars: int = 6
    # ... or a run of at least this share of the rewrite's characters; calibrated
    copy_run_share: float = 0.5
    # an English word is a content word from this many letters ("air" yes, "on" no); free
    word_chars: int = 3



DEFAULT_EXTRACTIVE = ExtractiveRules()
DEFAULT_CONDENSE = CondenseRules()
