"""The display check runs before Qt loads, so it is tested without Qt."""
from __future__ import annotations

from widgets.app.qt_env import LIBS, display_problem, missing_packages

FULL = "\n".join(f"\t{soname} (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/{soname}" for soname in LIBS)


def test_missing_libraries_give_one_apt_line():
    listing = FULL.replace("libxcb-cursor.so.0", "x").replace("libxkbcommon-x11.so.0", "y")
    assert missing_packages(listing) == ["libxcb-cursor0", "libxkbcommon-x11-0"]
    problem = display_problem({"DISPLAY": ":0"}, ldconfig=listing)
    assert problem.endswith("sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0")
    assert "\n" not in problem


def test_no_display_is_reported():
    assert "DISPLAY is not set" in display_problem({}, ldconfig=FULL)


def test_all_present_or_headless_is_fine():
    assert display_problem({"DISPLAY": ":0"}, ldconfig=FULL) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, ldconfig="") is None


def test_make_run_installs_the_missing_x11_libraries_as_root_and_only_then(monkeypatch):
    """``make run`` on a fresh Debian machine: the libraries Qt's xcb plugin needs are installed with apt-get
    when it runs as root, and nothing is run otherwise (the message then gives the apt line)."""
    import subprocess
    from types import SimpleNamespace

    from widgets.app import qt_env

    listing = "\n".join(f"\t{soname} (libc6,x86-64) => /usr/lib/{soname}" for soname in LIBS
                        if soname not in ("libxcb-cursor.so.0", "libxcb-icccm.so.4"))
    monkeypatch.setattr(qt_env, "_xcb_plugin", lambda: None)
    monkeypatch.setattr(qt_env.subprocess, "run", lambda cmd, **kw: SimpleNamespace(stdout=listing, returncode=0))
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(qt_env.os, "geteuid", lambda: 0)
    monkeypatch.setattr(qt_env.Path, "exists", lambda self: True)
    assert qt_env.install_missing(run=fake_run) == ["libxcb-cursor0", "libxcb-icccm4"]
    assert calls == [["apt-get", "install", "-y", "-qq", "libxcb-cursor0", "libxcb-icccm4"]]

    calls.clear()
    monkeypatch.setattr(qt_env.os, "geteuid", lambda: 1000)
    assert qt_env.install_missing(run=fake_run) == [] and calls == []
