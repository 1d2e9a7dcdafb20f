"""A design with error findings is exported, but never silently: the command line exits 1 and names the first
errors (``--allow-errors`` for a draft), nothing is pushed into NetBox, and the quote PDF carries a red banner
on every page and the errors on its cover."""
from __future__ import annotations

import csv

import pypdfium2 as pdfium
import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.design_errors import design_errors
from designer.fileformat import load
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from tests.designer.test_fileformat import GOLDEN


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def broken(catalog):
    """The old golden file: rack A02 draws up to 132 kW against its 40 kW limit, and two more errors."""
    return analyze(load(GOLDEN, catalog), catalog)


def test_the_errors_are_counted_and_the_first_named_by_place(broken, catalog):
    errors = design_errors(broken)
    every = [f for f in broken.findings if f.severity == "error"]
    assert errors.count == len(every) == 3 and len(errors.first) == 3
    assert errors.headline == f"The design has {len(every)} errors"
    # the place said once: the message names it first already
    assert "Rack A02 draws up to 132.0 kW, over its 40 kW limit" in errors.first
    assert "Rack A01: feed A carries 28.6 kW, over the 16.8 kW its PDUs may carry" in errors.listing()
    assert not any("rack:" in line for line in errors.first)  # places by name, never by id
    assert len(errors.listing().splitlines()) == 3  # all named: nothing more to count
    assert design_errors(broken, shown=1).listing().splitlines()[1:] == ["… and 2 more errors"]
    assert not design_errors(analyze(load(DGX_B200_SU, catalog), catalog))


def test_export_of_a_design_with_errors_writes_and_exits_1_naming_them(capsys, tmp_path, broken):
    out = tmp_path / "bill.csv"
    code, text, err = run(capsys, "export", str(GOLDEN), "--csv", str(out))
    assert code == 1
    assert f"wrote {out}" in text and len(list(csv.DictReader(out.open(encoding="utf-8")))) > 0
    n = design_errors(broken).count
    assert f"golden_v1.podplan.json: the design has {n} errors, the files were written all the same; give " \
           "--allow-errors for a draft:" in err
    assert "\n  Rack A02 draws up to 132.0 kW, over its 40 kW limit\n" in err
    assert "Traceback" not in err


def test_allow_errors_writes_a_draft_with_exit_0(capsys, tmp_path):
    out = tmp_path / "bill.csv"
    code, text, err = run(capsys, "export", str(GOLDEN), "--csv", str(out), "--allow-errors")
    assert code == 0 and out.exists() and f"wrote {out}" in text
    assert "written as a draft (--allow-errors)" in err


def test_a_design_without_errors_exits_0_and_says_nothing(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "bill.csv"))
    assert code == 0 and err == ""


def test_nothing_is_pushed_into_netbox_from_a_design_with_errors(capsys, tmp_path, monkeypatch):
    pushed = []
    monkeypatch.setattr(export_command, "_push", lambda *a: pushed.append(a))
    code, _, err = run(capsys, "export", str(GOLDEN), "--netbox-url", "http://netbox.example", "--netbox-token", "t")
    assert code == 1 and not pushed
    assert "nothing was written; nothing was pushed into NetBox; give --allow-errors for a draft" in err
    code, _, _ = run(capsys, "export", str(GOLDEN), "--netbox-url", "http://netbox.example", "--netbox-token", "t",
                     "--allow-errors")
    assert code == 0 and len(pushed) == 1
    # a dry run changes nothing: it compares all the same, and still exits 1
    code, _, _ = run(capsys, "export", str(GOLDEN), "--netbox-url", "http://netbox.example", "--netbox-token", "t",
                     "--netbox-dry-run")
    assert code == 1 and len(pushed) == 2


def _page_texts(path) -> list[str]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def _top_band_is_red(path, page: int) -> bool:
    """Whether the top strip of a rendered page is the error red (pixels, not the PDF's text)."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        image = pdf[page].render(scale=1).to_pil().convert("RGB")
    finally:
        pdf.close()
    r, g, b = image.getpixel((8, 6))
    return r > 150 and g < 110 and b < 110


def test_the_quote_pdf_of_a_design_with_errors_carries_the_banner_on_every_page(capsys, tmp_path, broken):
    out = tmp_path / "quote.pdf"
    code, _, _ = run(capsys, "export", str(GOLDEN), "--pdf", str(out))
    assert code == 1
    pages = _page_texts(out)
    n = design_errors(broken).count
    band = f"DRAFT: the design has {n} errors. Not for signature until they are corrected"
    assert len(pages) > 2 and all(band in " ".join(p.split()) for p in pages)
    assert all(_top_band_is_red(out, i) for i in range(len(pages)))
    cover = " ".join(pages[0].split())
    assert f"Draft: the design has {n} errors. Not for signature until they are corrected." in cover
    assert "Rack A02 draws up to 132.0 kW, over its 40 kW limit" in cover
    clean = tmp_path / "clean.pdf"
    assert run(capsys, "export", str(DGX_B200_SU), "--pdf", str(clean))[0] == 0
    assert not any("DRAFT" in p or "errors. Not for signature" in p for p in _page_texts(clean))
    assert not _top_band_is_red(clean, 0) and not _top_band_is_red(clean, 1)
