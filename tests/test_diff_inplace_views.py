"""In-place writes through views: the other views' grad_fn/requires_grad, PyTorch's view-rebase errors.

Each case runs the same program on pedatorch and on PyTorch and compares what a learner sees:
grad_fn names, requires_grad, the exception's class and message, and gradients.
"""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck

torch = pytest.importorskip("torch")


def _observe(lib, program):
    """Run ``program(lib, P)``; P(t) records (grad_fn name, requires_grad), errors are recorded too."""
    seen = []

    def P(t):
        try:
            fn = t.grad_fn
            seen.append((fn.name() if fn is not None else None, t.requires_grad))
        except RuntimeError as e:
            seen.append(("RuntimeError", str(e)))

    try:
        program(lib, P)
    except RuntimeError as e:
        seen.append(("raised RuntimeError", str(e)))
    return seen


def _same(program):
    assert _observe(pedatorch, program) == _observe(torch, program)


def test_other_views_regenerate_after_setitem():
    def program(T, P):
        x = T.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
        y = x * 1
        a, b, c = y[0], y.t(), y.squeeze(0)
        y[1] = 5
        P(y), P(a), P(b), P(c)
        a.mul_(2)  # writing through a view rebases the base again
        P(y), P(a), P(b)
    _same(program)


def test_view_of_plain_base_requires_grad_after_write():
    def program(T, P):
        base = T.zeros(2, 1)
        view = base.swapaxes(1, 0)
        base[-3:, None, :] = T.ones(2, 1, 1, requires_grad=True)
        P(base), P(view)
        strided = T.zeros(2, dtype=T.float64)[::2]
        strided[0:1] = T.ones(1, requires_grad=True).double()
        P(strided)
    _same(program)


def test_view_made_under_no_grad_follows_base_requires_grad():
    def program(T, P):
        x = T.ones(3, requires_grad=True)
        with T.no_grad():
            v = x[1:]
        P(v)
        P(v * 2)
    _same(program)


@pytest.mark.parametrize("make", ["split", "unbind", "chunk"])
def test_multi_output_views_refuse_rebase(make):
    def program(T, P):
        y = T.ones(4, 2, requires_grad=True) * 1
        parts = {"split": lambda: y.split(2), "unbind": lambda: y.unbind(0), "chunk": lambda: y.chunk(2)}[make]()
        P(parts[0])
        y.add_(1)  # indirect: the parts are stale now
        P(parts[0]), P(parts[1])
        y2 = T.ones(4, 2, requires_grad=True) * 1
        parts2 = y2.split(2)
        parts2[0].add_(1)  # direct
    _same(program)


def test_no_grad_view_refuses_rebase():
    def program(T, P):
        y = T.ones(3, requires_grad=True) * 1
        with T.no_grad():
            v = y[1:]
        y.add_(1)
        P(v)
        y2 = T.ones(3, requires_grad=True) * 1
        with T.no_grad():
            v2 = y2[1:]
        v2.mul_(2)
    _same(program)


def test_multi_output_view_of_plain_tensor_written_with_grad():
    def program(T, P):
        z = T.zeros(4)
        a, b = z.split(2)
        a.copy_(T.ones(2, requires_grad=True))
    _same(program)


def test_int_views_and_detached_views_stay_plain():
    def program(T, P):
        zi = T.zeros(3, dtype=T.int64)
        ziv = zi[1:]
        zi.add_(1)
        P(ziv)
        y = T.ones(3, requires_grad=True) * 1
        dv = y.detach()[1:]
        y.add_(1)
        P(dv)
    _same(program)


def test_retain_grad_moves_to_regenerated_node():
    results = []
    for T in (pedatorch, torch):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        v = y[:2]
        v.retain_grad()
        y[2] = 0
        (v.sum() * 3).backward()
        results.append((v.retains_grad, v.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_gradients_through_regenerated_view():
    def f(T, x, w):
        y = x * 1
        v = y.t()
        y[1] = w  # v is stale: its gradient must flow through the CopySlices of y
        return (v * T.arange(6.0, dtype=x.dtype).reshape(3, 2)).sum()

    xs = np.arange(6.0).reshape(2, 3)
    ws = np.array([0.5, -1.0, 2.0])
    grads = []
    for T in (pedatorch, torch):
        x = T.tensor(xs, requires_grad=True)
        w = T.tensor(ws, requires_grad=True)
        f(T, x, w).backward()
        grads.append((x.grad.numpy().copy(), w.grad.numpy().copy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1])
    x = pedatorch.tensor(xs, requires_grad=True)
    w = pedatorch.tensor(ws, requires_grad=True)
    assert gradcheck(lambda a, b: f(pedatorch, a, b), (x, w))


@pytest.mark.parametrize("op", ["sqrt_", "copy_", "iadd"])
def test_inplace_after_erfinv_needs_no_saved_result(op):
    # erfinv saves its input (derivatives.yaml), so writing its result in place is allowed
    results = []
    for T in (pedatorch, torch):
        x = T.tensor([0.1, 0.4], dtype=T.float64, requires_grad=True)
        y = x.erfinv()
        if op == "sqrt_":
            y.sqrt_()
        elif op == "copy_":
            y.copy_(T.tensor(0.25, dtype=T.float64))
        else:
            y += x
        y.sum().backward()
        results.append(x.grad.tolist())
    np.testing.assert_allclose(results[0], results[1])


@pytest.mark.parametrize("op", ["relu_", "sigmoid_", "sqrt_", "exp_", "tanh_"])
@pytest.mark.parametrize("make_view", [lambda b: b[:], lambda b: b.unsqueeze(0).squeeze(0), lambda b: b.view(2)],
                         ids=["slice", "unsqueeze_squeeze", "view"])
def test_inplace_op_on_a_view_differentiates_through_the_op(op, make_view):
    """The op's node saved its own output; reading it must not refresh the view before the rebase."""
    grads = []
    for lib in (pedatorch, torch):
        x = lib.tensor([0.3, 0.8], dtype=lib.float64, requires_grad=True)
        y = make_view(x * 1)
        getattr(y, op)()
        grads.append(lib.autograd.grad((y * lib.tensor([1.5, -2.0], dtype=lib.float64)).sum(), x)[0])
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy(), rtol=1e-12, atol=0)
