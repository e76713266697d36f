"""Fuzzer round 5 (compared with PyTorch, and gradients with finite differences): cross_entropy of a 1-D
input looks at the target's dtype before its size; mse_loss's and glu's backward are single nodes as
PyTorch's (MseLossBackwardBackward0, GluBackwardBackward0), so an efficient-zero gradient reaching them
is plain zeros (0 * inf is NaN there, as in PyTorch), and their double backward is PyTorch's formula."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from torch_compare import same  # noqa: E402

F = pedatorch.nn.functional


@pytest.mark.parametrize("target", [[0.3, 0.7], [0, 0], [0]])
def test_cross_entropy_1d_error_order(target):
    def fn(T):
        t = T.tensor(target)
        return T.nn.functional.cross_entropy(T.tensor([0.5]), t if t.is_floating_point() else t.long())
    same(fn, pedatorch, torch)


def _mse_abs(T, reduction):
    """mse_loss, made non-negative in place: the gradient reaching MseLossBackward0 through abs's
    double backward is an efficient zero, and (x - y) is inf."""
    x0 = T.tensor([1.0, 2.0, -0.5], dtype=T.float64, requires_grad=True)
    x1 = T.tensor([0.5, float("-inf"), 1.0], dtype=T.float64)
    y0 = T.nn.functional.mse_loss(x0, x1, reduction=reduction)
    y0.abs_()
    g, = T.autograd.grad((y0 * 0.3).sum(), x0, create_graph=True)
    assert type(g.grad_fn).__name__ == "MseLossBackwardBackward0"
    (g * T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).sum().backward()
    return x0.grad


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_mse_loss_double_backward_nan_as_pytorch(reduction):
    same(lambda T: _mse_abs(T, reduction), pedatorch, torch)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_mse_loss_gradgradcheck(reduction):
    x = pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True)
    y = pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True)
    f = lambda a, b: F.mse_loss(a, b, reduction=reduction)  # noqa: E731
    assert gradcheck(f, (x, y)) and gradgradcheck(f, (x, y))

    def third(a, b):   # the double backward's own backward (MseLossBackwardBackward0 of the grad)
        ga, gb = pedatorch.autograd.grad(f(a, b).sum(), (a, b), create_graph=True)
        return (ga * ga).sum() + (gb * a).sum()
    assert gradgradcheck(third, (x, y))


def _glu2(T, values, dtype):
    x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)
    y = T.nn.functional.glu(x, -1)
    g, = T.autograd.grad((y * -1.09).sum(), x, create_graph=True)
    assert type(g.grad_fn).__name__ == "GluBackwardBackward0"
    (g * T.tensor([0.99, -1.91], dtype=x.dtype)).sum().backward()
    return x.grad


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("values", [[float("-inf"), -0.06103515625], [0.5, -1.5], [2.0, float("inf")]])
def test_glu_double_backward_as_pytorch(values, dtype):
    got = _glu2(pedatorch, values, dtype).double().numpy()
    want = _glu2(torch, values, dtype).double().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-2 if dtype == "bfloat16" else 1e-6)


@pytest.mark.parametrize("dim", [0, -1])
def test_glu_gradgradcheck(dim):
    x = pedatorch.randn(4, 6, dtype=pedatorch.float64, requires_grad=True)
    f = lambda a: F.glu(a, dim)  # noqa: E731
    assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))

    def third(a):
        g, = pedatorch.autograd.grad((F.glu(a, dim) ** 2).sum(), a, create_graph=True)
        return (g * g).sum()
    assert gradgradcheck(third, (x,))
