"""The checked engine view: ``GuardedEngine(engine, actor)`` (``engine.as_user(actor)``).

The app and the CLI hold only this view, never the engine: every public engine method is here,
checks the actor's role and grants, then calls through. Anything else (``indexer``, ``answerer``,
private names) is not reachable: ``__getattr__`` raises, so a page that reaches past the view
fails a test instead of leaking. ``store`` is a :class:`ScopedStore` that checks the knowledge base
of every call and drops sentences of knowledge bases the actor may not read (:mod:`.scoped`); users
and API keys are managed through it by admins (:mod:`.admin`).

A knowledge base the actor may not read does not exist for it: the same :class:`NotFound` as a
missing one, listing only readable ones. Writes it may not do raise :class:`Forbidden`.
Uploads, deletions, knowledge-base and preset-question changes (also a golden question made from
feedback) are written to the audit trail. Feedback needs read access and a role above viewer.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from swr.core.errors import Forbidden, NotFound
from swr.manage.access.admin import UserAdmin
from swr.manage.access.audit import AuditLog
from swr.manage.access.limits import Limits
from swr.manage.access.scoped import ScopedStore, TrashView
from swr.manage.access.users import Actor

SHARED_NOT_FOUND = "No shared answer here: the link is wrong, or the answer is not available to you."
# what passes through unchanged: settings and the stateless encoders (no knowledge-base data)
_PASS = ("settings", "embedder", "sparse", "reranker", "default_params", "stamp", "finish", "ensure_collection",
         "published_stamp")


class GuardedEngine(UserAdmin):
    def __init__(self, engine, actor: Actor, *, audit: AuditLog | None = None, limits: Limits | None = None) -> None:
        object.__setattr__(self, "_engine", engine)
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "audit", audit or AuditLog.for_settings(engine.settings))
        object.__setattr__(self, "limits", limits or Limits())
        object.__setattr__(self, "store", ScopedStore(engine.store, actor))
        # question counting of this view: inside a batch, and the retrievals already counted
        object.__setattr__(self, "_counting", {"batch": 0, "charged": []})

    def __getattr__(self, name: str):
        if name in _PASS:
            return getattr(self._engine, name)
        raise AttributeError(f"{name!r} is not part of the checked engine view (swr.manage.access.GuardedEngine)")

    def __setattr__(self, name, value):
        raise AttributeError("the checked engine view is read-only")

    # -- checks ------------------------------------------------------------------------------
    def _log(self, action: str, **fields) -> dict:
        return self.audit.append(self.actor.name, self.actor.role, action, **fields)

    def require_kb(self, kb: str) -> None:
        """:class:`NotFound` unless ``kb`` exists and the actor may read it (names only readable ones)."""
        exists = kb in self._engine.store.kbs()
        if not (exists and self.actor.can_read(kb)):
            known = ", ".join(k["kb"] for k in self.kbs()) or "none yet"
            raise NotFound(f"No knowledge base named {kb!r} (known: {known}). Index files into it first.")

    def _require_edit(self, kb: str, what: str) -> None:
        self.require_kb(kb)
        if not self.actor.can_edit(kb):
            self._log("refused", kb=kb, object=what)
            raise Forbidden(f"{self.actor.name} ({self.actor.role}) may not {what} in knowledge base {kb!r}: "
                            "that needs the editor role and an edit grant (ask an admin).")

    def _require_admin(self, what: str, kb: str | None = None) -> None:
        if not self.actor.is_admin:
            self._log("refused", kb=kb, object=what)
            raise Forbidden(f"Only an admin may {what} ({self.actor.name} is {self.actor.role}).")

    def _require_question(self, question: str, kb: str, params, changes: dict) -> None:
        """Viewers: demo mode only (a preset question of ``kb`` with its published or default knobs)."""
        if not self.actor.demo_only:
            return
        from swr.manage.presets import preset_questions  # no Streamlit in it

        default = self._engine.kb_params(kb)  # the published settings (else the defaults)
        rp = (params or default).with_(**changes)
        if rp.with_(window_size=default.window_size) != default or \
                (question or "").strip() not in [q.strip() for q in preset_questions(self.settings, kb)]:
            raise Forbidden("Viewers may ask the preset questions of a knowledge base with the default settings "
                            "(demo mode) only.")

    # -- knowledge bases ---------------------------------------------------------------------
    def kbs(self, *, hidden: bool = False) -> list[dict]:
        return [k for k in self._engine.kbs(hidden=hidden) if self.actor.can_read(k["kb"])]

    def docs(self, kb: str):
        self.require_kb(kb)
        return self._engine.docs(kb)

    def doc_sentences(self, kb: str, doc_id: str):
        self.require_kb(kb)
        return self._engine.doc_sentences(kb, doc_id)

    def fetch_sentences(self, kb: str, keys):
        self.require_kb(kb)
        return self._engine.fetch_sentences(kb, keys)

    def open_document(self, kb: str, doc_id: str, **kw):
        """A hit in its document (:mod:`swr.manage.docview`): needs read access to ``kb``."""
        self.require_kb(kb)
        return self._engine.open_document(kb, doc_id, **kw)

    def create_kb(self, kb: str) -> None:
        self._require_admin("create knowledge bases", kb)
        self._engine.create_kb(kb)
        self._log("create_kb", kb=kb.strip(), object=kb.strip())

    def delete_kb(self, kb: str, *, trash: bool = True) -> int:
        self.require_kb(kb)
        self._require_admin("delete knowledge bases", kb)
        n = self._engine.delete_kb(kb, trash=trash)
        self._log("delete_kb", kb=kb, object=kb, count=n)
        return n

    def delete_doc(self, kb: str, doc_id: str, *, trash: bool = True) -> int:
        self._require_edit(kb, "delete documents")
        source = next((d.source for d in self._engine.docs(kb) if d.doc_id == doc_id), None)
        n = self._engine.delete_doc(kb, doc_id, trash=trash)
        self._log("delete_doc", kb=kb, object=source, doc_id=doc_id, count=n)
        return n

    @property
    def trash(self) -> TrashView:
        """The trash as this user may see it: entries of readable knowledge bases; restoring a
        document needs an edit grant, a knowledge base (and purging) the admin role."""
        return TrashView(self)

    def index_files(self, kb: str, files: Iterable, *, tags=None, progress=None):
        kb_name = (kb or "").strip()
        if kb_name in self._engine.store.kbs() or not self.actor.is_admin:
            self._require_edit(kb_name, "upload documents")
        files = list(files)
        self.limits.upload(self.actor.name, sum(_size(f) for f in files))
        results = self._engine.index_files(kb, files, tags=tags, progress=progress)
        for r in results:
            self._log("upload", kb=kb_name, object=r.source, doc_id=getattr(r, "doc_id", None),
                      count=r.sentences, ok=r.ok,
                      detail=("unchanged" if r.skipped else "replaced" if r.replaced else None) if r.ok
                      else (r.error or {}).get("kind"))
        return results

    def save_golden(self, kb: str, df) -> Path:
        """Save the preset (golden) questions of ``kb`` (edit grant), audited."""
        from swr.manage import presets  # no Streamlit in it

        self._require_edit(kb, "change preset questions")
        path = presets.save_golden(self.settings, kb, df)
        self._log("golden", kb=kb, object=path.name, count=len(presets.load_golden(self.settings, kb)))
        return path

    def golden(self, kb: str) -> list[dict]:
        """The golden questions of ``kb`` (read grant)."""
        self.require_kb(kb)
        return self._engine.golden(kb)

    def add_golden(self, kb: str, question: str, expected: str, source: str = "", origin: str = "panel") -> dict:
        """Add a golden question (edit grant), audited."""
        self._require_edit(kb, "change preset questions")
        row = self._engine.add_golden(kb, question, expected, source, origin, by=self.actor.name)
        self._log("golden_add", kb=kb, object=row["id"], detail=origin or None)
        return row

    def delete_golden(self, kb: str, ids: list[str]) -> list[dict]:
        """Delete golden questions (edit grant), audited."""
        self._require_edit(kb, "change preset questions")
        gone = self._engine.delete_golden(kb, ids)
        self._log("golden_delete", kb=kb, object=",".join(r["id"] for r in gone)[:200], count=len(gone))
        return gone

    def record_feedback(self, kb: str, kind: str, **fields) -> dict:
        """Feedback on an answer or a hit (read grant; not viewers: demo mode writes nothing). The
        user is the actor; a golden question it creates is audited (``golden_add``, detail ``feedback``)."""
        self.require_kb(kb)
        if self.actor.demo_only:
            self._log("refused", kb=kb, object="feedback")
            raise Forbidden(f"{self.actor.name} ({self.actor.role}) may not give feedback: viewers write nothing.")
        fields["user"] = self.actor.name
        entry = self._engine.record_feedback(kb, kind, **fields)
        if entry.get("golden"):
            self._log("golden_add", kb=kb, object=entry["golden"]["id"], detail="feedback")
        return entry

    def feedback(self, kb: str, user: str | None = None) -> dict:
        """The feedback of ``kb`` (read grant); with ``user``, that user's only (admins)."""
        self.require_kb(kb)
        if user is not None:
            self._require_admin("filter feedback by user", kb)
        return self._engine.feedback(kb, user)

    # -- shared answers ----------------------------------------------------------------------
    def share_answer(self, kb: str, answer: dict) -> str:
        """Keep one answer of ``kb`` for a permalink (read grant; not viewers), audited; its id."""
        from swr.manage.shared import SharedAnswers

        self.require_kb(kb)
        if self.actor.demo_only:
            self._log("refused", kb=kb, object="share")
            raise Forbidden(f"{self.actor.name} ({self.actor.role}) may not share answers: viewers write nothing.")
        answer_id = SharedAnswers.for_settings(self.settings).save(kb, self.actor.name, answer)
        self._log("share", kb=kb, object=answer_id)
        return answer_id

    def shared_answer(self, answer_id: str) -> dict:
        """A shared answer, when the actor may read its knowledge base now; else the same
        :class:`NotFound` as an unknown id. Every opening is audited (``ok`` false: refused)."""
        from swr.manage.shared import SharedAnswers, valid_id

        record = SharedAnswers.for_settings(self.settings).load(answer_id)
        kb = (record or {}).get("kb")
        ok = bool(kb) and kb in self._engine.store.kbs() and self.actor.can_read(kb)
        self._log("open_shared", kb=kb, object=answer_id if valid_id(answer_id) else None, ok=ok)
        if not ok:
            raise NotFound(SHARED_NOT_FOUND)
        return record

    def system_info(self) -> dict:
        info = self._engine.system_info()
        info["kbs"] = [k for k in info["kbs"] if self.actor.can_read(k["kb"])]
        return info

    # -- published settings (swr.manage.published) -------------------------------------------
    def kb_params(self, kb: str, **changes):
        """The published knobs of ``kb`` (read grant), with ``changes``."""
        self.require_kb(kb)
        return self._engine.kb_params(kb, **changes)

    def published(self, kb: str):
        self.require_kb(kb)
        return self._engine.published(kb)

    def published_versions(self, kb: str):
        self.require_kb(kb)
        return self._engine.published_versions(kb)

    def publish(self, kb: str, params, **kw):
        """Publish ``params`` for ``kb``: editors with an edit grant and admins; audited."""
        self._require_edit(kb, "publish settings")
        pub = self._engine.publish(kb, params, self.actor.name, **kw)
        self._log("publish", kb=kb, object=f"v{pub.version}", detail=pub.origin)
        return pub

    def restore_published(self, kb: str, version: int):
        """Publish an earlier version again (edit grant), audited."""
        self._require_edit(kb, "publish settings")
        pub = self._engine.restore_published(kb, version, self.actor.name)
        self._log("publish", kb=kb, object=f"v{pub.version}", detail=f"restore v{version}")
        return pub

    # -- asking ------------------------------------------------------------------------------
    @contextlib.contextmanager
    def batch(self, what: str):
        """One question of the rate limit for a whole run (a Tune sweep, a Verify run, a Compare):
        nothing inside counts. Outside a batch every search and answer counts, so a page that
        forgets it reaches the limit sooner, never later."""
        self.limits.question(self.actor.name)
        self._counting["batch"] += 1
        try:
            yield self
        finally:
            self._counting["batch"] -= 1

    def _count(self, key: str | None = None) -> bool:
        """Count a question for the actor unless inside a batch; True when it was counted."""
        if self._counting["batch"]:
            return False
        return self.limits.question(self.actor.name, key)

    def retrieve(self, question: str, kb: str, params=None, **changes):
        """A search: one question, unless the same question was searched in the last minute."""
        self.require_kb(kb)
        self._require_question(question, kb, params, changes)
        counted = self._count(question)
        retrieval = self._engine.retrieve(question, kb, params, **changes)
        if counted:
            self._counting["charged"].append(retrieval)  # its answer (ask_stream) is not counted again
        return retrieval

    def passages(self, retrieval, window_size: int | None = None, **window):
        self.require_kb(retrieval.kb)
        retrieval.hits = [h for h in retrieval.hits if h.sentence.kb == retrieval.kb]
        return self._engine.passages(retrieval, window_size, **window)  # window_mode, budget_chars

    def condense(self, question: str, history, *, llm: bool = True):
        """The standalone rewrite of a follow-up: the question and the history only, no knowledge base."""
        return self._engine.condense(question, history, llm=llm)

    def ask_stream(self, question: str, kb: str, params=None, *, window_size=None, llm: bool = True,
                   retrieval=None, **kw):
        self.require_kb(kb)
        if retrieval is not None:
            self.require_kb(retrieval.kb)
            retrieval.hits = [h for h in retrieval.hits if h.sentence.kb == retrieval.kb]
        changes = {k: v for k, v in kw.items() if k != "history"}
        self._require_question(question, kb, params, changes)
        charged = self._counting["charged"]
        if retrieval is not None and any(r is retrieval for r in charged):
            charged[:] = [r for r in charged if r is not retrieval]  # counted by the search that made it
        else:
            self._count()  # every answer counts (an identical question too)
        return self._engine.ask_stream(question, kb, params, window_size=window_size, llm=llm, retrieval=retrieval,
                                       **kw)

    def check(self, result):
        """The per-sentence answer check of an answer from a knowledge base the actor may read."""
        self.require_kb(result.kb)
        return self._engine.check(result)

    def ask(self, question: str, kb: str, params=None, *, window_size=None, llm: bool = True, **kw):
        result, stream = self.ask_stream(question, kb, params, window_size=window_size, llm=llm, **kw)
        if stream is not None:
            result.answer = self._engine.finish(result, stream)
        return result



def _size(f) -> int:
    if isinstance(f, (tuple, list)) and len(f) == 2:
        data = f[1]
        return data.nbytes if isinstance(data, memoryview) else len(data)
    try:
        return Path(f).stat().st_size
    except OSError:
        return 0
