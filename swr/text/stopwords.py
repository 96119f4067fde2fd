"""The stop words: the English and Chinese function words no search or term match counts (the
BM25 tokenizer drops them, :mod:`swr.text.sparse`; the claim terms and the glossary skip them).
One home: a rule that needs another list extends these (``EN_STOP | {...}``) beside its use."""
from __future__ import annotations

EN_STOP = frozenset("""a an the and or but if then else of to in on at by for with from into onto about as is are
was were be been being am do does did doing have has had having it its this that these those there here what which
who whom whose when where why how i me my we our you your he him his she her they them their not no nor so than too
very can could should would will shall may might must just also only own same such both each few more most other some
any all s t don doesn didn isn aren wasn weren won wouldn shouldn couldn up down out over under again further once
""".split())
ZH_STOP = frozenset("""的 了 是 在 和 与 及 或 吗 呢 吧 啊 呀 么 什么 怎么 怎样 怎么样 如何 为什么 哪 哪个 哪些
哪里 多少 几 几个 请问 一下 可以 能 能否 会 要 需要 应该 这 那 这个 那个 这些 那些 有 没有 我 你 他 她 它
我们 你们 他们 就 都 也 还 又 被 把 让 给 对 从 向 到 将 以 之 其 该 为 而 并 等 则 但 如果 所以
因为 是否 呢 么 个 上 下 中 时 后 前 里""".split())
