"""Elementwise ops: values, dtypes, gradients, grad_fn names and errors against PyTorch; gradcheck.

Every differentiable op is checked three ways: forward and backward equal PyTorch's on the same
inputs; the grad_fn class name is PyTorch's; gradcheck (finite differences in float64) passes.
"""
import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

RNG = np.random.default_rng(1234)
A = RNG.uniform(-2, 2, (3, 4))
B = RNG.uniform(-2, 2, (4,))
POS = RNG.uniform(0.2, 2.0, (3, 4))
UNIT = RNG.uniform(-0.9, 0.9, (3, 4))
BIG = RNG.uniform(1.1, 3.0, (3, 4))

# name -> (function of lib and inputs, input arrays)
UNARY = {
    "exp": A, "exp2": A, "expm1": A, "log": POS, "log2": POS, "log10": POS, "log1p": POS, "sqrt": POS,
    "rsqrt": POS, "sin": A, "cos": A, "tan": UNIT, "asin": UNIT, "acos": UNIT, "atan": A, "sinh": A, "cosh": A,
    "tanh": A, "asinh": A, "acosh": BIG, "atanh": UNIT, "sigmoid": A, "erf": A, "erfc": A, "erfinv": UNIT,
    "reciprocal": POS, "sinc": A, "deg2rad": A, "rad2deg": A, "abs": A, "neg": A, "relu": A, "square": A,
    "frac": A, "logit": RNG.uniform(0.1, 0.9, (3, 4)), "sign": A, "floor": A, "ceil": A, "trunc": A,
    "round": A, "sgn": A, "positive": A,
}
NONSMOOTH = {"sign", "floor", "ceil", "trunc", "round", "sgn"}  # gradient 0 almost everywhere


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_matches_torch(torch, name):
    data = UNARY[name]
    for dt in ("float32", "float64"):
        a = pt.tensor(data, dtype=getattr(pt, dt), requires_grad=True)
        b = torch.tensor(data, dtype=getattr(torch, dt), requires_grad=True)
        ya, yb = getattr(pt, name)(a), getattr(torch, name)(b)
        tol = 1e-5 if dt == "float32" else 1e-12
        assert_close(ya, yb, rtol=tol, atol=tol)
        if name in ("positive", "sgn"):  # torch's sgn gradient is a lazy ZeroTensor: compare names only
            assert name == "positive" or ya.grad_fn.name() == yb.grad_fn.name()
            continue
        assert ya.grad_fn.name() == yb.grad_fn.name()
        g = RNG.standard_normal(data.shape)
        ya.backward(pt.tensor(g, dtype=getattr(pt, dt)))
        yb.backward(torch.tensor(g, dtype=getattr(torch, dt)))
        assert_close(a.grad, b.grad, rtol=tol * 10, atol=tol)
    # method and in-place forms exist and agree
    if name not in ("positive",):
        a, b = pt.tensor(data), torch.tensor(data)
        assert_close(getattr(a, name)(), getattr(b, name)(), rtol=1e-12, atol=1e-12)
        if hasattr(b, name + "_"):
            getattr(a, name + "_")()
            getattr(b, name + "_")()
            assert_close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in UNARY if n not in NONSMOOTH])
def test_unary_gradcheck(name):
    x = pt.tensor(UNARY[name], dtype=pt.float64, requires_grad=True)
    fn = getattr(pt, name)
    assert pt.autograd.gradcheck(fn, (x,))
    if name not in ("abs", "relu"):
        assert pt.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["sin", "exp", "sqrt", "abs", "neg", "sign", "floor"])
def test_unary_on_ints_and_out(torch, name):
    ours, theirs = getattr(pt, name)(pt.tensor([1, 4, 9])), getattr(torch, name)(torch.tensor([1, 4, 9]))
    assert str(ours.dtype) == str(theirs.dtype)
    assert_close(ours, theirs, check_dtype=False)
    out_a, out_b = pt.empty(3), torch.empty(3)
    getattr(pt, name)(pt.tensor([1., 4., 9.]), out=out_a)
    getattr(torch, name)(torch.tensor([1., 4., 9.]), out=out_b)
    assert_close(out_a, out_b)


BINARY = {
    "add": lambda lib, a, b: a + b, "sub": lambda lib, a, b: a - b, "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b, "pow": lambda lib, a, b: a.abs() ** b, "atan2": lambda lib, a, b:
    lib.atan2(a, b), "maximum": lambda lib, a, b: lib.maximum(a, b), "minimum": lambda lib, a, b:
    lib.minimum(a, b), "hypot": lambda lib, a, b: lib.hypot(a, b), "remainder": lambda lib, a, b: a % b,
    "fmod": lambda lib, a, b: lib.fmod(a, b), "logaddexp": lambda lib, a, b: lib.logaddexp(a, b),
    "xlogy": lambda lib, a, b: lib.xlogy(a, b.abs()), "add_alpha": lambda lib, a, b: lib.add(a, b, alpha=2.5),
    "sub_alpha": lambda lib, a, b: lib.sub(a, b, alpha=0.5), "fmax": lambda lib, a, b: lib.fmax(a, b),
    "fmin": lambda lib, a, b: lib.fmin(a, b), "lerp": lambda lib, a, b: lib.lerp(a, b, 0.3),
    "lerp_t": lambda lib, a, b: lib.lerp(a, b, b.sigmoid()), "where": lambda lib, a, b: lib.where(a > 0, a, b),
    "addcmul": lambda lib, a, b: lib.addcmul(a, a, b, value=0.5),
    "addcdiv": lambda lib, a, b: lib.addcdiv(a, a, b.abs() + 1, value=2),
    "clamp_t": lambda lib, a, b: lib.clamp(a, min=b - 0.5, max=b + 0.5),
}


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_broadcast_matches_torch(torch, name):
    fn = BINARY[name]
    a, b = pt.tensor(A, requires_grad=True), pt.tensor(B, requires_grad=True)
    ta, tb = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    y, ty = fn(pt, a, b), fn(torch, ta, tb)
    assert_close(y, ty, rtol=1e-12, atol=1e-12)
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = RNG.standard_normal(A.shape)
    y.backward(pt.tensor(g))
    ty.backward(torch.tensor(g))
    assert_close(a.grad, ta.grad, rtol=1e-10, atol=1e-12)
    assert_close(b.grad, tb.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in BINARY if n not in ("remainder", "fmod")])
def test_binary_gradcheck(name):
    fn = BINARY[name]
    a = pt.tensor(A, dtype=pt.float64, requires_grad=True)
    b = pt.tensor(B + 3.0 * (name in ("maximum", "minimum", "fmax", "fmin")), dtype=pt.float64,
                  requires_grad=True)
    assert pt.autograd.gradcheck(lambda x, y: fn(pt, x, y), (a, b))
    if name not in ("maximum", "minimum", "fmax", "fmin", "where", "clamp_t"):
        assert pt.autograd.gradgradcheck(lambda x, y: fn(pt, x, y), (a, b))


@pytest.mark.parametrize("expr", ["x * 2", "2 * x", "x + 1", "1 + x", "x - 1", "1 - x", "x / 2", "2 / x",
                                  "x ** 2", "x ** 0.5", "2 ** x", "x ** x", "-x", "x // 2", "x % 2", "2 % x",
                                  "abs(x)"])
def test_scalar_operators(torch, expr):
    res = []
    for lib in (pt, torch):
        x = lib.tensor(POS, requires_grad=True)
        y = eval(expr, {"x": x})
        names = [y.grad_fn.name()] if y.grad_fn is not None else []
        if names == ["torch::autograd::NotImplemented"]:  # PyTorch records no derivative for it
            with pytest.raises(RuntimeError):
                y.sum().backward()
        elif y.requires_grad:
            y.sum().backward()
        res.append((y, names, x.grad))
    assert_close(res[0][0], res[1][0], rtol=1e-6)
    assert res[0][1] == res[1][1]
    if res[1][2] is not None:
        assert_close(res[0][2], res[1][2], rtol=1e-5)


@pytest.mark.parametrize("expr", ["x + 1", "x * 2", "x / 2", "x // 2", "x % 3", "x ** 2", "-x",
                                  "x & 6", "x | 1", "x ^ 3", "~x", "x << 1", "x >> 1", "x == 2", "x < 3",
                                  "x.clamp(0, 3)", "x.clamp(min=1.5)"])
def test_integer_operators(torch, expr):
    ours = eval(expr, {"x": pt.tensor([1, 2, 3, 4])})
    theirs = eval(expr, {"x": torch.tensor([1, 2, 3, 4])})
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"])
def test_comparisons(torch, op):
    a, b = np.array([1., 2., 3., np.nan]), np.array([2., 2., 1., np.nan])
    ours = getattr(pt, op)(pt.tensor(a), pt.tensor(b))
    theirs = getattr(torch, op)(torch.tensor(a), torch.tensor(b))
    assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)
    assert not ours.requires_grad


def test_is_checks(torch):
    a = np.array([1., np.inf, -np.inf, np.nan, -0.0])
    for name in ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isreal"]:
        assert getattr(pt, name)(pt.tensor(a)).tolist() == getattr(torch, name)(torch.tensor(a)).tolist()
    assert pt.nan_to_num(pt.tensor(a)).tolist() == torch.nan_to_num(torch.tensor(a)).tolist()
    assert pt.nan_to_num(pt.tensor(a), nan=1.0, posinf=2.0, neginf=-2.0).tolist() == \
        torch.nan_to_num(torch.tensor(a), nan=1.0, posinf=2.0, neginf=-2.0).tolist()


def test_clamp_variants(torch):
    for kw in ({"min": -0.5}, {"max": 0.5}, {"min": -0.5, "max": 0.5}):
        a, b = pt.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
        ya, yb = pt.clamp(a, **kw), torch.clamp(b, **kw)
        assert ya.grad_fn.name() == yb.grad_fn.name()
        ya.sum().backward()
        yb.sum().backward()
        assert_close(ya, yb)
        assert_close(a.grad, b.grad)
    for lib in (pt, torch):
        with pytest.raises(RuntimeError):
            lib.clamp(lib.ones(2))


def test_where_forms(torch):
    c = A > 0
    for lib in (pt, torch):
        pass
    assert_close(pt.where(pt.tensor(c), pt.tensor(A), 0.0), torch.where(torch.tensor(c), torch.tensor(A), 0.0))
    assert_close(pt.where(pt.tensor(c), 1.0, pt.tensor(A)), torch.where(torch.tensor(c), 1.0, torch.tensor(A)))
    assert_close(pt.where(pt.tensor(c), 1, 0), torch.where(torch.tensor(c), 1, 0))
    for lib in (pt, torch):
        with pytest.raises(RuntimeError):
            lib.where(lib.ones(2), lib.ones(2), lib.zeros(2))


def test_inplace_arithmetic_and_out(torch):
    for name, arg in [("add_", 2.0), ("sub_", 1.5), ("mul_", 3.0), ("div_", 4.0), ("pow_", 2.0),
                      ("clamp_", (-0.5, 0.5)), ("fill_", 7.0), ("zero_", None), ("copy_", "B")]:
        a, b = pt.tensor(A), torch.tensor(A)
        args = () if arg is None else arg if isinstance(arg, tuple) else (arg,)
        if arg == "B":
            args_a, args_b = (pt.tensor(B),), (torch.tensor(B),)
        else:
            args_a = args_b = args
        ra, rb = getattr(a, name)(*args_a), getattr(b, name)(*args_b)
        assert ra is a and rb is b
        assert_close(a, b)
        assert a._version == b._version
    o1, o2 = pt.empty(4), torch.empty(4)
    pt.add(pt.tensor(B), 1, out=o1)
    torch.add(torch.tensor(B), 1, out=o2)
    assert_close(o1, o2)
    for lib in (pt, torch):
        with pytest.raises(RuntimeError):
            lib.add(lib.ones(2, requires_grad=True), 1, out=lib.empty(2))


def test_inplace_grad_fn_names(torch):
    for name, arg in [("add_", 2.0), ("mul_", 3.0), ("div_", 4.0), ("pow_", 2.0), ("clamp_", -0.5),
                      ("fill_", 1.0), ("zero_", None), ("exp_", None), ("sigmoid_", None), ("relu_", None)]:
        res = []
        for lib in (pt, torch):
            x = lib.tensor(A, requires_grad=True) * 1
            getattr(x, name)(*(() if arg is None else (arg,)))
            x.sum().backward()
            res.append(x.grad_fn.name())
        assert res[0] == res[1], name


def test_copy_casts_and_broadcasts(torch):
    for lib in (pt, torch):
        x = lib.zeros(2, 3, dtype=lib.int64)
        x.copy_(lib.tensor([1.7, -2.2, 3.9]))
        assert x.tolist() == [[1, -2, 3], [1, -2, 3]]
        with pytest.raises(RuntimeError):
            x.copy_(lib.ones(4))


def test_division_modes(torch):
    a, b = np.array([7., -7., 7., -7.]), np.array([2., 2., -2., -2.])
    for mode in (None, "trunc", "floor"):
        assert_close(pt.div(pt.tensor(a), pt.tensor(b), rounding_mode=mode),
                     torch.div(torch.tensor(a), torch.tensor(b), rounding_mode=mode))
        ia, ib = pt.tensor(a.astype(int)), pt.tensor(b.astype(int))
        ta, tb = torch.tensor(a.astype(int)), torch.tensor(b.astype(int))
        assert_close(pt.div(ia, ib, rounding_mode=mode), torch.div(ta, tb, rounding_mode=mode))
    assert_close(pt.remainder(pt.tensor(a), pt.tensor(b)), torch.remainder(torch.tensor(a), torch.tensor(b)))
    assert_close(pt.fmod(pt.tensor(a), pt.tensor(b)), torch.fmod(torch.tensor(a), torch.tensor(b)))
    for lib in (pt, torch):
        with pytest.raises(RuntimeError):
            lib.tensor([1, 2]) ** -1


def test_equal_allclose_isclose(torch):
    a, b = pt.tensor([1.0, 2.0], dtype=pt.float64), pt.tensor([1.0, 2.0 + 1e-9], dtype=pt.float64)
    assert pt.equal(a, a) and not pt.equal(a, b) and pt.allclose(a, b)
    ta, tb = torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([1.0, 2.0 + 1e-9], dtype=torch.float64)
    assert pt.isclose(a, b, rtol=0, atol=1e-12).tolist() == torch.isclose(ta, tb, rtol=0, atol=1e-12).tolist()
    assert not pt.equal(pt.ones(2), pt.ones(3))
