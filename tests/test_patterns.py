"""`compile_lazily`: the pattern `re.compile` gives, compiled at its first use."""

from __future__ import annotations

import re

from tracepcap.patterns import compile_lazily


def test_a_lazy_pattern_answers_as_the_compiled_one():
    for pattern, flags, text in ((r"\b(free|net|open)bsd\b", re.I, "Running OpenBSD 7.4"),
                                 (rb"(?im)^cookie:[ \t]*([^\r\n]+)", 0, b"GET / HTTP/1.1\r\nCookie: a=b\r\n")):
        lazy, compiled = compile_lazily(pattern, flags), re.compile(pattern, flags)
        assert lazy.pattern == compiled.pattern  # readable before it is compiled
        assert lazy.search(text).groups() == compiled.search(text).groups()
        assert lazy.findall(text) == compiled.findall(text) and lazy.flags == compiled.flags
        assert lazy.match(text[1:]) is compiled.match(text[1:]) is None


def test_it_is_compiled_once_and_not_before_its_first_use(monkeypatch):
    compiled = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: compiled.append(args) or real(*args))
    lazy = compile_lazily(r"linux", re.I)
    assert compiled == []
    assert lazy.search("Linux 6.1") and lazy.search("linux") and lazy.sub("L", "linux") == "L"
    assert compiled == [("linux", int(re.I))]
