"""The packaged app's build inputs: what the PyInstaller spec and the package check rely on."""
from __future__ import annotations

import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest

import designer
from catalog.registry import DATA_DIR
from designer import samples

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"


def _check_module():
    spec = importlib.util.spec_from_file_location("check_package", PACKAGING / "check_package.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_version_is_pyprojects():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert designer.__version__ == project["version"]
    metainfo = (PACKAGING / "io.podplanner.PodPlanner.metainfo.xml").read_text(encoding="utf-8")
    assert f'<release version="{project["version"]}"' in metainfo


def test_data_is_found_through_the_package_not_a_source_path():
    assert DATA_DIR.is_dir() and any(DATA_DIR.rglob("*.json"))
    assert samples.DEFAULT.is_file() and len(samples.all_samples()) == 2
    # what the spec bundles is what the packages read
    spec = (PACKAGING / "podplanner.spec").read_text(encoding="utf-8")
    assert '"catalog" / "data"), "catalog/data")' in spec and '"designer/samples")' in spec
    for name in ("podplanner.svg", "podplanner.png", "podplanner.desktop", "io.podplanner.PodPlanner.metainfo.xml",
                 "podplanner_main.py"):
        assert (PACKAGING / name).is_file() and name in spec


def test_the_package_check_exercises_every_export_format(monkeypatch):
    from exporters.registry import FORMATS

    check = _check_module()
    script = Path(sys.executable).with_name("podplanner")  # the installed console script, as the frozen app
    monkeypatch.setattr(check, "APP", script)
    flags = dict(check.export_formats())
    assert set(flags) == {f"--{name}" for name in FORMATS}
    assert flags["--pdf"] == ".pdf" and flags["--netbox"] == ""


def test_the_desktop_entry_starts_the_app():
    entry = (PACKAGING / "podplanner.desktop").read_text(encoding="utf-8")
    assert re.search(r"^Exec=podplanner %f$", entry, re.M) and re.search(r"^Icon=podplanner$", entry, re.M)


def _entry_module():
    spec = importlib.util.spec_from_file_location("podplanner_main", PACKAGING / "podplanner_main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_entry_point_knows_which_command_lines_open_the_window(capsys):
    entry = _entry_module()
    opens = entry._opens_window
    assert opens([]) and opens(["gui"]) and opens(["/no/such/design.podplan.json"])  # a missing file too
    assert opens(["--catalog", "/tmp/cat", "design.json"]) and opens(["--catalog=/tmp/cat"])
    assert not opens(["analyze", "x.json"]) and not opens(["--version"]) and not opens(["-h"])
    assert not opens(["--catalog", "/tmp/cat", "export", "x.json"])
    # its list of commands is the command line's own
    from widgets.app.launcher import main

    with pytest.raises(SystemExit):
        main(["--help"])
    listed = re.search(r"\{([a-z,-]+)\}", capsys.readouterr().out).group(1).split(",")
    assert set(listed) | {"gui"} == entry.COMMANDS


def test_an_error_before_the_window_is_logged_as_a_failed_start(tmp_path, monkeypatch):
    from PySide6.QtCore import QCoreApplication

    from widgets.app import error_log

    entry = _entry_module()
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # no box: nobody to click it
    monkeypatch.setattr(error_log, "default_log_dir", lambda: tmp_path / "logs")
    monkeypatch.setattr(error_log._log, "path", None)
    entry._tell("podplanner: error: broken.podplan.json: not a JSON document")
    text = (tmp_path / "logs" / "podplanner.log").read_text(encoding="utf-8")
    assert "START-FAILED PodPlanner" in text and "broken.podplan.json: not a JSON document" in text
    assert "unexpected error" not in text
    assert QCoreApplication.applicationName() == "PodPlanner"
