"""Gradient fixes from fuzz round 3 (I1), each compared with PyTorch.

- mean's backward expands the gradient before dividing by n (PyTorch's mean_backward), and a 'mean' loss's
  1/numel is 0 for an empty loss: double backward through the incoming gradient of an empty mean is 0, not
  0 * inf = NaN (seed 1106763: mse_loss -> prelu).
- i1's derivative is 1/2 where |x| <= eps and at NaN (PyTorch's i1_backward), so i0's second derivative
  at NaN is finite (seed 1110172).
- addmm/addmv/baddbmm add beta * input to the float32 product of float16/bfloat16 and round once; addbmm
  rounds after each batch (seed 1102046, its addmm).
- group_norm's array backward uses ATen's a dY + b X + c form (seed 1102046).
- a convolution with no input channel records its zero gradients as one node whose double backward
  refuses a used bias gradient, as PyTorch's expand does (seed 1110346).
"""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _t(lib, arr, dtype, grad=False):
    t = lib.tensor(np.asarray(arr, dtype=np.float64), dtype=getattr(lib, dtype))
    return t.requires_grad_() if grad else t


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a.detach().double().tolist()), np.asarray(b.detach().double().tolist()))


# ---------------------------------------------------------------- empty means: double backward through grad

_LOSSES = {
    "mean": lambda F, x, y: x.mean(),
    "mean_dim": lambda F, x, y: x.unsqueeze(1).mean(0).sum(),
    "mse": lambda F, x, y: F.mse_loss(x, y),
    "l1": lambda F, x, y: F.l1_loss(x, y),
    "bce_logits": lambda F, x, y: F.binary_cross_entropy_with_logits(x, y),
    "soft_margin": lambda F, x, y: F.soft_margin_loss(x, y),
    "kl_div": lambda F, x, y: F.kl_div(x, y, reduction="mean"),
    "poisson_nll": lambda F, x, y: F.poisson_nll_loss(x, y),
    "huber": lambda F, x, y: F.huber_loss(x, y),
}


def _second_through_grad_output(lib, fn, n):
    x = _t(lib, np.full(n, 0.3), "float64", grad=True)
    y = _t(lib, np.full(n, 0.6), "float64")
    w = _t(lib, 1.5, "float64", grad=True)
    g, = lib.autograd.grad(fn(lib.nn.functional, x, y) * w, x, create_graph=True)
    return lib.autograd.grad(g.sum(), w, allow_unused=True)[0]


@pytest.mark.parametrize("name", sorted(_LOSSES))
@pytest.mark.parametrize("n", [0, 3])
def test_empty_mean_double_backward_through_grad(name, n):
    with np.errstate(all="ignore"):
        p = _second_through_grad_output(pedatorch, _LOSSES[name], n)
    t = _second_through_grad_output(torch, _LOSSES[name], n)
    np.testing.assert_allclose(p.item(), t.item(), rtol=1e-12)


def test_seed_1106763_prelu_after_empty_mse():
    def run(lib):
        F = lib.nn.functional
        x0 = _t(lib, np.zeros(0), "float32", grad=True)
        x1 = _t(lib, [-1.0], "float32", grad=True)
        y0 = F.mse_loss(_t(lib, np.zeros(0), "float32"), x0)
        y2 = F.prelu(-y0, x1)
        loss = (y0 * -0.23 + (-y0) * -0.57 + y2 * 1.58).sum()
        g0, g1 = lib.autograd.grad(loss, [x0, x1], create_graph=True)
        ((g0 * _t(lib, np.zeros(0), "float32")).sum() + (g1 * -1.23).sum()).backward()
        return x1.grad
    p, t = run(pedatorch), run(torch)
    _same(p, t)
    assert np.signbit(p.item()) == np.signbit(t.item())


def test_mean_gradgradcheck():
    x = pedatorch.randn(3, 4, dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(lambda a: a.mean(), (x,))
    assert gradgradcheck(lambda a: a.mean(1), (x,))


# ---------------------------------------------------------------- i1's derivative at |x| <= eps and NaN

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_i1_grad_tiny_and_nan(dtype):
    vals = [float("nan"), 1e-30, 0.0, -1e-17, 2.0, -3.5]
    out = []
    for lib in (pedatorch, torch):
        x = _t(lib, vals, dtype, grad=True)
        out.append(lib.autograd.grad(lib.special.i1(x).sum(), x)[0])
    np.testing.assert_allclose(np.asarray(out[0].tolist()), np.asarray(out[1].tolist()), rtol=1e-6)


def test_seed_1110172_i0_second_order_at_nan():
    res = []
    for lib in (pedatorch, torch):
        x = _t(lib, [[[-0.0], [-1.0], [0.5], [float("nan")]]], "float64", grad=True)
        g, = lib.autograd.grad((lib.i0(x) * _t(lib, [[[-1.61], [-0.87], [0.17], [0.74]]], "float64")).sum(), x,
                               create_graph=True)
        (g * _t(lib, [[[-0.88], [0.67], [1.11], [0.42]]], "float64")).sum().backward()
        res.append(x.grad)
    np.testing.assert_allclose(np.asarray(res[0].tolist()), np.asarray(res[1].tolist()), rtol=1e-12)


def test_i0_i1_gradgradcheck():
    x = pedatorch.tensor([-2.0, -0.3, 0.7, 3.0], dtype=pedatorch.float64, requires_grad=True)
    assert gradgradcheck(pedatorch.i0, (x,))
    assert gradgradcheck(pedatorch.special.i1, (x,))


# ---------------------------------------------------------------- add* kernels: half types rounded once

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 1.5), (1, 2), (0, 1)])
@pytest.mark.parametrize("op", ["addmm", "addmv", "baddbmm", "addbmm"])
def test_add_products_half_round_once(op, dtype, beta, alpha):
    rng = np.random.default_rng(0)
    shapes = {"addmm": [(20, 10), (20, 6), (6, 10)], "addmv": [(20,), (20, 6), (6,)],
              "baddbmm": [(3, 20, 10), (3, 20, 6), (3, 6, 10)], "addbmm": [(20, 10), (3, 20, 6), (3, 6, 10)]}[op]
    arrays = [rng.standard_normal(s) for s in shapes]
    p = getattr(pedatorch, op)(*[_t(pedatorch, a, dtype) for a in arrays], beta=beta, alpha=alpha)
    t = getattr(torch, op)(*[_t(torch, a, dtype) for a in arrays], beta=beta, alpha=alpha)
    _same(p, t)


# ---------------------------------------------------------------- group_norm's array backward

def _group_norm_grads(lib, create_graph):
    F = lib.nn.functional
    x0 = _t(lib, [[2.0390625, -0.712890625], [0.7919921875, 1.41015625], [1.2392578125, -0.78955078125],
                  [-1.4462890625, -0.51953125]], "float16", grad=True)
    x2 = _t(lib, [[1.6044921875], [0.08221435546875], [0.2166748046875], [1.4736328125]], "float16")
    x3 = _t(lib, [[0.61767578125, 2.2265625]], "float16")
    y2 = lib.addmm(x0, x2, x3)
    w = _t(lib, [[0.47, -2.32], [-0.35, 0.23], [-0.88, -0.41], [-0.63, -1.51]], "float16")
    loss = (F.group_norm(y2, 1) * w).sum() + (y2 * 0.5).sum()
    return lib.autograd.grad(loss, x0, create_graph=create_graph)[0]


@pytest.mark.parametrize("create_graph", [False, True])
def test_seed_1102046_group_norm_half(create_graph):
    _same(_group_norm_grads(pedatorch, create_graph), _group_norm_grads(torch, create_graph))


@pytest.mark.parametrize("affine", [False, True])
def test_group_norm_array_backward_float64(affine):
    rng = np.random.default_rng(1)
    x, gy = rng.standard_normal((3, 6, 5)), rng.standard_normal((3, 6, 5))
    w, b = rng.standard_normal(6), rng.standard_normal(6)
    res = []
    for lib in (pedatorch, torch):
        xt = _t(lib, x, "float64", grad=True)
        args = (_t(lib, w, "float64"), _t(lib, b, "float64")) if affine else ()
        (lib.nn.functional.group_norm(xt, 3, *args) * _t(lib, gy, "float64")).sum().backward()
        res.append(xt.grad)
    np.testing.assert_allclose(np.asarray(res[0].tolist()), np.asarray(res[1].tolist()), rtol=1e-10, atol=1e-12)
    xt = _t(pedatorch, x, "float64", grad=True)
    assert gradcheck(lambda a: pedatorch.nn.functional.group_norm(a, 3), (xt,))


# ---------------------------------------------------------------- convolution with no input channel

def _empty_conv(lib, use_bias_grad):
    F = lib.nn.functional
    w = lib.zeros((2, 0, 1))
    b = _t(lib, [0.5, 0.5], "float32", grad=True)
    x = lib.zeros((1, 0, 1)).requires_grad_()
    y = F.conv1d(x, w, b, stride=2)
    gb, gx = lib.autograd.grad(y.sum(), [b, x], create_graph=True)
    names = (type(gb.grad_fn).__name__, type(gx.grad_fn).__name__, gb.requires_grad)
    s = (gb * _t(lib, [1.67, -1.34], "float32")).sum() if use_bias_grad else gx.sum()
    try:
        s.backward(inputs=[x])
        err = None
    except RuntimeError as e:
        err = str(e)
    return names, err, None if x.grad is None else tuple(x.grad.shape)


@pytest.mark.parametrize("use_bias_grad", [True, False])
def test_seed_1110346_conv_no_input_channel_double_backward(use_bias_grad):
    assert _empty_conv(pedatorch, use_bias_grad) == _empty_conv(torch, use_bias_grad)
