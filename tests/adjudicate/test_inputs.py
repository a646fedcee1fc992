"""Cross-question inputs: declared, checked, ordered, answered in scan and cited."""

from __future__ import annotations

import pytest
from support.facts import context, fact

from tracepcap.adjudicate.contract import Adjudicator, Tier
from tracepcap.adjudicate.registry import Registry, get_registry
from tracepcap.adjudicate.runner import machine_answer
from tracepcap.extract.kinds import SERVED
from tracepcap.scan.context import Answer
from tracepcap.scan.signals.host_identity import os_answer
from tracepcap.scan.vote import Vote


def question(key: str, *inputs: str, position: int = 10) -> Adjudicator:
    return Adjudicator(question=key, title=key, tier=Tier.DETERMINISTIC, labels=("X", "Unknown"),
                       signals=(), inputs=inputs, position=position)


def test_the_registry_answers_an_input_before_the_questions_that_read_it():
    registry = get_registry()
    assert registry.get("host-identity").inputs == ("os-family", "vendor-model")
    order = list(registry.signals())
    assert order.index("os-family") < order.index("host-identity")
    assert order.index("vendor-model") < order.index("host-identity")
    # display order is untouched
    assert [a.question for a in registry][:2] == ["host-identity", "hostname"]


def test_a_cycle_stops_start_up_naming_it():
    with pytest.raises(ValueError, match="cycle: a -> b -> a"):
        Registry([question("a", "b", position=1), question("b", "a", position=2)])


@pytest.mark.parametrize("inputs, message", [(("nope",), "input 'nope', which is no question"),
                                             (("a",), "its own answer")])
def test_an_unknown_or_own_input_stops_start_up(inputs, message):
    with pytest.raises(ValueError, match=message):
        Registry([question("a", *inputs)])


def test_machine_answer_is_the_verdict_from_votes_alone():
    answer_of = machine_answer(get_registry())
    answer = answer_of("os-family", "h", [Vote("iOS", 40, "syn (+40)", signal="s"),
                                                        Vote("macOS", 40, "syn (+40)", signal="s")])
    assert answer == Answer("os-family", "Apple", 75, ("iOS", "macOS"), ("s",))  # one signal: capped
    assert answer_of("os-family", "h", []).label == "Unknown"


def host_with(answer: Answer | None, facts=()):
    ctx = context({"10.0.0.2": list(facts)})
    if answer is not None:
        ctx.answers["os-family"] = {"10.0.0.2": answer}
    return ctx.host("10.0.0.2")


@pytest.mark.parametrize("label, device", [("iOS", "Mobile"), ("Android", "Mobile"),
                                            ("macOS", "Workstation"), ("Windows", "Workstation"),
                                            ("ChromeOS", "Workstation"), ("Linux", "Workstation")])
def test_a_client_os_names_its_device_class_citing_the_answer(label, device):
    votes = list(os_answer.vote(host_with(Answer("os-family", label, 85))))
    assert [(v.label, v.grade) for v in votes] == [(device, "INFERRED")]
    assert votes[0].reason.startswith(f"its os-family answer {label} (confidence 85)")


def test_a_serving_windows_or_linux_host_is_left_to_its_services():
    served = [fact(SERVED, "tcp/445", 3)]
    assert list(os_answer.vote(host_with(Answer("os-family", "Windows", 100), served))) == []
    assert list(os_answer.vote(host_with(Answer("os-family", "Linux", 100), served))) == []


def test_apple_and_network_os_vote_at_their_level():
    apple = list(os_answer.vote(host_with(Answer("os-family", "Apple", 80, ("iOS", "macOS")))))
    assert [v.label for v in apple] == ["Client device"]
    assert "one of iOS or macOS" in apple[0].reason
    quiet = list(os_answer.vote(host_with(Answer("os-family", "Network OS", 40))))
    assert [v.label for v in quiet] == ["Network device"]
    dhcp = list(os_answer.vote(host_with(Answer("os-family", "Network OS", 40), [fact(SERVED, "udp/67", 5)])))
    assert [v.label for v in dhcp] == ["Router"]


def test_no_answer_no_vote():
    assert list(os_answer.vote(host_with(None))) == []
    # an answer from the TTL alone: ttl_class voted that TTL already
    assert list(os_answer.vote(host_with(Answer("os-family", "Windows", 20, (), ("ttl",))))) == []
    assert list(os_answer.vote(host_with(Answer("os-family", "Unknown", 0)))) == []
