"""What a manifest row says of the extractor or stage it names (the `manifest` table's
`status`, stored as the member's text): Extract writes the extractors' rows, the conductor
the scan and adjudicate rows, Present reads them."""

from __future__ import annotations

from enum import StrEnum


class ManifestStatus(StrEnum):
    COMPLETED = "completed"  #: read everything it was given (notices are counted, not losses)
    PARTIAL = "partial"  #: lost something: the capture was not read to its end, a bug, a limit
    FAILED = "failed"  #: produced nothing (an adjudicator that raised)
    SKIPPED = "skipped"  #: not run, by design


#: statuses that lost nothing; any other is shown as a problem
WHOLE = frozenset({ManifestStatus.COMPLETED, ManifestStatus.SKIPPED})
