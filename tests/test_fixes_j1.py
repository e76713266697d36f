"""Fuzz round 4 (J1): values of ldexp with a half-precision exponent, float32 xlogy, and half-precision
batch/instance norm (forward statistics and gradients), compared with PyTorch."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _same(p, t):
    assert str(p.dtype) == str(t.dtype)
    np.testing.assert_array_equal(p.detach().float().numpy(), t.detach().float().numpy())


@pytest.mark.parametrize("x_dtype", ["float32", "float64", "bfloat16", "float16", "int32"])
@pytest.mark.parametrize("e_dtype", ["bfloat16", "float16", "float32", "int64", "bool"])
def test_ldexp_power_rounds_to_the_exponent_dtype(x_dtype, e_dtype):
    # ldexp(x, e) is mul(x, pow(2, e)): a bfloat16 e's power is a bfloat16 even for a float32 x (seed 1213179)
    xv = np.array([3.2368390560150146, -1.1, 0.7]) if x_dtype != "int32" else np.array([3, 1, 7])
    ev = {"bool": np.array([1, 0, 1]), "int64": np.array([3, 40, -2])}.get(e_dtype, np.array([0.34375, 2.7, -3.3]))
    if x_dtype.startswith(("float", "bfloat")) and e_dtype == "bool":
        pytest.skip("no bool kernel for a float x (an error, tested elsewhere)")
    res = [T.ldexp(T.tensor(xv, dtype=getattr(T, x_dtype)), T.tensor(ev, dtype=getattr(T, e_dtype)))
           for T in (pedatorch, torch)]
    _same(*res)


def test_ldexp_bfloat16_exponent_gradient():
    xs = [T.tensor(3.2368390560150146, requires_grad=True) for T in (pedatorch, torch)]
    es = [T.tensor(0.34375, dtype=T.bfloat16) for T in (pedatorch, torch)]
    ys = [T.ldexp(x, e) for T, x, e in zip((pedatorch, torch), xs, es)]
    _same(*ys)
    _same(*(T.autograd.grad(y, x)[0] for T, x, y in zip((pedatorch, torch), xs, ys)))
    x = pedatorch.tensor([0.3, -1.2], dtype=pedatorch.float64, requires_grad=True)
    e = pedatorch.tensor([0.5, -2.25], dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(pedatorch.ldexp, (x, e)) and gradgradcheck(pedatorch.ldexp, (x, e))


def test_xlogy_float32_log_rounds_as_c():
    # 235 * log(7): numpy's float32 log(7) is an ulp off; lgamma and cos of the result magnify it (seed 1216403)
    res = []
    for T in (pedatorch, torch):
        y0 = T.xlogy(T.tensor([[235]]), T.tensor([[9], [7]]))
        res.append((y0, T.cos(T.lgamma(y0))))
    for p, t in zip(*res):
        _same(p, t)
    rng = np.random.default_rng(0)
    yv = np.concatenate([rng.uniform(0, 10, 500), np.exp(rng.uniform(-30, 30, 500))]).astype(np.float32)
    xv = rng.uniform(-300, 300, yv.size).astype(np.float32)
    p = pedatorch.xlogy(pedatorch.tensor(xv), pedatorch.tensor(yv)).numpy()
    t = torch.xlogy(torch.tensor(xv), torch.tensor(yv)).numpy()
    assert (p != t).sum() <= 5   # C's logf itself is not always correctly rounded: a handful of ulps differ


_X = np.array([[[1.4140625, -0.2138671875], [0.58984375, 0.93359375], [-0.318359375, 0.25390625]],
               [[1.109375, -0.15625], [0.9375, 0.8515625], [-0.77734375, 0.11181640625]]])
_W = np.array([[[-1.4, -0.15], [0.7, 1.03], [2.23, 0.46]], [[0.69, -1.0], [2.15, -0.04], [-0.77, -0.36]]])


@pytest.mark.parametrize("create_graph", [False, True])
def test_instance_norm_bfloat16_gradient(create_graph):
    # seed 1206961: the backward worked in bfloat16 ops; PyTorch's kernel works in float32 from its saved
    # (rounded) statistics, whose variance it also rounds to bfloat16
    res = []
    for T in (pedatorch, torch):
        x = T.tensor(_X, dtype=T.bfloat16, requires_grad=True)
        y = T.nn.functional.instance_norm(x)
        g, = T.autograd.grad((y * T.tensor(_W, dtype=T.bfloat16)).sum(), [x], create_graph=create_graph)
        res.append((y, g))
    for p, t in zip(*res):
        _same(p, t)


def _batch_norm_cases():
    rng = np.random.default_rng(1)
    for trial in range(60):
        dt = ("bfloat16", "float16")[trial % 2]
        N, C, L = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 6))
        xv = rng.normal(size=(N, C, L)) * rng.choice([0.01, 1, 30]) + rng.choice([0, 5])
        gv = rng.normal(size=(N, C, L))
        if N * L < 2:
            continue
        yield dt, xv, gv, trial % 3   # layout: 0 contiguous, 1 non-contiguous, 2 with parameters and running stats


@pytest.mark.parametrize("create_graph", [False, True])
def test_batch_norm_half_values_and_gradients(create_graph):
    for dt, xv, gv, layout in _batch_norm_cases():
        if dt == "float16" and layout == 1:
            continue   # (not matched yet: see the report of round 4)
        C = xv.shape[1]
        res = []
        for T in (pedatorch, torch):
            d = getattr(T, dt)
            x = (T.tensor(xv.transpose(0, 2, 1).copy(), dtype=d).transpose(1, 2) if layout == 1
                 else T.tensor(xv, dtype=d)).requires_grad_()
            w = b = rm = rv = None
            if layout == 2:
                w = T.tensor(np.linspace(0.5, 1.5, C), dtype=d, requires_grad=True)
                b = T.tensor(np.linspace(-1, 1, C), dtype=d, requires_grad=True)
                rm, rv = T.tensor(np.linspace(0.1, 0.3, C), dtype=d), T.tensor(np.linspace(1, 2, C), dtype=d)
            y = T.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
            ins = [x] + ([w, b] if w is not None else [])
            gs = T.autograd.grad((y * T.tensor(gv, dtype=d)).sum(), ins, create_graph=create_graph)
            res.append([y, *gs] + ([rm, rv] if rm is not None else []))
        for p, t in zip(*res):
            if dt == "bfloat16":
                _same(p, t)
            else:   # (float16: the contiguous kernel's float32 sums may end an ulp apart)
                np.testing.assert_allclose(p.detach().float().numpy(), t.detach().float().numpy(),
                                           rtol=2e-3, atol=1e-5)


def test_batch_norm_double_backward_still_exact():
    x = pedatorch.tensor(np.random.default_rng(0).normal(size=(3, 2, 4)), requires_grad=True)
    w = pedatorch.tensor([0.7, 1.3], dtype=pedatorch.float64, requires_grad=True)

    def f(x, w):
        return pedatorch.nn.functional.batch_norm(x, None, None, w, None, training=True)
    assert gradcheck(f, (x, w)) and gradgradcheck(f, (x, w))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_non_contiguous_full_precision_gradient(dtype, training):
    """(fuzz seed 1303625) numpy reads ``dtype == None`` as float64, so a float64 eval batch_norm of a transposed
    input took the half-precision loop's backward: the statistics' dtype is compared only when there is one."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    rm, rv, w, b = rng.standard_normal(4), rng.uniform(1, 2, 4), rng.standard_normal(4), rng.standard_normal(4)
    go = rng.standard_normal((3, 4))
    grads = []
    for lib in (pedatorch, torch):
        dt = getattr(lib, dtype)
        xx = lib.tensor(x.T.copy(), dtype=dt).t().detach().requires_grad_()
        y = lib.nn.functional.batch_norm(xx, lib.tensor(rm, dtype=dt), lib.tensor(rv, dtype=dt),
                                         lib.tensor(w, dtype=dt), lib.tensor(b, dtype=dt), training=training)
        (g,) = lib.autograd.grad(y, xx, lib.tensor(go, dtype=dt))
        grads.append(g.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5 if dtype == "float32" else 1e-12)


def test_erfinv_float64_tails():
    """(fuzz seed 1309954) float64 erfinv near +-1: ATen's rational start in sqrt(-log((1 - |y|) / 2)), Newton
    steps on the erfc residual (erf(x) rounds to 1 there). Giles' float32 formula was 5e14 ulps off at 1 - 1e-16."""
    y = np.concatenate([np.linspace(-0.9999999, 0.9999999, 401), 1 - np.logspace(-16, -1, 60),
                        -1 + np.logspace(-16, -1, 60)])
    a = pedatorch.erfinv(pedatorch.tensor(y)).numpy()
    b = torch.erfinv(torch.tensor(y)).numpy()
    assert np.max(np.abs(a - b) / np.spacing(np.abs(b))) <= 8
    assert pedatorch.erfinv(pedatorch.tensor([1.0, -1.0, 1.5], dtype=pedatorch.float64)).tolist()[:2] == [np.inf, -np.inf]
