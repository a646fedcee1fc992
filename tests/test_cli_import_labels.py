"""`tracepcap import-labels FILE.csv CAPTURE` (issue 23, item 8): the bulk service from the
command line, as the CLI's actor, all or nothing with each bad row on stderr."""

from __future__ import annotations

import json

from sqlalchemy import func, select

from tracepcap.present.cli import ExitCode
from tracepcap.store.models import AuditEvent, HumanOverride, ManualEvidence

SERVER, WORKSTATION = "192.168.1.1", "192.168.1.20"  # dns_demo.pcap


def _analyzed(cli, captures) -> str:
    code, out, _ = cli("analyze", captures / "dns_demo.pcap", "--json")
    assert code == ExitCode.OK
    return json.loads(out)["capture"]["id"]


def test_import_labels_applies_every_row_and_audits_each(cli, captures, db, tmp_path):
    cid = _analyzed(cli, captures)
    sheet = tmp_path / "assets.csv"
    sheet.write_text("entity,label,kind,reason,weight\n"
                     f"{SERVER},Router,override,asset list,\n"
                     f"{WORKSTATION},Printer,evidence,asset tag,25\n")
    code, out, err = cli("import-labels", sheet, cid[:8], "--json")
    assert code == ExitCode.OK, err
    assert json.loads(out) == {"rows": 2, "overrides": 1, "evidence": 1, "dismissals": 0, "keys_readjudicated": 2}
    code, out, _ = cli("explain", cid, "host-identity", SERVER, "--json")
    assert json.loads(out)["verdict"]["override"]["label"] == "Router"
    with db.session() as s:
        assert sorted(s.execute(select(AuditEvent.action, AuditEvent.actor)).all()) == [
            ("evidence.added", "system"), ("override.set", "system")]


def test_a_bad_row_refuses_the_file_and_each_bad_row_is_named(cli, captures, db, tmp_path):
    cid = _analyzed(cli, captures)
    sheet = tmp_path / "assets.csv"
    sheet.write_text("kind,entity,label,reason,weight\n"
                     f"override,{SERVER},Router,fine,\n"
                     f"evidence,{WORKSTATION},Printer,heavy,101\n"
                     "override,10.1.2.3,Router,nobody,\n")
    code, out, err = cli("import-labels", sheet, cid)
    assert code == ExitCode.UNUSABLE_INPUT and out == ""
    assert "row 2 (line 3): evidence weight must be 1..100" in err
    assert "row 3 (line 4): no host or device '10.1.2.3'" in err
    assert "2 of 3 rows refused, nothing was applied" in err
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(HumanOverride)) == 0
        assert s.scalar(select(func.count()).select_from(ManualEvidence)) == 0


def test_a_missing_file_is_a_usage_error(cli, tmp_path):
    code, _out, err = cli("import-labels", tmp_path / "nope.csv", "abcd")
    assert code == ExitCode.UNUSABLE_INPUT and "cannot read" in err and "Traceback" not in err
