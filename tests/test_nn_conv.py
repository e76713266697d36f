"""nn.functional convolutions (conv*d, conv_transpose*d, unfold, fold) and pooling, against torch."""
import itertools
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.nn.functional as F
from pedatorch.nn.functional import conv as conv_mod
from conftest import assert_close

RNG = np.random.default_rng(0)


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


def run_both(torch, name, shapes, *args, dtype="float64", grads=None, **kw):
    """Call F.<name> on the same random inputs in both libraries; backprop the same random grad.

    Returns (ours, theirs, our inputs, their inputs); ``grads`` marks the inputs that require grad."""
    arrays = [None if s is None else RNG.standard_normal(s).astype(dtype) for s in shapes]
    grads = grads or [True] * len(shapes)
    ps = [None if a is None else pt.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    ts = [None if a is None else torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grads)]
    ours = getattr(F, name)(*ps, *args, **kw)
    theirs = getattr(torch.nn.functional, name)(*ts, *args, **kw)
    return ours, theirs, ps, ts


def check_both(torch, name, shapes, *args, dtype="float64", grads=None, names=True, **kw):
    ours, theirs, ps, ts = run_both(torch, name, shapes, *args, dtype=dtype, grads=grads, **kw)
    assert_close(ours, theirs, **_tol(theirs, dtype))
    if names:
        assert chain(ours.grad_fn) == chain(theirs.grad_fn)
    g = RNG.standard_normal(tuple(theirs.shape)).astype(dtype)
    ours.backward(pt.tensor(g))
    theirs.backward(torch.tensor(g))
    for p, t in zip(ps, ts):
        if p is not None and p.requires_grad:
            assert_close(p.grad, t.grad, **_tol(t.grad, dtype))
    return ours, theirs


def _tol(ref, dtype):
    """float32 sums of many terms cancel: the tolerance scales with the values' magnitude."""
    scale = float(np.abs(ref.detach().numpy()).max()) if ref.numel() else 1.0
    if dtype == "float32":
        return dict(rtol=1e-4, atol=3e-6 * max(1.0, scale))
    return dict(rtol=1e-9, atol=1e-11 * max(1.0, scale))


@pytest.fixture(params=["first", "last"])
def layout(request, monkeypatch):
    """Run with both im2col layouts (batch first / batch last) whatever the sizes."""
    monkeypatch.setattr(conv_mod, "_BATCH_FIRST_MIN_POSITIONS", 0 if request.param == "first" else 10 ** 9)
    return request.param


# ====================================================================== convolution

CONV2D_GRID = [dict(stride=s, padding=p, dilation=d, groups=g)
               for s, p, d, g in itertools.product([1, 2, (2, 1)], [0, 1, (2, 0)], [1, (1, 2)], [1, 2])]


@pytest.mark.parametrize("kw", CONV2D_GRID)
def test_conv2d_grid(torch, layout, kw):
    check_both(torch, "conv2d", [(3, 4, 7, 8), (6, 4 // kw["groups"], 3, 2), (6,)], **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (1,), (5,)])
def test_conv2d_dtypes_and_batching(torch, layout, dtype, batch):
    ours, _ = check_both(torch, "conv2d", [batch + (3, 9, 8), (4, 3, 3, 3), (4,)], dtype=dtype, padding=1)
    assert ours.dtype == (pt.float32 if dtype == "float32" else pt.float64)


@pytest.mark.parametrize("padding", ["same", "valid"])
@pytest.mark.parametrize("kernel,dilation", [((3, 3), 1), ((2, 3), 1), ((2, 4), (2, 1)), ((4, 2), 2)])
def test_conv2d_padding_strings(torch, layout, padding, kernel, dilation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_both(torch, "conv2d", [(2, 3, 9, 10), (4, 3) + kernel, None], padding=padding, dilation=dilation)


def test_conv2d_same_even_kernel_pads_explicitly(torch):
    x = pt.randn(1, 2, 5, 5, requires_grad=True)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        y = F.conv2d(x, pt.randn(3, 2, 2, 2, requires_grad=True), padding="same")
    assert y.shape == (1, 3, 5, 5)
    assert chain(y.grad_fn) == ["ConvolutionBackward0", "ConstantPadNdBackward0", "AccumulateGrad", "AccumulateGrad"]


def test_conv2d_without_grad_and_partial_grads(torch, layout):
    check_both(torch, "conv2d", [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], grads=[False, True, True], stride=2)
    check_both(torch, "conv2d", [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], grads=[True, False, False], padding=1)
    with pt.no_grad():
        y = F.conv2d(pt.randn(2, 3, 5, 5, requires_grad=True), pt.randn(4, 3, 3, 3, requires_grad=True))
    assert y.grad_fn is None and not y.requires_grad


@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=2, groups=4), dict(padding=1, dilation=3),
                                dict(padding="same", dilation=2)])
@pytest.mark.parametrize("batch", [(), (3,)])
def test_conv1d(torch, layout, kw, batch):
    check_both(torch, "conv1d", [batch + (4, 13), (8, 4 // kw.get("groups", 1), 3), (8,)], **kw)


@pytest.mark.parametrize("kw", [dict(), dict(stride=(1, 2, 1), padding=1), dict(padding=(1, 0, 2), dilation=(1, 2, 1)),
                                dict(groups=2, stride=2)])
def test_conv3d(torch, layout, kw):
    check_both(torch, "conv3d", [(2, 2, 5, 6, 4), (4, 2 // kw.get("groups", 1), 2, 3, 2), (4,)], **kw)


CONVT2D_GRID = [dict(stride=2, padding=1, output_padding=1), dict(padding=1), dict(padding=(2, 1), dilation=2),
                dict(stride=(2, 3), padding=(1, 0), output_padding=(0, 2), groups=2, dilation=(1, 2)),
                dict(stride=3, output_padding=(2, 1)), dict(stride=2, dilation=3, output_padding=2)]


@pytest.mark.parametrize("kw", CONVT2D_GRID)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv_transpose2d(torch, layout, kw, dtype):
    g = kw.get("groups", 1)
    check_both(torch, "conv_transpose2d", [(2, 4, 5, 6), (4, 6 // g, 3, 2), (6,)], dtype=dtype, **kw)


def test_conv_transpose_1d_3d_unbatched(torch, layout):
    check_both(torch, "conv_transpose1d", [(3, 4, 5), (4, 3, 3), (3,)], stride=3, padding=1, output_padding=2)
    check_both(torch, "conv_transpose1d", [(4, 5), (4, 3, 3), None], stride=2)
    check_both(torch, "conv_transpose3d", [(2, 2, 3, 4, 3), (2, 3, 2, 2, 3), (3,)], stride=(1, 2, 2), padding=1)
    check_both(torch, "conv_transpose2d", [(4, 5, 6), (4, 3, 3, 3), (3,)], stride=2, output_padding=1)


def test_conv_empty_batch_and_lenet_shapes(torch, layout):
    check_both(torch, "conv2d", [(0, 3, 8, 8), (4, 3, 3, 3), (4,)], names=False)
    check_both(torch, "conv2d", [(8, 1, 28, 28), (6, 1, 5, 5), (6,)], dtype="float32", padding=2,
               grads=[False, True, True])
    check_both(torch, "conv2d", [(8, 6, 14, 14), (16, 6, 5, 5), (16,)], dtype="float32")


def test_conv_nonfinite_values(torch, layout):
    """The stride-1 col2im widens rows with zeros: an inf weight must not leak into them (0 * inf)."""
    w = np.array([[[[1.0, np.inf], [1.0, 1.0]]]])
    x = RNG.standard_normal((2, 1, 4, 5))
    x[0, 0, 1, 2] = np.nan
    for lib, fn in ((pt, F.conv2d), (torch, torch.nn.functional.conv2d)):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        y = fn(xt, wt)
        y.backward(lib.ones_like(y))
        if lib is pt:
            ours = (y, xt.grad, wt.grad)
        else:
            theirs = (y, xt.grad, wt.grad)
    for o, t in zip(ours, theirs):
        assert_close(o, t)


def test_conv_gradcheck_and_gradgradcheck():
    x = pt.tensor(RNG.standard_normal((2, 2, 5, 4)), requires_grad=True)
    w = pt.tensor(RNG.standard_normal((3, 2, 3, 2)), requires_grad=True)
    b = pt.tensor(RNG.standard_normal(3), requires_grad=True)
    cases = [lambda x, w, b: F.conv2d(x, w, b, padding=1),
             lambda x, w, b: F.conv2d(x, w, b, stride=2, dilation=(1, 2)),
             lambda x, w, b: F.conv2d(x.repeat(1, 2, 1, 1), w.repeat(2, 1, 1, 1), b.repeat(2), groups=2),
             lambda x, w, b: F.conv_transpose2d(x, w.transpose(0, 1), b, stride=2, output_padding=1),
             lambda x, w, b: F.conv1d(x[:, :, 0], w[:, :, 0], b, padding=2, stride=2)]
    for f in cases:
        assert pt.autograd.gradcheck(f, (x, w, b))
        assert pt.autograd.gradgradcheck(f, (x, w, b))
    x3 = pt.tensor(RNG.standard_normal((1, 2, 3, 4, 3)), requires_grad=True)
    w3 = pt.tensor(RNG.standard_normal((2, 1, 2, 2, 2)), requires_grad=True)
    for f in [lambda x, w: F.conv3d(x, w, padding=(1, 0, 1), groups=2, dilation=(1, 2, 1)),
              lambda x, w: F.conv_transpose3d(x, w, stride=(2, 1, 2), groups=2, output_padding=(1, 0, 0))]:
        assert pt.autograd.gradcheck(f, (x3, w3))
        assert pt.autograd.gradgradcheck(f, (x3, w3))


def test_conv_gradgrad_matches_torch(torch, layout):
    a = RNG.standard_normal((2, 3, 5, 5))
    wa = RNG.standard_normal((4, 3, 3, 3))
    out = []
    for lib, fn in ((pt, F.conv2d), (torch, torch.nn.functional.conv2d)):
        x = lib.tensor(a, requires_grad=True)
        w = lib.tensor(wa, requires_grad=True)
        y = fn(x, w, padding=1, stride=2)
        gx, gw = lib.autograd.grad((y ** 2).sum(), (x, w), create_graph=True)
        out.append(lib.autograd.grad((gx ** 2).sum() + (gw ** 3).sum(), (x, w)))
    for o, t in zip(*out):
        assert_close(o, t, rtol=1e-8, atol=1e-8)


def test_conv_grad_fn_chains(torch):
    x = pt.randn(3, 8, 9, requires_grad=True)
    y = F.conv2d(x, pt.randn(4, 3, 3, 3, requires_grad=True), pt.randn(4, requires_grad=True))
    assert chain(y.grad_fn) == ["SqueezeBackward1", "ConvolutionBackward0", "UnsqueezeBackward0", "AccumulateGrad",
                                "AccumulateGrad", "AccumulateGrad"]
    y = F.conv_transpose2d(x.unsqueeze(0), pt.randn(3, 4, 3, 3, requires_grad=True))
    assert y.grad_fn.name() == "ConvolutionBackward0"
    assert y.shape == (1, 4, 10, 11)


CONV_ERRORS = [
    lambda m, F: F.conv2d(m.randn(8, 8), m.randn(4, 3, 3, 3)),
    lambda m, F: F.conv2d(m.randn(1, 2, 3, 8, 8), m.randn(4, 3, 3, 3)),
    lambda m, F: F.conv2d(m.randn(2, 4, 8, 8), m.randn(4, 3, 3, 3)),
    lambda m, F: F.conv2d(m.randn(4, 8, 8), m.randn(4, 3, 3, 3)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), m.randn(5)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), m.randn(4, 1)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 9, 9)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), groups=2),
    lambda m, F: F.conv2d(m.randn(2, 4, 8, 8), m.randn(6, 2, 3, 3), groups=4),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), stride=0),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), padding=-1),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), dilation=0),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), groups=0),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), padding="same", stride=2),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), padding="foo"),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), stride=(1, 1, 1)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3).double()),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), m.randn(4).double()),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(0, 3, 3, 3)),
    lambda m, F: F.conv1d(m.randn(2, 3), m.randn(4, 3, 3)),
    lambda m, F: F.conv1d(m.randn(2, 3, 5, 5), m.randn(4, 3, 3)),
    lambda m, F: F.conv1d(m.randn(2, 3, 8), m.randn(4, 3, 3, 3)),
    lambda m, F: F.conv3d(m.randn(2, 3, 4, 4, 4), m.randn(2, 3, 2, 2, 2), stride=(1, 2)),
    lambda m, F: F.conv_transpose2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3)),
    lambda m, F: F.conv_transpose2d(m.randn(2, 3, 8, 8), m.randn(3, 4, 3, 3), output_padding=1),
    lambda m, F: F.conv_transpose2d(m.randn(2, 3, 8, 8), m.randn(3, 4, 3, 3), output_padding=(1, 2), stride=2,
                                    dilation=2),
    lambda m, F: F.conv_transpose1d(m.randn(2, 3, 8), m.randn(3, 4, 3), output_padding=1),
    lambda m, F: F.conv_transpose2d(m.randn(2, 3, 8, 8), m.randn(3, 4, 3, 3), m.randn(5)),
    lambda m, F: F.conv_transpose2d(m.randn(2, 3, 8, 8), m.randn(3, 4, 3, 3), output_padding=-1),
    lambda m, F: F.conv_transpose2d(m.randn(2, 3, 8, 8), m.randn(3, 4, 3, 3), padding="same"),
    lambda m, F: F.conv_transpose2d(m.randn(8, 8), m.randn(3, 4, 3, 3)),
    lambda m, F: F.conv2d(m.randn(2, 3, 8, 8), m.randn(4, 3, 3, 3), stride=2.0),
    lambda m, F: F.unfold(m.randn(8, 8), 3),
    lambda m, F: F.unfold(m.randn(8), 3),
    lambda m, F: F.unfold(m.randn(1, 2, 3, 8, 8), 3),
    lambda m, F: F.unfold(m.randn(2, 0, 8, 8), 3),
    lambda m, F: F.unfold(m.randn(2, 3, 8, 8), 9),
    lambda m, F: F.unfold(m.randn(2, 3, 8, 8), (3, 3, 3)),
    lambda m, F: F.unfold(m.randn(2, 3, 8, 8), 3, padding=-1),
    lambda m, F: F.unfold(m.randn(2, 3, 8, 8), 3, stride=0),
    lambda m, F: F.unfold(m.randn(2, 3, 8, 8), 0),
    lambda m, F: F.unfold(m.randn(2, 3, 8, 8), 3, dilation=0),
    lambda m, F: F.fold(m.randn(2, 26, 36), (8, 8), 3),
    lambda m, F: F.fold(m.randn(2, 27, 35), (8, 8), 3),
    lambda m, F: F.fold(m.randn(2, 2, 27, 36), (8, 8), 3),
    lambda m, F: F.fold(m.randn(2, 27, 36), (0, 8), 3),
    lambda m, F: F.fold(m.randn(2, 0, 36), (8, 8), 3),
    lambda m, F: F.fold(m.randn(2, 27, 36), (8, 8), 3, stride=0),
]


def compare_errors(torch, call):
    def outcome(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = call(m, m.nn.functional)
                return "ok", tuple(r.shape)
            except Exception as e:  # noqa: BLE001 - the class and the first line are compared
                return type(e).__name__, str(e).split("\n")[0]
    ours, theirs = outcome(pt), outcome(torch)
    if theirs[0] == "TypeError":   # PyTorch's arg parser words these its own way: the class is enough
        assert ours[0] == "TypeError"
    else:
        assert ours == theirs


@pytest.mark.parametrize("i", range(len(CONV_ERRORS)))
def test_conv_errors(torch, i):
    compare_errors(torch, CONV_ERRORS[i])


def test_unfold_fold(torch):
    for dtype in ["float32", "float64"]:
        check_both(torch, "unfold", [(2, 3, 7, 8)], (2, 3), padding=1, stride=2, dilation=(1, 2), dtype=dtype)
        check_both(torch, "unfold", [(3, 7, 8)], 3, dtype=dtype)
        check_both(torch, "fold", [(2, 12, 20)], (7, 8), (2, 2), padding=1, stride=2, dtype=dtype)
        check_both(torch, "fold", [(12, 12)], (4, 5), 2, dtype=dtype)
        check_both(torch, "fold", [(2, 18, 35)], (5, 7), (3, 2), dilation=(1, 2), padding=(1, 1), dtype=dtype)
    x = pt.tensor(RNG.standard_normal((2, 2, 5, 4)), requires_grad=True)
    assert pt.autograd.gradcheck(lambda t: F.unfold(t, (2, 3), padding=1, stride=(2, 1)), (x,))
    assert pt.autograd.gradgradcheck(lambda t: F.fold(F.unfold(t, 2, stride=2), (5, 4), 2, stride=2), (x,))
    assert chain(F.fold(F.unfold(x, 2), (5, 4), 2).grad_fn) == ["Col2ImBackward0", "Im2ColBackward0", "AccumulateGrad"]


# ====================================================================== pooling

def _pool_ok(torch, fn, shape, *args):
    try:
        fn(torch.zeros(shape), *args)
        return True
    except RuntimeError:
        return False


POOL2D = [(k, s, p, d, c) for k, s, p, d, c in itertools.product([2, 3, (2, 3)], [None, 1, 2, (2, 1)], [0, 1],
                                                                 [1, 2], [False, True])]


@pytest.mark.parametrize("k,s,p,d,c", POOL2D)
def test_max_pool2d_grid(torch, k, s, p, d, c):
    shape = (2, 3, 9, 10)
    if not _pool_ok(torch, torch.nn.functional.max_pool2d, shape, k, s, p, d, c):
        pytest.skip("invalid in torch too")
    ours, theirs, _, _ = run_both(torch, "max_pool2d", [shape], k, s, p, d, c, return_indices=True)
    assert np.array_equal(ours[1]._data, theirs[1].numpy())
    assert ours[1].dtype == pt.int64
    check_both(torch, "max_pool2d", [shape], k, s, p, d, c)


@pytest.mark.parametrize("k,s,p,c,cip", [(k, s, p, c, cip) for (k, s, p, _, c) in POOL2D[::2]
                                          for cip in (False, True)])
def test_avg_pool2d_grid(torch, k, s, p, c, cip):
    shape = (2, 3, 9, 10)
    if not _pool_ok(torch, torch.nn.functional.avg_pool2d, shape, k, s, p, c, cip):
        pytest.skip("invalid in torch too")
    check_both(torch, "avg_pool2d", [shape], k, s, p, c, cip)
    check_both(torch, "avg_pool2d", [shape[1:]], k, s, p, c, cip, 3)


@pytest.mark.parametrize("k,s,p,d,c", [(k, s, p, d, c) for k, s, p, d, c in
                                        itertools.product([2, 3], [None, 1, 2], [0, 1], [1, 2], [False, True])])
def test_pool1d_grid(torch, k, s, p, d, c):
    shape = (2, 3, 11)
    if not _pool_ok(torch, torch.nn.functional.max_pool1d, shape, k, s, p, d, c):
        pytest.skip("invalid in torch too")
    check_both(torch, "max_pool1d", [shape], k, s, p, d, c)
    check_both(torch, "max_pool1d", [shape[1:]], k, s, p, d, c)
    ours, theirs, _, _ = run_both(torch, "max_pool1d", [shape], k, s, p, d, c, True)
    assert np.array_equal(ours[1]._data, theirs[1].numpy())
    assert chain(ours[0].grad_fn) == chain(theirs[0].grad_fn)
    check_both(torch, "avg_pool1d", [shape], k, s, p, c)
    check_both(torch, "avg_pool1d", [shape], k, s, p, c, False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pool_dtypes(torch, dtype):
    for name, args in [("max_pool2d", (2,)), ("avg_pool2d", (3, 2, 1)), ("adaptive_avg_pool2d", ((3, 4),)),
                       ("adaptive_max_pool2d", (5,)), ("lp_pool2d", (2, 2)), ("max_pool1d", (3, 2)),
                       ("avg_pool1d", (2,)), ("adaptive_avg_pool1d", (4,)), ("adaptive_max_pool1d", (3,))]:
        shape = (4, 3, 14, 14) if "1d" not in name else (4, 3, 14)
        ours, _ = check_both(torch, name, [shape], *args, dtype=dtype)
        assert ours.dtype == (pt.float32 if dtype == "float32" else pt.float64)


@pytest.mark.parametrize("out", [1, 3, (4, 5), (None, 3), (9, 10), (2, 7), (10, 11)])
def test_adaptive_pool2d(torch, out):
    for shape in [(2, 3, 9, 10), (3, 9, 10)]:
        check_both(torch, "adaptive_avg_pool2d", [shape], out)
        check_both(torch, "adaptive_max_pool2d", [shape], out)
        ours, theirs, _, _ = run_both(torch, "adaptive_max_pool2d", [shape], out, return_indices=True)
        assert np.array_equal(ours[1]._data, theirs[1].numpy())


@pytest.mark.parametrize("out", [1, 3, 4, 7, 11, 13])
def test_adaptive_pool1d(torch, out):
    check_both(torch, "adaptive_avg_pool1d", [(2, 3, 11)], out)
    check_both(torch, "adaptive_max_pool1d", [(3, 11)], out)
    ours, theirs, _, _ = run_both(torch, "adaptive_max_pool1d", [(2, 3, 11)], out, return_indices=True)
    assert np.array_equal(ours[1]._data, theirs[1].numpy())


def test_pool3d(torch):
    ours, theirs, _, _ = run_both(torch, "max_pool3d", [(2, 2, 5, 6, 7)], 2, 1, 1, return_indices=True)
    assert np.array_equal(ours[1]._data, theirs[1].numpy())
    check_both(torch, "max_pool3d", [(2, 5, 6, 7)], (2, 3, 2), 2, 1, 2, True)
    check_both(torch, "avg_pool3d", [(2, 2, 5, 6, 7)], 3, 2, 1, True, False)
    check_both(torch, "avg_pool3d", [(2, 2, 5, 6, 7)], 2, divisor_override=3)
    check_both(torch, "adaptive_avg_pool3d", [(2, 2, 5, 6, 7)], (2, 3, 4))
    check_both(torch, "adaptive_max_pool3d", [(2, 2, 5, 6, 7)], (2, 3, 4))
    check_both(torch, "lp_pool3d", [(2, 2, 4, 6, 6)], 2, 2)


def test_lp_pool(torch):
    check_both(torch, "lp_pool2d", [(2, 3, 8, 9)], 2, 3, 2)
    check_both(torch, "lp_pool1d", [(2, 3, 9)], 2, 3)
    x = np.abs(RNG.standard_normal((2, 3, 8, 9))) + 0.1
    for args in [(3.0, (2, 3), None, True), (float("inf"), 2), (1.5, 2, 1)]:
        o = F.lp_pool2d(pt.tensor(x), *args)
        t = torch.nn.functional.lp_pool2d(torch.tensor(x), *args)
        assert_close(o, t)


def test_max_pool_ties_nan_inf(torch):
    a = RNG.integers(0, 3, (2, 3, 7, 8)).astype(np.float32)
    a[0, 0, 0, 0] = a[0, 0, 1, 1] = np.nan
    a[1, 1, :3, :3] = -np.inf
    a[1, 2, 2, 2] = np.inf
    for args in [(2,), (3, 1, 1), (3, 2, 1, 2, True), ((2, 3), 1, (1, 0))]:
        o, oi = F.max_pool2d(pt.tensor(a), *args, return_indices=True)
        t, ti = torch.nn.functional.max_pool2d(torch.tensor(a), *args, return_indices=True)
        assert np.array_equal(o._data, t.numpy(), equal_nan=True)
        assert np.array_equal(oi._data, ti.numpy())
    o, oi = F.adaptive_max_pool2d(pt.tensor(a), (3, 5), return_indices=True)
    t, ti = torch.nn.functional.adaptive_max_pool2d(torch.tensor(a), (3, 5), return_indices=True)
    assert np.array_equal(o._data, t.numpy(), equal_nan=True)
    assert np.array_equal(oi._data, ti.numpy())
    # overlapping windows: the gradient of a shared maximum adds up
    x = pt.tensor(a[:1, :1], requires_grad=True)
    tx = torch.tensor(a[:1, :1], requires_grad=True)
    F.max_pool2d(x, 3, 1).sum().backward()
    torch.nn.functional.max_pool2d(tx, 3, 1).sum().backward()
    assert_close(x.grad, tx.grad)


def test_max_unpool(torch):
    x = RNG.standard_normal((2, 3, 8, 9))
    for osz in [None, (8, 9), [2, 3, 8, 9]]:
        o, oi = F.max_pool2d(pt.tensor(x, requires_grad=True), 2, return_indices=True)
        t, ti = torch.nn.functional.max_pool2d(torch.tensor(x, requires_grad=True), 2, return_indices=True)
        if osz is None:   # 8x8 cannot hold the indices of a 9-wide plane
            with pytest.raises(RuntimeError, match="Found an invalid max index"):
                F.max_unpool2d(o, oi, 2)
            continue
        uo = F.max_unpool2d(o, oi, 2, output_size=osz)
        ut = torch.nn.functional.max_unpool2d(t, ti, 2, output_size=osz)
        assert_close(uo, ut)
        assert chain(uo.grad_fn) == chain(ut.grad_fn)
        g = RNG.standard_normal(uo.shape)
        uo.backward(pt.tensor(g))
        ut.backward(torch.tensor(g))
    x1 = RNG.standard_normal((2, 3, 9))
    o, oi = F.max_pool1d(pt.tensor(x1, requires_grad=True), 2, return_indices=True)
    t, ti = torch.nn.functional.max_pool1d(torch.tensor(x1, requires_grad=True), 2, return_indices=True)
    uo, ut = F.max_unpool1d(o, oi, 2, output_size=[9]), torch.nn.functional.max_unpool1d(t, ti, 2, output_size=[9])
    assert_close(uo, ut)
    assert chain(uo.grad_fn) == chain(ut.grad_fn)
    x3 = RNG.standard_normal((1, 2, 4, 4, 6))
    o, oi = F.max_pool3d(pt.tensor(x3), 2, return_indices=True)
    t, ti = torch.nn.functional.max_pool3d(torch.tensor(x3), 2, return_indices=True)
    assert_close(F.max_unpool3d(o, oi, 2), torch.nn.functional.max_unpool3d(t, ti, 2))


def test_pool_grad_fn_chains(torch):
    for name, shape, args in [("max_pool2d", (2, 3, 8, 9), (2,)), ("max_pool2d", (3, 8, 9), (2,)),
                              ("max_pool1d", (2, 3, 9), (2,)), ("avg_pool2d", (2, 3, 8, 9), (2,)),
                              ("avg_pool1d", (2, 3, 9), (2,)), ("adaptive_avg_pool2d", (2, 3, 8, 9), ((3, 4),)),
                              ("adaptive_avg_pool2d", (2, 3, 8, 9), (1,)), ("adaptive_avg_pool1d", (2, 3, 9), (4,)),
                              ("adaptive_max_pool2d", (2, 3, 8, 9), ((3, 4),)),
                              ("adaptive_max_pool1d", (2, 3, 9), (4,)), ("lp_pool2d", (2, 3, 8, 9), (2, 2)),
                              ("lp_pool1d", (2, 3, 9), (3, 2)), ("max_pool3d", (1, 2, 4, 4, 4), (2,)),
                              ("avg_pool3d", (1, 2, 4, 4, 4), (2,))]:
        ours, theirs, _, _ = run_both(torch, name, [shape], *args)
        assert chain(ours.grad_fn) == chain(theirs.grad_fn), name


def test_pool_gradcheck_and_gradgradcheck():
    x = pt.tensor(RNG.standard_normal((2, 2, 5, 6)), requires_grad=True)
    x1 = pt.tensor(RNG.standard_normal((2, 2, 7)), requires_grad=True)
    cases = [(x, lambda t: F.max_pool2d(t, 2, 1)), (x, lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True)),
             (x, lambda t: F.avg_pool2d(t, 3, 2, 1, True, False)),
             (x, lambda t: F.avg_pool2d(t, 2, divisor_override=3)),
             (x, lambda t: F.adaptive_avg_pool2d(t, (3, 4))), (x, lambda t: F.adaptive_max_pool2d(t, (3, 4))),
             (x, lambda t: F.lp_pool2d(t.abs() + 0.5, 2, 2)), (x1, lambda t: F.max_pool1d(t, 2)),
             (x1, lambda t: F.avg_pool1d(t, 3, 2, 1)), (x1, lambda t: F.adaptive_avg_pool1d(t, 3)),
             (x1, lambda t: F.adaptive_max_pool1d(t, 3)),
             (x, lambda t: F.max_unpool2d(*F.max_pool2d(t, 2, return_indices=True), 2, output_size=(5, 6)))]
    for inp, f in cases:
        assert pt.autograd.gradcheck(f, (inp,))
        assert pt.autograd.gradgradcheck(f, (inp,))


POOL_ERRORS = [
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 3, padding=2),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 9),
    lambda m, F: F.max_pool2d(m.randn(8), 2),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 0),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 0, 1),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 2, stride=0),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 2, dilation=0),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 2, padding=-1),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 3, dilation=2, padding=2),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 2, stride=(1, 2, 3)),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), (2, 2, 2)),
    lambda m, F: F.max_pool2d(m.randn(2, 3, 8, 8), 2, dilation=(1, 1, 1)),
    lambda m, F: F.max_pool2d(m.randn(2, 0, 8, 8), 2),
    lambda m, F: F.max_pool2d(m.randn(1, 2, 3, 8, 8), 2),
    lambda m, F: F.max_pool1d(m.randn(8), 2),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8, 8), 2),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), 2, padding=-1),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), 2, return_indices=True, padding=-1),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), (2, 2)),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), (2, 2), return_indices=True),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), 0),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), 2, 0),
    lambda m, F: F.max_pool1d(m.randn(2, 3, 8), 2, dilation=0),
    lambda m, F: F.max_pool1d(m.randn(2, 0, 8), 2),
    lambda m, F: F.max_pool1d(m.randn(3, 8), 9),
    lambda m, F: F.max_pool1d(m.randn(3, 8), 3, padding=2),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), 3, padding=2),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), 9),
    lambda m, F: F.avg_pool2d(m.randn(8), 2),
    lambda m, F: F.avg_pool2d(m.randn(1, 2, 3, 8, 8), 2),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), 2, divisor_override=0),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), (2, 2, 2)),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), 2, padding=(1, 2, 3)),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), 0),
    lambda m, F: F.avg_pool2d(m.randn(2, 3, 8, 8), 2, padding=-1),
    lambda m, F: F.avg_pool1d(m.randn(2, 3, 8, 8), 2),
    lambda m, F: F.avg_pool1d(m.randn(8), 2),
    lambda m, F: F.avg_pool1d(m.randn(2, 3, 8), (2, 2)),
    lambda m, F: F.avg_pool1d(m.randn(8, 8), 9),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(2, 3, 8, 8), (3,)),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(2, 3, 8, 8), (3, 4, 5)),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(8), 3),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(8), (3, None)),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(2, 3, 8, 8), (3, -1)),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(2, 3, 0, 8), 3),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(2, 0, 8, 8), 3),
    lambda m, F: F.adaptive_avg_pool2d(m.randn(0, 3, 8, 8), 3),
    lambda m, F: F.adaptive_avg_pool1d(m.randn(2, 3, 8, 8), 3),
    lambda m, F: F.adaptive_avg_pool1d(m.randn(2, 8), (3, 4)),
    lambda m, F: F.adaptive_max_pool2d(m.randn(8), 3),
    lambda m, F: F.adaptive_max_pool2d(m.randn(2, 3, 8, 8), (3, 4, 5)),
    lambda m, F: F.adaptive_max_pool2d(m.randn(2, 3, 8, 8), (3, -1)),
    lambda m, F: F.adaptive_max_pool2d(m.randn(2, 3, 0, 4), 2),
    lambda m, F: F.adaptive_max_pool1d(m.randn(2, 3, 8, 8), 3),
    lambda m, F: F.adaptive_max_pool1d(m.randn(2, 3, 8), (2, 2)),
    lambda m, F: F.max_unpool2d(m.randn(2, 3, 4, 4), m.zeros(2, 3, 4, 4, dtype=m.long) + 100, 2),
    lambda m, F: F.max_unpool2d(m.randn(2, 3, 4, 4), m.zeros(2, 3, 4, 4), 2),
    lambda m, F: F.max_unpool2d(m.randn(2, 3, 4, 4), m.zeros(2, 3, 4, 4, dtype=m.long), 2, output_size=(20, 20)),
    lambda m, F: F.max_unpool2d(m.randn(2, 3, 4, 4), m.zeros(2, 3, 4, 3, dtype=m.long), 2),
    lambda m, F: F.max_unpool2d(m.randn(2, 3, 4, 4), m.zeros(2, 3, 4, 4, dtype=m.long), 2, output_size=(8,)),
    lambda m, F: F.max_unpool2d(m.randn(4, 4), m.zeros(4, 4, dtype=m.long), 2),
    lambda m, F: F.max_unpool1d(m.randn(2, 3, 4), m.zeros(2, 3, 4, dtype=m.long) + 9, 2),
    lambda m, F: F.max_unpool2d(m.randn(2, 3, 4, 4), m.zeros(2, 3, 4, 4, dtype=m.long), 2, output_size=(2, 3, 8, 8)),
    lambda m, F: F.max_pool2d(m.zeros(2, 3, 4, 4, dtype=m.bool), 2),
    lambda m, F: F.max_pool3d(m.zeros(1, 2, 4, 4, 4, dtype=m.bool), 2),
    lambda m, F: F.avg_pool2d(m.zeros(2, 3, 4, 4, dtype=m.bool), 2),
    lambda m, F: F.avg_pool3d(m.zeros(1, 2, 4, 4, 4, dtype=m.bool), 2),
    lambda m, F: F.adaptive_max_pool2d(m.zeros(2, 3, 4, 4, dtype=m.bool), 2),
    lambda m, F: F.adaptive_max_pool2d(m.zeros(2, 3, 4, 4, dtype=m.long), 2),
    lambda m, F: F.adaptive_avg_pool2d(m.zeros(2, 3, 4, 4, dtype=m.long), 2),
    lambda m, F: F.adaptive_avg_pool2d(m.zeros(2, 3, 4, 4, dtype=m.long), 1),
    lambda m, F: F.max_pool1d(m.zeros(3, 4, dtype=m.bool), 2),
    lambda m, F: F.max_unpool2d(m.ones(1, 1, 2, 2, dtype=m.long), m.zeros(1, 1, 2, 2, dtype=m.long), 2),
    lambda m, F: F.max_pool2d(m.arange(32).reshape(2, 4, 4) - 10, 2),
    lambda m, F: F.max_pool2d(m.arange(32).reshape(2, 4, 4) - 10, 3, 1, 1, return_indices=True),
    lambda m, F: F.avg_pool2d(m.arange(32).reshape(2, 4, 4) - 10, 3, 1, 1),
]


@pytest.mark.parametrize("i", range(len(POOL_ERRORS)))
def test_pool_errors(torch, i):
    compare_errors(torch, POOL_ERRORS[i])
