"""What the NetBox environment's scripts share: the cache folder, running a command, timing a step, Debian's
packages (tools/netbox/netbox_env.py and netbox_python.py; only the standard library)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def cache_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "podplanner-netbox"
    return Path(os.environ.get("PODPLANNER_NETBOX_CACHE", default))


def log(message: str) -> None:
    print(f"[netbox-env] {message}", flush=True)


def run(cmd, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("check", True)
    return subprocess.run([str(c) for c in cmd], **kwargs)


class Timer:
    """Times a step and keeps the times for the summary line."""

    times: dict[str, float] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self):
        self.start = time.monotonic()
        log(f"{self.name} ...")
        return self

    def __exit__(self, *exc):
        spent = time.monotonic() - self.start
        Timer.times[self.name] = spent
        log(f"{self.name}: {spent:.1f} s")


# --- Debian packages ---------------------------------------------------------------------------------------


def missing_packages(names) -> list[str]:
    out = run(["dpkg-query", "-W", "-f", "${Package} ${Status}\n", *names], capture_output=True, text=True,
              check=False).stdout
    installed = {line.split()[0] for line in out.splitlines() if line.endswith(" installed")}
    return [n for n in names if n not in installed]


def apt_install(names) -> None:
    missing = missing_packages(names)
    if not missing:
        return
    if os.geteuid() != 0:
        sys.exit(f"netbox-env: install these Debian packages first (as root): apt-get install {' '.join(missing)}")
    with Timer(f"apt-get install {' '.join(missing)}"):
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
