"""Ops that PyTorch's CPU kernels compute as one fused multiply-add (see docs/architecture.md's differences
for add/sub with alpha, which stay two roundings for speed)."""
import numpy as np
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "complex64"])
@pytest.mark.parametrize("w", [0.1, 0.001, -0.3, 0.5, 0.9, 2.5, float("nan")])
def test_lerp_is_one_fused_multiply_add(dt, w):
    """lerp = fma(w, end - self, self) for |w| < 0.5, fma(w - 1, end - self, end) elsewhere, the weight in
    the compute dtype (float32 for float32 and the halfs): out of place, and in place (Adam's exp_avg
    update, the unrecorded path). A plain a + w * (b - a) was an ulp off in 10-50% of float32 results."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(4099), rng.standard_normal(4099)
    ours = [torch.tensor(v, dtype=getattr(torch, dt)) for v in (a, b)]
    theirs = [pt.tensor(v, dtype=getattr(pt, dt)) for v in (a, b)]
    got, want = torch.lerp(*ours, w), pt.lerp(*theirs, w)
    ours[0].lerp_(ours[1], w)
    theirs[0].lerp_(theirs[1], w)
    for g, t in ((got, want), (ours[0], theirs[0])):
        g, t = (g.numpy(), t.numpy()) if dt != "bfloat16" else (g.float().numpy(), t.float().numpy())
        np.testing.assert_array_equal(g, t)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_lerp_with_a_weight_tensor(dt):
    rng = np.random.default_rng(1)
    a, b, w = rng.standard_normal(3001), rng.standard_normal(3001), rng.standard_normal(3001)
    got = torch.lerp(*(torch.tensor(v, dtype=getattr(torch, dt)) for v in (a, b, w)))
    want = pt.lerp(*(pt.tensor(v, dtype=getattr(pt, dt)) for v in (a, b, w)))
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
    # a 0-dim weight of another dtype
    got = torch.lerp(torch.tensor(a, dtype=getattr(torch, dt)), torch.tensor(b, dtype=getattr(torch, dt)),
                     torch.tensor(0.3, dtype=torch.float64))
    want = pt.lerp(pt.tensor(a, dtype=getattr(pt, dt)), pt.tensor(b, dtype=getattr(pt, dt)),
                   pt.tensor(0.3, dtype=pt.float64))
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


def test_adam_moments_match_bit_for_bit():
    """With lerp and addcmul as PyTorch computes them, Adam's moment estimates after several steps are
    PyTorch's exactly. (The parameters follow up to sqrt, whose rounding in PyTorch depends on the CPU's
    SIMD kernel: see docs/architecture.md.)"""
    rng = np.random.default_rng(2)
    w0, g = rng.standard_normal((64, 33)).astype(np.float32), rng.standard_normal((5, 64, 33)).astype(np.float32)
    results = []
    for lib in (torch, pt):
        p = lib.nn.Parameter(lib.tensor(w0))
        opt = lib.optim.Adam([p], lr=0.01)
        for k in range(5):
            p.grad = lib.tensor(g[k] * (k + 1))
            opt.step()
        state = opt.state[p]
        results.append([state["exp_avg"].numpy().copy(), state["exp_avg_sq"].numpy().copy()])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


def test_lerp_gradients():
    x, y = (torch.randn(5, dtype=torch.float64, requires_grad=True) for _ in range(2))
    w = torch.rand(5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x, y: torch.lerp(x, y, 0.7), (x, y))
    assert torch.autograd.gradcheck(torch.lerp, (x, y, w))
    assert torch.autograd.gradgradcheck(torch.lerp, (x, y, w))
