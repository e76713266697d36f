"""First- and second-order gradients of pooling, pow, norm and activations, compared with PyTorch: the
zero gradient PyTorch's backward ops send into their input (``self: zeros_like(self)``), which turns
into NaN through a node that is inf or NaN there; pow with a bool exponent; norm's recorded sgn(x)."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _np(t):
    return None if t is None else (t.detach() + 0).double().numpy()   # (+ 0: PyTorch's zero tensors)


def _run(lib, program):
    """program(lib) -> (outputs, leaves): the first-order gradients (create_graph), whether they require
    grad, and the second-order gradients (of the first ones weighted 1.1, 0.6, ...)."""
    outs, leaves = program(lib)
    loss = sum((o * lib.linspace(-1.3, 0.9, o.numel(), dtype=o.dtype).reshape(o.shape)).sum() for o in outs)
    grads = lib.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    needs = [g is not None and g.requires_grad for g in grads]
    s = sum((g * (1.1 - 0.5 * i)).sum() for i, g in enumerate(grads) if g is not None and g.requires_grad)
    second = [None] * len(leaves) if isinstance(s, int) else lib.autograd.grad(s, leaves, allow_unused=True)
    return [_np(g) for g in grads], needs, [_np(g) for g in second]


def _same(program, rtol=1e-6, atol=1e-6):
    (g1, n1, s1), (g2, n2, s2) = _run(pedatorch, program), _run(torch, program)
    assert n1 == n2, "requires_grad of the gradients"
    for i, (a, b) in enumerate(zip(g1 + s1, g2 + s2)):
        assert (a is None) == (b is None), i
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=f"gradient {i}")


# ---------------------------------------------------------------- pooling: zeros_like(self) in double backward

def test_max_pool1d_double_backward_sends_zero_into_input_fuzz_709822():
    # entr at -0.5 has a NaN derivative: PyTorch's zero gradient for the pooled input makes it NaN there
    def prog(T):
        x = T.tensor([[[1.5, 1.5, -0.5]]], dtype=T.bfloat16).requires_grad_()
        y = T.special.entr(x)
        return [y, T.nn.functional.max_pool1d(y, 2)], [x]
    _same(prog, rtol=1e-2)


def test_max_pool1d_double_backward_zero_times_inf_fuzz_713610():
    def prog(T):
        x = T.tensor([[[0.0, 0.0]]], dtype=T.float32).requires_grad_()
        y = T.special.entr(x)
        return [y, T.nn.functional.max_pool1d(y, 2)], [x]
    _same(prog)


_POOLS = {
    "max_pool1d": lambda F, t: F.max_pool1d(t[:, :, 0, 0], 2),
    "max_pool1d_overlap": lambda F, t: F.max_pool1d(t[:, :, 0, 0], 3, 1, 1),
    "max_pool2d": lambda F, t: F.max_pool2d(t[:, :, 0], 2),
    "max_pool3d": lambda F, t: F.max_pool3d(t, 2),
    "adaptive_max_pool2d": lambda F, t: F.adaptive_max_pool2d(t[:, :, 0], 3),
    "adaptive_max_pool3d": lambda F, t: F.adaptive_max_pool3d(t, 3),
    "avg_pool1d": lambda F, t: F.avg_pool1d(t[:, :, 0, 0], 2),
    "avg_pool2d": lambda F, t: F.avg_pool2d(t[:, :, 0], 2, padding=1),
    "avg_pool3d": lambda F, t: F.avg_pool3d(t, 2),
    "adaptive_avg_pool2d": lambda F, t: F.adaptive_avg_pool2d(t[:, :, 0], 3),
    "adaptive_avg_pool3d": lambda F, t: F.adaptive_avg_pool3d(t, 3),
    "lp_pool2d": lambda F, t: F.lp_pool2d(t[:, :, 0], 2, 2),
    "max_unpool2d": lambda F, t: F.max_unpool2d(*F.max_pool2d(t[:, :, 0], 2, return_indices=True), 2),
}


def _pool_input():
    a = np.random.default_rng(0).standard_normal((2, 2, 4, 4, 4))
    a.flat[[0, 5, 9, 17, 33]] = [0.0, -0.5, np.nan, 0.0, -1.0]   # entr: inf, NaN derivatives
    return a


@pytest.mark.parametrize("name", sorted(_POOLS))
@pytest.mark.parametrize("chain", ["leaf", "entr"])
def test_pool_gradients_match_torch(name, chain):
    a = _pool_input()

    def prog(T):
        x = T.tensor(a, dtype=T.float64).requires_grad_()
        y = T.special.entr(x) + x if chain == "entr" else x
        return [_POOLS[name](T.nn.functional, y)], [x]
    _same(prog)


@pytest.mark.parametrize("name, node", [
    ("max_pool2d", "MaxPool2DWithIndicesBackwardBackward0"),
    ("max_pool3d", "MaxPool3DWithIndicesBackwardBackward0"),
    ("adaptive_max_pool2d", "AdaptiveMaxPool2DBackwardBackward0"),
    ("adaptive_max_pool3d", "AdaptiveMaxPool3DBackwardBackward0"),
    ("avg_pool2d", "AvgPool2DBackwardBackward0"),
    ("avg_pool3d", "AvgPool3DBackwardBackward0"),
    ("adaptive_avg_pool2d", "AdaptiveAvgPool2DBackwardBackward0"),
    ("adaptive_avg_pool3d", "AdaptiveAvgPool3DBackwardBackward0"),
])
def test_pool_backward_node_takes_the_input(name, node):
    # with a constant incoming gradient the gradient still requires grad: the node's second input is x
    for T in (pedatorch, torch):
        x = T.tensor(_pool_input() if name.endswith("3d") else _pool_input()[:, :, 0], requires_grad=True)
        y = x * 1
        o = getattr(T.nn.functional, name)(y, 2)
        g, = T.autograd.grad(o.sum(), y, create_graph=True)
        assert g.requires_grad
        assert type(g.grad_fn).__name__ == node
        assert [type(f).__name__ if f else None for f, _ in g.grad_fn.next_functions] == [None, "MulBackward0"]


@pytest.mark.parametrize("name", ["max_pool2d", "adaptive_max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"])
def test_pool_saves_its_input_for_backward(name):
    # PyTorch's pooling backward saves self: an in-place write to the input before backward is an error
    msgs = []
    for T in (pedatorch, torch):
        x = T.tensor(_pool_input()[:, :, 0], dtype=T.float32, requires_grad=True)
        y = x * 1
        o = _POOLS[name](T.nn.functional, y.unsqueeze(2))
        y.add_(1)
        with pytest.raises(RuntimeError) as e:
            o.sum().backward()
        msgs.append(str(e.value).split(" is at version")[0])
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("pool", [
    lambda F, t: F.max_pool2d(t, 2),
    lambda F, t: F.max_pool1d(t[0], 3, 1, 1),
    lambda F, t: F.adaptive_max_pool2d(t, 3),
    lambda F, t: F.avg_pool2d(t, 2, padding=1),
    lambda F, t: F.adaptive_avg_pool2d(t, 3),
])
def test_pool_gradgradcheck(pool):
    x = pedatorch.tensor(np.random.default_rng(1).permutation(64).reshape(1, 4, 4, 4) / 7.0,
                         dtype=pedatorch.float64, requires_grad=True)   # distinct values: no ties
    f = lambda t: pool(pedatorch.nn.functional, t)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


# ---------------------------------------------------------------- pow with a bool exponent

def test_pow_bool_false_exponent_takes_general_formula_fuzz_712164():
    # PyTorch's Scalar.equal(0.0) is false for False: grad * (0 * x ** -1), NaN at x = 0, with a graph
    def prog(T):
        x = T.tensor([[[[-0.5, -1.0]], [[2.0, 0.5]], [[0.5, 0.0]]]], dtype=T.float32).requires_grad_()
        return [T.pow(x, False)], [x]
    _same(prog)


@pytest.mark.parametrize("p", [False, True, 0, 0.0, 1, 2, -1, 0.5])
def test_pow_scalar_exponent_gradients(p):
    def prog(T):
        x = T.tensor([-2.0, -0.5, -0.0, 0.0, 0.5, 3.0, float("inf"), float("nan")],
                     dtype=T.float64).requires_grad_()
        return [x ** p], [x]
    _same(prog)


# ---------------------------------------------------------------- norm: sgn(x) recorded

@pytest.mark.parametrize("p", [1, 2, 3, 0.5, 1.5, float("inf"), float("-inf")])
@pytest.mark.parametrize("chain", ["leaf", "entr"])
def test_vector_norm_gradients(p, chain):
    # p = 1 (and the others using sgn(x)): the gradient requires grad, as PyTorch's (its second order: 0)
    def prog(T):
        x = T.tensor([[-2.0, -0.5, -0.0, 0.0], [0.5, 2.0, -2.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                     dtype=T.float64).requires_grad_()
        y = T.special.entr(x) if chain == "entr" else x
        return [T.linalg.vector_norm(y, p, dim=1)], [x]
    _same(prog)


def test_norm_p1_gradient_requires_grad():
    for T in (pedatorch, torch):
        x = T.tensor([1.0, -2.0, 0.0], requires_grad=True)
        g, = T.autograd.grad(T.norm(x, p=1), x, create_graph=True)
        assert g.requires_grad
        g2, = T.autograd.grad(g.sum(), x)
        assert (g2 + 0).tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- rrelu, hardsigmoid

@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
@pytest.mark.parametrize("inplace", [False, True])
def test_rrelu_eval_double_backward(dtype, inplace):
    # PyTorch's rrelu_with_noise_backward: a node of (grad, self), self's gradient zeros_like(grad)
    def prog(T):
        x = T.tensor([-1.0, 2.0, float("nan"), 0.0, -0.5, float("-inf")], dtype=getattr(T, dtype))
        x.requires_grad_()
        y = T.special.entr(x) if not inplace else x * 1
        return [T.nn.functional.rrelu(y, training=False, inplace=inplace)], [x]
    _same(prog, rtol=1e-2 if dtype == "bfloat16" else 1e-6)


def test_rrelu_training_double_backward_is_a_node_of_x():
    for T in (pedatorch, torch):
        T.manual_seed(0)
        x = T.tensor([-1.0, 2.0, 0.0, 0.5], dtype=T.float64, requires_grad=True)
        y = T.special.entr(x)
        g, = T.autograd.grad(T.nn.functional.rrelu(y, training=True).sum(), x, create_graph=True)
        g2, = T.autograd.grad(g.sum(), x)
        assert np.isnan(_np(g2)[2])   # 0 * entr's inf derivative at x = 0


def test_rrelu_training_half_is_not_implemented_on_cpu():
    x = pedatorch.tensor([-1.0, 2.0], dtype=pedatorch.float16)
    with pytest.raises(NotImplementedError, match="\"rrelu_with_noise_out_cpu\" not implemented for 'Half'"):
        pedatorch.nn.functional.rrelu(x, training=True)
    with pytest.raises(NotImplementedError):
        torch.nn.functional.rrelu(torch.tensor([-1.0, 2.0], dtype=torch.float16), training=True)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_hardsigmoid_gradient_and_no_double_backward(dtype):
    vals = [-4, -3, -2.9, -1, -0.0, 0, 0.3, 1.7, 2.99, 3, 5, float("nan"), float("inf"), float("-inf")]
    res = []
    for T in (pedatorch, torch):
        x = T.tensor(vals, dtype=getattr(T, dtype), requires_grad=True)
        w = T.linspace(-3, 7, len(vals), dtype=x.dtype)
        g, = T.autograd.grad((T.nn.functional.hardsigmoid(x) * w).sum(), x, create_graph=True)
        assert g.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
            g.sum().backward()
        res.append(_np(g))
    np.testing.assert_array_equal(res[0], res[1])


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_adaptive_avg_pool_nan_stays_in_its_windows(dtype):
    # the averaging is a product with 0/1-over-size matrices: 0 * NaN must not reach the other windows
    a = np.random.default_rng(2).standard_normal((2, 3, 7, 9))
    a.flat[[0, 40]] = [np.nan, np.inf]
    res = []
    for T in (pedatorch, torch):
        x = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        o = T.nn.functional.adaptive_avg_pool2d(x, (3, 4))
        g, = T.autograd.grad(o.sum(), x)
        res.append((_np(o), _np(g)))
    tol = {"float64": 1e-12, "float32": 1e-5, "float16": 1e-2, "bfloat16": 2e-2}[dtype]
    for p, t in zip(*res):
        np.testing.assert_allclose(p, t, rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------- gelu: PyTorch's gelu_double_backward

@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gelu_double_backward_through_inf(approximate, dtype):
    # entr's gradient at +-0 is inf: PyTorch's gg * grad * gelu''(x) keeps it inf at -0 (NaN at +0 where
    # entr's own second derivative is -inf); differentiating the composite first-order formula gave NaN
    def prog(T):
        x = T.tensor([-2.0, -0.5, -0.0, 0.0, 0.5, 1.0, 7.0, float("inf"), float("nan")],
                     dtype=getattr(T, dtype)).requires_grad_()
        return [T.nn.functional.gelu(T.special.entr(x) + x, approximate=approximate)], [x]
    _same(prog, rtol=1e-5 if dtype == "float32" else 1e-9, atol=1e-6)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradient_node_and_gradgradcheck(approximate):
    for T in (pedatorch, torch):
        x = T.tensor([-1.0, 0.3, 2.0], dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(T.nn.functional.gelu(x, approximate=approximate).sum(), x, create_graph=True)
        assert type(g.grad_fn).__name__ == "GeluBackwardBackward0"
    x = pedatorch.tensor([-2.5, -1.0, -0.2, 0.3, 1.1, 2.0], dtype=pedatorch.float64, requires_grad=True)
    f = lambda t: pedatorch.nn.functional.gelu(t, approximate=approximate)   # noqa: E731
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_half_gradients_round_once(approximate):
    # ATen's gelu_backward computes in float32 and rounds once
    a = np.linspace(-4, 4, 41)
    res = []
    for T in (pedatorch, torch):
        x = T.tensor(a, dtype=T.float16, requires_grad=True)
        w = T.tensor(np.linspace(-1, 2, 41), dtype=T.float16)
        g, = T.autograd.grad((T.nn.functional.gelu(x, approximate=approximate) * w).sum(), x)
        res.append(_np(g))
    np.testing.assert_allclose(res[0], res[1], rtol=2e-3, atol=1e-4)
