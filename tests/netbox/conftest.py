"""The real NetBox of ``make test-netbox``: one started per test module (a fresh database each) and stopped after
it, by tools/netbox/netbox_env.py (no package: found by the path set here)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "netbox"))
import netbox_env  # noqa: E402


@pytest.fixture(scope="module")
def netbox():
    """A running NetBox (started here, stopped after the module); its state: url, authorization, python."""
    state = netbox_env.start()
    try:
        yield state
    finally:
        netbox_env.stop()
