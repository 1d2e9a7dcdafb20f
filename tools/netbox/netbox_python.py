"""NetBox's Python: CPython 3.13 built from the upstream tarball in trixie's ``python3.13`` source package, with
profile-guided and link-time optimisation (``$PODPLANNER_NETBOX_PYTHON`` names another 3.12+ to use instead);
used by tools/netbox/netbox_env.py. Only the standard library."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from nb_common import Timer, apt_install, cache_dir, log, run

PYTHON_SOURCE_PACKAGE = "python3.13"  # trixie's; its .orig.tar.xz is upstream CPython
TRIXIE_SOURCES = Path("/etc/apt/sources.list.d/podplanner-trixie-src.sources")
TRIXIE_SOURCES_TEXT = """\
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""
# Debian 12 packages the build and the servers need (apt-get, when run as root and one is missing).
BUILD_PACKAGES = ["build-essential", "libssl-dev", "libffi-dev", "zlib1g-dev", "libbz2-dev", "libreadline-dev",
                  "libsqlite3-dev", "liblzma-dev", "libncurses-dev", "uuid-dev", "tk-dev", "libexpat1-dev", "xz-utils",
                  "dpkg-dev", "libpq-dev"]


def python_prefix() -> Path:
    # "-pgo": a plain build cached by an earlier version of this tool is not reused
    return cache_dir() / "python3.13-pgo"


def built_python() -> Path:
    return python_prefix() / "bin" / "python3.13"


NEEDED_MODULES = "import ssl, sqlite3, ctypes, lzma, bz2, zlib"


def usable(python: Path) -> bool:
    """A CPython of 3.12 or later with the standard modules NetBox and pip use."""
    check = f"import sys; {NEEDED_MODULES}; sys.exit(sys.version_info < (3, 12))"
    return python.exists() and run([python, "-c", check], check=False, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL).returncode == 0


def python_bin() -> Path:
    """NetBox's Python: ``$PODPLANNER_NETBOX_PYTHON``, else the optimised build (made by :func:`build_python`).

    Not a 3.12+ that happens to be on the machine, such as pyenv's: a build without profile-guided and link-time
    optimisation runs NetBox's import (interpreter-bound: forms, signals, the ORM) about a quarter slower, and
    the NetBox test is the longest step of CI."""
    named = os.environ.get("PODPLANNER_NETBOX_PYTHON")
    # resolved: the environment's stamp names it, and a link (python3) may point elsewhere later
    return Path(shutil.which(named) or named).resolve() if named else built_python()


def python_source(src: Path) -> Path:
    """The upstream CPython tarball of trixie's python3.13 source package, downloaded into ``src`` once."""
    tarballs = sorted(src.glob(f"{PYTHON_SOURCE_PACKAGE}_*.orig.tar.xz"))
    if not tarballs:
        if os.geteuid() != 0:
            sys.exit(f"netbox-env: as root, add {TRIXIE_SOURCES} (deb-src for trixie) or put "
                     f"{PYTHON_SOURCE_PACKAGE}_*.orig.tar.xz in {src}")
        added = not TRIXIE_SOURCES.exists()
        if added:
            TRIXIE_SOURCES.write_text(TRIXIE_SOURCES_TEXT)
        try:
            with Timer(f"apt-get source {PYTHON_SOURCE_PACKAGE} (trixie, source only)"):
                run(["apt-get", "update", "-qq"])
                run(["apt-get", "source", "--download-only", "-qq", f"{PYTHON_SOURCE_PACKAGE}/trixie"], cwd=src)
        finally:
            if added:  # the tarball is cached: the machine's apt need not fetch trixie's sources from now on
                TRIXIE_SOURCES.unlink()
        tarballs = sorted(src.glob(f"{PYTHON_SOURCE_PACKAGE}_*.orig.tar.xz"))
    return tarballs[-1]


#: CPython's profiling task, its own --pgo tests, passing whatever their outcome (regrtest's exit 2, 3 or 5: a
#: test failed, changed its environment or failed again): a test that fails on this machine (as root,
#: test_generators did) has still run its code for the profile, which is all the build wants of it. A crash
#: (a signal) or a run that ran no test fails the build, which would otherwise be quietly unoptimised.
PROFILE_TASK = ("PROFILE_TASK=-c \"import subprocess, sys; "
                "code = subprocess.run([sys.executable, '-m', 'test', '--pgo', '--timeout=1200']).returncode; "
                "sys.exit(code not in (0, 2, 3, 5))\"")


def build_python() -> None:
    if usable(python_bin()):
        log(f"Python for NetBox: {python_bin()}")
        return
    if os.environ.get("PODPLANNER_NETBOX_PYTHON"):
        sys.exit(f"netbox-env: $PODPLANNER_NETBOX_PYTHON ({python_bin()}) is not a Python 3.12+ with {NEEDED_MODULES}")
    apt_install(BUILD_PACKAGES)
    src = cache_dir() / "src"
    src.mkdir(parents=True, exist_ok=True)
    tarball = python_source(src)
    version = tarball.name.split("_")[1].removesuffix(".orig.tar.xz")
    tree = src / f"Python-{version}"
    if tree.exists():
        shutil.rmtree(tree)
    with Timer(f"unpack {tarball.name}"):
        run(["tar", "xf", tarball.name], cwd=src)
    jobs = str(os.cpu_count() or 2)
    with Timer(f"build CPython {version} with PGO and LTO (configure, make -j{jobs}, make install)"):
        build_log = src / "build.log"
        with build_log.open("w") as out:
            # --enable-optimizations: built, run on CPython's own profiling task (its --pgo tests, about a minute),
            # then built again from that profile
            for step in (["./configure", f"--prefix={python_prefix()}", "--with-ensurepip=install",
                          "--enable-optimizations", "--with-lto"],
                         ["make", f"-j{jobs}", PROFILE_TASK], ["make", "install"]):
                if run(step, cwd=tree, stdout=out, stderr=subprocess.STDOUT, check=False).returncode:
                    sys.exit(f"netbox-env: {' '.join(step)} failed, see {build_log}")
    shutil.rmtree(tree)
