"""What each rule id means, in words a support lead reads: the evidence's "why this rank" and "why
not answered". One sentence per stable rule id (the ``str`` Enums of the rule modules); an id not
listed is shown as it is."""
from __future__ import annotations

WORDS = {
    # ranking (Hit.trace: swr.core.rules.crosslingual.XlRule)
    "own_language": "Ranked among the sentences in the question's language by its search score.",
    "foreign_enters": "A sentence in another language, placed above a question-language one: it was clearly "
                      "more likely to hold the answer.",
    "foreign_after": "A sentence in another language, placed after the question-language sentences it did not beat.",
    "both_lists": "Found both by the question and by its translation.",
    "subject": "Its document is about the product the question names, so it was ranked up.",
    "foreign_last": "From another product's document than the question names, so it was put last.",
    "empty_last": "Holds no words (only marks), so it was put last.",
    "contents_last": "A line of a table of contents: it only repeats a heading, so it was put last.",
    "heading_after": "The heading of a section a better result is already in, so its place went to another passage.",
    "own_kept": "The best sentence in the question's language, kept in the results though other-language "
                "sentences scored higher.",
    "agreed_kept": "The other language's most likely sentence, ranked high by both its searches (the question's "
                   "and its translation's), kept in the results beside the question-language ones.",
    "other_place": "One of the other language's most likely sentences, given a place of its own beside the "
                   "results in the question's language (cross-lingual search adds places; it never takes one).",
    "plain_kept": "Among the results the search gives without cross-lingual search, so it stays in them though "
                  "the fusion ranked other sentences higher.",
    "code_first": "It writes the code the question asks about (an error code, a part number), so it was "
                  "ranked first.",
    "topic_word": "Its document's title shares a word with the question, but the knowledge base says that word "
                  "in many documents, so it was not ranked up as the product the question names.",
    # answerability (swr.answer.answerable.Rule)
    "answerable.no_sentence": "Nothing usable was found in the knowledge base.",
    "answerable.code_missing": "The question names a code (like E4) that no passage mentions.",
    "answerable.small_talk": "Small talk, not a question about this knowledge base's documents.",
    "answerable.name_absent": "The question names something no document of this knowledge base mentions.",
    "answerable.product_absent": "The question asks about a kind of product no document of this knowledge base names.",
    "answerable.unknown_terms": "Most of the question's words appear in no document of this knowledge base.",
    "answerable.codes_named": "The question's codes are in the document it asks about.",
    "answerable.translated": "The passages in the other language score high against the translated question "
                             "and say what it asks.",
    "answerable.translated_high": "The passages in the other language score very high against the translated "
                                  "question.",
    "answerable.subject_named": "The question's words are in the document of the product it names.",
    "answerable.cross_names": "Answered across languages: the passages name what the translated question names.",
    "answerable.cross": "Answered across languages: the passages are close to the question and share its terms.",
    "answerable.high": "The passages are very close to the question and share its words.",
    "answerable.low_cover": "The passages are close to the question and hold most of its words.",
    "answerable.evidence": "Answered on the weight of the evidence together: how close the passages are, how many "
                           "of the question's words they hold, and that this knowledge base uses its words.",
    "answerable.centred": "Answered on how close the passages are once each language's common offset is taken out "
                          "(and how generic the closest sentence is), with every word of the question known here.",
    "answerable.no_term": "The passages look similar, but hold none of the question's words.",
    "answerable.below": "The closest passages are not close enough to the question to answer it.",
    # the extractive answer (swr.answer.extractive.Rule)
    "extractive.picked": "The answer quotes the sentence closest to the question.",
    "extractive.relevant": "That sentence answers the question.",
    "extractive.not_relevant": "That sentence is the closest, but may not answer the question.",
    "yesno.yes": "Yes: the sentence states what the question asks.",
    "yesno.no.number": "No: the sentence gives another number than the question.",
    "yesno.no.code": "No: the sentence gives another code than the question.",
    "yesno.no.negation": "No: the sentence says the opposite of what the question asks.",
    "yesno.undecided": "The sentence neither confirms nor contradicts the question.",
    # the answer check (swr.verify.check.Rule)
    "check.refusal": "The answer says the documents do not cover the question.",
    "check.quoted_relevant": "The quoted sentence answers the question.",
    "check.quoted_off_question": "The quoted sentence is in the documents but may not answer the question.",
    "check.sentences": "Each sentence of the answer was checked against the passages.",
}


def rule_words(entry: str) -> str:
    """The sentence of one trace entry: ``"second_list+0.21"`` and ``"foreign_enters:0.62>0.48"``
    read as their rule's sentence (the figures stay in the raw trace)."""
    rule = str(entry)
    for sep in (":", "+"):
        head = rule.split(sep, 1)[0]
        if head in WORDS:
            return WORDS[head]
    return WORDS.get(rule, rule)


def trace_words(trace) -> list[str]:
    """The sentences of a trace (hit trace strings or answer trace ``{"rule", "why"}`` entries), each once."""
    out = [rule_words(t.get("rule", "") if isinstance(t, dict) else t) for t in (trace or ())]
    return list(dict.fromkeys(x for x in out if x))
