"""nn.functional activations (and linear / bilinear) against torch.nn.functional."""
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn.functional as F
from conftest import assert_close

RNG = np.random.default_rng(1)


def chain(fn):
    """The names of a grad_fn graph, depth first (pedatorch or torch)."""
    out = []

    def rec(f):
        if f is None:
            return
        name = f.name() if callable(getattr(f, "name", None)) else type(f).__name__
        out.append(name.replace("torch::autograd::", ""))
        for nxt, _ in f.next_functions:
            rec(nxt)
    rec(fn)
    return out


def sample(shape, dtype):
    """Random values (scale 3) plus the kinks of the piecewise activations."""
    a = (RNG.standard_normal(shape) * 3).astype(dtype)
    a.flat[:8] = [0.0, 3.0, -3.0, 1.0, -1.0, 6.0, 0.5, -0.5]
    return a


def tol(dtype):
    return dict(rtol=2e-5, atol=2e-6) if dtype == "float32" else dict(rtol=1e-11, atol=1e-12)


# name, positional args, keyword args
ACTIVATIONS = [
    ("relu", (), {}), ("relu6", (), {}), ("leaky_relu", (), {}), ("leaky_relu", (0.2,), {}),
    ("leaky_relu", (-0.3,), {}), ("elu", (), {}), ("elu", (0.5,), {}), ("selu", (), {}), ("celu", (), {}),
    ("celu", (2.0,), {}), ("gelu", (), {}), ("gelu", (), {"approximate": "tanh"}), ("silu", (), {}),
    ("mish", (), {}), ("sigmoid", (), {}), ("tanh", (), {}), ("hardtanh", (), {}), ("hardtanh", (-2.0, 0.5), {}),
    ("hardsigmoid", (), {}), ("hardswish", (), {}), ("softplus", (), {}), ("softplus", (2.0, 1.0), {}),
    ("softplus", (), {"beta": 0.5, "threshold": 3}), ("softsign", (), {}), ("softshrink", (), {}),
    ("softshrink", (1.0,), {}), ("hardshrink", (), {}), ("hardshrink", (1.5,), {}), ("tanhshrink", (), {}),
    ("threshold", (0.1, 20.0), {}), ("threshold", (-1.0, -3.0), {}), ("logsigmoid", (), {}), ("rrelu", (), {}),
    ("rrelu", (0.2, 0.4), {}), ("glu", (1,), {}), ("glu", (), {}), ("softmax", (1,), {}), ("log_softmax", (1,), {}),
    ("softmin", (1,), {}), ("softmax", (), {"dim": -1}), ("log_softmax", (0,), {}),
]


def _ids(cases):
    return [f"{n}-{a}-{k}" for n, a, k in cases]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,args,kw", ACTIVATIONS, ids=_ids(ACTIVATIONS))
def test_activation_matches_torch(torch, name, args, kw, dtype):
    a = sample((3, 4, 6), dtype)
    xp = pt.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    yp = getattr(F, name)(xp, *args, **kw)
    yt = getattr(torch.nn.functional, name)(xt, *args, **kw)
    assert_close(yp, yt, **tol(dtype))
    assert chain(yp.grad_fn) == chain(yt.grad_fn)
    g = RNG.standard_normal(tuple(yt.shape)).astype(dtype)
    yp.backward(pt.tensor(g))
    yt.backward(torch.tensor(g))
    assert_close(xp.grad, xt.grad, **tol(dtype))


GRADCHECK = [c for c in ACTIVATIONS if c[0] not in ("hardshrink", "threshold")] + [
    ("hardshrink", (0.05,), {}), ("threshold", (0.02, 2.0), {})]


@pytest.mark.parametrize("name,args,kw", GRADCHECK, ids=_ids(GRADCHECK))
def test_activation_gradcheck(name, args, kw):
    a = RNG.standard_normal((2, 4)) * 2
    a[np.abs(a) < 0.1] += 0.3                       # away from the kinks at 0
    for k in (3.0, -3.0, 1.0, -1.0, 0.5, -0.5, 6.0):  # and from the others
        a[np.abs(a - k) < 0.05] += 0.1
    x = pt.tensor(a, requires_grad=True)
    f = lambda t: getattr(F, name)(t, *args, **kw)  # noqa: E731
    assert pt.autograd.gradcheck(f, (x,))
    if name == "hardsigmoid":   # PyTorch has no derivative for hardsigmoid_backward: double backward raises
        return
    assert pt.autograd.gradgradcheck(f, (x,))


INPLACE = [("relu", ()), ("relu6", ()), ("leaky_relu", (0.1,)), ("elu", ()), ("elu", (0.7,)), ("selu", ()),
           ("celu", (1.5,)), ("hardtanh", ()), ("hardtanh", (-0.5, 2.0)), ("hardsigmoid", ()), ("hardswish", ()),
           ("silu", ()), ("mish", ()), ("rrelu", ()), ("threshold", (0.1, 2.0)), ("threshold", (0.1, -2.0))]


@pytest.mark.parametrize("name,args", INPLACE, ids=[f"{n}-{a}" for n, a in INPLACE])
def test_inplace_matches_torch(torch, name, args):
    a = sample((3, 4), "float64")
    xp, xt = pt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    yp, yt = xp * 1, xt * 1
    if name == "threshold":
        rp, rt = F.threshold(yp, *args, True), torch.nn.functional.threshold(yt, *args, True)
    else:
        rp = getattr(F, name)(yp, *args, inplace=True)
        rt = getattr(torch.nn.functional, name)(yt, *args, inplace=True)
    assert rp is yp
    assert yp._version == yt._version
    assert_close(rp, rt)
    assert chain(rp.grad_fn) == chain(rt.grad_fn)
    g = RNG.standard_normal(a.shape)
    rp.backward(pt.tensor(g))
    rt.backward(torch.tensor(g))
    assert_close(xp.grad, xt.grad)


@pytest.mark.parametrize("name,args", [("relu_", ()), ("elu_", (0.5,)), ("leaky_relu_", (0.3,)),
                                       ("hardtanh_", (-0.5, 0.5)), ("selu_", ()), ("celu_", (2.0,)),
                                       ("threshold_", (0.0, 1.5)), ("rrelu_", ())])
def test_underscore_functions(torch, name, args):
    a = sample((2, 5), "float64")
    xp, xt = pt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    yp, yt = xp + 0, xt + 0
    rp = getattr(F, name)(yp, *args)
    rt = getattr(torch.nn.functional, name)(yt, *args)
    assert rp is yp
    assert_close(rp, rt)
    assert chain(rp.grad_fn) == chain(rt.grad_fn)
    rp.sum().backward()
    rt.sum().backward()
    assert_close(xp.grad, xt.grad)
    # without autograd: plain writes into the tensor
    z = pt.tensor(a.copy())
    assert getattr(F, name)(z, *args) is z
    assert_close(z, getattr(torch.nn.functional, name)(torch.tensor(a.copy()), *args))


def outcome(lib, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = call(lib, lib.nn.functional)
            if isinstance(r, tuple):
                r = r[0]
            return "ok", str(r.dtype).split(".")[-1]
        except Exception as e:  # noqa: BLE001 - the class and the message are compared
            return type(e).__name__, str(e).split("\n")[0]


def _backward_after(fn):
    def call(m, F):
        y = m.randn(3, requires_grad=True) * 1
        fn(F, y)
        y.sum().backward()
        return y
    return call


ERRORS = [
    lambda m, F: F.elu(m.arange(4)), lambda m, F: F.gelu(m.arange(4)), lambda m, F: F.leaky_relu(m.arange(4)),
    lambda m, F: F.silu(m.arange(4)), lambda m, F: F.softplus(m.arange(4)), lambda m, F: F.logsigmoid(m.arange(4)),
    lambda m, F: F.hardsigmoid(m.arange(4)), lambda m, F: F.hardswish(m.arange(4)), lambda m, F: F.mish(m.arange(4)),
    lambda m, F: F.softshrink(m.arange(4)), lambda m, F: F.hardshrink(m.arange(4)), lambda m, F: F.glu(m.arange(4)),
    lambda m, F: F.selu(m.arange(4)), lambda m, F: F.rrelu(m.arange(4)), lambda m, F: F.leaky_relu(m.arange(4).int()),
    lambda m, F: F.prelu(m.arange(4).reshape(1, 4), m.ones(4).long()),
    lambda m, F: F.hardtanh(m.arange(4) - 2, -1.5, 2.5), lambda m, F: F.relu6(m.arange(8)),
    lambda m, F: F.threshold(m.arange(4), 1, 7), lambda m, F: F.relu(m.arange(4) - 2),
    lambda m, F: F.relu6(m.tensor([True])), lambda m, F: F.tanhshrink(m.arange(4)),
    lambda m, F: F.softsign(m.arange(4)), lambda m, F: F.sigmoid(m.arange(4)),
    lambda m, F: F.glu(m.tensor(1.0)), lambda m, F: F.glu(m.randn(2, 5)), lambda m, F: F.glu(m.randn(2, 4), 2),
    lambda m, F: F.hardtanh(m.randn(3), 2.0, 1.0), lambda m, F: F.gelu(m.randn(3), approximate="foo"),
    lambda m, F: F.softshrink(m.randn(3), -1.0), lambda m, F: F.softshrink(m.randn(3).double(), -1.0),
    lambda m, F: F.prelu(m.randn(2, 3, 4), m.randn(2)), lambda m, F: F.prelu(m.randn(2, 3, 4), m.randn(3, 1)),
    lambda m, F: F.prelu(m.randn(2, 3, 4), m.randn(3).double()), lambda m, F: F.prelu(m.tensor(1.0), m.randn(3)),
    lambda m, F: F.prelu(m.randn(5), m.randn(5)),
    lambda m, F: F.celu(m.randn(3), alpha=0.0), lambda m, F: F.rrelu(m.randn(3), 0.5, 0.1),
    lambda m, F: F.rrelu(m.randn(3), 0.5, 0.1, training=True), lambda m, F: F.softmax(m.randn(2, 3), 2),
    lambda m, F: F.softmax(m.arange(4), 0), lambda m, F: F.gumbel_softmax(m.arange(4)),
    lambda m, F: F.relu(m.randn(3, requires_grad=True), inplace=True),
    lambda m, F: F.elu_(m.randn(3, requires_grad=True)),
    _backward_after(lambda F, y: F.leaky_relu_(y, -0.5)), _backward_after(lambda F, y: F.elu_(y, -0.5)),
    _backward_after(lambda F, y: F.celu_(y, -0.5)), _backward_after(lambda F, y: F.rrelu_(y, training=True)),
    _backward_after(lambda F, y: F.rrelu_(y, -1.0, -0.5)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_and_dtypes(torch, i):
    assert outcome(pt, ERRORS[i]) == outcome(torch, ERRORS[i])


def test_prelu(torch):
    for shape, n in [((3, 4, 5), 4), ((3, 4, 5), 1), ((5,), 1), ((2, 3), 3), ((2, 3, 2, 2), 3)]:
        for dtype in ("float32", "float64"):
            a, w = sample(shape, dtype), RNG.standard_normal(n).astype(dtype)
            xp, xt = pt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
            wp, wt = pt.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
            yp, yt = F.prelu(xp, wp), torch.nn.functional.prelu(xt, wt)
            assert_close(yp, yt, **tol(dtype))
            assert chain(yp.grad_fn) == chain(yt.grad_fn)
            g = RNG.standard_normal(shape).astype(dtype)
            yp.backward(pt.tensor(g))
            yt.backward(torch.tensor(g))
            assert_close(xp.grad, xt.grad, **tol(dtype))
            assert_close(wp.grad, wt.grad, rtol=1e-4, atol=1e-5)
    x = pt.tensor(RNG.standard_normal((2, 3, 2)), requires_grad=True)
    w = pt.tensor(RNG.standard_normal(3), requires_grad=True)
    assert pt.autograd.gradcheck(F.prelu, (x, w))
    assert pt.autograd.gradgradcheck(F.prelu, (x, w))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rrelu_training_reproduces_torch_stream(torch, dtype):
    a = sample((4, 7), dtype)
    for seed, lower, upper in [(0, 1 / 8, 1 / 3), (5, 0.1, 0.9)]:
        pt.manual_seed(seed)
        torch.manual_seed(seed)
        xp, xt = pt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        yp = F.rrelu(xp, lower, upper, training=True)
        yt = torch.nn.functional.rrelu(xt, lower, upper, training=True)
        assert np.array_equal(yp._data, yt.detach().numpy())
        assert chain(yp.grad_fn) == chain(yt.grad_fn)
        yp.sum().backward()
        yt.sum().backward()
        assert_close(xp.grad, xt.grad, **tol(dtype))
        # the stream moved by as many draws as torch's did
        assert np.array_equal(pt.rand(3)._data, torch.rand(3).numpy())


def test_gumbel_softmax(torch):
    a = RNG.standard_normal((4, 5))
    for kw in [dict(), dict(tau=0.5), dict(hard=True), dict(hard=True, dim=0)]:
        pt.manual_seed(2)
        torch.manual_seed(2)
        xp, xt = pt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        yp = F.gumbel_softmax(xp, **kw)
        yt = torch.nn.functional.gumbel_softmax(xt, **kw)
        assert_close(yp, yt, rtol=1e-10, atol=1e-12)
        assert chain(yp.grad_fn) == chain(yt.grad_fn)
        g = RNG.standard_normal(a.shape)
        yp.backward(pt.tensor(g))
        yt.backward(torch.tensor(g))
        assert_close(xp.grad, xt.grad, rtol=1e-9, atol=1e-10)
    with pytest.warns(UserWarning, match="deprecated"):
        F.gumbel_softmax(pt.tensor(a), eps=1e-5)


def test_softmax_family(torch):
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    for name in ("softmax", "log_softmax", "softmin"):
        for kw in [dict(dim=1), dict(dim=-1, dtype=pt.float64)]:
            tkw = dict(kw, dtype=torch.float64) if "dtype" in kw else kw
            xp, xt = pt.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
            yp = getattr(F, name)(xp, **kw)
            yt = getattr(torch.nn.functional, name)(xt, **tkw)
            assert_close(yp, yt)
            assert chain(yp.grad_fn) == chain(yt.grad_fn)
            yp.sum().backward()
            yt.sum().backward()
            assert_close(xp.grad, xt.grad, atol=1e-6)
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            yp = getattr(F, name)(pt.tensor(a))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_close(yp, getattr(torch.nn.functional, name)(torch.tensor(a)))


def test_activation_no_grad_and_int_results(torch):
    with pt.no_grad():
        y = F.gelu(pt.randn(3, requires_grad=True))
    assert y.grad_fn is None
    for name, args in [("relu", ()), ("hardtanh", (-1.5, 2.5)), ("threshold", (1, 7)), ("relu6", ())]:
        ours = getattr(F, name)(pt.arange(-3, 8), *args)
        theirs = getattr(torch.nn.functional, name)(torch.arange(-3, 8), *args)
        assert_close(ours, theirs)
    half = np.linspace(-4, 4, 9).astype(np.float16)
    for name in ("gelu", "silu", "elu", "softplus", "logsigmoid", "mish", "hardswish"):
        assert_close(getattr(F, name)(pt.tensor(half)), getattr(torch.nn.functional, name)(torch.tensor(half)),
                     rtol=2e-3, atol=2e-3)


# ====================================================================== linear, bilinear

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (5, 2, 3), (6, 5, 2, 3), (0, 3), (4, 0, 3)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x_grad", [True, False])
def test_linear(torch, dtype, shape, bias, x_grad):
    arrays = [RNG.standard_normal(shape).astype(dtype), RNG.standard_normal((4, 3)).astype(dtype),
              RNG.standard_normal(4).astype(dtype) if bias else None]
    grads = [x_grad, True, True]
    ps = [None if a is None else pt.tensor(a, requires_grad=r) for a, r in zip(arrays, grads)]
    ts = [None if a is None else torch.tensor(a, requires_grad=r) for a, r in zip(arrays, grads)]
    yp, yt = F.linear(*ps), torch.nn.functional.linear(*ts)
    assert_close(yp, yt, **tol(dtype))
    assert chain(yp.grad_fn) == chain(yt.grad_fn)
    g = RNG.standard_normal(tuple(yt.shape)).astype(dtype)
    yp.backward(pt.tensor(g))
    yt.backward(torch.tensor(g))
    for p, t in zip(ps, ts):
        if p is not None and p.requires_grad:
            assert_close(p.grad, t.grad, rtol=1e-4, atol=1e-5)


def test_linear_noncontiguous_and_2d_bias(torch):
    a = RNG.standard_normal((2, 5, 3))
    for bshape in [(4,), (2, 4), (5, 2, 4)]:
        b = RNG.standard_normal(bshape)
        out = []
        for lib in (pt, torch):
            x = lib.tensor(a, requires_grad=True)
            w = lib.tensor(RNG.standard_normal((4, 3)) if lib is pt else out[0][2], requires_grad=True)
            bb = lib.tensor(b, requires_grad=True)
            y = lib.nn.functional.linear(x.transpose(0, 1), w, bb)
            y.sum().backward()
            out.append((y, x.grad, w.detach().numpy() if lib is pt else None, chain(y.grad_fn)))
        assert_close(out[0][0], out[1][0])
        assert_close(out[0][1], out[1][1])
        assert out[0][3] == out[1][3]
    x = pt.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    w = pt.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    b = pt.tensor(RNG.standard_normal(4), requires_grad=True)
    assert pt.autograd.gradcheck(F.linear, (x, w, b))
    assert pt.autograd.gradgradcheck(F.linear, (x, w, b))


@pytest.mark.parametrize("s1,s2", [((5, 3), (5, 2)), ((7, 5, 3), (7, 5, 2)), ((3,), (2,))])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear(torch, s1, s2, bias):
    arrays = [RNG.standard_normal(s1), RNG.standard_normal(s2), RNG.standard_normal((4, 3, 2)),
              RNG.standard_normal(4) if bias else None]
    ps = [None if a is None else pt.tensor(a, requires_grad=True) for a in arrays]
    ts = [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]
    yp, yt = F.bilinear(*ps), torch.nn.functional.bilinear(*ts)
    assert_close(yp, yt, rtol=1e-10, atol=1e-12)
    assert chain(yp.grad_fn) == chain(yt.grad_fn)
    g = RNG.standard_normal(tuple(yt.shape))
    yp.backward(pt.tensor(g))
    yt.backward(torch.tensor(g))
    for p, t in zip(ps, ts):
        if p is not None:
            assert_close(p.grad, t.grad, rtol=1e-10, atol=1e-12)
    assert pt.autograd.gradcheck(F.bilinear, tuple(p for p in ps if p is not None))
    assert pt.autograd.gradgradcheck(F.bilinear, tuple(p for p in ps if p is not None))


LINEAR_ERRORS = [
    lambda m, F: F.linear(m.randn(2, 3), m.randn(4, 5)),
    lambda m, F: F.linear(m.randn(2, 3), m.randn(4, 3), m.randn(5)),
    lambda m, F: F.linear(m.randn(3), m.randn(4, 5)), lambda m, F: F.linear(m.randn(5, 2, 3), m.randn(4, 5)),
    lambda m, F: F.linear(m.randn(5, 2, 3), m.randn(4, 3), m.randn(5)),
    lambda m, F: F.linear(m.randn(2, 3), m.randn(4, 3).double()), lambda m, F: F.linear(m.randn(2, 3), m.randn(3)),
    lambda m, F: F.linear(m.randn(2, 3), m.randn(3), m.randn(2)), lambda m, F: F.linear(m.tensor(1.0), m.randn(3)),
    lambda m, F: F.bilinear(m.randn(5, 3), m.randn(5, 2), m.randn(4, 3, 3)),
    lambda m, F: F.bilinear(m.randn(5, 3), m.randn(6, 2), m.randn(4, 3, 2)),
    lambda m, F: F.bilinear(m.randn(5, 3), m.randn(5, 2), m.randn(4, 3, 2), m.randn(3)),
    lambda m, F: F.bilinear(m.randn(5, 4), m.randn(5, 2), m.randn(4, 3, 2)),
    lambda m, F: F.bilinear(m.randn(5, 3), m.randn(2), m.randn(4, 3, 2)),
]


@pytest.mark.parametrize("i", range(len(LINEAR_ERRORS)))
def test_linear_errors(torch, i):
    assert outcome(pt, LINEAR_ERRORS[i]) == outcome(torch, LINEAR_ERRORS[i])
