"""Files written whole: a temp file in the same folder, then ``os.replace``, so a reader (another
thread, another process, the next start after a crash) sees the old file or the new one, never half
of one. The one helper for every settings, users, keys, shares and history file under ``SWR_HOME``."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

PRIVATE = 0o600  # readable and writable by the app's account only (users, keys, sign-ins, chats)


def write_text_atomic(path: str | Path, text: str, *, mode: int | None = PRIVATE) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating its folder. ``mode``: the file's
    permissions, set before any byte is written (None: a new file's default, the umask's). The temp
    file is removed when writing fails; the error propagates."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        if mode is None:
            tmp.write_text(text, encoding="utf-8")
        else:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
            os.fchmod(fd, mode)  # a stale temp file keeps its mode through O_CREAT; the umask masks bits
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_json_atomic(path: str | Path, data, *, mode: int | None = PRIVATE, **dump) -> Path:
    """:func:`write_text_atomic` of ``json.dumps(data, **dump)`` (``indent``, ``ensure_ascii``,
    ``default``, as :func:`json.dumps` takes them)."""
    return write_text_atomic(path, json.dumps(data, **dump), mode=mode)


_READ_CACHE: dict[Path, tuple[tuple, object]] = {}  # insertion-ordered: the oldest first
_READ_LOCK = threading.Lock()
READ_CACHED = 64  # size: files kept parsed (two a SWR_HOME: users and keys)


def read_json_cached(path: str | Path, default=None):
    """The parsed JSON of ``path`` (``default`` when it does not exist), parsed again only when the
    file changed: the cache is keyed on the file's inode, size and modification time, which
    :func:`write_text_atomic`'s rename always changes, so every process on one ``SWR_HOME`` sees
    another's write on its next read. For read paths only: the value is shared, never mutate it.
    (The users and keys files are read on every API request; parsing them each time was a fifth of
    a request's CPU under load.) At most :data:`READ_CACHED` files are kept, the oldest dropped first."""
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return default
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    with _READ_LOCK:
        hit = _READ_CACHE.get(path)
    if hit is not None and hit[0] == stamp:
        return hit[1]
    value = json.loads(path.read_text(encoding="utf-8") or "null")
    value = default if value is None else value
    with _READ_LOCK:
        _READ_CACHE.pop(path, None)
        while len(_READ_CACHE) >= READ_CACHED:
            _READ_CACHE.pop(next(iter(_READ_CACHE)))
        _READ_CACHE[path] = (stamp, value)
    return value
