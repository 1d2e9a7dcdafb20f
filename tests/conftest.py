from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from catalog import load_catalog
from catalog.registry import DATA_DIR


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
