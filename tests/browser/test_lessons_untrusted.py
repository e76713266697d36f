"""The lessons as a fresh clone shows them: opened untrusted in JupyterLab, before any cell runs.

JupyterLab renders no SVG from an untrusted notebook; every stored picture of a lesson must still be
visible, from the PNG stored beside its SVG. Each lesson is copied as committed (not executed, not
signed) and opened at 1024x768; every stored picture output must appear as a loaded <img>.
Screenshots: tests/browser/screenshots/lesson_<name>_untrusted_<k>.png, one per picture.
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

LESSONS = sorted(glob.glob(os.path.join(ROOT, "lessons", "*.ipynb")))
PANEL = ".jp-NotebookPanel:visible .jp-Notebook"   # the open lesson's notebook (other tabs stay in the page)


def stored_pictures(path):
    """How many outputs of the committed notebook carry a picture (SVG or PNG)."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    return nb, sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("output_type") in ("display_data", "execute_result")
                   and ({"image/svg+xml", "image/png"} & set(o.get("data", {}))))


@pytest.fixture(scope="module")
def untrusted_lab(tmp_path_factory):
    pytest.importorskip("playwright.sync_api", reason="the browser check needs Python playwright")
    pytest.importorskip("jupyterlab")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"the browser check needs Debian's chromium at {CHROMIUM}")
    workdir = str(tmp_path_factory.mktemp("untrusted"))
    lab = Lab(workdir, None, ())
    os.makedirs(lab.root)
    os.makedirs(SHOTS, exist_ok=True)
    for path in LESSONS:                 # as committed: no kernel, no signature (the data dir is new)
        shutil.copy(path, lab.root)
    try:
        lab.start_server()
        from playwright.sync_api import sync_playwright
        lab._playwright = sync_playwright().start()
        lab.browser = lab._playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        lab.page = lab.browser.new_page(viewport={"width": 1024, "height": 768})
        lab.page.set_default_timeout(PAGE_TIMEOUT * 1000)
        yield lab
    finally:
        lab.close()


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(p) for p in LESSONS])
def test_stored_pictures_show_before_anything_runs(untrusted_lab, path):
    from playwright.sync_api import Error as PlaywrightError
    lab, name = untrusted_lab, os.path.basename(path)
    nb, expected = stored_pictures(path)
    # a workspace of its own, reset: JupyterLab would otherwise reopen the previous lesson's tab beside it
    lab.page.goto(f"http://127.0.0.1:{lab.port}/lab/workspaces/u{name[:-6]}/tree/{name}?reset&token={lab.token}",
                  wait_until="domcontentloaded")
    cells = lab.page.locator(f"{PANEL} .jp-Cell")
    lab.wait_for(cells, f"the cells of {name}", timeout=PAGE_TIMEOUT)
    lab.dismiss_toasts()
    images = lab.page.locator(f"{PANEL} .jp-OutputArea-output img")
    deadline = time.monotonic() + PAGE_TIMEOUT
    while images.count() < expected:
        if time.monotonic() > deadline:
            break
        for i in range(cells.count()):    # JupyterLab renders outputs as cells come into view
            try:
                cells.nth(i).scroll_into_view_if_needed(timeout=5000)
            except PlaywrightError:   # the windowed notebook re-rendered that cell meanwhile: the next pass
                break                 # asks again
        time.sleep(0.3)
    shown = images.evaluate_all("es => es.map(e => [e.src.slice(0, 15), e.naturalWidth])")
    for i in range(len(shown)):
        lab.screenshot(images.nth(i), f"lesson_{name[:-6]}_untrusted_{i}.png")
    assert len(shown) == expected, f"{name}: {expected} stored pictures, {len(shown)} shown untrusted: {shown}"
    assert all(width > 0 for _, width in shown), f"{name}: an image did not load: {shown}"
    assert all(src.startswith("data:image/png") for src, _ in shown), shown   # untrusted: the PNG
