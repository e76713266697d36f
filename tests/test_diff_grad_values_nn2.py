"""Gradient values of reductions, norms and losses where PyTorch's kernels decide the last bits.

Each case runs the same program on pedatorch and on PyTorch and compares the gradients (NaN and inf
included): var/std on constant slices (Welford's exact zero), huber/smooth_l1 double backward (one node,
a product with the |z| < limit mask), float16 vector norms (summed in float32), cumprod along a size-1
dim, and layer/group norm in float16/bfloat16 (PyTorch's backward uses the statistics rounded to the
input's dtype).
"""
import numpy as np
import pytest

import pedatorch

torch = pytest.importorskip("torch")


def _np(t):
    return None if t is None else np.asarray(t.detach().double().tolist(), dtype=np.float64)


def _run(lib, fn, arrays, dtype, weights, order2_weights=None, create_graph=True):
    """First (and, with order2_weights, second) order gradients of sum(fn(*xs) * w), as numpy."""
    xs = [lib.tensor(a, dtype=getattr(lib, dtype)).requires_grad_() for a in arrays]
    out = fn(lib, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    ws = weights if isinstance(out, tuple) else (weights,)
    loss = sum((o * lib.tensor(w, dtype=o.dtype)).sum() for o, w in zip(outs, ws))
    grads = lib.autograd.grad(loss, xs, create_graph=create_graph, allow_unused=True)
    res = [_np(g) for g in grads]
    if order2_weights is not None:
        s = sum((g * lib.tensor(v, dtype=g.dtype)).sum() for g, v in zip(grads, order2_weights)
                if g is not None and g.requires_grad)
        res += [_np(g) for g in lib.autograd.grad(s, xs, allow_unused=True)]
    return res


def _compare(fn, arrays, dtype, weights, order2_weights=None, create_graph=True, rtol=1e-6, atol=0.0):
    ours = _run(pedatorch, fn, arrays, dtype, weights, order2_weights, create_graph)
    theirs = _run(torch, fn, arrays, dtype, weights, order2_weights, create_graph)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------- var / std: Welford's exact zero

CONST_COLS = np.array([[0.005555113205080153, 0.005555113205080153, 0.022919592107613893],
                       [0.005555113205080153, 0.005555113205080153, 0.021375790423128267],
                       [0.005555113205080153, 0.005555113205080153, 0.024682544150848335]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_std_of_constant_columns_has_zero_gradient(dtype):
    # PyTorch's Welford kernel gives var exactly 0 for the constant columns, so std's gradient is 0 there;
    # a plain two-pass mean (0.0055.. * 3 / 3 != 0.0055..) left 1e-18 and a finite gradient
    _compare(lambda t, x: x.std(-2, unbiased=True), [CONST_COLS], dtype, [-0.31, -0.91, -0.51], rtol=1e-5)
    x = pedatorch.tensor(CONST_COLS, dtype=getattr(pedatorch, dtype))
    assert x.var(0).tolist()[:2] == [0.0, 0.0]


@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [3, 7, 10])
def test_var_kernels_on_constant_data(fn, dtype, n):
    # along dim 1 PyTorch runs Welford's update: var exactly 0 and mean exactly the value, bit for bit
    a = np.full((2, n), 0.1)
    ours = getattr(pedatorch, fn)(pedatorch.tensor(a, dtype=getattr(pedatorch, dtype)), dim=1)
    theirs = getattr(torch, fn)(torch.tensor(a, dtype=getattr(torch, dtype)), dim=1)
    for o, t in zip(ours if isinstance(ours, tuple) else (ours,), theirs if isinstance(theirs, tuple) else (theirs,)):
        assert _np(o).tolist() == _np(t).tolist()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_var_of_everything_keeps_two_passes(dtype):
    # var/std of float32/float64 down to one number: PyTorch's two passes leave 1e-34 on [0.1] * 3 (not 0)
    for fn in ("var", "std"):
        ours = getattr(pedatorch, fn)(pedatorch.tensor([0.1] * 3, dtype=getattr(pedatorch, dtype)))
        theirs = getattr(torch, fn)(torch.tensor([0.1] * 3, dtype=getattr(torch, dtype)))
        assert ours.item() == theirs.item()


def test_var_random_values_and_gradcheck():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 5)) * 10 + 3
    for kw in ({"dim": 1}, {"dim": (0, 2), "correction": 0}, {}, {"dim": -1, "keepdim": True}):
        _compare(lambda t, x: t.var(x, **kw), [a], "float64", rng.standard_normal(np.shape(torch.var(
            torch.tensor(a), **kw))), rtol=1e-10)
        _compare(lambda t, x: t.std_mean(x, **kw), [a], "float32", tuple(rng.standard_normal(np.shape(
            torch.var(torch.tensor(a), **kw))) for _ in range(2)), rtol=1e-4, atol=1e-6)
    x = pedatorch.tensor(a[:2, :2, :3], dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradcheck(lambda x: pedatorch.var_mean(x, 1), (x,))
    assert pedatorch.autograd.gradgradcheck(lambda x: pedatorch.std(x, (0, 2)), (x,))


# ---------------------------------------------------------------- huber / smooth_l1 double backward

def _loss(name, reduction, **kw):
    return lambda t, x, y: getattr(t.nn.functional, name)(x, y, reduction=reduction, **kw)


@pytest.mark.parametrize("name,kw", [("huber_loss", {}), ("huber_loss", {"delta": 0.7}),
                                     ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.6})])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_clamped_losses_double_backward(name, kw, reduction, dtype):
    nan, inf = float("nan"), float("inf")
    x = [0.3, 2.0, -3.0, nan, inf, 0.5]
    y = [0.1, 0.2, 0.0, 0.0, 1.0, nan]
    w = [0.3, -1.2, 0.7, 1.1, 0.2, -0.4] if reduction == "none" else 0.8
    rtol = 1e-2 if dtype == "bfloat16" else 1e-6
    _compare(_loss(name, reduction, **kw), [x, y], dtype, w,
             order2_weights=[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [-1.0, 2.0, 5.0, 4.0, 0.5, 1.5]], rtol=rtol)


def test_clamped_losses_nan_from_upstream():
    # the fuzzer's case: a NaN upstream gradient times the 0 outside |z| < delta stays NaN in PyTorch
    def prog(t, x0, x2):
        y1 = t.logaddexp2(t.tensor(-1.4169771671295166), x0 * 0.5)
        return t.nn.functional.huber_loss(y1.acosh(), x2, reduction="none") * 0.31 + y1 * 0.7
    _compare(prog, [-1.0, 0.9178049564361572], "float32", 1.0, order2_weights=[1.08, -0.5])


@pytest.mark.parametrize("name", ["huber_loss", "smooth_l1_loss"])
def test_clamped_losses_grad_fn_and_gradgradcheck(name):
    f = getattr(pedatorch.nn.functional, name)
    x = pedatorch.tensor([0.3, 2.0, -3.0, 0.05], dtype=pedatorch.float64, requires_grad=True)
    y = pedatorch.tensor([0.1, 0.2, 0.0, 0.4], dtype=pedatorch.float64, requires_grad=True)
    gx, gy = pedatorch.autograd.grad(f(x, y), [x, y], create_graph=True)
    tx = torch.tensor([0.3, 2.0], requires_grad=True)
    tg, = torch.autograd.grad(getattr(torch.nn.functional, name)(tx, torch.tensor([0.1, 0.2])), [tx],
                              create_graph=True)
    assert type(gx.grad_fn).__name__ == type(gy.grad_fn).__name__ == type(tg.grad_fn).__name__
    for red in ("none", "mean", "sum"):
        assert pedatorch.autograd.gradgradcheck(lambda a, b: f(a, b, reduction=red), (x, y))


# ---------------------------------------------------------------- vector norm / cosine_similarity in float16

def test_float16_vector_norm_sums_in_float32():
    a = [[0.0013799667358398438], [0.27880859375]]
    for lib in (pedatorch, torch):
        n = lib.linalg.vector_norm(lib.tensor(a, dtype=lib.float16), 2, dim=1)
        assert n.tolist() == [0.0013799667358398438, 0.27880859375]


def test_cosine_similarity_float16_gradient():
    x1 = [[[0.0013799667358398438, -0.60791015625, 1.6181640625]], [[-0.414794921875, 0.036956787109375, -0.2310791015625]]]
    x0 = [[[0.27880859375, 0.298828125, -2.943359375]], [[4.17578125, -0.82763671875, -0.62646484375]]]
    _compare(lambda t, a, b: t.nn.functional.cosine_similarity(a, b, dim=-2), [x1, x0], "float16",
             [[-1.06, -0.04, -1.44], [0.1, -0.53, 1.89]], rtol=1e-3)


# ---------------------------------------------------------------- cumprod along a size-1 dim

@pytest.mark.parametrize("create_graph", [False, True])
def test_cumprod_size_one_dim_passes_gradient(create_graph):
    nan = float("nan")
    _compare(lambda t, x: x.cumprod(0), [[[0.0, nan, nan, 0.0]]], "float16", [[-0.27, 0.58, 1.4, 0.57]],
             create_graph=create_graph)
    _compare(lambda t, x: x.cumprod(1), [[[nan, 0.0, 2.0]]], "float32", [[1.0, 2.0, 3.0]],
             create_graph=create_graph)


def test_cumprod_zero_then_nan_does_not_leak():
    # no graph recorded: PyTorch's O(n) formula masks the terms past the first (and second) zero out
    # before summing, so a NaN or inf there does not reach the earlier gradients
    rng = np.random.default_rng(5)
    nan, inf = float("nan"), float("inf")
    _compare(lambda t, x: x.cumprod(0), [[[0.0], [0.0], [nan]]], "float16", [[-0.27], [0.58], [1.4]],
             create_graph=False)
    for _ in range(50):
        a = rng.choice([0.0, 0.0, 1.5, -2.0, nan, inf, 0.5], size=(3, 5))
        _compare(lambda t, x: x.cumprod(1), [a], "float64", rng.standard_normal((3, 5)), create_graph=False,
                 rtol=1e-12)


# ---------------------------------------------------------------- layer/group norm in half precision

def _norm_case(rng, op):
    x = rng.standard_normal((3, 4, 2)) * rng.choice([0.01, 1.0, 30.0]) + rng.choice([0.0, 5.0])
    w, b, gy = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal((3, 4, 2))
    if op == "layer_norm":
        return (lambda t, x, w, b: t.nn.functional.layer_norm(x, (2,), w, b)), [x, w[:2], b[:2]], gy
    return (lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b)), [x, w, b], gy


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op,create_graph", [("layer_norm", False), ("layer_norm", True), ("group_norm", False)])
def test_half_norm_backward_uses_rounded_statistics(dtype, op, create_graph):
    # PyTorch's backward kernels read the mean/rstd it saved in the input's dtype; with rows of 2 elements
    # the exact gradient is ~0 and the rounded statistics decide it all (the fuzzer's case)
    rng = np.random.default_rng(3)
    for _ in range(10):
        fn, arrays, gy = _norm_case(rng, op)
        _compare(fn, arrays, dtype, gy, create_graph=create_graph, rtol=3e-2, atol=2e-2)
    x = [[[-0.37890625, -0.796875], [-0.11083984375, 0.765625], [-0.5546875, -0.310546875]]]
    _compare(lambda t, x, w, b: t.nn.functional.layer_norm(x, (2,), w, b), [x, [-1.9296875, 0.90625], [-1.0, 2.0]],
             "bfloat16", [[[-0.48, -0.02], [-1.67, -0.29], [0.19, -1.95]]], create_graph=create_graph, rtol=1e-2)


def test_norm_gradgradcheck():
    rng = np.random.default_rng(4)
    x = pedatorch.tensor(rng.standard_normal((2, 4, 3)), dtype=pedatorch.float64, requires_grad=True)
    w = pedatorch.tensor(rng.standard_normal(4), dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradgradcheck(lambda x, w: pedatorch.nn.functional.group_norm(x, 2, w), (x, w))
    assert pedatorch.autograd.gradgradcheck(lambda x: pedatorch.nn.functional.layer_norm(x, (3,)), (x,))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_group_norm_recorded_backward_follows_pytorch_ops(dtype):
    # with create_graph=True PyTorch runs infinitely_differentiable_native_group_norm_backward in the input's
    # dtype, rounding after each op: on a constant bfloat16 group that decides the whole gradient
    _compare(lambda t, x: t.nn.functional.group_norm(x, 1), [[[0.419921875] * 3]], dtype, [[-0.59, 0.99, 0.66]],
             rtol=1e-2)
    rng = np.random.default_rng(6)
    for _ in range(10):
        x = rng.standard_normal((3, 4, 2)) * rng.choice([1.0, 30.0])
        w, b, gy = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal((3, 4, 2))
        _compare(lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b), [x, w, b], dtype, gy,
                 rtol=3e-2, atol=3e-2 * np.abs(gy).max())
