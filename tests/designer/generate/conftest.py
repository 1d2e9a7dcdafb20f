"""Fixtures of the SuperPOD generator's tests: designs generated and analysed once per session."""
from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.generate import SuperpodSpec, generate


@pytest.fixture(scope="session")
def design(catalog):
    """``design(system, sus, **spec)`` -> (Generated, Analysis), each generated and analysed once."""
    cache: dict = {}

    def get(system: str, sus: int, **kw):
        key = (system, sus, tuple(sorted(kw.items())))
        if key not in cache:
            g = generate(SuperpodSpec(system=system, sus=sus, **kw), catalog)
            cache[key] = (g, analyze(g.project, catalog))
        return cache[key]

    return get
