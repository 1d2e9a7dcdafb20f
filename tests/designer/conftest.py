"""Generated designs several test modules of the domain read (built once per session)."""
from __future__ import annotations

import pytest

from designer.generate import SuperpodSpec, generate


@pytest.fixture(scope="session")
def b200_4su(catalog):
    """The RA's 4-SU DGX B200 SuperPOD as the generator builds it, with its storage appliances."""
    return generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project


@pytest.fixture(scope="session")
def gb200_4su(catalog):
    """Four GB200 NVL72 scalable units (32 racks) on their Ethernet storage fabric."""
    return generate(SuperpodSpec(system="gb200-nvl72", sus=4), catalog).project
