# Two entry points: `make run` opens the app on the bundled sample, `make test` runs every test offscreen.
# `make test-noqt` runs the Qt-free tests (designer, catalog, exporters, layers) again in an environment
# without Qt, which proves they need none; CI runs both.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The environment without Qt: every dependency in pyproject.toml (with the test extra) but these.
NOQT_VENV := .venv-noqt
NOQT_PY := $(NOQT_VENV)/bin/python
NOQT_STAMP := $(NOQT_VENV)/.installed
QT_PACKAGES := PySide6-Essentials pyqtgraph pytest-qt
NOQT_TESTS := tests/designer tests/catalog tests/exporters tests/test_layers.py tests/test_typed_reads.py

# The packaged app (packaging/podplanner.spec): `make package` builds dist/podplanner, `make package-check`
# runs it headless on the samples. PyInstaller keeps its cache in ~/.cache/pyinstaller between builds.
PACKAGE_STAMP := $(VENV)/.packaging
APP := dist/podplanner/podplanner

.PHONY: run test test-qt test-noqt test-netbox test-netbox-large golden bench check-qt clean package package-check

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

$(NOQT_STAMP): pyproject.toml
	rm -rf $(NOQT_VENV)
	$(PYTHON) -m venv $(NOQT_VENV)
	echo '*' > $(NOQT_VENV)/.gitignore
	$(NOQT_PY) -c 'import re, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	  qt = "$(QT_PACKAGES)".lower().split(); \
	  print("\n".join(r for r in p["dependencies"] + p["optional-dependencies"]["test"] \
	                  if re.match(r"[\w.-]+", r)[0].lower() not in qt))' > $(NOQT_VENV)/requirements.txt
	$(NOQT_PY) -m pip install --quiet --disable-pip-version-check -r $(NOQT_VENV)/requirements.txt
	$(NOQT_PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@$(NOQT_PY) -c 'import importlib.util as u, sys; qt = [m for m in ("PySide6", "pyqtgraph", "shiboken6", "pytestqt") \
	  if u.find_spec(m)]; sys.exit("$(NOQT_VENV) holds Qt, a dependency pulled it in: " + " ".join(qt) if qt else 0)'
	touch $(NOQT_STAMP)

run: $(STAMP)
	@$(PY) -m widgets.app.qt_env --install
	$(VENV)/bin/podplanner

# ruff first: a lint finding fails the run before the tests start (configuration in pyproject.toml).
test: $(STAMP)
	$(PY) -m ruff check .
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m "not libreoffice and not netbox and not netbox_large"

# The tests that need Qt, alone (every test outside NOQT_TESTS): CI runs these and `make test-noqt`, which together
# are `make test`, each test once.
test-qt: $(STAMP)
	$(PY) -m ruff check .
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m "not libreoffice and not netbox and not netbox_large" \
	  $(addprefix --ignore=,$(NOQT_TESTS))

# The spreadsheets read back by LibreOffice headless: Debian's libreoffice-calc-nogui, installed here when it is
# missing and this runs as root (a fresh machine), else named.
test-consumers: $(STAMP)
	@command -v soffice >/dev/null || [ "$$(id -u)" != 0 ] || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libreoffice-calc-nogui >/dev/null; }
	@command -v soffice >/dev/null || { echo "test-consumers: LibreOffice (soffice) is not installed: apt install libreoffice-calc-nogui"; exit 1; }
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m libreoffice

# The NetBox hand-off against a real NetBox: tools/netbox/netbox_env.py builds CPython 3.13 from Debian's source
# with profile-guided and link-time optimisation ($PODPLANNER_NETBOX_PYTHON names another), installs the netbox
# wheel and migrates, all cached in ~/.cache/podplanner-netbox (first run: about 25 minutes, root for apt-get on
# a fresh machine); the tests start ONE NetBox (PostgreSQL, Redis, NetBox's server on this machine),
# load the DGX B200 and GB200 NVL72 samples through NetBox's bulk-import pages and a generated 4-SU design
# through the REST API side by side (tests/netbox/conftest.py), check them and stop it: about 14 minutes on
# 2 cores beside the rest of CI, NetBox's own work bounding it.
test-netbox: $(STAMP)
	$(PYTHON) tools/netbox/netbox_env.py prepare
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m "netbox and not netbox_large" tests/netbox

# The same, with a copy of the B200 sample pushed beside them (a fourth site; a few minutes more).
test-netbox-large: $(STAMP)
	$(PYTHON) tools/netbox/netbox_env.py prepare
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -m netbox tests/netbox

# pytest-qt's `qt_api` setting is unknown without pytest-qt: that warning is silenced there.
test-noqt: $(NOQT_STAMP)
	$(NOQT_PY) -m pytest -q -p no:cacheprovider -W ignore::pytest.PytestConfigWarning -m "not libreoffice and not netbox and not netbox_large" $(NOQT_TESTS)

# The exporters' golden outputs (tests/exporters/golden), written again when a change of output is intended;
# review the diff of that folder before committing it.
golden: $(STAMP)
	$(PY) tests/exporters/golden_outputs.py

bench: $(STAMP)
	$(PY) -m bench

$(PACKAGE_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[test,package]"
	touch $(PACKAGE_STAMP)

package: $(PACKAGE_STAMP)
	$(VENV)/bin/pyinstaller packaging/podplanner.spec --noconfirm --log-level WARN \
	  --distpath dist --workpath build/pyinstaller

package-check: package
	$(PY) packaging/check_package.py

clean:
	rm -rf $(VENV) $(NOQT_VENV) build dist *.egg-info
