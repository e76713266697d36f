"""binary_cross_entropy's gradient is its own op (BinaryCrossEntropyBackwardBackward0) with PyTorch's
single-term second-order formulas: an inf incoming gradient gives inf, not inf - inf = NaN."""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _run(lib, x, y, w, reduction, seed_grad):
    F = lib.nn.functional
    xt = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    yt = lib.tensor(y, dtype=lib.float64, requires_grad=True)
    wt = None if w is None else lib.tensor(w, dtype=lib.float64)
    loss = F.binary_cross_entropy(xt, yt, wt, reduction=reduction)
    (gx,) = lib.autograd.grad(loss, xt, lib.full_like(loss, seed_grad), create_graph=True)
    outs = lib.autograd.grad((gx * lib.tensor(np.linspace(-1, 2, x.size).reshape(x.shape))).sum(), [xt, yt],
                             allow_unused=True)
    return gx, outs


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed_grad", [1.0, float("inf")])
def test_second_order_matches_torch(reduction, weighted, seed_grad):
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0.05, 0.95, (2, 3)), rng.uniform(0, 1, (2, 3))
    w = rng.uniform(0.5, 2, (2, 3)) if weighted else None
    gx_p, outs_p = _run(pt, x, y, w, reduction, seed_grad)
    gx_t, outs_t = _run(torch, x, y, w, reduction, seed_grad)
    assert type(gx_p.grad_fn).__name__ == type(gx_t.grad_fn).__name__ == "BinaryCrossEntropyBackwardBackward0"
    np.testing.assert_allclose(gx_p.detach().numpy(), gx_t.detach().numpy(), rtol=1e-12)
    for a, b in zip(outs_p, outs_t):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_gradgradcheck():
    x = pt.tensor([[0.2, 0.7], [0.4, 0.9]], dtype=pt.float64, requires_grad=True)
    y = pt.tensor([[0.1, 0.8], [0.3, 0.6]], dtype=pt.float64, requires_grad=True)
    f = lambda a, b: pt.nn.functional.binary_cross_entropy(a, b)  # noqa: E731
    assert gradcheck(f, (x, y))
    assert gradgradcheck(f, (x, y))
