"""Before opening a window on Linux, check for a display and the X11 libraries Qt's xcb plugin loads.

Without them Qt aborts with "Could not load the Qt platform plugin xcb"; instead
we say what is missing, with the one apt line that installs it. This module does
not import Qt: it must run before Qt is loaded.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

#: soname -> Debian package that ships it (what Qt 6's xcb platform plugin links against).
LIBS = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
}


def missing_packages(available: str) -> list[str]:
    """Packages whose libraries do not appear in an ``ldconfig -p`` listing."""
    return sorted({pkg for soname, pkg in LIBS.items() if soname not in available})


def _xcb_plugin() -> Path | None:
    spec = importlib.util.find_spec("PySide6")  # locates the package without loading Qt
    if spec is None or not spec.submodule_search_locations:
        return None
    plugin = Path(list(spec.submodule_search_locations)[0]) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def unresolved_libraries(plugin: Path) -> list[str] | None:
    """Sonames the xcb plugin (and what it loads) cannot find, per ``ldd``; None when ldd cannot tell."""
    try:
        out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    return sorted({line.split("=>")[0].strip() for line in out.splitlines() if "not found" in line})


def display_problem(environ=os.environ, ldconfig: str | None = None) -> str | None:
    """Why a window cannot open here (one message), or None when it can."""
    if not sys.platform.startswith("linux"):
        return None
    platform = environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb"):
        return None  # offscreen, wayland, vnc ... do not need the X11 libraries
    plugin = _xcb_plugin() if ldconfig is None else None
    unresolved = unresolved_libraries(plugin) if plugin else None
    if unresolved is not None:
        missing = sorted({LIBS.get(soname, soname) for soname in unresolved})
    else:
        if ldconfig is None:
            try:
                ldconfig = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
            except OSError:
                return None  # cannot tell; let Qt speak for itself
        missing = missing_packages(ldconfig)
    if missing:
        return ("PodPlanner needs X11 libraries that Qt loads to open a window. Install them with: "
                f"sudo apt-get install {' '.join(missing)}")
    if not environ.get("DISPLAY") and not environ.get("WAYLAND_DISPLAY") and not platform:
        return ("no display found (DISPLAY is not set): run under a desktop session, or set "
                "QT_QPA_PLATFORM=offscreen for a headless check")
    return None


def install_missing(run=subprocess.run) -> list[str]:
    """As root with apt-get (a fresh Debian machine), install the X11 libraries the xcb plugin lacks; the packages
    it asked for, [] when nothing was missing or it could not (not root, no apt-get: the message says the line)."""
    plugin = _xcb_plugin()
    unresolved = unresolved_libraries(plugin) if plugin else None
    try:  # what the plugin links against, and what Qt loads at run time (libxcb-cursor) by its soname
        listed = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    except OSError:
        listed = None
    missing = sorted(({LIBS.get(soname, soname) for soname in unresolved or []} & set(LIBS.values()))
                     | set(missing_packages(listed) if listed else []))
    can = sys.platform.startswith("linux") and os.geteuid() == 0 and Path("/usr/bin/apt-get").exists()
    if not missing or not can:
        return []
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    print(f"podplanner: installing the X11 libraries Qt needs: {' '.join(missing)}", file=sys.stderr)
    if run(["apt-get", "install", "-y", "-qq", *missing], env=env, check=False,
           stdout=subprocess.DEVNULL).returncode:
        run(["apt-get", "update", "-qq"], env=env, check=False)
        run(["apt-get", "install", "-y", "-qq", *missing], env=env, check=False, stdout=subprocess.DEVNULL)
    return missing


def main(argv: list[str] | None = None) -> int:
    if "--install" in (sys.argv[1:] if argv is None else argv):
        install_missing()
    problem = display_problem()
    if problem:
        print(f"podplanner: error: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
