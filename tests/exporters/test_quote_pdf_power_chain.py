"""The quote's power chain table: the UPS, busway and generator figures a facilities team signs off, read back
from the technical appendix and compared with the analysis."""
from __future__ import annotations

from pypdf import PdfReader

from designer.analysis import analyze
from designer.fileformat import load
from designer.formatting import kw, number
from designer.samples import GB200_NVL72_SU
from exporters.quote_pdf import write_appendix_pdf, write_quote_pdf


def test_the_chain_above_the_racks_is_printed_with_the_analysis_figures(catalog, tmp_path):
    a = analyze(load(GB200_NVL72_SU, catalog), catalog)
    path = tmp_path / "quote.pdf"
    write_appendix_pdf(a, path)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)
    assert "Power chain above the racks" in text
    ups = a.power.ups[0].systems[0]
    # two modules a side: the hall's 1,400 kW of IT plus the 40 kW of CDU pumps the survivor carries
    assert ups.name == "UPS A" and ups.capacity_kw == 2400 and ups.failover_kw == 1186.75
    # the one formatter rounds half up from the figure as written: 1,186.75 prints 1,186.8 as in the window
    assert f"UPS A (2N) 2,400.0 {number(ups.normal_kw, 1)} 1,186.8" in text
    g = a.power.generators[0]
    assert f"generators {g.units} x {kw(g.unit_kw)}, 1 spare {number(g.capacity_kw, 1)} {number(g.load_kw, 1)}" in text
    assert "4 x 800 A busway" in text  # the SU's one row of eight NVL72: 1,096 kW


def test_a_spectrum_x_fabric_is_named_with_its_planes_and_super_spine(spectrum_x, tmp_path):
    """1 SU of DGX B300 on Spectrum-X: per plane 8 leaves and 4 spines (64 nodes x 8 rails at 400G on 128-port
    SN5610s), both planes 16 and 8; the customer's summary says so, and the appendix's summary and fabric page."""
    path = tmp_path / "q.pdf"
    row = "Switches: leaf / spine / super-spine Spectrum-X Ethernet, 2 planes: 16 / 8 / 0 (8 / 4 / 0 per plane)"
    for write, times in ((write_quote_pdf, 1), (write_appendix_pdf, 2)):
        write(spectrum_x, path)
        text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)
        assert text.count(row) == times  # key figures (and the fabric page)
        assert "leaf / spine / core" not in text and "UFM" not in text
    assert "2 independent planes" in text and "1,024 node links" in text
    assert "Switch tiers, all 2 planes (each plane 8 leaf, 4 spine)" in text


def test_a_twin_plane_quote_says_what_losing_a_plane_costs_the_job(spectrum_x, tmp_path):
    path = tmp_path / "q.pdf"
    write_appendix_pdf(spectrum_x, path)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)
    lost = spectrum_x.training.scenarios.plane_lost
    assert lost is not None and lost.tokens_per_s < spectrum_x.training.tokens_per_s
    share = f"{lost.relative_tokens_per_s * 100:.0f} % of normal"
    assert f"With one fabric plane lost {lost.tokens_per_s:,.0f} tokens/s, {share}" in text
    assert "the job runs on at half the scale-out bandwidth" in text
