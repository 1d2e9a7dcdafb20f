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
