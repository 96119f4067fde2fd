"""Bad input, end to end (issue #8): one table of bad files, each run through the backend
(``Engine.index_files``) and through the upload on the Knowledge-bases page (``AppTest``), and an
unreachable Qdrant server in server mode, at start and on a query.

For every row a bad file gets an error naming it, while a file that is only weird (1 MB line,
100k lines, emoji, legacy encodings, hostile names) is indexed with a sane sentence count and
its exact text round-trips through the store. Either way the good file of the same upload is
indexed, and knowledge base "B" (documents and points) is untouched.

Fast on purpose: one engine for the module, the fake embedder of conftest.py on the real Qdrant
Edge store (HNSW builds off); the pages get that engine instead of the cached real one
(``ui.get_engine`` is patched). The two 100k-line rows take most of the time (100k points each).
"""
from __future__ import annotations

import html
import socket
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from streamlit.testing.v1 import AppTest

from _files import LATIN, ZH_SIMPLIFIED, ZH_TRADITIONAL, make_docx, make_encrypted_pdf, make_pdf
from conftest import ROOT, FakeEmbedder
from swr.core.settings import Settings
from swr.engine import Engine

APP = str(ROOT / "app.py")
KB_PAGE = "pages/1_Knowledge_bases.py"
MB = 1024 * 1024

GOOD = ("blender.txt", ("The ZX-9 blender has a 1200 W motor. Its jar holds 1.5 litres. "
                        "The ZX-9 warranty lasts three years from the date of purchase. "
                        "To claim it, call the service line with your receipt. "
                        "Never run the blender empty for more than ten seconds. "
                        "Clean the blades under running water right after use.\n").encode())
GOOD_SENTENCES = 6
OTHER = ("kettle.txt", b"The kettle boils water. Descale it monthly. The base has a sensor.")

UNICODE_TEXT = ("Family: \U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466 and flags "
                "\U0001F1E8\U0001F1F3\U0001F1FA\U0001F1F8 with a thumbs-up \U0001F44D\U0001F3FD. "
                "Zero\u200bwidth\u200cnon\u200djoiner and a stray \ufeff inside. "
                "עברית נכתבת מימין לשמאל. العربية تكتب من اليمين إلى اليسار. "
                "Mixed \u202eoverride\u202c and \u2067isolate\u2069 marks.\n")
# 1 MB on one line: words and spaces, no punctuation at all (cut at spaces, <= 300 chars each)
LONG_LINE = " ".join(f"word{k % 997}" for k in range(130_000))[:1_000_000]
# 1 MB of UTF-8 on one line: Chinese without spaces or punctuation (hard cuts at 300 chars)
_ZH_CHARS = "".join(ch for ch in ZH_SIMPLIFIED if ch not in "。，\n")
LONG_ZH_LINE = (_ZH_CHARS * (1_000_000 // 3 // len(_ZH_CHARS) + 1))[: 1_000_000 // 3]
MANY_LINES = "".join(chr(ord("a") + k % 26) + "\n" for k in range(100_000))
NAME_BODY = b"The file name was hostile; the content is fine. It has two sentences."
NAME_300_BYTES = "名" * 96 + "abcdefgh.txt"
assert len(NAME_300_BYTES.encode()) == 300
TOO_LARGE_UPLOAD_LIMIT_MB = 0.5


@dataclass(frozen=True)
class Row:
    """One bad input: the upload's name and bytes, and what must happen to it."""

    id: str
    name: str
    data: Callable[[], bytes]
    error: tuple[str, ...] = ()  # a bad file: words its error message must hold
    text: str | None = None  # a weird but good file: the exact text that must round-trip
    sentences: tuple[int, int] = (0, 0)  # ... and the range its sentence count must lie in
    source: str | None = None  # the name it is stored under (default: ``name``)

    @property
    def bad(self) -> bool:
        return bool(self.error)

    @property
    def shown(self) -> str:
        return self.source or self.name


def _binary() -> bytes:
    import random

    rng = random.Random(1)
    return b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(rng.randrange(256) for _ in range(4000))


def _half(data: bytes) -> bytes:
    return data[: len(data) // 2]


ROWS = [
    Row("empty", "empty.txt", lambda: b"", error=("is empty",)),
    Row("whitespace", "blank.txt", lambda: b"  \n\t\r\n  " + "\u3000\n".encode(), error=("only whitespace",)),
    Row("binary_as_txt", "photo.txt", _binary, error=("binary",)),
    Row("truncated_pdf", "cut.pdf", lambda: _half(make_pdf(["Page one.", "Page two.", "Page three."])),
        error=("truncated",)),
    Row("password_pdf", "locked.pdf", lambda: make_encrypted_pdf(["Secret page."]), error=("password",)),
    Row("pdf_without_text_layer", "scan.pdf", lambda: make_pdf([None, None]), error=("no text layer", "OCR")),
    Row("corrupt_docx", "broken.docx", lambda: _half(make_docx(["First paragraph.", "Second one."])),
        error=("corrupt",)),
    # 200 MB: the backend gets a sparse file on disk (never read); the upload a smaller file over a
    # lower configured limit (AppTest holds uploads in memory; 200 MB there would only be slow)
    Row("too_large_200mb", "huge.txt", lambda: b"x" * (1 * MB), error=("above the limit", "SWR_MAX_FILE_MB")),
    Row("gbk", "gbk.txt", lambda: ZH_SIMPLIFIED.encode("gbk"), text=ZH_SIMPLIFIED, sentences=(4, 4)),
    Row("big5", "big5.txt", lambda: ZH_TRADITIONAL.encode("big5"), text=ZH_TRADITIONAL, sentences=(4, 4)),
    Row("utf16", "utf16.txt", lambda: ("Hello world. " + ZH_SIMPLIFIED).encode("utf-16"),
        text="Hello world. " + ZH_SIMPLIFIED, sentences=(5, 5)),
    Row("utf16_without_bom", "utf16le.txt", lambda: ZH_SIMPLIFIED.encode("utf-16-le"), text=ZH_SIMPLIFIED,
        sentences=(4, 4)),
    Row("latin1", "latin1.txt", lambda: LATIN.encode("latin-1"), text=LATIN, sentences=(9, 9)),
    Row("mixed_line_endings", "eol.txt", lambda: b"First line.\r\nSecond line\rThird line\nFourth\r\n\r\nFifth.",
        text="First line.\nSecond line\nThird line\nFourth\n\nFifth.", sentences=(5, 5)),
    Row("one_mb_line_no_punctuation", "oneline.txt", lambda: LONG_LINE.encode(), text=LONG_LINE,
        sentences=(3375, 3375)),  # each piece ends at the last space before 300: test_split_caps.py
    Row("one_mb_zh_line_no_spaces", "oneline_zh.txt", lambda: LONG_ZH_LINE.encode(), text=LONG_ZH_LINE,
        sentences=(1112, 1112)),  # hard cuts at exactly 300 characters
    Row("100k_one_char_lines", "lines.txt", lambda: MANY_LINES.encode(), text=MANY_LINES,
        sentences=(100_000, 100_000)),
    Row("emoji_zero_width_rtl", "unicode.txt", lambda: UNICODE_TEXT.encode(), text=UNICODE_TEXT, sentences=(5, 5)),
    Row("name_dotdot", "../../../etc/passwd.txt", lambda: NAME_BODY, text=NAME_BODY.decode(), sentences=(2, 2),
        source="passwd.txt"),
    Row("name_slashes", "a/b\\c/report.txt", lambda: NAME_BODY, text=NAME_BODY.decode(), sentences=(2, 2),
        source="report.txt"),
    # no NUL: no file system or browser makes one, and Streamlit refuses it before swr sees it
    Row("name_control_chars", "bad\x1b[31m\nname\r\t\x7f\u202e.txt", lambda: NAME_BODY, text=NAME_BODY.decode(),
        sentences=(2, 2), source="bad[31mname.txt"),
    Row("name_300_bytes", NAME_300_BYTES, lambda: NAME_BODY, text=NAME_BODY.decode(),
        sentences=(2, 2), source="名" * 65 + ".txt"),
    # a bad file under a hostile name: the error names it by its safe name
    Row("name_hostile_and_empty", "../x/\x1bevil\n.txt", lambda: b"", error=("is empty",), source="evil.txt"),
]


# --------------------------------------------------------------------------------------------
# helpers


@pytest.fixture(scope="module")
def shared_engine(tmp_path_factory):
    """One fast engine for the whole table (fake embedder, real Qdrant Edge), holding knowledge
    base "B" with its own document: every row checks that B stays exactly as it is."""
    from swr.store import edge_schedule

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(edge_schedule, "OPTIMIZE_MIN_POINTS", 10**9)  # no HNSW build (seconds; not under test here)
        home = tmp_path_factory.mktemp("badinput")
        settings = Settings.from_env(env={}, secrets_path=home / "none.toml", home=home, sample_kb="")
        eng = Engine(settings, embedder=FakeEmbedder())
        res = eng.index_files("B", [OTHER])
        assert res[0].ok and res[0].sentences == 3
        eng.b_before = snapshot(eng)  # every row must leave B exactly like this
        yield eng
        eng.close()


@pytest.fixture
def engine(shared_engine, monkeypatch):
    """The shared engine with an empty knowledge base "A" (B as before); settings restored after."""
    eng = shared_engine
    if "A" in eng.store.kbs():
        eng.delete_kb("A")
    eng.create_kb("A")
    monkeypatch.setattr(eng, "settings", eng.settings)
    return eng


def check_other_kb(eng: Engine) -> None:
    assert snapshot(eng) == eng.b_before, "knowledge base B is untouched"


def snapshot(eng: Engine, kb: str = "B"):
    """Everything a user could see of a knowledge base: documents, point count, sentence texts."""
    docs = eng.docs(kb)
    return ([(d.doc_id, d.source, d.sentences, d.complete, d.chars) for d in docs], eng.store.count(kb),
            {d.doc_id: [s.text for s in eng.doc_sentences(kb, d.doc_id)] for d in docs})


def check_good_file(eng: Engine) -> None:
    """The good file of the upload is indexed, complete, all of it."""
    doc = next(d for d in eng.docs("A") if d.source == GOOD[0])
    assert doc.complete and doc.sentences == GOOD_SENTENCES
    assert "".join(s.text for s in eng.doc_sentences("A", doc.doc_id)) == GOOD[1].decode()


def check_indexed(eng: Engine, row: Row, sentences: int, doc_id: str) -> None:
    """A weird but good file: stored complete under its safe name; its text round-trips exactly."""
    lo, hi = row.sentences
    assert lo <= sentences <= hi, (row.id, sentences, row.sentences)
    doc = next(d for d in eng.docs("A") if d.doc_id == doc_id)
    assert doc.complete and doc.source == row.shown and doc.sentences == sentences
    stored = eng.doc_sentences("A", doc_id)
    assert [s.i for s in stored] == list(range(sentences))
    assert "".join(s.text for s in stored) == row.text, "the exact text round-trips"
    assert eng.store.count("A") == sentences + GOOD_SENTENCES


def check_refused(eng: Engine, row: Row, message: str) -> None:
    """A bad file: an error that starts with its (safe) name and says what is wrong; nothing stored."""
    assert message.startswith(row.shown + ": "), message
    for word in row.error:
        assert word in message, (word, message)
    assert "Traceback" not in message
    assert [d.source for d in eng.docs("A")] == [GOOD[0]]
    assert eng.store.count("A") == GOOD_SENTENCES


# --------------------------------------------------------------------------------------------
# (a) through the backend


BACKEND_ROWS = [pytest.param(r, id=r.id) for r in ROWS]


@pytest.mark.parametrize("row", BACKEND_ROWS)
def test_bad_input_backend(row: Row, engine, tmp_path):
    eng = engine
    if row.id == "too_large_200mb":
        big = tmp_path / row.name
        with open(big, "wb") as fh:
            fh.truncate(200 * MB)  # sparse: 200 MB on paper, no disk or memory used
        tracemalloc.start()
        try:
            results = eng.index_files("A", [big, GOOD])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 20 * MB, f"the 200 MB file was read into memory (peak {peak / MB:.0f} MB)"
        assert "200.0 MB" in results[0].error["message"] and "50.0 MB" in results[0].error["message"]
    else:
        results = eng.index_files("A", [(row.name, row.data()), GOOD])
    bad, good = results
    assert good.ok and good.source == GOOD[0] and good.sentences == GOOD_SENTENCES, good
    check_good_file(eng)
    if row.bad:
        assert not bad.ok and bad.error["source"] == row.shown, bad
        check_refused(eng, row, bad.error["message"])
        check_other_kb(eng)
        assert bad.source == row.shown, bad
    else:
        assert bad.ok and not bad.skipped and bad.source == row.shown, bad
        check_indexed(eng, row, bad.sentences, bad.doc_id)
    check_other_kb(eng)


# --------------------------------------------------------------------------------------------
# (b) through the upload on the Knowledge-bases page


def page_errors(at: AppTest) -> list[str]:
    return [html.unescape(e.value) for e in at.error]


@pytest.fixture
def page_engine(monkeypatch):
    """Make the pages use a given engine instead of the cached real one."""
    from swr.app import base as ui

    def use(eng: Engine) -> Engine:
        monkeypatch.setattr(ui, "get_engine", lambda: eng)
        return eng

    return use


def upload(files: list[tuple[str, bytes]]) -> AppTest:
    """Open the Knowledge-bases page on kb "A", upload ``files`` and press the index button."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    at.switch_page(KB_PAGE).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="w_kb").value == "A"
    at.file_uploader(key="uploads").set_value([(n, d, "application/octet-stream") for n, d in files]).run()
    at.button(key="index").click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input_upload(row: Row, engine, page_engine):
    eng = page_engine(engine)
    if row.id == "too_large_200mb":
        eng.settings = eng.settings.with_(max_file_mb=TOO_LARGE_UPLOAD_LIMIT_MB)
    at = upload([(row.name, row.data()), GOOD])
    table = at.dataframe[0].value.to_dict("records")
    assert [r["file"] for r in table] == [row.shown, GOOD[0]], "listed under the safe name"
    bad, good = table
    assert good["status"] == "indexed" and good["sentences"] == GOOD_SENTENCES
    check_good_file(eng)
    errors = page_errors(at)
    if row.bad:
        assert bad["status"] == "error"
        shown = [e for e in errors if e.startswith(row.shown + ": ")]
        assert len(shown) == 1 and shown[0] == bad["detail"], (errors, bad)
        check_refused(eng, row, shown[0])
        if row.id == "too_large_200mb":
            assert "512.0 KB" in shown[0], shown[0]
    else:
        assert not errors, errors
        assert bad["status"] == "indexed", bad
        doc = next(d for d in eng.docs("A") if d.source == row.shown)
        assert bad["sentences"] == doc.sentences
        check_indexed(eng, row, doc.sentences, doc.doc_id)
    check_other_kb(eng)


# --------------------------------------------------------------------------------------------
# Qdrant server unreachable (server mode): a clear message at start and on a query

SECRET = "sekrit-key-123"
ENV_KEYS = ("SWR_HOME", "SWR_SECRETS", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SWR_LLM_MODEL", "QDRANT_URL",
            "QDRANT_API_KEY", "SWR_EMBED_MODEL", "SWR_SAMPLE_KB", "SWR_COLLECTION", "SWR_SHARD_BY_KB")
Q1 = "How long is the ZX-9 warranty?"
Q2 = "How much does the ZX-9 jar hold?"


def closed_port_url() -> str:
    """http://127.0.0.1:<port> where nobody listens (a port the OS just handed out and took back)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def page_dump(at: AppTest) -> str:
    """Every element of the page, sidebar included, as protobuf text (to look for the API key)."""
    out, stack = [], [at._tree]
    while stack:
        node = stack.pop()
        if getattr(node, "proto", None) is not None:
            out.append(str(node.proto))
        stack.extend(getattr(node, "children", {}).values())
    return "\n".join(out)


def assert_unreachable_message(message: str, url: str) -> None:
    assert f"The Qdrant server at {url} cannot be reached" in message, message
    assert "Connection refused" in message and "QDRANT_URL" in message, message
    assert SECRET not in message and "Traceback" not in message


def test_app_start_with_qdrant_unreachable_shows_the_url_not_the_key(monkeypatch, tmp_path):
    """The real start-up path (``ui.get_engine`` builds the engine from the environment)."""
    from swr.app import base as ui

    url = closed_port_url()
    for k in ENV_KEYS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("QDRANT_URL", url)
    monkeypatch.setenv("QDRANT_API_KEY", SECRET)
    monkeypatch.setenv("SWR_HOME", str(tmp_path))
    monkeypatch.setenv("SWR_SECRETS", str(tmp_path / "none.toml"))
    ui.get_engine.clear()
    try:
        at = AppTest.from_file(APP, default_timeout=60)
        with pytest.warns(UserWarning, match="insecure"):  # qdrant-client: an API key over http
            at.run()
    finally:
        ui.get_engine.clear()
    assert not at.exception, at.exception
    errors = page_errors(at)
    assert len(errors) == 1, errors
    assert_unreachable_message(errors[0], url)
    assert "while listing its collections" in errors[0]
    assert not at.chat_input, "the page stops after the message"
    assert SECRET not in page_dump(at)


@pytest.fixture
def server(settings):
    """An engine in server mode on QDRANT_URL=<a closed port>, reachable at start: the ServerStore
    talks to a stand-in (qdrant-client's in-memory mode) until ``down()`` gives it a real
    ``QdrantClient`` on that URL, where nobody listens, as when the server goes away. ``up()``
    brings the stand-in back. The errors are qdrant-client's own (ResponseHandlingException)."""
    from qdrant_client import QdrantClient

    from swr.store.server import ServerStore

    url = closed_port_url()
    s = settings.with_(qdrant_url=url, qdrant_api_key=SECRET, sample_kb="")
    stand_in = QdrantClient(location=":memory:")
    store = ServerStore(s, client=stand_in)
    eng = Engine(s, embedder=FakeEmbedder(), store=store)
    with warnings.catch_warnings():  # the stand-in ignores payload indexes (and says so)
        warnings.filterwarnings("ignore", "Payload indexes have no effect", UserWarning)
        assert eng.index_files("kb", [GOOD])[0].ok
    with pytest.warns(UserWarning, match="insecure"):
        dead = QdrantClient(url=url, api_key=SECRET, timeout=5, check_compatibility=False)

    def down():
        store._client = dead

    def up():
        store._client = stand_in

    yield eng, down, up, url
    eng.close()
    dead.close()


def test_query_after_qdrant_went_away_raises_store_unavailable(server):
    from qdrant_client.http.exceptions import ResponseHandlingException

    from swr.core.errors import StoreUnavailable

    eng, down, up, url = server
    assert "three years" in eng.ask(Q1, "kb").answer
    down()
    for call in (eng.retrieve, eng.ask):
        with pytest.raises(StoreUnavailable) as err:
            call(Q1, "kb")
        assert_unreachable_message(err.value.message, url)
        assert isinstance(err.value.__cause__, ResponseHandlingException)
        assert SECRET not in str(err.value.to_dict())
    up()
    assert "three years" in eng.ask(Q1, "kb").answer, "works again once the server is back"


def test_chat_page_query_after_qdrant_went_away_keeps_the_question(server, page_engine):
    eng, down, up, url = page_engine(server[0]), *server[1:]
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception and at.selectbox(key="w_kb").value == "kb"
    at.chat_input[0].set_value(Q1).run()
    assert not at.exception and not at.error and len(at.session_state["history"]) == 1

    down()
    at.chat_input[0].set_value(Q2).run()
    assert not at.exception, at.exception
    errors = page_errors(at)
    assert errors and all(url in e for e in errors), errors
    for e in errors:
        assert_unreachable_message(e, url)
    body = html.unescape("\n".join(h.value for h in at.html))
    assert Q2 in body, "the question is shown with the error"
    assert "three years" in body, "the earlier answer stays"
    assert SECRET not in page_dump(at)
    assert [m.avatar for m in at.chat_message] == ["user", "assistant", "user", "assistant"]

    at.run()  # any later run, the server still away: the question and its error are kept
    assert not at.exception and Q2 in html.unescape("\n".join(h.value for h in at.html))
    assert page_errors(at) and len(at.session_state["history"]) == 1

    up()
    at.button(key="retry-failed").click().run()  # "Ask again" once the server is back
    assert not at.exception and not at.error
    assert [e["question"] for e in at.session_state["history"]] == [Q1, Q2]
    assert "retry-failed" not in [b.key for b in at.button]


def test_kb_page_upload_after_qdrant_went_away_shows_the_message(server, page_engine):
    eng, down, up, url = page_engine(server[0]), *server[1:]
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(KB_PAGE).run()
    assert not at.exception and at.selectbox(key="w_kb").value == "kb"
    at.file_uploader(key="uploads").set_value([("kettle.txt", OTHER[1], "text/plain")]).run()
    down()
    at.button(key="index").click().run()
    assert not at.exception, at.exception
    errors = page_errors(at)
    assert errors, "the page says why"
    for e in errors:
        assert_unreachable_message(e, url)
    assert SECRET not in page_dump(at)
    up()
    assert [d.source for d in eng.docs("kb")] == [GOOD[0]]


# --------------------------------------------------------------------------------------------
# questions: empty, 50k characters, only punctuation, other languages (backend and chat page)

QUESTIONS = [  # (id, question, words the error must hold; () = a fine question: evidence comes back)
    ("empty", "", ("empty",)),
    ("blank", " \n\t ", ("empty",)),
    ("50k_chars", "warranty " * 5_556, ("50,003", "4,000")),
    ("only_punctuation", "?!。？…", ()),
    ("chinese", "这个搅拌机的保修期是多久？", ()),
    ("arabic_rtl", "ما هي مدة الضمان؟", ()),
    ("russian", "Какая гарантия у блендера?", ()),
    ("japanese", "保証期間はどのくらいですか？", ()),
    ("emoji_zero_width", "warranty\u200b \U0001F468\u200d\U0001F469\u200d\U0001F467?", ()),
    ("html_and_script", "<script>alert(1)</script> warranty?", ()),
]


@pytest.mark.parametrize("qid,question,error", QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_question_backend(qid, question, error, engine):
    from swr.core.errors import BadRequest

    assert engine.index_files("A", [GOOD])[0].ok
    if error:
        with pytest.raises(BadRequest) as info:
            engine.ask(question, "A", llm=False)
        assert all(w in info.value.message for w in error), info.value.message
    else:
        res = engine.ask(question, "A", llm=False)
        assert res.passages and all(p.text for p in res.passages), "evidence comes back for any language"
    check_other_kb(engine)


@pytest.mark.parametrize("qid,question,error", QUESTIONS, ids=[q[0] for q in QUESTIONS])
def test_question_chat_page(qid, question, error, engine, page_engine):
    page_engine(engine)
    assert engine.index_files("A", [GOOD])[0].ok
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception and at.selectbox(key="w_kb").value == "A"
    at.chat_input[0].set_value(question).run()
    assert not at.exception, at.exception
    history = at.session_state["history"] if "history" in at.session_state else []
    if qid == "50k_chars":  # the chat box takes at most 4,000 characters (max_chars), as in a browser
        assert not page_errors(at) and len(history) == 1
        assert history[0]["question"] == question[:4000].strip() and history[0]["result"].passages
    elif error:  # a blank chat input is ignored by the page: nothing asked, nothing broken
        assert not history and not page_errors(at)
    else:
        assert not page_errors(at), page_errors(at)
        assert len(history) == 1 and history[0]["question"] == question.strip()
        assert history[0]["result"].passages, "evidence comes back for any language"
        body = "\n".join(h.value for h in at.html)
        assert "<script>alert(1)</script>" not in body, "the question is escaped where it is shown"
        if qid == "html_and_script":
            assert "<script>alert(1)</script>" in html.unescape(body), "... and shown as text"
    check_other_kb(engine)
