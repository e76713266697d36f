"""Big models' pictures as a learner sees them: JupyterLab at 1024x768 (file browser open) and 1366x900.

A small notebook draws the graphs of a ResNet-20, an LSTMCell unrolled over 35 steps and a 2-layer
TransformerEncoder (the models of tests/test_viz_graph.py), the whole ResNet (``depth=None``), and the
backward-steps explorer of the ResNet. It is executed with nbclient (widget state saved) and signed,
then opened in headless chromium at each size:

* every picture is a loaded SVG ``<img>`` whose right edge is inside the window, and whose text is
  not scaled below ~10 px (its displayed width against its natural width);
* the explorer from the saved state (no kernel behind it) shows its first step with the line "run this
  cell to step through", no controls and no broken-link icons; after Run All it is live: its buttons
  show their whole labels, the red node is inside the picture area, and the details beside the picture
  stay in place from step to step.

Screenshots: tests/browser/screenshots/big_<cell>_<width>.png (each output) and big_page_<width>.png.
Run with ``make test-browser`` (PEDATORCH_BROWSER=1); skipped without playwright or chromium.
"""
import base64
import os
import re
import time
import urllib.parse

import pytest

from test_jupyterlab import (CHROMIUM, CHROMIUM_ARGS, KERNEL_TIMEOUT, OUTPUT_TIMEOUT, PAGE_TIMEOUT, ROOT, SHOTS,
                             Lab, execute_and_sign)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("PEDATORCH_BROWSER") != "1",
                       reason="the browser check runs with PEDATORCH_BROWSER=1 (make test-browser)"),
]

SIZES = [(1024, 768), (1366, 900)]
PICTURES = ["resnet", "lstm", "transformer", "resnet-full"]
SMALLEST_TEXT = 10.0     # px: 11 pt labels (14.7 px at natural size) may shrink by a third at most


def notebook_cells():
    tests = os.path.join(ROOT, "tests")
    return [
        ("setup", "import sys\n"
                  f"sys.path.insert(0, {tests!r})\n"
                  "import pedatorch as torch\n"
                  "from pedatorch import viz\n"
                  "from test_viz_graph import big_models\n"
                  "models = {name: (model, x) for name, model, x in big_models()}"),
        ("resnet", "viz.graph(*models['resnet20'])"),
        ("lstm", "viz.graph(*models['lstm'])"),
        ("transformer", "viz.graph(*models['transformer'])"),
        ("resnet-full", "viz.graph(*models['resnet20'], depth=None)"),
        ("steps", "model, x = models['resnet20']\n"
                  "steps = viz.backward_steps(model(x).pow(2).mean(), params=model)\n"
                  "steps"),
    ]


def write_notebook(path):
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source, id=cell_id) for cell_id, source in notebook_cells()]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def natural_width(src):
    """The natural width (px) of a picture's SVG given as a data: URL: its max-width, or its width in pt."""
    head, _, payload = src.partition(",")
    svg = (base64.b64decode(payload) if head.endswith(";base64") else urllib.parse.unquote(payload).encode()).decode()
    m = re.search(r'<svg width="100%" style="max-width: (\d+)px', svg)
    if m:
        return float(m.group(1))
    return float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1)) * 96 / 72


class BigLab(Lab):
    CELLS = ".jp-NotebookPanel:visible .jp-Notebook .jp-Cell"   # JupyterLab keeps other open tabs in the page

    def cell(self, cell_id):
        index = [c.id for c in self.nb.cells].index(cell_id)
        return self.page.locator(self.CELLS).nth(index)

    def wait_for_kernel(self):
        """Until the notebook's kernel is idle (Run All while it starts clears the outputs and runs nothing)."""
        deadline = time.monotonic() + KERNEL_TIMEOUT
        while "| Idle" not in self.page.locator("#jp-main-statusbar").inner_text():
            if time.monotonic() > deadline:
                self.fail(f"the kernel was not idle {KERNEL_TIMEOUT} s after the notebook opened")
            time.sleep(0.3)

    def open(self, width, height, name="big_graphs.ipynb"):
        from playwright.sync_api import sync_playwright
        if self._playwright is None:
            self._playwright = sync_playwright().start()
            self.browser = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                            args=CHROMIUM_ARGS)
        if self.page is not None:
            self.page.close()
        self.page = self.browser.new_page(viewport={"width": width, "height": height})
        self.page.set_default_timeout(PAGE_TIMEOUT * 1000)
        self.page.goto(f"http://127.0.0.1:{self.port}/lab/tree/{name}?token={self.token}",
                       wait_until="domcontentloaded")
        cells = self.page.locator(self.CELLS)
        self.wait_for(cells, "the notebook's cells", timeout=PAGE_TIMEOUT)
        deadline = time.monotonic() + PAGE_TIMEOUT
        while cells.count() < len(self.nb.cells):
            if time.monotonic() > deadline:
                self.fail(f"only {cells.count()} of {len(self.nb.cells)} cells rendered after {PAGE_TIMEOUT} s")
            time.sleep(0.2)
        self.dismiss_toasts()
        browser_panel = self.page.locator("#filebrowser")
        if not browser_panel.is_visible():          # the narrow case is the one with the sidebar open
            self.page.locator('.jp-SideBar .lm-TabBar-tab[data-id="filebrowser"]').first.click()
            browser_panel.wait_for(state="visible")


@pytest.fixture(scope="module")
def big_lab(tmp_path_factory):
    pytest.importorskip("playwright.sync_api", reason="the browser check needs Python playwright")
    pytest.importorskip("nbclient")
    pytest.importorskip("jupyterlab")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"the browser check needs Debian's chromium at {CHROMIUM}")
    workdir = str(tmp_path_factory.mktemp("big"))
    lab = BigLab(workdir, None, ())
    os.makedirs(lab.root)
    os.makedirs(SHOTS, exist_ok=True)
    source = os.path.join(workdir, "big_graphs.ipynb")
    write_notebook(source)
    try:
        data_dir = os.path.join(workdir, "home", "data")
        os.makedirs(data_dir)
        env = {**os.environ, "JUPYTER_DATA_DIR": data_dir, "IPYTHONDIR": os.path.join(workdir, "home", "ipython"),
               "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
        lab.nb, lab.skipped = execute_and_sign(source, os.path.join(lab.root, "big_graphs.ipynb"), env)
        # an untrusted copy (not signed: its metadata differs), written before JupyterLab can save the original
        import nbformat
        copy = nbformat.from_dict(lab.nb)
        copy.metadata["copied"] = True
        nbformat.write(copy, os.path.join(lab.root, "big_graphs_untrusted.ipynb"))
        lab.start_server()
        yield lab
    finally:
        lab.close()


@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_pictures_fit_the_window(big_lab, width, height):
    lab = big_lab
    lab.open(width, height)
    lab.page.screenshot(path=os.path.join(SHOTS, f"big_page_{width}.png"))
    for name in PICTURES:
        cell = lab.cell(name)
        cell.scroll_into_view_if_needed()
        img = lab.wait_for(cell.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]'),
                           f"the SVG <img> of {name}")
        deadline = time.monotonic() + OUTPUT_TIMEOUT
        while not img.evaluate("e => e.complete && e.naturalWidth > 0"):
            if time.monotonic() > deadline:
                lab.fail(f"the SVG of {name} did not load")
            time.sleep(0.1)
        img.scroll_into_view_if_needed()
        box = img.bounding_box()
        area = cell.locator(".jp-OutputArea-output").first.bounding_box()
        lab.screenshot(cell.locator(".jp-OutputArea-output").first, f"big_{name}_{width}.png")
        assert box["x"] + box["width"] <= width + 0.5, f"{name} at {width}px: {box} runs past the window"
        assert box["x"] + box["width"] <= area["x"] + area["width"] + 0.5, f"{name}: wider than its output area"
        scale = box["width"] / natural_width(img.get_attribute("src"))
        if name != "resnet-full":          # the whole graph on demand: scaled to fit, legible or not
            assert 11 * 96 / 72 * scale >= SMALLEST_TEXT, f"{name} at {width}px is scaled by {scale:.2f}"


def test_saved_explorer_shows_its_first_step(big_lab):
    """From the saved widget state (no kernel behind it): step 0's picture, the line saying to run the
    cell, no dead controls, no broken-link icons."""
    lab = big_lab
    lab.open(1024, 768)
    cell = lab.cell("steps")
    cell.scroll_into_view_if_needed()
    box = lab.wait_for(cell.locator(".pedatorch-backward-steps"), "the explorer from the saved state")
    lab.wait_for(box.locator("svg text", has_text="steps[0] of"), "step 0's picture in the saved explorer")
    if box.evaluate("e => e.classList.contains('jupyter-widgets-disconnected')"):
        note = box.locator(".pedatorch-offline")
        assert note.is_visible() and "run this cell to step through" in note.inner_text()
        assert not box.locator(".pedatorch-controls").is_visible()
        icons = box.evaluate("e => [e, ...e.querySelectorAll('.jupyter-widgets-disconnected')]"
                             ".filter(x => getComputedStyle(x, '::before').display !== 'none').length")
        assert icons == 0, f"{icons} broken-link icons in the saved explorer"
    lab.screenshot(cell.locator(".jp-OutputArea-output").first, "big_steps_saved_1024.png")


def test_live_explorer_at_1024(big_lab):
    lab = big_lab
    lab.open(1024, 768)
    lab.wait_for_kernel()
    lab.run_all()
    cell = lab.cell("steps")
    box = cell.locator(".pedatorch-backward-steps")
    deadline = time.monotonic() + KERNEL_TIMEOUT * 2
    while box.locator(".jupyter-widgets-disconnected").count() or not box.locator("button").count() \
            or box.first.evaluate("e => e.classList.contains('jupyter-widgets-disconnected')"):
        if time.monotonic() > deadline:
            lab.page.screenshot(path=os.path.join(SHOTS, "big_steps_not_live.png"))
            status = lab.page.locator("#jp-main-statusbar").inner_text()
            lab.fail(f"the explorer was not live after Run All (status bar: {status!r}; the page is in "
                     "big_steps_not_live.png)")
        time.sleep(0.3)
    box = box.first
    box.scroll_into_view_if_needed()
    assert not box.locator(".pedatorch-offline").is_visible()
    buttons = box.locator("button").evaluate_all(
        "es => es.filter(e => e.offsetParent).map(e => [e.innerText.trim(), e.scrollWidth <= e.clientWidth + 1])")
    labels = dict(buttons)
    for label in ("◀ previous", "next ▶"):
        assert labels.get(label), f"button {label!r} truncated or missing: {buttons}"
    details = box.locator(".widget-html").nth(2)            # the offline note, the picture, the details
    places = []
    for k in range(3):
        lab.wait_for(box.locator("svg text", has_text=f"steps[{k}] of"), f"the picture of steps[{k}]",
                     timeout=KERNEL_TIMEOUT)
        picture = box.locator(".widget-html").nth(1)
        area = picture.bounding_box()
        red = box.locator('svg g.node path[stroke="#d62728"], svg g.node polygon[stroke="#d62728"]').first
        node = red.bounding_box()
        assert node is not None, f"no red node in the picture of steps[{k}]"
        assert area["x"] - 1 <= node["x"] and node["x"] + node["width"] <= area["x"] + area["width"] + 1
        assert area["y"] - 1 <= node["y"] and node["y"] + node["height"] <= area["y"] + area["height"] + 1
        d = details.bounding_box()
        places.append((round(d["x"]), round(d["y"] - area["y"]), round(area["width"]), round(area["height"])))
        lab.screenshot(cell.locator(".jp-OutputArea-output").first, f"big_steps_live_{k}_1024.png")
        box.locator("button", has_text="next").click()
    assert len(set(places)) == 1, f"the details moved between steps: {places}"


def test_restarted_kernel_explorer_says_to_run_the_cell(big_lab):
    """After the live explorer's kernel restarts, its widgets are not live any more: the same as saved."""
    lab = big_lab
    cell = lab.cell("steps")
    box = cell.locator(".pedatorch-backward-steps").first
    if not box.locator("button").count() or not box.locator("button").first.is_visible():
        pytest.skip("the explorer is not live (run test_live_explorer_at_1024 first)")
    lab.page.locator(".lm-MenuBar-item", has_text="Kernel").first.click()
    lab.page.locator('.lm-Menu-item[data-command="kernelmenu:restart"]').first.click()
    lab.page.locator(".jp-Dialog-button.jp-mod-accept").first.click()
    deadline = time.monotonic() + KERNEL_TIMEOUT
    while not box.evaluate("e => e.classList.contains('jupyter-widgets-disconnected')"):
        if time.monotonic() > deadline:
            lab.fail("the explorer was still marked live after the kernel restarted")
        time.sleep(0.3)
    assert box.locator(".pedatorch-offline").is_visible()
    assert not box.locator(".pedatorch-controls").is_visible()
    lab.screenshot(cell.locator(".jp-OutputArea-output").first, "big_steps_restarted_1024.png")


def test_untrusted_copy_shows_the_pngs(big_lab):
    """Untrusted (a copy: its signature is not in the trust database), JupyterLab shows no SVG and no
    widget: every picture, the explorer's first step included, is the PNG beside it, fitted to the width."""
    lab = big_lab
    lab.open(1024, 768, "big_graphs_untrusted.ipynb")
    for name in [*PICTURES, "steps"]:
        cell = lab.cell(name)
        cell.scroll_into_view_if_needed()
        img = lab.wait_for(cell.locator('.jp-OutputArea-output img[src^="data:image/png"]'),
                           f"the PNG of {name} in the untrusted copy")
        img.scroll_into_view_if_needed()
        assert img.evaluate("e => e.naturalWidth") > 0
        box = img.bounding_box()
        assert box["x"] + box["width"] <= 1024 + 0.5, f"{name}: {box}"
        lab.screenshot(cell.locator(".jp-OutputArea-output").first, f"big_{name}_untrusted_1024.png")
