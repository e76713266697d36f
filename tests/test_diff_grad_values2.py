"""Gradient values of elementwise, special and activation ops at their singular points, compared with
PyTorch: first and second order, NaN/inf where PyTorch's formulas give them, half-precision rounding."""
import numpy as np
import pytest

import pedatorch

torch = pytest.importorskip("torch")


def _np(t):
    return None if t is None else t.detach().double().numpy()


def _run(lib, program, first_only=False):
    """program(lib) -> (outputs, leaves); returns the values of the first- and second-order gradients
    (loss: sum of outputs weighted 0.7, -1.3, ...; second order: sum of the gradients weighted likewise)."""
    outs, leaves = program(lib)
    loss = sum((o * (0.7 - 2.0 * i)).sum() for i, o in enumerate(outs))
    grads = lib.autograd.grad(loss, leaves, create_graph=not first_only, allow_unused=True)
    res = [_np(g) for g in grads]
    if first_only:
        return res
    s = sum((g * (1.1 - 0.5 * i)).sum() for i, g in enumerate(grads) if g is not None and g.requires_grad)
    if isinstance(s, int):
        return res + [None] * len(leaves)
    g2 = lib.autograd.grad(s, leaves, allow_unused=True)
    return res + [_np(g) for g in g2]


def _same(program, first_only=False, rtol=1e-6, atol=1e-6):
    ours = _run(pedatorch, program, first_only)
    theirs = _run(torch, program, first_only)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a is None or b is None:  # (an unused input: None on one side may be zeros on the other)
            assert not (a if a is not None else b if b is not None else np.zeros(1)).any(), i
            continue
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"gradient {i}")


# ---------------------------------------------------------------- addcmul / addcdiv

def test_addcmul_integer_operand_wraps_in_its_dtype():
    # the gradient of t2 is grad * (t1 * value): uint8 7 * -2 wraps to 242, as PyTorch's
    def prog(T):
        t1 = T.tensor([[7]], dtype=T.uint8)
        t2 = T.tensor([[-0.080078125]], dtype=T.bfloat16).requires_grad_()
        x = T.tensor([[0.21], [-0.18], [-0.27]], dtype=T.bfloat16).requires_grad_()
        return [T.addcmul(x, t1, t2, value=-2)], [t2, x]
    _same(prog, first_only=True)


def test_addcdiv_integer_numerator_wraps_in_its_dtype():
    def prog(T):
        t1 = T.tensor([[[8], [8]]], dtype=T.uint8).transpose(-2, -1)
        t2 = T.tensor([[[0.14, 0.98], [-0.07, -0.5]]], dtype=T.float32).requires_grad_()
        return [T.addcdiv(T.tensor([[[0.39, 0.44]]]), t1, t2, value=-2)], [t2]
    _same(prog, first_only=True, rtol=1e-5)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32"])
def test_addcdiv_double_backward_rounds_as_pytorch(dt):
    # value / t2 is ATen's Scalar / Tensor: a filled tensor divided by t2 (not reciprocal(t2) * value)
    rng = np.random.default_rng(1)
    xv, iv = rng.normal(size=40), rng.normal(size=40)

    def prog(T):
        x = T.tensor(xv, dtype=getattr(T, dt)).requires_grad_()
        return [T.addcdiv(T.tensor(iv, dtype=getattr(T, dt)), x, x, value=-2.3)], [x]
    _same(prog, rtol=0, atol=0)


def test_addcmul_addcdiv_gradcheck():
    a, b, c = (pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True) for _ in range(3))
    c2 = (c.detach().abs() + 0.5).requires_grad_()
    assert pedatorch.autograd.gradgradcheck(lambda x, y, z: pedatorch.addcmul(x, y, z, value=-1.5), (a, b, c))
    assert pedatorch.autograd.gradgradcheck(lambda x, y, z: pedatorch.addcdiv(x, y, z, value=0.7), (a, b, c2))


# ---------------------------------------------------------------- copysign, logaddexp2, nextafter

@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_copysign_ratio_formula_at_zero_and_inf(dt):
    # grad * (out / a), 0 where a == 0: NaN at a = ±inf, and a NaN double backward at a = 0
    def prog(T):
        a = T.tensor([0.0, float("inf"), -2.0, 3.0, -0.0], dtype=getattr(T, dt)).requires_grad_()
        b = T.tensor([-0.75, 3.6, 2.0, -1.0, 0.0], dtype=getattr(T, dt)).requires_grad_()
        return [T.copysign(a, b), T.copysign(a, -0.5)], [a, b]
    _same(prog)


def test_copysign_gradcheck():
    a = pedatorch.tensor([0.5, -1.5, 2.0], dtype=pedatorch.float64, requires_grad=True)
    b = pedatorch.tensor([-1.0, 2.0, -3.0], dtype=pedatorch.float64)
    assert pedatorch.autograd.gradgradcheck(lambda x: pedatorch.copysign(x, b), (a,))


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_logaddexp2_double_backward_pytorch_formula(dt):
    # grad / (1 + 2^(b - a)): its double backward is NaN where 2^(b - a) overflows
    def prog(T):
        a = T.tensor([-1.0, 0.9, -0.27, 1.05], dtype=getattr(T, dt)).requires_grad_()
        b = T.tensor([2147483645.0, float("inf"), float("nan"), -3.0], dtype=T.float32)
        return [T.logaddexp2(a, b)], [a]
    _same(prog, rtol=1e-2 if dt != "float32" else 1e-6)


def test_logaddexp2_integer_operand():
    def prog(T):
        a = T.tensor([[253, 255], [252, 3]], dtype=T.uint8)
        b = T.tensor([[1.32]], dtype=T.float32).requires_grad_()
        return [T.logaddexp2(a, b)], [b]
    _same(prog)


def test_nextafter_gradient_zero_at_ties():
    # PyTorch: self gets grad where self != other, 0 at self == other; other gets zeros
    def prog(T):
        a = T.tensor([-1.76, 2.0, 0.5, float("nan")]).requires_grad_()
        b = T.tensor([-1.76, 3.0, 0.5, 1.0]).requires_grad_()
        return [T.nextafter(a, b)], [a, b]
    _same(prog, first_only=True)


# ---------------------------------------------------------------- lgamma / digamma / polygamma

_POLES = [-1.0, -2.0, 0.0, -0.0, float("-inf"), 1e-30, -27.648659655843, -4.2416, 0.3, 2.5, 100.0, float("nan")]


@pytest.mark.parametrize("dt", ["float64", "float32", "float16", "bfloat16"])
def test_trigamma_is_pytorchs_at_poles(dt):
    # PyTorch's trigamma: sin(pi x) is not exactly 0 at a pole, so a huge finite number, not inf
    ours = pedatorch.polygamma(1, pedatorch.tensor(_POLES, dtype=getattr(pedatorch, dt))).double().numpy()
    theirs = torch.polygamma(1, torch.tensor(_POLES, dtype=getattr(torch, dt))).double().numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5 if dt in ("float64", "float32") else 1e-2, equal_nan=True)


def test_digamma_signed_zero():
    ours = pedatorch.digamma(pedatorch.tensor([0.0, -0.0])).numpy()
    assert list(ours) == [-np.inf, np.inf]


@pytest.mark.parametrize("dt", ["float64", "float32", "bfloat16"])
def test_lgamma_digamma_gradients_at_poles(dt):
    def prog(T):
        x = T.tensor([1.0, 2.0, -2.0, -1.0, 2.09, -27.648659655843, float("-inf")],
                     dtype=getattr(T, dt)).requires_grad_()
        return [T.lgamma(x), T.digamma(x)], [x]
    _same(prog, rtol=1e-5 if dt != "bfloat16" else 1e-2)


# ---------------------------------------------------------------- relu6 / hardtanh / threshold / softplus / prelu

@pytest.mark.parametrize("op", ["relu6", "hardtanh", "threshold", "softshrink", "hardshrink"])
def test_double_backward_reaches_the_input_with_zeros(op):
    # PyTorch's hardtanh_backward/threshold_backward give zeros_like(grad) to self: a zero gradient that
    # still flows on, through logit's NaN outside [0, 1]
    def prog(T):
        F = T.nn.functional
        x = T.tensor([-2.0, 2.34, 0.3]).requires_grad_()
        y = x.logit()
        z = {"relu6": F.relu6, "hardtanh": F.hardtanh, "threshold": lambda t: F.threshold(t, 0.5, -1.0),
             "softshrink": F.softshrink, "hardshrink": F.hardshrink}[op](y)
        return [y, z], [x]
    _same(prog)


def test_double_backward_node_names():
    for T in (torch, pedatorch):
        F = T.nn.functional
        x = T.tensor([0.5, 2.0, -3.0], requires_grad=True)
        g, = T.autograd.grad(F.hardtanh(x).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "HardtanhBackwardBackward0"
        g, = T.autograd.grad(F.threshold(x, 0.0, 1.0).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "ThresholdBackwardBackward0"
        g, = T.autograd.grad(F.softplus(x).sum(), x, create_graph=True)
        assert g.grad_fn.name() == "SoftplusBackwardBackward0"


def test_hardtanh_xlogy_inf():
    def prog(T):
        x0 = T.tensor([0.0, 1.0]).requires_grad_()
        x1 = T.tensor([-0.46, -0.346]).requires_grad_()
        y = T.xlogy(x1, x0)
        return [y, T.nn.functional.hardtanh(y, max_val=1.0)], [x0, x1]
    _same(prog)


@pytest.mark.parametrize("dt", ["float32", "float16"])
def test_softplus_double_backward_at_threshold(dt):
    # the first derivative tests beta x > threshold, the second beta x < threshold: 0 at equality
    def prog(T):
        x = T.tensor([[1.0, -1.0, 30.0, 0.3, float("nan")]], dtype=getattr(T, dt)).requires_grad_()
        return [T.nn.functional.softplus(x, threshold=1.0), T.nn.functional.softplus(x, beta=2.0)], [x]
    _same(prog, rtol=1e-5 if dt == "float32" else 1e-2, atol=1e-5 if dt == "float32" else 1e-3)


def test_softplus_prelu_gradgradcheck():
    x = pedatorch.tensor([[0.4, -1.3, 2.2], [1.7, -0.2, 0.9]], dtype=pedatorch.float64, requires_grad=True)
    w = pedatorch.tensor([0.25, -0.5, 0.75], dtype=pedatorch.float64, requires_grad=True)
    F = pedatorch.nn.functional
    assert pedatorch.autograd.gradgradcheck(lambda t: F.softplus(t, beta=1.5, threshold=2.0), (x,))
    assert pedatorch.autograd.gradgradcheck(lambda t, a: F.prelu(t, a), (x, w))


@pytest.mark.parametrize("dt", ["float16", "float32"])
def test_prelu_double_backward_at_zero(dt):
    # PyTorch's double backward tests x >= 0 where the first derivative tests x > 0
    def prog(T):
        x = T.tensor([[[2.0, 1.0, 1.0], [-2.0, 2.0, -2.0]], [[-0.5, 0.0, 0.0], [-0.5, 2.0, 0.0]]],
                     dtype=getattr(T, dt)).requires_grad_()
        w = T.tensor([0.96, 0.36], dtype=getattr(T, dt)).requires_grad_()
        return [T.nn.functional.prelu(x, w)], [x, w]
    _same(prog, rtol=1e-3, atol=1e-3)


# ---------------------------------------------------------------- logcumsumexp, nll_loss, logit

def test_logcumsumexp_nan_gradient_gives_zero():
    # PyTorch's formula sums the positive and the negative part of grad: a NaN grad is neither
    def prog(T):
        x = T.tensor([-0.356, 0.2, 1.0]).requires_grad_()
        y = T.logcumsumexp(x, -1)
        return [y, (y - 1.0).sqrt() * 0.0], [x]
    _same(prog, first_only=True)


def test_logcumsumexp_dominant_term_and_double_backward():
    lo = np.finfo(np.float64).min
    v = [lo, 0.5, lo, -1.0, np.inf, 3.0, np.nan, 2.0]
    ours = pedatorch.logcumsumexp(pedatorch.tensor(v, dtype=pedatorch.float64), 0).numpy()
    theirs = torch.logcumsumexp(torch.tensor(v, dtype=torch.float64), 0).numpy()
    np.testing.assert_array_equal(ours, theirs)

    def prog(T):
        x = T.tensor([[-0.63, 1.0, 1.0], [1.0, 2.0, 0.5], [0.0, 2.0, -0.39]]).requires_grad_()
        d = T.tensor([[-1.0, 1.0, 1.0], [1.0, 2.0, 0.5], [0.0, 2.0, -0.5]]).requires_grad_()
        y = T.logcumsumexp(x, -1)
        return [y, y.div(d)], [d, x]
    _same(prog, rtol=1e-5, atol=1e-5)
    x = pedatorch.tensor([[-0.63, 1.0, 1.0], [1.0, 2.0, 0.5]], dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradgradcheck(lambda t: pedatorch.logcumsumexp(t, -1), (x,))


@pytest.mark.parametrize("dt", ["float64", "bfloat16", "float16"])
def test_nll_loss_backward_writes_only_the_targets(dt):
    # a NaN/inf incoming gradient leaves the other entries 0 (a select, not coef * grad)
    def prog(T):
        x = T.tensor([[-0.17, 0.43, -0.2], [0.13, 0.075, 0.96]], dtype=getattr(T, dt)).requires_grad_()
        y = T.nn.functional.nll_loss(x, T.tensor([2, 1]), reduction="none")
        return [y, y.acosh()], [x]
    _same(prog, first_only=True)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_logit_half_rounds_each_step(dt):
    rng = np.random.default_rng(0)
    v = np.concatenate([rng.uniform(-0.1, 1.1, 300), [0.0, 1.0, np.nan]])
    for eps in (None, 0.1):
        ours = pedatorch.logit(pedatorch.tensor(v).to(getattr(pedatorch, dt)), eps).double().numpy()
        theirs = torch.logit(torch.tensor(v).to(getattr(torch, dt)), eps).double().numpy()
        np.testing.assert_array_equal(ours, theirs)
