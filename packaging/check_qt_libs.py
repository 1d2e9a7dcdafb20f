"""Before opening a window on Linux, check for the X11 libraries Qt's xcb plugin loads.

Without them Qt stops with "Could not load the Qt platform plugin xcb"; this
prints instead the one apt line that installs what is missing.
"""
from __future__ import annotations

import os
import subprocess
import sys

#: soname -> Debian package that ships it
LIBS = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libX11-xcb.so.1": "libx11-xcb1",
}


def missing_packages(available: str) -> list[str]:
    return sorted({pkg for soname, pkg in LIBS.items() if soname not in available})


def main() -> int:
    if not sys.platform.startswith("linux"):
        return 0
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb"):
        return 0  # offscreen, wayland, vnc ... do not need the X11 libraries
    try:
        listing = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return 0  # cannot tell; let Qt speak for itself
    missing = missing_packages(listing)
    if missing:
        print("PodPlanner needs X11 libraries that Qt loads to open a window. Install them with:", file=sys.stderr)
        print(f"  sudo apt-get install {' '.join(missing)}", file=sys.stderr)
        return 1
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and not platform:
        print("No display found (DISPLAY is not set). Run under a desktop session, or with "
              "QT_QPA_PLATFORM=offscreen for a headless check.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
