"""nn functionals and reductions against PyTorch (late fuzzer rows): group_norm's backward on empty inputs,
cross_entropy's label smoothing with no class, hardswish's and sigmoid's double backward at inf,
rms_norm's graph and layout, batch/instance norm's fused multiply-add, std's root taken before rounding,
gelu(inf), and the layout of the pointwise losses with reduction='none'."""
import warnings

import numpy as np
import pytest

import pedatorch

torch = pytest.importorskip("torch")

LIBS = (pedatorch, torch)


def _np(t):
    return t.detach().to(t.dtype if t.dtype in (torch.float64, pedatorch.float64) else
                         (torch.float64 if isinstance(t, torch.Tensor) else pedatorch.float64)).numpy()


def assert_same(p, t, exact=False):
    assert str(p.dtype) == str(t.dtype)
    assert tuple(p.shape) == tuple(t.shape)
    if exact:
        np.testing.assert_array_equal(_np(p), _np(t))
    else:
        np.testing.assert_allclose(_np(p), _np(t), rtol=1e-6, atol=1e-12, equal_nan=True)


def _graph(fn):
    """The node names of a graph, depth first."""
    out = []

    def walk(f):
        if f is None:
            return
        out.append(type(f).__name__)
        for n, _ in f.next_functions:
            walk(n)
    walk(fn)
    return out


# ---------------------------------------------------------------- group_norm backward, empty inputs

@pytest.mark.parametrize("shape", [(1, 0), (0, 1), (0, 1, 1), (0, 4), (2, 2, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_group_norm_backward_empty(shape, dtype):
    res = []
    for lib in LIBS:
        x = lib.zeros(shape, dtype=getattr(lib, dtype), requires_grad=True)
        w = lib.ones(shape[1], dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.nn.functional.group_norm(x, 1, w)
        (y * 2).sum().backward()    # no graph recorded: the array kernel
        res.append((x.grad, w.grad))
    for p, t in zip(*res):
        assert_same(p, t)


def test_group_norm_backward_empty_recorded():
    res = []
    for lib in LIBS:
        x = lib.zeros((0, 2, 3), requires_grad=True)
        g, = lib.autograd.grad(lib.nn.functional.group_norm(x, 2).sum(), x, create_graph=True)
        res.append(g)
    assert_same(*res)


def test_group_norm_gradcheck():
    x = pedatorch.randn(2, 4, 3, dtype=pedatorch.float64, requires_grad=True)
    w = pedatorch.randn(4, dtype=pedatorch.float64, requires_grad=True)
    f = lambda x, w: pedatorch.nn.functional.group_norm(x, 2, w)  # noqa: E731
    assert pedatorch.autograd.gradcheck(f, (x, w))
    assert pedatorch.autograd.gradgradcheck(f, (x, w))


# ---------------------------------------------------------------- cross_entropy: label smoothing, no class

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", ["index00", "prob00", "prob20", "prob0"])
def test_cross_entropy_label_smoothing_no_class(reduction, case):
    res = []
    for lib in LIBS:
        if case == "index00":
            x, t = lib.zeros(0, 0, requires_grad=True), lib.zeros(0, dtype=lib.int64)
        elif case == "prob00":
            x, t = lib.zeros(0, 0, requires_grad=True), lib.zeros(0, 0)
        elif case == "prob20":
            x, t = lib.zeros(2, 0, requires_grad=True), lib.zeros(2, 0)
        else:
            x, t = lib.zeros(0, requires_grad=True), lib.zeros(0)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)   # (0 * inf is nan without numpy's warning)
            res.append(lib.nn.functional.cross_entropy(x, t, reduction=reduction, label_smoothing=0.1))
    assert_same(*res)
    assert type(res[0].grad_fn).__name__ == type(res[1].grad_fn).__name__


# ---------------------------------------------------------------- hardswish: double backward at +-inf

def _second_order(lib, fn, x_values, dtype="float64"):
    x = lib.tensor(np.array(x_values), dtype=getattr(lib, dtype)).requires_grad_()
    g, = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
    gg, = lib.autograd.grad((g * lib.linspace(-1, 2, g.numel(), dtype=g.dtype).view(g.shape)).sum(), x)
    return g, gg


def test_hardswish_double_backward_inf():
    """The slope of the middle piece is taken of x with the outer elements zeroed: no 0 * inf."""
    def fn(lib, x):
        y = lib.nn.functional.hardswish(x * lib.tensor([1.0, -2.0, 0.5, 1.0, -1.0], dtype=x.dtype))
        return lib.log_softmax(y, 0) * lib.tensor([0.46, 0.26, 0.17, -1.33, 0.07], dtype=x.dtype)
    values = [float("inf"), float("inf"), 1.0, -4.0, float("nan")]
    for p, t in zip(_second_order(pedatorch, fn, values), _second_order(torch, fn, values)):
        assert_same(p, t)


def test_log_softmax_hardswish_repro():
    """fz6 F.log_softmax grad2: hardswish(x1 * x0) with an inf in x0, then log_softmax."""
    res = []
    for lib in LIBS:
        x0 = lib.tensor(np.array([[float("inf")], [-0.83203125]]), dtype=lib.bfloat16).expand(2, 3).requires_grad_()
        x1 = lib.tensor(np.array([[-0.8367, 1.8899, 3.2917], [-2.1381, 2.0868, 5.6355]]),
                        dtype=lib.float64).requires_grad_()
        y3 = lib.log_softmax(lib.nn.functional.hardswish(x1 * x0) / lib.tensor(-1, dtype=lib.int8), 0)
        w = lib.tensor(np.array([[0.46, 0.26, 0.17], [-1.33, 0.07, -0.96]]), dtype=lib.float64)
        g0, g1 = lib.autograd.grad((y3 * w).sum(), (x0, x1), create_graph=True)
        v0 = lib.tensor(np.array([[2.96, 1.86, 0.13], [1.85, -1.82, 0.3]]), dtype=lib.bfloat16)
        v1 = lib.tensor(np.array([[-0.29, -0.06, -2.25], [-1.78, -1.26, -0.35]]), dtype=lib.float64)
        res.append(lib.autograd.grad((g0 * v0).sum() + (g1 * v1).sum(), (x0, x1)))
    for p, t in zip(*res):
        assert_same(p, t)


def test_hardswish_gradgradcheck():
    x = pedatorch.tensor([-4.0, -2.5, -0.3, 0.7, 2.9, 3.5], dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradcheck(pedatorch.nn.functional.hardswish, (x,))
    assert pedatorch.autograd.gradgradcheck(pedatorch.nn.functional.hardswish, (x,))


# ---------------------------------------------------------------- sigmoid: sigmoid_backward as one op

def test_sigmoid_double_backward_inf_bce_with_logits():
    """fz6 F.binary_cross_entropy_with_logits grad2: d/dtarget = -inf, through sigmoid's backward."""
    res = []
    for lib in LIBS:
        x1 = lib.tensor(2.046779155731201, requires_grad=True)
        y = lib.nn.functional.binary_cross_entropy_with_logits(lib.tensor(float("inf")), lib.sigmoid(x1))
        g, = lib.autograd.grad(y * 1.48, x1, create_graph=True)
        gg, = lib.autograd.grad(g * 0.13, x1)
        res.append((g, gg, type(g.grad_fn).__name__))
    assert res[0][2] == res[1][2] == "SigmoidBackwardBackward0"
    for p, t in zip(res[0][:2], res[1][:2]):
        assert_same(p, t)


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_sigmoid_double_backward_values(dtype):
    values = [-3.0, -0.5, 0.0, 0.25, 2.0, float("inf"), -float("inf")]
    fn = lambda lib, x: lib.sigmoid(x) * lib.tensor(float("inf"), dtype=x.dtype)  # noqa: E731
    for p, t in zip(_second_order(pedatorch, fn, values, dtype), _second_order(torch, fn, values, dtype)):
        assert_same(p, t)


def test_sigmoid_gradgradcheck():
    x = pedatorch.randn(6, dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradcheck(pedatorch.sigmoid, (x,))
    assert pedatorch.autograd.gradgradcheck(pedatorch.sigmoid, (x,))


# ---------------------------------------------------------------- rms_norm

@pytest.mark.parametrize("shape,perm,ns", [((3, 3), (1, 0), (3,)), ((2, 3, 4, 5), (0, 2, 3, 1), (3,)),
                                           ((2, 3, 4, 5, 6), (0, 2, 3, 4, 1), (3,)),
                                           ((2, 3, 5, 4), (0, 1, 3, 2), (5,)), ((2, 3, 5, 4), (0, 1, 3, 2), (4, 5)),
                                           ((3, 4), None, (4,))])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("with_weight", [False, True])
def test_rms_norm_graph_and_layout(shape, perm, ns, dtype, with_weight):
    """ATen ends with result.contiguous(input.suggest_memory_format()); eps is added as a Scalar."""
    a = np.random.RandomState(0).randn(*shape)
    res = []
    for lib in LIBS:
        x = lib.tensor(a, dtype=getattr(lib, dtype))
        x = x.permute(*perm) if perm else x
        x.requires_grad_()
        w = lib.linspace(0.5, 2, int(np.prod(ns)), dtype=x.dtype).view(ns).requires_grad_() if with_weight else None
        y = lib.nn.functional.rms_norm(x, ns, w)
        g = lib.autograd.grad((y * y).sum(), x)[0]
        res.append((y, _graph(y.grad_fn), y.stride(), g))
    (py, pg, ps, pgr), (ty, tg, ts, tgr) = res
    assert pg == tg
    assert ps == ts
    assert_same(py, ty) if dtype == "float64" else np.testing.assert_allclose(_np(py), _np(ty), rtol=1e-2)
    np.testing.assert_allclose(_np(pgr), _np(tgr), rtol=2e-2, atol=1e-2)


@pytest.mark.parametrize("ns", [(1,), (2,), ()])
def test_rms_norm_zero_dim_error(ns):
    errs = []
    for lib in LIBS:
        with pytest.raises(Exception) as e:
            lib.nn.functional.rms_norm(lib.tensor(0.27734375, dtype=lib.bfloat16), ns)
        errs.append((type(e.value).__name__, str(e.value)))
    assert errs[0] == errs[1]


def test_rms_norm_gradcheck():
    x = pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True)
    w = pedatorch.randn(3, dtype=pedatorch.float64, requires_grad=True)
    f = lambda x, w: pedatorch.nn.functional.rms_norm(x.t(), (3,), w)  # noqa: E731
    assert pedatorch.autograd.gradcheck(f, (x, w))
    assert pedatorch.autograd.gradgradcheck(f, (x, w))


# ---------------------------------------------------------------- batch/instance norm: x * alpha + beta fused

def test_instance_norm_constant_planes_fma():
    """fz6 F.instance_norm value: a constant plane gives the rounding error of mean * alpha, not 0."""
    a = np.array([[[-0.10633831471204758] * 2, [0.38257724046707153] * 2, [-0.015527477487921715] * 2,
                   [-1.0322600603103638] * 2]], dtype=np.float32)
    res = [lib.nn.functional.instance_norm(lib.tensor(a)) for lib in LIBS]
    assert_same(*res, exact=True)


@pytest.mark.parametrize("shape", [(2, 3, 17), (3, 5, 4, 4)])
def test_batch_norm_fma_values(shape):
    a = np.random.RandomState(3).randn(*shape).astype(np.float32)
    a[:, :2] = a[:, :2, :1] if a.ndim == 3 else a[:, :2, :1, :1]   # two constant channels
    p, t = (lib.nn.functional.batch_norm(lib.tensor(a), None, None, training=True) for lib in LIBS)
    assert_same(p[:, :2], t[:, :2], exact=True)   # (the other channels' statistics may differ by an ulp)
    assert_same(p, t)


# ---------------------------------------------------------------- std: the root before the rounding

def test_std_mean_no_float32_overflow():
    a = np.array([8886110.0, 78962948571136.0, 7.016734883182753e+20, 6.235147661162228e+27], dtype=np.float32)
    for fn in (lambda lib, x: lib.std_mean(x, dim=0, keepdim=True), lambda lib, x: lib.std(x),
               lambda lib, x: lib.std(x, 0), lambda lib, x: lib.std_mean(x.view(2, 2), 1),
               lambda lib, x: lib.std(x.view(2, 2), 1), lambda lib, x: lib.var(x)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            p = fn(pedatorch, pedatorch.tensor(a))
        t = fn(torch, torch.tensor(a))
        for pp, tt in zip(p if isinstance(p, tuple) else (p,), t if isinstance(t, tuple) else (t,)):
            assert_same(pp, tt)


def test_std_mean_gradcheck():
    x = pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True)
    f = lambda x: pedatorch.std_mean(x, 1)  # noqa: E731
    assert pedatorch.autograd.gradcheck(f, (x,))
    assert pedatorch.autograd.gradgradcheck(f, (x,))


# ---------------------------------------------------------------- gelu(+inf)

def _gelu_cases(lib):
    b = float("inf")
    return [lib.full((1, 4), b).t(), lib.full((4, 1), b).t(), lib.full((2, 3, 4, 5), b).to(memory_format=lib.channels_last),
            lib.full((3, 1), b).expand(3, 4), lib.full((1,), b).expand(5), lib.full((8,), b)[::2],
            lib.full((8,), b)[1:], lib.full((2, 2, 2), b).permute(2, 0, 1), lib.full((3,), b, dtype=lib.float16),
            lib.full((3,), b, dtype=lib.float64), lib.full((), b), lib.full((2, 2), b).t(),
            lib.full((3,), b, dtype=lib.bfloat16)]


@pytest.mark.parametrize("i", range(13))
def test_gelu_inf(i):
    """gelu(+inf) is inf, as PyTorch's scalar and AVX2 kernels give it; its AVX512 float kernel's erf
    polynomial makes NaN for contiguous inputs of several elements (a machine-dependent difference)."""
    p, t = (lib.nn.functional.gelu(_gelu_cases(lib)[i]) for lib in LIBS)
    assert p.dtype == getattr(pedatorch, str(t.dtype).split(".")[1]) and tuple(p.shape) == tuple(t.shape)
    assert np.all(p.float().numpy() == np.inf)
    assert np.all(np.isin(t.float().numpy(), [np.inf, np.nan]) | np.isnan(t.float().numpy()))


def test_gelu_reciprocal_repro():
    res = []
    for lib in LIBS:
        x0 = lib.tensor(np.array([[-2, 1], [0, 3]]), dtype=lib.int64).transpose(-2, -1)
        res.append(lib.nn.functional.gelu(lib.reciprocal(x0)))
    assert_same(*res)


# ---------------------------------------------------------------- loss layouts, reduction='none'

LOSSES = ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
          "binary_cross_entropy_with_logits", "soft_margin_loss", "poisson_nll_loss", "kl_div"]


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("which", ["input", "target", "both"])
def test_pointwise_loss_layout(name, which):
    rs = np.random.RandomState(0)
    a, b = rs.rand(3, 4) * 0.8 + 0.1, rs.rand(3, 4) * 0.8 + 0.1
    res = []
    for lib in LIBS:
        x = lib.tensor(a.T.copy()).t() if which in ("input", "both") else lib.tensor(a)
        y = lib.tensor(b.T.copy()).t() if which in ("target", "both") else lib.tensor(b)
        x.requires_grad_()
        out = getattr(lib.nn.functional, name)(x, y, reduction="none")
        res.append(out)
    assert res[0].stride() == res[1].stride()
    assert_same(*res)


def test_bce_with_logits_layout_repro():
    """fzbig2 clone stride: the loss is laid out as 1 - target (here a transposed sigmoid)."""
    rs = np.random.RandomState(1)
    a, b = rs.randn(3, 3).astype(np.float32), rs.randn(3, 3)
    res = []
    for lib in LIBS:
        x1 = lib.tensor(b).t().requires_grad_()
        res.append(lib.nn.functional.binary_cross_entropy_with_logits(lib.tensor(a), lib.sigmoid(x1),
                                                                      reduction="none").clone())
    assert res[0].stride() == res[1].stride()
    assert_same(*res)


def test_loss_gradchecks():
    F = pedatorch.nn.functional
    x = pedatorch.rand(3, 4, dtype=pedatorch.float64, requires_grad=True)
    y = pedatorch.rand(4, 3, dtype=pedatorch.float64, requires_grad=True)
    for fn in (lambda x, y: F.mse_loss(x.t(), y, reduction="none"),
               lambda x, y: F.huber_loss(x.t(), y, reduction="none"),
               lambda x, y: F.binary_cross_entropy_with_logits(x.t(), y, reduction="none")):
        assert pedatorch.autograd.gradcheck(fn, (x, y))
        assert pedatorch.autograd.gradgradcheck(fn, (x, y))
    assert pedatorch.autograd.gradcheck(lambda x: F.soft_margin_loss(x.t(), y.detach(), reduction="none"), (x,))


def test_instance_norm_float64_constant_planes():
    """float64 too: the product's rounding error recovered exactly (fzbig2-style max over such planes)."""
    a = np.random.RandomState(0).randn(4, 5, 6)
    a[:, :2] = a[:, :2, :1]
    p, t = (lib.nn.functional.instance_norm(lib.tensor(a)) for lib in LIBS)
    assert_same(p[:, :2], t[:, :2], exact=True)
    assert_same(p, t)
    x0 = np.array([[[-0.9887417849983413] * 2, [0.6442994144055564] * 2], [[1.2772635364457774] * 2,
                                                                        [1.4242481243928942] * 2]])
    p, t = (lib.max(lib.nn.functional.instance_norm(lib.tensor(x0)), -2) for lib in LIBS)
    assert p.indices.tolist() == t.indices.tolist()


def test_batch_norm_checks_sizes_before_dtype():
    errs = []
    for lib in LIBS:
        x = lib.tensor(np.array([-2, -4]), dtype=lib.int8)
        with pytest.raises(Exception) as e:
            lib.nn.functional.batch_norm(x, x, lib.tensor([1]), lib.tensor([3]), lib.tensor([-2]), training=True)
        errs.append((type(e.value).__name__, str(e.value)))
        with pytest.raises(Exception) as e:   # momentum=None is an argument error: before everything else
            lib.nn.functional.batch_norm(x.view(2, 1), lib.zeros(3), None, training=True, momentum=None)
        errs.append((type(e.value).__name__, str(e.value)))
    assert errs[:2] == errs[2:]


@pytest.mark.parametrize("shape", [(0, 1, 2), (0, 3, 4)])
def test_max_pool1d_backward_empty_batch(shape):
    res = []
    for lib in LIBS:
        x = lib.zeros(shape, dtype=lib.bfloat16, requires_grad=True)
        y = lib.nn.functional.max_pool1d(x, 2)
        g, = lib.autograd.grad((y * 2).sum(), x, create_graph=True)
        res.append(g)
    assert_same(*res)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_nansum_half_types(dtype):
    """numpy's nansum leaves a bfloat16 NaN in place (it only knows its own float dtypes)."""
    a = np.array([[0.0, np.nan, 1.5], [np.nan, np.nan, 2.0]])
    for fn in (lambda lib, x: lib.nansum(x), lambda lib, x: lib.nansum(x, 1),
               lambda lib, x: lib.nansum(x, dtype=lib.float64)):
        p, t = (fn(lib, lib.tensor(a, dtype=getattr(lib, dtype))) for lib in LIBS)
        assert_same(p, t)
    x = pedatorch.tensor(a, dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradcheck(lambda x: pedatorch.nansum(x, 1), (x,))


@pytest.mark.parametrize("call", ["sum3", "prod3", "sum1", "prod1"])
def test_reduction_dim_error_before_autograd_dtype_error(call):
    errs = []
    for lib in LIBS:
        x = lib.tensor([[[0.5]]], requires_grad=True)
        fn = lib.sum if call.startswith("sum") else lib.prod
        with pytest.raises(Exception) as e:
            fn(x, int(call[-1]), dtype=lib.int64)
        errs.append((type(e.value).__name__, str(e.value)))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("contiguous", [True, False])
def test_batch_norm_eval_layouts_inf_weight(contiguous):
    """Contiguous: x * alpha + beta (0 * -inf + inf = NaN); other layouts: ((x - mean) * rstd) * w + b."""
    x0 = np.array([[-2.0, 9], [-1.0, 0.5], [0.0, 1.0], [0.5, 2.0]])
    res = []
    for lib in LIBS:
        x = lib.tensor(x0)[:, :1]
        x = x.contiguous() if contiguous else x
        args = [lib.tensor([v], dtype=lib.float64) for v in (1.0, 2.0, float("-inf"), 0.5)]
        res.append(lib.nn.functional.batch_norm(x, *args, training=False))
    assert_same(*res)


def test_batch_norm_noncontiguous_float64_constant_channel():
    b = np.random.RandomState(0).randn(2, 4, 4, 5)
    b[:, :2] = b[:1, :2, :1, :1]
    p, t = (lib.nn.functional.batch_norm(lib.tensor(b).permute(0, 1, 3, 2), None, None, training=True)
            for lib in LIBS)
    assert_same(p[:, :2], t[:, :2], exact=True)
    assert_same(p, t)


@pytest.mark.parametrize("with_affine", [False, True])
def test_batch_norm_noncontiguous_float32_mean(with_affine):
    """Other layouts: ATen's mean is at::mean (a float32 sum), then ((x - mean) * rstd) * w + b."""
    a = np.random.RandomState(0).randn(3, 4, 6).astype(np.float32)
    a[:, :2] = a[:1, :2, :1]
    res = []
    for lib in LIBS:
        w, b = (lib.ones(4) * 2, lib.ones(4) * 0.5) if with_affine else (None, None)
        res.append(lib.nn.functional.batch_norm(lib.tensor(a)[..., ::2], None, None, w, b, training=True))
    assert_same(*res, exact=True)
