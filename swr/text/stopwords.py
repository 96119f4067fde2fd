"""The stop words: the English and Chinese function words no search or term match counts (the
BM25 tokenizer drops them, :mod:`swr.text.sparse`; the claim terms and the glossary skip them).
One home: a rule that needs a few more extends these (``EN_STOP | {...}``) beside its use; a rule
that needs another list (the glossary's Chinese words, a question's function words) finds it here."""
from __future__ import annotations

EN_STOP = frozenset("""a an the and or but if then else of to in on at by for with from into onto about as is are
was were be been being am do does did doing have has had having it its this that these those there here what which
who whom whose when where why how i me my we our you your he him his she her they them their not no nor so than too
very can could should would will shall may might must just also only own same such both each few more most other some
any all s t don doesn didn isn aren wasn weren won wouldn shouldn couldn up down out over under again further once
""".split())
# English contractions, with and without the apostrophe (customers type "dont", "im"): no term of a
# question that a document must use (answerability, swr/answer/answerable_terms.py). The BM25
# tokenizer splits at the apostrophe and drops the halves with EN_STOP ("don", "t")
EN_CONTRACTIONS = frozenset("""i'm im i've ive i'll you're youre you've youve we're we've weve they're theyre they've
it's that's thats what's whats there's theres here's don't dont doesn't doesnt didn't didnt isn't isnt aren't arent
wasn't wasnt weren't werent can't cant couldn't couldnt won't wouldn't wouldnt shouldn't shouldnt haven't havent
hasn't hasnt hadn't hadnt""".split())
ZH_STOP = frozenset("""的 了 是 在 和 与 及 或 吗 呢 吧 啊 呀 么 什么 怎么 怎样 怎么样 如何 为什么 哪 哪个 哪些
哪里 多少 几 几个 请问 一下 可以 能 能否 会 要 需要 应该 这 那 这个 那个 这些 那些 有 没有 我 你 他 她 它
我们 你们 他们 就 都 也 还 又 被 把 让 给 对 从 向 到 将 以 之 其 该 为 而 并 等 则 但 如果 所以
因为 是否 呢 么 个 上 下 中 时 后 前 里""".split())
# Chinese words that carry no content for a translation (particles, copula, pronouns: the glossary,
# swr/text/glossary.py). Hand-written: CC-CEDICT has no part-of-speech field to select them by.
ZH_GLOSS_STOP = frozenset("""的 了 是 在 吗 呢 吧 啊 呀 么 之 其 与 及 和 或 把 被 给 对 从 向 到 将 请问 一下
我 你 他 她 它 我们 你们 他们 这 那 这个 那个 这些 那些 个 就 都 也 还 又 可以 能 会 要 应该 该""".split())

# The function words of a *question* (the follow-up rewrite, swr/answer/rewrite_offline.py): what is
# left is its subject, so they also hold question verbs ("mean", "happen") and pronouns that the
# stop lists above must not drop from documents.
EN_QUESTION_STOP = frozenset("""a an the and or but if then of to in on at by for with from into about as is are was
were be been being am do does did have has had it its it's this that these those there here what which who whom
whose when where why how i me my we our you your he him his she her they them their not no so than too very can
could should would will shall may might must just also only any all some more most other such mean means meaning
happen happens happened need needs use used using get got go goes make makes tell say long much many often
about please ok okay thanks thank yes one ones else""".split())
ZH_QUESTION_STOP = frozenset("""的 了 是 在 和 与 及 或 吗 呢 吧 啊 呀 么 什么 怎么 怎样 怎么样 如何 为什么 哪 哪个
哪些 哪里 多少 几 几个 请问 一下 可以 能 能否 会 要 需要 应该 这 那 这个 那个 这些 那些 有 没有
我 你 他 她 它 我们 你们 他们 它们 就 都 也 还 又 被 把 让 给 对 从 向 到
将 以 之 其 该 为 而 并 等 则 但 如果 所以 因为 是否 个 上 下 中 时 后 前
里 意思 多久 一次 做 用 呢 那么 还有 另外 怎么办 办""".split())

# The words that ask rather than say what is asked about (answerability's question terms,
# swr/answer/answerable_terms.py): the terms left are what the passages must hold.
ASK_WORDS = frozenset("""what which who whom whose when where why how many much long does do did mean means please tell
know explain describe happen happens kind type 多久 几年 多长 多长时间 意思 代表 应该 怎么办 处理 请问
是不是 哪种 哪一个
为何 何时 多大 多重 多高 几个 几次 可不可以 能不能 吗
啥 啥意思 啥时候 什么时候 为啥 干嘛 干啥 咋 咋办 咋样 咋回事 怎么回事""".split())  # the spoken forms too
