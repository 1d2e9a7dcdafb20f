"""Help ▸ About: the version of pyproject.toml, every catalog source, every bundled library with its licence."""
from __future__ import annotations

import email.message
import json
import re
import sys
import tomllib
from collections import Counter
from importlib import metadata
from pathlib import Path

from PySide6.QtWidgets import QApplication

from catalog import load_catalog
from catalog.registry import DATA_DIR
from widgets.app import about, error_log
from widgets.app.about import AboutDialog

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))


def _table(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def _metadata_licence_fields(name: str) -> str:
    meta = metadata.distribution(name).metadata
    return "\n".join([meta.get("License-Expression") or "", meta.get("License") or "",
                      *(meta.get_all("Classifier") or [])])


def _about(window) -> AboutDialog:
    window.about_action.trigger()
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, AboutDialog) and w.isVisible()]
    assert len(dialogs) == 1
    return dialogs[0]


def test_the_version_is_pyprojects(window, qtbot):
    dialog = _about(window)
    version = PYPROJECT["project"]["version"]
    assert dialog.parts["version"] == version
    assert f"version {version}" in dialog.title_label.text()
    assert dict(about.about_facts())["Version"] == version
    assert PYPROJECT["project"]["description"] == about.DESCRIPTION
    dialog.close()


def test_runtime_dependencies_are_pyprojects():
    names = [re.match(r"[A-Za-z0-9._-]+", dep).group(0) for dep in PYPROJECT["project"]["dependencies"]]
    assert list(about.RUNTIME_DEPENDENCIES) == names


def test_every_catalog_source_is_listed_with_its_counts(window, catalog):
    dialog = _about(window)
    rows = _table(dialog.sources_table)
    assert [r[0] for r in rows] == list(catalog.sources)
    cited, unconfirmed = Counter(), Counter()
    for device in catalog:
        for figure in device.figures.values():
            cited[figure.source] += 1
            unconfirmed[figure.source] += figure.unconfirmed
    for sid, title, url, n, u in rows:
        source = catalog.sources[sid]
        assert (title, url) == (source.title, source.url)
        assert (int(n), int(u)) == (cited[sid], unconfirmed[sid])
    assert sum(unconfirmed.values()) > 0
    assert f"{sum(unconfirmed.values()):,} of the figures are unconfirmed" in dialog.parts["catalog_summary"]
    dialog.close()


def test_a_source_declared_inside_an_entry_is_listed_too(tmp_path):
    entry = json.loads((DATA_DIR / "racks" / "rack-42u-600x1070.json").read_text(encoding="utf-8"))
    entry.update(id="own-rack", source="OWN1", evidence="U",
                 sources={"OWN1": {"title": "A vendor sheet kept with this entry", "url": "https://example.com/r"}})
    entry["max_load_kg"] = 1500
    (tmp_path / "own-rack.json").write_text(json.dumps(entry), encoding="utf-8")
    catalog = load_catalog([tmp_path])
    rows = {r.id: r for r in about.catalog_sources(catalog)}
    assert "OWN1" not in catalog.sources
    own = rows["OWN1"]
    assert own.title == "declared in the catalog entry own-rack"
    assert own.figures == own.unconfirmed > 0
    assert list(rows)[-1] == "OWN1"


def test_every_runtime_dependency_has_its_metadata_licence(window):
    dialog = _about(window)
    rows = {name: (version, licence) for name, version, licence in _table(dialog.libraries_table)}
    for name in (*about.RUNTIME_DEPENDENCIES, "shiboken6"):
        version, licence = rows[name]
        assert version == metadata.version(name)
        assert licence not in (about.NOT_BUNDLED, about.NO_LICENCE, "")
        fields = _metadata_licence_fields(name)
        assert all(part.strip() in fields for part in licence.split(", ")), (name, licence)
    dialog.close()


def test_needed_in_turn_are_listed_once_without_extras():
    libraries = about.library_licences()
    names = [lib.name.lower().replace("_", "-") for lib in libraries]
    assert len(names) == len(set(names))
    assert names.index("shiboken6") > names.index("pyside6-essentials")
    # ezdxf's "draw" extra names matplotlib and PyMuPDF: not needed to run, never listed
    assert "matplotlib" not in names and "pymupdf" not in names
    assert "et-xmlfile" in names  # openpyxl needs it


def test_a_distribution_without_metadata_says_so():
    missing = "podplanner-no-such-distribution"
    assert about.library_licences((missing, "PyYAML")) == [
        about.Library(missing, "", about.NOT_BUNDLED),
        about.Library("PyYAML", metadata.version("PyYAML"), about.licence_of(metadata.metadata("PyYAML")))]


def _meta(**fields) -> email.message.Message:
    msg = email.message.Message()
    for key, value in fields.items():
        for v in value if isinstance(value, list) else [value]:
            msg[key.replace("_", "-")] = v
    return msg


def test_licence_of_reads_the_metadata_never_guesses():
    assert about.licence_of(_meta(License_Expression="MIT OR Apache-2.0", License="MIT")) == "MIT OR Apache-2.0"
    assert about.licence_of(_meta(License="BSD-3-Clause")) == "BSD-3-Clause"
    classifiers = ["Programming Language :: Python", "License :: OSI Approved :: MIT License"]
    assert about.licence_of(_meta(Classifier=classifiers)) == "MIT License"
    # a whole licence text pasted into the field: the classifier names it better
    full_text = "Copyright (c) 2005 Someone\n\nRedistribution and use in source and binary forms..."
    assert about.licence_of(_meta(License=full_text, Classifier=classifiers)) == "MIT License"
    assert about.licence_of(_meta(License=full_text)) == "Copyright (c) 2005 Someone"
    assert about.licence_of(_meta(Name="x")) == about.NO_LICENCE


def test_the_log_file_and_the_recovery_folder_are_shown(window):
    dialog = _about(window)
    assert str(error_log.log_path()) in dialog.fact_labels["Log file"].text()
    assert str(window.files.recovery_dir) in dialog.fact_labels["Autosave and recovery"].text()
    dialog.close()


def test_a_needed_library_without_metadata_says_so_too(monkeypatch):
    # as in a packaged app that bundled PySide6's metadata but not shiboken6's
    real = metadata.distribution

    def distribution(name):
        if name.lower() == "shiboken6":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "distribution", distribution)
    libraries = about.library_licences(("PySide6-Essentials",))
    assert libraries[1] == about.Library("shiboken6", "", about.NOT_BUNDLED)


def test_without_packaging_extras_are_still_left_out(monkeypatch):
    monkeypatch.setitem(sys.modules, "packaging.requirements", None)
    names = [lib.name.lower() for lib in about.library_licences(("ezdxf",))]
    assert names[0] == "ezdxf" and "pyparsing" in names
    assert "matplotlib" not in names and "pymupdf" not in names
