"""One TCP direction's segments put in sequence order: retransmissions trimmed, early
segments held until the hole fills, the waiting room bounded, sequence numbers wrapping."""

from __future__ import annotations

from tracepcap.extract.segments import InOrder


def test_in_order_and_early_segments():
    order = InOrder(1000, waiting_bytes=100)
    assert order.push(1000, b"abc") == (b"abc", False)
    assert order.push(1006, b"ghi") == (b"", False)  # early: waits for 1003
    assert order.push(1009, b"jk") == (b"", False)
    assert order.push(1003, b"def") == (b"defghijk", False)
    assert order.next_seq == 1011 and not order.waiting


def test_retransmissions_are_trimmed():
    order = InOrder(0, waiting_bytes=100)
    order.push(0, b"hello")
    assert order.push(0, b"hello") == (b"", False)
    assert order.push(3, b"lo world") == (b" world", False)  # overlaps, then new bytes
    order.push(20, b"late!!")
    # bytes 11-24 arrive, covering most of the segment that waited at 20: its tail follows
    assert order.push(11, b"0123456789abc") == (b"0123456789abc!!", False)


def test_a_hole_that_never_fills_is_given_up():
    order = InOrder(0, waiting_bytes=8)
    assert order.push(10, b"12345") == (b"", False)
    assert order.push(20, b"6789") == (b"6789", True)  # the waiting room would overflow
    assert order.next_seq == 24 and not order.waiting
    assert order.push(24, b"x") == (b"x", False)


def test_sequence_numbers_wrap():
    order = InOrder(0xFFFFFFFE, waiting_bytes=100)
    assert order.push(1, b"cd") == (b"", False)
    assert order.push(0xFFFFFFFE, b"ab\x00") == (b"ab\x00cd", False)
    assert order.next_seq == 3
