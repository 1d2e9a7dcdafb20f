"""The quote PDF's power chain table: the UPS, busway and generator figures a facilities team signs off,
read back from the PDF and compared with the analysis."""
from __future__ import annotations

from pypdf import PdfReader

from designer.analysis import analyze
from designer.fileformat import load
from designer.formatting import kw, number
from designer.samples import GB200_NVL72_SU
from exporters.quote_pdf import write_quote_pdf


def test_the_chain_above_the_racks_is_printed_with_the_analysis_figures(catalog, tmp_path):
    a = analyze(load(GB200_NVL72_SU, catalog), catalog)
    path = tmp_path / "quote.pdf"
    write_quote_pdf(a, path)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)
    assert "Power chain above the racks" in text
    ups = a.power.ups[0].systems[0]
    assert ups.name == "UPS A" and ups.capacity_kw == 1200 and ups.failover_kw == 1140.35
    # the one formatter rounds half up from the figure as written: 1,140.35 prints 1,140.4 as in the window
    assert f"UPS A (2N) 1,200.0 {number(ups.normal_kw, 1)} 1,140.4" in text
    g = a.power.generators[0]
    assert f"generators {g.units} x {kw(g.unit_kw)}, 1 spare {number(g.capacity_kw, 1)} {number(g.load_kw, 1)}" in text
    assert "2 x 800 A busway" in text
