"""The checked engine view: ``GuardedEngine(engine, actor)`` (``engine.as_user(actor)``).

The app and the CLI hold only this view, never the engine: every public engine method is here,
checks the actor's role and grants, then calls through. Anything else (``indexer``, ``answerer``,
private names) is not reachable: ``__getattr__`` raises, so a page that reaches past the view
fails a test instead of leaking. ``store`` is a :class:`ScopedStore` that checks the knowledge base
of every call and drops sentences of knowledge bases the actor may not read.

A knowledge base the actor may not read does not exist for it: the same :class:`NotFound` as a
missing one, listing only readable ones. Writes it may not do raise :class:`Forbidden`.
Uploads, deletions, knowledge-base and preset-question changes (also a golden question made from
feedback) are written to the audit trail. Feedback needs read access and a role above viewer.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

from swr.core.errors import BadRequest, Forbidden, NotFound
from swr.manage.access.audit import AuditLog
from swr.manage.access.limits import Limits
from swr.manage.access.session_token import SessionTokens
from swr.manage.access.users import Actor, UserStore, missing_message, new_password, unknown_kbs

SHARED_NOT_FOUND = "No shared answer here: the link is wrong, or the answer is not available to you."
# what passes through unchanged: settings and the stateless encoders (no knowledge-base data)
_PASS = ("settings", "embedder", "sparse", "reranker", "default_params", "stamp", "finish", "ensure_collection",
         "published_stamp")


class GuardedEngine:
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
    def trash(self) -> "_TrashView":
        """The trash as this user may see it: entries of readable knowledge bases; restoring a
        document needs an edit grant, a knowledge base (and purging) the admin role."""
        return _TrashView(self)

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

    # -- users (admins) ----------------------------------------------------------------------
    def _users(self, what: str) -> UserStore:
        """The users file, for admins only (:class:`Forbidden`, audited as refused, for anyone else)."""
        self._require_admin(what)
        return UserStore.for_settings(self.settings)

    def users(self) -> list[dict]:
        """Every user: name, role, grants, dates (never a hash)."""
        return self._users("manage users").list()

    def add_user(self, name: str, role: str, password: str | None = None, *, read=(),
                 edit=()) -> tuple[dict, str | None]:
        """Create a user; without ``password`` one is generated and returned (to be shown once, never
        stored in clear, logged or audited), else the second item is None."""
        store = self._users("manage users")
        self._require_kbs_exist([*read, *edit])
        generated = None if password else new_password()
        user = store.add(name, role, password or generated, read=read, edit=edit)
        self._log("user_add", object=user["name"], detail=user["role"])
        return user, generated

    def reset_password(self, name: str, password: str | None = None) -> tuple[dict, str | None]:
        """A new password for ``name``: the one typed, or a generated one (returned, shown once)."""
        store = self._users("manage users")
        generated = None if password else new_password()
        user = store.reset(name, password or generated)
        SessionTokens.for_settings(self.settings).revoke_user(name)  # signed in elsewhere: signed out
        self._log("user_reset", object=name, detail="password")
        return user, generated

    def set_role(self, name: str, role: str) -> dict:
        """A new role for ``name`` (the password stays)."""
        store = self._users("manage users")
        self._keep_an_admin(store, name, "change the role of", role)
        user = store.reset(name, role=role)
        self._log("user_role", object=name, detail=role)
        return user

    def delete_user(self, name: str) -> dict:
        """Remove ``name`` (its sessions are signed out on their next run)."""
        store = self._users("manage users")
        self._keep_an_admin(store, name, "remove")
        user = store.delete(name)
        SessionTokens.for_settings(self.settings).revoke_user(name)
        self._log("user_delete", object=name)
        return user

    def grant(self, name: str, kb: str, access: str) -> dict:
        """``access`` ``read``, ``edit`` or ``none`` (revoke) for ``name`` on ``kb`` (``*``: every one)."""
        users = self._users("manage users")
        if access != "none":  # a grant that is there may always be taken away
            self._require_kbs_exist([kb])
        user = users.grant(name, kb, access)
        self._log("user_grant", kb=(kb or "").strip(), object=name, detail=access)
        return user

    def api_keys(self) -> list[dict]:
        """Every API key (never a secret or hash): admins only."""
        self._require_admin("manage API keys")
        from swr.manage.access.keys import KeyStore

        return KeyStore.for_settings(self.settings).list()

    def create_api_key(self, user: str, **kw) -> tuple[dict, str]:
        """A new key of ``user`` (``kbs``, ``read_only``, ``name``, limits): its record and the secret,
        to be shown once (never stored in clear, logged or audited)."""
        self._require_admin("manage API keys")
        from swr.manage.access.keys import KeyStore

        key, secret = KeyStore.for_settings(self.settings).create(user, UserStore.for_settings(self.settings), **kw)
        self._log("key_create", object=key["id"], detail=key["user"])
        return key, secret

    def revoke_api_key(self, key_id: str) -> dict:
        self._require_admin("manage API keys")
        from swr.manage.access.keys import KeyStore

        key = KeyStore.for_settings(self.settings).revoke(key_id)
        self._log("key_revoke", object=key_id, detail=key["user"])
        return key

    def _require_kbs_exist(self, kbs) -> None:
        """:class:`BadRequest` naming the knowledge bases in ``kbs`` that do not exist (``*`` is every one)."""
        missing = unknown_kbs(kbs, self._engine.store.kbs())
        if missing:
            raise BadRequest(missing_message(missing))

    def _keep_an_admin(self, store: UserStore, name: str, what: str, role: str | None = None) -> None:
        """The app never leaves the users file without an admin (the CLI on the server still can)."""
        users = {u["name"]: u for u in store.list()}
        if name not in users:
            raise NotFound(f"No user named {name!r}.")
        admins = [n for n, u in users.items() if u["role"] == "admin"]
        if admins == [name] and role != "admin":
            raise BadRequest(f"{name} is the only admin: make another user an admin before you {what} them.")

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


class ScopedStore:
    """The store as the actor may see it: reads of readable knowledge bases, writes only to the hidden
    chunk-baseline knowledge bases of readable ones (Tune) for non-viewers, and everything for admins."""

    _PASS = ("meta", "backend", "location", "vectors")

    def __init__(self, store, actor: Actor) -> None:
        self._store, self._actor = store, actor

    def __getattr__(self, name: str):
        if name in self._PASS:
            return getattr(self._store, name)
        raise AttributeError(f"store.{name} is not part of the checked engine view")

    def _read(self, kb: str) -> None:
        if not self._actor.can_read(kb):
            raise NotFound(f"No knowledge base named {kb!r}.")

    def _write(self, kb: str) -> None:
        self._read(kb)
        if not (self._actor.is_admin or (kb.startswith("~") and not self._actor.demo_only)):
            raise Forbidden(f"{self._actor.name} ({self._actor.role}) may not write to {kb!r} directly.")

    def kbs(self) -> list[str]:
        return [k for k in self._store.kbs() if self._actor.can_read(k)]

    def docs(self, kb: str, *args, **kw):
        self._read(kb)
        return self._store.docs(kb, *args, **kw)

    def count(self, kb: str | None = None) -> int:
        if kb is None:
            return sum(self._store.count(k) for k in self.kbs())
        self._read(kb)
        return self._store.count(kb)

    def scroll_doc(self, kb: str, doc_id: str):
        self._read(kb)
        return self._store.scroll_doc(kb, doc_id)

    def fetch_sentences(self, kb: str, keys):
        self._read(kb)
        return self._store.fetch_sentences(kb, keys)

    def search(self, req):
        self._read(req.kb)
        return self._store.search(req)

    def search_many(self, reqs):
        for req in reqs:
            self._read(req.kb)
        return self._store.search_many(reqs)

    def get(self, ids):
        return [s for s in self._store.get(ids) if self._actor.can_read(s.kb)]

    def create_kb(self, kb: str) -> None:
        self._write(kb)
        self._store.create_kb(kb)

    def delete_kb(self, kb: str) -> int:
        self._write(kb)
        return self._store.delete_kb(kb)

    def delete_doc(self, kb: str, doc_id: str) -> int:
        self._write(kb)
        return self._store.delete_doc(kb, doc_id)

    def put_doc(self, kb: str, info) -> None:
        self._write(kb)
        self._store.put_doc(kb, info)

    def upsert(self, sentences, dense, sparse) -> None:
        for kb in {s.kb for s in sentences}:
            self._write(kb)
        self._store.upsert(sentences, dense, sparse)


class _TrashView:
    """:class:`swr.manage.trash.Trash` through a :class:`GuardedEngine`: checked and audited."""

    def __init__(self, view: "GuardedEngine") -> None:
        self._view = view

    def _trash(self):
        return self._view._engine.trash

    def entries(self):
        return [e for e in self._trash().entries() if self._view.actor.can_read(e.kb)]

    def restore(self, entry_id: str):
        entry = next((e for e in self._trash().entries() if e.id == entry_id), None)
        if entry is not None:
            if entry.kind == "kb":
                self._view._require_admin("restore knowledge bases", entry.kb)
            else:
                self._view._require_edit(entry.kb, "restore documents")
        restored = self._trash().restore(entry_id)
        self._view._log("restore", kb=restored.kb, object=restored.source or restored.kb)
        return restored

    def purge(self, entry_id: str | None = None):
        self._view._require_admin("empty the trash")
        return self._trash().purge(entry_id)
