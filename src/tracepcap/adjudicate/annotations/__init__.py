"""Human annotations: the only writer of human_override, manual_evidence, dismissal and
audit_event.

Each public function takes the actor (resolved by CurrentActor, never from a request),
validates (`validation`), waits for its turn on the entity (`locking`), writes the change and
its audit event in the caller's transaction through the one writer `audit.record`,
re-adjudicates the touched key and returns the new verdict. One module per concern: overrides,
analyst evidence, dismissed labels, capture deletion and credential reveals; the audit log, locking, validation and
staleness of human answers are the ground floor in `adjudicate/ledger/`, which `networks` builds
on too (annotations -> networks -> ledger: no circle).
"""

from ..ledger.audit import AuditAction, record, record_refusal, trail
from ..ledger.staleness import identity_facts, mark_stale
from ..ledger.validation import check_key
from .captures import delete_capture
from .carry import carry_to_entities
from .dismissed_labels import dismiss, dismissals, undismiss
from .evidence import add_evidence, delete_evidence, edit_evidence, list_evidence
from .overrides import ACCEPTED, RESOLVED, accept, clear_override, resolve, set_override
from .reveals import record_reveal

__all__ = ["ACCEPTED", "RESOLVED", "AuditAction", "accept", "add_evidence", "carry_to_entities", "check_key",
           "clear_override",
           "delete_capture", "delete_evidence", "dismiss", "dismissals", "edit_evidence", "identity_facts",
           "list_evidence", "mark_stale", "record", "record_refusal", "record_reveal", "resolve", "set_override", "trail",
           "undismiss"]
