"""pedatorch.utils.tensorboard against torch.utils.tensorboard: the same calls on the same values write event
files that tensorboard's own reader (EventAccumulator) reads back the same; without the tensorboard package
the import fails as PyTorch's does, and ``import pedatorch`` never needs it."""
import importlib
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pedatorch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _forget(monkeypatch, package):
    """Drop ``package`` and its submodules from sys.modules (restored after the test), so the next import
    runs the module again."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        monkeypatch.delitem(sys.modules, name)


def _import_error(monkeypatch, module):
    _forget(monkeypatch, module)
    with pytest.raises(ImportError) as info:
        importlib.import_module(module)
    return type(info.value), str(info.value)


def test_without_tensorboard_the_import_fails_as_pytorchs(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboard", None)   # what Python does for a package that is not there
    ours = _import_error(monkeypatch, "pedatorch.utils.tensorboard")
    assert ours == (ModuleNotFoundError, "import of tensorboard halted; None in sys.modules")
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    assert ours == _import_error(monkeypatch, "torch.utils.tensorboard")


def test_import_pedatorch_does_not_import_tensorboard():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "import pedatorch, pedatorch.utils\n"
            "assert not hasattr(pedatorch.utils, 'tensorboard')\n"
            "assert not [m for m, v in sys.modules.items()\n"
            "            if v is not None and m.startswith(('tensorboard', 'pedatorch.utils.tensorboard'))]\n")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ---------------------------------------------------------------------------------------------------------
# With tensorboard: write, read back, compare with PyTorch

def _accumulator(path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(str(path), size_guidance={k: 0 for k in ("scalars", "histograms", "images", "tensors",
                                                                   "compressedHistograms", "audio")})
    acc.Reload()
    return acc


def _pixels(encoded):
    Image = pytest.importorskip("PIL.Image")
    return np.asarray(Image.open(io.BytesIO(encoded)).convert("RGBA"))


RNG = np.random.default_rng(0)
VALUES = {
    "weights": RNG.normal(size=(50, 20)).astype(np.float32),
    "ints": RNG.integers(-5, 6, size=300),
    "chw": RNG.random((3, 9, 7)).astype(np.float32),
    "hwc": RNG.random((6, 5, 4)).astype(np.float32),
    "hw_uint8": RNG.integers(0, 256, size=(4, 11)).astype(np.uint8),
    "batch": RNG.random((11, 1, 5, 6)).astype(np.float32),
    "embedding": RNG.normal(size=(5, 3)).astype(np.float32),
    "label_img": RNG.random((5, 3, 4, 4)).astype(np.float32),
}


def _log_everything(SummaryWriter, tensor, log_dir):
    """The same calls for pedatorch and torch; ``tensor`` makes the library's tensor from a numpy array."""
    with SummaryWriter(log_dir) as w:
        for step in range(4):
            w.add_scalar("loss/train", tensor(np.array(1.0 / (step + 1), dtype=np.float32)), step)   # a 0-d tensor
            w.add_scalar("lr", 0.1 * 0.5 ** step, step)                              # a Python float
            w.add_scalar("np", np.float64(step) / 3, step)                           # a numpy scalar
            w.add_scalars("curves", {"a": step * 2, "b/c": tensor(np.float32([step]))}, step)
        w.add_histogram("w", tensor(VALUES["weights"]), 7)
        w.add_histogram("w_np", VALUES["weights"], 8, bins=10)
        w.add_histogram("w_auto", tensor(VALUES["weights"]), 9, bins="auto")
        w.add_histogram("ints", tensor(VALUES["ints"]), 1, max_bins=30)
        w.add_histogram("ints_edges", VALUES["ints"], 1, bins=[-10, -1, 0, 1, 10])
        w.add_image("chw", tensor(VALUES["chw"]), 2)
        w.add_image("hwc", VALUES["hwc"], 2, dataformats="HWC")
        w.add_image("hw", tensor(VALUES["hw_uint8"]), 2, dataformats="HW")
        w.add_images("batch", tensor(VALUES["batch"]), 3)
        w.add_text("notes", "a *markdown* note, ü", 5)
        w.add_hparams({"lr": 0.01, "batch": 32, "opt": "sgd", "nesterov": True}, {"hp/acc": 0.75}, run_name="hp")
        w.add_embedding(tensor(VALUES["embedding"]), metadata=list("abcde"), label_img=tensor(VALUES["label_img"]),
                        global_step=3, tag="pts")


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    pytest.importorskip("tensorboard")
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    from pedatorch.utils.tensorboard import SummaryWriter
    ours, theirs = tmp_path_factory.mktemp("pedatorch"), tmp_path_factory.mktemp("torch")
    _log_everything(SummaryWriter, pedatorch.from_numpy, ours)
    _log_everything(TorchWriter, torch.from_numpy, theirs)
    return ours, theirs


RUNS = ["", "curves_a", "curves_b/c", "hp"]   # add_scalars writes a run a line; add_hparams its own run


def test_the_same_runs_and_tags(logs):
    ours, theirs = logs
    def runs(d):
        return sorted(os.path.relpath(root, d) for root, _, files in os.walk(d)
                      if any(f.startswith("events.out.tfevents") for f in files))
    assert runs(ours) == runs(theirs) == sorted(os.path.normpath(r or ".") for r in RUNS)
    for run in RUNS:
        assert _accumulator(ours / run).Tags() == _accumulator(theirs / run).Tags()


def test_scalars(logs):
    ours, theirs = logs
    for run in RUNS:
        a, b = _accumulator(ours / run), _accumulator(theirs / run)
        for tag in b.Tags()["scalars"]:
            assert [(e.step, e.value) for e in a.Scalars(tag)] == [(e.step, e.value) for e in b.Scalars(tag)], tag
    assert [e.value for e in _accumulator(ours).Scalars("lr")] == pytest.approx([0.1, 0.05, 0.025, 0.0125])


def test_histograms(logs):
    a, b = (_accumulator(d) for d in logs)
    assert b.Tags()["histograms"] == ["w", "w_np", "w_auto", "ints", "ints_edges"]
    for tag in b.Tags()["histograms"]:
        (ha,), (hb,) = a.Histograms(tag), b.Histograms(tag)
        assert ha.step == hb.step
        x, y = ha.histogram_value, hb.histogram_value
        assert (x.min, x.max, x.num) == (y.min, y.max, y.num), tag
        assert x.sum == pytest.approx(y.sum) and x.sum_squares == pytest.approx(y.sum_squares), tag
        assert x.bucket_limit == y.bucket_limit and x.bucket == y.bucket, tag


def test_images(logs):
    a, b = (_accumulator(d) for d in logs)
    assert b.Tags()["images"] == ["chw", "hwc", "hw", "batch"]
    for tag in b.Tags()["images"]:
        (ia,), (ib,) = a.Images(tag), b.Images(tag)
        assert (ia.step, ia.width, ia.height) == (ib.step, ib.width, ib.height), tag
        np.testing.assert_array_equal(_pixels(ia.encoded_image_string), _pixels(ib.encoded_image_string))
    assert (a.Images("batch")[0].width, a.Images("batch")[0].height) == (8 * 6, 2 * 5)   # 8 a row


def test_text_and_hparams(logs):
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData
    a, b = (_accumulator(d) for d in logs)
    (ta,), (tb,) = a.Tensors("notes/text_summary"), b.Tensors("notes/text_summary")
    assert ta.step == tb.step == 5 and ta.tensor_proto == tb.tensor_proto
    assert a.SummaryMetadata("notes/text_summary") == b.SummaryMetadata("notes/text_summary")
    a, b = (_accumulator(d / "hp") for d in logs)
    for tag in b.Tags()["tensors"]:
        ma, mb = a.SummaryMetadata(tag).plugin_data, b.SummaryMetadata(tag).plugin_data
        assert ma.plugin_name == mb.plugin_name == "hparams"
        assert HParamsPluginData.FromString(ma.content) == HParamsPluginData.FromString(mb.content), tag


def test_embedding_files(logs):
    ours, theirs = logs
    for name in ("projector_config.pbtxt", "00003/pts/tensors.tsv", "00003/pts/metadata.tsv"):
        assert (ours / name).read_text() == (theirs / name).read_text(), name
    np.testing.assert_array_equal(_pixels((ours / "00003/pts/sprite.png").read_bytes()),
                                  _pixels((theirs / "00003/pts/sprite.png").read_bytes()))


# ---------------------------------------------------------------------------------------------------------
# pedatorch alone

@pytest.fixture
def SummaryWriter():
    pytest.importorskip("tensorboard")
    from pedatorch.utils.tensorboard import SummaryWriter
    return SummaryWriter


def test_default_log_dir_and_comment(SummaryWriter, tmp_path, monkeypatch):
    import socket
    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1")
    w.close()
    run = w.get_logdir()
    assert os.path.dirname(run) == "runs" and run.endswith("_" + socket.gethostname() + "_lr0.1")
    assert os.listdir(run)[0].startswith("events.out.tfevents")


def _events(path):
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    return list(EventFileLoader(str(path)).Load())


def test_purge_step_starts_the_session_again(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path, purge_step=5) as w:
        w.add_scalar("a", 1, 5)
    (name,) = os.listdir(tmp_path)
    # after the file's own version record: TensorBoard hides what came before with step >= 5
    assert [(e.step, e.WhichOneof("what")) for e in _events(tmp_path / name)][1:] == [
        (5, "file_version"), (5, "session_log"), (5, "summary")]


def test_close_twice_and_reopen(SummaryWriter, tmp_path):
    w = SummaryWriter(tmp_path, filename_suffix=".x")
    w.add_scalar("a", 1, 5)
    w.close()
    w.close()                      # a second close does nothing
    w.add_scalar("a", 2, 6)        # and a later add_* opens a new event file
    w.flush()
    w.close()
    files = os.listdir(tmp_path)
    assert len(files) == 2 and all(f.endswith(".x") for f in files)
    assert [(e.step, e.value) for e in _accumulator(tmp_path).Scalars("a")] == [(5, 1.0), (6, 2.0)]


def test_png_without_pillow(monkeypatch):
    pytest.importorskip("tensorboard")
    from pedatorch.utils.tensorboard import summary
    Image = pytest.importorskip("PIL.Image")
    for channels in (3, 4):
        hwc = RNG.integers(0, 256, size=(7, 5, channels)).astype(np.uint8)
        with monkeypatch.context() as m:
            m.setitem(sys.modules, "PIL", None)
            png = summary.encode_png(hwc)
        decoded = Image.open(io.BytesIO(png))
        assert decoded.mode == ("RGB", "RGBA")[channels - 3]
        np.testing.assert_array_equal(np.asarray(decoded), hwc)


def test_figure(SummaryWriter, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure = plt.figure(figsize=(2, 1.5), dpi=50)
    plt.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", figure, 0)
        w.add_figure("figs", [plt.figure(figsize=(1, 1), dpi=20) for _ in range(2)], 0)
    assert not plt.fignum_exists(figure.number)   # closed by default
    acc = _accumulator(tmp_path)
    assert (acc.Images("fig")[0].width, acc.Images("fig")[0].height) == (100, 75)
    assert (acc.Images("figs")[0].width, acc.Images("figs")[0].height) == (40, 20)


def test_add_graph_accepts_a_model_and_writes_no_graph(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path) as w, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w.add_graph(pedatorch.nn.Linear(3, 2), pedatorch.randn(4, 3))
        w.add_graph(pedatorch.nn.Linear(3, 2))
    assert len(caught) == 2 and "writes no graph" in str(caught[0].message)
    assert not _accumulator(tmp_path).Tags()["graph"]


def test_unsupported_kinds_say_so(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(NotImplementedError, match="no add_audio"):
        w.add_audio("a", pedatorch.zeros(10))


def test_values_must_be_one_number(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(AssertionError, match="one element"):
            w.add_scalar("a", pedatorch.zeros(2), 0)
        with pytest.raises(NotImplementedError, match="numpy array or torch tensor"):
            w.add_histogram("h", [1.0, 2.0], 0)   # lists are not taken, as in PyTorch
