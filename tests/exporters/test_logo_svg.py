"""An SVG logo on the quote's cover: drawn as vectors (no image in the PDF), scaled into the band with its
proportions, its colour where the band is; a broken, empty, missing or oversized SVG is an ExportError naming it.
"""
from __future__ import annotations

from dataclasses import replace

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.fileformat import load
from designer.quote_seller import LOGO_SUFFIXES, Seller, SellerError
from designer.samples import DGX_B200_SU
from exporters.base import ExportError
from exporters.quote_pdf import write_appendix_pdf, write_quote_pdf
from exporters.quote_pdf.cover import LOGO_H, LOGO_W, SVG_MAX_BYTES, logo

#: a 4:1 logo: a magenta bar with a green disc, colours the quote's own pages never use
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100" viewBox="0 0 400 100">'
       '<rect x="0" y="0" width="400" height="100" fill="#FF00FF"/>'
       '<circle cx="50" cy="50" r="40" fill="#00FF00"/></svg>')


@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


def _with_seller(analysis, **seller):
    project = analysis.project
    return replace(analysis, project=project.with_quote(project.quote.updated(seller=Seller(**seller))))


@pytest.fixture
def svg_logo(tmp_path):
    path = tmp_path / "brand" / "logo.svg"
    path.parent.mkdir()
    path.write_text(SVG, encoding="utf-8")
    return path


def test_an_svg_file_is_a_logo_the_seller_may_have():
    assert ".svg" in LOGO_SUFFIXES
    assert Seller(logo="/srv/brand/Logo.SVG").logo.endswith(".SVG")
    with pytest.raises(SellerError, match="PNG, JPEG or SVG"):
        Seller(logo="/srv/brand/logo.gif")


def test_an_svg_logo_is_scaled_into_the_band_keeping_its_proportions(svg_logo):
    drawing, w, h = logo(str(svg_logo))
    assert (w, h) == (LOGO_W, LOGO_W / 4) and h <= LOGO_H
    assert (drawing.width, drawing.height) == (w, h)
    tall = svg_logo.with_name("tall.svg")
    tall.write_text(SVG.replace('width="400" height="100" viewBox="0 0 400 100"',
                                'width="50" height="200" viewBox="0 0 50 200"'), encoding="utf-8")
    _, w, h = logo(str(tall))
    assert (w, h) == (LOGO_H / 4, LOGO_H)


def _cover_pixels(path):
    pdf = pdfium.PdfDocument(str(path))
    try:
        page = pdf[0]
        image = page.render(scale=1).to_pil().convert("RGB")
        band = image.crop((0, 0, image.width, 150))  # the cover's band is the page's top 150 points
        rest = image.crop((0, 160, image.width, image.height))
        return {c for _, c in band.getcolors(1 << 24)}, rest.getcolors(1 << 24)
    finally:
        pdf.close()


@pytest.mark.parametrize("write", [write_quote_pdf, write_appendix_pdf])
def test_the_pdf_draws_an_svg_logo_as_vectors_in_the_cover_band(analysis, svg_logo, tmp_path, write):
    out = tmp_path / "quote.pdf"
    write(_with_seller(analysis, company="Vector Works AG", logo=str(svg_logo)), out)
    reader = PdfReader(str(out))
    cover = reader.pages[0]
    xobjects = cover["/Resources"].get("/XObject", {})
    assert not [k for k, v in xobjects.items() if v.get_object().get("/Subtype") == "/Image"], \
        "an SVG logo must not be embedded as an image"
    content = cover.get_contents().get_data().decode("latin-1")
    assert "1 0 1 rg" in content and "0 1 0 rg" in content  # its two fills, as vector paint
    band, rest = _cover_pixels(out)
    assert (255, 0, 255) in band and (0, 255, 0) in band
    assert not [c for _, c in rest if c in ((255, 0, 255), (0, 255, 0))]  # nowhere but the band
    assert "Vector Works AG" in cover.extract_text()


@pytest.mark.parametrize("text, says", [
    ("not an svg at all", "cannot be read as an SVG drawing"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><rect', "has no size"),
    ('<svg xmlns="http://www.w3.org/2000/svg"></svg>', "has no size"),
    ("", "cannot be read as an SVG drawing"),
])
def test_a_broken_svg_logo_is_an_export_error_naming_it(analysis, tmp_path, text, says):
    bad = tmp_path / "broken-logo.svg"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ExportError, match=says) as err:
        logo(str(bad))
    assert "broken-logo.svg" in str(err.value)
    with pytest.raises(ExportError, match="broken-logo.svg"):
        write_quote_pdf(_with_seller(analysis, company="Acme", logo=str(bad)), tmp_path / "q.pdf")
    assert not (tmp_path / "q.pdf").exists()


def test_a_missing_svg_logo_is_named(tmp_path):
    with pytest.raises(ExportError, match="gone.svg' cannot be read"):
        logo(str(tmp_path / "gone.svg"))


def test_an_oversized_svg_logo_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    big = tmp_path / "huge.svg"
    with big.open("w", encoding="utf-8") as f:
        f.write(SVG[:-6])
        f.write("<!--" + "x" * (SVG_MAX_BYTES + 10) + "-->")
        f.write("</svg>")
    import svglib.svglib

    def never(*_a, **_k):
        raise AssertionError("parsed")

    monkeypatch.setattr(svglib.svglib, "svg2rlg", never)
    with pytest.raises(ExportError, match=r"huge.svg' is 4.0 MB; an SVG logo may be at most 4 MB"):
        logo(str(big))


def _images(drawing) -> list:
    from reportlab.graphics.shapes import Group, Image

    found = []
    for item in drawing.contents:
        if isinstance(item, Image):
            found.append(item)
        elif isinstance(item, Group):
            found += _images(item)
    return found


def test_an_svg_logo_reads_no_file_outside_its_folder(tmp_path, svg_logo):
    from PIL import Image

    inside, outside = svg_logo.with_name("mark.png"), tmp_path / "secret.png"
    for png in (inside, outside):
        Image.new("RGB", (4, 4), (0, 0, 255)).save(png)
    svg_logo.write_text(SVG.replace("</svg>", '<image href="mark.png" width="10" height="10"/></svg>'),
                        encoding="utf-8")
    assert len(_images(logo(str(svg_logo))[0])) == 1
    svg_logo.write_text(SVG.replace("</svg>", '<image href="../secret.png" width="10" height="10"/></svg>'),
                        encoding="utf-8")
    drawing, w, _ = logo(str(svg_logo))  # drawn without the file it refers to, not an error
    assert w == LOGO_W and _images(drawing) == []


@pytest.mark.parametrize("empty", ["<v />", "<v/>", "<v></v>"])
def test_formula_values_are_stored_whichever_writer_openpyxl_uses(empty):
    """svglib brings lxml, and openpyxl writes with lxml whenever it is installed: its empty value is
    ``<v></v>``, not ``<v />``; the quote workbook's formula cells keep their computed values either way."""
    from exporters.quote_xlsx_values import _fill

    xml = f'<row r="1"><c r="B1" s="3"><f>A1+1</f>{empty}</c><c r="C1"><f>"x"&amp;A1</f>{empty}</c></row>'
    assert _fill(xml, {"B1": 2, "C1": "x1"}) == ('<row r="1"><c r="B1" s="3"><f>A1+1</f><v>2</v></c>'
                                                  '<c r="C1" t="str"><f>"x"&amp;A1</f><v>x1</v></c></row>')
