"""Fuzzer round 6 (compared with PyTorch; gradients also with finite differences): soft_margin_loss's
backward is one node with PyTorch's double-backward formula (its term-by-term derivative cancels to noise in
bfloat16); bfloat16 NaN/inf/out-of-range values convert to integers as C casts (through float32) in every
conversion, not only ``.to``; masked_fill checks a 0-dim tensor value like a number (its CPU kernel calls
item()); an in-place op on an expanded tensor is refused before its dtype is checked."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from torch_compare import same  # noqa: E402

F = pedatorch.nn.functional


def _soft_margin2(T, dtype, reduction):
    x = T.tensor([-0.69921875, 0.486328125, -0.203125], dtype=getattr(T, dtype), requires_grad=True)
    y = T.tensor([5.84375, -1.0234375, -0.828125], dtype=getattr(T, dtype))
    loss = T.nn.functional.soft_margin_loss(x, y, reduction=reduction)
    g, = T.autograd.grad((loss * -0.76).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "SoftMarginLossBackwardBackward0"
    (g * T.tensor([1.86, -1.68, -0.04], dtype=x.dtype)).sum().backward()
    return x.grad


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "float16"])
def test_soft_margin_double_backward_as_pytorch(dtype, reduction):
    got = _soft_margin2(pedatorch, dtype, reduction).double().numpy()
    want = _soft_margin2(torch, dtype, reduction).double().numpy()
    np.testing.assert_allclose(got, want, rtol={"bfloat16": 8e-3, "float16": 1e-3}.get(dtype, 1e-6))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_soft_margin_gradgradcheck(reduction):
    x = pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True)
    y = pedatorch.randn(3, 4, dtype=pedatorch.float64).sign()
    f = lambda a: F.soft_margin_loss(a, y, reduction=reduction)  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))

    def third(a):   # through SoftMarginLossBackwardBackward0 once more
        g, = pedatorch.autograd.grad((f(a) * 1.5).sum(), a, create_graph=True)
        return (g * g * a).sum()
    assert gradgradcheck(third, (x,))


def test_soft_margin_grad_of_grad_output():
    """The double backward reaches the incoming gradient too (PyTorch's _grad_output formula)."""
    def fn(T):
        x = T.tensor([0.3, -1.2, 2.0], dtype=T.float64, requires_grad=True)
        y = T.tensor([1.0, -1.0, 1.0], dtype=T.float64)
        w = T.tensor(0.7, dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(T.nn.functional.soft_margin_loss(x, y) * w, x, create_graph=True)
        return T.autograd.grad((g * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum(), w)[0]
    # (to an ulp: the exp inside is the C library's here and SLEEF's in PyTorch's vector loop on some CPUs)
    np.testing.assert_allclose(fn(pedatorch).numpy(), fn(torch).numpy(), rtol=1e-14, atol=0)


NAN_ROWS = [[float("nan"), 0.79], [1.29, float("nan")], [float("inf"), -1e30]]


@pytest.mark.parametrize("case", [
    lambda T, x: T.sum(x, dim=-1, dtype=T.int64),
    lambda T, x: x.cumsum(0, dtype=T.int64),
    lambda T, x: x.prod(1, dtype=T.int64),
    lambda T, x: x.long(),
    lambda T, x: T.zeros(3, 2, dtype=T.int32).copy_(x),
    lambda T, x: T.zeros(2, dtype=T.int32).fill_(x[0, 0]),
    lambda T, x: x.to(T.uint8),
], ids=["sum", "cumsum", "prod", "long", "copy_", "fill_", "uint8"])
def test_bfloat16_to_integer_converts_as_c(case):
    same(lambda T: case(T, T.tensor(NAN_ROWS, dtype=T.bfloat16)), pedatorch, torch)


@pytest.mark.parametrize("dtype,value", [("int32", float("nan")), ("int8", 300), ("float16", 1e10),
                                         ("int64", 2.5), ("uint8", -1)])
def test_masked_fill_checks_a_tensor_value_like_a_number(dtype, value):
    same(lambda T: T.zeros(2, dtype=getattr(T, dtype)).masked_fill(T.tensor([True, False]), T.tensor(value)),
         pedatorch, torch)


@pytest.mark.parametrize("op", ["abs_", "neg_", "exp_", "sqrt_", "zero_"])
def test_inplace_on_an_expanded_tensor_is_refused_first(op):
    same(lambda T: getattr(T.tensor([[False], [True]]).expand(2, 3), op)(), pedatorch, torch)


@pytest.mark.parametrize("write", [
    "e[:, 0].fill_(9)", "e[:, 0] = torch.tensor(9.)", "e[:, 0] = 9", "e[...] = 9", "e[:] = 9", "e.fill_(9)",
    "e[:, 0].copy_(torch.tensor([1., 2.]))", "e[:, 0].zero_()", "e[:, 0] = torch.tensor([9.])", "e[0, 0] = 5",
    "e[0].fill_(7)", "e.add_(1)", "e[0].add_(1)", "e[1].mul_(2)"])
def test_writes_into_an_expanded_tensor(write):
    """A view of an expanded tensor that overlaps nothing may be written (numpy calls it read-only); fill_ and
    zero_ write even where it overlaps; copies, assignments and other in-place ops refuse that."""
    def fn(T):
        v = T.tensor([1.0, 2.0, 3.0])
        e = v.expand(2, 3)   # noqa: F841 (used by the statement)
        exec(write, {"torch": T, "e": e})
        return v
    same(fn, pedatorch, torch)


@pytest.mark.parametrize("use", ["(t * x).sum()", "t.requires_grad_()", "t._version", "x.mul(t)", "t.add_(1)"])
def test_inference_tensors_outside_inference_mode(use):
    def fn(T):
        with T.inference_mode():
            t = T.ones(2)
        x = T.ones(2, requires_grad=True)
        out = eval(use, {"t": t, "x": x})
        return out if isinstance(out, T.Tensor) else T.tensor(out)
    same(fn, pedatorch, torch)


def test_gradcheck_error_prints_jacobians_as_tensors():
    def fn(T):
        class Wrong(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.exp()

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * x
        return T.autograd.gradcheck(Wrong.apply, (T.tensor([0.5, 1.0], dtype=T.float64, requires_grad=True),))
    same(fn, pedatorch, torch)


def test_overflow_is_silent_as_in_pytorch():
    """numpy warns when a kernel overflows to inf; PyTorch does not. Silenced for pedatorch's code only."""
    import subprocess
    import sys
    code = ("import warnings, numpy as np, pedatorch as torch\n"
            "x = torch.tensor([1e30, 2.0])\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    x * 1e30; x @ x; torch.tensor([10.]) ** torch.tensor([100.]); torch.tensor([3e38, 3e38]).sum()\n"
            "assert not w, [str(m.message) for m in w]\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    np.float32(1e30) * np.float32(1e30)\n"
            "assert len(w) == 1   # a learner's own numpy code still warns\n")
    subprocess.run([sys.executable, "-c", code], check=True)
