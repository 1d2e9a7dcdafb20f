"""``run_app``: the start-up path ``podplanner gui [FILE]`` takes, without entering the event loop."""
from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtWidgets import QApplication

from widgets.app import application as app_module
from widgets.app.main_window import MainWindow


@pytest.fixture
def started(qtbot, monkeypatch):
    """Run ``run_app`` with exec() returning at once; yield the windows it opened."""
    monkeypatch.setattr(app_module.QApplication, "exec", lambda self=None: 0)
    shown: list[str] = []
    monkeypatch.setattr(MainWindow, "show_error", lambda self, text: shown.append(text))
    # a first start opens maximised; its layout must not become the one every later test's window restores
    monkeypatch.setattr(MainWindow, "save_layout", lambda self: None)
    before = set(QApplication.topLevelWidgets())
    result = {"shown": shown}
    yield result
    for w in set(QApplication.topLevelWidgets()) - before:
        if isinstance(w, MainWindow) and shiboken6.isValid(w):
            w.close()
            w.deleteLater()


def _new_window(before_ids) -> MainWindow:
    wins = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and id(w) not in before_ids]
    assert len(wins) == 1
    return wins[0]


def test_no_file_opens_the_default_sample(started, catalog, qtbot):
    before = {id(w) for w in QApplication.topLevelWidgets()}
    assert app_module.run_app(None, catalog) == 0
    win = _new_window(before)
    assert QApplication.applicationName() == "PodPlanner" and QApplication.organizationName() == "PodPlanner"
    from designer.samples import DGX_B200_SU
    from designer.fileformat import load

    assert len(win.scene.rack_items) == len(load(DGX_B200_SU, catalog).racks) == 23  # with its storage array rack
    assert win.last_error is None


def test_broken_file_prints_one_line_and_starts_empty(started, catalog, tmp_path, capsys, qtbot):
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    before = {id(w) for w in QApplication.topLevelWidgets()}
    assert app_module.run_app(str(broken), catalog) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(broken) in err and "Traceback" not in err
    win = _new_window(before)
    assert win.project.racks == () and win.project.halls == ()
    assert err.startswith("podplanner: error: ")
    assert win.last_error == err.strip().removeprefix("podplanner: error: ")
    qtbot.waitUntil(lambda: started["shown"] == [win.last_error], timeout=60000)


def test_a_broken_user_catalog_folder_is_told_in_the_window_and_the_log(catalog, qtbot, tmp_path, monkeypatch):
    import drawn as samples
    from catalog.registry import Catalog
    from widgets.app import application as app, error_log

    warned = Catalog(list(catalog), catalog.sources,
                     warnings=[f"{tmp_path}/catalog: cannot be read (Permission denied); its entries are not loaded",
                               f"{tmp_path}/catalog/x.json: power_max_w: -5 is outside 0 to 1e7"])
    lines = []
    monkeypatch.setattr(error_log, "log_warning", lines.append)
    window = app._open_window(str(samples.DGX_B200_SU), warned, offer_recovery=False)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Catalog:"), timeout=60000)
    assert "cannot be read (Permission denied)" in window.statusBar().currentMessage()
    assert "and 1 more" in window.statusBar().currentMessage()
    assert len(lines) == 2 and "x.json" in lines[1]


def test_a_start_up_file_over_the_size_limit_is_offered_a_larger_limit(started, catalog, tmp_path, qtbot,
                                                                       monkeypatch):
    import json

    from catalog.files import READ_LIMIT_ENV, read_limit
    from designer.samples import DGX_B200_SU
    from widgets.app import file_limit

    monkeypatch.setenv(READ_LIMIT_ENV, "1")  # restored after the test, with whatever the window sets
    monkeypatch.setattr(file_limit, "_GIVEN_AT_START", "1")
    doc = json.loads(DGX_B200_SU.read_text())
    big = tmp_path / "big.podplan.json"
    big.write_text(json.dumps(doc, indent=2) + " " * 1_400_000)  # 1.4 MB: a design's text bounded, its layout not
    offered = []
    monkeypatch.setattr(MainWindow, "ask_raise_limit", lambda self, path, mb: offered.append(mb) or True)
    before = {id(w) for w in QApplication.topLevelWidgets()}
    assert app_module.run_app(str(big), catalog) == 0
    win = _new_window(before)
    qtbot.waitUntil(lambda: win.path == big, timeout=60000)  # the design is read inside the wait
    assert offered == [2] and read_limit() == 2 * 1024 * 1024
    assert len(win.scene.rack_items) == 23 and started["shown"] == []
