"""First- and second-order gradients compared with PyTorch: cumsum/cumprod/nansum with ``dtype=`` cast the
gradient back to the input's dtype first; float_power passes a number exponent on as a double (x ** False
is x ** 0.0, gradient exactly 0); a CopySlices double backward zeroes the overwritten region by assignment
(no NaN leaks through a 0/1 mask); trace adds up in order from +0 in ATen's accumulate type; sinc's backward
builds its nodes in PyTorch's order (the order of a double backward's half-precision sums)."""
import math

import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _np(t):
    return None if t is None else (t.detach() + 0).double().numpy()   # (+ 0: PyTorch's zero tensors)


def _run(lib, program):
    """program(lib) -> (outputs, leaves): the first-order gradients (create_graph) and the second-order
    gradients (of the first ones weighted 1.1, 0.6, ...)."""
    outs, leaves = program(lib)
    loss = sum((o * lib.linspace(-1.3, 0.9, o.numel(), dtype=o.dtype).reshape(o.shape)).sum() for o in outs)
    grads = lib.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    s = sum((g * (1.1 - 0.5 * i)).sum() for i, g in enumerate(grads) if g is not None and g.requires_grad)
    second = [None] * len(leaves) if isinstance(s, int) else lib.autograd.grad(s, leaves, allow_unused=True)
    return [_np(g) for g in grads], [_np(g) for g in second]


def _same(program, rtol=0, atol=0):
    (g1, s1), (g2, s2) = _run(pedatorch, program), _run(torch, program)
    for i, (a, b) in enumerate(zip(g1 + s1, g2 + s2)):
        assert (a is None) == (b is None), i
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"gradient {i}")


# ---------------------------------------------------------------- dtype=: the gradient cast back first

def test_rms_norm_after_cumprod_dtype_double_backward_fuzz_1015100():
    def program(t):
        x = t.tensor([0.09716796875, -0.361328125], dtype=t.bfloat16).requires_grad_()
        y = x.cumprod(-1, dtype=t.float64)
        return [y, t.nn.functional.rms_norm(y, (2,))], [x]
    _same(program)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "nansum"])
@pytest.mark.parametrize("dt", ["bfloat16", "float16", "float32"])
def test_dtype_argument_casts_gradient_to_input_dtype_first(op, dt):
    vals = np.random.default_rng(3).standard_normal((3, 5)) * 1.7

    def program(t):
        x = t.tensor(vals, dtype=getattr(t, dt)).requires_grad_()
        y = getattr(x, op)(1, dtype=t.float64) if op != "nansum" else x.nansum(1, dtype=t.float64)
        return [y * y], [x]   # (with y itself also an output, float16 cumprod's second-order sums can
    _same(program)            # differ from PyTorch's in order: 1 ulp in 1 of 15 elements)


def test_cumsum_cumprod_forward_of_float32_carries_in_double():
    a = np.random.default_rng(5).standard_normal((4, 60)) * 3
    for op in ("cumsum", "cumprod"):
        for dt in ("float32", "complex64"):
            got = getattr(pedatorch.tensor(a).to(getattr(pedatorch, dt)), op)(1)
            want = getattr(torch.tensor(a).to(getattr(torch, dt)), op)(1)
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_cumsum_cumprod_gradients_in_float64():
    x = pedatorch.tensor(np.random.default_rng(4).standard_normal((3, 4)) + 2, dtype=pedatorch.float64,
                         requires_grad=True)
    for f in (lambda x: x.cumsum(1), lambda x: x.cumprod(1), lambda x: x.nansum(0)):
        assert gradcheck(f, (x,))
        assert gradgradcheck(f, (x,))


# ---------------------------------------------------------------- float_power with a number exponent

def test_float_power_bool_exponent_gradient_is_zero_fuzz_1019493():
    def program(t):
        x = t.tensor([[-0.1881428211927414]], dtype=t.float32).requires_grad_()
        y = t.float_power(x, False)
        return [y, t.pow(x, y)], [x]
    _same(program)


@pytest.mark.parametrize("e", [False, True, 0, 1, 2, -1, 0.5])
def test_float_power_number_exponents(e):
    def program(t):
        x = t.tensor([-0.5, 0.0, 2.0], dtype=t.float32).requires_grad_()
        y = t.float_power(x, e)
        return [y, y.log()], [x]   # (log: NaN upstream where y < 0, which an exponent 0 must not pass on)
    _same(program, rtol=1e-12)


def test_float_power_inplace_false_exponent():
    for t in (pedatorch, torch):
        x = t.tensor([-0.5, 2.0], dtype=t.float64, requires_grad=True)
        y = x * 1
        y.float_power_(False)
        g, = t.autograd.grad(y, x, t.tensor([float("nan"), 1.0], dtype=t.float64))
        np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])


# ---------------------------------------------------------------- CopySlices double backward

def test_copy_slices_double_backward_zeroes_by_assignment():
    res = []
    for t in (pedatorch, torch):
        v = t.tensor([1.0, 1.0, 1.0], dtype=t.float64, requires_grad=True)
        x = t.tensor([1.0, 2.0, 3.0], dtype=t.float64, requires_grad=True)
        y = x * 1.0
        y[2] = -1
        g, = t.autograd.grad(y, x, v, create_graph=True)
        gv, = t.autograd.grad(g, v, t.tensor([1.0, 1.0, float("nan")], dtype=t.float64))
        res.append(gv.numpy())
    np.testing.assert_array_equal(res[0], res[1])
    np.testing.assert_array_equal(res[0], [1.0, 1.0, 0.0])


def test_norm_after_setitem_double_backward_fuzz_1014767():
    def program(t):
        x = t.tensor([[[0.85009765625], [0.87548828125], [2.5]]], dtype=t.float16).requires_grad_()
        y = x.erfinv()
        y[:, 2, :] = -1
        return [y, t.norm(y, dim=-2, p=2)], [x]
    _same(program)


def test_setitem_double_backward_gradgradcheck():
    x = pedatorch.tensor([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]], dtype=pedatorch.float64, requires_grad=True)

    def f(x):
        y = x * x
        y[:, 1] = y[:, 0] * 2
        return y.norm(dim=1)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# ---------------------------------------------------------------- trace

def test_entr_of_trace_of_negative_zero_fuzz_1004178():
    def program(t):
        x = t.tensor([[-0.0]], dtype=t.bfloat16).requires_grad_()
        y = t.trace(x)
        return [y, t.special.entr(y)], [x]
    _same(program)


@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16", "float16", "int32", "uint8", "complex64"])
def test_trace_adds_in_order_in_accumulate_type(dt):
    rng = np.random.default_rng(7)
    for n, m in [(0, 3), (1, 1), (7, 9), (40, 33), (60, 60)]:
        a = rng.standard_normal((n, m)) * 1000
        if dt == "complex64":
            a = a + 1j * rng.standard_normal((n, m))
        if dt in ("int32", "uint8"):
            a = np.abs(a).astype(np.int64) % 200
        got, want = pedatorch.trace(pedatorch.tensor(a).to(getattr(pedatorch, dt))), \
            torch.trace(torch.tensor(a).to(getattr(torch, dt)))
        assert str(got.dtype) == str(want.dtype)
        big = "complex128" if dt == "complex64" else "float64"
        np.testing.assert_array_equal(got.to(getattr(pedatorch, big)).numpy(),
                                      want.to(getattr(torch, big)).numpy())
    z = pedatorch.trace(pedatorch.tensor([[-0.0]]))
    assert z.item() == 0 and math.copysign(1, z.item()) == 1.0


def test_trace_gradients():
    x = pedatorch.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(pedatorch.trace, (x,))
    assert gradgradcheck(lambda x: pedatorch.trace(x * x), (x,))


# ---------------------------------------------------------------- sinc: PyTorch's node order

def test_asin_of_sinc_bfloat16_double_backward_fuzz_1013181():
    def program(t):
        x = t.tensor(-0.041748046875, dtype=t.bfloat16).requires_grad_()
        y = x.sinc()
        return [y, y.asin()], [x]
    _same(program)


@pytest.mark.parametrize("v", [-0.041748046875, -0.3, -0.0625, 0.01, 0.125, 0.2, 0.45])
def test_sinc_bfloat16_double_backward(v):
    def program(t):
        x = t.tensor([v], dtype=t.bfloat16).requires_grad_()
        return [x.sinc()], [x]
    _same(program)


def test_sinc_gradgradcheck():
    x = pedatorch.tensor([-0.7, 0.2, 1.3], dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(pedatorch.sinc, (x,))
    assert gradgradcheck(pedatorch.sinc, (x,))
