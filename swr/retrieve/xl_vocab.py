"""What a knowledge base's sentences say, asked of the store for the cross-lingual search
(:mod:`swr.retrieve.crosslingual`): whether they use a word (the dictionary keeps the senses they
use, the unknown-terms rule reads the words they do not) and how many of them use it (the
dictionary keeps the sense they use most). Each answer is cached until the knowledge base changes;
a question's new words are asked about in one batched store call."""
from __future__ import annotations

import re
from typing import Callable

from swr.core.params import MAX_TOP_K
from swr.store import SearchRequest

VOCAB_CACHED = 200_000  # (knowledge base, language, word) answers kept per cache (its size)
_HAN = re.compile(r"[\u3400-\u9fff]")


class Vocabulary:
    """The words a knowledge base's sentences use, per language (``lang`` None: any)."""

    def __init__(self, store, sparse) -> None:
        self.store, self.sparse = store, sparse
        self._vocab: dict[tuple, bool | None] = {}  # (kb, lang, version, word) -> used (None: no term)
        self._uses: dict[tuple, int] = {}  # (kb, lang, version, word) -> sentences using it

    def known(self, kb: str, lang: str, count: int, by_use: bool = False) -> Callable[[str], bool]:
        """Whether the knowledge base's ``lang`` sentences use every content word of a phrase:
        one BM25 probe per new word (cached until the knowledge base changes; :meth:`probe`
        asks the store about a question's new words in one batch first). ``by_use``: it also says
        how many of those sentences use the phrase (``known.uses``, its least used word), for the
        dictionary to keep the sense the knowledge base uses most (:func:`swr.text.glossary.translate`)."""
        if len(self._vocab) > VOCAB_CACHED:
            self._vocab.clear()
        if len(self._uses) > VOCAB_CACHED:
            self._uses.clear()

        def known(phrase: str) -> bool:
            seen = False
            for word in phrase.split():
                key = (kb, lang, count, word.lower())
                if key not in self._vocab:
                    self.probe(kb, lang, count, [word])
                if self._vocab[key] is False:
                    return False
                seen = seen or self._vocab[key] is not None
            return seen

        def uses(phrase: str) -> int:
            return min((self.used_by(kb, lang, count, w.lower()) for w in phrase.split()), default=0)
        if by_use:
            known.uses = uses  # type: ignore[attr-defined]
        return known

    def used_by(self, kb: str, lang: str, count, word: str) -> int:
        """How many of ``kb``'s ``lang`` sentences use ``word`` (:meth:`count_uses`), cached until
        the knowledge base changes."""
        key = (kb, lang, count, word)
        if key not in self._uses:
            self.count_uses(kb, lang, count, [word])
        return self._uses[key]

    def count_uses(self, kb: str, lang: str, count, words) -> None:
        """Count the sentences using each of ``words`` (new ones only) that ``kb``'s ``lang`` sentences
        use, in one batched store call: its BM25 hits, up to the store's largest top k, that write
        the word itself, not only a BM25 term it shares (抵用券 and 优惠券 share 券)."""
        todo = [w for w in dict.fromkeys(w.lower() for w in words) if (kb, lang, count, w) not in self._uses]
        vecs = {w: self.sparse.encode_query(w) for w in todo}
        asked = [w for w in todo if vecs[w].indices and self._vocab.get((kb, lang, count, w)) is not False]
        for w in todo:
            self._uses[(kb, lang, count, w)] = 0
        found = self.store.search_many([SearchRequest(kb=kb, dense=None, sparse=vecs[w], mode="sparse",
                                                      top_k=MAX_TOP_K, sparse_k=MAX_TOP_K, lang=lang)
                                        for w in asked]) if asked else []
        for w, hits in zip(asked, found):
            said = re.compile(re.escape(w) if _HAN.search(w) else rf"\b{re.escape(w)}", re.IGNORECASE)
            self._uses[(kb, lang, count, w)] = sum(bool(said.search(h.sentence.text)) for h in hits)

    def probe(self, kb: str, lang: str | None, count, words) -> None:
        """Learn whether ``kb``'s ``lang`` sentences use each of ``words`` (new ones only), with
        one batched store call (:meth:`swr.store.Store.sparse_any`)."""
        todo, vecs = [], []
        for word in dict.fromkeys(w.lower() for w in words):
            key = (kb, lang, count, word)
            if key in self._vocab:
                continue
            vec = self.sparse.encode_query(word)
            if not vec.indices:
                self._vocab[key] = None
            else:
                todo.append(key)
                vecs.append(vec)
        if vecs:
            for key, found in zip(todo, self.store.sparse_any(kb, lang, vecs)):
                self._vocab[key] = found


    def used(self, key: tuple) -> bool | None:
        """The cached answer for ``(kb, lang, version, word)`` (None: not asked, or no term)."""
        return self._vocab.get(key)
