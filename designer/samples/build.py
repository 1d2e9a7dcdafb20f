"""Rebuild the bundled sample designs with the SuperPOD generator: ``python -m designer.samples.build``.

- DGX B200, one scalable unit (RA-11334-001): 31 DGX B200 (one of the SU's 32
  gives its leaf ports to the compute UFM, as in Table 4), two per rack, with
  the SU's leaves, storage and out-of-band switches in the middle of its two
  rows, and spines, in-band and management racks in the band beside them.
- GB200 NVL72, one scalable unit (RA-11338-001): 8 NVL72 racks in one row, an
  in-row CDU at each end (N+1) and the SU's two network racks in the middle, the
  SU's QM9700 compute fabric, SN5600 storage leaves and the management racks.
"""
from __future__ import annotations

from catalog import default_catalog
from designer.fileformat import save
from designer.generate import SuperpodSpec, generate
from designer.model import Project

from . import DGX_B200_SU, GB200_NVL72_SU


def dgx_b200_su() -> Project:
    return generate(SuperpodSpec(system="dgx-b200", sus=1, name="DGX B200 SuperPOD - 1 scalable unit"),
                    default_catalog()).project


def gb200_nvl72_su() -> Project:
    return generate(SuperpodSpec(system="gb200-nvl72", sus=1, name="GB200 NVL72 SuperPOD - 1 scalable unit"),
                    default_catalog()).project


def main() -> None:
    for project, path in ((dgx_b200_su(), DGX_B200_SU), (gb200_nvl72_su(), GB200_NVL72_SU)):
        save(project, path, catalog=default_catalog())
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
