"""Analyses of the bundled samples, shared by the exporter tests (an analysis is immutable)."""
from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.samples import DGX_B200_SU, GB200_NVL72_SU


@pytest.fixture(scope="session")
def dgx(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


@pytest.fixture(scope="session")
def nvl72(catalog):
    return analyze(load(GB200_NVL72_SU, catalog), catalog)


@pytest.fixture(scope="session")
def spectrum_x(catalog):
    """One scalable unit of DGX B300 on a twin-plane Spectrum-X fabric (64 systems, 512 GPUs), as
    ``new superpod --system dgx-b300 --fabric spectrum-x --sus 1`` builds it."""
    from designer.generate.build import generate
    from designer.generate.spec import SuperpodSpec

    project = generate(SuperpodSpec(system="dgx-b300", sus=1, fabric="spectrum-x"), catalog).project
    return analyze(project, catalog)
