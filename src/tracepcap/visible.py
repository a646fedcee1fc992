"""One normalisation for text that came from outside: packets, file names.

Bytes from the wire are hostile. A NUL in a DHCP host name fails a PostgreSQL insert (text
columns refuse U+0000), a newline or an ANSI escape rewrites a terminal table, and bytes that
are not UTF-8 cannot be stored at all. Decoders therefore keep undecodable bytes instead of
replacing them: UTF-8 with `errors="surrogateescape"` (each byte kept as U+DC80+byte), UTF-16
with `errors="backslashreplace"` (already `\\xNN`: surrogateescape cannot hold bytes below
0x80); and every value is passed through `visible()` before it is stored, which renders:

- C0 controls, DEL and C1 controls (U+0000-U+001F, U+007F-U+009F) as `\\xNN`;
- bytes that were not valid in the text's encoding as `\\xNN` (the byte itself);
- any other lone surrogate as `\\uNNNN`.

So the raw bytes stay visible and the text stays storable and printable everywhere. A
backslash that arrived on the wire is kept as it is (Windows names such as `CORP\\alice`
read as sent); the rendering is for people, not for reversing.
"""

from __future__ import annotations

import re

HOSTILE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with controls and undecodable bytes rendered as visible escapes."""
    if HOSTILE.search(text) is None:  # the common case: nothing to change, no copy
        return text
    return HOSTILE.sub(_escape, text)
