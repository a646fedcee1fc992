"""Issue 27: the changes of a network are against its whole history. On the eight-week office
series of the test kit every planted event is high or medium in its week, nothing planted is
missed, the average week shows at most 15 top-level events, and behaviour of week 1 that
skips weeks is never "new" when it comes back."""

from __future__ import annotations

from support.office_weeks import PLANTED, score, series_week

from tracepcap.adjudicate import networks
from tracepcap.present.read import networks as read


def series(office, weeks=range(8)):
    office.network("site")
    ids = [office.add("site", n, series_week(n)) for n in weeks]
    with office.db.session() as s:
        events = read.change_documents(s, networks.find_network(s, "site").id)
    return ids, [[e for e in events if e.capture_id == cid] for cid in ids]


def test_eight_weeks_every_planted_event_ranked_and_the_noise_folded(office):
    ids, by_week = series(office)
    result = score(by_week)
    assert result["missed"] == [] and len(result["found"]) == len(PLANTED)
    assert result["renewed"] == []
    assert result["average_top"] <= 15, result["weeks"]
    assert by_week[0] == []  # the first capture is the baseline itself
    # churn of known devices is there, low: the usual workstations that are off, aggregated
    churn = [e for week in by_week for e in week if e.kind == "device-disappeared"]
    assert churn and {e.severity for e in churn} == {"low"}
    assert any(len(e.detail["devices"]) > 1 for e in churn)
    # the laptop that comes and goes (weeks 1, 3, 4, 6, 8) is never an event after week 1's
    laptop = [e for week in by_week for e in week if "10.9.0.50" in e.summary]
    assert all(e.severity == "low" for e in laptop)
    # new workstations of the office's vendor are low; the personal laptop, of a vendor the
    # network never had, is medium
    assert {e.severity for e in by_week[1] if e.kind == "device-appeared"} == {"low"}
    personal = [e for e in by_week[2] if e.kind == "device-appeared" and "10.9.0.77" in e.summary]
    assert [e.severity for e in personal] == ["medium"] and "never seen on this network" in personal[0].summary
    # the personal laptop seen in week 3 is new then, and back in week 7 only "returned" (low)
    assert [e.kind for e in by_week[6] if "10.9.0.77" in e.summary and e.severity != "low"] == []


def test_behaviour_that_skipped_a_week_returns_low_not_new(office):
    """The IMAP login of week 1 is absent in weeks 2 and 3 and back in week 4: "returned"."""
    ids, by_week = series(office, range(4))
    back = [e for e in by_week[3] if "imap" in e.summary]
    assert back and {(e.kind, e.severity) for e in back} == {("returned", "low")}
    assert not [e for e in by_week[3] if e.kind == "new-cleartext-login" and "imap" in e.summary]


def test_the_same_change_on_many_devices_is_one_event_listing_them(office):
    ids, by_week = series(office, range(2))
    counts = {}
    for e in by_week[1]:
        counts[(e.kind, e.severity, e.summary.split(":")[0])] = \
            counts.get((e.kind, e.severity, e.summary.split(":")[0]), 0) + 1
    assert all(n == 1 for n in counts.values()), counts
    smb = [e for e in by_week[1] if e.kind == "new-application" and "SMB" in e.summary]
    assert smb and all(e.severity == "low" for e in smb)
    assert max(len(e.detail["devices"]) for e in smb) > 1


def test_a_history_kept_between_additions_gives_what_a_full_recomputation_gives(office):
    from tracepcap.adjudicate.networks import baseline
    ids, _ = series(office, range(4))  # each addition used the history the one before kept
    with office.db.session() as s:
        nid = networks.find_network(s, "site").id

    def seen():
        with office.db.session() as s:
            return sorted((e.capture_id, e.kind, e.severity, e.summary)
                          for e in read.change_documents(s, nid))
    kept = seen()
    assert baseline._HISTORY[nid][0][-1][0] == ids[-1]
    baseline._HISTORY.clear()
    with office.db.session(write=True) as s:  # as if every capture was re-analysed: all again
        computed = baseline.recompute(s, nid, networks.ordered_captures(s, nid), set(ids))
    assert computed == 3 and seen() == kept
