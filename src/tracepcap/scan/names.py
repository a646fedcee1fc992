"""Hostname comparison: case, trailing dot, and a domain suffix do not make names differ."""

from __future__ import annotations


def name_key(name: str) -> str:
    """`WS-0042.corp.example.` and `ws-0042` share the key `ws-0042`."""
    return name.strip().rstrip(".").split(".", 1)[0].casefold()
