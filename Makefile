# Two entry points: `make run` opens the app on the bundled sample, `make test` runs every test offscreen.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench check-qt clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

run: $(STAMP)
	@$(PY) -m widgets.qt_env
	$(VENV)/bin/podplanner

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) build dist *.egg-info
