"""pedatorch.onnx.export: the files pass onnx's checker and onnxruntime reproduces pedatorch's outputs,
also for another batch size when ``dynamic_axes`` names the batch dim; the errors of what cannot be exported."""
import io
import sys
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import nn
from pedatorch.onnx.errors import UnsupportedOperatorError, OnnxExporterError

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _export(model, args, **kw):
    buf = io.BytesIO()
    pt.onnx.export(model, args, buf, dynamo=False, **kw)
    proto = onnx.load_from_string(buf.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, ort.InferenceSession(buf.getvalue(), providers=["CPUExecutionProvider"])


def _flat(out):
    return list(pt.utils._pytree.tree_flatten(out)[0])


def _check_runs(model, session, inputs, names=("x",)):
    for x in inputs:
        xs = x if isinstance(x, tuple) else (x,)
        got = session.run(None, {n: v.numpy() for n, v in zip(names, xs)})
        with pt.no_grad():
            want = _flat(model(*xs))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def _cnn():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                         nn.Conv2d(8, 4, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(4, 3))


BATCH = {"x": {0: "batch"}}


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm_batch_first", "lstm_seq_first", "transformer"])
def test_models_match_onnxruntime(name):
    pt.manual_seed(0)
    if name == "mlp":
        model, shape, axes = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 3), nn.LogSoftmax(-1)), \
            (4, 5), BATCH
    elif name == "cnn":
        model, shape, axes = _cnn(), (2, 3, 12, 12), BATCH
        # running statistics that are not the defaults
        model.train()
        model(pt.randn(8, 3, 12, 12) * 2 + 1)
    elif name == "lstm_batch_first":
        model, shape, axes = nn.LSTM(4, 6, num_layers=2, batch_first=True), (3, 5, 4), BATCH
    elif name == "lstm_seq_first":   # (time, batch, features): both dims dynamic, bidirectional
        model, shape, axes = nn.LSTM(4, 6, bidirectional=True), (5, 3, 4), {"x": {0: "time", 1: "batch"}}
    else:
        model, shape, axes = nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), (2, 7, 16), BATCH
    model.eval()
    x = pt.randn(*shape)
    proto, session = _export(model, (x,), input_names=["x"], dynamic_axes=axes)
    assert [i.name for i in proto.graph.input] == ["x"]
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    for axis, sym in axes["x"].items():
        assert dims[axis].dim_param == sym
    params = {k for k, _ in model.named_parameters()}
    assert params <= {i.name for i in proto.graph.initializer}
    other = list(shape)
    for axis in axes["x"]:
        other[axis] += 3
    _check_runs(model, session, [x, pt.randn(*other)])


def test_gru_rnn_and_more_ops():
    pt.manual_seed(0)

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 6)
            self.gru = nn.GRU(6, 5, batch_first=True)
            self.rnn = nn.RNN(5, 4, nonlinearity="relu", batch_first=True)
            self.norm = nn.LayerNorm(4)

        def forward(self, tokens):
            h, _ = self.gru(self.emb(tokens))
            h, _ = self.rnn(h)
            h = self.norm(nn.functional.gelu(h))
            last = h[:, -1]
            pooled = h.mean(1) + h.amax(1) - pt.sigmoid(h).sum(1) / 3
            both = pt.cat([last, pooled.clamp(min=-1.0, max=1.0)], dim=-1)
            return nn.functional.softmax(both * 2 - 1, dim=-1), both.argmax(-1)

    model = Mixed().eval()
    tokens = pt.tensor([[1, 2, 3, 4], [5, 6, 7, 0]])
    _, session = _export(model, (tokens,), input_names=["tokens"], dynamic_axes={"tokens": {0: "b", 1: "t"}})
    _check_runs(model, session, [tokens, pt.tensor([[9, 1, 1], [2, 2, 2], [0, 3, 8]])], names=("tokens",))


def test_vision_ops():
    pt.manual_seed(0)

    class Vision(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1, groups=2)
            self.up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)

        def forward(self, x):
            y = nn.functional.leaky_relu(self.conv(x), 0.1)
            y = nn.functional.avg_pool2d(y, 2, ceil_mode=True, count_include_pad=False)
            y = nn.functional.interpolate(y, scale_factor=2, mode="nearest")
            y = self.up(nn.functional.pad(y, (1, 1, 0, 0)))
            y = nn.functional.interpolate(y, size=(5, 7), mode="bilinear", align_corners=False)
            return nn.functional.adaptive_avg_pool2d(y, (2, 3)).flatten(1)

    model = Vision().eval()
    x = pt.randn(2, 2, 7, 7)
    _, session = _export(model, (x,), input_names=["x"], dynamic_axes=BATCH)
    _check_runs(model, session, [x, pt.randn(5, 2, 7, 7)])


def test_names_files_and_options(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU())
    x = pt.randn(2, 3)
    path = tmp_path / "m.onnx"
    assert pt.onnx.export(model, (x,), str(path), input_names=["inp"], output_names=["out"], dynamo=False) is None
    proto = onnx.load(str(path))
    assert [o.name for o in proto.graph.output] == ["out"]
    assert {"0.weight", "0.bias"} == {i.name for i in proto.graph.initializer}
    assert proto.opset_import[0].version == 20 and proto.producer_name == "pedatorch"
    program = pt.onnx.export(model, x, opset_version=17)   # dynamo=True (the default): an ONNXProgram
    assert program.model_proto.opset_import[0].version == 17
    np.testing.assert_allclose(program(x)[0].numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    proto, _ = _export(model, (x,), export_params=False)
    assert {"0.weight", "0.bias"} <= {i.name for i in proto.graph.input} and not proto.graph.initializer
    with pytest.raises(ValueError, match="Unsupported ONNX opset version"):
        pt.onnx.export(model, (x,), io.BytesIO(), opset_version=5, dynamo=False)


def test_is_in_onnx_export_and_eval_mode():
    seen = []

    class Probe(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            seen.append((pt.onnx.is_in_onnx_export(), self.training))
            return self.drop(x) * 2

    model = Probe()
    assert not pt.onnx.is_in_onnx_export()
    _, session = _export(model, (pt.ones(3),))
    assert seen[0] == (True, False) and model.training and not pt.onnx.is_in_onnx_export()
    np.testing.assert_allclose(session.run(None, {"x": np.ones(3, np.float32)})[0], 2 * np.ones(3))


def test_unsupported_ops_and_cases():
    with pytest.raises(UnsupportedOperatorError, match=r"Exporting the operator 'aten::sort' to ONNX opset version "
                                                       r"20 is not supported"):
        pt.onnx.export(lambda x: x.sort()[0], (pt.randn(4),), io.BytesIO(), dynamo=False)

    def writes_view(x):
        y = x * 1
        y[0] = 0.0
        return y
    with pytest.raises(UnsupportedOperatorError, match="writes in place into a view"):
        pt.onnx.export(writes_view, (pt.randn(3, 2),), io.BytesIO(), dynamo=False)
    with pytest.raises(UnsupportedOperatorError, match="batch normalization with batch statistics"):
        pt.onnx.export(nn.BatchNorm1d(3), (pt.randn(4, 3),), io.BytesIO(), dynamo=False,
                       training=pt.onnx.TrainingMode.TRAINING)
    with pytest.raises(UnsupportedOperatorError, match="opset version 16 is not supported. Support for this operator "
                                                       "was added in version 17"):
        pt.onnx.export(nn.LayerNorm(3), (pt.randn(2, 3),), io.BytesIO(), dynamo=False, opset_version=16)

    def data_dependent(x):     # a Python loop over the batch: its graph changes with the batch size
        return pt.stack([row * i for i, row in enumerate(x)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(OnnxExporterError, match="dynamic axes \\['batch'\\] cannot be exported"):
            pt.onnx.export(data_dependent, (pt.randn(3, 2),), io.BytesIO(), input_names=["x"], dynamic_axes=BATCH,
                           dynamo=False)


def test_missing_onnx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"pip install 'pedatorch\[deploy\]'"):
        pt.onnx.export(nn.Linear(2, 2), (pt.ones(1, 2),), io.BytesIO(), dynamo=False)
