"""The one rule for text a person sends: labels, rationales, reasons, searches, file names.

A text may hold any printable character; it may not hold a control character (Unicode
category Cc: NUL, the other C0 codes, DEL, C1) nor half of a surrogate pair (which no
database can encode). Prose (a rationale, a reason) may hold tab and line breaks; a one-line
text (a label, a file name, a search) may not. Each field has a maximum length in characters.
PostgreSQL refuses NUL in text outright; SQLite would keep it and every view would show it.

`TextRule.check(field, value)` is what the services call (`InvalidText`, 422, naming field,
rule and the value's length); `TextRule.validator` is the same rule for a pydantic field. The
rules are named `string_too_long` (as pydantic names its own) and `control_character`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from .errors import InvalidText

PROSE_BREAKS = frozenset("\t\n\r")  # what a multi-line text may hold among the control characters


def forbidden_character(value: str, *, multiline: bool = False) -> tuple[int, str] | None:
    """(position, character) of the first character `value` may not hold, or None."""
    for at, char in enumerate(value):
        if unicodedata.category(char) in ("Cc", "Cs") and not (multiline and char in PROSE_BREAKS):
            return at, char
    return None


def describe(char: str) -> str:
    return f"U+{ord(char):04X}"


@dataclass(frozen=True, slots=True)
class TextRule:
    max_chars: int
    multiline: bool = False

    def problem(self, value: str) -> tuple[str, str] | None:
        """(rule, what is wrong as the end of a sentence) for `value` under this rule, or None."""
        if len(value) > self.max_chars:
            return "string_too_long", f"must be at most {self.max_chars} characters (got {len(value)})"
        if found := forbidden_character(value, multiline=self.multiline):
            at, char = found
            allowed = " (tab and line breaks are allowed)" if self.multiline else ""
            return "control_character", (f"must not contain control characters{allowed} (got {describe(char)} "
                                         f"at character {at + 1} of {len(value)})")
        return None

    def check(self, field: str, value: str, *, location: str = "body") -> str:
        """`value` unchanged, or InvalidText naming the field, the rule and the value's length."""
        if problem := self.problem(value):
            rule, message = problem
            raise InvalidText(field, rule, f"{field} {message}", location=location)
        return value

    def validator(self, value: str | None) -> str | None:
        """The rule as a pydantic after-validator (the 422 puts the field's name before it)."""
        if value is not None and (problem := self.problem(value)):
            rule, message = problem
            from pydantic_core import PydanticCustomError  # only the API, which loaded pydantic, validates so
            raise PydanticCustomError(rule, "{message}", {"message": message})
        return value


LABEL = TextRule(100)  # the label columns are String(100)
PROSE = TextRule(4000, multiline=True)  # a rationale or a reason: stored on its row and in the audit event
SEARCH = TextRule(200)
FILE_NAME = TextRule(255)  # capture.name is String(255)
#: a path segment or query parameter: a capture reference, a question, an entity, a label...
PARAMETER = TextRule(255)
