"""The session-state schema: every key the app keeps in ``st.session_state``, written once.

Two kinds of entries:

- :class:`Kept`: a widget value that must survive pages and runs where its widget is not drawn
  (Streamlit drops the state of an undrawn widget). The widget uses ``w_<name>``; the value lives
  on in ``cfg_<name>``. Read it with :meth:`Kept.get`, draw its widget with ``key=knob.widget()``
  and store what the widget returned with :meth:`Kept.keep`.
- :class:`Slot`: a plain value of this session (history, results of the last sweep or compare...).

The chat's retrieval knobs (:data:`CHAT`) turn into one :class:`swr.core.params.RetrievalParams` with
:func:`chat_params`, and back with :func:`apply_params`: the chat, Tune, Compare and the probe all
start from that one object, so the settings a page tests are the chat's by construction.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import streamlit as st

from swr.core.params import RetrievalParams

T = TypeVar("T")
_MISSING = object()


@dataclass(frozen=True)
class Kept(Generic[T]):
    """A kept widget value: widget key ``w_<name>``, kept copy ``cfg_<name>``."""

    name: str

    @property
    def key(self) -> str:
        return f"w_{self.name}"

    @property
    def kept_key(self) -> str:
        return f"cfg_{self.name}"

    def widget(self, default: T) -> str:
        """The widget key, its value set from the kept copy (or ``default`` the first time)."""
        ss = st.session_state
        if self.kept_key not in ss:
            ss[self.kept_key] = default
        if self.key not in ss:
            ss[self.key] = ss[self.kept_key]
        return self.key

    def keep(self, value: T) -> T:
        """Store what the widget returned this run; returns it."""
        st.session_state[self.kept_key] = value
        return value

    def get(self, default: T | None = None) -> T:
        return st.session_state.get(self.kept_key, default)

    def has(self) -> bool:
        return self.kept_key in st.session_state

    def set(self, value: T) -> None:
        """Set the kept copy and the widget (from a callback or before the widget is drawn)."""
        st.session_state[self.kept_key] = value
        st.session_state[self.key] = value

    def forget(self) -> None:
        st.session_state.pop(self.kept_key, None)
        st.session_state.pop(self.key, None)

    def forget_widget(self) -> None:
        st.session_state.pop(self.key, None)

    def widget_value(self, default: Any = None) -> Any:
        return st.session_state.get(self.key, default)


@dataclass(frozen=True)
class Slot(Generic[T]):
    """A plain session value under ``name``."""

    name: str
    factory: Callable[[], T] | None = None

    def get(self, default: T | None = None) -> T | None:
        if self.factory is not None and self.name not in st.session_state:
            st.session_state[self.name] = self.factory()
        return st.session_state.get(self.name, default)

    def set(self, value: T) -> None:
        st.session_state[self.name] = value

    def pop(self) -> T | None:
        return st.session_state.pop(self.name, None)


class CHAT:
    """The sidebar's knobs (kept across pages)."""

    kb = Kept[str]("kb")
    demo = Kept[bool]("demo")
    window = Kept[int]("window")
    window_mode = Kept[str]("window_mode")
    budget = Kept[int]("window_budget")
    top_k = Kept[int]("top_k")
    mode = Kept[str]("mode")
    fusion = Kept[str]("fusion")
    dense_weight = Kept[float]("dense_weight")
    dense_k = Kept[int]("dense_k")
    sparse_k = Kept[int]("sparse_k")
    cutoff = Kept[bool]("cutoff")
    min_score = Kept[float]("min_score")
    rerank = Kept[bool]("rerank")
    sources = Kept[list]("sources")
    tags = Kept[list]("tags")
    lang = Kept[str]("lang")


# plain session values
HISTORY = Slot[list]("history", list)
PENDING = Slot[dict]("pending")  # the question to ask in the coming run (a button callback queued it)
FAILED = Slot[dict]("failed")  # the last question, when it failed (kept with its error)
KB_GONE = Slot[str]("kb_gone")  # the selected knowledge base vanished (deleted elsewhere): its name
SESSION_ID = Slot[str]("session_id")  # names the history file (swr.app.history), also in the URL
HISTORY_LOADED = Slot[bool]("history_loaded")
FLASH = Slot[tuple]("flash")  # (kind, text) a callback left for the next run
ENTRY_SEQ = Slot[int]("entry_seq")
INDEX_RESULTS = Slot[tuple]("index_results")  # (kb, [FileResult], summary line)
DOC_CONFIRM = Slot[tuple]("doc_confirm")  # (kb, doc_id) whose "Delete document…" asks to confirm
TUNE_RESULT = Slot[dict]("tune_result")
CMP_RESULT = Slot[dict]("cmp_result")
CMP_Q_FOR = Slot[tuple]("cmp_q_for")  # (kb, question) the Compare box was last filled with
PROBE_RESULT = Slot[dict]("probe_result")
VERIFY_RESULTS = Slot[tuple]("verify_results")  # (kb, [ClaimResult])
FEEDBACK = Slot[dict]("feedback", dict)  # answer key -> what this session marked on it (swr.app.feedback)
OWNER = Slot[str]("owner")  # the signed-in user everything else in this session belongs to
SIGNED_IN = Slot[str]("auth_user")  # the name the sign-in form accepted (swr.app.components.signin)
SIGN_IN_TOKEN = Slot[str]("auth_token")  # the sign-in token of this session (swr.manage.access.session_token)
COOKIE_WRITE = Slot[str]("auth_cookie")  # a sign-in cookie the coming run writes into the browser ("" clears)

# What a sign-out (or another user signing in in this session) leaves in the session: an
# allow-list, so a key added later is cleared unless it is named here. Only the cookie that the
# sign-out itself must still clear in the browser survives.
SURVIVES_SIGN_OUT: tuple[str, ...] = (COOKIE_WRITE.name,)


def clear_user_state(keep: tuple[str, ...] = ()) -> None:
    """Forget everything this session holds from its user (history, results, drafts, widget values,
    uploads in progress): every key of ``st.session_state`` but :data:`SURVIVES_SIGN_OUT` and ``keep``."""
    ss = st.session_state
    for key in list(ss.keys()):
        if key not in SURVIVES_SIGN_OUT and key not in keep:
            del ss[key]


def own_session(user: str) -> None:
    """Mark this session as ``user``'s; when it held another user's things, forget them first
    (the sign-in survives)."""
    if OWNER.get() not in (None, user):
        clear_user_state(keep=(SIGNED_IN.name, SIGN_IN_TOKEN.name))
    OWNER.set(user)


# results that name their knowledge base (a dict's "kb", a tuple's first item)
KB_RESULTS = (TUNE_RESULT, CMP_RESULT, CMP_Q_FOR, INDEX_RESULTS, VERIFY_RESULTS, DOC_CONFIRM)


def forget_unreadable(can_read: Callable[[str], bool]) -> None:
    """Drop the results of knowledge bases the user may no longer read (a grant taken away)."""
    for slot in KB_RESULTS:
        value = slot.get()
        kb = value.get("kb") if isinstance(value, dict) else value[0] if isinstance(value, tuple) and value else None
        if isinstance(kb, str) and not can_read(kb):
            slot.pop()
            if slot is CMP_RESULT:
                PROBE_RESULT.pop()


def queue_question(question: str, **extra) -> None:
    """Ask ``question`` in the coming run (button callbacks: presets, regenerate, ask again)."""
    PENDING.set({"question": question, **extra})


class TUNE:
    """The Tune page's grid (kept across pages) and widget keys."""

    windows = Kept[list]("tune_windows")
    top_ks = Kept[list]("tune_top_ks")
    modes = Kept[list]("tune_modes")
    window_modes = Kept[list]("tune_window_modes")
    budgets = Kept[list]("tune_budgets")
    chunks = Kept[bool]("tune_chunks")
    chunk_sizes = Kept[list]("tune_chunk_sizes")
    overlap = Kept[int]("tune_overlap")
    limit = Kept[int]("tune_limit")
    source = "tune_src"
    upload = "tune_upload"
    pick = "tune_pick"
    metric = "tune_metric"
    heat_mode = "tune_heat_mode"


class COMPARE:
    """The Compare page's question and the probe's widget keys."""

    question = Kept[str]("cmp_q")
    preset = "cmp_preset"
    probe_doc = "probe_doc"
    probe_side = "probe_side"

    @staticmethod
    def side(side: str, field: str) -> Kept:
        """One side's knob (``a`` / ``b``: window, top_k, mode, fusion, dense_weight)."""
        return Kept(f"cmp_{side}_{field}")

    @staticmethod
    def probe_sentence(doc_id: str) -> str:
        return f"probe_sent_{doc_id}"


class KEYS:
    """Widget keys of plain (not kept) widgets, one place for them all (the tests use them too)."""

    # chat and sidebar
    chat_input = "chat"
    clear_chat = "clear-chat"
    retry_failed = "retry-failed"
    filters_box = "filters"
    presets_box = "presets"  # the demo mode's preset buttons (CSS: .st-key-presets)
    published_box = "published"  # the sidebar's published-settings panel
    # knowledge bases
    new_kb = "new_kb"
    delete_kb = "delete-kb"
    kb_tabs = "kb_tabs"
    trash_box = "trash"
    uploads = "uploads"
    upload_tags = "upload_tags"
    index = "index"
    doc_pick = "doc_pick"
    delete_doc = "delete-doc"
    doc_confirm_box = "doc-confirm"
    delete_doc_yes = "delete-doc-yes"
    delete_doc_no = "delete-doc-no"
    golden_save = "golden-save"
    words_save = "words-save"
    words_try = "words-try"
    # Tune, Compare, the probe
    tune_table = "tune_table"
    tune_csv = "tune-csv"
    tune_apply = "tune-apply"
    tune_apply_go = "tune-apply-go"
    compare_go = "cmp-go"
    probe_go = "probe-go"

    @staticmethod
    def confirm_delete(kb: str) -> str:
        """The "Delete it with all its documents" checkbox of one knowledge base."""
        return f"confirm_delete_kb-{kb}"

    @staticmethod
    def restore(entry_id: str) -> str:
        return f"restore-{entry_id}"

    @staticmethod
    def golden(kb: str) -> str:
        return f"golden-{kb}"

    @staticmethod
    def words(kb: str) -> str:
        return f"words-{kb}"

    @staticmethod
    def preset(k: int) -> str:
        return f"preset-{k}"

    @staticmethod
    def try_question(k: int) -> str:
        return f"try-{k}"

    @staticmethod
    def regenerate(entry_id: int) -> str:
        return f"regen-{entry_id}"

    @staticmethod
    def share(entry_id: int) -> str:  # "Copy link" under an answer (swr.app.shared)
        return f"share-{entry_id}"

    @staticmethod
    def searched(entry_id: int) -> str:  # a follow-up's editable "searched for" text
        return f"searched-{entry_id}"

    @staticmethod
    def reask(entry_id: int) -> str:
        return f"reask-{entry_id}"

    @staticmethod
    def export(name: str) -> str:
        return f"dl-{name}"

    # feedback (swr.app.feedback)
    feedback_csv = "feedback-csv"
    feedback_user = "feedback-user"  # admins: one user's feedback only

    @staticmethod
    def feedback(what: str, entry_id, *more) -> str:
        """A feedback widget of one answer: ``up``, ``down``, ``sent`` (the right-sentence picker),
        ``right`` (its button), ``wrong`` (with the passage and sentence numbers)."""
        return "-".join(["fb", what, str(entry_id), *map(str, more)])

    @staticmethod
    def open_doc(name: str, n: int, i: int) -> str:
        """The "open in document" button of passage ``n``'s hit sentence ``i`` of one answer."""
        return f"opendoc-{name}-{n}-{i}"

    @staticmethod
    def docview_page(name: str) -> str:
        """The page the document view of one answer shows (None: the hit's pages)."""
        return f"dv-page-{name}"

    @staticmethod
    def docview_zoom(name: str) -> str:
        return f"dv-zoom-{name}"

    @staticmethod
    def evidence_box(name: str) -> str:
        """A scrolling evidence box (CSS: ``div[class*="st-key-ev-"]``)."""
        return f"ev-{name}"


class VERIFY:
    """The Verify page's widget keys."""

    claims = "verify_claims"
    file = "verify_file"
    go = "verify_go"
    threshold = "verify_threshold"
    window = "verify_window"
    step = "verify_step"
    candidates = "verify_candidates"
    use_top = "verify_use_top"
    passage_window = "verify_passage_window"
    top_k = "verify_top_k"
    mode = "verify_mode"
    csv = "verify_csv"
    json = "verify_json"


# --------------------------------------------------------------------------------------------
# the chat's knobs <-> RetrievalParams


def chat_params(defaults: RetrievalParams) -> RetrievalParams:
    """The chat's retrieval request: ``defaults`` (``engine.default_params()``) with the kept
    sidebar knobs. The one place the knobs become parameters."""
    c, d = CHAT, defaults
    fusion = c.fusion.get(d.fusion)
    weight = float(c.dense_weight.get(d.dense_weight)) if fusion == "weighted" else d.dense_weight
    lang = c.lang.get("any")
    min_score = c.min_score.get(0.0) if c.cutoff.get(False) else None
    stages = (("cutoff",) if min_score is not None else ()) + (("rerank",) if c.rerank.get(False) else ())
    return d.with_(
        window_size=int(c.window.get(d.window_size)), top_k=int(c.top_k.get(d.top_k)), mode=c.mode.get(d.mode),
        window_mode=c.window_mode.get(d.window_mode), budget_chars=int(c.budget.get(d.budget_chars)),
        fusion=fusion, dense_weight=weight,
        dense_k=int(c.dense_k.get(d.dense_k)), sparse_k=int(c.sparse_k.get(d.sparse_k)),
        sources=tuple(c.sources.get([])), tags=tuple(c.tags.get([])), lang=None if lang == "any" else lang,
        min_score=None if min_score is None else float(min_score), stages=stages)


def apply_params(params: RetrievalParams) -> None:
    """Set the sidebar's knobs (kept copies and widgets) to ``params``: the inverse of
    :func:`chat_params` (``chat_params(defaults) == params`` afterwards)."""
    c = CHAT
    values = [(c.window, int(params.window_size)), (c.top_k, int(params.top_k)), (c.mode, params.mode),
              (c.window_mode, params.window_mode), (c.budget, int(params.budget_chars)),
              (c.fusion, params.fusion), (c.dense_weight, float(params.dense_weight)),
              (c.dense_k, int(params.dense_k)), (c.sparse_k, int(params.sparse_k)),
              (c.sources, list(params.sources)), (c.tags, list(params.tags)), (c.lang, params.lang or "any"),
              (c.cutoff, "cutoff" in params.stages), (c.rerank, "rerank" in params.stages)]
    if params.min_score is not None:
        values.append((c.min_score, float(params.min_score)))
    for knob, value in values:
        knob.set(value)
