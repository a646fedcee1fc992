"""The os-family User-Agent signal reads ua-parser's OS rules alone, compiled as they are
tried: the same answers as ua-parser's own global parser, which compiles every rule first."""

from __future__ import annotations

import ua_parser

from tracepcap.scan.signals.os_family.user_agent import os_parser

USER_AGENTS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (X11; Fedora; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Safari/537.36",
    "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (X11; FreeBSD amd64; rv:109.0) Gecko/20100101 Firefox/115.0",
    "Microsoft-CryptoAPI/10.0", "Microsoft-WNS/10.0", "Windows-Update-Agent/10.0.10011.16384 Client-Protocol/2.50",
    "curl/8.5.0", "Wget/1.21.4", "Roku/DVP-9.10 (519.10E04111A)", "PlayStation 4 5.55",
    "Dalvik/2.1.0 (Linux; U; Android 11; Pixel 5 Build/RQ3A.211001.001)", "", "x" * 300,
]


def test_the_os_rules_alone_answer_as_ua_parser_does():
    assert [os_parser().parse_os(ua) for ua in USER_AGENTS] == [ua_parser.parse_os(ua) for ua in USER_AGENTS]
    assert sum(os_parser().parse_os(ua) is not None for ua in USER_AGENTS) >= 12
