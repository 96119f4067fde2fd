"""The one atomic write (swr.core.files): the whole new file or the old one, the mode set before
any byte is written, no temp file left behind on a failure."""
from __future__ import annotations

import json
import os
import stat

import pytest

from swr.core.files import read_json_cached, write_json_atomic, write_text_atomic


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_json_file_is_written_whole_and_private(tmp_path):
    path = tmp_path / "deep" / "users.json"
    write_json_atomic(path, {"users": {"ann": "agent"}}, indent=1)
    assert json.loads(path.read_text(encoding="utf-8")) == {"users": {"ann": "agent"}}
    assert _mode(path) == 0o600
    write_json_atomic(path, {"users": {}})  # replaced, still private
    assert json.loads(path.read_text(encoding="utf-8")) == {"users": {}} and _mode(path) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["users.json"]  # no temp file left


def test_a_stale_temp_file_does_not_lend_its_mode(tmp_path):
    path = tmp_path / "keys.json"
    stale = tmp_path / f".keys.json.{os.getpid()}.{__import__('threading').get_ident()}.tmp"
    stale.write_text("old", encoding="utf-8")
    stale.chmod(0o644)
    write_text_atomic(path, "{}")
    assert _mode(path) == 0o600 and path.read_text(encoding="utf-8") == "{}"


def test_mode_none_is_a_new_files_default(tmp_path):
    path = tmp_path / "golden.csv"
    write_text_atomic(path, "question\n", mode=None)
    umask = os.umask(0)
    os.umask(umask)
    assert _mode(path) == 0o666 & ~umask


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "shared.json"
    write_json_atomic(path, {"a": 1})
    with pytest.raises(TypeError):
        write_json_atomic(path, {"a": object()})  # not JSON: fails before the file is touched
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(path, "\ud800")  # fails while writing the temp file
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["shared.json"]


def test_a_cached_read_sees_every_later_write_and_a_removal(tmp_path):
    path = tmp_path / "keys.json"
    assert read_json_cached(path, {}) == {}
    write_json_atomic(path, {"keys": {"a": 1}})
    assert read_json_cached(path, {}) == {"keys": {"a": 1}}
    assert read_json_cached(path, {}) is read_json_cached(path, {})  # parsed once while unchanged
    write_json_atomic(path, {"keys": {"b": 2}})  # same size, new inode: seen at once
    assert read_json_cached(path, {}) == {"keys": {"b": 2}}
    path.unlink()
    assert read_json_cached(path, {}) == {}


def test_the_audit_log_appends_whole_lines_and_starts_afresh_when_removed(tmp_path):
    from swr.manage.access import AuditLog

    log = AuditLog(tmp_path / "a" / "audit.jsonl")
    log.append("ann", "admin", "key_use", object="k1")
    log.append("ann", "admin", "key_use", object="k2")
    assert [e["object"] for e in log.entries()] == ["k2", "k1"]
    log.path.unlink()  # removed (or rotated away) while the process runs
    log.append("bob", "agent", "key_use", object="k3")
    assert [e["object"] for e in log.entries()] == ["k3"]
    assert log.path.stat().st_mode & 0o777 == 0o600


def test_audit_logs_of_many_homes_keep_few_descriptors_open(tmp_path):
    from swr.manage.access import audit

    logs = [audit.AuditLog(tmp_path / f"h{i}" / "audit.jsonl") for i in range(audit.KEPT_OPEN * 3)]
    for n, log in enumerate(logs * 2):
        log.append("ann", "admin", "key_use", object=f"k{n}")
    assert len(audit._OPEN) <= audit.KEPT_OPEN
    assert all(len(log.entries()) == 2 for log in logs)  # every entry written, none lost to a closed descriptor
