"""Reductions: prod, max/min, amax/amin, argmax, aminmax, var/std, norm, logsumexp, softmax, cumsum/cumprod,
cummax/cummin, all/any, count_nonzero, median, mode, quantile, diff (and sum/mean).

Most tests run the same expression on pedatorch and on PyTorch and compare values, dtypes, gradients,
grad_fn names and exception classes; every differentiable op is also gradchecked in float64.
"""
import pickle
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, gradcheck, to_np

nan, inf = float("nan"), float("inf")
RNG = np.random.default_rng(0)
A34 = RNG.standard_normal((3, 4))                 # distinct values: no ties
A234 = RNG.standard_normal((2, 3, 4))
TIES = np.array([[1., 3., 3., 2.], [2., 2., 0., 2.], [5., -1., 5., -1.]])
ZEROS = np.array([[1., 0., 3., 2.], [0., 2., 0., 2.], [5., -1., 4., 0.5]])
NANS = np.array([[1., nan, 3., 2.], [2., 2., 0., 2.], [nan, nan, nan, nan]])


def lib_tensor(lib, data, dtype="float64", requires_grad=False):
    return lib.tensor(np.array(data, dtype=dtype), requires_grad=requires_grad)


def run(lib, fn, data, dtype="float64", requires_grad=False):
    x = lib_tensor(lib, data, dtype, requires_grad)
    return x, fn(lib, x)


def compare(a, b, check_dtype=True, rtol=1e-5, atol=1e-6):
    """Same structure (tensor / named tuple / tuple), values and dtypes."""
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        if hasattr(b, "n_fields"):  # torch.return_types.*
            assert type(a).__name__ == type(b).__name__
            assert repr(a).split("(")[0] == repr(b).split("(")[0]
        for x, y in zip(a, b):
            compare(x, y, check_dtype, rtol, atol)
        return
    if hasattr(b, "shape"):
        assert_close(a, b, rtol=rtol, atol=atol, check_dtype=check_dtype)
        fa, fb = a.grad_fn, b.grad_fn
        assert (fa is None) == (fb is None), (fa, fb)
        if fb is not None:
            assert fa.name() == fb.name()
    else:
        assert a == b


def first_float(out):
    if isinstance(out, tuple):
        return out[0]
    return out


def weights(lib, shape, dtype):
    w = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape) / 7.0
    return lib.tensor(w, dtype=dtype)


def compare_backward(torch, fn, data, dtype="float64", rtol=1e-5, atol=1e-6):
    """Forward (with grad_fn names) and the gradient of a weighted sum of the first output."""
    grads = []
    outs = []
    for lib in (pt, torch):
        x, out = run(lib, fn, data, dtype, requires_grad=True)
        o = first_float(out)
        outs.append(out)
        (o * weights(lib, tuple(o.shape), o.dtype)).sum().backward()
        grads.append(x.grad)
    compare(outs[0], outs[1], rtol=rtol, atol=atol)
    assert_close(grads[0], grads[1], rtol=rtol, atol=atol)


def raises_same(torch, fn, match=True):
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, (errs[0], errs[1])
    if match:
        assert str(errs[0]).split("\n")[0] == str(errs[1]).split("\n")[0], (str(errs[0]), str(errs[1]))
    return errs


# ====================================================================== forward + backward vs PyTorch

DIFF_CASES = {
    "prod": lambda m, x: x.prod(),
    "prod_dim": lambda m, x: m.prod(x, 1),
    "prod_dim_keep": lambda m, x: x.prod(-1, keepdim=True),
    "prod_dtype": lambda m, x: x.prod(0, dtype=m.float32),
    "max": lambda m, x: x.max(),
    "min": lambda m, x: m.min(x),
    "max_dim": lambda m, x: x.max(1),
    "max_dim_keep": lambda m, x: m.max(x, dim=-1, keepdim=True),
    "min_dim": lambda m, x: x.min(0),
    "amax": lambda m, x: x.amax(),
    "amax_dim": lambda m, x: x.amax(1),
    "amin_dims": lambda m, x: m.amin(x, (0, 1), keepdim=True),
    "amin_neg": lambda m, x: x.amin(-1),
    "aminmax": lambda m, x: m.aminmax(x),
    "aminmax_dim": lambda m, x: m.aminmax(x, dim=0, keepdim=True),
    "var": lambda m, x: x.var(),
    "var_dim": lambda m, x: x.var(1),
    "var_unbiased_pos": lambda m, x: x.var(0, False, True),
    "var_unbiased_only": lambda m, x: m.var(x, False),
    "var_correction": lambda m, x: x.var(dim=(0, 1), correction=0),
    "var_correction2": lambda m, x: m.var(x, -1, correction=2, keepdim=True),
    "std": lambda m, x: x.std(),
    "std_dim": lambda m, x: x.std(1, keepdim=True),
    "std_unbiased": lambda m, x: m.std(x, unbiased=False),
    "var_mean": lambda m, x: m.var_mean(x, 1),
    "std_mean": lambda m, x: m.std_mean(x, dim=0, correction=0, keepdim=True),
    "norm": lambda m, x: x.norm(),
    "norm_fro_dim": lambda m, x: m.norm(x, "fro", dim=1),
    "norm_fro_2dims": lambda m, x: x.norm(p="fro", dim=(0, 1), keepdim=True),
    "norm_1": lambda m, x: x.norm(1),
    "norm_0": lambda m, x: x.norm(0, dim=0),
    "norm_inf": lambda m, x: x.norm(inf),
    "norm_ninf": lambda m, x: x.norm(-inf, dim=1),
    "norm_3": lambda m, x: x.norm(3, dim=0, keepdim=True),
    "norm_half": lambda m, x: x.norm(0.5),
    "norm_1.5": lambda m, x: x.norm(1.5, dim=-1),
    "norm_neg1": lambda m, x: x.norm(-1, dim=1),
    "logsumexp": lambda m, x: x.logsumexp(1),
    "logsumexp_dims": lambda m, x: m.logsumexp(x, (0, 1), keepdim=True),
    "softmax": lambda m, x: x.softmax(1),
    "softmax0": lambda m, x: m.softmax(x, 0),
    "softmax_dtype": lambda m, x: x.softmax(-1, dtype=m.float32),
    "log_softmax": lambda m, x: x.log_softmax(-1),
    "log_softmax0": lambda m, x: m.log_softmax(x, dim=0),
    "cumsum": lambda m, x: x.cumsum(1),
    "cumsum0": lambda m, x: m.cumsum(x, dim=0),
    "cumsum_dtype": lambda m, x: x.cumsum(-1, dtype=m.float32),
    "cumprod": lambda m, x: x.cumprod(1),
    "cumprod0": lambda m, x: m.cumprod(x, 0),
    "cummax": lambda m, x: x.cummax(1),
    "cummin": lambda m, x: m.cummin(x, 0),
    "median": lambda m, x: x.median(),
    "median_dim": lambda m, x: x.median(1),
    "median_keep": lambda m, x: m.median(x, 0, True),
    "nanmedian": lambda m, x: x.nanmedian(),
    "nanmedian_dim": lambda m, x: x.nanmedian(-1),
    "mode": lambda m, x: x.mode(),
    "mode0": lambda m, x: m.mode(x, 0, keepdim=True),
    "quantile": lambda m, x: x.quantile(0.3),
    "quantile_dim": lambda m, x: m.quantile(x, 0.75, dim=1),
    "quantile_vec": lambda m, x: x.quantile(m.tensor([0.0, 0.25, 0.9, 1.0], dtype=m.float64), dim=0,
                                            keepdim=True),
    "quantile_vec_all": lambda m, x: x.quantile(m.tensor([0.1, 0.5], dtype=m.float64)),
    "quantile_lower": lambda m, x: x.quantile(0.4, dim=1, interpolation="lower"),
    "quantile_higher": lambda m, x: x.quantile(0.4, dim=1, interpolation="higher"),
    "quantile_midpoint": lambda m, x: x.quantile(0.4, dim=1, interpolation="midpoint"),
    "quantile_nearest": lambda m, x: x.quantile(0.5, dim=1, interpolation="nearest"),
    "quantile_keep_all": lambda m, x: x.quantile(0.3, keepdim=True),
    "nanquantile": lambda m, x: x.nanquantile(0.3, dim=1),
    "diff": lambda m, x: x.diff(),
    "diff2": lambda m, x: m.diff(x, n=2, dim=0),
    "diff_pre_app": lambda m, x: x.diff(dim=1, prepend=m.ones(3, 1, dtype=m.float64),
                                        append=m.zeros(3, 2, dtype=m.float64)),
    "sum": lambda m, x: x.sum(1),
    "mean": lambda m, x: x.mean(),
}


@pytest.mark.parametrize("name", list(DIFF_CASES))
@pytest.mark.parametrize("data", ["distinct", "ties", "zeros"])
def test_forward_backward_vs_torch(torch, name, data):
    arr = {"distinct": A34, "ties": TIES, "zeros": ZEROS}[data]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_backward(torch, DIFF_CASES[name], arr)


@pytest.mark.parametrize("name", list(DIFF_CASES))
def test_float32_forward_backward_vs_torch(torch, name):
    """Result dtypes and values in float32 (where PyTorch keeps float32, so must we)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "quantile_vec" or name == "quantile_vec_all":
            fn = {"quantile_vec": lambda m, x: x.quantile(m.tensor([0.0, 0.25, 0.9, 1.0]), dim=0),
                  "quantile_vec_all": lambda m, x: x.quantile(m.tensor([0.1, 0.5]))}[name]
        else:
            fn = DIFF_CASES[name]
        compare_backward(torch, fn, A34, "float32", rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["max", "max_dim", "amax_dim", "median", "median_dim", "nanmedian",
                                  "nanmedian_dim", "quantile_dim", "nanquantile", "cummax", "cummin",
                                  "sort_like_topk", "logsumexp", "softmax", "argmax", "argmin"])
def test_nan_vs_torch(torch, name):
    fn = DIFF_CASES.get(name) or {
        "sort_like_topk": lambda m, x: x.min(1),
        "argmax": lambda m, x: x.argmax(1),
        "argmin": lambda m, x: x.argmin(),
    }[name]
    # (nanmedian's index for an all-NaN slice is left to std::nth_element in PyTorch: not compared)
    data = NANS[:2] if name.startswith("nanmedian") else NANS
    compare(run(pt, fn, data)[1], run(torch, fn, data)[1])


def test_3d_and_negative_dims(torch):
    for fn in [lambda m, x: x.max(-2), lambda m, x: x.amax((-1, 0)), lambda m, x: x.var((0, 2)),
               lambda m, x: x.norm(dim=(-1, -3)), lambda m, x: x.logsumexp(-2), lambda m, x: x.softmax(-3),
               lambda m, x: x.cumprod(-2), lambda m, x: x.median(-3), lambda m, x: x.prod(-2),
               lambda m, x: x.quantile(0.6, dim=-2, keepdim=True), lambda m, x: x.cummin(-1),
               lambda m, x: m.std_mean(x, -1)]:
        compare_backward(torch, fn, A234)


# ====================================================================== gradcheck (float64, independent of torch)

GRADCHECK = {
    "prod": (lambda x: x.prod(), [A34, ZEROS, np.array([[0., 2.], [0., 3.]])]),
    "prod_dim": (lambda x: x.prod(1), [A34, ZEROS]),
    "prod_keep": (lambda x: x.prod(0, keepdim=True), [ZEROS]),
    "max": (lambda x: x.max(), [A34]),
    "max_dim": (lambda x: x.max(1).values, [A34]),
    "min_dim_keep": (lambda x: x.min(0, keepdim=True)[0], [A34]),
    "amax": (lambda x: x.amax((0, 1)), [A34]),
    "amin": (lambda x: x.amin(1, keepdim=True), [A34]),
    "aminmax": (lambda x: tuple(pt.aminmax(x, dim=1)), [A34]),
    "var": (lambda x: x.var(1), [A34]),
    "var_c0": (lambda x: x.var(correction=0), [A34]),
    "std": (lambda x: x.std(0, keepdim=True), [A34]),
    "var_mean": (lambda x: pt.var_mean(x, 1), [A34]),
    "std_mean": (lambda x: pt.std_mean(x, (0, 1)), [A34]),
    "norm2": (lambda x: x.norm(), [A34]),
    "norm_dim": (lambda x: x.norm(dim=1), [A34]),
    "norm1": (lambda x: x.norm(1, dim=0), [A34]),
    "norm_inf": (lambda x: x.norm(inf, dim=1), [A34]),
    "norm_ninf": (lambda x: x.norm(-inf), [A34]),
    "norm3": (lambda x: x.norm(3), [A34]),
    "norm1.5": (lambda x: x.norm(1.5, dim=1), [A34]),
    "norm0.5": (lambda x: x.norm(0.5, dim=1), [A34]),
    "logsumexp": (lambda x: x.logsumexp(1), [A34]),
    "logsumexp_all": (lambda x: x.logsumexp((0, 1)), [A34]),
    "softmax": (lambda x: x.softmax(1), [A34]),
    "softmax0": (lambda x: x.softmax(0), [A34]),
    "log_softmax": (lambda x: x.log_softmax(1), [A34]),
    "cumsum": (lambda x: x.cumsum(1), [A34]),
    "cumprod": (lambda x: x.cumprod(1), [A34, ZEROS, np.array([[0., 0., 2., 3.], [1., 0., 0., 4.]])]),
    "cumprod0": (lambda x: x.cumprod(0), [ZEROS]),
    "cummax": (lambda x: x.cummax(1).values, [A34]),
    "cummin": (lambda x: x.cummin(0).values, [A34]),
    "median": (lambda x: x.median(), [A34]),
    "median_dim": (lambda x: x.median(1).values, [A34]),
    "nanmedian": (lambda x: x.nanmedian(0).values, [A34]),
    "mode": (lambda x: x.mode(1).values, [A34]),
    "quantile": (lambda x: x.quantile(0.3, dim=1), [A34]),
    "quantile_vec": (lambda x: x.quantile(pt.tensor([0.2, 0.9], dtype=pt.float64)), [A34]),
    "nanquantile": (lambda x: x.nanquantile(0.6, dim=0), [A34]),
    "diff": (lambda x: x.diff(n=2), [A34]),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck(name):
    fn, datas = GRADCHECK[name]
    for d in datas:
        assert gradcheck(fn, d)


def test_gradgradcheck():
    """Backward formulas are written with Tensor ops: second derivatives work too."""
    for fn, d in [(lambda x: x.prod(1), ZEROS), (lambda x: x.prod(), A34), (lambda x: x.cumprod(1), ZEROS),
                  (lambda x: x.cumprod(0), A34), (lambda x: x.softmax(1), A34), (lambda x: x.log_softmax(0), A34),
                  (lambda x: x.var(1), A34), (lambda x: x.std(), A34), (lambda x: x.norm(dim=1), A34),
                  (lambda x: x.logsumexp(0), A34), (lambda x: x.max(1).values, A34), (lambda x: x.cumsum(0), A34),
                  (lambda x: x.norm(3), A34)]:
        x = pt.tensor(d, requires_grad=True)
        assert pt.autograd.gradgradcheck(fn, (x,))


# ====================================================================== specific behaviours

def test_prod_zero_gradients(torch):
    for data in ([0., 2., 3.], [0., 0., 3.], [1., 2., 0.], [[0., 1.], [2., 0.]], 5.0):
        compare_backward(torch, lambda m, x: x.prod(), data)
        if np.ndim(data):
            compare_backward(torch, lambda m, x: x.prod(0), data)
            compare_backward(torch, lambda m, x: x.cumprod(0), data)
    compare_backward(torch, lambda m, x: x.prod(0), 5.0)
    compare_backward(torch, lambda m, x: x.prod(-1, True), 5.0)


def test_prod_dtypes(torch):
    for dt in ("int64", "int32", "bool", "uint8", "float32"):
        for fn in (lambda m, x: x.prod(), lambda m, x: x.prod(0), lambda m, x: m.prod(x, dtype=m.float64),
                   lambda m, x: x.cumprod(0), lambda m, x: x.cumsum(0), lambda m, x: x.sum()):
            compare(run(pt, fn, [1, 2, 3], dt)[1], run(torch, fn, [1, 2, 3], dt)[1])
    raises_same(torch, lambda m: m.tensor([1., 2.]).prod((0,)), match=False)


def test_return_types(torch):
    x = pt.tensor([[1., 5.], [3., 2.]])
    r = x.max(1)
    values, indices = r
    assert isinstance(r, tuple) and len(r) == 2
    assert r.values is values and r[1] is indices and r.indices is indices
    assert type(r).__name__ == "max" and r.n_fields == 2
    assert repr(r) == "torch.return_types.max(\nvalues=" + repr(values) + ",\nindices=" + repr(indices) + ")"
    assert pt.return_types.max is type(r)
    a = pt.aminmax(x)
    assert a.min.item() == 1 and a.max.item() == 5
    assert repr(a).startswith("torch.return_types.aminmax(\nmin=")
    r2 = pickle.loads(pickle.dumps(r))
    assert type(r2) is type(r) and np.array_equal(to_np(r2.values), to_np(values))
    t = torch.tensor([[1., 5.], [3., 2.]]).max(1)
    assert repr(r).split("\n")[0] == repr(t).split("\n")[0]
    with pytest.raises(TypeError):
        pt.return_types.max((1, 2, 3))


def test_max_binary_and_out(torch):
    a, b = np.array([[1., 5.], [3., 2.]]), np.array([2., 2.])
    for fn in (lambda m, x, y: m.max(x, y), lambda m, x, y: x.min(y), lambda m, x, y: m.max(x, other=y)):
        outs = [fn(lib, lib.tensor(a), lib.tensor(b)) for lib in (pt, torch)]
        compare(*outs)
    raises_same(torch, lambda m: m.max(m.tensor([1., 2.]), 2.), match=False)
    raises_same(torch, lambda m: m.tensor([1., 2.]).max(keepdim=True), match=False)
    for lib in (pt, torch):
        v, i = lib.empty(0), lib.empty(0, dtype=lib.int64)
        r = lib.max(lib.tensor([1., 5., 3.]), 0, out=(v, i))
        assert v.item() == 5 and i.item() == 1 and r.values is v
    o = pt.empty(0)
    pt.amax(pt.tensor([[1., 2.]]), 1, out=o)
    assert o.tolist() == [2.]


def test_tie_breaking_indices(torch):
    data = [[1, 3, 3, 2, 3], [0, 0, 0, 0, 0], [4, 1, 4, 1, 1]]
    for dt in ("int64", "float64", "float32"):
        for fn in (lambda m, x: x.max(1), lambda m, x: x.min(1), lambda m, x: x.argmax(1), lambda m, x: x.argmin(1),
                   lambda m, x: x.argmax(), lambda m, x: x.argmin(keepdim=True), lambda m, x: x.cummax(1),
                   lambda m, x: x.cummin(1), lambda m, x: x.mode(1), lambda m, x: x.median(1),
                   lambda m, x: x.max(0), lambda m, x: x.median(0), lambda m, x: x.mode(0)):
            compare(run(pt, fn, data, dt)[1], run(torch, fn, data, dt)[1])
    for data in ([2., 1, 2, 1, 2, 1], [2., 1, 2, 1, 2, 1, 1], [5., 1, 5, 1, 3, 3], [3, 1, 2, 2, 1, 3, 3, 1],
                 [3., nan, nan, 2], [1., nan, 2, 4, nan]):
        for fn in (lambda m, x: x.median(0), lambda m, x: x.nanmedian(0), lambda m, x: x.mode(0),
                   lambda m, x: x.cummax(0), lambda m, x: x.max(0), lambda m, x: x.min(0)):
            compare(run(pt, fn, data)[1], run(torch, fn, data)[1])


def test_even_split_gradient_among_ties(torch):
    for fn in (lambda m, x: x.max(), lambda m, x: x.amax(1), lambda m, x: x.amin((0, 1)), lambda m, x: x.median(),
               lambda m, x: m.aminmax(x, dim=0).max, lambda m, x: x.norm(inf, dim=1), lambda m, x: x.min()):
        compare_backward(torch, fn, TIES)
    compare_backward(torch, lambda m, x: x.max(), [1., nan, 3., nan])
    compare_backward(torch, lambda m, x: x.nanmedian(), [1., nan, 3., 2., nan])


def test_bool_and_int_inputs(torch):
    b = [[True, False, True], [False, False, True]]
    for fn in (lambda m, x: x.max(), lambda m, x: x.amax(0), lambda m, x: x.max(1), lambda m, x: x.all(),
               lambda m, x: x.any(1), lambda m, x: x.count_nonzero(0), lambda m, x: x.cumsum(1),
               lambda m, x: x.prod(1), lambda m, x: x.cummax(1), lambda m, x: x.diff(), lambda m, x: x.aminmax()):
        compare(run(pt, fn, b, "bool")[1], run(torch, fn, b, "bool")[1])
    raises_same(torch, lambda m: m.tensor([True, False]).argmax())
    raises_same(torch, lambda m: m.tensor([True, False]).argmin(0))
    i = [[3, 1, 2], [1, 5, 5]]
    for fn in (lambda m, x: x.max(), lambda m, x: x.max(1), lambda m, x: x.argmax(), lambda m, x: x.logsumexp(1),
               lambda m, x: x.median(), lambda m, x: x.median(1), lambda m, x: x.mode(1), lambda m, x: x.diff(dim=0),
               lambda m, x: x.softmax(1, dtype=m.float64), lambda m, x: x.amin(),
               lambda m, x: x.cumsum(0), lambda m, x: x.cummin(1), lambda m, x: x.count_nonzero(),
               lambda m, x: x.all(dim=1, keepdim=True)):
        compare(run(pt, fn, i, "int64")[1], run(torch, fn, i, "int64")[1])
    u = [1, 0, 3]
    for fn in (lambda m, x: x.all(), lambda m, x: x.any(0), lambda m, x: x.all(0, keepdim=True),
               lambda m, x: x.cumsum(0)):
        compare(run(pt, fn, u, "uint8")[1], run(torch, fn, u, "uint8")[1])


def test_all_any_count(torch):
    x = [[1., 0., nan], [2., 3., 4.]]
    for fn in (lambda m, x: x.all(), lambda m, x: x.any(), lambda m, x: m.all(x, 1), lambda m, x: x.any(0, True),
               lambda m, x: x.all((0, 1)), lambda m, x: x.any(dim=(0, 1), keepdim=True), lambda m, x: x.all([]),
               lambda m, x: x.count_nonzero(), lambda m, x: m.count_nonzero(x, 1), lambda m, x: x.count_nonzero((0, 1)),
               lambda m, x: x.count_nonzero([]), lambda m, x: x.count_nonzero(-2)):
        compare(run(pt, fn, x)[1], run(torch, fn, x)[1])
    for fn in (lambda m, x: x.all(), lambda m, x: x.any(), lambda m, x: x.all(0), lambda m, x: x.any(1),
               lambda m, x: x.count_nonzero(1)):
        compare(run(pt, fn, np.zeros((0, 2)))[1], run(torch, fn, np.zeros((0, 2)))[1])
    for fn in (lambda m, x: x.all(), lambda m, x: x.any(0), lambda m, x: x.count_nonzero()):
        compare(run(pt, fn, 5.0)[1], run(torch, fn, 5.0)[1])


def test_argmax_argmin(torch):
    for fn in (lambda m, x: x.argmax(), lambda m, x: x.argmin(), lambda m, x: m.argmax(x, 1),
               lambda m, x: x.argmin(-1, True), lambda m, x: x.argmax(dim=None, keepdim=True),
               lambda m, x: x.argmax(0)):
        for data in (A34, TIES, NANS):
            compare(run(pt, fn, data)[1], run(torch, fn, data)[1])
    for fn in (lambda m, x: x.argmax(), lambda m, x: x.argmin(0), lambda m, x: x.argmax(-1, keepdim=True)):
        compare(run(pt, fn, 3.0)[1], run(torch, fn, 3.0)[1])


def test_var_std_forms(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (lambda m, x: x.var(True), lambda m, x: x.var(False), lambda m, x: m.std(x, True),
                   lambda m, x: x.var(0, True, True), lambda m, x: m.var(x, 1, False),
                   lambda m, x: x.std(dim=[0, 1]), lambda m, x: x.var(dim=[]),
                   lambda m, x: x.var(0, correction=0.5), lambda m, x: x.var(unbiased=False),
                   lambda m, x: m.var_mean(x, True), lambda m, x: m.var_mean(x, 1, True, True),
                   lambda m, x: m.std_mean(x, 0, unbiased=False), lambda m, x: x.var(1, correction=4)):
            compare(run(pt, fn, A34)[1], run(torch, fn, A34)[1])
        for fn in (lambda m, x: x.var(), lambda m, x: x.std(0), lambda m, x: x.var(0)):
            for data in ([1.], np.zeros((0,)), 4.0, np.zeros((2, 0))):
                compare(run(pt, fn, data)[1], run(torch, fn, data)[1])
    raises_same(torch, lambda m: m.tensor([1., 2.]).var(0, 1), match=False)
    raises_same(torch, lambda m: m.tensor([1., 2.]).var(0, unbiased=False, correction=1), match=False)
    raises_same(torch, lambda m: m.tensor([1, 2]).var())
    raises_same(torch, lambda m: m.tensor([1, 2]).std(0))
    raises_same(torch, lambda m: m.tensor([1., 2.]).var(1))
    for name in ("var", "std"):
        for lib in (pt, torch):
            with pytest.warns(UserWarning, match=rf"{name}\(\): degrees of freedom is <= 0"):
                getattr(lib.tensor([1.]), name)()
    for name in ("var_mean", "std_mean"):
        for lib in (pt, torch):
            with pytest.warns(UserWarning, match=rf"{name}\(\): degrees of freedom"):
                getattr(lib, name)(lib.tensor([1.]))
    # var/std of complex input is real
    compare(pt.tensor([1 + 1j, 2]).var(), torch.tensor([1 + 1j, 2]).var())
    # the std gradient at a constant slice is 0 (as PyTorch), not nan
    compare_backward(torch, lambda m, x: x.std(1), [[2., 2., 2.], [1., 2., 3.]])


def test_norm_special_cases(torch):
    zero = np.zeros((2, 3))
    for fn in (lambda m, x: x.norm(), lambda m, x: x.norm(dim=1), lambda m, x: x.norm(1), lambda m, x: x.norm(3),
               lambda m, x: x.norm(inf), lambda m, x: x.norm(0.5), lambda m, x: x.norm(1.5),
               lambda m, x: x.norm(0)):
        compare_backward(torch, fn, zero)
        compare_backward(torch, fn, [[0., 1., -2.], [0., 0., 0.]])
    for fn in (lambda m, x: x.norm(), lambda m, x: x.norm(dim=0), lambda m, x: x.norm(inf, dim=1),
               lambda m, x: x.norm(1, dim=(0, 1))):
        compare(run(pt, fn, np.zeros((0, 3)))[1], run(torch, fn, np.zeros((0, 3)))[1])
    f32 = [[1., -2.], [3., 0.5]]
    for fn in (lambda m, x: x.norm(dtype=m.float64), lambda m, x: m.norm(x, 3, 1, True, dtype=m.float64)):
        compare_backward(torch, fn, f32, "float32")
    raises_same(torch, lambda m: m.tensor([1., 2.], dtype=m.float64).norm(dtype=m.float32))
    compare(pt.tensor([3 + 4j, 0]).norm(), torch.tensor([3 + 4j, 0]).norm())
    compare(pt.tensor([1., 2.]).norm(None), torch.tensor([1., 2.]).norm(None))
    raises_same(torch, lambda m: m.tensor([1, 2]).norm())
    raises_same(torch, lambda m: m.tensor([1., 2.]).norm(p="abc"))
    raises_same(torch, lambda m: m.randn(2, 2, 2).norm(p="fro", dim=(0, 1, 2)))
    raises_same(torch, lambda m: m.empty(0).norm(inf))
    raises_same(torch, lambda m: m.empty(0, 3).norm(inf, dim=0))
    # the nuclear norm is linalg.matrix_norm's, over all dims when none are given (a 3-d input is refused)
    m = [[1., -2.], [3., 4.]]
    compare(pt.tensor(m).norm("nuc"), torch.tensor(m).norm("nuc"))
    compare(pt.norm(pt.tensor(m), p="nuc", dim=(1, 0), keepdim=True), torch.norm(torch.tensor(m), p="nuc",
                                                                                 dim=(1, 0), keepdim=True))
    raises_same(torch, lambda m: m.ones(2, 2, 2).norm(p="nuc"))


def test_logsumexp_softmax_stability(torch):
    big = [[1000., 1000., -1000.], [-inf, -inf, -inf], [inf, 1., 2.], [nan, 1., 2.]]
    for fn in (lambda m, x: x.logsumexp(1), lambda m, x: x.softmax(1), lambda m, x: x.log_softmax(1),
               lambda m, x: x.logsumexp(1, keepdim=True)):
        compare(run(pt, fn, big)[1], run(torch, fn, big)[1])
        compare(run(pt, fn, big, "float32")[1], run(torch, fn, big, "float32")[1])
    compare_backward(torch, lambda m, x: x.log_softmax(1), [[1000., 1000., -1000.]])
    compare_backward(torch, lambda m, x: x.softmax(0), [[1000.], [-1000.]])
    for fn in (lambda m, x: x.logsumexp(0), lambda m, x: x.softmax(0), lambda m, x: x.log_softmax(-1),
               lambda m, x: x.cumsum(0), lambda m, x: x.cumprod(-1), lambda m, x: x.cummax(0),
               lambda m, x: x.prod(0), lambda m, x: x.amax(0), lambda m, x: x.max(0), lambda m, x: x.median(0),
               lambda m, x: x.mode(), lambda m, x: x.norm(dim=0), lambda m, x: x.quantile(0.5, dim=0)):
        compare_backward(torch, fn, 3.0)                       # 0-dim inputs
    for fn in (lambda m, x: x.logsumexp(1), lambda m, x: x.softmax(1), lambda m, x: x.log_softmax(0),
               lambda m, x: x.cumsum(1), lambda m, x: x.cumprod(0), lambda m, x: x.prod(1), lambda m, x: x.sum(1)):
        compare(run(pt, fn, np.zeros((2, 0)))[1], run(torch, fn, np.zeros((2, 0)))[1])
    h = [1., 2., 3.]
    for fn in (lambda m, x: x.softmax(0), lambda m, x: x.log_softmax(0), lambda m, x: x.softmax(0, m.float32)):
        compare(run(pt, fn, h, "float16")[1], run(torch, fn, h, "float16")[1], rtol=1e-3, atol=1e-3)
    raises_same(torch, lambda m: m.tensor([[1, 2]]).softmax(0))
    raises_same(torch, lambda m: m.tensor([[1, 2]]).log_softmax(1))
    raises_same(torch, lambda m: m.tensor([[True, False]]).softmax(-1))
    raises_same(torch, lambda m: m.tensor([1., 2.]).softmax(), match=False)
    raises_same(torch, lambda m: m.tensor([1., 2.]).logsumexp(), match=False)
    raises_same(torch, lambda m: m.tensor([1., 2.]).softmax(1))


def test_cumsum_cumprod_inplace_and_dtypes(torch):
    for lib in (pt, torch):
        x = lib.tensor([1., 2., 3.])
        r = x.cumsum_(0)
        assert r is x and x.tolist() == [1., 3., 6.]
        y = lib.tensor([1, 2, 3], dtype=lib.int32)
        y.cumprod_(0)
        assert y.tolist() == [1, 2, 6] and y.dtype == lib.int32
    raises_same(torch, lambda m: m.tensor([1., 2.]).cumsum_(0, dtype=m.float64))
    raises_same(torch, lambda m: m.tensor([1, 2]).cumprod_(0, dtype=m.float32))
    raises_same(torch, lambda m: m.tensor([1., 2.]).cumsum(), match=False)
    raises_same(torch, lambda m: m.tensor([1., 2.]).cumsum(0, m.float64), match=False)
    raises_same(torch, lambda m: m.tensor([1., 2.]).cumsum(1))
    # in-place cumsum keeps a differentiable history
    outs = []
    for lib in (pt, torch):
        a = lib.tensor([1., 2., 3.], requires_grad=True)
        b = a * 2
        b.cumsum_(0)
        b.cumprod_(0)
        assert b.grad_fn.name() == "CumprodBackward0"
        b.sum().backward()
        outs.append(a.grad)
    assert_close(*outs)
    for dt in ("int8", "uint8", "int32", "bool", "float32"):
        for fn in (lambda m, x: x.cumsum(0), lambda m, x: x.cumprod(0), lambda m, x: x.cumsum(0, dtype=m.float64)):
            compare(run(pt, fn, [1, 2, 1], dt)[1], run(torch, fn, [1, 2, 1], dt)[1])


def test_cummax_nan_and_grad_accumulation(torch):
    data = [1., 1, 3, 3, 2, nan, 5, nan, 7]
    compare(run(pt, lambda m, x: x.cummax(0), data)[1], run(torch, lambda m, x: x.cummax(0), data)[1])
    compare(run(pt, lambda m, x: x.cummin(0), data)[1], run(torch, lambda m, x: x.cummin(0), data)[1])
    compare_backward(torch, lambda m, x: x.cummax(0), [1., 3., 2., 2., 5., 4.])
    compare_backward(torch, lambda m, x: x.cummin(-1), [[3., 1., 2., 0.5], [1., 1., 1., 1.]])


def test_median_mode_edges(torch):
    for fn in (lambda m, x: x.median(), lambda m, x: x.nanmedian()):
        for data in ([1., 3., 2., 4.], [1., nan, 2., 4.], [nan, nan], np.zeros(0), 7.0, [[1., 2.], [3., 4.]]):
            compare(run(pt, fn, data)[1], run(torch, fn, data)[1])
    compare(pt.tensor([1, 2, 3, 4]).median(), torch.tensor([1, 2, 3, 4]).median())
    # (PyTorch's mode with NaN, and nanmedian's index in an all-NaN slice, depend on std::sort /
    # std::nth_element with NaN: not compared)
    for fn in (lambda m, x: x.median(1), lambda m, x: x.nanmedian(1), lambda m, x: x.median(0)):
        compare(run(pt, fn, NANS[:2])[1], run(torch, fn, NANS[:2])[1])
    for fn in (lambda m, x: x.median(1), lambda m, x: x.nanmedian(1), lambda m, x: x.mode(1)):
        compare(run(pt, fn, np.zeros((0, 3)))[1], run(torch, fn, np.zeros((0, 3)))[1])
    raises_same(torch, lambda m: m.empty(0, 3).median(0))
    raises_same(torch, lambda m: m.empty(0).mode())
    raises_same(torch, lambda m: m.tensor(3.).mode(1))
    compare(pt.empty(0, 3).median(1), torch.empty(0, 3).median(1))
    compare(pt.tensor(3.).mode(0), torch.tensor(3.).mode(0))


def test_max_min_errors(torch):
    raises_same(torch, lambda m: m.empty(0).max())
    raises_same(torch, lambda m: m.empty(0).min())
    raises_same(torch, lambda m: m.empty(0, 3).max(0))
    raises_same(torch, lambda m: m.empty(0, 3).amax(0))
    raises_same(torch, lambda m: m.empty(0).amax())
    raises_same(torch, lambda m: m.empty(0).argmax())
    raises_same(torch, lambda m: m.empty(0, 3).argmin(0))
    raises_same(torch, lambda m: m.empty(0).aminmax())
    raises_same(torch, lambda m: m.tensor(5.).max(1))
    raises_same(torch, lambda m: m.ones(2, 3).amax(3))
    raises_same(torch, lambda m: m.ones(2, 3).amax((0, 0)), match=False)
    raises_same(torch, lambda m: m.ones(2, 3).argmax(-3))
    raises_same(torch, lambda m: m.tensor([1 + 1j, 2]).max())
    compare(pt.empty(0, 3).max(1), torch.empty(0, 3).max(1))
    compare(pt.empty(0, 3).amax(1), torch.empty(0, 3).amax(1))
    compare(pt.tensor(5.).max(0), torch.tensor(5.).max(0))
    compare(pt.tensor(5.).max(-1, keepdim=True), torch.tensor(5.).max(-1, keepdim=True))


def test_quantile(torch):
    x = [[1., 2., 3., 4.], [4., nan, 1., 2.], [nan, nan, nan, nan]]
    for fn in (lambda m, x: x.quantile(0.4, dim=1), lambda m, x: x.nanquantile(0.4, dim=1),
               lambda m, x: x.nanquantile(m.tensor([0., 0.5, 1.], dtype=m.float64), dim=1, keepdim=True),
               lambda m, x: x.quantile(0.5), lambda m, x: x.nanquantile(0.5),
               lambda m, x: x.nanquantile(0.5, dim=0, interpolation="nearest")):
        compare(run(pt, fn, x)[1], run(torch, fn, x)[1])
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        for q in (0.0, 0.375, 0.5, 0.625, 1.0):
            fn = lambda m, x: m.quantile(x, q, interpolation=interp)  # noqa: E731
            compare(run(pt, fn, [1., 2., 3., 4., 5.])[1], run(torch, fn, [1., 2., 3., 4., 5.])[1])
            compare(run(pt, fn, [1., 2., 3., 4.], "float32")[1], run(torch, fn, [1., 2., 3., 4.], "float32")[1])
    compare(pt.tensor(2.).quantile(0.5, dim=0), torch.tensor(2.).quantile(0.5, dim=0))
    compare(pt.tensor([[1., 2.]]).quantile(pt.tensor(0.3), dim=0), torch.tensor([[1., 2.]]).quantile(
        torch.tensor(0.3), dim=0))
    raises_same(torch, lambda m: m.tensor([1, 2]).quantile(0.4))
    raises_same(torch, lambda m: m.tensor([1., 2.]).quantile(1.4))
    raises_same(torch, lambda m: m.tensor([1., 2.]).nanquantile(-1.))
    raises_same(torch, lambda m: m.tensor([1., 2.]).quantile(m.tensor([0.1, 0.6], dtype=m.float64)))
    raises_same(torch, lambda m: m.tensor([1., 2.]).quantile(m.tensor([[0.1, 0.6]])))
    raises_same(torch, lambda m: m.tensor([1., 2.]).quantile(m.tensor([0.1, 1.6])))
    raises_same(torch, lambda m: m.tensor([1., 2.]).quantile(0.4, interpolation="foo"))
    raises_same(torch, lambda m: m.empty(0).quantile(0.4))


def test_diff(torch):
    for fn in (lambda m, x: x.diff(), lambda m, x: x.diff(n=0), lambda m, x: x.diff(n=5),
               lambda m, x: x.diff(n=2, prepend=m.tensor([0])), lambda m, x: m.diff(x, append=m.tensor([1.5]))):
        compare(run(pt, fn, [1, 2, 4, 8], "int64")[1], run(torch, fn, [1, 2, 4, 8], "int64")[1])
    compare(run(pt, lambda m, x: x.diff(), [True, False, False], "bool")[1],
            run(torch, lambda m, x: x.diff(), [True, False, False], "bool")[1])
    compare(pt.tensor([[1, 2], [4, 8]]).diff(dim=0, append=pt.tensor([[1, 1]])),
            torch.tensor([[1, 2], [4, 8]]).diff(dim=0, append=torch.tensor([[1, 1]])))
    raises_same(torch, lambda m: m.tensor(3.).diff())
    raises_same(torch, lambda m: m.tensor([1, 2]).diff(n=-1))
    raises_same(torch, lambda m: m.tensor([[1, 2]]).diff(dim=0, append=m.tensor([1, 1])))
    raises_same(torch, lambda m: m.tensor([1., 2]).diff(prepend=m.tensor(0.)))


def test_methods_exist_like_torch(torch):
    names = ["prod", "max", "min", "amax", "amin", "argmax", "argmin", "aminmax", "var", "std", "norm", "logsumexp",
             "cumsum", "cumprod", "cumsum_", "cumprod_", "cummax", "cummin", "all", "any", "count_nonzero",
             "median", "nanmedian", "mode", "quantile", "nanquantile", "softmax", "log_softmax", "diff",
             "var_mean", "std_mean"]
    for n in names:
        assert hasattr(pt.Tensor, n) == hasattr(torch.Tensor, n), n
        assert hasattr(pt, n) == hasattr(torch, n), n


def test_no_grad_fn_for_integer_outputs(torch):
    for lib in (pt, torch):
        x = lib.tensor([[1., 5.], [3., 2.]], requires_grad=True)
        assert x.argmax().grad_fn is None and x.max(1).indices.grad_fn is None
        assert x.all().grad_fn is None and x.count_nonzero().grad_fn is None
        assert x.cummax(0).indices.grad_fn is None
    # a refused call changes nothing
    y = pt.tensor([1., 2.])
    with pytest.raises(RuntimeError):
        y.cumsum_(0, dtype=pt.float64)
    assert y.tolist() == [1., 2.]


def test_sum_mean_still_work(torch):
    for fn in (lambda m, x: x.sum(), lambda m, x: x.sum((0, 1), keepdim=True), lambda m, x: x.mean(1),
               lambda m, x: m.nansum(x), lambda m, x: x.sum_to_size(1, 4)):
        compare(run(pt, fn, A34)[1], run(torch, fn, A34)[1])
