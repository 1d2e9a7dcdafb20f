"""``podplanner new superpod``: generate a SuperPOD design from a target and write it.

Every bad value is one line, exit 2; a target that does not fit its hall names the
limit, the shortfall and the nearest size that fits (exit 2). A design that is
written but fails one of its own checks (runs beyond fibre reach in a very large
hall) prints its errors and exits 1, as ``validate`` does.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from catalog import Catalog

from ..generate.spec import NETWORKS, SYSTEMS, GenerateError, SuperpodSpec, parse_hall
from .flags import output_problem
from .flags import path as checked_path
from .json_output import print_json

NAME = "new"
ERRORS = (GenerateError,)
PROG = "podplanner new superpod"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("new", help="generate a design: new superpod --system ID (--gpus N | --sus N) -o FILE")
    sub = p.add_subparsers(dest="new_command", parser_class=type(p), required=True)
    s = sub.add_parser("superpod", help="a complete DGX SuperPOD hall from a GPU or scalable-unit target")
    s.add_argument("--system", required=True, metavar="ID", help=f"one of {', '.join(SYSTEMS)}")
    size = s.add_mutually_exclusive_group(required=True)
    size.add_argument("--gpus", metavar="N", help="GPUs wanted (rounded to whole systems and scalable units)")
    size.add_argument("--sus", metavar="N",
                      help="scalable units of the system's reference architecture (32 DGX B200/H100/H200, "
                           "72 DGX B300 or Rubin NVL8, 8 NVL72 racks; on spectrum-x 64 DGX B300, 1 GB300 "
                           "NVL72 rack)")
    s.add_argument("--fabric", metavar="TECH",
                   help="compute fabric: infiniband, spectrum-x or roce (roce: one 400 GbE plane on sn5600 for "
                        "dgx-h100, dgx-h200, dgx-b200) (default: the system's SuperPOD RA: spectrum-x for "
                        "dgx-b300-dc, infiniband otherwise)")
    s.add_argument("--planes", metavar="N", help="compute-fabric planes, 1 or 2 (default: 2 for spectrum-x, "
                                                 "each GPU port split over two planes; 1 for infiniband)")
    s.add_argument("--switch", metavar="ID",
                   help="compute-fabric switch (default: the system's RA switch: qm9700 for 400G NDR systems, "
                        "q3400 for 800G XDR ones, sn5610 for spectrum-x; sn5600 for roce)")
    s.add_argument("--rack-kw", metavar="KW", help="rack power limit; sets DGX per rack (default: 40 kW; "
                                                   "the system's own figure for rack-scale systems)")
    s.add_argument("--nodes-per-rack", metavar="N", help="DGX per rack (default: as many as the rack power allows)")
    s.add_argument("--rails", metavar="R", help="compute-fabric rails per node (default: the system's NIC count)")
    s.add_argument("--oversubscription", metavar="X", default="1", help="leaf down:up ratio (default: 1, non-blocking)")
    s.add_argument("--core-oversubscription", metavar="X",
                   help="spine down:up ratio above the pod of a three-tier compute fabric (Meta's 24K RoCE "
                        "cluster: 7); fewer spine uplinks and cores (default: 1; where three tiers at 1 do not reach "
                        "the GPUs, Meta's 2.8 across buildings, then 7)")
    s.add_argument("--tiers", default="auto", choices=("auto", "2", "3"), help="compute-fabric tiers (default: auto)")
    s.add_argument("--networks", metavar="LIST", default=",".join(NETWORKS),
                   help=f"networks to build, comma-separated (default: {','.join(NETWORKS)})")
    s.add_argument("--hall", metavar="WxD", default="fit", help="hall width x depth in metres, or fit (default)")
    hall_power = s.add_mutually_exclusive_group()
    hall_power.add_argument("--hall-power-kw", metavar="KW",
                            help="IT power a hall supplies, its UPS sized to it; a design that needs more is built "
                                 "as a site of several such halls (default: one hall fitted to the design up to 40 "
                                 "MW of liquid-cooled or 20 MW of air-cooled systems, halls of that size beyond)")
    hall_power.add_argument("--hall-mw", metavar="MW", help="a hall's IT power in MW (--hall-power-kw in MW)")
    s.add_argument("--halls-per-building", metavar="K",
                   help="data halls to a building on a site of several halls, each building with a network room "
                        "for the fabric's upper tier (default: 4)")
    s.add_argument("--floor-kg-m2", metavar="N", help="the hall floor's rating, kg/m² (default: 2,500 for rack-scale "
                                                      "and busbar systems, 1,500 otherwise)")
    s.add_argument("--facility-water", metavar="CLASS",
                   help="the hall's facility water: an ASHRAE class W32, W40 or W45 (warmest supply, °C), or none: "
                        "no facility water, where a liquid-cooled rack is an error (default: W32 where there is "
                        "liquid heat)")
    s.add_argument("--altitude-m", metavar="M", help="the site's altitude above sea level, m (default 0): above "
                                                     "1,525 m generators, above 1,000 m the UPS deliver less")
    s.add_argument("--ambient-c", metavar="C", help="the site's design outdoor ambient, °C: above 40 °C generators "
                                                    "deliver less (default: not stated, not derated)")
    s.add_argument("--hall-cooling-kw", metavar="KW", help="heat the hall's air system removes (default: fitted)")
    s.add_argument("--hall-liquid-kw", metavar="KW", help="heat the facility water loop takes (default: fitted)")
    s.add_argument("--phases", metavar="SUS", nargs="?", const="1",
                   help="build in phases of SUS scalable units (default 1); writes one file per phase beside FILE")
    s.add_argument("--gpu-power-w", metavar="W", help="cap every GPU's power at W watts (stored in the design's "
                                                      "settings; default: no cap, the GPUs run at their TDP)")
    s.add_argument("--storage-tier", metavar="TIER",
                   help="storage performance tier the appliances are sized to: good, better or best (8-GPU DGX), "
                        "standard or enhanced (NVL72 racks), as the SuperPOD RAs name them (default: better / "
                        "standard)")
    s.add_argument("--storage-pb", metavar="PB", help="usable storage capacity the appliances must hold, in PB "
                                                      "(default: what the tier's GB/s takes)")
    s.add_argument("--storage-appliance", metavar="ID", help="storage appliance: wekapod-nitro (default) or "
                                                             "ddn-ai400x2")
    s.add_argument("--name", help="design name (default: from the system and size)")
    s.add_argument("-o", "--output", required=True, metavar="FILE", type=checked_path, help="project file to write")
    s.add_argument("--json", action="store_true", help="print the key numbers as one JSON document")
    nb = sub.add_parser("from-netbox", help="a design from a folder written by podplanner export --netbox, or from a "
                                            "site of a running NetBox (halls, racks, devices and their places), "
                                            "checked as a project file is")
    nb.add_argument("folder", metavar="DIR", type=checked_path, nargs="?")
    nb.add_argument("--url", metavar="URL", help="a running NetBox to read the site from, instead of a folder")
    nb.add_argument("--token", metavar="T", help="its API token (or the NETBOX_TOKEN environment variable)")
    nb.add_argument("--site", metavar="SLUG", help="the site to read, by its slug")
    nb.add_argument("-o", "--output", required=True, metavar="FILE", type=checked_path, help="project file to write")


def _int(text: str | None, flag: str) -> int | None:
    if text is None:
        return None
    t = text.strip().replace("_", "").replace(",", "")
    if len(t) > 30:
        raise GenerateError(f"{PROG}: {flag}: {len(t)} digits is not a size anyone can build")
    try:
        return int(t)
    except ValueError:
        raise GenerateError(f"{PROG}: {flag}: a whole number, got {text!r}") from None


def _float(text: str | None, flag: str) -> float | None:
    if text is None:
        return None
    if len(text) > 40:
        raise GenerateError(f"{PROG}: {flag}: not a number a hall can have ({len(text)} characters)")
    try:
        return float(text)
    except ValueError:
        raise GenerateError(f"{PROG}: {flag}: a number, got {text!r}") from None


def _positive(text: str | None, flag: str, hi: float) -> float | None:
    value = _float(text, flag)
    if value is not None and not (0 < value <= hi):  # NaN fails too
        raise GenerateError(f"{PROG}: {flag}: must be above 0 and at most {hi:,.0f}, got {text.strip()}")
    return value


def _hall_kw(args) -> float | None:
    mw = _positive(getattr(args, "hall_mw", None), "--hall-mw", 1_000_000.0)
    return mw * 1000.0 if mw is not None else _float(args.hall_power_kw, "--hall-power-kw")


def spec_from_args(args) -> SuperpodSpec:
    return SuperpodSpec(
        system=args.system, gpus=_int(args.gpus, "--gpus"), sus=_int(args.sus, "--sus"), switch=args.switch,
        rack_kw=_float(args.rack_kw, "--rack-kw"), nodes_per_rack=_int(args.nodes_per_rack, "--nodes-per-rack"),
        rails=_int(args.rails, "--rails"), oversubscription=_float(args.oversubscription, "--oversubscription"),
        tiers=args.tiers, networks=tuple(args.networks.split(",")), hall=parse_hall(args.hall),
        hall_power_kw=_hall_kw(args), halls_per_building=_int(args.halls_per_building, "--halls-per-building"),
        floor_kg_m2=_positive(args.floor_kg_m2, "--floor-kg-m2", 100_000.0),
        facility_water=args.facility_water,
        altitude_m=0.0 if args.altitude_m is None else _float(args.altitude_m, "--altitude-m"),
        ambient_c=_float(args.ambient_c, "--ambient-c"),
        hall_cooling_kw=_float(args.hall_cooling_kw, "--hall-cooling-kw"),
        hall_liquid_kw=_float(args.hall_liquid_kw, "--hall-liquid-kw"),
        phase_sus=_int(args.phases, "--phases"), name=args.name or "",
        gpu_power_w=_float(args.gpu_power_w, "--gpu-power-w"), fabric=args.fabric,
        planes=_int(args.planes, "--planes"),
        core_oversubscription=_float(args.core_oversubscription, "--core-oversubscription"),
        storage_tier=args.storage_tier, storage_pb=_float(args.storage_pb, "--storage-pb"),
        storage_appliance=args.storage_appliance)


def phase_path(path: Path, phase: int) -> Path:
    """``hall.podplan.json`` -> ``hall.phase-2.podplan.json`` (and ``hall.json`` -> ``hall.phase-2.json``)."""
    name = path.name
    for ext in (".podplan.json", ".json"):
        if name.endswith(ext):
            return path.with_name(f"{name[: -len(ext)]}.phase-{phase}{ext}")
    return path.with_name(f"{name}.phase-{phase}")


def _write(project, path: Path, catalog: Catalog) -> None:
    try:
        from ..fileformat import save  # here, not at the top: every command builds this one's parser

        save(project, path, catalog=catalog)
    except OSError as exc:
        raise GenerateError(f"{PROG}: {path}: cannot be written ({exc.strerror or exc})") from None


def _writable_target(path: Path, what: str) -> None:
    """Refuse, before any work, a target that is a folder, a device, pipe or read-only file, or in a folder that is
    not there."""
    try:
        checked_path(str(path))  # a phase file's name is longer than -o's
    except argparse.ArgumentTypeError as exc:
        raise GenerateError(f"{PROG}: {what}: {exc}") from None
    problem = output_problem(path)
    if problem is not None:
        raise GenerateError(f"{PROG}: {what} {path}: {problem}")


def _prefixed(exc: GenerateError) -> GenerateError:
    text = str(exc)
    return GenerateError(text if text.startswith(PROG) else f"{PROG}: {text}", fit=exc.fit)


def run(args, catalog: Catalog) -> int:
    if args.new_command == "from-netbox":
        return _from_netbox(args, catalog)
    # The generator and the engines load here, when asked for: every command builds this module's parser,
    # and `podplanner analyze` should not pay for the generator.
    from ..analysis import analyze
    from ..generate.build import generate, nearest_fit
    from ..generate.summary import key_lines, key_numbers

    try:
        spec = spec_from_args(args)
    except GenerateError as exc:
        raise _prefixed(exc) from None
    out = Path(args.output)
    _writable_target(out, "-o")
    try:
        generated = generate(spec, catalog)
    except GenerateError as exc:
        if not exc.fit:
            raise _prefixed(exc) from None
        near = nearest_fit(spec, catalog)
        hint = "; not even one scalable unit fits"
        if near is not None:
            hint = f"; nearest that fits: --sus {near.sus} ({near.gpus:,} GPUs)"
            if spec.phase_sus is not None and spec.phase_sus > near.sus:
                hint += f" with --phases {near.sus} or fewer"
        raise GenerateError(f"{PROG}: {exc}{hint}") from None
    for k in range(1, len(generated.phases) + 1):
        _writable_target(phase_path(out, k), "phase file")
    analysis = analyze(generated.project, catalog)
    numbers = key_numbers(generated, analysis, catalog)
    _write(generated.project, out, catalog)
    phase_files = []
    for k, phase in enumerate(generated.phases, 1):
        path = phase_path(out, k)
        _write(phase, path, catalog)
        phase_files.append(str(path))
    errors = numbers["errors"]
    if args.json:
        print_json({**numbers, "file": str(out), "phase_files": phase_files})
        return 1 if errors else 0
    print(generated.project.name)
    for line in key_lines(numbers):
        print(f"  {line}")
    for note in generated.notes:
        print(f"  note: {note}")
    if errors > len(numbers["error_messages"]):
        print(f"  ... {errors - len(numbers['error_messages'])} more errors: podplanner validate {out}")
    print(f"wrote {out}" + (f" and {len(phase_files)} phase files ({', '.join(Path(p).name for p in phase_files)})"
                            if phase_files else ""))
    if errors:
        # Written, as validate would find it: the design is a start, and the exit status says it is not clean.
        print(f"podplanner: error: new superpod: the design has {errors} error finding{'s' if errors != 1 else ''} "
              "(above); it was written, but does not pass its checks", file=sys.stderr)
        return 1
    return 0


def _from_netbox(args, catalog: Catalog) -> int:
    """``podplanner new from-netbox DIR -o FILE``: the round trip's way back, as a project file."""
    from ..netbox_import import NetBoxImportError, read_netbox

    prog = "podplanner new from-netbox"
    out = Path(args.output)
    try:
        _writable_target(out, "-o")
    except GenerateError as exc:
        raise GenerateError(str(exc).replace(PROG, prog, 1)) from None
    if (args.folder is None) == (args.url is None):
        raise GenerateError(f"{prog}: give a folder (DIR) or a NetBox (--url URL --token T --site SLUG), one of them")
    try:
        if args.url is not None:
            from ..netbox_site import NetBoxSiteError, read_site

            token = args.token if args.token is not None else os.environ.get("NETBOX_TOKEN", "")
            if not token.strip() or not (args.site or "").strip():
                raise GenerateError(f"{prog}: --url needs --token T (or NETBOX_TOKEN) and --site SLUG")
            try:
                project = read_site(args.url, token, args.site.strip(), catalog)
            except NetBoxSiteError as exc:
                raise GenerateError(f"{prog}: --url: {exc}") from None
        else:
            if args.token is not None or args.site is not None:
                raise GenerateError(f"{prog}: --token and --site go with --url")
            project = read_netbox(args.folder, catalog)
    except NetBoxImportError as exc:
        raise GenerateError(f"{prog}: {exc}") from None
    # NetBox holds no design settings: the compute fabric's kind and planes follow from its switches
    from ..fabric.geometry import placed_technology

    kind = placed_technology(project, catalog)
    if kind is not None and kind != ("infiniband", 1):
        project = project.with_settings(project.settings.updated(fabric_technology=kind[0], fabric_planes=kind[1]))
    from ..fileformat import save

    try:
        save(project, out, catalog=catalog)
    except OSError as exc:
        raise GenerateError(f"{prog}: {out}: cannot be written ({exc.strerror or exc})") from None
    devices = sum(len(r.devices) for r in project.racks)
    print(f"wrote {out}: {len(project.halls)} hall{'s' if len(project.halls) != 1 else ''}, "
          f"{len(project.racks):,} racks, {devices:,} devices, {len(project.floor_devices):,} floor units")
    return 0
