"""A mobile core's network functions, from the protocols between them (3GPP TS 23.501):

- UPF (user plane function): answers PFCP (udp/8805: it sends the responses to session
  establishment, association setup) and serves GTP-U (udp/2152, answering a tunnel a base
  station opened), the N4 and N3 interfaces;
- SMF (session management function): the PFCP client, asking UPFs for sessions (it sends
  session establishment requests);
- gNB (base station): opens GTP-U tunnels to the UPF (it sent first on udp/2152: the user's
  uplink) and NGAP (sctp/38412) to the AMF when the capture sees it;
- AMF: answers NGAP.

Measured: the messages and who sent them are in the traffic. A host may be several (free5gc
runs the SMF and a simulated gNB on one address); each is its own vote.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import INITIATED, PFCP_MESSAGE, SERVED, TUNNEL_ENDPOINT
from ...context import HostFacts
from ...vote import Vote

READS = (INITIATED, PFCP_MESSAGE, SERVED)  # it votes only from these: not run for a host with none
CONSULTS = (TUNNEL_ENDPOINT,)  # read only beside a kind of READS

WEIGHT = 45  # one interface's evidence
BOTH = 60  # two interfaces (N4 and N3, or PFCP's request and its port)
PEER = 20  # a GTP-U tunnel opened, alone: a UPF sends first too (downlink data)
UPF_SAYS = ("session establishment response", "session modification response", "session deletion response")
SMF_SAYS = ("session establishment request", "session modification request", "session deletion request")


def vote(host: HostFacts) -> Iterator[Vote]:
    said = {f.value: f for f in host.facts(PFCP_MESSAGE)}
    served = host.served()
    opened = {f.value: f for f in host.facts(INITIATED)}
    tunnels = [f for f in host.facts(TUNNEL_ENDPOINT) if f.value.startswith("gtp-u")]
    upf = [f"{what} (frame {said[what].first_frame})" for what in UPF_SAYS if what in said]
    upf_frames = [said[what].first_frame for what in UPF_SAYS if what in said]
    if "udp/8805" in served:
        upf.append(f"answers PFCP on udp/8805 (frame {served['udp/8805'].first_frame})")
        upf_frames.append(served["udp/8805"].first_frame)
    if "udp/2152" in served:
        upf.append(f"answers GTP-U on udp/2152 (frame {served['udp/2152'].first_frame})")
        upf_frames.append(served["udp/2152"].first_frame)
    if upf:
        weight = BOTH if len(upf) > 1 else WEIGHT
        yield Vote("UPF", weight, f"{'; '.join(upf)}: the user plane function of a mobile core, which "
                   f"answers the SMF's PFCP and carries the users' GTP-U tunnels (+{weight})",
                   Grade.MEASURED, tuple(sorted(upf_frames)[:3]))
    smf = [what for what in SMF_SAYS if what in said]
    if smf or ("udp/8805" in opened and "udp/8805" not in served):
        frames = sorted(said[what].first_frame for what in smf) or [opened["udp/8805"].first_frame]
        why = (f"sends PFCP {', '.join(smf)} (first in frame {frames[0]})" if smf
               else f"opened PFCP on udp/8805 (frame {frames[0]})")
        weight = BOTH if smf and "udp/8805" in opened else WEIGHT
        yield Vote("SMF", weight, f"{why}: the session management function of a mobile core, the "
                   f"PFCP client asking its UPFs for the users' sessions (+{weight})",
                   Grade.MEASURED, tuple(frames[:3]))
    gnb = []
    if "udp/2152" in opened and "udp/2152" not in served:
        first = opened["udp/2152"]
        gnb.append((first.first_frame, f"opened a GTP-U tunnel on udp/2152 (frame {first.first_frame}"
                    + (f", {tunnels[0].value}" if tunnels else "") + ")"))
    if "sctp/38412" in opened:
        gnb.append((opened["sctp/38412"].first_frame,
                    f"opened NGAP on sctp/38412 (frame {opened['sctp/38412'].first_frame})"))
    if gnb:
        gnb.sort()
        weight = BOTH if len(gnb) > 1 else WEIGHT if "sctp/38412" in opened else PEER
        yield Vote("gNB", weight, f"{'; '.join(why for _, why in gnb)}: a base station, which opens "
                   f"the users' uplink tunnels to the UPF (+{weight})", Grade.MEASURED,
                   tuple(frame for frame, _ in gnb))
    if "sctp/38412" in served:
        first = served["sctp/38412"]
        yield Vote("AMF", WEIGHT, f"answers NGAP on sctp/38412 (frame {first.first_frame}): the access and "
                   f"mobility function its base stations register with (+{WEIGHT})", first.grade,
                   (first.first_frame,))
