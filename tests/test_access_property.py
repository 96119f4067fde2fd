"""The security property of the app, as rendered (OWASP ASVS 4.0.3):

- V4.1.1 / V4.2.1 (access control enforced on the server, no access to data of another's
  resource): no page drawn for a user holds a sentence of a knowledge base that user may not read
  at that moment, whatever came before (grants change between steps);
- V3.3.1 (logout invalidates the session): after sign-out the session keeps nothing of the user;
- V8.3.1 / V8.2 (sensitive data not exposed to other users, nothing of one user left for the next):
  no page drawn for a user holds another user's question, except an answer shared on purpose
  (a permalink) opened by someone who may read its knowledge base.

Random sequences of sign-in, ask, switch knowledge base, sign-out, share an answer, open a link
(a permalink, or a conversation id pasted into a new tab) and change a grant, by random users, on
``AppTest`` with the real store and the fake embedder. One engine and one store serve every
example (small knowledge bases); each example works in its own users' names, so what one example
leaves on disk is another user's to the next. The number of sequences run is printed.
"""
from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from streamlit.testing.v1 import AppTest
from test_access_session import APP, rendered, user_keys

from conftest import FakeEmbedder
from swr.core.settings import Settings
from swr.manage.access import UserStore

KBS = ("alpha", "beta", "gamma")
TEXT = {"alpha": ("Kettles descale monthly with vinegar.", "The alpha lid opens upward."),
        "beta": ("Salaries are paid in March.", "The beta bonus is quarterly."),
        "gamma": ("Routers reboot at midnight.", "The gamma light blinks green.")}
USERS = ("u1", "u2", "u3")
PASSWORD = "agent-passw0rd"
SEQUENCES = int(os.environ.get("SWR_PROPERTY_SEQUENCES", "200"))
_RUN = itertools.count(1)


@pytest.fixture(scope="module")
def world(tmp_path_factory, request):
    from swr.app import base as ui
    from swr.engine import Engine
    from swr.manage.access import users as users_mod

    rounds = users_mod.BCRYPT_ROUNDS
    users_mod.BCRYPT_ROUNDS = 4  # bcrypt's cheapest cost: the property is about sessions, not hashing
    users_mod._dummy_hash.cache_clear()
    home = tmp_path_factory.mktemp("prophome")
    s = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="")
    eng = Engine(s, embedder=FakeEmbedder())
    for kb in KBS:
        assert all(r.ok for r in eng.index_files(kb, [(f"{kb}.txt", (" ".join(TEXT[kb]) + "\n").encode())]))
    old = ui.get_engine
    ui.get_engine = lambda: eng
    counted = {"n": 0, "steps": 0, "asked": 0, "shared": 0, "opened": 0, "signed_out": 0}
    yield eng, counted
    ui.get_engine = old
    users_mod.BCRYPT_ROUNDS = rounds
    users_mod._dummy_hash.cache_clear()
    line = f"access property: {counted['n']} sequences run (" + ", ".join(
        f"{k} {v}" for k, v in counted.items() if k != "n") + ")"
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is not None and reporter is not None:  # shown in every run's output, also without -s
        with capture.global_and_fixture_disabled():
            reporter.write_line("\n" + line)
    else:
        print(line)
    eng.close()


U, K = st.integers(0, 2), st.integers(0, 2)  # a user, a knowledge base (indexes)
steps = st.lists(st.one_of(
    st.tuples(st.just("ask"), U, K, st.booleans()),  # as that user (signs in first); True: share the answer
    st.tuples(st.just("switch"), U, K),
    st.tuples(st.just("sign_out")),
    st.tuples(st.just("open_link"), U, st.integers(0, 5)),
    st.tuples(st.just("grant"), U, K, st.sampled_from(["read", "none"])),
), min_size=2, max_size=7)


class Desk:
    """One browser tab at a shared desk, and what the test knows about who owns what."""

    def __init__(self, eng, run: int, counted: dict) -> None:
        self.eng, self.run, self.counted = eng, run, counted
        self.users = UserStore.for_settings(eng.settings)
        self.names = [f"r{run}{u}" for u in USERS]  # this example's users: new to the store
        for k, name in enumerate(self.names):  # two knowledge bases each: one taken away leaves a page
            self.users.add(name, "agent", PASSWORD, read=[KBS[k], KBS[(k + 1) % 3]])
        self.at: AppTest | None = None
        self.who: str | None = None
        self.asked: dict[str, str] = {}  # question -> the user who asked it
        self.shared: dict[str, tuple[str, str]] = {}  # permalink id -> (kb, question)
        self.sids: list[tuple[str, str]] = []  # (user, conversation id) seen in the URL
        self.n = 0

    # -- steps -------------------------------------------------------------------------------
    def new_tab(self, **query) -> None:
        self.at = AppTest.from_file(APP, default_timeout=60)
        for k, v in query.items():
            self.at.query_params[k] = v
        self.at.run()
        self.who = None

    def be(self, k: int) -> bool:
        """Make user ``k`` the one signed in at the desk (the last one signs out first)."""
        if self.who == self.names[k]:
            return True
        if self.who is not None:
            self.sign_out()
        self.sign_in(k)
        return self.who is not None

    def sign_in(self, k: int) -> None:
        if self.at is None:
            self.new_tab()
        at = self.at
        at.text_input(key="signin_user").input(self.names[k])
        at.text_input(key="signin_password").input(PASSWORD)
        at.button[0].click().run()
        self.who = self.names[k] if any(b.key == "signout" for b in at.button) else None

    def ask(self, u: int, k: int, share: bool = False) -> None:
        if not self.be(u):
            return
        self.switch(u, k)
        if not self.at.chat_input:
            return
        self.n += 1
        question = f"Question {self.run}-{self.n} by {self.who} about {KBS[k]} lids"
        self.at.chat_input[0].set_value(question).run()
        self.asked[question] = self.who
        self.counted["asked"] += 1
        sid = self.at.query_params.get("s")
        if sid:
            self.sids.append((self.who, sid if isinstance(sid, str) else sid[0]))
        if share:
            self.share(u)

    def switch(self, u: int, k: int) -> None:
        if not self.be(u) or not self.at.selectbox:
            return
        box = self.at.selectbox(key="w_kb")
        if KBS[k] in box.options:
            box.select(KBS[k]).run()

    def sign_out(self) -> None:
        if self.who is None:
            return
        self.at.button(key="signout").click().run()
        self.who = None
        self.counted["signed_out"] += 1
        assert user_keys(self.at) == set(), f"sign-out kept {user_keys(self.at)}"

    def share(self, u: int) -> None:
        if not self.be(u):
            return
        keys = [b.key for b in self.at.button if (b.key or "").startswith("share-")]
        if not keys:
            return
        self.at.button(key=keys[-1]).click().run()
        links = [c.value for c in self.at.code if "?a=" in c.value]
        if links:
            entry = self.at.session_state["history"][-1]
            self.shared[links[-1].split("?a=")[1]] = (entry["kb"], entry["question"])
            self.counted["shared"] += 1

    def open_link(self, u: int, k: int) -> None:
        """A permalink in this tab, or a conversation id pasted into a new tab (then sign in)."""
        if not self.be(u):
            return
        who = self.who
        if k < 3 and self.shared:
            answer_id = list(self.shared)[k % len(self.shared)]
            self.at.query_params["a"] = answer_id
            self.at.run()
            self.counted["opened"] += 1
            return
        if not self.sids:
            return
        _, sid = self.sids[k % len(self.sids)]
        self.new_tab(s=sid)
        self.be(self.names.index(who))
        self.counted["opened"] += 1

    def grant(self, k: int, kb: int, access: str) -> None:
        self.users.grant(self.names[k], KBS[kb], access)
        if self.at is not None:
            self.at.run()

    # -- the property --------------------------------------------------------------------------
    def check(self) -> None:
        if self.at is None:
            return
        assert not self.at.exception, self.at.exception
        text = rendered(self.at)
        if self.who is None:
            readable: set[str] = set()
        else:
            actor = self.users.actor(self.who)
            readable = {kb for kb in KBS if actor.can_read(kb)}
        for kb in set(KBS) - readable:
            for sentence in TEXT[kb]:
                assert sentence not in text, f"{self.who} sees {kb!r}: {sentence!r}"
        public = {q for kb, q in self.shared.values() if kb in readable}
        for question, asker in self.asked.items():
            if asker != self.who and question not in public:
                assert question not in text, f"{self.who} sees {asker}'s question {question!r}"


@hsettings(max_examples=SEQUENCES, deadline=None, derandomize=True, database=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seq=steps)
def test_no_page_shows_a_user_what_they_may_not_read(world, seq):
    eng, counted = world
    counted["n"] += 1
    desk = Desk(eng, next(_RUN), counted)
    desk.new_tab()
    for step in seq:
        getattr(desk, step[0])(*step[1:])
        desk.check()
        counted["steps"] += 1
