"""pedatorch.special against torch.special (values, edge values, dtypes, gradients, grad_fn names,
errors) and against finite differences (gradcheck / gradgradcheck, independent of torch)."""
import math

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.special  # noqa: F401  (the import form under test)
from conftest import assert_close

inf, nan = math.inf, math.nan

# every value class: infinities, NaN, signed zeros, tiny, both tails, the kernels' switch points
GRID = np.array([-inf, -800, -50., -30, -26, -10, -5, -1.5, -1, -0.5, -1e-300, -0., 0., 1e-300, 1e-8, 0.3, 0.5, 1,
                 1.5, 2, 5, 8, 10, 20, 25, 25.5, 30, 39.9, 40, 40.1, 50, 100, 800, inf, nan])
PROB = np.array([-0.1, 0, 1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.02425, 0.1, 0.3, 0.5, 0.6, 0.9, 0.97575, 0.99,
                 1 - 1e-12, 1, 1.1, nan])

# name -> (grid, float64 tolerance as (rtol, atol)); torch's Bessel J kernels are good to about 1e-8
UNARY = {"entr": (GRID, (1e-13, 0)), "ndtr": (GRID, (1e-13, 0)), "log_ndtr": (GRID, (1e-13, 0)),
         "erfcx": (GRID, (1e-13, 0)), "i0e": (GRID, (1e-13, 0)), "i1e": (GRID, (1e-13, 0)),
         "ndtri": (PROB, (1e-13, 0)), "bessel_j0": (GRID, (1e-7, 1e-8)), "bessel_j1": (GRID, (1e-7, 1e-8)),
         "spherical_bessel_j0": (GRID, (1e-13, 0))}
HALF_OK = ["entr", "ndtr", "i0e", "i1e"]     # the others have no float16/bfloat16 kernel in PyTorch


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


# ---------------------------------------------------------------- the module

def test_import_forms():
    import importlib
    mod = importlib.import_module("pedatorch.special")
    assert pt.special is mod
    from pedatorch.special import ndtr, xlog1py  # noqa: F401
    assert ndtr is mod.ndtr


def test_aliases_compute_the_same_ops():
    """special.expit computes sigmoid, ... but, as in PyTorch, is its own function (its errors say special_expit)."""
    S = pt.special
    x = pt.tensor([0.25, 0.5, 0.9])     # (erfinv: inside (-1, 1), where it has no NaN)
    for mine, op in [(S.expit, pt.sigmoid), (S.gammaln, pt.lgamma), (S.psi, pt.digamma), (S.digamma, pt.digamma),
                     (S.erf, pt.erf), (S.erfinv, pt.erfinv), (S.i0, pt.i0)]:
        assert mine is not op and pt.equal(mine(x - 0.1), op(x - 0.1))
    assert pt.equal(S.xlogy(x, x), pt.xlogy(x, x)) and pt.equal(S.polygamma(1, x), pt.polygamma(1, x))


def test_every_torch_special_function_exists(torch):
    public = [n for n in dir(torch.special) if not n.startswith("_") and callable(getattr(torch.special, n))
              and getattr(torch.special, n).__module__ in (None, "torch.special", "torch._C._special")]
    assert [n for n in public if not hasattr(pt.special, n)] == []


def test_public_names_exist_in_torch(torch):
    for name in pt.special.__all__:
        assert hasattr(torch.special, name), name


# ---------------------------------------------------------------- values

@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_values(torch, name, dtype):
    grid, (rtol, atol) = UNARY[name]
    if dtype == "float32":
        rtol, atol = (2e-6, 1e-30) if not name.startswith("bessel") else (1e-4, 1e-6)
        grid = grid[np.abs(np.nan_to_num(grid)) < 1e30]      # (1e-300 is 0 in float32: kept anyway)
    ours = getattr(pt.special, name)(pt.tensor(grid.astype(dtype)))
    theirs = getattr(torch.special, name)(torch.tensor(grid.astype(dtype)))
    assert_close(ours, theirs, rtol=rtol, atol=atol)
    # infinities and signed zeros exactly as torch
    a, b = _np(ours), _np(theirs)
    assert np.array_equal(np.isinf(a), np.isinf(b)) and np.array_equal(np.signbit(a[a == 0]), np.signbit(b[a == 0]))


@pytest.mark.parametrize("name", HALF_OK)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_unary_half(torch, name, dtype):
    data = np.array([-3, -1, -0.5, 0, 0.25, 0.5, 1, 2, 5, 10, 40, inf, -inf, nan])
    ours = getattr(pt.special, name)(pt.tensor(data, dtype=getattr(pt, dtype)))
    theirs = getattr(torch.special, name)(torch.tensor(data, dtype=getattr(torch, dtype)))
    assert str(ours.dtype) == str(theirs.dtype)
    assert_close(ours.float(), theirs.float(), rtol=1e-2, atol=1e-3)   # (torch's bfloat16 has no .numpy())


@pytest.mark.parametrize("name", sorted(set(UNARY) - set(HALF_OK)))
def test_unary_half_not_implemented(torch, name):
    for dtype in ("float16", "bfloat16"):
        with pytest.raises(NotImplementedError) as theirs:
            getattr(torch.special, name)(torch.tensor([0.5], dtype=getattr(torch, dtype)))
        with pytest.raises(NotImplementedError) as ours:
            getattr(pt.special, name)(pt.tensor([0.5], dtype=getattr(pt, dtype)))
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_integer_and_bool_inputs_give_default_float(torch, name):
    for data in ([0, 1, 2], [True, False]):
        ours = getattr(pt.special, name)(pt.tensor(data))
        theirs = getattr(torch.special, name)(torch.tensor(data))
        assert_close(ours, theirs, rtol=1e-6, atol=1e-7)


def test_edge_values():
    S = pt.special
    t = pt.tensor
    assert _np(S.entr(t([0.0, -1.0, inf]))).tolist() == [0.0, -inf, -inf]
    assert _np(S.ndtri(t([0.0, 1.0, 0.5]))).tolist() == [-inf, inf, 0.0]
    assert S.xlog1py(t(0.0), t(-1.0)).item() == 0.0
    assert S.log_ndtr(t(-50.0, dtype=pt.float64)).item() == pytest.approx(-1254.8313611394199, rel=1e-14)
    assert S.log_ndtr(t(10.0, dtype=pt.float64)).item() == pytest.approx(-7.619853024160498e-24, rel=1e-13)


def test_binary_values(torch):
    xa = np.array([0., 0, 0, 2, 2, nan, 1, -1, 0.5, 3, 1e-5, -0.5])
    ya = np.array([-1., nan, -2, -1, -2, 0, inf, 0.5, 1e-10, 100, 3, -0.9])
    assert_close(pt.special.xlog1py(pt.tensor(xa), pt.tensor(ya)),
                 torch.special.xlog1py(torch.tensor(xa), torch.tensor(ya)), rtol=1e-14, atol=0)
    zx = np.array([1., 0.5, 2, 2, 3, 2, 2, inf, 2, nan, 50, 2.5, 1.5, 4, 3.3, 10, 2, 1.0001])
    zq = np.array([1., 1, 0, -1, -1.5, -1.5, inf, 2, 1e-10, 1, 1, 1e5, 0.3, 20, 7.5, 0.9, 1, 2])
    assert_close(pt.special.zeta(pt.tensor(zx), pt.tensor(zq)),
                 torch.special.zeta(torch.tensor(zx), torch.tensor(zq)), rtol=1e-12, atol=0)
    a = np.array([0., 0, 1, 1, 1, inf, inf, -1, 2, nan, 1, 0.5, 0.5, 3, 10, 1, 2.5, 50])
    x = np.array([0., 1, 0, inf, -1, 1, inf, 1, nan, 1, 1e-300, 1e5, 0.1, 2, 30, 50, 1e-3, 49.5])
    for name in ("gammainc", "gammaincc"):
        # (torch's asymptotic branch for large a is good to ~1e-9; ours to ~1e-14: checked with scipy below)
        assert_close(getattr(pt.special, name)(pt.tensor(a), pt.tensor(x)),
                     getattr(torch.special, name)(torch.tensor(a), torch.tensor(x)), rtol=1e-8, atol=0)
    # the upper tail is computed directly, not as 1 - P (which would be 0)
    assert pt.special.gammaincc(pt.tensor([1.0]), pt.tensor([50.0])).item() == pytest.approx(math.exp(-50), rel=1e-6)


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_multigammaln(torch, p):
    x = np.array([1., 1.5, 2.3, 5, 10, 0.1, 100])
    assert_close(pt.special.multigammaln(pt.tensor(x), p), torch.special.multigammaln(torch.tensor(x), p),
                 rtol=1e-12, atol=1e-12)
    assert_close(pt.special.multigammaln(pt.tensor([3, 4]), p), torch.special.multigammaln(torch.tensor([3, 4]), p))


@pytest.mark.parametrize("name", ["xlog1py", "zeta", "gammainc", "gammaincc"])
def test_binary_result_dtypes(torch, name):
    combos = [("int64", "int64"), ("int64", "float16"), ("float16", "bfloat16"), ("float32", "float64"),
              ("float16", "float16"), ("bfloat16", "bfloat16"), ("bool", "float32")]
    for da, db in combos:
        a, b = np.array([1, 2, 3]).astype("float64"), np.array([2, 1, 3]).astype("float64")
        ta, tb = torch.tensor(a).to(getattr(torch, da)), torch.tensor(b).to(getattr(torch, db))
        pa, pb = pt.tensor(a).to(getattr(pt, da)), pt.tensor(b).to(getattr(pt, db))
        try:
            theirs = getattr(torch.special, name)(ta, tb)
        except NotImplementedError as e:
            with pytest.raises(NotImplementedError, match=str(e).replace('"', '.')):
                getattr(pt.special, name)(pa, pb)
            continue
        ours = getattr(pt.special, name)(pa, pb)
        assert str(ours.dtype) == str(theirs.dtype)
        assert_close(ours.double(), theirs.double(), rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("name", ["xlog1py", "zeta"])
def test_binary_python_numbers(torch, name):
    t = np.array([1.5, 2.5, 4.0])
    for args in [(2.0, "t"), ("t", 2.0), (3, "t"), ("t", 3), ("ti", 2.5)]:
        ours = [pt.tensor(t) if a == "t" else pt.tensor([1, 2, 3]) if a == "ti" else a for a in args]
        theirs = [torch.tensor(t) if a == "t" else torch.tensor([1, 2, 3]) if a == "ti" else a for a in args]
        assert_close(getattr(pt.special, name)(*ours), getattr(torch.special, name)(*theirs), rtol=1e-12)
    with pytest.raises(TypeError):
        torch.special.xlog1py(2.0, 3.0)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        getattr(pt.special, name)(2.0, 3.0)


def test_aliases_match_torch(torch):
    x = np.array([-2.0, -0.3, 0.0, 0.2, 0.7, 1.5, 3.0])
    p = np.array([0.1, 0.3, 0.5, 0.9])
    for name, data in [("expit", x), ("logit", p), ("gammaln", x), ("psi", x), ("digamma", x), ("erf", x),
                       ("erfc", x), ("erfinv", p), ("exp2", x), ("expm1", x), ("log1p", np.abs(x)), ("sinc", x),
                       ("round", x * 3), ("i0", x), ("i1", x)]:
        assert_close(getattr(pt.special, name)(pt.tensor(data)), getattr(torch.special, name)(torch.tensor(data)),
                     rtol=1e-10, atol=1e-12)
    assert_close(pt.special.polygamma(2, pt.tensor(x + 4)), torch.special.polygamma(2, torch.tensor(x + 4)), rtol=1e-10)
    assert_close(pt.special.xlogy(pt.tensor(x), pt.tensor(x + 4)), torch.special.xlogy(torch.tensor(x),
                                                                                       torch.tensor(x + 4)))
    assert_close(pt.special.round(pt.tensor([1.234, 5.678]), decimals=2),
                 torch.special.round(torch.tensor([1.234, 5.678]), decimals=2))


def test_softmax_family(torch):
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], dtype=np.float32)
    for name in ("softmax", "log_softmax"):
        for dtype in (None, "float64"):
            ours = getattr(pt.special, name)(pt.tensor(x), 1, dtype=dtype and getattr(pt, dtype))
            theirs = getattr(torch.special, name)(torch.tensor(x), 1, dtype=dtype and getattr(torch, dtype))
            assert_close(ours, theirs)
        with pytest.raises(NotImplementedError):
            getattr(pt.special, name)(pt.tensor([1, 2]), 0)
    assert_close(pt.special.logsumexp(pt.tensor(x), 1, keepdim=True),
                 torch.special.logsumexp(torch.tensor(x), 1, keepdim=True))


# ---------------------------------------------------------------- errors

def test_python_number_where_torch_wants_a_tensor(torch):
    for name, args in [("entr", (2.0,)), ("ndtr", (1,)), ("gammainc", (2.0, "t")), ("gammaincc", ("t", 2)),
                       ("bessel_j0", (1.0,)), ("multigammaln", (2.0, 2))]:
        with pytest.raises(TypeError) as theirs:
            getattr(torch.special, name)(*[torch.tensor([1.0]) if a == "t" else a for a in args])
        with pytest.raises(TypeError) as ours:
            getattr(pt.special, name)(*[pt.tensor([1.0]) if a == "t" else a for a in args])
        assert str(ours.value) == str(theirs.value)


def test_other_errors(torch):
    for fn in (lambda S, t: S.multigammaln(t([2.0]), 1.5), lambda S, t: S.multigammaln(t([2.0]), 0),
               lambda S, t: S.round(t([1, 2])), lambda S, t: S.gammainc(t([1, 2]), t([1, 2]))):
        try:
            fn(torch.special, torch.tensor)
        except Exception as e:
            with pytest.raises(type(e)) as ours:
                fn(pt.special, pt.tensor)
            assert str(ours.value) == str(e)
        else:
            raise AssertionError("torch did not raise")


def test_not_implemented_derivatives(torch):
    for name, torch_msg in [("zeta", "zeta"), ("gammainc", "igamma: input"), ("gammaincc", "igammac: input")]:
        a = pt.tensor([2.0, 3.0], requires_grad=True)
        r = getattr(pt.special, name)(a, pt.tensor([1.0, 2.0]))
        with pytest.raises(NotImplementedError, match=f"the derivative for '{torch_msg}' is not implemented."):
            r.sum().backward()


def test_bessel_outputs_have_no_gradient(torch):
    x = pt.tensor([0.5, 2.0], requires_grad=True)
    for name in ("bessel_j0", "bessel_j1", "spherical_bessel_j0"):
        r = getattr(pt.special, name)(x)
        assert not r.requires_grad and r.grad_fn is None
        assert not getattr(torch.special, name)(torch.tensor([0.5, 2.0], requires_grad=True)).requires_grad


# ---------------------------------------------------------------- gradients

X_POS = np.array([0.2, 0.7, 1.5, 3.0, 45.0])
X_ANY = np.array([-3.0, -0.7, 0.2, 1.5, 3.0, 45.0])
# name -> (function of pedatorch or torch's special module, its inputs)
DIFF = {
    "entr": (lambda S, x: S.entr(x), [X_POS]),
    "ndtr": (lambda S, x: S.ndtr(x), [X_ANY[:-1]]),
    "log_ndtr": (lambda S, x: S.log_ndtr(x), [np.array([-40.0, -3.0, -0.7, 0.2, 1.5, 3.0])]),
    "ndtri": (lambda S, p: S.ndtri(p), [np.array([1e-3, 0.1, 0.3, 0.6, 0.95])]),
    "erfcx": (lambda S, x: S.erfcx(x), [X_ANY]),
    "i0e": (lambda S, x: S.i0e(x), [X_ANY]),
    "i1e": (lambda S, x: S.i1e(x), [X_ANY]),
    "i1": (lambda S, x: S.i1(x), [X_ANY[:-1]]),
    "xlog1py": (lambda S, x, y: S.xlog1py(x, y), [np.array([0.5, -1.0, 2.0, 3.0]), np.array([0.3, 2.0, -0.5, 5.0])]),
    "xlog1py_number_self": (lambda S, y: S.xlog1py(2.5, y), [np.array([0.3, 2.0, -0.5])]),
    "xlog1py_number_other": (lambda S, x: S.xlog1py(x, 1.5), [np.array([0.3, 2.0, -0.5])]),
    "zeta_q": (lambda S, q: S.zeta(2.5, q), [np.array([0.5, 1.5, 4.0])]),
    "zeta_q_tensor_x": (lambda S, q: S.zeta((q * 0 + 3.0).detach(), q), [np.array([0.5, 1.5, 4.0])]),
    "gammainc": (lambda S, x: S.gammainc((x * 0 + 2.5).detach(), x), [np.array([0.5, 1.5, 4.0, 9.0])]),
    "gammaincc": (lambda S, x: S.gammaincc((x * 0 + 2.5).detach(), x), [np.array([0.5, 1.5, 4.0, 9.0])]),
    "multigammaln": (lambda S, x: S.multigammaln(x, 3), [np.array([1.5, 2.5, 7.0])]),
}
GRAD_FN = {"entr": "SpecialEntrBackward0", "ndtr": "MulBackward1", "log_ndtr": "SpecialLogNdtrBackward0",
           "ndtri": "SpecialNdtriBackward0", "erfcx": "SpecialErfcxBackward0", "i0e": "SpecialI0EBackward0",
           "i1e": "SpecialI1EBackward0", "i1": "SpecialI1Backward0", "xlog1py": "SpecialXlog1PyBackward0",
           "xlog1py_number_self": "SpecialXlog1PyBackward1", "xlog1py_number_other": "SpecialXlog1PyBackward2",
           "zeta_q": "SpecialZetaBackward1", "zeta_q_tensor_x": "SpecialZetaBackward0",
           "gammainc": "IgammaBackward0", "gammaincc": "IgammacBackward0", "multigammaln": "MvlgammaBackward0"}


@pytest.mark.parametrize("name", sorted(DIFF))
def test_grad_fn_name(torch, name):
    fn, inputs = DIFF[name]
    ours = fn(pt.special, *[pt.tensor(a, requires_grad=True) for a in inputs])
    theirs = fn(torch.special, *[torch.tensor(a, requires_grad=True) for a in inputs])
    assert ours.grad_fn.name() == theirs.grad_fn.name() == GRAD_FN[name]


@pytest.mark.parametrize("name", sorted(DIFF))
def test_gradients_match_torch(torch, name):
    fn, inputs = DIFF[name]
    ours_in = [pt.tensor(a, requires_grad=True) for a in inputs]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in inputs]
    seed = np.linspace(0.5, 1.5, len(inputs[0]))
    fn(pt.special, *ours_in).backward(pt.tensor(seed))
    fn(torch.special, *theirs_in).backward(torch.tensor(seed))
    for o, t in zip(ours_in, theirs_in):
        assert_close(o.grad, t.grad, rtol=1e-7 if name.startswith("gamma") else 1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(DIFF))
def test_gradcheck_and_gradgradcheck(name):
    fn, inputs = DIFF[name]
    if name == "log_ndtr":
        inputs = [inputs[0][1:]]    # (finite differences lose digits at x = -40; torch covers it above)
    ts = tuple(pt.tensor(a, dtype=pt.float64, requires_grad=True) for a in inputs)
    f = (lambda *xs: fn(pt.special, *xs))
    assert pt.autograd.gradcheck(f, ts)
    assert pt.autograd.gradgradcheck(f, ts)


def test_i1e_gradient_at_zero(torch):
    x = pt.tensor([0.0, 1e-30], dtype=pt.float64, requires_grad=True)
    g, = pt.autograd.grad(pt.special.i1e(x).sum(), x, create_graph=True)
    tx = torch.tensor([0.0, 1e-30], dtype=torch.float64, requires_grad=True)
    tg, = torch.autograd.grad(torch.special.i1e(tx).sum(), tx, create_graph=True)
    assert_close(g, tg)
    assert np.isfinite(_np(pt.autograd.grad(g.sum(), x)[0])).all()


# ---------------------------------------------------------------- scipy as a second oracle

def test_against_scipy():
    sp = pytest.importorskip("scipy.special")
    x = np.concatenate([np.linspace(-30, 30, 601), [-1e3, 1e3, 1e-20]])
    S = pt.special
    np.testing.assert_allclose(_np(S.erfcx(pt.tensor(x))), sp.erfcx(x), rtol=1e-14)
    np.testing.assert_allclose(_np(S.log_ndtr(pt.tensor(x))), sp.log_ndtr(x), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(_np(S.i0e(pt.tensor(x))), sp.i0e(x), rtol=1e-14)
    np.testing.assert_allclose(_np(S.i1e(pt.tensor(x))), sp.i1e(x), rtol=1e-14)
    np.testing.assert_allclose(_np(S.bessel_j0(pt.tensor(x))), sp.j0(x), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_np(S.bessel_j1(pt.tensor(x))), sp.j1(x), rtol=1e-12, atol=1e-15)
    p = np.concatenate([np.logspace(-300, -1, 300), np.linspace(0.1, 0.9, 81), 1 - np.logspace(-15, -1, 30)])
    np.testing.assert_allclose(_np(S.ndtri(pt.tensor(p))), sp.ndtri(p), rtol=1e-13)
    a = np.array([0.5, 2.5, 10, 50, 100, 1000, 3])
    xx = np.array([0.3, 2.0, 30, 49.5, 90, 1000, 40])
    np.testing.assert_allclose(_np(S.gammainc(pt.tensor(a), pt.tensor(xx))), sp.gammainc(a, xx), rtol=1e-12)
    np.testing.assert_allclose(_np(S.gammaincc(pt.tensor(a), pt.tensor(xx))), sp.gammaincc(a, xx), rtol=1e-12)
    zx, zq = np.array([2, 3.5, 1.1, 10, 4]), np.array([1, 0.2, 3, 2, 1e3])
    np.testing.assert_allclose(_np(S.zeta(pt.tensor(zx), pt.tensor(zq))), sp.zeta(zx, zq), rtol=1e-13)
