"""Long user text in the quote PDF and the drawings: cut to its room, never laid out in full.

The designs are built in memory (one SU of DGX B200 from the generator, names replaced), not read from
a file, so the PDF is tried with texts no file reader would let through: a 2,000-character rack name
(the row it made in the findings was taller than a page), and names and a description of megabytes
(each shortening re-measured the whole text once per character dropped). How long these take is
guarded by the suite's own time, not by a clock here.
"""
from __future__ import annotations

import dataclasses
import re

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth

from designer.analysis import analyze
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from exporters import pdf_style as st
from exporters import pdf_text
from exporters.elevation_drawing import elevation_drawing, fit
from exporters.plan_drawing import plan_drawing
from exporters.quote_pdf import write_appendix_pdf, write_quote_pdf

ELLIPSIS = pdf_text.ELLIPSIS


# -- the cutting itself ---------------------------------------------------------------------------------
def one_at_a_time(text: str, font: str, size: float, room: float) -> str:
    """How text was cut before: drop a character and measure again, until it fits with an ellipsis."""
    if stringWidth(text, font, size) <= room:
        return text
    while text and stringWidth(text + ELLIPSIS, font, size) > room:
        text = text[:-1]
    return text + ELLIPSIS


@pytest.mark.parametrize("text", ["", "SU01-01", "Rack A&B <test>", "NVIDIA Quantum-2 QM9700 NDR InfiniBand switch",
                                  "W" * 300, "iiil" * 80, "Zürich Hall → 3 " * 20])
@pytest.mark.parametrize("room", [0.0, 4.0, 30.0, 120.0, 515.0])
def test_clip_keeps_the_longest_prefix_that_fits(text, room):
    st.register_fonts()
    want = one_at_a_time(st.printable(text), st.FONT, 7.5, room)
    assert pdf_text.clip(text, st.FONT, 7.5, room) == want


def test_clip_cuts_megabytes_to_one_line():
    st.register_fonts()
    out = pdf_text.clip("X" * 5_000_000, st.BOLD, 8.6, 250.0)
    assert out.endswith(ELLIPSIS) and stringWidth(out, st.BOLD, 8.6) <= 250.0
    assert stringWidth(out[:-1] + "X" + ELLIPSIS, st.BOLD, 8.6) > 250.0  # not one X more would fit


def test_clip_counted_says_how_much_it_kept():
    st.register_fonts()
    assert pdf_text.clip_counted("short", st.FONT, 12, 300.0) == ("short", None)
    shown, kept = pdf_text.clip_counted("E" * 10_000_000, st.FONT, 12, 300.0)
    assert shown == "E" * kept + ELLIPSIS and 0 < kept < 100


def test_shorten_states_its_length():
    assert pdf_text.shorten("abc", 3) == "abc"
    assert pdf_text.shorten("abcd", 3) == "abc" + ELLIPSIS


def old_fit(text: str, font: str, size: float, room: float, *, whole_words: bool = False) -> str:
    """The elevation's labels as they were cut before: by dropping words, then characters, one at a time."""
    text = st.printable(text)
    if stringWidth(text, font, size) <= room:
        return text
    if whole_words:
        words = text.split()
        while len(words) > 2:
            words.pop()
            while len(words) > 2 and words[-1].isdigit():
                words.pop()
            short = " ".join(words).rstrip(" ,;:(-")
            if short.count("(") > short.count(")"):
                continue
            if stringWidth(short, font, size) <= room:
                return short
    while text and stringWidth(text + ELLIPSIS, font, size) > room:
        text = text[:-1]
    return (text.rstrip(" ,(-") + ELLIPSIS) if text else ""


@pytest.mark.parametrize("whole_words", [False, True])
def test_elevation_labels_are_cut_as_before(catalog, whole_words):
    """Every catalog name an elevation letters, cut as before at widths from a strip's to a face's (the
    goldens hold the labels of the samples' builds only)."""
    st.register_fonts()
    for dev in catalog:
        for room in (3.0, 20.0, 45.0, 60.0, 90.0):
            for font in (st.FONT, st.BOLD):
                name = dev.name or dev.id
                assert fit(name, font, 6.0, room, whole_words=whole_words) == \
                    old_fit(name, font, 6.0, room, whole_words=whole_words), (name, room)


def test_elevation_cuts_whole_words_of_a_long_name():
    st.register_fonts()
    out = fit("NVLink Switch tray (GB200) " * 200_000, st.FONT, 6.0, 200.0, whole_words=True)
    assert stringWidth(out, st.FONT, 6.0) <= 200.0 and not out.endswith(ELLIPSIS)
    assert out.startswith("NVLink Switch tray (GB200) NVLink")


# -- hostile designs, built in memory -----------------------------------------------------------------
@pytest.fixture(scope="module")
def su(catalog):
    return generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project


def renamed(project, *, rack="", row="", hall="", device="", name="", description=""):
    """``project`` with its first rack, that rack's row and first device, its hall, its name and description
    replaced by the texts given."""
    racks = list(project.racks)
    r = racks[0]
    devices = list(r.devices)
    if device:
        devices[0] = dataclasses.replace(devices[0], name=device)
    racks[0] = dataclasses.replace(r, name=rack or r.name, row=row or r.row, devices=tuple(devices))
    halls = list(project.halls)
    if hall:
        halls[0] = dataclasses.replace(halls[0], name=hall)
    return dataclasses.replace(project, racks=tuple(racks), halls=tuple(halls), name=name or project.name,
                               description=description or project.description)


def quote_of(project, catalog, path, *, appendix: bool = False) -> list[str]:
    """Write the quote of ``project`` (its customer's copy, or its technical appendix); each page's text, after
    rendering every page."""
    (write_appendix_pdf if appendix else write_quote_pdf)(analyze(project, catalog), path)
    pdf = pdfium.PdfDocument(str(path))
    try:
        for page in pdf:
            page.render(scale=30 / 72)
    finally:
        pdf.close()
    return [p.extract_text() for p in PdfReader(str(path)).pages]


def runs(pages: list[str], letter: str) -> list[str]:
    """Every run of ``letter`` in the pages' text, with an ellipsis after it when it has one."""
    return [m.group() for t in pages for m in re.finditer(f"{letter}{{10,}}(?:\\n?{ELLIPSIS})?", t)]


def test_a_2000_character_rack_name_is_cut_in_the_findings_and_the_elevations(su, catalog, tmp_path):
    """The findings name the rack by the first of its name and go on: what the rack draws, the other racks."""
    project = renamed(su, rack="X" * 2000)
    racks = (dataclasses.replace(project.racks[0], power_limit_kw=1.0),) + project.racks[1:]
    pages = quote_of(dataclasses.replace(project, racks=racks), catalog, tmp_path / "quote.pdf", appendix=True)
    findings = next(t for t in pages if "The design checks report" in t)
    assert re.search(f"X{ELLIPSIS} draws up to [0-9.]+ kW, over its 1 kW limit", findings)
    assert re.search(f"Racks X+\\n(X+\\n)*X+{ELLIPSIS}, SU01-02 \\+14 more", findings)
    pages = quote_of(dataclasses.replace(project, racks=racks), catalog, tmp_path / "quote.pdf")
    elevations = next(t for t in pages if "Rack elevations" in t and "e.g." in t)
    assert re.search(f"e\\.g\\. X+{ELLIPSIS}", elevations)


def test_names_of_2000_characters_everywhere_stay_in_their_cells(su, catalog, tmp_path):
    """No break opportunity in any of them: each is cut, and no cell is taller than a page."""
    project = renamed(su, rack="R" * 2000, row="W" * 2000, hall="H" * 2000, device="D" * 2000,
                      name="P" * 2000, description="E" * 2000)
    body = []
    for appendix, label in ((False, "Quote "), (True, "Appendix to quote ")):
        pages = quote_of(project, catalog, tmp_path / "quote.pdf", appendix=appendix)
        assert pages[0].count("PPPP") and f"P{ELLIPSIS}" in pages[0]
        assert "(shortened: the first" in pages[0] and "of its 2,000 characters)" in pages[0]
        assert runs(pages[:1], "E"), "description"
        body += pages[1:]
        # the header of every body page: the project's name cut to half the line, ellipsis and all
        assert all(re.search(f"P+{ELLIPSIS}\\n?{label}", t) for t in pages[2:]), "header"
    for letter in "PHRW":  # each cut where one of the two documents prints it
        assert sum(len(r) for r in runs(body, letter)) > 0, letter


def test_megabytes_of_names_and_description(su, catalog, tmp_path):
    path = tmp_path / "quote.pdf"
    project = renamed(su, rack="R" * 5_000_000, row="W" * 5_000_000, hall="H" * 5_000_000,
                      device="D" * 5_000_000, name="P" * 1_000_000, description="E" * 10_000_000)
    both = []
    for appendix in (False, True):
        pages = quote_of(project, catalog, path, appendix=appendix)
        assert path.stat().st_size < 1_000_000  # no name went into the file whole
        assert "of its 10,000,000 characters)" in pages[0]
        assert PdfReader(str(path)).metadata.title.endswith(ELLIPSIS)
        both += pages
    for letter in "PEHRW":
        found = runs(both, letter)
        assert found and all(len(r) < 200 for r in found), letter
        assert any(r.endswith(ELLIPSIS) for r in found), letter


def test_a_long_hall_name_is_cut_before_the_scale_of_the_plan(su, catalog):
    """The plan's title takes what the scale label leaves; a long rack name is not drawn (no footprint holds
    it), and only as much of it as a footprint could hold is measured."""
    d = plan_drawing(analyze(renamed(su, hall="H" * 5_000_000, rack="R" * 5_000_000), catalog), width=515)
    strings = [s for s in d.getContents() if hasattr(s, "text")]
    title = next(s for s in strings if s.text.startswith("HHH"))
    scale = next(s for s in strings if s.text.startswith("Scale 1:"))
    assert title.text.endswith(ELLIPSIS)
    assert 2 + stringWidth(title.text, st.BOLD, 10) < 515 - 2 - stringWidth(scale.text, st.FONT, 7.5)
    assert d.labels_drawn == len(su.racks) - 1 + len(su.floor_devices)  # the floor units keep their names


def test_an_elevation_cuts_a_megabyte_title(su, catalog):
    rack = renamed(su, rack="R" * 5_000_000).racks[0]
    d = elevation_drawing(rack, catalog, width=250)
    title = d.getContents()[0]
    assert title.text.endswith(ELLIPSIS) and stringWidth(title.text, st.BOLD, 8.6) <= 250
