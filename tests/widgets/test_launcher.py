"""The ``podplanner`` console script (widgets.app.launcher): the domain's commands, the window and the exports."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from designer.samples import DGX_B200_SU
from widgets.app import application as app_module
from widgets.app import qt_env
from widgets.app.launcher import main

PODPLANNER = Path(sys.executable).parent / "podplanner"
QT = ("PySide6", "pyqtgraph", "shiboken6")


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def qt_modules_after(code: str) -> list[str]:
    """Top-level Qt packages in ``sys.modules`` once ``code`` has run in a fresh interpreter."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(QT)!r})), file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    return json.loads(p.stderr.strip().splitlines()[-1])


def test_console_script_runs_the_launcher(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    p = subprocess.run([str(PODPLANNER), "validate", str(bad)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    p = subprocess.run([str(PODPLANNER), "analyze", str(DGX_B200_SU), "--json"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout)["summary"]["gpus"] == 248
    p = subprocess.run([str(PODPLANNER), "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "{analyze,validate,fabric,train,new,plan,catalog,compare,sweep,gui,export}" in p.stdout


def test_analyze_never_loads_qt():
    code = f"from widgets.app.launcher import main; main(['analyze', {str(DGX_B200_SU)!r}, '--json'])"
    assert qt_modules_after(code) == []


def test_the_launcher_and_the_gui_command_import_no_qt():
    assert qt_modules_after("import widgets, widgets.app.launcher, widgets.app.cli, exporters.cli") == []


@pytest.fixture
def opened(monkeypatch):
    """Stand in for the window: record what ``run_app`` was asked to open."""
    calls = []
    monkeypatch.setattr(app_module, "run_app", lambda path, catalog: calls.append(path) or 0)
    return calls


def test_no_command_or_a_file_opens_the_window(capsys, opened, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert run(capsys) == (0, "", "")
    assert run(capsys, str(DGX_B200_SU)) == (0, "", "")
    assert run(capsys, "gui", str(DGX_B200_SU)) == (0, "", "")
    assert opened == [None, str(DGX_B200_SU), str(DGX_B200_SU)]


def test_gui_with_a_missing_file_fails_before_any_window(capsys, opened, monkeypatch):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    code, _, err = run(capsys, "no-such-design.podplan.json")
    assert code == 2 and err == "podplanner: error: no-such-design.podplan.json: no such file\n"
    assert opened == []


def test_no_display_is_one_line_before_any_window(capsys, opened, monkeypatch):
    monkeypatch.setattr(qt_env, "display_problem", lambda: "no display found (DISPLAY is not set)")
    code, _, err = run(capsys)
    assert code == 2 and err == "podplanner: error: no display found (DISPLAY is not set)\n"
    assert opened == []


def test_unknown_command_is_named(capsys):
    code, _, err = run(capsys, "fabrik", "--endpoints", "3")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("podplanner: error: unknown command 'fabrik' (did you mean 'fabric'? commands: analyze, "
                          "validate, fabric, train, new, catalog, compare, sweep, plan, gui, export; ")
