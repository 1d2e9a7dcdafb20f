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
