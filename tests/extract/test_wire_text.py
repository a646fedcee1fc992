"""The fact table is the one door from the wire to the store (issue 17, item 2): whatever
bytes an extractor hands it, it keeps their visible rendering, and repeated sightings of a
hostile value still fold into one observation."""

from __future__ import annotations

from tracepcap.extract.facts import Emitter, FactKind, FactTable, Grade

CLAIM = FactKind("hostname-claim", Grade.REPORTED)
RAW = "ev\x00il\udcff"  # a NUL, and the byte 0xff as a decoder's surrogateescape keeps it


def test_a_hostile_value_is_kept_visible_and_its_sightings_fold():
    table = FactTable(limit=10)
    emit = Emitter("dhcp", "1", table)
    for frame in (3, 1, 7):
        emit.fact("10.0.0.5", CLAIM, RAW, frame, float(frame))
    (obs,) = table.observations("c")
    assert obs.value == "ev\\x00il\\xff"
    assert (obs.witness.first_frame, obs.witness.last_frame, obs.witness.count) == (1, 7, 3)


def test_a_moved_hostile_value_lands_with_its_sightings():
    table = FactTable(limit=10)
    emit = Emitter("dhcp", "1", table)
    emit.fact("0.0.0.0", CLAIM, RAW, 1, 1.0)
    emit.fact("10.0.0.5", CLAIM, RAW, 4, 4.0)
    emit.move("0.0.0.0", "10.0.0.5", CLAIM, RAW)
    (obs,) = table.observations("c")
    assert (obs.entity, obs.value, obs.witness.count) == ("10.0.0.5", "ev\\x00il\\xff", 2)


def test_the_limit_counts_visible_keys():
    table = FactTable(limit=1)
    emit = Emitter("dhcp", "1", table)
    emit.fact("10.0.0.5", CLAIM, "a\x00", 1, 1.0)
    emit.fact("10.0.0.5", CLAIM, "a\\x00", 2, 2.0)  # the same text once rendered: one key
    emit.fact("10.0.0.5", CLAIM, "b", 3, 3.0)
    assert [o.witness.count for o in table.observations("c")] == [2] and table.dropped == 1


def test_repeats_handed_over_later_equal_a_call_per_sighting():
    def table_after(counted: bool) -> tuple[list, int]:
        table = FactTable(limit=1)
        emit = Emitter("ttl", "1", table)
        emit.fact("10.0.0.5", CLAIM, RAW, 2, 2.0)
        emit.fact("10.0.0.6", CLAIM, "b", 3, 3.0)  # past the limit: dropped
        if counted:
            emit.again("10.0.0.5", CLAIM, RAW, 3, 9, 9.0)
            emit.again("10.0.0.6", CLAIM, "b", 2, 8, 8.0)
        else:
            for frame in (4, 5, 9):
                emit.fact("10.0.0.5", CLAIM, RAW, frame, float(frame))
            for frame in (6, 8):
                emit.fact("10.0.0.6", CLAIM, "b", frame, float(frame))
        return [o.witness for o in table.observations("c")], table.dropped

    assert table_after(counted=True) == table_after(counted=False)
    (witness,), dropped = table_after(counted=True)
    assert (witness.first_frame, witness.last_frame, witness.count, witness.last_time, dropped) == (
        2, 9, 4, 9.0, 3)
