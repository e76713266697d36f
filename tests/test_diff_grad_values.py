"""Gradient values of elementwise ops where PyTorch's formula decides inf/NaN and half-precision bits.

Each case runs the same program on pedatorch and on PyTorch and compares first (and second) order
gradients, NaN and inf included: a mathematically equal formula is not enough where 0 * inf or
inf - inf happens (zero gradients of round/sign/floor, pow at 0, logit outside [0, 1], elu's double
backward, ...).
"""
import math

import numpy as np
import pytest

import pedatorch

torch = pytest.importorskip("torch")

F64, F32, F16, BF16 = "float64", "float32", "float16", "bfloat16"


def _grads(lib, fn, arrays, dtypes, weights, order2_weights=None):
    """Gradients of sum(fn(*xs) * w) (and, with order2_weights, the second-order ones), as numpy."""
    xs = [lib.tensor(a, dtype=getattr(lib, dt)).requires_grad_(req)
          for a, (dt, req) in zip(arrays, dtypes)]
    leaves = [x for x, (_, req) in zip(xs, dtypes) if req]
    out = fn(lib, *xs)
    loss = (out * lib.tensor(weights, dtype=out.dtype)).sum()
    grads = lib.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    res = [None if g is None else g.detach().double().numpy() for g in grads]
    if order2_weights is not None:
        s = sum((g * lib.tensor(v, dtype=g.dtype)).sum() for g, v in zip(grads, order2_weights)
                if g is not None and g.requires_grad)
        second = lib.autograd.grad(s, leaves, allow_unused=True)
        res += [None if g is None else g.double().numpy() for g in second]
    return res


RTOL = {F64: 1e-12, F32: 1e-5, F16: 2e-2, BF16: 4e-2}


def _compare(fn, arrays, dtypes, weights, order2_weights=None):
    """NaN and ±inf exactly where PyTorch has them; finite values to a few units in the last place
    (numpy's exp/erf and PyTorch's vectorised ones may differ in the last bit)."""
    rtol = max(RTOL.get(dt, 0) for dt, req in dtypes if req)
    ours = _grads(pedatorch, fn, arrays, dtypes, weights, order2_weights)
    theirs = _grads(torch, fn, arrays, dtypes, weights, order2_weights)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
            np.testing.assert_array_equal(np.where(np.isinf(a), a, 0), np.where(np.isinf(b), b, 0))
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * 1e-2)


# ------------------------------------------------------------------ zero gradients: zeros_like(grad)

@pytest.mark.parametrize("op", ["round", "floor", "ceil", "trunc", "sign", "sgn", "round_decimals", "div_floor",
                                "copy_", "pow0"])
def test_zero_gradient_is_not_grad_times_zero(op):
    """sqrt(0) has an infinite gradient; the zero gradient of round & co. stays 0 (not 0 * inf = NaN)."""
    def fn(lib, x):
        if op == "round_decimals":
            y = lib.round(x, decimals=-1)
        elif op == "div_floor":
            y = lib.div(x, 10.0, rounding_mode="floor")
        elif op == "copy_":
            y = x * 1
            y[0] = 0.0  # copy_ into a view: that region's gradient is 0
        elif op == "pow0":
            y = (x * 0) ** 0 - 1
        else:
            y = getattr(x, op)() * 0 if op in ("sign", "sgn") else getattr(x, op)()
            y = y - y.detach() if op in ("sign", "sgn") else y
        return y.abs().sqrt()

    _compare(fn, [np.array([0.4, -0.3, 0.0])], [(F32, True)], np.array([1.5, -0.5, 2.0]))


def test_zero_gradient_has_no_graph():
    x = pedatorch.tensor([0.4, 2.6], requires_grad=True)
    g, = pedatorch.autograd.grad(x.round().sum(), x, create_graph=True)
    assert g.grad_fn is None and not g.requires_grad
    assert g.tolist() == [0.0, 0.0]


# ------------------------------------------------------------------ logit

@pytest.mark.parametrize("dtype", [F64, F32, F16, BF16])
@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_gradient_outside_unit_interval(dtype, eps):
    """Without eps the gradient is NaN outside [0, 1] (inf at 0 and 1); with eps it is 0 outside."""
    x = np.array([-0.3, 0.0, 0.05, 0.5, 1.0, 1.7, np.nan])
    _compare(lambda lib, x: lib.logit(x, eps=eps), [x], [(dtype, True)], np.array([0.5, 1, 1, -1, 1, 1, 1]))


@pytest.mark.parametrize("eps", [None, 0.1])
def test_logit_gradient_without_graph(eps):
    """Without create_graph PyTorch runs its logit_backward kernel (a NaN x gives NaN even with eps)."""
    x = np.array([-0.3, 0.0, 0.05, 0.5, 1.0, np.nan])
    got = []
    for lib in (pedatorch, torch):
        t = lib.tensor(x, requires_grad=True)
        got.append(lib.autograd.grad(lib.logit(t, eps).sum(), t)[0].numpy())
    np.testing.assert_array_equal(*got)


def test_logit_eps_is_one_node():
    x = pedatorch.tensor([0.05, 0.5], requires_grad=True)
    y = pedatorch.logit(x, eps=0.1)
    assert y.grad_fn.name() == "LogitBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert pedatorch.autograd.gradcheck(lambda t: pedatorch.logit(t, eps=0.01),
                                        (pedatorch.tensor([0.2, 0.6], dtype=pedatorch.float64,
                                                          requires_grad=True),))


# ------------------------------------------------------------------ pow, float_power

def test_pow_tensor_exponent_at_zero_base():
    """d(a^b)/db at a = 0: 0 for b >= 0, -inf for b < 0; d/da is 0 where b == 0."""
    base = np.array([[0.0], [-1.0], [-3.0], [2.0]]) * np.ones((4, 3))
    exp = np.array([1.0, 1.5, -1.5])
    _compare(lambda lib, a, b: a ** b, [base, exp], [(F32, True), (F32, True)], np.ones((4, 3)))


@pytest.mark.parametrize("dtype", ["uint8", "int16"])
def test_pow_integer_base_float_exponent(dtype):
    base = np.array([[0], [9], [2]])
    _compare(lambda lib, a, b: a ** b, [base, np.array([[-0.4428830203276359, 0.5]])],
             [(dtype, False), (F64, True)], np.array([[-1.51, 0.3], [0.98, 1.0], [0.77, -2.0]]))


def test_pow_double_backward_float16():
    a = np.array([-0.5, 2.0, 0.0, 0.5, -1.0])
    b = np.array([-0.195, 0.409, 0.473, 0.957, 0.11])
    _compare(lambda lib, a, b: a ** b, [a, b], [(F16, False), (F16, True)], np.array([-1.02, 0.27, -0.99, 0.3, 1.3]),
             [np.array([0.66, -1.39, -1.33, 0.5, 0.15])])


def test_float_power_double_backward_zero_base():
    _compare(lambda lib, a, b: lib.float_power(a, b), [np.array([True, False]), np.array(0.9453125)],
             [("bool", False), (BF16, True)], np.array([0.92, 0.2]), [np.array(0.17)])


def test_scalar_base_pow():
    for s in (0, 2.5, -2):
        _compare(lambda lib, b: s ** b, [np.array([-1.5, 0.0, 2.0])], [(F32, True)], np.array([1.0, 2.0, -1.0]))


def test_pow_gradgradcheck():
    a = pedatorch.tensor([0.7, 1.3], dtype=pedatorch.float64, requires_grad=True)
    b = pedatorch.tensor([-0.5, 2.2], dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradgradcheck(lambda a, b: a ** b, (a, b))
    assert pedatorch.autograd.gradgradcheck(lambda b: 2.5 ** b, (b,))


# ------------------------------------------------------------------ binary ops' double backward

def test_div_double_backward_at_zero_divisor():
    _compare(lambda lib, b, a: a.div(b), [np.array([0.0]), np.array([0.9999778866767883, -0.8427007794380188])],
             [(F32, True), (F32, False)], np.array([-0.87, 0.05]), [np.array([-0.9])])


@pytest.mark.parametrize("op", ["fmod", "remainder"])
def test_fmod_remainder_double_backward(op):
    """The quotient in other's gradient is div(rounding_mode=...), whose gradient is 0."""
    _compare(lambda lib, a, b: getattr(lib, op)(a, b), [np.array([-1.0, 2.0, 3.5]), np.array([0.0, np.nan, 1.5])],
             [(F32, True), (F32, True)], np.array([0.55, -0.81, 1.0]),
             [np.array([0.56, -0.38, 1.0]), np.array([1.53, -0.88, 0.5])])


def test_logaddexp_double_backward_infinite_input():
    a = np.array([-np.inf, np.inf, 0.3])
    _compare(lambda lib, a, b: lib.logaddexp(a, b), [a, np.array([-0.2552088499069214])],
             [(F32, False), (F32, True)], np.array([-0.14, 0.08, 0.97]), [np.array([0.33])])


def test_hypot_double_backward_bfloat16():
    _compare(lambda lib, a, b: lib.hypot(a, b), [np.array([-0.039794921875, -0.6953125]), np.array([0, -4])],
             [(BF16, True), ("int16", False)], np.array([-2.08, -1.32]), [np.array([-0.84, 0.77])])


# ------------------------------------------------------------------ unary formulas in PyTorch's order

@pytest.mark.parametrize("op", ["asin", "acos", "asinh", "acosh", "erf", "erfc", "erfinv", "rsqrt", "sinc"])
@pytest.mark.parametrize("dtype", [F32, F16, BF16])
def test_unary_gradients_match(op, dtype):
    if op == "sinc" and dtype in (F16, BF16):
        pytest.xfail("half x * math.pi: pedatorch rounds the number to the tensor's dtype before multiplying, "
                     "PyTorch's CPU kernel multiplies by it in float32 (its op-math type)")
    x = np.array([-1.0, -0.4296875, 0.0, 0.0952, 0.6640625, 1.0, 1.8203125])
    if op == "acosh":
        x = x + 1.0
    if op == "rsqrt":
        x = np.abs(x)
    w = np.array([1.22, 0.55, 0.75, -0.98, 0.8, 0.33, -0.9])
    _compare(lambda lib, t: getattr(t, op)(), [x], [(dtype, True)], w, [np.array([0.27, 0.87, 0.84, -0.41, -0.27,
                                                                                 0.32, 2.25])])


def test_erfinv_and_sinc_save_the_input():
    """PyTorch saves x (not the result) for these: changing the result in place is allowed."""
    for op in ("erfinv", "sinc"):
        x = pedatorch.tensor([0.3], requires_grad=True)
        y = getattr(x, op)()
        y.add_(1)
        y.backward()
        t = torch.tensor([0.3], requires_grad=True)
        u = getattr(t, op)()
        u.add_(1)
        u.backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)


def test_unary_gradgradcheck():
    x = pedatorch.tensor([0.2, -0.6, 0.45], dtype=pedatorch.float64, requires_grad=True)
    for op in ("asin", "erfinv", "sinc", "erf"):
        assert pedatorch.autograd.gradgradcheck(lambda t: getattr(t, op)(), (x,))


# ------------------------------------------------------------------ elu, selu, celu, leaky_relu

ACT = {
    "elu": lambda lib, x: lib.nn.functional.elu(x, alpha=1.0),
    "selu": lambda lib, x: lib.nn.functional.selu(x),
    "celu": lambda lib, x: lib.nn.functional.celu(x, alpha=0.3),
    "leaky_relu": lambda lib, x: lib.nn.functional.leaky_relu(x, 0.01),
    "elu_": lambda lib, x: lib.nn.functional.elu(x * 1, alpha=0.7, inplace=True),
    "celu_": lambda lib, x: lib.nn.functional.celu(x * 1, alpha=0.3, inplace=True),
    "leaky_relu_": lambda lib, x: lib.nn.functional.leaky_relu(x * 1, 0.2, inplace=True),
}


@pytest.mark.parametrize("act", list(ACT))
@pytest.mark.parametrize("dtype", [F64, F32, F16, BF16])
def test_elu_family_gradients(act, dtype):
    """elu_backward is one node (EluBackwardBackward0): NaN x takes the scale branch, the double backward
    masks with x < 0 (0 at x == 0), and nothing flows through exp(x) where x > 0 (no inf * 0)."""
    x = np.array([-0.26, 0.0, 0.5, -0.86, 119.06, -49.37, np.nan])
    if act == "celu" and dtype in (F16, BF16):
        x = x[:-2]  # (exp(x / 0.3) overflows differently in the two half kernels' forward; not the point here)
    w = np.linspace(-1.3, 1.4, len(x))
    v = np.linspace(0.9, -0.7, len(x))
    _compare(ACT[act], [x], [(dtype, True)], w, [v])


def test_leaky_relu_double_backward_gives_zero_to_input():
    """leaky_relu_backward's input x gets an explicit zero gradient: with an inf gradient below, NaN."""
    _compare(lambda lib, x: lib.nn.functional.leaky_relu(x.lgamma(), 0.01) + x.lgamma() * -0.49,
             [np.array(0.0)], [(F32, True)], np.array(1.0), [np.array(0.85)])


def test_elu_grad_fn_names():
    x = pedatorch.tensor([-0.5, 0.5], requires_grad=True)
    for fn, name in ((pedatorch.nn.functional.elu, "EluBackwardBackward0"),
                     (pedatorch.nn.functional.leaky_relu, "LeakyReluBackwardBackward0")):
        g, = pedatorch.autograd.grad(fn(x).sum(), x, create_graph=True)
        assert type(g.grad_fn).__name__ == name


@pytest.mark.parametrize("fn", [lambda t: pedatorch.nn.functional.elu(t, 0.7),
                                lambda t: pedatorch.nn.functional.selu(t),
                                lambda t: pedatorch.nn.functional.celu(t, 0.3),
                                lambda t: pedatorch.nn.functional.leaky_relu(t, 0.2)])
def test_elu_family_gradgradcheck(fn):
    x = pedatorch.tensor([-1.2, -0.3, 0.4, 1.1], dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradcheck(fn, (x,))
    assert pedatorch.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("write", [lambda y: y.zero_(), lambda y: y[:1].fill_(3.0), lambda y: y[1:].zero_(),
                                   lambda y: y.fill_(2.0)], ids=["zero_", "fill_view", "zero_view", "fill_"])
def test_overwritten_values_get_a_zero_gradient_even_when_inf_arrives(write):
    """zero_/fill_ (and the part of a base an in-place op on a view replaced) pass zeros, not grad * 0."""
    grads = []
    for lib in (pedatorch, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * 1
        write(y)
        grads.append(lib.autograd.grad((y * lib.tensor([float("inf"), 1.0], dtype=lib.float64)).sum(), x)[0])
    np.testing.assert_array_equal(grads[0].numpy(), grads[1].numpy())
