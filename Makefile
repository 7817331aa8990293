# Stepwise: every target creates .venv and installs on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench

.PHONY: demo test bench bench-list lint format clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing Stepwise into $(VENV) (log: $(VENV)/install.log)"
	@$(PY) -m pip install -q --upgrade pip > $(VENV)/install.log 2>&1 || (cat $(VENV)/install.log; exit 1)
	@$(PY) -m pip install -q -e '.[test]' >> $(VENV)/install.log 2>&1 || (cat $(VENV)/install.log; exit 1)
	@touch $(STAMP)

$(BENCH_STAMP): $(STAMP)
	@$(PY) -m pip install -q -e '.[test,bench]' >> $(VENV)/install.log 2>&1 || echo "bench extra not installable here: measuring Stepwise alone"
	@touch $(BENCH_STAMP)

demo: $(STAMP)
	@$(VENV)/bin/stepwise demo

test: $(STAMP)
	@QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q

# make bench SECTIONS="tokens coldread"   runs only those sections (make bench-list names them)
bench: $(BENCH_STAMP)
	@QT_QPA_PLATFORM=offscreen $(PY) -m tests.bench $(SECTIONS)

bench-list: $(STAMP)
	@$(PY) -m tests.bench --list

lint: $(STAMP)
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/pyright
	@$(VENV)/bin/lint-imports --no-cache

format: $(STAMP)
	@$(VENV)/bin/ruff format .
	@$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) build *.egg-info
