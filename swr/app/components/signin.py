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
``bcrypt.checkpw``, constant-time, against a same-cost dummy hash for unknown names), repeated
failures are throttled per typed name (:class:`swr.manage.access.SignInThrottle`: 5 in 5 minutes, then a
wait that expires by itself, the same for known and unknown names), and the signed-in name is kept
in Streamlit's server-side session state only (no cookie, no token, no crypto of our own): a new
tab signs in again.
"""
from __future__ import annotations

import streamlit as st

from swr.app.components.errors import md
from swr.app.state import Slot
from swr.core.errors import NotFound
from swr.manage.access import Actor, AuditLog, SignInThrottle, UserStore, open_mode_refusal

SIGNED_IN = Slot[str]("auth_user")
WRONG = "Wrong user name or password."  # one message: no hint which part was wrong


@st.cache_resource
def throttle() -> SignInThrottle:
    """The failed sign-ins of this process (shared by every session)."""
    return SignInThrottle()


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
    name = SIGNED_IN.get()
    if name:
        try:
            actor = users.actor(name)  # re-read each run: role and grant changes apply at once
        except NotFound:
            SIGNED_IN.pop()
        else:
            _signed_in_bar(actor, logout=_sign_out)
            return actor
    _form(users, settings)
    st.stop()
    raise AssertionError("unreachable")


def _form(users: UserStore, settings) -> None:
    st.markdown("#### 🔐 Sign in")
    with st.form("signin", border=True):
        name = st.text_input("User name", key="signin_user")
        password = st.text_input("Password", type="password", key="signin_password")
        go = st.form_submit_button("Sign in", type="primary")
    if go:
        limiter = throttle()
        wait = limiter.wait_s(name)
        if wait:  # not even checked: a correct password would say nothing either
            st.error(limiter.message(wait))
            return
        actor = users.authenticate(name, password)
        if actor is None:
            limiter.failed(name)
            st.error(WRONG)
            return
        limiter.succeeded(name)
        SIGNED_IN.set(actor.name)
        AuditLog.for_settings(settings).append(actor.name, actor.role, "sign_in")
        st.rerun()


def _sign_out() -> None:
    SIGNED_IN.pop()


def _signed_in_bar(actor: Actor, logout) -> None:
    c1, c2 = st.sidebar.columns([3, 2], vertical_alignment="center")
    c1.caption(f"👤 {actor.name} · {actor.role}")
    c2.button("Sign out", key="signout", on_click=logout, width="stretch")


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
