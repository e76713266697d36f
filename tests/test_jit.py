"""pedatorch.jit: trace (graph, replay, batch sizes, warnings), save/load, script, the helpers.

Compared with PyTorch where it makes sense (outputs of traced models on new inputs, the warnings and
errors of tracing, the type line of a graph's inputs); the rest checks the replay against the eager run.
"""
import io
import json
import warnings
import zipfile

import numpy as np
import pytest

import pedatorch as pt
from pedatorch import nn
from pedatorch.autograd import gradcheck
from pedatorch.jit import TracerWarning
from pedatorch.jit.frontend import NotSupportedError, UnsupportedNodeError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _np(t):
    return t.detach().numpy()


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(pt.relu(self.fc1(x)))


def _cnn():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2)).eval()


def _to_torch(torch, ours, theirs):
    """Copy pedatorch weights into the same torch model."""
    theirs.load_state_dict({k: torch.tensor(_np(v)) for k, v in ours.state_dict().items()})
    return theirs


# ====================================================================== trace

def test_trace_module_matches_eager_and_torch(torch):
    pt.manual_seed(0)
    m = Net()
    tm = torch.nn.Sequential()   # the same net in torch
    tm.fc1, tm.fc2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 2)
    tm.forward = lambda x: tm.fc2(torch.relu(tm.fc1(x)))
    _to_torch(torch, m, tm)
    x = pt.randn(3, 4)
    traced = pt.jit.trace(m, x)
    theirs = torch.jit.trace(tm, torch.tensor(_np(x)), check_trace=False)
    for b in (3, 5, 1):   # the trace generalizes over the batch size (as PyTorch's does here)
        new = pt.randn(b, 4)
        _close(traced(new), m(new))
        np.testing.assert_allclose(_np(traced(new)), theirs(torch.tensor(_np(new))).detach().numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert isinstance(traced, pt.jit.ScriptModule) and type(traced).__name__ == "TopLevelTracedModule"
    assert traced.fc1.weight is m.fc1.weight          # the parameters are shared, as in PyTorch
    assert list(traced.state_dict()) == list(m.state_dict())
    assert repr(traced).splitlines()[:2] == ["Net(", "  original_name=Net"]


def test_graph_text_is_torchscript_style(torch):
    m = Net()
    x = pt.randn(3, 4)
    g = str(pt.jit.trace(m, x).graph)
    theirs = str(torch.jit.trace(lambda x: x.relu(), torch.zeros(3, 4)).graph)
    # the inputs' types are written as PyTorch writes them
    assert theirs.splitlines()[0].split(" : ")[1] in g.splitlines()[1]
    assert g.startswith("graph(%self.1 : __torch__.Net,\n      %x : Float(3, 4, strides=[4, 1], requires_grad=0, "
                        "device=cpu)):")
    assert 'prim::GetAttr[name="fc1.weight"](%self.1), scope: fc1' in g
    assert "aten::addmm(%fc1.bias, %x, " in g and "aten::relu(" in g and g.rstrip().endswith(")")
    code = pt.jit.trace(m, x).code
    assert code.startswith("def forward(self,\n    x: Tensor) -> Tensor:") and "aten.addmm(" in code


def test_trace_function_and_gradients():
    def f(x, w):
        return (x @ w).tanh().sum(1) * 2
    x, w = pt.randn(3, 4, dtype=pt.float64), pt.randn(4, 2, dtype=pt.float64, requires_grad=True)
    traced = pt.jit.trace(f, (x, w))
    assert traced.name == "f" and isinstance(traced, pt.jit.ScriptFunction)
    x2 = pt.randn(3, 4, dtype=pt.float64, requires_grad=True)
    out = traced(x2, w)
    out.sum().backward()
    g_traced = w.grad.clone()
    w.grad = None
    f(x2, w).sum().backward()
    _close(g_traced, w.grad)
    assert gradcheck(lambda a, b: traced(a, b), (x2, w))
    lam = pt.jit.trace(lambda x: x * 2, pt.ones(2))
    assert lam.name == "_lambda"


def test_batch_sizes_cnn_lstm_gru_transformer():
    pt.manual_seed(0)
    cases = [(_cnn(), (1, 3, 8, 8), (4, 3, 8, 8)),
             (nn.LSTM(4, 5, num_layers=2, batch_first=True), (2, 3, 4), (6, 3, 4)),
             (nn.GRU(4, 5, batch_first=True), (2, 3, 4), (3, 3, 4)),   # (GRU's transpose_ is seen through)
             (nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval(), (2, 5, 8), (3, 5, 8))]
    for m, shape, other in cases:
        traced = pt.jit.trace(m, pt.randn(*shape))
        for s in (shape, other):
            x = pt.randn(*s)
            got, want = traced(x), m(x)
            got = got[0] if isinstance(got, tuple) else got
            want = want[0] if isinstance(want, tuple) else want
            _close(got, want, 1e-5)


def test_other_shape_is_a_clear_error():
    traced = pt.jit.trace(nn.LSTM(4, 5, batch_first=True), pt.randn(2, 3, 4))
    with pytest.raises(RuntimeError, match=r"recorded for input %input of shape \(\*, 3, 4\).*got shape \(2, 4, 4\)"):
        traced(pt.randn(2, 4, 4))


def test_indexing_detach_setitem_replay():
    def f(x, idx, mask):
        y = x.detach() * 2 + x
        z = x[idx][:, 1:] + y[:, 1:][idx]
        x2 = x.clone()
        x2[0] = 5.0
        return z, x[mask].sum(), x2
    args = (pt.randn(4, 3), pt.tensor([0, 2]), pt.tensor([True, False, True, True]))
    traced = pt.jit.trace(f, args)
    g = str(traced.graph)
    assert "aten::detach(%x)" in g and "index(%idx)" in g and "nonzero(%mask)" in g
    new = (pt.randn(4, 3), pt.tensor([3, 1]), pt.tensor([False, True, False, False]))
    for a, b in zip(traced(*new), f(*new)):
        _close(a, b)


def test_tracer_warnings_match_torch(torch):
    cases = {
        "boolean": lambda m: (lambda x: x * 2 if m.sum(x) > 0 else x),
        "number": lambda m: (lambda x: x * x.sum().item()),
        "float": lambda m: (lambda x: x * float(x.sum())),
        "integer": lambda m: (lambda x: x * int(x.sum())),
        "list": lambda m: (lambda x: x + len(x.tolist())),
    }
    for kind, make in cases.items():
        texts = []
        for lib, mod in ((pt, pt), (torch, torch)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                lib.jit.trace(make(mod), mod.ones(3), check_trace=False)
            texts.append([str(x.message) for x in w if x.category.__name__ == "TracerWarning"])
        assert texts[0][:1] == texts[1][:1], kind
        assert f"Converting a tensor to a Python {kind}" in texts[0][0]


def test_constants_and_outputs(torch):
    with pytest.warns(TracerWarning, match="registered as a constant"):
        pt.jit.trace(lambda x: x + pt.randn(3), pt.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", TracerWarning)
        zeros = pt.jit.trace(lambda x: x + pt.zeros(x.shape[0]), pt.ones(3))   # re-made: no warning
    _close(zeros(pt.full((7,), 2.0)), pt.full((7,), 2.0))
    with pytest.warns(TracerWarning, match="Encountering a list at the output"):
        pt.jit.trace(lambda x: [x, x * 2], pt.ones(3))
    for lib in (pt, torch):
        with pytest.raises(RuntimeError, match="Encountering a dict at the output"):
            lib.jit.trace(lambda x: {"a": x}, lib.ones(3))
    msgs = []
    for lib in (pt, torch):
        with pytest.raises(RuntimeError) as e:
            lib.jit.trace(lambda x, n: x * n, (lib.ones(3), 2))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_check_trace_and_trace_module():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x)

        def double(self, x):
            return self.fc(x) * 2

    m = M()
    x = pt.randn(2, 3)
    traced = pt.jit.trace_module(m, {"forward": x, "double": x})
    _close(traced.double(x), m.double(x))
    _close(traced(x), m(x))
    # a trace that does not reproduce the Python function on check inputs warns (as PyTorch)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        pt.jit.trace(lambda x: x * 2 if x.sum() > 0 else -x, pt.ones(3), check_inputs=[(-pt.ones(3),)])
    assert any("does not match the corresponding output" in str(x.message) for x in w)
    assert not pt.jit.is_tracing()
    seen = []
    pt.jit.trace(lambda x: seen.append(pt.jit.is_tracing()) or x, pt.ones(1))
    assert seen[0] is True


def test_batchnorm_training_trace_leaves_stats_once():
    bn = nn.BatchNorm1d(3)
    before = bn.running_mean.clone()
    x = pt.randn(4, 3) + 1
    pt.jit.trace(bn, x)           # the extra runs (batch check, check_trace) leave the statistics alone
    ref = nn.BatchNorm1d(3)
    ref(x)
    _close(bn.running_mean, ref.running_mean)
    assert not np.allclose(_np(before), _np(bn.running_mean))


# ====================================================================== save / load

def test_save_load_roundtrip(tmp_path):
    pt.manual_seed(0)
    for m, shape in ((Net(), (3, 4)), (_cnn(), (2, 3, 8, 8)), (nn.LSTM(4, 5, batch_first=True), (2, 3, 4))):
        traced = pt.jit.trace(m, pt.randn(*shape))
        buf = io.BytesIO()
        pt.jit.save(traced, buf, _extra_files={"note.txt": "hello"})
        buf.seek(0)
        extra = {"note.txt": ""}
        loaded = pt.jit.load(buf, _extra_files=extra)
        assert extra["note.txt"] == b"hello"
        assert type(loaded).__name__ == "RecursiveScriptModule" and loaded.training == m.training
        x = pt.randn(*((5,) + shape[1:]))
        a, b = loaded(x), m(x)
        _close(a[0] if isinstance(a, tuple) else a, b[0] if isinstance(b, tuple) else b, 1e-6)
        assert sorted(loaded.state_dict()) == sorted(m.state_dict())
    f = pt.jit.trace(lambda x: x.sin() * 2, pt.randn(3))
    path = tmp_path / "f.ptj"
    f.save(str(path))
    g = pt.jit.load(str(path))
    _close(g(pt.ones(3)), pt.ones(3).sin() * 2)


def test_load_refuses_foreign_and_tampered_files(torch, tmp_path):
    path = tmp_path / "torch.pt"
    torch.jit.save(torch.jit.trace(torch.nn.Linear(2, 2), torch.ones(1, 2)), str(path))
    with pytest.raises(RuntimeError, match="TorchScript archive written by PyTorch"):
        pt.jit.load(str(path))
    with pytest.raises(RuntimeError, match="failed finding central directory"):
        pt.jit.load(io.BytesIO(b"not a zip"))
    with pytest.raises(ValueError, match="does not exist"):
        pt.jit.load(str(tmp_path / "missing.pt"))
    buf = io.BytesIO()
    pt.jit.save(pt.jit.trace(_cnn(), pt.randn(1, 3, 8, 8)), buf)
    for old, new in (('"op": "ops.elementwise.Relu_"', '"op": "os.system"'),
                     ('"object": "nn.functional.conv._Geom"', '"object": "subprocess.Popen"')):
        z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
        doc = z.read("pedatorch_jit/graph.json").decode()
        assert old in doc
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as w:
            for name in z.namelist():
                w.writestr(name, doc.replace(old, new) if name.endswith("graph.json") else z.read(name))
        out.seek(0)
        with pytest.raises(RuntimeError, match="unknown argument class|does not have"):
            pt.jit.load(out)
    assert json.loads(zipfile.ZipFile(io.BytesIO(buf.getvalue())).read("pedatorch_jit/graph.json"))["format"] == \
        "pedatorch.jit"


# ====================================================================== script

def scripted_control_flow(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    for i in range(3):
        y = y + i
    while y.sum() > 100:
        y = y / 2
    return y


def uses_try(x):
    try:
        return x
    except Exception:
        return x


def uses_lambda(x):
    f = lambda a: a  # noqa: E731
    return f(x)


def uses_varargs(x, *args):
    return x


def uses_unknown(x):
    return not_defined_anywhere(x)  # noqa: F821


def typed(x, n: int):
    return x * n


def test_script_function_control_flow(torch):
    s = pt.jit.script(scripted_control_flow)
    for v in (pt.ones(3), -pt.ones(3), pt.full((3,), 60.0)):
        _close(s(v), scripted_control_flow(v))
    g = str(s.graph)
    assert "prim::If(" in g and "prim::Loop(" in g and "block0(" in g and "block1()" in g
    assert "def scripted_control_flow(x):" in s.code
    theirs = torch.jit.script(scripted_control_flow)
    np.testing.assert_allclose(_np(s(pt.ones(3))), theirs(torch.ones(3)).numpy())


def test_script_refuses_what_torchscript_refuses(torch):
    for fn, cls in ((uses_try, UnsupportedNodeError), (uses_lambda, UnsupportedNodeError),
                    (uses_varargs, NotSupportedError), (uses_unknown, RuntimeError)):
        with pytest.raises(cls) as ours:
            pt.jit.script(fn)
        with pytest.raises(Exception) as theirs:
            torch.jit.script(fn)
        assert type(ours.value).__name__ == type(theirs.value).__name__
        # the same first line (the reason), then the place
        assert str(ours.value).strip().splitlines()[0] == str(theirs.value).strip().splitlines()[0]
        assert "<--- HERE" in str(ours.value)


def test_script_argument_types(torch):
    s, t = pt.jit.script(typed), torch.jit.script(typed)
    _close(s(pt.ones(2), 3), pt.full((2,), 3.0))
    for ours_args, their_args in (((pt.ones(2), 2.5), (torch.ones(2), 2.5)), ((3, 2), (3, 2))):
        with pytest.raises(RuntimeError) as a:
            s(*ours_args)
        with pytest.raises(RuntimeError) as b:
            t(*their_args)
        assert str(a.value).splitlines()[:3] == str(b.value).splitlines()[:3]


class Scripted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.k = 2

    def forward(self, x):
        h = self.fc(x)
        if self.k > 1 and pt.jit.is_scripting():
            h = h.relu()
        return self.helper(h)

    def helper(self, h):
        return h * self.k

    @pt.jit.ignore
    def ignored(self, x):
        import math   # (not TorchScript: left to Python)
        return x * math.pi


def test_script_module():
    m = Scripted()
    s = pt.jit.script(m)
    x = pt.randn(4, 3)
    _close(s(x), m.fc(x).relu() * 2)
    assert type(s).__name__ == "RecursiveScriptModule" and s.fc.weight is m.fc.weight
    assert 'prim::CallMethod[name="forward"](%fc, %x.1)' in str(s.graph) and "prim::If(" in str(s.graph)
    _close(s.ignored(x), x * np.pi)
    assert not pt.jit.is_scripting()
    with pytest.raises(RuntimeError, match="writes traced programs only"):
        pt.jit.save(s, io.BytesIO())


# ====================================================================== helpers programs call

def test_helpers():
    @pt.jit.ignore
    def f(x):
        return x
    assert f(1) == 1 and pt.jit.unused(f) is f and pt.jit.export(f) is f
    assert pt.jit.annotate(list, [1]) == [1]
    assert pt.jit.Final[int] is int
    traced = pt.jit.trace(Net().eval(), pt.randn(2, 4))
    assert pt.jit.freeze(traced) is traced and pt.jit.optimize_for_inference(traced) is traced
    with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule"):
        pt.jit.freeze(Net())
    with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
        pt.jit.freeze(pt.jit.trace(Net(), pt.randn(2, 4)))
    assert pt.jit.fork(lambda a: a + 1, 1).wait() == 2


class Cube(pt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x ** 2


def test_learner_function_inplace_and_no_grad_parts():
    def f(x, w):
        y = Cube.apply(x) + w           # a learner's Function: its inner ops are recorded
        y += x                          # in place, as in a ResNet block
        y = nn.functional.relu(y, inplace=True)
        with pt.no_grad():
            scale = (w * 2).exp()       # recorded as run without gradients
        return y * scale
    x = pt.randn(4, 3, dtype=pt.float64, requires_grad=True)
    w = pt.randn(3, dtype=pt.float64, requires_grad=True)
    traced = pt.jit.trace(f, (x, w))
    g = str(traced.graph)
    assert "aten::pow(%x, 3)" in g and "aten::relu_(" in g and "aten::add_(" in g
    a, b = traced(x, w), f(x, w)
    _close(a, b)
    ga = pt.autograd.grad(a.sum(), (x, w))
    gb = pt.autograd.grad(b.sum(), (x, w))
    for p, q in zip(ga, gb):     # (the Function's gradient flows through its recorded ops)
        _close(p, q)
    assert gradcheck(lambda x_: traced(x_, w), (x,))
