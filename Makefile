# pedatorch: the two commands a learner needs are `make lab` and `make test`.
#
#   make lab     a venv with the lessons' packages, then JupyterLab (repository root) on the first lesson
#   make test    a venv with the test packages and PyTorch (the oracle), then the
#                test suite and the notebooks (pytest --nbval)
#   make gallery re-draws docs/img/ (the pictures of docs/gallery.md)
#   make bench   the benchmark runner (benchmarks/run.py; BENCH="overhead" picks workloads)
#   make gpu-check  on a machine with an NVIDIA GPU: installs the gpu extra (cupy), runs the device tests on
#                real cuda and a GPU benchmark (benchmarks/gpu_check.py), prints a summary
#   make fuzz    a long differential-fuzzing campaign against PyTorch (tests/fuzz/): one minimized
#                repro per distinct mismatch in fuzz-out/ (FUZZ_ARGS="--programs 500 --seed 7 --sweeps")
#   make clean   caches and build leftovers (the venv stays; `make distclean` removes it too)
#   make execute-lessons   re-runs the notebooks in place, storing their outputs
#
# The venv is .venv in the repository (VENV=... to put it elsewhere); each install
# leaves a stamp, so re-runs skip pip until pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
BENCH  ?=
BENCH_ARGS ?=
# JupyterLab refuses to run as root unless told; LAB_ARGS="--no-browser" etc. add to these defaults.
# No news pop-up over the lessons' outputs (also off in the settings that `make lab` writes).
LAB_DEFAULTS := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root) --LabApp.news_url=None \
                --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate
LAB_ARGS ?=
# The lab serves the repository root (pedatorch/'s source is one click away) and opens the first lesson.
FIRST_LESSON := $(firstword $(sort $(wildcard lessons/0*.ipynb)))
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json

.PHONY: lab lessons execute-lessons test test-unit test-notebooks test-browser gallery bench gpu-check fuzz clean distclean venv

venv: $(PY)

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install -e '.[test,oracle]'
	touch $@

$(VENV)/.installed-lessons: pyproject.toml | $(PY)
	$(PIP) install -e '.[lessons]'
	touch $@

$(VENV)/.installed-browser: pyproject.toml | $(PY)
	$(PIP) install -e '.[test,browser,lessons]'
	touch $@

# The shipped lessons are trusted, so their stored pictures show before anything runs.
lab: $(VENV)/.installed-lessons
	@mkdir -p $(dir $(LAB_SETTINGS))
	@printf '%s\n' '{"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": false}}' \
	    > $(LAB_SETTINGS)
	$(VENV)/bin/jupyter trust lessons/*.ipynb
	$(VENV)/bin/jupyter lab $(LAB_DEFAULTS) --LabApp.default_url=/lab/tree/$(FIRST_LESSON) $(LAB_ARGS)

# The lessons' sources live in instructor/ (solutions, hidden tests, every output); lessons/ holds their
# handouts, made from them (pedatorch-assign --keep-outputs), plus 00_welcome (no exercises).
INSTRUCTOR_NBS := $(sort $(wildcard instructor/*.ipynb))

# Re-execute the notebooks in place, storing their outputs (what nbval compares against), then the handouts.
execute-lessons: $(VENV)/.installed-lessons
	$(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.record_timing=False --ExecutePreprocessor.store_widget_state=True --ExecutePreprocessor.timeout=300 \
	    lessons/00_welcome.ipynb $(INSTRUCTOR_NBS)
	$(MAKE) lessons

# The handouts: solutions stubbed, hidden tests removed, exercise cells tagged for nbval.
lessons: $(VENV)/.installed-lessons
	@for nb in $(INSTRUCTOR_NBS); do $(PY) -m pedatorch.grading assign "$$nb" lessons/ --keep-outputs || exit 1; done

# Both suites run even when the first fails; the target fails if either did.
test: $(VENV)/.installed-test
	@status=0; \
	echo "$(PY) -m pytest tests"; \
	$(PY) -m pytest tests || status=1; \
	echo "$(PY) -m pytest --nbval --nbval-current-env --nbval-cell-timeout=120 lessons/ $(wildcard instructor)"; \
	$(PY) -m pytest --nbval --nbval-current-env --nbval-cell-timeout=120 lessons/ $(wildcard instructor) || status=1; \
	exit $$status

test-unit: $(VENV)/.installed-test
	$(PY) -m pytest tests

test-notebooks: $(VENV)/.installed-test
	$(PY) -m pytest --nbval --nbval-current-env --nbval-cell-timeout=120 lessons/ $(wildcard instructor)

# tests/browser: demo.ipynb opened in JupyterLab in Debian's headless chromium (playwright drives it;
# `playwright install` is never run). Screenshots land in tests/browser/screenshots/.
test-browser: $(VENV)/.installed-browser
	PEDATORCH_BROWSER=1 $(PY) -m pytest -q -rs tests/browser

# Re-draw the pictures of docs/gallery.md into docs/img/.
gallery: $(VENV)/.installed-lessons
	$(PY) docs/make_gallery.py

bench: $(VENV)/.installed-test
	$(PY) benchmarks/run.py $(BENCH) $(BENCH_ARGS)

$(VENV)/.installed-gpu: pyproject.toml | $(PY)
	$(PIP) install -e '.[test,gpu]'
	touch $@

# A GPU machine whose python3 already has cupy (a CUDA image, often offline) is used as it is;
# elsewhere the venv gets the gpu extra.
gpu-check:
	@if $(PYTHON) -c "import cupy" 2>/dev/null; then \
		echo "using $(PYTHON)'s cupy"; PYTHONPATH=. $(PYTHON) benchmarks/gpu_check.py; \
	else $(MAKE) $(VENV)/.installed-gpu && $(PY) benchmarks/gpu_check.py; fi

FUZZ_ARGS ?= --programs 20000 --seed 0 --sweeps --out fuzz-out
fuzz: $(VENV)/.installed-test
	$(PY) -m tests.fuzz $(FUZZ_ARGS)

clean:
	rm -rf build dist *.egg-info .pytest_cache .hypothesis benchmarks/results
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
