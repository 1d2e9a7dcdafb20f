"""The bundled samples are what the generator draws now (rebuild them with ``python -m designer.samples.build``)."""
from __future__ import annotations

import pytest

from catalog import default_catalog
from designer import samples
from designer.fileformat import load, to_dict
from designer.samples import build


@pytest.mark.parametrize(("path", "make"), [(samples.DGX_B200_SU, build.dgx_b200_su),
                                             (samples.GB200_NVL72_SU, build.gb200_nvl72_su)],
                         ids=["dgx-b200-su", "gb200-nvl72-su"])
def test_sample_equals_the_generator(path, make):
    assert to_dict(load(path, default_catalog())) == to_dict(make())
