"""The layers of DESIGN.md hold: no import points up, lazy imports inside functions included.

The contracts live in pyproject.toml (``[tool.importlinter]``) and are checked by
import-linter, whose graph (grimp) holds every import statement of a module, at
any depth. Between the folders: catalog at the bottom, then designer, exporters,
widgets. Inside designer: the model at the bottom, then the engines, the analysis,
the command line (``designer-layers``). These tests run it on the repository, make
sure its graph sees every source file, and make sure the same contracts still catch
imports planted in a throwaway copy, so the guard cannot go blind without a test failing.
"""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
ROOTS = CONFIG["root_packages"]
DESIGNER_LAYERS = next(c for c in CONFIG["contracts"] if c["id"] == "designer-layers")
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` with the pyproject.toml found in ``cwd``, whose packages come first on the path."""
    return subprocess.run([sys.executable, "-c", LINT, "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def source_of(module: str, root: Path) -> str:
    """``designer.cli`` -> ``designer/cli.py`` (or the package's ``__init__.py``), relative to ``root``."""
    path = Path(*module.split("."))
    return str(path / "__init__.py" if (root / path).is_dir() else path.with_suffix(".py"))


def broken_imports(report: str, root: Path) -> list[str]:
    """Each chain of a broken contract on one line: ``file:line: imports module``, then the next link."""
    found = []
    for chain in re.split(r"^-", report, flags=re.MULTILINE)[1:]:
        links = re.findall(r"^\s*([\w.]+) -> ([\w.]+) \(l\.([\d, ]+)\)", chain, flags=re.MULTILINE)
        if links:
            found.append(", then ".join(f"{source_of(src, root)}:{lines.replace(' ', '')}: imports {dst}"
                                        for src, dst, lines in links))
    return list(dict.fromkeys(found))


def test_every_layer_contract_is_kept():
    done = lint_imports(REPO)
    report = done.stdout + done.stderr
    assert done.returncode == 0, ("an import points up a layer (DESIGN.md, 'Layout: one folder per concern'), or a "
                                  "module of designer/ is in no layer of pyproject.toml's designer-layers:\n"
                                  + "\n".join(broken_imports(report, REPO)) + "\n\n" + report[report.find("Analyzed"):])
    assert f"Contracts: {len(CONFIG['contracts'])} kept, 0 broken." in report, report


def test_the_contracts_cover_the_layers_of_the_design():
    forbidden = {(src, bad) for c in CONFIG["contracts"] if c["type"] == "forbidden"
                 for src in c["source_modules"] for bad in c["forbidden_modules"]}
    for ours in ("designer", "exporters", "widgets", "bench"):
        assert ("catalog", ours) in forbidden
    for below in ("designer", "exporters"):
        for qt in ("PySide6", "pyqtgraph", "shiboken6", "widgets"):
            assert (below, qt) in forbidden
    assert ("designer", "exporters") in forbidden
    assert CONFIG["include_external_packages"] is True  # else a forbidden PySide6 is a configuration error


def layer_modules(layer: str) -> set[str]:
    """``"model : settings"`` -> {"model", "settings"} (``:`` siblings may import each other, ``|`` ones not)."""
    return {name.strip().strip("()") for name in re.split(r"[:|]", layer)}


def test_designer_is_layered_model_engines_analysis_cli():
    contract = DESIGNER_LAYERS
    assert contract["type"] == "layers" and contract["containers"] == ["designer"]
    assert contract["exhaustive"] is True  # every module of designer/ has its place, a new one too
    assert not contract.get("ignore_imports") and not contract.get("exhaustive_ignores")
    rank = {m: i for i, layer in enumerate(contract["layers"]) for m in layer_modules(layer)}  # 0 = top
    assert rank["cli"] < rank["analysis"] < rank["engines"] < rank["model"]
    assert rank["__main__"] == rank["cli"]
    for engine in ("power", "cooling", "fabric", "training", "bom", "cost", "quote", "floor_loading"):
        assert rank[engine] == rank["engines"], engine
    for model_side in ("settings", "quote_settings", "findings", "fileformat", "commands"):
        assert rank[model_side] == rank["model"], model_side


def test_the_checker_sees_every_source_file():
    """grimp skips a folder without ``__init__.py``: its imports would never be checked."""
    graph = grimp.build_graph(*ROOTS, cache_dir=None)
    unseen = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            if "__pycache__" not in parts and module not in graph.modules:
                unseen.append(str(path.relative_to(REPO)))
    assert not unseen, ("the import checker cannot see these files (is an __init__.py missing from their folder?): "
                        + ", ".join(unseen))


PLANTED = {
    "catalog/__init__.py": "",
    "catalog/loader.py": """
        import json


        def lazy():
            from designer import model  # catalog imports nothing of ours
            return model
        """,
    "designer/__init__.py": "",
    "designer/model.py": """
        def lazy():
            import PySide6.QtWidgets  # Qt below widgets/
            return PySide6


        def lazier():
            from designer import power  # the model never imports an engine
            return power
        """,
    "designer/power.py": """
        class PowerResult:
            def figures(self):
                from designer.analysis import analyze  # an engine never reads the analysis
                return analyze
        """,
    "designer/report.py": """
        def lazy():
            from exporters import pdf  # the domain never imports an exporter
            return pdf
        """,
    "exporters/__init__.py": "",
    "exporters/pdf.py": """
        class Chart:
            def draw(self):
                import pyqtgraph  # Qt below widgets/
                from widgets import app  # an exporter never imports the GUI
                return pyqtgraph, app
        """,
    "widgets/__init__.py": "",
    "widgets/app.py": "import PySide6\n",
    "bench/__init__.py": "",
}


@pytest.fixture
def planted(tmp_path) -> Path:
    """The packages of the repository, reduced to a few modules with forbidden imports inside functions.

    Every layer of designer/ is there (empty where not planted): a missing layer is a configuration error."""
    (tmp_path / "designer").mkdir()
    for tail in set().union(*map(layer_modules, DESIGNER_LAYERS["layers"])):
        (tmp_path / "designer" / f"{tail}.py").write_text("", encoding="utf-8")
    for name, text in PLANTED.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def test_the_contracts_catch_lazy_imports_naming_module_and_line(planted):
    done = lint_imports(planted)
    report = done.stdout + done.stderr
    assert done.returncode == 1, report
    assert f"Contracts: 0 kept, {len(CONFIG['contracts'])} broken." in report, report
    broken = broken_imports(report, planted)
    for chain in ("catalog/loader.py:5: imports designer.model", "designer/model.py:2: imports PySide6",
                  "exporters/pdf.py:3: imports pyqtgraph", "exporters/pdf.py:4: imports widgets.app",
                  "designer/report.py:2: imports exporters.pdf", "designer/model.py:7: imports designer.power",
                  "designer/power.py:3: imports designer.analysis"):
        assert chain in broken, "\n".join(broken)
    # designer/report.py is in no layer of designer-layers, which is exhaustive
    unplaced = report[report.find("not listed as layers"):]
    assert "- designer.report" in unplaced, report
