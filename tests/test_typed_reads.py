"""Consumers read the analysis through its typed views only.

The exporters and the window once read ~680 figures by string key (``analysis.sections["power"]
.get("cooling_equipment_kw", 0)``): a typo printed "Cooling equipment 0.0 kW" in a customer's
quote with every test green. Through the views (``analysis.power.cooling_equipment_kw``) a typo is
an AttributeError. This test keeps the string-key paths closed: no consumer module touches the JSON
side of an analysis (``sections``, ``summary_json``, ``analysis[...]``, an engine result's
``section``).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CONSUMERS = sorted(p for folder in ("exporters", "widgets") for p in (REPO / folder).rglob("*.py"))
#: Attributes that are the JSON side of an analysis or of an engine's result.
JSON_SIDE = {"sections", "summary_json", "section"}


def string_key_reads(path: Path, root: Path = REPO) -> list[str]:
    """``file:line: what`` for each read of the analysis's JSON side in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []

    def named_analysis(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id == "analysis") or (
            isinstance(node, ast.Attribute) and node.attr == "analysis")

    def json_side(node: ast.AST) -> bool:
        """``x.sections`` / ``x.summary_json`` / ``x.section``: the JSON side of an analysis or engine result
        (a view's own ``sections``, such as the bill's, is a list of views and is never read by name)."""
        return isinstance(node, ast.Attribute) and node.attr in JSON_SIDE

    for node in ast.walk(tree):
        where = f"{path.relative_to(root)}:{getattr(node, 'lineno', 0)}"
        if (isinstance(node, ast.Subscript) and json_side(node.value) and node.value.attr == "sections"
                and isinstance(node.slice, ast.Constant)):
            out.append(f"{where}: .{node.value.attr}[...]")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and json_side(node.func.value)):
            out.append(f"{where}: .{node.func.value.attr}.get(...)")
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and any(
                json_side(c) for c in node.comparators):
            out.append(f"{where}: in .sections")
        elif isinstance(node, ast.Attribute) and node.attr == "summary_json":
            out.append(f"{where}: .summary_json")
        elif (isinstance(node, ast.Attribute) and node.attr == "section" and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "result"):
            out.append(f"{where}: .result(...).section")  # a bill line's own ``section`` is a view's field
        elif isinstance(node, ast.Subscript) and named_analysis(node.value):
            out.append(f"{where}: analysis[...]")
    return out


def test_consumers_are_found():
    names = {p.relative_to(REPO).as_posix() for p in CONSUMERS}
    assert "exporters/dxf.py" in names and any(n.startswith("widgets/quote/") for n in names)


@pytest.mark.parametrize("path", CONSUMERS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_no_consumer_reads_the_analysis_by_string_key(path):
    assert string_key_reads(path) == []


def test_the_check_sees_each_kind_of_read(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("def f(analysis, self):\n"
                       "    a = analysis.sections['power']\n"
                       "    b = analysis['cooling']\n"
                       "    c = self.analysis['fabric']\n"
                       "    d = analysis.summary_json['gpus']\n"
                       "    e = analysis.result('fabric').section\n"
                       "    f = analysis.sections.get('bom')\n"
                       "    g = 'training' in analysis.sections\n"
                       "    h = [s.title for s in analysis.bom.sections]\n"
                       "    i = [s.section for s in analysis.bom.sections]\n", encoding="utf-8")
    found = [line.split(": ", 1)[1] for line in string_key_reads(planted, tmp_path)]
    assert sorted(found) == sorted([".sections[...]", "analysis[...]", "analysis[...]", ".summary_json",
                                    ".result(...).section", ".sections.get(...)", "in .sections"])
    # the bill's own sections (a list of views) and a bill section's ``section`` are not the JSON side

