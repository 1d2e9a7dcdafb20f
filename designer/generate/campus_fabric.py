"""How a campus's compute fabric reaches GPUs that three tiers at full bandwidth do not: the ratios it gives up.

Why this order: a three-tier fat tree of radix k holds at most k pods (one port of every core
apiece), so past k * (k/2 leaves' worth of endpoints) the only room left is in the ratios.
First the spines above the pods, at the ratios a published campus runs (Meta's, below): that
keeps every pod at full bisection, where a job's tensor- and pipeline-parallel traffic stays.
When even the larger ratio is not enough (a million GB300 ports over radix-128 Spectrum-X
planes: 128 pods of 28 rail sets hold 917,504 at 7:1), the leaves give up the fewest uplinks
that make the pods hold the GPUs. No reference architecture publishes a fabric this large;
the note says so, and says what the leaves keep, so the user can ask for another switch.
"""
from __future__ import annotations

import math
from dataclasses import replace

from catalog import Catalog

from ..fabric.geometry import compute_port_gbps
from ..fabric.sizing import leaf_split, limits
from .networks import UFM_PER_FABRIC, as_run, compute_fabric
from .spec import GenerateError, SuperpodSpec, SystemProfile, ufm_for

#: Spine down:up ratios above the pod a campus takes when three tiers at 1:1 do not reach its GPUs, the smallest
#: first: Meta's across buildings (Llama 4 cluster, 1:2.8, hardware-2026.md §5 N20), then its 24K cluster's
#: aggregation tier (1:7, N18).
CAMPUS_CORE_RATIOS = (2.8, 7.0)


def campus_core(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog, nodes: int,
                notes: list[str]) -> SuperpodSpec:
    """``spec`` with its core oversubscription decided: as asked, else 1:1, else the smallest campus ratio whose three
    tiers reach the GPUs (said in a note), else the largest with the leaves oversubscribed by the least that does
    (:func:`leaf_fallback`); when nothing does, the 1:1 fabric's own refusal stands."""
    if spec.core_oversubscription is not None:
        return spec
    ufm = ufm_for(catalog, spec.switch)
    reserved = sum(g.count for g in catalog.get(ufm).ports if g.role == "fabric") * UFM_PER_FABRIC if ufm else 0
    one = replace(spec, core_oversubscription=1.0)
    ports = nodes * (spec.rails or profile.rails)
    try:
        compute_fabric(profile, one, catalog, nodes, reserved)
        return one
    except GenerateError as first:
        for ratio in CAMPUS_CORE_RATIOS:
            candidate = replace(spec, core_oversubscription=ratio)
            try:
                compute_fabric(profile, candidate, catalog, nodes, reserved)
            except GenerateError:
                continue
            notes.append(f"the spines run {ratio:g}:1 above the pods: three tiers of {spec.switch} at 1:1 do not "
                         f"reach {ports:,} fabric ports, and {ratio:g}:1 is the ratio "
                         f"Meta runs {'across buildings' if ratio < 7 else 'at its aggregation tier'}; ask "
                         f"--core-oversubscription for another")
            return candidate
        leaves = leaf_fallback(spec, profile, catalog, nodes, reserved) if spec.oversubscription == 1 else None
        if leaves is not None:
            down, up = leaves
            core = CAMPUS_CORE_RATIOS[-1]
            notes.append(f"the leaves run {down}:{up} ({down / up:.2f}:1) and the spines {core:g}:1 above the pods: "
                         f"three tiers of {spec.switch} hold no more than "
                         f"{_reach(spec, profile, catalog, core, 1.0):,} fabric ports at full leaf bandwidth, fewer "
                         f"than these {ports:,}, and no reference architecture publishes a fabric this large; ask "
                         "--oversubscription and --core-oversubscription for other ratios, or another --switch")
            return replace(spec, core_oversubscription=core, oversubscription=down / up)
        leaves = f", nor with the leaves up to {MAX_LEAF_FALLBACK:g}:1 as well" if spec.oversubscription == 1 else ""
        raise GenerateError(f"{first}; nor with the spines at {' or '.join(f'{r:g}:1' for r in CAMPUS_CORE_RATIOS)} "
                            f"above the pods{leaves}") from None


#: Most a leaf is oversubscribed to reach a campus's GPUs (down:up): past 2:1 the pods lose half their bisection,
#: and another switch or a second fabric is the better design.
MAX_LEAF_FALLBACK = 2.0


#: Most scalable units a leaf block may span before a larger split is preferred: a block (the nodes one set of rail
#: leaves serves) is cabled within one hall, so it starts where an SU starts, and 70 down ports over 64-node SUs
#: would start one only every 35 SUs, more than a 20 MW hall of DGX B300 holds (20).
LEAF_BLOCK_MAX_SUS = 10


def leaf_fallback(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog, nodes: int,
                  reserved: int) -> tuple[int, int] | None:
    """The leaf split (down, up) with the fewest down ports beyond half that, with the spines at the largest campus
    ratio, holds the GPUs in three tiers and starts a block within :data:`LEAF_BLOCK_MAX_SUS` SUs; None past
    :data:`MAX_LEAF_FALLBACK`."""
    radix = _radix(spec, profile, catalog)
    endpoints = nodes * (spec.rails or profile.rails) + reserved
    core = CAMPUS_CORE_RATIOS[-1]
    half = leaf_split(radix, 1.0)[0]
    su = profile.nodes_per_su
    for down in range(half + 1, radix):
        up = radix - down
        if down / up > MAX_LEAF_FALLBACK:
            return None
        if limits(radix, spec.rails or profile.rails, down, core)[3] < endpoints:
            continue
        if math.lcm(down, su) // su > LEAF_BLOCK_MAX_SUS:
            continue
        try:  # the closed form agrees with the sizing's own checks (whole rail sets, reserved ports)
            compute_fabric(profile, replace(spec, core_oversubscription=core, oversubscription=down / up),
                           catalog, nodes, reserved)
        except GenerateError:
            continue
        return down, up
    return None


def _radix(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog) -> int:
    """The compute switch's fabric ports as the nodes' ports run on them (an Ethernet plane's split)."""
    planes = spec.planes or 1
    gbps = compute_port_gbps(catalog, profile.id) / planes if profile.fabric != "infiniband" else 0.0
    return as_run(catalog.get(spec.switch), gbps).count


def _reach(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog, core: float, leaf: float) -> int:
    radix = _radix(spec, profile, catalog)
    return limits(radix, spec.rails or profile.rails, leaf_split(radix, leaf)[0], core)[3]
