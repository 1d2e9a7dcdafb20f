"""What each compute-fabric technology delivers to NCCL: achievable bus bandwidth and latency per switch hop.

Three effects, each from the physics of the fabric rather than a single fudge factor:

1. **Link efficiency** -- the share of the line rate one NIC's NCCL traffic reaches on an idle path: the
   transport's framing (bytes of header per packet) and the NIC/NCCL pipeline. InfiniBand is anchored on
   a published measurement; RoCE (plain or Spectrum-X, both RoCEv2 on ConnectX/BlueField NICs) on the same
   NIC pipeline with Ethernet/IP/UDP framing instead of InfiniBand's, the header arithmetic shown below.
2. **Load balance across the spine** -- traffic that leaves a leaf picks an uplink. InfiniBand (Quantum
   adaptive routing) and Spectrum-X (per-packet adaptive routing, the SuperNIC placing packets in order)
   spread it over every uplink. Plain RoCE hashes each flow to one uplink (ECMP): with ``q`` flows per link's
   worth of traffic hashed onto ``U`` uplinks the flows on one uplink are about Poisson(q), an uplink with
   ``k`` flows carries ``min(k, q) / q`` of its rate, so the fabric delivers ``E[min(k, q)] / q`` of what it
   could (``1 - 1/e`` = 63 % for one flow a link). Each tier crossed upwards hashes once more, taken as an
   independent stage (an approximation: the second stage sees flows the first has already slowed).
3. **Latency per switch hop** -- NCCL's network hop latency (designer/fabric/collectives.py) is NCCL's own
   cost model, calibrated on InfiniBand; another technology adds its switch's extra port-to-port latency on
   each hop of the path (1 switch inside a leaf, 3 through a spine, 5 through a core).

Every figure carries its source and an evidence mark (``EVIDENCE``). Vendor claims are kept beside the
figures for the reader and are never an input: NVIDIA's "95 % vs 60 % data throughput" for Spectrum-X vs
standard Ethernet (xAI Colossus press release, 2024-10-28) is what the model above should roughly reproduce
(92.7 % vs 57.6 % of line rate beyond a leaf), not what it is built on.
"""
from __future__ import annotations

import math

from dataclasses import dataclass

#: Evidence marks, strongest first.
EVIDENCE = {
    "measured": "a published measurement (nccl-tests, perftest, a paper's figure)",
    "published": "a figure the library's maintainers state from their own measurements (not marketing)",
    "derived": "arithmetic on measured or specified inputs, shown in the source",
    "secondary": "a third-party page citing the vendor; cross-check only",
    "vendor-claim": "the vendor's marketing or press statement; no method published",
    "unconfirmed": "no primary figure found; an assumption, marked so",
}
TECHNOLOGY_NAMES = ("infiniband", "spectrum-x", "roce")
SHORT_NAMES = {"infiniband": "InfiniBand", "spectrum-x": "Spectrum-X Ethernet", "roce": "RoCE Ethernet"}


@dataclass(frozen=True)
class Figure:
    value: float
    unit: str
    source: str
    evidence: str

    def to_json(self) -> dict:
        return {"value": self.value, "unit": self.unit, "source": self.source, "evidence": self.evidence}


#: Bytes of header and framing per packet at the 4,096-byte MTU both transports run for RDMA:
#: InfiniBand LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26; RoCEv2 preamble/SFD 8 + inter-frame gap 12 +
#: Ethernet header 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 = 82 (IBTA spec and annex A17).
MTU = 4096
IB_OVERHEAD_BYTES = 26
ROCE_OVERHEAD_BYTES = 82
#: RoCE's framing efficiency over InfiniBand's on the same NIC: (4096/4178) / (4096/4122) = 0.9866.
#: Corroborated by perftest on ConnectX-7 at 400 GbE RoCEv2: 392 of 400 Gb/s (NVIDIA/nccl issue #2409),
#: 0.980 against the 0.9804 the arithmetic gives for RoCE payload over line rate.
ROCE_FRAMING_RATIO = (MTU / (MTU + ROCE_OVERHEAD_BYTES)) / (MTU / (MTU + IB_OVERHEAD_BYTES))

_IB_LINK = Figure(0.94, "of line rate",
                  "NCCL maintainer (NVIDIA), nccl-tests issue #290: 46-48 GB/s per NIC expected on NDR 400 Gb/s "
                  "(50 GB/s), midpoint 47/50", "published")
_ROCE_LINK = Figure(round(0.94 * ROCE_FRAMING_RATIO, 4), "of line rate",
                    "InfiniBand's 0.94 times RoCEv2's framing over InfiniBand's at MTU 4096 (82 vs 26 bytes a "
                    "packet: 0.9866); perftest 392/400 Gb/s on ConnectX-7 RoCE (NVIDIA/nccl #2409) agrees",
                    "derived")
_ADAPTIVE = Figure(1.0, "of the uplinks' rate",
                   "adaptive routing spreads packets over every uplink (no hash collisions); congestion under "
                   "many-to-one traffic is not modelled", "derived")
_ECMP_FLOWS = Figure(1.0, "flows per uplink's worth of traffic",
                     "NCCL's default NCCL_IB_QPS_PER_CONNECTION=1: one queue pair (one UDP source port, one "
                     "ECMP hash) per connection, each able to fill a link", "derived")
_IB_SWITCH = Figure(0.15, "us per switch hop",
                    "Quantum-2 ASIC port-to-port latency 'under 150 ns' (reseller page quoting NVIDIA; no NVIDIA "
                    "datasheet figure found)", "secondary")
_ETH_SWITCH = Figure(0.6, "us per switch hop",
                     "no NVIDIA figure found for Spectrum-4; shared-buffer Ethernet ASICs of its class are quoted "
                     "at several hundred ns cut-through. An assumption: its effect is under 2 us a ring step",
                     "unconfirmed")

_CLAIMS_SPX = (
    Figure(0.95, "data throughput",
           "NVIDIA press release on xAI Colossus, 2024-10-28: 'Spectrum-X ... maintained 95% data throughput' "
           "(hardware-2026.md 5.5); one site, no method: not an input", "vendor-claim"),
)
_CLAIMS_ROCE = (
    Figure(0.60, "data throughput",
           "same NVIDIA press release: standard Ethernet 'delivering just 60% data throughput' with flow "
           "collisions; not an input", "vendor-claim"),
    Figure(1.40, "AllReduce speed-up, up to",
           "Meta, 'A RoCE network for distributed AI training at scale' (2024-08-05) / Gangidi et al. SIGCOMM "
           "2024: enhanced ECMP hashing on the queue pair plus more queue pairs gave up to 40 % better AllReduce "
           "than baseline ECMP; tuned this way Meta trained Llama 3 on RoCE 'without any network bottlenecks'. "
           "Read through summaries of the blog; the paper's figures not read", "secondary"),
)


@dataclass(frozen=True)
class Technology:
    name: str
    label: str
    link_efficiency: Figure
    #: "adaptive" (per-packet spread over the uplinks) or "ecmp" (one hash per flow)
    routing: str
    flows_per_link: Figure
    switch_latency_us: Figure
    claims: tuple[Figure, ...] = ()

    @property
    def load_balance(self) -> float:
        """Share of the uplinks' rate traffic leaving a leaf gets, for one hashing stage."""
        return 1.0 if self.routing == "adaptive" else ecmp_efficiency(self.flows_per_link.value)

    def spine_efficiency(self, tiers: int) -> float:
        """Load balance of traffic that crosses the top of a ``tiers``-tier fabric (one hash per tier crossed up)."""
        return self.load_balance ** max(int(tiers) - 1, 1)

    def efficiency(self, beyond_leaf: bool, tiers: int = 2) -> float:
        """Achievable share of the line rate: link efficiency, times load balance when leaving the leaf."""
        return self.link_efficiency.value * (self.spine_efficiency(tiers) if beyond_leaf else 1.0)

    def extra_hop_latency_us(self, hops: int) -> float:
        """Latency this technology adds to a network ring step over NCCL's InfiniBand-calibrated hop."""
        return max(hops, 0) * (self.switch_latency_us.value - _IB_SWITCH.value)

    def to_json(self, tiers: int = 2, planes: int = 1) -> dict:
        hops = path_hops(tiers)
        return {
            "name": self.name, "label": self.label, "planes": planes, "routing": self.routing,
            "link_efficiency": self.link_efficiency.value,
            "load_balance_beyond_leaf": round(self.spine_efficiency(tiers), 4),
            "efficiency_within_leaf": round(self.efficiency(False, tiers), 4),
            "efficiency_beyond_leaf": round(self.efficiency(True, tiers), 4),
            "switch_hops_beyond_leaf": hops,
            "switch_latency_us": self.switch_latency_us.value,
            "extra_step_latency_us": round(self.extra_hop_latency_us(hops), 3),
            "figures": {"link_efficiency": self.link_efficiency.to_json(),
                        "load_balance": (_ADAPTIVE if self.routing == "adaptive" else Figure(
                            round(self.load_balance, 4), "of the uplinks' rate",
                            f"ECMP balls-in-bins: E[min(k, q)]/q, k ~ Poisson(q), q = {self.flows_per_link.value:g} "
                            f"({self.flows_per_link.source})", "derived")).to_json(),
                        "switch_latency_us": self.switch_latency_us.to_json()},
            "claims": [c.to_json() for c in self.claims],
        }


def ecmp_efficiency(q: float) -> float:
    """E[min(k, q)] / q for k ~ Poisson(q): the share of the uplinks' rate static hashing delivers when each
    uplink's worth of traffic travels as ``q`` equal flows (each flow 1/q of a link)."""
    if q <= 0:
        raise ValueError(f"flows per link must be positive, got {q}")
    p, short = math.exp(-q), 0.0
    for k in range(int(math.ceil(q))):  # E[min(k, q)] = q - sum over k < q of (q - k) P(k)
        if k > 0:
            p *= q / k
        short += (q - k) * p
    return (q - short) / q


def path_hops(tiers: int) -> int:
    """Switches a path crosses when it leaves its leaf: up to the top tier and down again."""
    return 2 * max(int(tiers), 1) - 1


TECHNOLOGIES = {
    "infiniband": Technology("infiniband", "InfiniBand (Quantum NDR/XDR)", _IB_LINK, "adaptive",
                             _ECMP_FLOWS, _IB_SWITCH),
    "spectrum-x": Technology("spectrum-x", "Spectrum-X Ethernet (RoCEv2, adaptive routing)", _ROCE_LINK, "adaptive",
                             _ECMP_FLOWS, _ETH_SWITCH, _CLAIMS_SPX),
    "roce": Technology("roce", "RoCEv2 Ethernet (ECMP)", _ROCE_LINK, "ecmp", _ECMP_FLOWS, _ETH_SWITCH, _CLAIMS_ROCE),
}


def technology(name: str | None) -> Technology:
    """The technology called ``name`` (None: InfiniBand); a ValueError naming the known ones otherwise."""
    key = "infiniband" if name is None else str(name).strip().lower()
    try:
        return TECHNOLOGIES[key]
    except KeyError:
        raise ValueError(f"unknown fabric technology {name!r}; known: {', '.join(TECHNOLOGY_NAMES)}") from None


def relative_to_infiniband(name: str | None, beyond_leaf: bool, tiers: int = 2) -> float:
    """The technology's achievable share of line rate over InfiniBand's (1.0 for InfiniBand): what the
    training engine scales its InfiniBand-calibrated bus-bandwidth efficiency by."""
    tech = technology(name)
    return tech.efficiency(beyond_leaf, tiers) / TECHNOLOGIES["infiniband"].efficiency(beyond_leaf, tiers)
