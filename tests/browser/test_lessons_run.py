"""Every lesson, run top to bottom in JupyterLab (headless chromium): no cell stops the run, and the
widgets it makes render.

The instructor versions run (the handouts' exercises raise until solved, by design). Each lesson is
copied to a temporary folder, opened, restarted and run with "Restart Kernel and Run All Cells"; the test
waits until the kernel is idle, then checks that every code cell got an execution count (Run All stops at
the first error) and that no output is an error. Screenshots: tests/browser/screenshots/run_<name>.png
(the last cell's output area).
"""
import glob
import os
import shutil
import time

import pytest

from test_jupyterlab import CHROMIUM, CHROMIUM_ARGS, PAGE_TIMEOUT, ROOT, SHOTS, Lab

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("PEDATORCH_BROWSER") != "1",
                       reason="the browser check runs with PEDATORCH_BROWSER=1 (make test-browser)"),
]

LESSONS = sorted(glob.glob(os.path.join(ROOT, "instructor", "*.ipynb")))
RUN_TIMEOUT = 240       # seconds for one lesson's Run All on a loaded machine (each runs in < 90 s alone)
CELLS = ".jp-NotebookPanel:visible .jp-Notebook .jp-Cell"


@pytest.fixture(scope="module")
def run_lab(tmp_path_factory):
    pytest.importorskip("playwright.sync_api", reason="the browser check needs Python playwright")
    pytest.importorskip("jupyterlab")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"the browser check needs Debian's chromium at {CHROMIUM}")
    workdir = str(tmp_path_factory.mktemp("run"))
    lab = Lab(workdir, None, ())
    os.makedirs(lab.root)
    os.makedirs(SHOTS, exist_ok=True)
    for path in LESSONS:
        shutil.copy(path, lab.root)
    try:
        lab.start_server()
        from playwright.sync_api import sync_playwright
        lab._playwright = sync_playwright().start()
        lab.browser = lab._playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield lab
    finally:
        lab.close()


def _status(page):
    return page.locator("#jp-main-statusbar").inner_text()


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(p) for p in LESSONS])
def test_lesson_runs_top_to_bottom(run_lab, path):
    import nbformat
    lab, name = run_lab, os.path.basename(path)
    nb = nbformat.read(path, as_version=4)
    n_code = sum(c.cell_type == "code" for c in nb.cells)
    page = lab.page = lab.browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(PAGE_TIMEOUT * 1000)
    try:
        # a workspace of its own, reset: JupyterLab would otherwise reopen the previous lesson's tab beside it
        page.goto(f"http://127.0.0.1:{lab.port}/lab/workspaces/{name[:-6]}/tree/{name}?reset&token={lab.token}",
                  wait_until="domcontentloaded")
        lab.wait_for(page.locator(CELLS), f"the cells of {name}", timeout=PAGE_TIMEOUT)
        deadline = time.monotonic() + 60
        while "| Idle" not in _status(page):          # Run All on a starting kernel runs nothing
            if time.monotonic() > deadline:
                lab.fail(f"{name}: the kernel was not idle 60 s after the notebook opened")
            time.sleep(0.3)
        lab.dismiss_toasts()
        lab.run_all()                                  # a fresh kernel: the Run menu's "Run All Cells"
        time.sleep(2)
        deadline = time.monotonic() + RUN_TIMEOUT
        prompts = page.locator(f"{CELLS}.jp-CodeCell .jp-InputArea-prompt")
        while True:
            texts = prompts.all_inner_texts()
            done = [t for t in texts if t.strip() not in ("[ ]:", "[*]:", "")]
            if "| Idle" in _status(page) and not any("*" in t for t in texts):
                break
            if time.monotonic() > deadline:
                lab.fail(f"{name}: Run All not finished after {RUN_TIMEOUT} s ({len(done)} of {n_code} cells ran)")
            time.sleep(1)
        texts = prompts.all_inner_texts()
        ran = [t for t in texts if t.strip() not in ("[ ]:", "")]
        errors = page.locator(f"{CELLS} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
                              f" .jp-RenderedText pre:has-text('Traceback')")
        first_missing = next((i for i, t in enumerate(texts) if t.strip() in ("[ ]:", "")), None)
        assert len(ran) == n_code, f"{name}: Run All stopped: {len(ran)} of {n_code} code cells ran " \
                                   f"(first not run: code cell {first_missing})"
        assert errors.count() == 0, f"{name}: {errors.count()} outputs show a traceback"
        widgets = sum('"application/vnd.jupyter.widget-view+json"' in str(c.get("outputs", "")) or
                      "application/vnd.jupyter.widget-view+json" in str(c.get("outputs", ""))
                      for c in nb.cells if c.cell_type == "code")
        if widgets:
            rendered = page.locator(f"{CELLS} .jupyter-widgets")
            rendered.first.wait_for(timeout=30000)
            assert page.locator(f"{CELLS} .jupyter-widgets-disconnected").count() == 0
        last = page.locator(f"{CELLS}.jp-CodeCell").nth(n_code - 1)
        try:
            last.scroll_into_view_if_needed(timeout=5000)
            last.screenshot(path=os.path.join(SHOTS, f"run_{name[:-6]}.png"), timeout=5000)
        except Exception as e:
            print(f"screenshot of {name} failed: {e}")
    finally:
        page.close()
