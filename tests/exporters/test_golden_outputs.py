"""Every export format of every golden design, read back as text, is the same as its kept golden output.

One test per (design, format) of :data:`exporters.registry.FORMATS`: a format added to the
registry gets its tests at once (failing until it has a text form and goldens). A failure shows
the unified diff against ``tests/exporters/golden``; when the change is intended, ``make golden``
writes the goldens again and the diff of that folder is what a reviewer reads. How each format is
read back, and what is pinned (the quote date, the DXF's day), is in golden_outputs.py.
"""
from __future__ import annotations

import pytest

import golden_outputs as golden
from exporters.registry import FORMATS


@pytest.fixture(scope="session")
def golden_analysis(catalog):
    """Each design analysed once, for all its formats (an analysis is immutable)."""
    cache: dict = {}

    def get(design: str):
        if design not in cache:
            cache[design] = golden.analysis(design, catalog)
        return cache[design]

    return get


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("design", list(golden.DESIGNS))
def test_export_matches_golden(design, fmt, golden_analysis, tmp_path_factory):
    texts = golden.exported_texts(golden_analysis(design), fmt, tmp_path_factory.mktemp(f"{design}-{fmt}"))
    problem = golden.compare(design, fmt, texts)
    if problem:
        pytest.fail(problem, pytrace=False)


def test_no_golden_file_is_left_over():
    """Every file under golden/ belongs to a design and format still tested (a dropped format's goldens go)."""
    known = {*golden.GENERATED, golden.GOLDEN_DIR / ".gitattributes"}
    for design in golden.DESIGNS:
        for fmt in FORMATS:
            known |= {golden.GOLDEN_DIR / design / name for name in golden.golden_texts(design, fmt)}
    stray = sorted(str(p.relative_to(golden.GOLDEN_DIR)) for p in golden.GOLDEN_DIR.rglob("*")
                   if p.is_file() and p not in known)
    assert not stray, f"golden files no test reads (remove them): {stray}"

