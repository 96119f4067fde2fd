"""The sign-in gate: who is using this session (:class:`swr.manage.access.Actor`), or the page stops.

Three modes, decided on every run:

- an identity provider in ``.streamlit/secrets.toml`` (an ``[auth]`` section): Streamlit's own
  ``st.login`` (OIDC); the signed-in e-mail address must be a user of the users file (its role and
  grants); anyone else is refused;
- users in ``SWR_HOME/users.json``: a sign-in form checked against the bcrypt hashes;
- no users: the open single-user local mode, only on a loopback bind (else the app refuses to serve).

Why not ``streamlit-authenticator`` (evaluated 2026-12-01: version 0.4.2, MIT, its latest PyPI
release, March 2025; installed with extra-streamlit-components 0.1.81 next to Streamlit 1.67.0).
It works with this Streamlit (its form signs in through ``AppTest``; in Chromium it signs in and its
cookie signs in again after a reload), but it fails two things this app requires:

- a timing hint which part was wrong: ``AuthenticationModel.check_credentials`` returns at once for
  an unknown user name and runs bcrypt only for a known one (measured: 322 ms median for a known
  name with a wrong password, 0.00 ms for an unknown name, 10 tries each);
- a text hint, and a lock-out anyone can cause: with ``max_login_attempts=3`` the fourth try of a
  *known* name shows "Maximum number of login attempts exceeded" while an unknown name still gets
  "Username/password is incorrect"; the counter lives in its credentials dict (or YAML file) and is
  reset only by a successful sign-in, which it then refuses, so three wrong passwords lock a user
  out until someone edits the file.

It also keeps its own credentials dict/YAML (user names lower-cased, ``logged_in`` and
``failed_login_attempts`` written back into it, password hints), and prints "Invalid token type.
Token must be a <class 'bytes'>" on every run without its cookie. So the local sign-in is this
form, which is only widgets: the checking is bcrypt's (:meth:`swr.manage.access.UserStore.authenticate`:
``bcrypt.checkpw``, constant-time, against a same-cost dummy hash for unknown names); repeated
failures are throttled per typed name and client address (:class:`swr.manage.access.SignInThrottle`: 5 in
5 minutes, then a wait that expires by itself, the same for known and unknown names) and audited
(``sign_in_failed``: the name tried, never the password). A sign-in issues a server-checked token
(:mod:`swr.manage.access.session_token`) that a cookie carries, so a reload or a page opened by its URL
stays signed in; sign-out ends the token on the server, deletes the cookie and forgets everything
of the user in the session.
"""
from __future__ import annotations

import json

import streamlit as st

from swr.app import state
from swr.app.components.errors import md
from swr.core.errors import NotFound
from swr.manage.access import Actor, AuditLog, SignInThrottle, UserStore, open_mode_refusal
from swr.manage.access.session_token import COOKIE, SessionTokens

SIGNED_IN = state.SIGNED_IN
WRONG = "Wrong user name or password."  # one message: no hint which part was wrong


@st.cache_resource
def throttle(settings) -> SignInThrottle:
    """The failed sign-ins (kept under SWR_HOME: a restart keeps them), shared by every session."""
    return SignInThrottle.for_settings(settings)


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file, or one Streamlit cannot parse: no identity provider
        return False


def gate(settings) -> Actor:
    """The acting user of this session; draws the sign-in form (and stops) when there is none."""
    users = UserStore.for_settings(settings)
    if _oidc_configured():
        return _oidc(users)
    if not users.configured():
        refusal = open_mode_refusal(st.get_option("server.address"), users_configured=False)
        if refusal:
            st.error(md(refusal))
            st.stop()
        st.sidebar.caption(":material/lock_open: Open local mode: no users configured, so no sign-in "
                           "(single-user, this computer only). Create users to serve a team.")
        return Actor.local_user()
    tokens = SessionTokens.for_settings(settings)
    _write_cookie(tokens)
    name = _signed_in_name(tokens)
    if name:
        try:
            actor = users.actor(name)  # re-read each run: role and grant changes apply at once
        except NotFound:  # removed meanwhile: signed out, and nothing of theirs stays
            tokens.revoke(state.SIGN_IN_TOKEN.get())
            state.clear_user_state()
        else:
            _signed_in_bar(actor, logout=_sign_out, args=(tokens,))
            return actor
    _form(users, settings, tokens)
    st.stop()
    raise AssertionError("unreachable")


def _signed_in_name(tokens: SessionTokens) -> str | None:
    """Who is signed in: this session's user while its token lives (sign-out, expiry or removal
    elsewhere end it at the next run), else the user of a live token in the browser's cookie (a
    reload, a page opened by its URL)."""
    name, token = SIGNED_IN.get(), state.SIGN_IN_TOKEN.get()
    if name:
        if tokens.check(token) == name:
            return name
        state.clear_user_state()  # ended elsewhere or expired: nothing of theirs stays
        state.COOKIE_WRITE.set("")
        return None
    cookie = _cookie()
    user = tokens.check(cookie)
    if user:
        SIGNED_IN.set(user)
        state.SIGN_IN_TOKEN.set(cookie)
    return user


def _cookie() -> str | None:
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:  # no browser connection (AppTest, bare mode): no cookie
        return None
    return value if isinstance(value, str) else None


def _client() -> str:
    """The browser's address as the server sees it ("" when unknown)."""
    try:
        address = st.context.ip_address
    except Exception:
        return ""
    return address if isinstance(address, str) else ""


def _write_cookie(tokens: SessionTokens) -> None:
    """Write (or, with "", delete) the sign-in cookie a sign-in or sign-out left for this run: a
    same-origin script (Streamlit sets no cookies of its own); ``SameSite=Strict``, ``Secure`` on
    HTTPS, expiring with the token."""
    value = state.COOKIE_WRITE.pop()
    if value is None:
        return
    age = tokens.rules.lifetime_s if value else 0
    js = (f"document.cookie = {json.dumps(f'{COOKIE}={value}')} + '; Path=/; Max-Age={age}; SameSite=Strict'"
          " + (location.protocol === 'https:' ? '; Secure' : '');")
    st.html(f"<script>{js}</script>", unsafe_allow_javascript=True)


def _form(users: UserStore, settings, tokens: SessionTokens) -> None:
    st.markdown("#### 🔐 Sign in")
    with st.form("signin", border=True):
        name = st.text_input("User name", key="signin_user")
        password = st.text_input("Password", type="password", key="signin_password")
        go = st.form_submit_button("Sign in", type="primary")
    if go:
        limiter, client, audit = throttle(settings), _client(), AuditLog.for_settings(settings)
        tried = (name or "").strip()[:64]
        wait = limiter.wait_s(name, client)
        if wait:  # not even checked: a correct password would say nothing either
            audit.append(tried, "", "sign_in_failed", detail="throttled")
            st.error(limiter.message(wait))
            return
        actor = users.authenticate(name, password)
        if actor is None:
            limiter.failed(name, client)
            audit.append(tried, "", "sign_in_failed")
            st.error(WRONG)
            return
        limiter.succeeded(name, client)
        token = tokens.issue(actor.name)
        state.clear_user_state()  # a fresh session for the user: nothing of a previous one
        SIGNED_IN.set(actor.name)
        state.SIGN_IN_TOKEN.set(token)
        state.COOKIE_WRITE.set(token)
        audit.append(actor.name, actor.role, "sign_in")
        st.rerun()


def _sign_out(tokens: SessionTokens) -> None:
    """Sign out: end the token (on the server: a copied cookie no longer works), forget everything
    of the user in this session (:func:`swr.app.state.clear_user_state`), delete the cookie and
    start a new conversation id."""
    tokens.revoke(state.SIGN_IN_TOKEN.get())
    state.clear_user_state()
    state.COOKIE_WRITE.set("")
    try:
        del st.query_params["s"]
    except KeyError:
        pass


def _signed_in_bar(actor: Actor, logout, args=()) -> None:
    c1, c2 = st.sidebar.columns([3, 2], vertical_alignment="center")
    c1.caption(f"👤 {actor.name} · {actor.role}")
    c2.button("Sign out", key="signout", on_click=logout, args=args, width="stretch")


def _oidc(users: UserStore) -> Actor:
    """``st.login`` with the identity provider of ``[auth]`` in secrets.toml (cannot be tested offline)."""
    if not st.user.is_logged_in:
        st.markdown("#### 🔐 Sign in")
        st.button("Sign in with your identity provider", type="primary", on_click=st.login)
        st.stop()
    email = str(st.user.get("email") or "")
    try:
        actor = users.actor(email)
    except NotFound:
        st.error(md(f"{email} is signed in but has no access to this workbench: ask an admin to run "
                    f"`python -m swr users add {email} --role agent --read KB` (the password is not used)."))
        st.button("Sign out", on_click=st.logout)
        st.stop()
    _signed_in_bar(actor, logout=st.logout)
    return actor
