"""Golden outputs of every export format: each exporter's file, read back as text, kept under ``golden/``.

A figure an exporter reads under a wrong key prints as a plausible number ("Cooling equipment
0.0 kW") and no test that checks a few values finds it. So every format of
:data:`exporters.registry.FORMATS` is written for three designs and turned into a text that
holds everything the reader of the file sees, and that text is compared with the one kept in
``golden/<design>/<format>.txt`` (test_golden_outputs.py): any changed figure fails a test
with the diff.

The text forms:

* PDF (the customer's quote, its technical appendix): each page's text as pypdf extracts it.
* XLSX (the quote, the cabling plan): every cell that holds something, ``Sheet!A1<TAB>value``,
  a formula as written (``=SUM(E5:E9)``), text in JSON quotes (so ``"12"`` is not ``12``), and
  the number format when it is not General.
* CSV (the bill of materials, the cabling plan) and the NetBox folder (every file in it): as
  written, byte for byte (``golden/.gitattributes`` keeps git from changing their line ends).
* DXF: a summary read with ezdxf: version and units, layers, blocks with their entities counted
  by type and layer, model-space entities counted by layer and type, every rack block placed
  (position, rotation, attributes) and every text, sorted.
* SVG: title, description, the number of elements of each kind, and the text elements in order.
* PNG (the plan, the heat map): its size in pixels only.

What would differ from one run to the next is pinned without touching an exporter: the quote's
date is set in the project's quote settings (:data:`QUOTE_DATE`); the quote and the DXF title
block are dated by it.

The designs: the two bundled samples, a 4-SU DGX B200 SuperPOD made once by the generator
(``podplanner new superpod --system dgx-b200 --sus 4``) and kept as ``golden/dgx-b200-4su.podplan.json``,
and one SU of DGX B300 on a twin-plane Spectrum-X fabric (``--system dgx-b300 --fabric spectrum-x --sus 1``)
kept as ``golden/dgx-b300-spectrum-x-su.podplan.json``, so that a change to the generator does not move
these goldens.

When a change of output is intended, ``make golden`` writes them all again (this module run as a
script: ``python tests/exporters/golden_outputs.py [--design D] [--format F]``); the diff of
``tests/exporters/golden`` is then the review of what changed. ``--generated-design`` writes the
generated designs again from the generator, which moves their goldens too.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script: this checkout's code, whatever the environment has installed
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import datetime  # noqa: E402
import difflib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import struct  # noqa: E402
import tempfile  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402
from collections import Counter  # noqa: E402

from designer.analysis import analyze  # noqa: E402
from designer.fileformat import load, save  # noqa: E402
from designer.samples import DGX_B200_SU, GB200_NVL72_SU  # noqa: E402
from exporters.registry import FORMATS  # noqa: E402

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
GENERATED_DESIGN = GOLDEN_DIR / "dgx-b200-4su.podplan.json"
#: how the generated design was made (and is made again by --generated-design)
GENERATOR_ARGS = ["superpod", "--system", "dgx-b200", "--sus", "4"]
SPECTRUM_X_DESIGN = GOLDEN_DIR / "dgx-b300-spectrum-x-su.podplan.json"
#: generated design file -> the ``new`` arguments that made it
GENERATED: dict[Path, list[str]] = {
    GENERATED_DESIGN: GENERATOR_ARGS,
    SPECTRUM_X_DESIGN: ["superpod", "--system", "dgx-b300", "--fabric", "spectrum-x", "--sus", "1"],
}

#: design name (the golden folder) -> project file
DESIGNS: dict[str, Path] = {
    "dgx-b200-su": DGX_B200_SU,
    "gb200-nvl72-su": GB200_NVL72_SU,
    "dgx-b200-4su": GENERATED_DESIGN,
    "dgx-b300-spectrum-x-su": SPECTRUM_X_DESIGN,
}

#: the quote's date, which the quote and the DXF's title block are dated by
QUOTE_DATE = "2026-12-01"

#: lines of diff a failing comparison shows
DIFF_LINES = 60


# --- the designs, analysed and exported ---------------------------------------------------------------

def analysis(design: str, catalog):
    """The design analysed with its quote dated :data:`QUOTE_DATE` (everything else as the file has it)."""
    project = load(DESIGNS[design], catalog)
    project = project.with_quote(project.quote.updated(quote_date=QUOTE_DATE))
    return analyze(project, catalog)


def export(analysis, fmt: str, folder: Path) -> Path:
    """Write ``analysis`` in format ``fmt`` into ``folder``; the file (or folder) written."""
    f = FORMATS[fmt]
    target = folder / (fmt if f.folder else f"{fmt}{f.suffix}")
    f.write(analysis, target)
    return target


# --- text forms ---------------------------------------------------------------------------------------

def pdf_text(path: Path) -> dict[str, str]:
    from pypdf import PdfReader

    pages = PdfReader(str(path)).pages
    out = []
    for i, page in enumerate(pages, 1):
        text = "\n".join(line.rstrip() for line in page.extract_text().splitlines())
        out.append(f"===== page {i} of {len(pages)} =====\n{text}\n")
    return {"": "".join(out)}


def _cell_value(value) -> str:
    if isinstance(value, str):
        return value if value.startswith("=") else json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        return f"{type(value).__name__}({value.isoformat() if hasattr(value, 'isoformat') else value})"
    text = getattr(value, "text", None)  # an array formula
    return f"{type(value).__name__}({text if text is not None else value!r})"


def xlsx_cells(path: Path) -> dict[str, str]:
    import openpyxl

    wb = openpyxl.load_workbook(path)  # formulas as written
    stored = openpyxl.load_workbook(path, data_only=True)  # and the value each formula cell stores
    out = [f"sheets: {json.dumps(wb.sheetnames, ensure_ascii=False)}\n"]
    for ws in wb.worksheets:
        out.append(f"===== {ws.title} ({ws.dimensions}) =====\n")
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None:
                    continue
                line = f"{ws.title}!{cell.coordinate}\t{_cell_value(cell.value)}"
                if cell.data_type == "f":
                    line += f"\t-> {_cell_value(stored[ws.title][cell.coordinate].value)}"
                if cell.number_format != "General":
                    line += f"\t[{cell.number_format}]"
                out.append(line + "\n")
    return {"": "".join(out)}


def _raw(path: Path) -> str:
    # as written: line ends and a byte-order mark kept
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def as_is(path: Path) -> dict[str, str]:
    return {"": _raw(path)}


def folder_as_is(path: Path) -> dict[str, str]:
    """Every file of the folder as written, by its path inside it."""
    return {p.relative_to(path).as_posix(): _raw(p) for p in sorted(path.rglob("*")) if p.is_file()}


def _num(x: float) -> str:
    return f"{x:.1f}".replace("-0.0", "0.0")


def dxf_summary(path: Path) -> dict[str, str]:
    import ezdxf

    doc = ezdxf.readfile(path)
    out = [f"dxfversion {doc.dxfversion}\n$INSUNITS {doc.header.get('$INSUNITS')}\n", "===== layers =====\n"]
    for layer in doc.layers:
        out.append(f"layer {layer.dxf.name} colour={layer.dxf.color} linetype={layer.dxf.linetype}\n")
    out.append("===== blocks =====\n")
    for block in doc.blocks:
        out.append(f"block {block.name}\n")
        counts = Counter((e.dxf.layer, e.dxftype()) for e in block)
        out += [f"  {layer} {kind} {n}\n" for (layer, kind), n in sorted(counts.items())]
        out += sorted(f"  attdef {e.dxf.tag} default={json.dumps(e.dxf.text, ensure_ascii=False)}\n"
                      for e in block if e.dxftype() == "ATTDEF")
    msp = doc.modelspace()
    out.append("===== model space: entities by layer and type =====\n")
    counts = Counter((e.dxf.layer, e.dxftype()) for e in msp)
    out += [f"{layer} {kind} {n}\n" for (layer, kind), n in sorted(counts.items())]
    out.append("===== model space: blocks placed =====\n")
    inserts = []
    for e in msp.query("INSERT"):
        x, y, _ = e.dxf.insert
        attribs = "; ".join(f"{a.dxf.tag}={a.dxf.text}" for a in e.attribs)
        inserts.append(f"{e.dxf.layer} {e.dxf.name} {attribs} at ({_num(x)}, {_num(y)}) "
                       f"rotation {_num(e.dxf.rotation)}\n")
    out += sorted(inserts)
    out.append("===== model space: texts =====\n")
    texts = [f"{e.dxf.layer} {e.dxftype()}: {e.dxf.text}\n" for e in msp.query("TEXT")]
    texts += [f"{e.dxf.layer} MTEXT: {e.text!r}\n" for e in msp.query("MTEXT")]
    out += sorted(texts)
    return {"": "".join(out)}


_SVG = "{http://www.w3.org/2000/svg}"


def svg_text(path: Path) -> dict[str, str]:
    root = ET.parse(path).getroot()
    tag = lambda e: e.tag.removeprefix(_SVG)  # noqa: E731
    title = root.find(f"{_SVG}title")
    desc = root.find(f"{_SVG}desc")
    out = [f"size {root.get('width')} x {root.get('height')}, viewBox {root.get('viewBox')}\n",
           f"title: {title.text if title is not None else None}\n",
           f"desc: {desc.text if desc is not None else None}\n",
           "===== elements =====\n"]
    out += [f"{name} {n}\n" for name, n in sorted(Counter(tag(e) for e in root.iter()).items())]
    out.append("===== texts =====\n")
    out += [f"{''.join(e.itertext())}\n" for e in root.iter(f"{_SVG}text")]
    return {"": "".join(out)}


def png_size(path: Path) -> dict[str, str]:
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise AssertionError(f"{path.name} is not a PNG file")
    width, height = struct.unpack(">II", head[16:24])
    return {"": f"{width} x {height} pixels\n"}


#: format -> its text form: {"": text} for a file, {path inside: text} for a folder
NORMALISERS = {
    "pdf": pdf_text,
    "pdf-appendix": pdf_text,
    "xlsx": xlsx_cells,
    "csv": as_is,
    "dxf": dxf_summary,
    "svg": svg_text,
    "png": png_size,
    "heat-map": png_size,
    "netbox": folder_as_is,
    "cabling": as_is,
    "cabling-xlsx": xlsx_cells,
}


def normalised(path: Path, fmt: str) -> dict[str, str]:
    """The text form of an exported file, by golden file name (relative to the design's golden folder)."""
    if fmt not in NORMALISERS:
        raise AssertionError(f"export format {fmt!r} has no text form: add one to NORMALISERS in "
                             "tests/exporters/golden_outputs.py, then run make golden")
    texts = NORMALISERS[fmt](path)
    return {(f"{fmt}.txt" if name == "" else f"{fmt}/{name}.txt"): text for name, text in texts.items()}


def exported_texts(analysis, fmt: str, folder: Path) -> dict[str, str]:
    return normalised(export(analysis, fmt, folder), fmt)


# --- the goldens ------------------------------------------------------------------------------------

def golden_texts(design: str, fmt: str) -> dict[str, str]:
    """The golden files kept for a design's format, by name relative to the design's folder."""
    base = GOLDEN_DIR / design
    paths = [base / f"{fmt}.txt"] if (base / f"{fmt}.txt").is_file() else []
    if (base / fmt).is_dir():
        paths += sorted(p for p in (base / fmt).rglob("*") if p.is_file())
    return {p.relative_to(base).as_posix(): _raw(p) for p in paths}


def compare(design: str, fmt: str, actual: dict[str, str]) -> str | None:
    """None when ``actual`` matches the goldens; otherwise what differs, with a unified diff (at most
    :data:`DIFF_LINES` lines)."""
    expected = golden_texts(design, fmt)
    if expected == actual:
        return None
    rel = GOLDEN_DIR.relative_to(ROOT) / design
    head = [f"the {fmt} export of {design} differs from its golden output ({rel}/):"]
    missing = sorted(set(actual) - set(expected))
    gone = sorted(set(expected) - set(actual))
    changed = sorted(n for n in set(actual) & set(expected) if actual[n] != expected[n])
    if missing:
        head.append("  no golden file for: " + ", ".join(missing))
    if gone:
        head.append("  no longer written: " + ", ".join(gone))
    if changed:
        head.append("  changed: " + ", ".join(changed))
    diff: list[str] = []
    for name in changed + missing + gone:
        diff += unified_diff(expected.get(name, ""), actual.get(name, ""),
                             f"{rel}/{name} (golden)", f"{name} (exported now)")
    shown = diff[:DIFF_LINES]
    if len(diff) > DIFF_LINES:
        shown.append(f"... {len(diff) - DIFF_LINES} more lines of diff")
    tail = "If the change is intended: make golden, and review the diff of tests/exporters/golden before committing."
    return "\n".join(head + shown + [tail])


def unified_diff(a: str, b: str, afile: str, bfile: str, context: int = 2) -> list[str]:
    """A unified diff of two texts whose replaced lines are shown in pairs (each golden line just above the line
    that replaced it), so that one figure changed in many lines reads as such within the lines shown."""
    a_lines, b_lines = a.splitlines(), b.splitlines()
    out = [f"--- {afile}", f"+++ {bfile}"]
    for group in difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False).get_grouped_opcodes(context):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [f" {line}" for line in a_lines[a1:a2]]
            elif tag == "replace" and a2 - a1 == b2 - b1:
                for old, new in zip(a_lines[a1:a2], b_lines[b1:b2]):
                    out += [f"-{old}", f"+{new}"]
            else:
                out += [f"-{line}" for line in a_lines[a1:a2]] + [f"+{line}" for line in b_lines[b1:b2]]
    return out


def write_golden(design: str, fmt: str, texts: dict[str, str]) -> None:
    base = GOLDEN_DIR / design
    (base / f"{fmt}.txt").unlink(missing_ok=True)
    shutil.rmtree(base / fmt, ignore_errors=True)
    for name, text in texts.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def write_generated_design(catalog, path: Path = GENERATED_DESIGN) -> None:
    """A generated design made again by the generator, as ``podplanner new superpod`` would make it."""
    from designer.cli.new import add_parser, spec_from_args
    from designer.generate.build import generate

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["new", *GENERATED[path], "-o", str(path)])
    save(generate(spec_from_args(args), catalog).project, path)


def regenerate(designs=None, formats=None, *, generated_design: bool = False, log=print) -> None:
    from catalog import load_catalog

    catalog = load_catalog([])
    if generated_design:
        for path in GENERATED:
            if designs and not any(DESIGNS[d] == path for d in designs):
                continue
            write_generated_design(catalog, path)
            log(f"wrote {path.relative_to(ROOT)}")
    with tempfile.TemporaryDirectory() as tmp:
        for design in designs or DESIGNS:
            a = analysis(design, catalog)
            for fmt in formats or FORMATS:
                folder = Path(tmp) / design
                folder.mkdir(exist_ok=True)
                texts = exported_texts(a, fmt, folder)
                write_golden(design, fmt, texts)
                log(f"wrote {GOLDEN_DIR.relative_to(ROOT)}/{design}: {', '.join(texts)}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Write the exporters' golden outputs again (tests/exporters/golden).")
    p.add_argument("--design", action="append", choices=list(DESIGNS), help="only this design (repeatable)")
    p.add_argument("--format", action="append", choices=list(FORMATS), help="only this format (repeatable)")
    p.add_argument("--generated-design", action="store_true",
                   help="first make " + ", ".join(p.name for p in GENERATED)
                        + " again with the generator (moves their goldens)")
    args = p.parse_args(argv)
    regenerate(args.design, args.format, generated_design=args.generated_design)
    return 0


if __name__ == "__main__":
    sys.exit(main())
