"""p0f's TCP signature database, read from the file Debian's `p0f` package installs.

Source: `/etc/p0f/p0f.fp` from the Debian package `p0f` (upstream p0f v3 by Michal
Zalewski, "Distributed under the terms and conditions of GNU LGPL", LGPL-2.1; Debian's
copyright file says so). We ship none of it: the file is read at run time where the package
put it (`TRACEPCAP_P0F_FP` names another path), and refreshed by the package manager
(`apt-get install --only-upgrade p0f`). Without the file the SYN signals do not vote and
the first use logs one line saying so.

The parser is ours, written from the format p0f's README (section 5) documents:

    [tcp:request]            module:direction (tcp:request = SYN, tcp:response = SYN+ACK)
    label = s:unix:Linux:3.11 and newer      type(s specific, g generic):class:name:flavor
    sig   = ver:ittl:olen:mss:wsize,scale:olayout:quirks:pclass

`ver` 4/6/*, `ittl` the initial TTL ("64-" a TTL at or below 64, as tools send), `olen` the
IP options' length, `mss` a number or *, `wsize` a number, *, `mss*N`, `mtu*N` or `%N`,
`scale` a number or *, `olayout` the TCP options in order (eol+N: EOL then N bytes of
padding), `quirks` IP/TCP oddities (df, id+, ecn ...), `pclass` 0 (no payload) or +.

What we match on: window, MSS, window scale and option layout from the `tcp-syn-signature`
/ `tcp-synack-signature` facts, and the initial TTL from the host's main TTL when known.
Quirks, IP version, IP options and payload class are not in our facts and are not compared
(a looser match than p0f's own). As in p0f, a specific signature wins over a generic one,
and the first in file order wins among equals; labels of class "!" (tools such as nmap or
p0f's own sendsyn) name no system and are skipped.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_PATH = "/etc/p0f/p0f.fp"
ENV_PATH = "TRACEPCAP_P0F_FP"
SECTIONS = {"tcp:request": "syn", "tcp:response": "synack"}


@dataclass(frozen=True, slots=True)
class Label:
    specific: bool  # "s" (one version) or "g" (a generic catch-all)
    klass: str  # "unix", "win", "other"
    name: str  # "Linux", "Windows", "Mac OS X", "FreeBSD" ...
    flavor: str  # "3.11 and newer", "7 or 8", ""

    def __str__(self) -> str:
        return f"{self.name} {self.flavor}".strip()

    @property
    def wire(self) -> str:
        return f"{'s' if self.specific else 'g'}:{self.klass}:{self.name}:{self.flavor}"


@dataclass(frozen=True, slots=True)
class Signature:
    label: Label
    ittl: int | None  # None: any
    mss: int | None
    window: str  # "*", "8192", "mss*20", "mtu*4", "%8192"
    scale: int | None
    layout: tuple[str, ...]  # option names, "eol+N" cut to "eol"
    line: int  # in the file, for reasons

    def matches(self, window: int, mss: int | None, scale: int, layout: tuple[str, ...],
                ittl: int | None) -> bool:
        if layout != self.layout or (self.scale is not None and scale != self.scale):
            return False
        if self.mss is not None and mss != self.mss:
            return False
        if self.ittl is not None and ittl is not None and ittl != self.ittl:
            return False
        w = self.window
        if w == "*":
            return True
        if w.startswith("mss*"):
            return mss is not None and window == mss * int(w[4:])
        if w.startswith("mtu*"):
            return mss is not None and window == (mss + 40) * int(w[4:])
        if w.startswith("%"):
            return int(w[1:]) > 0 and window % int(w[1:]) == 0
        return window == int(w)


MATCHES_KEPT = 1 << 16


class Database:
    """The parsed signatures, by direction ("syn", "synack"), in file order."""

    def __init__(self, path: str, signatures: dict[str, list[Signature]]) -> None:
        self.path = path
        self.signatures = signatures
        # a capture's hosts repeat a handful of stacks: each shape is matched once
        self._matched: dict[tuple, Signature | None] = {}

    def match(self, direction: str, window: int, mss: int | None, scale: int,
              layout: tuple[str, ...], ittl: int | None) -> Signature | None:
        """The first specific signature that matches, else the first generic one."""
        key = (direction, window, mss, scale, layout, ittl)
        try:
            return self._matched[key]
        except KeyError:
            if len(self._matched) >= MATCHES_KEPT:  # a server's Database lives across captures
                self._matched.clear()
            found = self._matched[key] = self._match(*key)
            return found

    def _match(self, direction: str, window: int, mss: int | None, scale: int,
               layout: tuple[str, ...], ittl: int | None) -> Signature | None:
        generic = None
        for sig in self.signatures.get(direction, ()):
            if sig.matches(window, mss, scale, layout, ittl):
                if sig.label.specific:
                    return sig
                generic = generic or sig
        return generic


def _label(value: str) -> Label | None:
    parts = value.split(":", 3)
    if len(parts) != 4 or parts[0] not in ("s", "g"):
        raise ValueError(f"bad label {value!r}")
    kind, klass, name, flavor = parts
    return None if klass.startswith("!") else Label(kind == "s", klass, name, flavor)


def _number(field: str) -> int | None:
    return None if field == "*" else int(field)


def _signature(value: str, label: Label, line: int) -> Signature | None:
    fields = value.split(":")
    if len(fields) != 8:
        raise ValueError(f"bad signature {value!r}")
    _ver, ittl, _olen, mss, window_scale, layout, _quirks, _pclass = fields
    if ittl.endswith("-"):  # a "bad TTL" tool signature: no system's default
        return None
    window, _, scale = window_scale.partition(",")
    names = tuple("eol" if name.startswith("eol+") else name for name in layout.split(",") if name)
    return Signature(label, _number(ittl), _number(mss), window, _number(scale), names, line)


def parse(text: str, path: str = "<text>") -> Database:
    """The [tcp:request] and [tcp:response] signatures of a p0f.fp text; other sections
    ([mtu], [http:*]) are skipped. ValueError names the line of anything malformed."""
    signatures: dict[str, list[Signature]] = {d: [] for d in SECTIONS.values()}
    direction: str | None = None
    label: Label | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            direction, label = SECTIONS.get(line[1:-1]), None
            continue
        if direction is None:
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        try:
            if key == "label":
                label = _label(value)
            elif key == "sig" and label is not None \
                    and (sig := _signature(value, label, number)) is not None:
                signatures[direction].append(sig)
        except ValueError as err:
            raise ValueError(f"{path} line {number}: {err}") from None
    return Database(path, signatures)


@lru_cache(maxsize=4)
def _load(path: str) -> Database | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        log.warning("p0f signatures not available (%s: %s): TCP SYN fingerprints will not vote; "
                    "install the Debian package p0f", path, err.strerror or err)
        return None
    return parse(text, path)


def database() -> Database | None:
    """The installed p0f database, parsed once per path; None (logged once) without it."""
    return _load(os.environ.get(ENV_PATH) or DEFAULT_PATH)


def split_signature(value: str) -> tuple[int, int | None, int, tuple[str, ...]] | None:
    """(window, mss, scale, layout) of a "window:mss:wscale:options" fact value."""
    window, mss, scale, layout = (value.split(":", 3) + ["", "", ""])[:4]
    if not window.isdigit():
        return None
    return (int(window), int(mss) if mss.isdigit() else None, int(scale) if scale.isdigit() else 0,
            tuple(name for name in layout.split(",") if name))
