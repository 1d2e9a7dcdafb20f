"""Benchmark: the SuperPOD generator on 100,000-GPU targets (budgets: DGX B200, B300 and B300 on Spectrum-X
<= 1 s, NVL72 <= 0.5 s).

    python -m bench generate

``generate_100k_s`` times ``generate`` for 100,000 DGX B200 GPUs with all four
networks (Q3400 compute fabric: three tiers of QM9700 stop at 65,536 endpoints):
laying out the SU segments and the network band, placing every rack and CDU
through the domain's add command (each object checked against the hall, the
others and its rack's U space, as a drag would be) and the power and cooling
engines that size the hall. ``generate_analyze_100k_s`` adds the whole analysis
(every engine, the fabric's port-to-port wiring included), the check a user runs
next.
"""
from __future__ import annotations

import json

from catalog import default_catalog

from .timing import best_of


def bench() -> dict:
    from designer.analysis import analyze
    from designer.generate import SuperpodSpec, generate

    catalog = default_catalog()
    out = {}
    for key, spec in (("generate_100k_s", SuperpodSpec(system="dgx-b200", gpus=100_000)),
                      ("generate_100k_nvl72_s", SuperpodSpec(system="gb200-nvl72", gpus=100_000, switch="q3400")),
                      # the current generation on its own RA's switch (Q3400 by default): same budget
                      ("generate_100k_b300_s", SuperpodSpec(system="dgx-b300", gpus=100_000)),
                      ("generate_100k_gb300_s", SuperpodSpec(system="gb300-nvl72", gpus=100_000)),
                      # the DGX B300 Spectrum-X RA: twin planes of SN5610, a super-spine tier past 8,192 GPUs
                      ("generate_100k_ethernet_s", SuperpodSpec(system="dgx-b300", gpus=100_000,
                                                                fabric="spectrum-x"))):
        seconds, g = best_of(lambda spec=spec: generate(spec, catalog))
        both, analysis = best_of(lambda spec=spec: analyze(generate(spec, catalog).project, catalog), runs=2)
        out[key] = round(seconds, 3)
        out[key.replace("generate_", "generate_analyze_")] = round(both, 3)
        out[key.replace("_s", "_racks")] = len(g.project.racks)
        out[key.replace("_s", "_gpus")] = g.gpus
        out[key.replace("_s", "_errors")] = sum(f.severity == "error" for f in analysis.findings)
    return out


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
