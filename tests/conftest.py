from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from catalog import load_catalog
from catalog.registry import DATA_DIR

try:
    from numpy._core import multiarray as _np_multiarray
except ImportError:  # numpy before 2.0
    from numpy.core import multiarray as _np_multiarray


@pytest.fixture(autouse=True)
def _process_settings_restored():
    """A command line run in the test process sets the interpreter's switch interval and numpy's huge-page advice
    for the whole process (designer.cli.main): each test leaves both as it found them, so no test's timing or
    memory behaviour depends on which ran before it."""
    interval, advice = sys.getswitchinterval(), _np_multiarray._get_madvise_hugepage()
    yield
    sys.setswitchinterval(interval)
    _np_multiarray._set_madvise_hugepage(advice)


@pytest.fixture(scope="session")
def catalog():
    """The built-in catalog alone, whatever the user's environment holds."""
    return load_catalog([])


@pytest.fixture
def catalog_copy(tmp_path) -> Path:
    """A writable copy of the built-in catalog folder, for breaking on purpose."""
    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    return dst


def edit_json(path: Path, fn) -> None:
    data = json.loads(path.read_text())
    fn(data)
    path.write_text(json.dumps(data))
