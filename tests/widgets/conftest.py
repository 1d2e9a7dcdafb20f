"""Widget tests run headless: the offscreen platform must be chosen before Qt is imported."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, QStandardPaths  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory):
    """Keep tests away from the user's settings, recent files and recovery folder, and from each other's: a
    workspace, a dock size or the heat map left on by one test must not become the next one's start."""
    QStandardPaths.setTestModeEnabled(True)
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path_factory.mktemp("settings")))
    yield


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch):
    """A modal box would block an offscreen test: closing an edited window discards, errors are recorded, and
    Save over a file changed on disk writes nothing (tests of that question put the real box back)."""
    from widgets.app.file_actions import FileController
    from widgets.app.main_window import MainWindow

    monkeypatch.setattr(FileController, "ask_save_changes", lambda self: "discard")
    monkeypatch.setattr(FileController, "ask_restore", lambda self, recovery: False)
    monkeypatch.setattr(FileController, "ask_save_path", lambda self: None)
    monkeypatch.setattr(FileController, "ask_disk_conflict", lambda self, state: "cancel")
    monkeypatch.setattr(MainWindow, "show_error", lambda self, text: self.statusBar().showMessage(text))


@pytest.fixture
def sample_window(qtbot, catalog):
    """A main window at 1400 x 900 with the drawn DGX B200 sample open and analysed (edits analysed at once)."""
    import drawn as samples
    from widgets.app.main_window import MainWindow

    w = MainWindow(catalog, debounce_ms=0)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    assert w.open_path(samples.DGX_B200_SU), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    return w


@pytest.fixture
def window(qtbot, catalog):
    """A main window on the bundled sample, shown at 1400 x 900 (test files may define their own)."""
    from widgets.app.main_window import MainWindow

    w = MainWindow(catalog)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def synced_window(qtbot, catalog):
    """``synced_window(sample=None)``: a window shown at 1400 x 900 whose engines run inside each request (every
    edit has its analysis at once), on ``sample`` when one is given."""
    from widgets.app.main_window import MainWindow

    def make(sample=None):
        w = MainWindow(catalog, debounce_ms=0)
        w.runner.sync = True
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        if sample is not None:
            assert w.open_path(sample), w.last_error
        return w

    return make


@pytest.fixture
def racks_as():
    """``racks_as(analysis, rows)``: ``analysis`` (a real one) with its racks replaced by ``rows``.

    Each row is a dict with ``id``, and any of ``name``, ``max_kw``, ``limit_kw``, ``utilisation``,
    ``chain_utilisation`` and ``air_density`` (None: the engine gives no figure); a figure a row leaves out
    is the analysis' own for a rack it knows, else its first rack's. The power and cooling sections' rows, the
    engines' per-rack arrays (which the plan's heat map and the power chart read) and the project's racks
    all change together, so the result reads as one analysis through its views. For tests that feed a
    widget figures no engine would give, so a widget working a figure out itself fails.
    """
    from dataclasses import replace
    from types import MappingProxyType

    import numpy as np

    def make(analysis, rows: list[dict]):
        power, cooling = analysis.sections["power"], analysis.sections["cooling"]
        by_id = {r["id"]: i for i, r in enumerate(power["racks"])}
        project_racks = {r.id: r for r in analysis.project.racks}
        p_rows, c_rows, racks = [], [], []
        for row in rows:
            i = by_id.get(row["id"], 0)
            p = {**power["racks"][i], **{k: v for k, v in row.items() if k != "air_density"}}
            c = {**cooling["racks"][i], "id": row["id"], "name": p["name"]}
            if "air_density" in row:
                c["air_density"] = row["air_density"]
            p_rows.append(p)
            c_rows.append(c)
            known = project_racks.get(row["id"], analysis.project.racks[i])
            racks.append(replace(known, id=row["id"], name=p["name"]))

        def arr(rows_, key):
            return np.array([np.nan if r[key] is None else r[key] for r in rows_], dtype=float)

        results = dict(analysis.results)
        results["power"] = replace(analysis.result("power"), section=MappingProxyType({**power, "racks": p_rows}),
                                   rack_ids=tuple(r["id"] for r in rows), rack_max_kw=arr(p_rows, "max_kw"),
                                   rack_typical_kw=arr(p_rows, "typical_kw"), rack_limit_kw=arr(p_rows, "limit_kw"),
                                   rack_utilisation=arr(p_rows, "utilisation"),
                                   rack_chain_utilisation=arr(p_rows, "chain_utilisation"))
        results["cooling"] = replace(analysis.result("cooling"),
                                     section=MappingProxyType({**cooling, "racks": c_rows}),
                                     rack_air_density=arr(c_rows, "air_density"))
        sections = {**analysis.sections, "power": results["power"].section, "cooling": results["cooling"].section}
        summary = {**analysis.summary_json, "racks": len(rows)}
        return replace(analysis, summary_json=MappingProxyType(summary), sections=MappingProxyType(sections),
                       results=MappingProxyType(results), project=replace(analysis.project, racks=tuple(racks)))

    return make


@pytest.fixture
def dialog(qtbot, catalog):
    """The New SuperPOD dialog, shown, its preview worker stopped at the end."""
    from widgets.app.new_superpod import NewSuperpodDialog

    d = NewSuperpodDialog(catalog, debounce_ms=20)
    qtbot.addWidget(d)
    d.show()
    yield d
    d.runner.shutdown(wait=True)
