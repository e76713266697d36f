"""autograd.grad / backward front ends met by meta-learning code (tests/compat/61_meta_learning_maml.py):
is_grads_batched, a dict of inputs, materialize_grads under create_graph, and the order of the checks;
each compared with PyTorch."""
from collections import OrderedDict

import numpy as np
import pytest

import pedatorch as torch
from conftest import error_of

pt = pytest.importorskip("torch")

LIBS = [torch, pt]


def _np(t):
    return None if t is None else t.detach().numpy()


# ---------------------------------------------------------------- 1: is_grads_batched

def test_is_grads_batched_builds_a_jacobian_by_batched_vjps():
    """Each row of the batched grad_outputs is one vjp: seeded with an identity, the rows are the Jacobian
    (it used to pass the batched seed to one backward pass, which broadcast it or failed)."""
    def run(lib):
        a = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        b = lib.tensor([1.5, 0.3, -0.7], requires_grad=True)
        f = lib.tanh(a.unsqueeze(1) * b) @ lib.ones(3)
        jac, = lib.autograd.grad(f, a, grad_outputs=lib.eye(3), is_grads_batched=True)
        # two outputs, each with its own batched seed; an unused input
        y1, y2 = a.exp(), (a * b).sum()
        u = lib.zeros(2, requires_grad=True)
        g = lib.autograd.grad([y1, y2], [a, b, u], [lib.eye(3), lib.arange(3.0)], is_grads_batched=True,
                              allow_unused=True)
        m = lib.autograd.grad([a * 2], [a, u], [lib.ones(2, 3)], is_grads_batched=True, materialize_grads=True)
        return _np(jac), [_np(t) for t in g], [_np(t) for t in m]
    (j, g, m), (j_pt, g_pt, m_pt) = run(torch), run(pt)
    np.testing.assert_allclose(j, j_pt, rtol=1e-5)
    assert np.count_nonzero(j - np.diag(np.diag(j))) == 0
    for x, y in zip(g + m, g_pt + m_pt):
        assert (x is None) == (y is None)
        if x is not None:
            assert x.shape == y.shape
            np.testing.assert_allclose(x, y, rtol=1e-5)


def test_is_grads_batched_frees_the_graph_after_the_last_row_only():
    def run(lib):
        a = lib.tensor([0.2, 0.4], requires_grad=True)
        y = a.exp()
        lib.autograd.grad(y, a, lib.eye(2), is_grads_batched=True)
        freed = error_of(lambda: y.sum().backward())
        y = a.exp()
        lib.autograd.grad(y, a, lib.eye(2), is_grads_batched=True, retain_graph=True)
        y.sum().backward()
        return freed is not None, _np(a.grad)
    (freed, g), (freed_pt, g_pt) = run(torch), run(pt)
    assert freed and freed_pt
    np.testing.assert_allclose(g, g_pt, rtol=1e-6)


def test_is_grads_batched_with_create_graph_is_differentiable():
    """Rows of a Jacobian computed with create_graph differentiate further (a Hessian's diagonal here)."""
    def run(lib):
        a = lib.tensor([0.3, -0.8, 1.1], requires_grad=True)
        jac, = lib.autograd.grad(a.sin() * a, a, lib.eye(3), is_grads_batched=True, create_graph=True)
        second, = lib.autograd.grad(jac.diagonal().sum(), a)
        return jac.requires_grad, _np(jac), _np(second)
    r, r_pt = run(torch), run(pt)
    assert r[0] and r_pt[0]
    np.testing.assert_allclose(r[1], r_pt[1], rtol=1e-6)
    # (2 cos a - a sin a cancels at a = 1.1: one float32 ulp of cos, where PyTorch's is not the nearest, is 1e-6)
    np.testing.assert_allclose(r[2], r_pt[2], rtol=1e-5)


def test_is_grads_batched_gradcheck_and_gradgradcheck():
    """The batched-vjp Jacobian as a function of its input, checked numerically in float64."""
    w = torch.randn(3, 3, dtype=torch.float64)

    def jac_of(x):
        y = torch.tanh(w @ x)
        jac, = torch.autograd.grad(y, x, torch.eye(3, dtype=torch.float64), is_grads_batched=True,
                                   create_graph=True)
        return jac

    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(jac_of, (x,))
    assert torch.autograd.gradgradcheck(jac_of, (x,))


@pytest.mark.parametrize("case", ["shape", "batch_sizes", "scalar_seed", "empty_batch", "implicit_seed"])
def test_is_grads_batched_errors(case):
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        calls = {
            "shape": lambda: lib.autograd.grad((a * 2).sum(), a, lib.ones(2, 4, 1), is_grads_batched=True),
            "batch_sizes": lambda: lib.autograd.grad([a * 2, a * 3], a, [lib.ones(2, 3), lib.ones(3, 3)],
                                                     is_grads_batched=True),
            "scalar_seed": lambda: lib.autograd.grad(a * 2, a, lib.tensor(1.0), is_grads_batched=True),
            "empty_batch": lambda: lib.autograd.grad(a * 2, a, lib.ones(0, 3), is_grads_batched=True),
            "implicit_seed": lambda: lib.autograd.grad((a * 2).sum(), a, is_grads_batched=True),
        }
        return error_of(calls[case])
    assert run(torch) == run(pt)


# ---------------------------------------------------------------- 2: a dict of inputs

def test_grad_of_a_dict_of_inputs_is_a_dict():
    def run(lib):
        lin = lib.nn.Linear(2, 1)
        lib.nn.init.ones_(lin.weight)
        lib.nn.init.zeros_(lin.bias)
        extra = lib.ones(1, requires_grad=True)
        params = dict(lin.named_parameters())
        params["extra"] = extra
        loss = lin(lib.tensor([[1.0, 2.0]])).sum()
        g = lib.autograd.grad(loss, params, allow_unused=True, retain_graph=True)
        lib.autograd.backward(loss, inputs={"w": lin.weight})
        return ({k: _np(v) for k, v in g.items()}, _np(lin.weight.grad), lin.bias.grad,
                error_of(lambda: lib.autograd.grad(loss, OrderedDict(w=lin.weight))),
                error_of(lambda: lib.autograd.backward(loss, inputs=OrderedDict(w=lin.weight))))
    r, r_pt = run(torch), run(pt)
    assert list(r[0]) == list(r_pt[0]) == ["weight", "bias", "extra"]
    for k in r[0]:
        assert (r[0][k] is None) == (r_pt[0][k] is None)
        if r[0][k] is not None:
            np.testing.assert_allclose(r[0][k], r_pt[0][k])
    np.testing.assert_allclose(r[1], r_pt[1])
    assert r[2] is None and r_pt[2] is None
    assert r[3:] == r_pt[3:]


# ---------------------------------------------------------------- 3: materialize_grads

def test_materialized_zeros_require_grad_under_create_graph():
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        u = lib.ones(2, requires_grad=True)
        out = (a * a).sum()
        _, z = lib.autograd.grad(out, [a, u], materialize_grads=True, create_graph=True)
        _, z2 = lib.autograd.grad((a * a).sum(), [a, u], materialize_grads=True)
        return z.requires_grad, z2.requires_grad, _np(z)
    assert run(torch)[:2] == run(pt)[:2] == (True, False)


# ---------------------------------------------------------------- 4: which check speaks first

@pytest.mark.parametrize("case", ["grad_output_first", "grad_inputs_listed", "grad_non_scalar_first",
                                  "grad_non_tensor", "grad_non_tensor_after_outputs", "backward_input_no_grad",
                                  "backward_output_first", "backward_empty", "tensor_backward_empty",
                                  "backward_non_tensor"])
def test_order_of_the_checks_outputs_before_inputs(case):
    """PyTorch checks the outputs (implicit seeds, requires_grad) before the inputs; a non-tensor input is a
    RuntimeError; backward's inputs that don't require grad can't retain their grad."""
    def run(lib):
        a = lib.randn(3)
        b = lib.randn(3, requires_grad=True)
        calls = {
            "grad_output_first": lambda: lib.autograd.grad((a * 2).sum(), a),
            "grad_inputs_listed": lambda: lib.autograd.grad((a * 2).sum(), [b, a]),
            "grad_non_scalar_first": lambda: lib.autograd.grad(b * 2, a),
            "grad_non_tensor": lambda: lib.autograd.grad((b * 2).sum(), [b, 3]),
            "grad_non_tensor_after_outputs": lambda: lib.autograd.grad((a * 2).sum(), [b, 3]),
            "backward_input_no_grad": lambda: lib.autograd.backward((b * 2).sum(), inputs=[a]),
            "backward_output_first": lambda: lib.autograd.backward((a * 2).sum(), inputs=[a]),
            "backward_empty": lambda: lib.autograd.backward((b * 2).sum(), inputs=[]),
            "tensor_backward_empty": lambda: (b * 2).sum().backward(inputs=[]),
            "backward_non_tensor": lambda: lib.autograd.backward((b * 2).sum(), inputs=[b, 3]),
        }
        return error_of(calls[case])
    assert run(torch) == run(pt)
