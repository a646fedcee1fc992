"""`tracepcap override` without a label (and without --clear) is a usage error saying so, not
a NameError (the module used UsageError without importing it)."""

from __future__ import annotations


def test_override_without_a_label_is_a_usage_error_not_a_crash(cli):
    code, _, err = cli("override", "0123abcd", "host-identity", "10.0.0.1")
    assert code == 2 and "override needs LABEL (or --clear)" in err
