"""viz.TrainingCurves and viz.progress.

The figure is inspected through matplotlib (its axes, line labels and data must
be what was logged), the files it writes are read back, the notebook behaviour
is checked twice: with a fake IPython display (how many outputs, how many
in-place updates) and in a real kernel run by nbclient (the cell ends with one
display_data holding the last drawing).
"""
import base64
import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import nn, viz

pytest.importorskip("matplotlib")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_size(data):
    """(width, height) from a PNG's IHDR chunk."""
    assert data[:8] == PNG_MAGIC, "not a PNG"
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def loop(curves, epochs=3, steps=4):
    """A fake training loop: train loss per step (as 0-d tensors), lr per step, val per epoch."""
    step = 0
    for epoch in range(epochs):
        for _ in range(steps):
            curves.log(step=step, loss=pt.tensor(1.0 / (step + 1)), lr=0.1 * 0.1 ** epoch)
            step += 1
        curves.log(epoch=epoch, split="val", loss=0.5 / (epoch + 1), accuracy=0.6 + 0.1 * epoch)
    return curves


# ---------------------------------------------------------------- history
def test_history_records_and_x_positions():
    c = loop(viz.TrainingCurves(notebook=False))
    h = c.history
    assert list(h) == ["train", "val"]
    assert list(h["train"]) == ["loss", "lr"] and list(h["val"]) == ["loss", "accuracy"]
    # per step: (step, value); per epoch: (epoch, value)
    assert h["train"]["loss"] == [(s, pytest.approx(1.0 / (s + 1))) for s in range(12)]
    assert h["train"]["lr"] == [(s, pytest.approx(0.1 * 0.1 ** (s // 4))) for s in range(12)]
    assert h["val"]["loss"] == [(0, 0.5), (1, 0.25), (2, pytest.approx(0.5 / 3))]
    assert h["val"]["accuracy"] == [(0, 0.6), (1, pytest.approx(0.7)), (2, pytest.approx(0.8))]
    assert all(type(v) is float for split in h.values() for pts in split.values() for _, v in pts)
    h["train"]["loss"].clear()                        # a copy: the curves keep their points
    assert len(c.history["train"]["loss"]) == 12
    assert len(c.records) == 15
    assert c.records[4] == {"split": "val", "step": None, "epoch": 0, "loss": 0.5, "accuracy": pytest.approx(0.6)}
    assert c.records[0]["split"] == "train" and c.records[0]["step"] == 0
    # steps were logged: the x axis is the step; val points sit at the last step of their epoch
    assert c.x_axis == "step"
    assert c.series("train/loss")[0] == list(range(12))
    assert c.series("val/loss")[0] == [3, 7, 11]
    with pytest.raises(KeyError, match="train/loss"):
        c.series("train/acc")


def test_epoch_only_and_automatic_steps():
    c = viz.TrainingCurves(notebook=False)
    for e in range(1, 4):
        c.log(epoch=e, loss=1.0 / e)
        c.log(epoch=e, split="val", loss=2.0 / e)
    assert c.x_axis == "epoch"
    assert c.series("val/loss") == ([1, 2, 3], pytest.approx([2.0, 1.0, 2.0 / 3]))
    assert c.history["train"]["loss"] == [(1, 1.0), (2, 0.5), (3, pytest.approx(1 / 3))]
    a = viz.TrainingCurves(notebook=False)
    for v in (3.0, 2.0, 1.0):
        a.log(loss=v)                       # neither step nor epoch: the next step
    assert [r["step"] for r in a.records] == [0, 1, 2]
    assert a.series("train/loss")[0] == [0, 1, 2]
    assert a.history == {"train": {"loss": [(0, 3.0), (1, 2.0), (2, 1.0)]}}


def test_values_may_be_tensors_numpy_or_an_optimizer():
    c = viz.TrainingCurves(notebook=False)
    w = pt.tensor(2.0, requires_grad=True)
    model = nn.Linear(2, 1)
    opt = pt.optim.SGD(model.parameters(), lr=0.05)
    c.log(step=pt.tensor(3), loss=w * 3, accuracy=np.float32(0.25), lr=opt)
    assert c.history == {"train": {"loss": [(3, 6.0)], "accuracy": [(3, 0.25)], "lr": [(3, 0.05)]}}
    assert c.records[0]["step"] == 3
    with pytest.raises(TypeError, match=r"loss= must be a number or a one-element tensor, got Tensor of shape \(3,\)"):
        c.log(step=4, loss=pt.ones(3))
    with pytest.raises(ValueError, match="at least one value"):
        c.log(step=5)
    with pytest.raises(ValueError, match="every"):
        viz.TrainingCurves(every=0)


def test_constructor_arguments_in_order():
    c = viz.TrainingCurves(("loss",), 3, 0.25, "run", (4, 3), True, None, notebook=False)
    assert (c.metrics, c.every, c.min_interval, c.title, c.figsize, c.grad_norms, c.out) == \
        (("loss",), 3, 0.25, "run", (4, 3), True, None)
    with pytest.raises(ValueError, match="min_interval"):
        viz.TrainingCurves(min_interval=-1)


def test_torch_tensors_accepted(torch):
    c = viz.TrainingCurves(notebook=False)
    c.log(step=0, loss=torch.tensor(0.75, requires_grad=True) * 1, accuracy=torch.tensor([0.5]))
    assert c.history == {"train": {"loss": [(0, 0.75)], "accuracy": [(0, 0.5)]}}


def test_summary_and_repr():
    c = viz.TrainingCurves(notebook=False)
    assert repr(c) == "<pedatorch.viz.TrainingCurves: nothing logged yet>"
    assert "nothing logged" in c.summary()
    loop(c)
    assert repr(c) == "<pedatorch.viz.TrainingCurves: train/loss, train/lr, val/loss, val/accuracy; 15 log calls>"
    assert "0x" not in repr(c)
    s = c.summary().splitlines()
    assert s[0] == "TrainingCurves: 15 log calls, last step 11, last epoch 2"
    row = next(line for line in s if line.split()[0] == "val/accuracy")
    assert "3 points" in row and "last 0.8 (step 11)" in row and "min 0.6 (step 3)" in row


# ----------------------------------------------------------------- figure
def test_figure_panels_lines_and_data():
    c = loop(viz.TrainingCurves(notebook=False, title="run 1"))
    fig = c.figure
    assert c.panels() == ["loss", "accuracy", "lr"]
    assert len(fig.axes) == 3
    axes = c.axes
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["loss", "accuracy", "lr"]
    assert fig.get_suptitle() == "run 1"
    loss = {line.get_label(): line for line in axes["loss"].get_lines()}
    assert set(loss) == {"train", "val"}
    np.testing.assert_allclose(loss["train"].get_xdata(), range(12))
    np.testing.assert_allclose(loss["train"].get_ydata(), [v for _, v in c.history["train"]["loss"]])
    np.testing.assert_allclose(loss["val"].get_xdata(), [3, 7, 11])
    np.testing.assert_allclose(loss["val"].get_ydata(), [v for _, v in c.history["val"]["loss"]])
    assert loss["val"].get_linestyle() == "--" and loss["train"].get_linestyle() == "-"
    assert [line.get_label() for line in axes["accuracy"].get_lines()] == ["val"]
    assert axes["loss"].get_xlabel() == "step"
    # the lr spans two decades: log scale; a narrow lr range stays linear
    assert axes["lr"].get_yscale() == "log"
    np.testing.assert_allclose(axes["lr"].get_lines()[0].get_ydata(), [v for _, v in c.history["train"]["lr"]])
    narrow = viz.TrainingCurves(notebook=False)
    for i, lr in enumerate((0.1, 0.08, 0.05)):
        narrow.log(step=i, loss=1.0, lr=lr)
    assert narrow.axes["lr"].get_yscale() == "linear"
    assert narrow.axes["loss"].get_yscale() == "linear"


def test_metrics_order_and_extra_panels():
    c = viz.TrainingCurves(metrics=("accuracy", "loss"), notebook=False)
    c.log(step=0, loss=1.0, perplexity=9.0)
    c.log(step=0, split="val", accuracy=0.5)
    assert c.panels() == ["accuracy", "loss", "perplexity"]
    assert len(c.figure.axes) == 3


def test_grad_norms_panel():
    pt.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    c = viz.TrainingCurves(grad_norms=True, notebook=False)
    assert c.panels() == ["grad norm"]
    with pytest.raises(RuntimeError, match="after loss.backward"):
        c.log_grad_norms(model)
    for step in range(3):
        model.zero_grad()
        model(pt.randn(5, 3)).pow(2).mean().backward()
        c.log(step=step, loss=1.0)
        norms = c.log_grad_norms(model)
        expected = {n: float(np.linalg.norm(np.asarray(p.grad._data))) for n, p in model.named_parameters()}
        assert norms == pytest.approx(expected)
    assert list(c.history["grad_norm"]) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert [s for s, _ in c.history["grad_norm"]["0.bias"]] == [0, 1, 2]
    assert c.series("grad_norm/0.bias")[0] == [0, 1, 2]      # at the step logged just before
    ax = c.axes["grad norm"]
    assert [line.get_label() for line in ax.get_lines()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    np.testing.assert_allclose(ax.get_lines()[3].get_ydata(), [v for _, v in c.history["grad_norm"]["2.bias"]])
    assert ax.get_yscale() == "log"
    assert c.panels() == ["loss", "grad norm"]
    with pytest.raises(TypeError, match="named_parameters"):
        c.log_grad_norms(object())


# ------------------------------------------------------------------ files
def test_save_png_svg_pdf(tmp_path):
    c = loop(viz.TrainingCurves(notebook=False, figsize=(6, 4), dpi=50))
    png = c.save(tmp_path / "curves.png")
    with open(png, "rb") as f:
        data = f.read()
    assert png_size(data) == (300, 200)
    image = pytest.importorskip("matplotlib.image").imread(png)
    assert image.shape[:2] == (200, 300)
    assert image[..., :3].std() > 0.05                       # something was drawn
    svg = ET.parse(c.save(str(tmp_path / "curves.svg"))).getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert (tmp_path / os.path.basename(c.save(tmp_path / "curves.pdf"))).read_bytes()[:5] == b"%PDF-"
    assert png_size(c._repr_png_()) == (300, 200)
    assert viz.TrainingCurves(notebook=False)._repr_png_() is None


def test_out_is_written_on_redraw_and_close(tmp_path, monkeypatch):
    out = tmp_path / "live.png"
    c = viz.TrainingCurves(out=str(out), every=2, min_interval=0, notebook=False)
    c.log(step=0, loss=1.0)
    assert not out.exists() and c.updates == 0 and c.pending
    c.log(step=1, loss=0.5)
    assert out.exists() and c.updates == 1 and not c.pending
    c.log(step=2, loss=0.25)
    c.close()                                                 # the pending third point
    assert c.updates == 2
    assert png_size(out.read_bytes()) == (480, 320)


def test_context_manager_closes_and_writes_out(tmp_path):
    out = tmp_path / "ctx.svg"
    with viz.TrainingCurves(out=str(out), min_interval=3600, notebook=False) as c:
        for i in range(5):
            c.log(step=i, loss=1.0 / (i + 1))
        assert c.updates == 0 and c.pending                  # held: an hour from the first value
    assert c.updates == 1 and not c.pending                   # __exit__ drew it all
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_script_without_out_never_draws(monkeypatch):
    ipd = pytest.importorskip("IPython.display")
    calls = []
    monkeypatch.setattr(ipd, "display", lambda *a, **k: calls.append(a))
    c = loop(viz.TrainingCurves(min_interval=0))             # no kernel here: notebook=False
    c.close()
    assert c.notebook is False and c.updates == 0 and calls == []


# --------------------------------------------------------------- notebook
class FakeHandle:
    def __init__(self, log):
        self.log = log

    def update(self, obj):
        self.log.append(("update", obj._repr_mimebundle_()))


def test_notebook_one_output_updated_in_place(monkeypatch):
    ipd = pytest.importorskip("IPython.display")
    log = []

    def display(obj, display_id=None, **kw):
        assert display_id is True, "the first drawing must ask for a display handle"
        log.append(("display", obj._repr_mimebundle_()))
        return FakeHandle(log)
    monkeypatch.setattr(ipd, "display", display)
    c = viz.TrainingCurves(every=3, min_interval=0, notebook=True, draw_share=1)
    for i in range(10):
        c.log(step=i, loss=1.0 / (i + 1))
    assert [kind for kind, _ in log] == ["display", "update", "update"]   # at calls 3, 6, 9
    c.close()                                                            # call 10 was pending
    assert [kind for kind, _ in log] == ["display", "update", "update", "update"]
    bundle = log[-1][1]
    assert bundle["text/plain"] == "<pedatorch.viz.TrainingCurves: train/loss; 10 log calls>"
    assert png_size(base64.b64decode(bundle["image/png"])) == (480, 320)


def test_notebook_min_interval_holds_redraws(monkeypatch):
    ipd = pytest.importorskip("IPython.display")
    log = []
    monkeypatch.setattr(ipd, "display", lambda obj, display_id=None: (log.append("display"), FakeHandle(log))[1])
    c = viz.TrainingCurves(min_interval=3600, notebook=True)
    for i in range(50):
        c.log(step=i, loss=1.0)
    assert log == [] and c.pending                           # an hour from the first value
    c.update()
    assert log == ["display"] and not c.pending


def test_slow_redraws_wait_longer(monkeypatch):
    """A redraw of 0.5 s with min_interval=0.5: the next one waits 19 x 0.5 s from the end of the draw,
    so 400 log calls 0.05 s apart (20 s of training) spend under 5% (+ one draw) redrawing."""
    ipd = pytest.importorskip("IPython.display")
    clock = [0.0]
    monkeypatch.setattr(viz.training.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(viz.TrainingCurves, "_typical_draw_seconds", 0.0)   # no curves drawn before
    log = []

    class SlowHandle(FakeHandle):
        def update(self, obj):
            clock[0] += 0.5
            log.append("update")

    def display(obj, display_id=None, **kw):
        clock[0] += 0.5
        log.append("display")
        return SlowHandle(log)
    monkeypatch.setattr(ipd, "display", display)
    c = viz.TrainingCurves(min_interval=0.5, notebook=True)
    for i in range(400):
        clock[0] += 0.05
        c.log(step=i, loss=1.0)
    assert c.wait == pytest.approx(9.5)
    assert log[0] == "display" and len(log) >= 2
    assert 0.5 * len(log) <= 0.05 * clock[0] + 0.5
    drawn = len(log)
    c.close()
    assert len(log) == drawn + 1 and not c.pending                      # the final state is drawn
    assert viz.TrainingCurves(min_interval=0.5, notebook=False).wait == pytest.approx(9.5)  # learnt
    with pytest.raises(ValueError, match="draw_share"):
        viz.TrainingCurves(draw_share=0)


def test_figure_stays_above_the_progress_bars(monkeypatch):
    ipd = pytest.importorskip("IPython.display")
    shown = []

    def display(obj, display_id=None, raw=False, **kw):
        shown.append("placeholder" if raw else type(obj).__name__)
        return FakeHandle(shown)
    monkeypatch.setattr(ipd, "display", display)
    c = viz.TrainingCurves(notebook=True, min_interval=0, draw_share=1)
    for epoch in range(2):
        for i in c.progress(range(3), backend="text"):
            c.log(loss=1.0)
    assert shown[0] == "placeholder"                  # the figure's place comes before the first bar
    assert "TrainingCurves" not in shown              # later drawings update that place
    assert sum(1 for s in shown if s[0] == "update") >= 2


NOTEBOOK_CELLS = [
    "import pedatorch as torch\nfrom pedatorch import viz\n%matplotlib inline",
    # 50 points, redrawn at 5, 10, ..., 50: one output, replaced nine times
    "curves = viz.TrainingCurves(every=5, min_interval=0, draw_share=1)\n"
    "for i in range(50):\n    curves.log(step=i, loss=torch.tensor(1.0 / (i + 1)))\n"
    "print(curves.updates)",
    # everything is held back (the wait starts at the first value), then drawn when the cell ends
    "held = viz.TrainingCurves(min_interval=3600)\n"
    "for i in range(7):\n    held.log(step=i, loss=float(i))\n"
    "print(held.updates)",
    "print(held.updates, curves.updates)",
]


def test_in_a_real_kernel_one_display_output_per_curves():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in NOTEBOOK_CELLS])
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    messages = []       # (cell index, msg_type, display_id) of every display message the kernel sent

    class Client(nbclient.NotebookClient):
        def process_message(self, msg, cell, cell_index):
            kind = msg["header"]["msg_type"]
            if kind in ("display_data", "update_display_data"):
                messages.append((cell_index, kind, msg["content"].get("transient", {}).get("display_id")))
            return super().process_message(msg, cell, cell_index)
    Client(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": ROOT}}).execute(env=env)

    def outputs(i, kind):
        return [o for o in nb.cells[i].outputs if o.output_type == kind]
    shown = outputs(1, "display_data")
    assert len(shown) == 1, f"expected one display output, got {nb.cells[1].outputs}"
    sent = [(kind, did) for i, kind, did in messages if i == 1]
    first_id = sent[0][1]
    assert first_id and sent == [("display_data", first_id)] + [("update_display_data", first_id)] * 9
    # the one output holds the last drawing (the updates replaced it)
    assert shown[0].data["text/plain"] == "<pedatorch.viz.TrainingCurves: train/loss; 50 log calls>"
    assert png_size(base64.b64decode(shown[0].data["image/png"])) == (480, 320)
    assert outputs(1, "stream")[0].text.strip() == "10"
    assert outputs(1, "execute_result") == []                 # no stray "<Figure ...>" either
    held = outputs(2, "display_data")
    assert len(held) == 1 and outputs(2, "stream")[0].text.strip() == "0"
    assert held[0].data["text/plain"] == "<pedatorch.viz.TrainingCurves: train/loss; 7 log calls>"
    assert outputs(3, "stream")[0].text.split() == ["1", "10"]  # the cell-end flush drew it
    assert [kind for i, kind, _ in messages if i == 2] == ["display_data"]


def test_viz_import_needs_no_matplotlib():
    code = ("import sys, pedatorch.viz as v; from pedatorch.viz import training; "
            "c = v.TrainingCurves(); c.log(step=0, loss=1.0); "
            "assert 'matplotlib' not in sys.modules and 'IPython' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": ROOT})


# --------------------------------------------------------------- progress
def test_progress_yields_everything_and_reports_total():
    buf = io.StringIO()
    bar = viz.progress(range(7), desc="train", file=buf)
    assert len(bar) == 7 and bar.total == 7 and bar.backend == "tqdm"
    assert list(bar) == list(range(7))
    assert bar.n == 7 and bar.closed
    assert "train" in buf.getvalue() and "7/7" in buf.getvalue()
    gen = viz.progress((i for i in range(3)), backend="text", file=io.StringIO())
    assert gen.total is None
    with pytest.raises(TypeError, match="no len"):
        len(gen)
    assert list(gen) == [0, 1, 2]
    assert len(viz.progress(iter([1, 2]), total=2)) == 2
    loader = pt.utils.data.DataLoader(pt.utils.data.TensorDataset(pt.arange(10.0)), batch_size=3)
    p = viz.progress(loader, backend="text", file=io.StringIO())
    assert len(p) == 4 and sum(len(b[0]) for b in p) == 10


def test_text_bar_shows_count_eta_and_postfix():
    buf = io.StringIO()
    bar = viz.progress(range(4), desc="epoch 1", backend="text", file=buf)
    for i in bar:
        bar.set_postfix(loss="0.5")
    line = buf.getvalue().split("\r")[-1]
    assert line.startswith("epoch 1: 100%|") and "4/4 [" in line and "loss=0.5" in line
    assert buf.getvalue().endswith("\n")
    assert repr(bar) == "<pedatorch.viz.Progress: epoch 1 4/4 (text)>"
    with pytest.raises(ValueError, match="backend"):
        viz.progress([], backend="rich")


def test_text_fallback_without_tqdm(monkeypatch):
    training = sys.modules[viz.progress.__module__]
    monkeypatch.setattr(training, "_have", lambda name: False)
    assert viz.progress([1]).backend == "text"


def test_widget_bar(monkeypatch):
    pytest.importorskip("ipywidgets")
    ipd = pytest.importorskip("IPython.display")
    shown = []
    monkeypatch.setattr(ipd, "display", lambda obj, **kw: shown.append(obj))
    bar = viz.progress(range(5), desc="fit", backend="widget")
    for _ in bar:
        pass
    box = shown[0]
    progress_widget, label = box.children
    assert progress_widget.max == 5 and progress_widget.value == 5 and progress_widget.description == "fit"
    assert label.value.startswith("5/5 [") and progress_widget.bar_style == "success"


def test_curves_progress_shows_latest_values_as_postfix():
    c = viz.TrainingCurves(notebook=False)
    buf = io.StringIO()
    bar = c.progress(range(3), desc="epoch 0", backend="text", file=buf)
    for i in bar:
        c.log(step=i, loss=0.25 * (i + 1))
    c.log(epoch=0, split="val", accuracy=0.5)     # after the loop: the bar is closed, no error
    assert bar.postfix == {"val_accuracy": "0.5"}
    assert "loss=0.75" in buf.getvalue()
    c.close()
