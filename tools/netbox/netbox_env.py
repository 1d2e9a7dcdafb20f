"""A real NetBox on this machine for the NetBox hand-off test (``make test-netbox``).

NetBox is on PyPI as the ``netbox`` wheel, which needs Python 3.12 or later; Debian 12 has 3.11. So
``prepare`` builds CPython 3.13 from the upstream tarball that Debian's archive carries in trixie's
``python3.13`` source package (a ``deb-src`` entry for trixie, never a binary one), with profile-guided and
link-time optimisation as distributions build theirs (``$PODPLANNER_NETBOX_PYTHON`` names another 3.12+ to
use instead), makes a virtual environment from it and installs ``netbox`` there. ``start`` runs PostgreSQL and
Redis on 127.0.0.1 on their own ports, with their own data in a temporary folder, migrates (once: the migrated database
is kept as a template), makes a superuser with an API token and starts NetBox's server; ``stop`` ends
them and removes the temporary folder. Everything built is kept in the cache folder
(``$PODPLANNER_NETBOX_CACHE``, else ``~/.cache/podplanner-netbox``) so a second run only starts servers.

    python3 tools/netbox/netbox_env.py prepare     # build and install (cached), migrate the template
    python3 tools/netbox/netbox_env.py start       # prints the state file; `stop` ends what it started
    python3 tools/netbox/netbox_env.py stop

Only the standard library: this runs under the system's Python (3.11) and drives NetBox's Python, which
netbox_python.py builds (nb_common.py holds what the two share).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # its sibling modules, run as a script or imported

from nb_common import Timer, apt_install, cache_dir, log, run  # noqa: E402
from netbox_python import build_python, python_bin, usable  # noqa: E402

NETBOX_VERSION = os.environ.get("PODPLANNER_NETBOX_VERSION", "4.7.3")
PG_PORT = int(os.environ.get("PODPLANNER_NETBOX_PG_PORT", "54329"))
REDIS_PORT = int(os.environ.get("PODPLANNER_NETBOX_REDIS_PORT", "63799"))
HTTP_PORT = int(os.environ.get("PODPLANNER_NETBOX_HTTP_PORT", "58000"))
SERVER_WORKERS = int(os.environ.get("PODPLANNER_NETBOX_WORKERS", "2"))
ADMIN = "admin"

SERVER_PACKAGES = ["postgresql", "redis-server"]

HERE = Path(__file__).resolve().parent


def state_file() -> Path:
    return cache_dir() / "running.json"


# --- NetBox in its own virtual environment -----------------------------------------------------------------


def venv_dir() -> Path:
    return cache_dir() / f"netbox-{NETBOX_VERSION}" / "venv"


def venv_python() -> Path:
    return venv_dir() / "bin" / "python"


def netbox_root() -> Path:
    """NETBOX_ROOT of the pip-installed NetBox: conf/configuration.py, media, static."""
    return cache_dir() / f"netbox-{NETBOX_VERSION}" / "root"


def install_netbox() -> None:
    stamp = venv_dir() / ".installed"
    # the stamp names the Python the environment was made from: another one (the optimised build replacing an
    # older choice) makes it again
    made = f"{NETBOX_VERSION} {python_bin()}\n"
    if stamp.exists() and stamp.read_text() == made and usable(venv_python()):
        return
    apt_install(["libpq-dev", "build-essential"])  # psycopg[c] is built against libpq
    if venv_dir().exists():
        shutil.rmtree(venv_dir())
    with Timer(f"venv + pip install netbox=={NETBOX_VERSION}"):
        run([python_bin(), "-m", "venv", venv_dir()])
        pip = [venv_python(), "-m", "pip", "--disable-pip-version-check", "-q", "install"]
        run([*pip, "--upgrade", "pip"])
        run([*pip, f"netbox=={NETBOX_VERSION}", "requests"])
    stamp.write_text(made)


def secret(length: int) -> str:
    alphabet = string.ascii_letters + string.digits + "!@#%^&*(-_=+)"
    return "".join(secrets.choice(alphabet) for _ in range(length))


def write_configuration(sockets: Path) -> None:
    """NetBox's configuration.py: PostgreSQL over its Unix socket in ``sockets`` (fewer system calls a query
    than TCP), Django's plain cursors (a server-side cursor costs three round trips a query where a plain one
    costs one; Django's setting for pgbouncer, no change to what NetBox does with the rows)."""
    conf = netbox_root() / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    secrets_file = conf / "secrets.json"
    if not secrets_file.exists():
        secrets_file.write_text(json.dumps({"secret_key": secret(60), "pepper": secret(60)}))
    keys = json.loads(secrets_file.read_text())
    (conf / "__init__.py").touch()
    (conf / "configuration.py").write_text(f"""\
# Written by tools/netbox/netbox_env.py: a throw-away NetBox for PodPlanner's import test.
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "testserver"]
DATABASES = {{
    "default": {{
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "netbox",
        "USER": "netbox",
        "PASSWORD": "netbox",
        "HOST": {str(sockets)!r},
        "PORT": "{PG_PORT}",
        "CONN_MAX_AGE": 300,
        "DISABLE_SERVER_SIDE_CURSORS": True,
        # psycopg binds the parameters on the server, so the statements NetBox runs again and again (a cable's
        # hundred, row after row) are prepared once per connection: a seventh less CPU for the same import
        "OPTIONS": {{"server_side_binding": True, "prepare_threshold": 5}},
    }}
}}
REDIS = {{
    "tasks": {{"HOST": "127.0.0.1", "PORT": {REDIS_PORT}, "DATABASE": 0, "SSL": False}},
    "caching": {{"HOST": "127.0.0.1", "PORT": {REDIS_PORT}, "DATABASE": 1, "SSL": False}},
}}
SECRET_KEY = {keys["secret_key"]!r}
API_TOKEN_PEPPERS = {{1: {keys["pepper"]!r}}}
CENSUS_REPORTING_ENABLED = False
RELEASE_CHECK_URL = None
DEBUG = False
""")


def netbox_env() -> dict[str, str]:
    return {**os.environ, "NETBOX_ROOT": str(netbox_root()), "DJANGO_SETTINGS_MODULE": "netbox.settings",
            "PYTHONDONTWRITEBYTECODE": "1"}


def manage(*args, **kwargs) -> subprocess.CompletedProcess:
    return run([venv_dir() / "bin" / "netbox", *args], env=netbox_env(), **kwargs)


# --- PostgreSQL and Redis ------------------------------------------------------------------------------------


def pg_bin(name: str) -> Path:
    for candidate in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True):
        return candidate
    found = shutil.which(name)
    if not found:
        sys.exit(f"netbox-env: PostgreSQL's {name} is not installed (apt-get install postgresql)")
    return Path(found)


def as_postgres(cmd, **kwargs):
    """PostgreSQL refuses to run as root: as root, run its programs as the postgres user."""
    if os.geteuid() == 0:
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    return run(cmd, **kwargs)


def wait_for_port(port: int, what: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not open 127.0.0.1:{port} in {timeout:.0f} s")


def port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


#: a throw-away database: nothing is written to disk for safety (no fsync, no full pages, the least WAL)
PG_SETTINGS = ("-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c wal_level=minimal "
               "-c max_wal_senders=0 -c shared_buffers=256MB")


def start_postgres(pgdata: Path, sockets: Path, logfile: Path) -> None:
    as_postgres([pg_bin("pg_ctl"), "-D", pgdata, "-l", logfile, "-w", "-t", "60", "start",
                 "-o", f"-h 127.0.0.1 -p {PG_PORT} -k {sockets} {PG_SETTINGS}"], stdout=subprocess.DEVNULL)


def stop_postgres(pgdata: Path) -> None:
    """Stop the cluster (fast; immediate if that fails); nothing to do for one already stopped."""
    for mode in ("fast", "immediate"):
        as_postgres([pg_bin("pg_ctl"), "-D", pgdata, "-w", "-t", "30", "-m", mode, "stop"], check=False,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not (pgdata / "postmaster.pid").exists():
            return


def template_dir() -> Path:
    """A migrated, stopped database cluster: each run starts from a copy of it."""
    return cache_dir() / f"netbox-{NETBOX_VERSION}" / "pgdata-migrated"


def new_run_dir() -> Path:
    run_dir = Path(tempfile.mkdtemp(prefix="podplanner-netbox-"))
    run_dir.chmod(0o755)
    for sub in ("sockets", "logs"):
        (run_dir / sub).mkdir()
    if os.geteuid() == 0:
        postgres = pwd.getpwnam("postgres")
        for sub in ("sockets", "logs"):
            os.chown(run_dir / sub, postgres.pw_uid, postgres.pw_gid)
    return run_dir


def chown_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        run(["chown", "-R", "postgres:postgres", path])


def make_template() -> None:
    """initdb, a netbox role and database, NetBox's migrations; the stopped cluster is the template."""
    if (template_dir() / "PG_VERSION").exists():
        return
    apt_install(SERVER_PACKAGES)
    check_ports()
    run_dir = new_run_dir()
    pgdata = run_dir / "pgdata"
    redis = None
    try:
        with Timer("initdb"):
            pgdata.mkdir()
            chown_postgres(pgdata)
            as_postgres([pg_bin("initdb"), "-D", pgdata, "-U", "postgres", "--auth=trust", "-E", "UTF8",
                         "--locale=C"], stdout=subprocess.DEVNULL)
        start_postgres(pgdata, run_dir / "sockets", run_dir / "logs" / "postgres.log")
        psql = [pg_bin("psql"), "-h", "127.0.0.1", "-p", PG_PORT, "-U", "postgres", "-q", "-c"]
        run([*psql, "CREATE ROLE netbox LOGIN PASSWORD 'netbox'"])
        run([*psql, "CREATE DATABASE netbox OWNER netbox"])
        redis = start_redis(run_dir)
        write_configuration(run_dir / "sockets")
        with Timer("netbox migrate"):
            manage("migrate", "--no-input", stdout=subprocess.DEVNULL)
        with Timer("netbox collectstatic"):
            manage("collectstatic", "--no-input", "--clear", stdout=subprocess.DEVNULL)
        stop_postgres(pgdata)
        partial = template_dir().with_name("pgdata-partial")
        if partial.exists():
            shutil.rmtree(partial)
        shutil.copytree(pgdata, partial, symlinks=True)
        partial.rename(template_dir())
    finally:
        stop_postgres(pgdata)
        if redis:
            stop_pid(redis)
        shutil.rmtree(run_dir, ignore_errors=True)


def start_redis(run_dir: Path) -> int:
    redis = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(redis).exists():
        sys.exit("netbox-env: redis-server is not installed (apt-get install redis-server)")
    proc = subprocess.Popen([redis, "--bind", "127.0.0.1", "--port", str(REDIS_PORT), "--save", "",
                             "--appendonly", "no", "--dir", str(run_dir)],
                            stdout=(run_dir / "logs" / "redis.log").open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    wait_for_port(REDIS_PORT, "redis-server")
    return proc.pid


#: what each recorded process runs: a recorded id is ended only while its command line still says so
PROGRAMS = {"redis": "redis-server", "netbox": "netbox.wsgi"}


def runs(pid: int, program: str) -> bool:
    try:
        return program.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def stop_pid(pid: int, timeout: float = 20) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                return
        except ChildProcessError:  # not our child (stopped from another process): poll for it
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def check_ports() -> None:
    busy = [p for p in (PG_PORT, REDIS_PORT, HTTP_PORT) if not port_free(p)]
    if busy:
        raise RuntimeError(f"ports {busy} on 127.0.0.1 are in use (a NetBox still running? "
                           f"`python3 tools/netbox/netbox_env.py stop`)")


# --- the commands --------------------------------------------------------------------------------------------


def prepare() -> None:
    build_python()
    install_netbox()
    make_template()


# --- one NetBox on the machine at a time ------------------------------------------------------------------
#
# The ports are fixed and the state file is the cache's, so two processes that each started "their" NetBox
# would stop each other's: the second start stopped the first one's servers and removed its folder while the
# first was copying its database there ("not a database cluster"), and the first one's stop then found the
# state file gone. So every command takes the cache's lock first, and a process that starts NetBox keeps it
# until it stops NetBox (or exits): another start waits for it. A state file found under the lock is one a
# crashed or killed run left behind, and what it names is stopped before anything is started.

_lock: int | None = None
LOCK_WAIT_S = float(os.environ.get("PODPLANNER_NETBOX_LOCK_WAIT", "1800"))


def lock_file() -> Path:
    return cache_dir() / "netbox.lock"


def take_lock(wait: float = LOCK_WAIT_S) -> None:
    """Hold the cache's lock (kept until :func:`release_lock` or this process's end), waiting for another's."""
    global _lock
    if _lock is not None:
        return
    cache_dir().mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_file(), os.O_RDWR | os.O_CREAT, 0o644)
    end, said = time.monotonic() + wait, False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= end:
                os.close(fd)
                raise RuntimeError(f"another process holds {lock_file()} (it runs this machine's one test NetBox); "
                                   f"waited {wait:.0f} s") from None
            if not said:
                log(f"another process holds {lock_file()} (a NetBox test running): waiting for it")
                said = True
            time.sleep(1)
    _lock = fd


def release_lock() -> None:
    global _lock
    if _lock is not None:
        os.close(_lock)  # closing the descriptor releases the lock
        _lock = None


def save_state(state: dict) -> None:
    """Write the state file whole or not at all (a crash never leaves half a file for the next stop to read)."""
    tmp = state_file().with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    os.replace(tmp, state_file())


def read_state() -> dict:
    try:
        return json.loads(state_file().read_text())
    except FileNotFoundError:
        return {}
    except ValueError:
        log(f"{state_file()} is not JSON: removed (nothing it named can be stopped)")
        state_file().unlink(missing_ok=True)
        return {}


def start() -> dict:
    """Start PostgreSQL (a copy of the migrated template), Redis and NetBox; return and save the state.

    This process holds the cache's lock from here until :func:`stop`."""
    take_lock()
    try:
        prepare()
        if state_file().exists():
            log(f"{state_file()} left by an earlier run: stopping what it names first")
            stop(release=False)
        check_ports()
    except BaseException:
        release_lock()
        raise
    run_dir = new_run_dir()
    state = {"run_dir": str(run_dir), "pgdata": str(run_dir / "pgdata"), "pids": {}, "owner": os.getpid(),
             "url": f"http://127.0.0.1:{HTTP_PORT}", "netbox_root": str(netbox_root()),
             "python": str(venv_python()), "netbox_version": NETBOX_VERSION}
    save_state(state)
    try:
        with Timer("start PostgreSQL and Redis"):
            shutil.copytree(template_dir(), run_dir / "pgdata", symlinks=True)
            if not (run_dir / "pgdata" / "PG_VERSION").exists():
                raise RuntimeError(f"the copy of {template_dir()} in {run_dir} is not a database cluster")
            chown_postgres(run_dir / "pgdata")
            start_postgres(run_dir / "pgdata", run_dir / "sockets", run_dir / "logs" / "postgres.log")
            state["pids"]["redis"] = start_redis(run_dir)
            save_state(state)
        write_configuration(run_dir / "sockets")
        with Timer("superuser and API token"):
            out = run([venv_python(), HERE / "nb_admin.py", ADMIN], env=netbox_env(), capture_output=True,
                      text=True).stdout
            state.update(json.loads(out.strip().splitlines()[-1]))
        with Timer(f"start NetBox (gunicorn, {SERVER_WORKERS} workers)"):
            # NetBox's production server, as its install guide runs it: a worker a core, so a push's concurrent
            # requests (the cables) are served side by side, not in turn behind one interpreter's lock
            server = subprocess.Popen(
                [venv_dir() / "bin" / "gunicorn", "--bind", f"127.0.0.1:{HTTP_PORT}", "--workers",
                 str(SERVER_WORKERS), "--timeout", "1800", "--graceful-timeout", "5", "netbox.wsgi"],
                env=netbox_env(), stdout=(run_dir / "logs" / "netbox.log").open("w"), stderr=subprocess.STDOUT,
                start_new_session=True)
            state["pids"]["netbox"] = server.pid
            save_state(state)
            wait_for_port(HTTP_PORT, "NetBox", timeout=120)
            request = urllib.request.Request(f"{state['url']}/api/status/",
                                             headers={"Authorization": state["authorization"]})
            with urllib.request.urlopen(request, timeout=30) as response:
                state["status"] = json.load(response)
        save_state(state)
    except BaseException:
        stop()
        raise
    return state


def stop(release: bool = True) -> None:
    """Stop what ``start`` started (by the ids it recorded) and remove its temporary folder; then, with
    ``release``, let go of the cache's lock. Raises if another process holds the lock (its NetBox is in use)."""
    take_lock(wait=0)
    try:
        state = read_state()
        for name, pid in state.get("pids", {}).items():
            if runs(pid, PROGRAMS.get(name, name)):
                stop_pid(pid)
        if state.get("pgdata") and Path(state["pgdata"], "postmaster.pid").exists():
            stop_postgres(Path(state["pgdata"]))
        if state.get("run_dir"):
            shutil.rmtree(state["run_dir"], ignore_errors=True)
        state_file().unlink(missing_ok=True)
    finally:
        if release:
            release_lock()


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "prepare"
    if command == "prepare":
        take_lock()
        prepare()
    elif command == "start":
        print(json.dumps(start(), indent=1))
    elif command == "stop":
        stop()
    elif command == "python":
        print(venv_python())
    else:
        sys.exit(f"usage: {Path(__file__).name} prepare | start | stop")
    if Timer.times:
        log("times: " + ", ".join(f"{k} {v:.0f} s" for k, v in Timer.times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
