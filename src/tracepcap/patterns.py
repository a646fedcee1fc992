"""Regular expressions compiled at their first use, not at import.

A module-level `re.compile` runs in every process that imports the module: the extractors,
decoders and signals hold some 80 patterns, of which a short capture uses a few, and compiling
them all was ~0.02 s of a `tracepcap analyze` of a 46-packet capture.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast


class _FirstUse:
    """Stands for the pattern until one of its attributes is asked for: then compiles it and
    keeps that attribute (`search`, `match`, ...) on itself, so later uses are a plain lookup."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern, self._flags = pattern, flags

    def __getattr__(self, name: str) -> Any:
        compiled = self.__dict__.get("_compiled") or re.compile(self.pattern, self._flags)
        self._compiled = compiled
        value = getattr(compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"compile_lazily({self.pattern!r}, {self._flags})"


def compile_lazily(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """What `re.compile(pattern, flags)` gives, compiled when first used."""
    return cast("re.Pattern[AnyStr]", _FirstUse(pattern, int(flags)))
