"""The knowledge-bases page: create/delete knowledge bases, upload and index files, list and delete
documents, preview a document's sentence split, edit preset questions, system information."""
from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from swr.app import base, state
from swr.app.audit import audit_panel
from swr.app.components import published
from swr.app.components.errors import errors_shown, flash, md, show_flash
from swr.app.components.llm_status import llm_status_line
from swr.app.components.sidebar import sidebar
from swr.app.state import CHAT, KEYS
from swr.core.errors import SwrError
from swr.core.types import FileResult
from swr.ingest.load import SUPPORTED, safe_name
from swr.manage import presets
from swr.manage.access import GuardedEngine as Engine  # pages hold the checked view
from swr.manage.render import esc, split_preview_html
from swr.text import kb_words

MAX_PREVIEW_SENTENCES = 400
UPLOAD_TYPES = [ext.lstrip(".") for ext in SUPPORTED]


def render() -> None:
    """The whole page (``pages/1_Knowledge_bases.py``)."""
    base.setup_page("Knowledge bases", base.TAB_ICONS[base.KB_PAGE])
    engine = base.engine_or_stop()
    ctl = sidebar(engine, knobs=False)
    st.markdown(f"#### {base.ICONS[base.KB_PAGE]} Knowledge bases")
    with errors_shown():  # e.g. the Qdrant server went away: a message, not a traceback
        kb_manager(engine, ctl.kb)
    if not ctl.kb:
        with errors_shown():
            system_panel(engine)
        return
    can_edit = engine.actor.can_edit(ctl.kb)  # the view refuses anyway; this hides what would be refused
    names = (["Upload"] if can_edit else []) + ["Documents", "Preset questions", "Words", "System"] \
        + (["Audit"] if engine.actor.is_admin else [])
    # a key and state tracking: the selected tab survives the reruns of a delete or an upload
    tabs = dict(zip(names, st.tabs(names, key=KEYS.kb_tabs, on_change="rerun")))
    if can_edit:
        with tabs["Upload"], errors_shown():
            upload_panel(engine, ctl.kb)
    with tabs["Documents"], errors_shown():
        documents_panel(engine, ctl.kb)
    with tabs["Preset questions"], errors_shown():
        golden_editor(engine, ctl.kb)
    with tabs["Words"], errors_shown():
        words_panel(engine, ctl.kb, can_edit)
    with tabs["System"], errors_shown():
        system_panel(engine)
    if "Audit" in tabs:
        with tabs["Audit"], errors_shown():
            audit_panel(engine)


def _create_kb(engine: Engine) -> None:
    state.INDEX_RESULTS.pop()
    name = (st.session_state.get(KEYS.new_kb) or "").strip()
    existed = name in {k["kb"] for k in engine.kbs(hidden=True)}
    try:
        engine.create_kb(name)
    except SwrError as exc:
        flash("error", exc.message)
        return
    CHAT.kb.set(name)
    if existed:  # names are shown as typed (no repr: a backslash stays one backslash)
        flash("info", f"Knowledge base “{name}” exists already: it is selected now.")
    else:
        flash("success", f"Created knowledge base “{name}”.")


def _delete_kb(engine: Engine, kb: str) -> None:
    st.session_state.pop(KEYS.confirm_delete(kb), None)  # the confirmation never outlives its use
    state.INDEX_RESULTS.pop()
    try:
        n = engine.delete_kb(kb)
    except SwrError as exc:
        flash("error", exc.message)
        return
    CHAT.kb.forget()
    flash("success", f"Moved knowledge base “{kb}” ({n:,} sentences) to the trash: restore it below, "
                     f"in the Trash panel, within {engine.settings.trash_days:g} days.")


def kb_manager(engine: Engine, kb: str | None) -> None:
    """Create a knowledge base; delete the selected one (after a confirmation that names what
    goes: the checkbox belongs to that one knowledge base and is reset once used)."""
    show_flash()
    if not engine.actor.is_admin:  # creating and deleting knowledge bases is the admins' job
        return
    c1, c2 = st.columns(2, gap="large")
    with c1.form("create-kb", clear_on_submit=True, border=True):
        st.text_input("New knowledge base", key=KEYS.new_kb, placeholder="e.g. kettles-2025", max_chars=64)
        st.form_submit_button("Create", icon=":material/add:", on_click=_create_kb, args=(engine,))
    if kb:
        info = next((k for k in engine.kbs() if k["kb"] == kb), {"documents": 0, "sentences": 0})
        with c2.container(border=True):
            st.text(f"Selected: {kb}")
            # one key per knowledge base: picking another one shows an unticked box
            sure = st.checkbox(f"Delete “{kb}” with its {info['documents']:,} documents "
                               f"({info['sentences']:,} sentences)", key=KEYS.confirm_delete(kb))
            st.button(f"Delete “{kb}”", key=KEYS.delete_kb, disabled=not sure, icon=":material/delete:",
                      on_click=_delete_kb, args=(engine, kb),
                      help=f"It goes to the trash for {engine.settings.trash_days:g} days (restorable).")
    trash_panel(engine)


def _restore(engine: Engine, entry_id: str) -> None:
    state.INDEX_RESULTS.pop()
    try:
        e = engine.trash.restore(entry_id)
    except SwrError as exc:
        flash("error", exc.message)
        return
    CHAT.kb.set(e.kb)
    flash("success", f"Restored {e.label.replace(repr(e.kb), '“' + e.kb + '”')} ({e.sentences:,} sentences).")


def trash_panel(engine: Engine) -> None:
    """What was deleted in the last SWR_TRASH_DAYS days, each with "Restore"."""
    entries = engine.trash.entries()
    if not entries:
        return
    with st.expander(f"Trash ({len(entries)}): deleted knowledge bases and documents, kept "
                     f"{engine.settings.trash_days:g} days", key=KEYS.trash_box):
        for e in entries:
            c1, c2 = st.columns([5, 1], vertical_alignment="center")
            what = (f"knowledge base “{e.kb}”" if e.kind == "kb" else f"{e.source} from “{e.kb}”")
            c1.markdown(md(f"{what}: {e.sentences:,} sentences, deleted {e.deleted_at.replace('T', ' ')[:16]} "
                           f"UTC, kept until {e.expires_at.replace('T', ' ')[:16]} UTC"))
            c2.button("Restore", key=KEYS.restore(e.id), icon=":material/restore_from_trash:",
                      on_click=_restore, args=(engine, e.id), width="stretch")


def index_uploads(engine: Engine, kb: str, files: list, tags: list[str]) -> tuple[list[FileResult], str]:
    """Index uploaded files with a progress bar (sentences/s); one result per file."""
    bar = st.progress(0.0, text=f"Indexing {len(files)} file(s)…")
    n = max(1, len(files))

    def progress(p: dict) -> None:
        frac = (p["file_no"] + p["done"] / max(1, p["total"])) / n
        rate, eta = p.get("sentences_per_s"), p.get("eta_s")
        speed = f" · {rate:,.0f} sentences/s" if rate else ""
        speed += f" · about {eta:,.0f} s left" if eta is not None and p["done"] < p["total"] else ""
        bar.progress(min(1.0, frac), text=f"File {p['file_no'] + 1}/{p['files']}: {p['file']} · "
                                          f"{p['done']:,}/{p['total']:,} sentences{speed}")

    t0 = time.perf_counter()
    # getbuffer(): no copy of the upload; a file above SWR_MAX_FILE_MB is refused before any is made
    results = engine.index_files(kb, [(f.name, f.getbuffer()) for f in files], tags=tags, progress=progress)
    total = sum(r.sentences for r in results if r.ok and not r.skipped)
    skipped = sum(1 for r in results if r.skipped)
    failed = sum(1 for r in results if not r.ok)
    el = time.perf_counter() - t0
    rate = f" · {total / el:,.0f} sentences/s" if total >= 50 and el > 0 else ""
    extra = "".join([f" · {skipped} unchanged" if skipped else "", f" · {failed} failed" if failed else ""])
    summary = f"Done: {total:,} new sentences in {el:.1f} s{rate}{extra}"
    bar.progress(1.0, text=summary)
    return results, summary


def file_results(results: list[FileResult]) -> None:
    """One row per file: sentences indexed, skipped (unchanged), or the error for that file."""
    rows = []
    for r in results:
        if not r.ok:
            status, detail = "error", (r.error or {}).get("message", "failed")
        elif r.skipped:
            status, detail = "unchanged", "already indexed: skipped"
        else:
            status, detail = "indexed", "replaced the previous version" if r.replaced else ""
        rows.append({"file": safe_name(r.source), "status": status, "sentences": r.sentences, "seconds": r.seconds,
                     "detail": detail})
    for r in results:
        if not r.ok:
            st.error(md((r.error or {}).get("message") or f"{r.source}: indexing failed"))
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 column_config={"detail": st.column_config.TextColumn(width="large")})


def upload_panel(engine: Engine, kb: str) -> None:
    limit = min(float(engine.settings.max_file_mb), float(st.get_option("server.maxUploadSize")))
    st.caption("Upload many files at once: " + ", ".join(UPLOAD_TYPES) + f", up to "
               f"{limit:g} MB each. An unchanged file is skipped at once; a changed "
               "file replaces its previous version.")
    files = st.file_uploader("Files", type=UPLOAD_TYPES, accept_multiple_files=True, key=KEYS.uploads,
                             label_visibility="collapsed")
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    tags_text = c1.text_input("Tags (comma-separated, optional)", key=KEYS.upload_tags)
    go = c2.button(f"Index {len(files or [])} file(s)", type="primary", disabled=not files,
                   icon=":material/upload:", width="stretch", key=KEYS.index)
    if go and files:
        tags = [t.strip() for t in tags_text.split(",") if t.strip()]
        state.INDEX_RESULTS.set((kb, *index_uploads(engine, kb, files, tags)))
        st.rerun()  # the sidebar (drawn before the indexing) shows the new counts
    last = state.INDEX_RESULTS.get()
    if last and last[0] == kb:
        st.caption(last[2])
        file_results(last[1])  # until the next delete/restore/create: never an old upload's errors again


def _delete_doc(engine: Engine, kb: str, doc_id: str, source: str) -> None:
    state.DOC_CONFIRM.pop()
    state.INDEX_RESULTS.pop()
    try:
        n = engine.delete_doc(kb, doc_id)
        flash("success", f"Moved {source} ({n:,} sentences) to the trash: restore it in the Trash panel above "
                         f"within {engine.settings.trash_days:g} days.")
    except SwrError as exc:
        flash("error", exc.message)


def _ask_doc_delete(kb: str, doc_id: str) -> None:
    state.DOC_CONFIRM.set((kb, doc_id))


def documents_panel(engine: Engine, kb: str) -> None:
    """The documents with sentence counts; delete one (asks first); preview its sentence split."""
    docs = engine.docs(kb)
    if not docs:
        st.info("No documents yet: upload some in the Upload tab.")
        return
    st.dataframe(pd.DataFrame([{"file": d.source, "sentences": d.sentences, "characters": d.chars,
                                "format": d.format, "tags": ", ".join(d.tags),
                                "indexed": d.indexed_at.replace("T", " ")[:19],
                                "status": "complete" if d.complete else "INCOMPLETE"} for d in docs]),
                 hide_index=True, width="stretch")
    by_id = {d.doc_id: d for d in docs}
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    doc_id = c1.selectbox("Document", list(by_id), key=KEYS.doc_pick,
                          format_func=lambda i: f"{by_id[i].source} ({by_id[i].sentences:,} sentences)")
    if engine.actor.can_edit(kb):
        c2.button("Delete document…", key=KEYS.delete_doc, icon=":material/delete:", width="stretch",
                  on_click=_ask_doc_delete, args=(kb, doc_id))
        if state.DOC_CONFIRM.get() == (kb, doc_id):  # asked for this very document (another pick: no question)
            d = by_id[doc_id]
            with st.container(border=True, key=KEYS.doc_confirm_box):
                st.warning(md(f"Delete {d.source} ({d.sentences:,} sentences) from “{kb}”? It goes to the trash "
                              f"for {engine.settings.trash_days:g} days."))
                y, n, _ = st.columns([1, 1, 3])
                y.button(f"Delete {d.source}", key=KEYS.delete_doc_yes, type="primary", icon=":material/delete:",
                         on_click=_delete_doc, args=(engine, kb, doc_id, d.source))
                n.button("Cancel", key=KEYS.delete_doc_no, on_click=state.DOC_CONFIRM.pop)
    split_preview(engine, kb, doc_id)


def split_preview(engine: Engine, kb: str, doc_id: str) -> None:
    """How the document was cut into sentences: each one numbered on its own background."""
    sentences = engine.doc_sentences(kb, doc_id)
    text, spans, pos = [], [], 0
    for s in sentences:
        text.append(s.text)
        spans.append((pos, pos + len(s.text)))
        pos += len(s.text)
    shown = min(len(spans), MAX_PREVIEW_SENTENCES)
    st.caption(f"Sentence split: {len(spans):,} sentences"
               + (f" (first {shown:,} shown)" if shown < len(spans) else "")
               + ". Alternating colours mark the boundaries; the small numbers are sentence numbers.")
    with st.container(height=420, border=True):
        st.html(split_preview_html("".join(text), spans, max_sentences=MAX_PREVIEW_SENTENCES))


def golden_editor(engine: Engine, kb: str) -> None:
    st.caption("The preset questions demo mode shows as buttons and Tune sweeps (question, expected answer, "
               "source file). Rows with origin “feedback” come from answers marked not helpful with the right "
               "sentence chosen (`python -m swr golden` lists them too). Saved to "
               + str(presets.golden_path(engine.settings, kb)))
    edited = st.data_editor(presets.load_golden(engine.settings, kb), num_rows="dynamic", width="stretch",
                            hide_index=True, key=KEYS.golden(kb))
    if engine.actor.can_edit(kb) and st.button("Save preset questions", key=KEYS.golden_save, type="primary"):
        path = engine.save_golden(kb, edited)  # checked and audited
        st.success(md(f"Saved {len(presets.load_golden(engine.settings, kb))} questions to {path}."))


def words_panel(engine: Engine, kb: str, can_edit: bool) -> None:
    """The knowledge base's own words (swr/text/kb_words.py), published with its settings; a question
    tried shows its translation with them."""
    params = engine.kb_params(kb)
    st.caption("Your own translations, one `english<TAB>中文` (or `english = 中文`) a line: the brand's Chinese "
               "name, product and support words. Cross-lingual search reads them before its dictionary, in the "
               "chat, the API, MCP and `eval`. Publishing them publishes a new version of this knowledge base's "
               f"settings. Published now: {len(params.glossary)} pairs.")
    text = st.text_area("Words", kb_words.as_text(params.glossary), height=220, key=KEYS.words(kb),
                        disabled=not can_edit, placeholder="Lumora\t明澜\nauto-empty station\t集尘座")
    pairs = kb_words.parse(text)  # a line it cannot read: the message, nothing published
    if can_edit and st.button("Publish words", key=KEYS.words_save, type="primary", disabled=pairs == params.glossary):
        published.publish(engine, kb, params.with_(glossary=pairs), origin="words")
    q = st.text_input("Try a question", key=KEYS.words_try, placeholder="明澜扫地机器人有几档吸力？")
    if q.strip():
        for label, words in (("with these words", pairs), ("without", ())):
            got = engine.retrieve(q, kb, params.with_(glossary=words)).hits.translations or {}
            st.markdown(md(f"Translated {label}: " + ("; ".join(f"{lang}: {t}" for lang, t in got.items())
                                                       or "no other language in this knowledge base")))


def system_panel(engine: Engine) -> None:
    """Embedding model/runtime/device and measured throughput, store, LLM, points per KB."""
    info = engine.system_info()
    emb, store, llm = info["embedding"], info["store"], info["llm"]
    rate = emb.get("sentences_per_s")
    c = st.columns(4)
    c[0].metric("Embedding runtime", str(emb.get("runtime")))
    c[1].metric("Device", str(emb.get("device")))
    c[2].metric("Throughput", f"{rate:,.0f} sent/s" if rate else "—",
                help="Measured in this process while indexing (blank until something was embedded).")
    c[3].metric("Points", f"{sum(k['sentences'] for k in info['kbs']):,}")
    rows = [("Embedding model", f"{emb.get('model')} ({emb.get('dim')} dimensions)"),
            ("Store", f"{store.get('backend')} at {store.get('location')}"),
            ("LLM", llm_status_line(llm)),
            ("Collection", ", ".join(f"{k}={v}" for k, v in (info.get("collection") or {}).items()))]
    st.html('<table class="swr-sys">' + "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>"
                                                for k, v in rows) + "</table>")
    st.caption("Points per knowledge base")
    st.dataframe(pd.DataFrame(info["kbs"], columns=["kb", "documents", "sentences"]), hide_index=True,
                 width="stretch")
