"""Typed, immutable catalog records.

Engines read plain attributes (``device.power_max_w``) so that they can build
numpy arrays quickly; where each number came from lives beside it in
``device.figures`` keyed by the same field name (``"power_max_w"``,
``"psu.count"``, ``"ports[0].count"``), so the GUI and reports can show the
source and flag unconfirmed figures.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

#: Evidence tags, as defined in the hardware reference.
EVIDENCE = {
    "P": "vendor primary document, read directly",
    "P*": "vendor primary document, read through a verbatim third-party copy",
    "S": "secondary source (OEM, press, third-party write-up)",
    "D": "derived from tagged inputs",
    "U": "unconfirmed: not found in a vendor source",
}

KINDS = (
    "gpu",
    "server",
    "rack_system",
    "tray",
    "power_shelf",
    "switch",
    "appliance",
    "pdu",
    "cdu",
    "crah",
    "rack",
    "transceiver",
    "cable",
    # quote-only lines: counted by the bill of materials from the design, never placed
    "software",
    "service",
    "accessory",
)

#: Kinds that are lines of a quote rather than hardware in the design.
QUOTE_KINDS = frozenset({"software", "service", "accessory"})

#: Kinds that sit in a rack's U space (or at 0 U on its side).
MOUNTABLE_KINDS = frozenset({"server", "rack_system", "tray", "power_shelf", "switch", "appliance", "pdu", "cdu"})
#: Kinds that stand on the floor on their own footprint.
FLOOR_KINDS = frozenset({"cdu", "pdu", "crah"})

EMPTY: Mapping = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Source:
    id: str
    title: str
    url: str = ""
    how: str = ""


@dataclass(frozen=True, slots=True)
class Figure:
    """Provenance of one number: where it came from and how sure we are."""

    value: object
    source: str
    evidence: str
    note: str = ""

    @property
    def unconfirmed(self) -> bool:
        return self.evidence == "U"


@dataclass(frozen=True, slots=True)
class Psu:
    count: int
    rating_w: float
    #: How many supplies may fail with the device still at full power (5+1 -> 1).
    redundant: int
    input: str = ""
    #: the supply's inlet coupler (C14, C20) where the catalog states it
    inlet: str = ""

    @property
    def coupler(self) -> str:
        """The inlet: as stated, else derived from the rating: above 10 A at 200 V a supply needs a
        C20 (16 A) inlet, else a C14 (10 A) does (IEC 60320 ratings)."""
        if self.inlet:
            return self.inlet
        return "C20" if self.rating_w / 200.0 > 10.0 + 1e-9 else "C14"

    @property
    def scheme(self) -> str:
        n = self.count - self.redundant
        if self.redundant == 0:
            return "N"
        if self.redundant == n:
            return f"{n}+{n} (N+N)"
        return f"{n}+{self.redundant}"

    @property
    def installed_w(self) -> float:
        return self.count * self.rating_w

    @property
    def usable_w(self) -> float:
        return (self.count - self.redundant) * self.rating_w


@dataclass(frozen=True, slots=True)
class PortGroup:
    """A set of identical ports, e.g. 32 OSFP cages carrying 64 NDR ports."""

    role: str  # compute, storage, inband, oob, bmc, nvlink, uplink
    protocol: str  # infiniband, ethernet, nvlink
    speed_gbps: float
    count: int  # logical ports
    cage: str = ""  # OSFP, QSFP112, QSFP28, RJ45 ...
    ports_per_cage: int = 1
    #: the cage's heat-sink style where it matters for what plugs in: "finned" (a switch's riding-heatsink-free
    #: cage takes finned-top modules) or "flat" (a NIC's cage under a riding heatsink takes flat-top modules)
    top: str = ""
    #: the most ports one port splits into, each at ``speed_gbps / n`` (an Ethernet switch's 800G cage as
    #: 2 x 400G or 4 x 200G by twin-port modules and splitter cables); 1: it does not split
    breakout: int = 1

    @property
    def cages(self) -> int:
        return -(-self.count // self.ports_per_cage)


@dataclass(frozen=True, slots=True)
class Price:
    amount: float
    currency: str
    #: when the figure was published or estimated, ``YYYY-MM-DD`` or ``YYYY-MM``; "" when undated
    date: str = ""


@dataclass(frozen=True, slots=True)
class Component:
    id: str
    count: int


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """Per-GPU figures (kind ``gpu``). Throughputs are dense, in TFLOP/s."""

    bf16_tflops: float
    fp8_tflops: float | None
    fp4_tflops: float | None
    hbm_gb: float
    hbm_tbps: float
    nvlink_gbps: float  # GB/s per GPU, one direction x2 as NVIDIA quotes it
    tdp_w: float
    generation: str


@dataclass(frozen=True, slots=True)
class DeviceType:
    id: str
    kind: str
    name: str
    manufacturer: str
    category: str
    part_number: str = ""
    description: str = ""
    # space
    u_height: float = 0.0
    width_mm: float | None = None
    depth_mm: float | None = None
    height_mm: float | None = None
    weight_kg: float | None = None
    # power and heat
    power_typical_w: float | None = None
    power_max_w: float | None = None
    psu: Psu | None = None
    liquid_fraction: float = 0.0
    airflow_cfm: float | None = None
    #: peak over typical draw during synchronised training steps (milliseconds); None: the maximum bounds it
    peak_factor: float | None = None
    #: warmest inlet air the device is rated for, °C
    inlet_max_c: float | None = None
    #: warmest coolant the device's cold plates accept, °C
    coolant_inlet_max_c: float | None = None
    airflow: str = ""
    # compute
    gpu: str | None = None
    gpu_count: int = 0
    nvlink_domain: int = 0
    gpu_spec: GpuSpec | None = None
    #: host (CPU) memory of the whole system, GB, and its bandwidth, GB/s: where offloaded optimizer state and
    #: activations go, and what a CPU optimizer step streams through
    host_memory_gb: float | None = None
    host_memory_gbs: float | None = None
    #: one GPU's link to host memory, GB/s each way (PCIe x16, or its share of Grace's NVLink-C2C)
    host_link_gbs: float | None = None
    #: what that link is: "pcie" (the GPU's one PCIe link, which also carries its NIC's GPUDirect traffic) or
    #: "c2c" (NVLink-C2C to a Grace or Vera CPU, apart from the NICs)
    host_link: str = ""
    # network
    ports: tuple[PortGroup, ...] = ()
    # composition (rack-scale systems)
    components: tuple[Component, ...] = ()
    fills_rack: bool = False
    # rack-only
    rack_units: int = 0
    max_load_kg: float | None = None
    # power distribution
    voltage_v: float | None = None
    current_a: float | None = None
    phases: int = 0
    outlets: int = 0
    outlets_c13: int = 0
    outlets_c19: int = 0
    # cooling
    cooling_capacity_kw: float | None = None
    #: a storage appliance's usable capacity (TB) and sequential read/write throughput (GB/s), as its vendor states
    usable_tb: float | None = None
    read_gbs: float | None = None
    write_gbs: float | None = None
    #: fewest of it that work together (a scale-out storage cluster's smallest size); 0: no minimum
    min_count: int = 0
    flow_lpm: float | None = None
    #: a CDU's approach: its secondary supply sits this far above the facility water, K
    approach_k: float | None = None
    # optics and cables
    form_factor: str = ""
    links: int = 0  # links carried (twin-port = 2)
    #: the speed of each link a transceiver or cable carries, Gb/s (400 NDR / 400GbE, 800 XDR)
    speed_gbps: float | None = None
    #: a transceiver's top: "finned" for a switch cage, "flat" for a NIC cage (see PortGroup.top)
    top: str = ""
    reach_m: float | None = None
    media: str = ""
    #: a transceiver's optical connector per port, or a cable's ends: "MPO-12/APC", "duplex LC", "OSFP", or
    #: "OSFP to 2 x OSFP" for a splitter (a twin-port end and two single-port ends); a module and a fibre
    #: join only when their connectors match
    connector: str = ""
    #: the protocols a transceiver is sold for, comma-separated: "infiniband", "ethernet" or both (a twin-port
    #: OSFP "includes both InfiniBand and Ethernet protocols", the one its switch speaks); empty: not stated
    protocols: str = ""
    lengths_m: tuple[float, ...] = ()
    #: a cable's ordering part number by length ("30" -> "980-9I570-00N030"), where the vendor's table was read
    length_part_numbers: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    # commerce
    price: Price | None = None
    #: for quote-only kinds: what one unit is counted per: "gpu", "node" (a unit with compute-fabric
    #: ports), "node:ID[,ID...]" (per node, when the design holds one of the IDs), "psu:C19/C20" (per power supply whose
    #: input names the coupler), "device:ID[,ID...]" (per such device), "liquid-rack" (per rack with
    #: liquid-cooled devices, when the design has a CDU to serve it); see designer/quote/lines.py
    basis: str = ""
    #: the price is per year of the quote's term (subscriptions, support)
    per_year: bool = False
    #: ids this entry had before (``"replaces": ["old-id"]``): a design that names one opens with this
    #: entry, and is saved with this id
    replaces: tuple[str, ...] = ()
    #: the vendor calls the figures preliminary ("subject to change"): why, shown wherever the entry is
    preliminary: str = ""
    #: fed from the rack's DC busbar by power shelves, with no supplies of its own (DGX B300 DC, MGX racks)
    busbar: bool = False
    #: systems per scalable unit in the vendor's SuperPOD reference architecture (servers, or racks of a
    #: rack-scale system); 0 when no SU is published
    su_systems: int = 0
    #: systems per rack in the reference architecture's rack layout (servers); 0 when not stated
    systems_per_rack: int = 0
    #: systems per scalable unit in the vendor's Spectrum-X (Ethernet) reference architecture; 0: the system
    #: has no published Ethernet compute fabric
    ethernet_su_systems: int = 0
    #: planes of that Ethernet fabric (2: each GPU's port split in two halves, one per independent plane)
    ethernet_planes: int = 0
    #: the compute fabric the system's SuperPOD RA builds by default: "infiniband" or "spectrum-x"
    default_fabric: str = ""
    # provenance
    figures: Mapping[str, Figure] = field(default_factory=lambda: EMPTY, compare=False, repr=False)
    origin: str = field(default="", compare=False)

    def figure(self, name: str) -> Figure | None:
        return self.figures.get(name)

    @property
    def unconfirmed_fields(self) -> tuple[str, ...]:
        return tuple(k for k, f in self.figures.items() if f.unconfirmed)

    @property
    def mountable(self) -> bool:
        return self.kind in MOUNTABLE_KINDS

    @property
    def is_rack(self) -> bool:
        return self.kind == "rack"

    @property
    def gpus(self) -> int:
        return self.gpu_count

    @property
    def is_storage(self) -> bool:
        """A storage appliance: it states the throughput it serves."""
        return self.write_gbs is not None and self.read_gbs is not None

    def ports_of(self, role: str) -> tuple[PortGroup, ...]:
        return tuple(p for p in self.ports if p.role == role)
