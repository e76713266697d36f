"""The pictures as a learner sees them: demo.ipynb opened in JupyterLab, in a real (headless) chromium.

Run with ``make test-browser`` (or ``PEDATORCH_BROWSER=1 python -m pytest tests/browser``);
``make test`` skips it. It needs Python playwright and Debian's chromium at
/usr/bin/chromium (playwright's own browsers are never downloaded), and is
skipped cleanly without them.

What happens, once for the module (the ``lab`` fixture):

1. demo.ipynb is copied to a temporary folder, executed with nbclient (so it has
   outputs, and the widgets' saved state), and signed, so that JupyterLab trusts
   it and shows the SVG outputs instead of falling back to text;
2. JupyterLab starts on a free port with a random token, with its settings,
   data and config folders inside the temporary folder (no news toast, no
   update check, no windowed notebook: every cell is in the page);
3. chromium opens the notebook; the tests then look for the outputs in the page:
   ``<img src="data:image/svg+xml...">`` for the graph, the broadcast picture and
   the memory diagram (each SVG is decoded and its text checked), a PNG ``<img>``
   for the training curves, rendered widgets for the slider and the broadcasting
   explorer.

Screenshots go to tests/browser/screenshots/ (ignored by git): the whole page
and each output. Every wait has a timeout whose failure message ends with the
tail of JupyterLab's log.
"""
import base64
import importlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NOTEBOOK = os.path.join(HERE, "demo.ipynb")
SHOTS = os.path.join(HERE, "screenshots")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SVG = "{http://www.w3.org/2000/svg}"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get("PEDATORCH_BROWSER") != "1",
                       reason="the browser check runs with PEDATORCH_BROWSER=1 (make test-browser)"),
]

# Seconds allowed for each stage; a failure says which stage and shows JupyterLab's log.
SERVER_TIMEOUT = 30
PAGE_TIMEOUT = 30
OUTPUT_TIMEOUT = 15
KERNEL_TIMEOUT = 40


# ------------------------------------------------------------------ helpers
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing_viz(*names):
    """The names of pedatorch.viz that are not there (yet)."""
    from pedatorch import viz
    gone = []
    for name in names:
        try:
            getattr(viz, name)
        except (AttributeError, ImportError):
            gone.append(name)
    return gone


def write_json(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f)


def svg_texts(src):
    """The text of every <text> element of an SVG given as a data: URL."""
    head, _, payload = src.partition(",")
    data = base64.b64decode(payload) if head.endswith(";base64") else urllib.parse.unquote(payload).encode()
    root = ET.fromstring(data)
    return [" ".join("".join(t.itertext()).split()) for t in root.iter(SVG + "text")]


class Lab:
    """The running JupyterLab, the browser page on demo.ipynb, and helpers to wait with a clear message."""

    def __init__(self, workdir, nb, skipped):
        self.workdir, self.nb, self.skipped = workdir, nb, skipped
        self.root = os.path.join(workdir, "notebooks")     # what JupyterLab's file browser shows
        self.widgets_from = None                            # "saved state" or "Run All"
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.log_path = os.path.join(workdir, "jupyterlab.log")
        self.proc = self.page = self.browser = self._playwright = None
        self.timings = {}

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def fail(self, what):
        pytest.fail(f"{what}\n--- JupyterLab log (last lines) ---\n{self.log_tail()}", pytrace=False)

    def cell(self, cell_id):
        """The rendered cell of demo.ipynb whose id is ``cell_id`` (a Playwright Locator)."""
        index = [c.id for c in self.nb.cells].index(cell_id)
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def wait_for(self, locator, what, timeout=OUTPUT_TIMEOUT):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        try:
            locator.first.wait_for(state="attached", timeout=timeout * 1000)
        except PlaywrightTimeout:
            self.fail(f"{what}: not in the page after {timeout} s")
        return locator.first

    def screenshot(self, locator, name):
        try:
            locator.scroll_into_view_if_needed(timeout=5000)
            locator.screenshot(path=os.path.join(SHOTS, name), timeout=5000)
        except Exception as e:          # a screenshot is a record, not the check itself
            print(f"screenshot {name} failed: {e}")

    # ---------------------------------------------------------- stages
    def start_server(self):
        home = os.path.join(self.workdir, "home")
        settings = os.path.join(home, "lab-settings")
        # no news/update toast, and every cell in the page (no windowing), so every output renders
        write_json(os.path.join(settings, "@jupyterlab", "apputils-extension", "notification.jupyterlab-settings"),
                   {"fetchNews": "false", "checkForUpdates": False})
        write_json(os.path.join(settings, "@jupyterlab", "notebook-extension", "tracker.jupyterlab-settings"),
                   {"windowingMode": "none"})
        write_json(os.path.join(home, "config", "jupyter_server_config.json"),
                   {"LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"}})
        self.env = {**os.environ,
                    "JUPYTER_CONFIG_DIR": os.path.join(home, "config"),
                    "JUPYTER_DATA_DIR": os.path.join(home, "data"),
                    "JUPYTER_RUNTIME_DIR": os.path.join(home, "runtime"),
                    "JUPYTERLAB_SETTINGS_DIR": settings,
                    "JUPYTERLAB_WORKSPACES_DIR": os.path.join(home, "workspaces"),
                    "IPYTHONDIR": os.path.join(home, "ipython"),
                    "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
               f"--ServerApp.root_dir={self.root}"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=self.env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{self.port}/api/status?token={self.token}"
        deadline = time.monotonic() + SERVER_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                self.fail(f"JupyterLab exited with status {self.proc.returncode} before answering")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.fail(f"JupyterLab did not answer {url} within {SERVER_TIMEOUT} s")
            time.sleep(0.25)

    def open_browser(self):
        from playwright.sync_api import sync_playwright
        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                        args=CHROMIUM_ARGS)
        self.page = self.browser.new_page(viewport={"width": 1280, "height": 3000})
        self.page.set_default_timeout(PAGE_TIMEOUT * 1000)
        self.page.goto(f"http://127.0.0.1:{self.port}/lab/tree/demo.ipynb?token={self.token}",
                       wait_until="domcontentloaded")
        cells = self.page.locator(".jp-Notebook .jp-Cell")
        self.wait_for(cells, "the notebook's cells", timeout=PAGE_TIMEOUT)
        deadline = time.monotonic() + PAGE_TIMEOUT
        while cells.count() < len(self.nb.cells):
            if time.monotonic() > deadline:
                self.fail(f"only {cells.count()} of {len(self.nb.cells)} cells rendered after {PAGE_TIMEOUT} s")
            time.sleep(0.2)
        self.dismiss_toasts()

    def dismiss_toasts(self):
        """Close the news/update notification if JupyterLab shows one anyway."""
        for selector in (".jp-Notification-Toast-close", ".Toastify__close-button"):
            for button in self.page.locator(selector).all():
                try:
                    button.click(timeout=1000)
                except Exception:
                    pass

    def run_all(self):
        """Re-run every cell from the Run menu (so widgets are made by a live kernel)."""
        self.page.locator(".lm-MenuBar-item", has_text="Run").first.click()
        self.page.locator('.lm-Menu-item[data-command="runmenu:run-all"], '
                          '.lm-Menu-item[data-command="notebook:run-all-cells"]').first.click()

    def close(self):
        for step in (lambda: self.browser and self.browser.close(),
                     lambda: self._playwright and self._playwright.stop()):
            try:
                step()
            except Exception:
                pass
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if getattr(self, "log", None):
            self.log.close()


def execute_and_sign(src, dst, env):
    """Run the notebook in a kernel (outputs and widget state saved), then sign it so JupyterLab trusts it."""
    import nbclient
    import nbformat
    from nbformat.sign import NotebookNotary
    from pedatorch import viz  # noqa: F401  (fail here, clearly, if pedatorch is not importable)
    nb = nbformat.read(src, as_version=4)
    skipped = missing_viz("graph", "backward_steps", "memory", "broadcast_widget")
    for cell in nb.cells:           # a picture still being written: its cell says so instead
        for name in skipped:
            if f"viz.{name}(" in cell.source:
                cell.source = f"print('viz.{name} is not written yet')"
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": os.path.dirname(dst)}}).execute(env=env)
    nbformat.write(nb, dst)
    nb = nbformat.read(dst, as_version=4)      # sign exactly what JupyterLab will read
    notary = NotebookNotary(data_dir=env["JUPYTER_DATA_DIR"])
    notary.sign(nb)
    assert notary.check_signature(nb), "the notebook could not be signed"
    return nb, skipped


# ------------------------------------------------------------------ fixture
@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    pytest.importorskip("playwright.sync_api", reason="the browser check needs Python playwright")
    pytest.importorskip("nbclient")
    pytest.importorskip("jupyterlab")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"the browser check needs Debian's chromium at {CHROMIUM}")
    workdir = str(tmp_path_factory.mktemp("lab"))
    shutil.rmtree(SHOTS, ignore_errors=True)
    os.makedirs(SHOTS)
    lab = Lab(workdir, None, ())
    os.makedirs(lab.root)
    start = time.monotonic()
    try:
        data_dir = os.path.join(workdir, "home", "data")
        os.makedirs(data_dir)
        env = {**os.environ, "JUPYTER_DATA_DIR": data_dir, "IPYTHONDIR": os.path.join(workdir, "home", "ipython"),
               "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
        lab.nb, lab.skipped = execute_and_sign(NOTEBOOK, os.path.join(lab.root, "demo.ipynb"), env)
        lab.timings["execute"] = time.monotonic() - start
        lab.start_server()
        lab.timings["server"] = time.monotonic() - start
        lab.open_browser()
        lab.timings["page"] = time.monotonic() - start
        yield lab
        lab.cell("title").scroll_into_view_if_needed()
        lab.page.screenshot(path=os.path.join(SHOTS, "notebook.png"), full_page=True)
    finally:
        lab.close()
        lab.timings["total"] = time.monotonic() - start
        print("\nbrowser check timings (s, cumulative):", {k: round(v, 1) for k, v in lab.timings.items()},
              "; widgets from:", lab.widgets_from)


def skip_if_missing(lab, name):
    if name in lab.skipped:
        pytest.skip(f"viz.{name} does not exist yet: its cell was replaced by a placeholder")


# -------------------------------------------------------------------- tests
def test_graph_renders_as_svg_image(lab):
    skip_if_missing(lab, "graph")
    cell = lab.cell("graph")
    img = lab.wait_for(cell.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]'),
                       "the graph's SVG <img>")
    texts = " ".join(svg_texts(img.get_attribute("src")))
    for name in ("MulBackward0", "SumBackward0"):
        assert name in texts, f"{name} not in the graph's SVG text: {texts!r}"
    lab.screenshot(img, "graph.png")


def test_broadcast_renders_as_svg_image(lab):
    cell = lab.cell("broadcast")
    img = lab.wait_for(cell.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]'),
                       "the broadcast diagram's SVG <img>")
    texts = svg_texts(img.get_attribute("src"))
    assert "a + b: (2, 1, 3) + (4, 3) → (2, 4, 3)" in texts, texts
    for shape in ("(2, 1, 3)", "(4, 3)", "(2, 4, 3)", "1→4"):
        assert shape in texts, f"{shape} not in the broadcast SVG: {texts}"
    assert img.evaluate("e => e.naturalWidth") > 0, "the SVG <img> did not load"
    lab.screenshot(img, "broadcast.png")


def test_memory_renders_as_svg_image(lab):
    skip_if_missing(lab, "memory")
    cell = lab.cell("memory")
    img = lab.wait_for(cell.locator('.jp-OutputArea-output img[src^="data:image/svg+xml"]'),
                       "the memory diagram's SVG <img>")
    texts = svg_texts(img.get_attribute("src"))
    for text in ("storage 0", "shape (2, 3) stride (3, 1) offset 0", "shape (3, 2) stride (1, 3) offset 0"):
        assert text in texts, f"{text!r} not in the memory SVG: {texts}"
    assert img.evaluate("e => e.naturalWidth") > 0, "the SVG <img> did not load"
    lab.screenshot(img, "memory.png")


def test_training_curves_render_as_one_image(lab):
    cell = lab.cell("curves")
    img = lab.wait_for(cell.locator('.jp-OutputArea-output img[src^="data:image/png"]'),
                       "the training curves' PNG <img>")
    assert cell.locator(".jp-OutputArea-output img").count() == 1, "the curves must be one output, updated in place"
    size = img.evaluate("e => [e.naturalWidth, e.naturalHeight]")
    assert size[0] >= 400 and size[1] >= 300, f"curves image is {size}"
    lab.screenshot(img, "training_curves.png")


def test_widgets_render(lab):
    slider_cell = lab.cell("slider")
    slider = slider_cell.locator(".jupyter-widgets.widget-slider, .widget-slider")
    try:
        lab.wait_for(slider, "the IntSlider from the saved widget state", timeout=5)
        lab.widgets_from = "saved state"
    except pytest.fail.Exception:
        # no saved state shown: let a live kernel make the widgets
        lab.run_all()
        lab.wait_for(slider, "the IntSlider after Run All", timeout=KERNEL_TIMEOUT)
        lab.widgets_from = "Run All"
    assert "epochs" in slider_cell.locator(".widget-label").first.inner_text()
    lab.screenshot(slider_cell.locator(".jp-OutputArea-output").first, "slider.png")
    skip_if_missing(lab, "broadcast_widget")
    box = lab.cell("broadcast-widget")
    lab.wait_for(box.locator(".jupyter-widgets svg"), "the broadcast widget's picture", timeout=KERNEL_TIMEOUT)
    values = box.locator(".jupyter-widgets input[type=text]").evaluate_all("es => es.map(e => e.value)")
    assert values == ["2,1,3", "4,3"], values
    lab.screenshot(box.locator(".jp-OutputArea-output").first, "broadcast_widget.png")


def test_broadcast_widget_is_live(lab):
    """Widgets from saved state are pictures of widgets (ipywidgets marks them disconnected);
    after Run All they talk to the kernel: typing a shape redraws the picture."""
    skip_if_missing(lab, "broadcast_widget")
    box = lab.cell("broadcast-widget")
    if lab.widgets_from != "Run All":
        lab.page.screenshot(path=os.path.join(SHOTS, "notebook_saved_state.png"), full_page=True)
        lab.run_all()
        lab.widgets_from = "saved state, then Run All"
    live_inputs = box.locator(".jupyter-widgets input[type=text]")
    deadline = time.monotonic() + KERNEL_TIMEOUT
    while box.locator(".jupyter-widgets-disconnected").count() or live_inputs.count() != 2:
        if time.monotonic() > deadline:
            lab.fail(f"the broadcast widget was not live (made by the kernel) {KERNEL_TIMEOUT} s after Run All")
        time.sleep(0.2)
    live_inputs.nth(1).fill("5,3")                  # shape b: (2, 1, 3) + (5, 3) -> (2, 5, 3)
    title = "a + b: (2, 1, 3) + (5, 3) → (2, 5, 3)"
    lab.wait_for(box.locator(".jupyter-widgets svg text", has_text="(2, 5, 3)"),
                 f"the redrawn picture ({title!r}) after typing 5,3 into shape b", timeout=KERNEL_TIMEOUT)
    texts = [" ".join(t.split()) for t in box.locator(".jupyter-widgets svg text").all_text_contents()]
    assert title in texts, texts
    lab.screenshot(box.locator(".jp-OutputArea-output").first, "broadcast_widget_live.png")


def test_backward_steps_widget_steps_through_backward(lab):
    """The explorer, live: each click on "next ▶" shows the next node the engine ran, in red."""
    skip_if_missing(lab, "backward_steps")
    box = lab.cell("steps")
    if "Run All" not in lab.widgets_from:
        lab.run_all()
        lab.widgets_from += ", then Run All"
    deadline = time.monotonic() + KERNEL_TIMEOUT
    while box.locator(".jupyter-widgets-disconnected").count() or not box.locator(".pedatorch-backward-steps svg").count():
        if time.monotonic() > deadline:
            lab.fail(f"the backward-steps explorer was not live {KERNEL_TIMEOUT} s after Run All")
        time.sleep(0.2)
    title = box.locator(".pedatorch-backward-steps svg text", has_text="steps[0] of")
    lab.wait_for(title, "the picture of steps[0]")
    assert "SumBackward0" in box.locator(".pedatorch-backward-steps").inner_text()
    box.locator("button", has_text="next").click()
    lab.wait_for(box.locator(".pedatorch-backward-steps svg text", has_text="steps[1] of"),
                 "the picture of steps[1] after clicking next", timeout=KERNEL_TIMEOUT)
    lab.wait_for(box.locator(".pedatorch-backward-steps b", has_text="steps[1]: MulBackward0"),
                 "the details of steps[1] after clicking next", timeout=KERNEL_TIMEOUT)
    assert "→ x" in box.locator(".pedatorch-backward-steps").inner_text()
    lab.screenshot(box.locator(".jp-OutputArea-output").first, "backward_steps.png")
