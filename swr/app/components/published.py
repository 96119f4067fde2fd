"""A knowledge base's published settings in the app (:mod:`swr.manage.published`): the chat starts
from them, a changed publication shows a notice, editors and admins publish (the sidebar, Tune,
Compare) and restore earlier versions."""
from __future__ import annotations

import streamlit as st

from swr.app import state
from swr.app.components.errors import md
from swr.core.errors import SwrError
from swr.core.params import RetrievalParams
from swr.manage import render

SEEN = "published_seen"  # session: kb -> (version, the params it published) last applied or offered


def _knobs(params: RetrievalParams) -> RetrievalParams:
    """``params`` without the question-scoped filters (what a publication compares by)."""
    return params.with_(sources=(), tags=(), lang=None)


def follow(engine, kb: str | None) -> RetrievalParams:
    """The chat's starting knobs for ``kb``: its published version. Call before the knobs are drawn.

    The first time this session sees ``kb`` the sidebar's knobs take the published settings. When a
    new version is published later, the knobs follow it if the agent had not moved them since the
    last one; otherwise their own moves stay theirs and a notice offers the new version."""
    if not kb:
        return engine.default_params()
    params, pub = engine.kb_params(kb), engine.published(kb)
    version = pub.version if pub else None
    seen = st.session_state.setdefault(SEEN, {})
    filters = state.chat_params(params)
    if kb not in seen:
        seen[kb] = (version, params)
        if version is not None:
            state.apply_params(params.with_(sources=filters.sources, tags=filters.tags, lang=filters.lang))
        return params
    old_version, old_params = seen[kb]
    if version == old_version:
        return params
    untouched = _knobs(state.chat_params(old_params)) == _knobs(old_params)
    seen[kb] = (version, params)
    if untouched:
        state.apply_params(params.with_(sources=filters.sources, tags=filters.tags, lang=filters.lang))
        st.sidebar.info(f"The published settings of this knowledge base changed: version {version} now applies.")
    else:
        st.sidebar.info(f"Version {version} of this knowledge base's settings was published; your own knob "
                        "changes stay for this session.")
        st.sidebar.button("Use the published settings", key="published_use", on_click=state.apply_params,
                          args=(params,))
    return params


def can_publish(engine, kb: str | None) -> bool:
    actor = getattr(engine, "actor", None)
    return bool(kb) and (actor is None or actor.can_edit(kb))


def publish(engine, kb: str, params: RetrievalParams, *, origin: str, evidence: dict | None = None) -> None:
    """Publish ``params`` for ``kb`` and say so (a refusal or failure is shown, never raised)."""
    try:
        pub = engine.publish(kb, params, origin=origin, evidence=evidence)
    except SwrError as exc:
        st.error(md(exc.message))
        return
    st.session_state.setdefault(SEEN, {})[kb] = (pub.version, engine.kb_params(kb))
    st.toast(f"Published version {pub.version} for {kb}: every chat, the API, MCP and the CLI now start from it.")


def describe(pub) -> str:
    p = pub.params
    evidence = ""
    if pub.evidence:
        evidence = " · " + ", ".join(f"{k} {v}" for k, v in pub.evidence.items())
    return (f"v{pub.version} by {pub.by} at {pub.at[:16].replace('T', ' ')} ({pub.origin}): window "
            f"{p.get('window_size')} {p.get('window_mode')}, top-k {p.get('top_k')}, {p.get('mode')}"
            f"/{p.get('fusion')}" + (f", {len(p['glossary'])} own words" if p.get("glossary") else "") + evidence)


def panel(engine, kb: str | None, params: RetrievalParams) -> None:
    """The sidebar's panel: the current version, publish the chat's knobs, restore earlier ones."""
    if not kb:
        return
    versions = engine.published_versions(kb)
    # keyed: the label carries the version, and an unkeyed expander whose label changes is a new
    # one, drawn closed under the editor who just published from it
    with st.sidebar.expander(f"Published settings (v{versions[0].version})" if versions else "Published settings",
                             key=state.KEYS.published_box):
        if versions:
            st.caption(render.esc(describe(versions[0])))
        else:
            st.caption("Nothing published: every consumer uses the defaults.")
        if not can_publish(engine, kb):
            return
        # callbacks: the change is made before this run draws the panel, which then lists it
        st.button("Publish these settings", key="published_publish", width="stretch",
                  help="Every agent's chat, the API, MCP, Dify and the CLI start from them.",
                  on_click=publish, args=(engine, kb, params), kwargs={"origin": "sidebar"})
        for pub in versions[1:6]:
            c1, c2 = st.columns([4, 1], vertical_alignment="center")
            c1.caption(render.esc(describe(pub)))
            c2.button("Restore", key=f"published_restore_{pub.version}", on_click=_restore,
                      args=(engine, kb, pub.version))


def _restore(engine, kb: str, version: int) -> None:
    try:
        pub = engine.restore_published(kb, version)
    except SwrError as exc:
        st.error(md(exc.message))
        return
    st.toast(f"Version {version} restored as version {pub.version}.")
