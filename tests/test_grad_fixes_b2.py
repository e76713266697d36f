"""Values and gradients compared with PyTorch where rounding decides the answer: a convolution and its bias
summed before one rounding (float16/bfloat16), batch norm's statistics (summed in memory order; rounded to
the half type), and the order in which a backward formula computes its inputs' gradients (with
create_graph it numbers the new nodes, which orders the rounded sums of a double backward)."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def _np(t):
    return None if t is None else (t.detach() + 0).double().numpy()


def _second_order(lib, program, dtype):
    """program(lib, dtype) -> (outputs, leaves): first-order gradients (create_graph) of the outputs
    weighted by a fixed ramp, then the second-order gradients of those weighted likewise."""
    outs, leaves = program(lib, getattr(lib, dtype))
    loss = sum((o * lib.tensor(np.linspace(-1.3, 0.9, o.numel()).reshape(tuple(o.shape)), dtype=o.dtype)).sum()
               for o in outs)
    grads = lib.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
    s = sum((g * lib.tensor(np.linspace(0.7, -1.1, g.numel()).reshape(tuple(g.shape)), dtype=g.dtype)).sum()
            for g in grads if g is not None and g.requires_grad)
    second = lib.autograd.grad(s, leaves, allow_unused=True)
    return [_np(g) for g in grads], [_np(g) for g in second]


def _same_second_order(program, dtype):
    mine, theirs = _second_order(pedatorch, program, dtype), _second_order(torch, program, dtype)
    for a, b in zip(mine[0] + mine[1], theirs[0] + theirs[1]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------- convolution: one rounding with the bias

def _rounded_once(ours, theirs, dtype, exact):
    """pedatorch rounds the float64 result of the same half-precision inputs once; PyTorch agrees to a few
    roundings: which CPU kernel it picks decides. oneDNN (CPUs with AVX-512 half support) rounds once too;
    the portable transposed convolution rounds each column to the half type and adds the overlapping
    columns in it, so an output element of two overlapping taps is rounded up to three times."""
    want = exact(torch).to(getattr(torch, dtype)).double().numpy()
    np.testing.assert_array_equal(ours, want)
    eps = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[dtype]
    np.testing.assert_allclose(theirs, ours, rtol=2 * eps, atol=2 * eps * np.abs(ours).max())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("bias", [False, True])
def test_half_convolution_rounds_once_with_its_bias_fuzz_719644(dtype, transposed, bias):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5))
    w = rng.standard_normal((3, 4, 3) if transposed else (4, 3, 3))
    b = rng.standard_normal(4) * 3
    outs = []
    for lib in (pedatorch, torch):
        d = getattr(lib, dtype)
        f = lib.nn.functional.conv_transpose1d if transposed else lib.nn.functional.conv1d
        outs.append(_np(f(lib.tensor(x, dtype=d), lib.tensor(w, dtype=d), lib.tensor(b, dtype=d) if bias else None,
                          stride=2 if transposed else 1)))
    _rounded_once(*outs, dtype, lambda T: (T.nn.functional.conv_transpose1d if transposed else T.nn.functional.conv1d)(
        *(T.tensor(a, dtype=getattr(T, dtype)).double() for a in (x, w)),
        T.tensor(b, dtype=getattr(T, dtype)).double() if bias else None, stride=2 if transposed else 1))


def test_bfloat16_conv1d_then_reciprocal_fuzz_719644():
    outs = []
    for lib in (pedatorch, torch):
        x = lib.tensor([[[0.53125, 1.0390625, -0.04150390625]]], dtype=lib.bfloat16)
        w = lib.tensor([[[-1.0, 0.5]], [[-2.0, -2.0]]], dtype=lib.bfloat16)
        b = lib.tensor([0.0, 2.0], dtype=lib.bfloat16)
        outs.append(_np(lib.nn.functional.conv1d(x, w, b).reciprocal()))   # 1 / 0.0048828125 = 204.8
    np.testing.assert_array_equal(*outs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_convolution_input_gradient_rounds_once(dtype):
    rng = np.random.default_rng(1)
    x, w, g = rng.standard_normal((2, 3, 6)), rng.standard_normal((4, 3, 3)), rng.standard_normal((2, 4, 4))
    grads = []
    for lib in (pedatorch, torch):
        d = getattr(lib, dtype)
        xt = lib.tensor(x, dtype=d).requires_grad_()
        y = lib.nn.functional.conv1d(xt, lib.tensor(w, dtype=d))
        grads.append(_np(lib.autograd.grad(y, xt, lib.tensor(g, dtype=d))[0]))

    def exact(T):   # the input gradient is the transposed convolution of the output gradient
        g64, w64 = (T.tensor(a, dtype=getattr(T, dtype)).double() for a in (g, w))
        return T.nn.functional.conv_transpose1d(g64, w64)
    _rounded_once(*grads, dtype, exact)


def test_convolution_gradients_check():
    x = pedatorch.tensor(np.random.default_rng(2).standard_normal((1, 2, 5)), dtype=pedatorch.float64,
                         requires_grad=True)
    w = pedatorch.tensor(np.random.default_rng(3).standard_normal((3, 2, 2)), dtype=pedatorch.float64,
                         requires_grad=True)
    b = pedatorch.tensor([0.1, -0.2, 0.3], dtype=pedatorch.float64, requires_grad=True)
    for f in (pedatorch.nn.functional.conv1d,
              lambda x, w, b: pedatorch.nn.functional.conv_transpose1d(x, w.transpose(0, 1), b, stride=2)):
        assert gradcheck(f, (x, w, b))
        assert gradgradcheck(f, (x, w, b))


# ---------------------------------------------------------------- batch norm's statistics

@pytest.mark.parametrize("n", [2, 3, 7, 100])
def test_float64_constant_channel_mean_is_a_sequential_sum_fuzz_700026(n):
    """ATen's contiguous kernel sums a channel element after element: for 3 copies of this value the mean
    is an ulp off, and the normalized constant channel is -2.4e-14 (sqrt_ gives NaN), not +4.5e-15."""
    outs = []
    for lib in (pedatorch, torch):
        x = lib.full((1, 1, n), 0.4777436900941404, dtype=lib.float64)
        y = lib.nn.functional.instance_norm(x)
        outs.append((_np(y), _np(y.clone().sqrt_())))
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_float32_and_float64_batch_norm_means_match_torch():
    rng = np.random.default_rng(4)
    for dtype in ("float32", "float64"):
        for _ in range(20):
            x = rng.standard_normal((3, 4, 5)) * np.exp(rng.standard_normal() * 3) + rng.standard_normal() * 10
            x[:, 0] = x[0, 0, 0]   # a constant channel: its sign is the mean's rounding
            outs = [_np(lib.nn.functional.batch_norm(lib.tensor(x, dtype=getattr(lib, dtype)), None, None,
                                                     training=True)) for lib in (pedatorch, torch)]
            np.testing.assert_array_equal(np.signbit(outs[0][:, 0]), np.signbit(outs[1][:, 0]))
            np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("affine", ["none", "half", "float32"])
def test_float16_batch_norm_normalizes_with_rounded_statistics(affine):
    """PyTorch keeps float16 batch statistics in float16 (float32 with float32 parameters) and
    normalizes with those."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        x, w, b = rng.standard_normal((3, 2, 4)) * 2 + 0.3, rng.standard_normal(2), rng.standard_normal(2)
        outs = []
        for lib in (pedatorch, torch):
            pd = {"half": lib.float16, "float32": lib.float32}.get(affine)
            params = {} if pd is None else dict(weight=lib.tensor(w, dtype=pd), bias=lib.tensor(b, dtype=pd))
            outs.append(_np(lib.nn.functional.batch_norm(lib.tensor(x, dtype=lib.float16), None, None,
                                                         training=True, **params)))
        np.testing.assert_array_equal(*outs)


def test_float16_batch_norm_then_std_mean_second_order_fuzz_713522():
    def program(lib, dt):
        w = lib.tensor([-2.0, -2.5], dtype=dt)
        b = lib.tensor([0.0, 0.5], dtype=dt).requires_grad_()
        x = lib.tensor([[-0.0517578125, -0.0517578125], [0.166015625, 0.166015625],
                        [0.492919921875, 0.492919921875]], dtype=dt)
        y = lib.nn.functional.batch_norm(x, None, None, w, b, training=True)
        s, m = lib.std_mean(y, dim=-1)
        return [y, s, m], [b]
    _same_second_order(program, "float16")


# ---------------------------------------------------------------- which input's gradient is computed first

_BINARY = {
    "div": lambda lib, a, b: a / b,
    "mul": lambda lib, a, b: a * b,
    "pow": lambda lib, a, b: a ** b,
    "float_power": lambda lib, a, b: lib.float_power(a, b),
    "hypot": lambda lib, a, b: lib.hypot(a, b),
    "xlogy": lambda lib, a, b: lib.xlogy(a, b),
    "logaddexp": lambda lib, a, b: lib.logaddexp(a, b),
    "logaddexp2": lambda lib, a, b: lib.logaddexp2(a, b),
    "ldexp": lambda lib, a, b: lib.ldexp(a, b),
    "dist": lambda lib, a, b: lib.dist(a, b),
}


@pytest.mark.parametrize("name", sorted(_BINARY))
def test_backward_computes_the_second_inputs_gradient_first(name):
    """With create_graph, PyTorch's generated backward of these ops builds the second input's gradient
    first: its nodes are numbered first, and the double backward runs (and sums) in that order."""
    order = []
    for lib in (pedatorch, torch):
        a = lib.tensor([[1.5, 0.7, 0.4]], requires_grad=True)
        b = lib.tensor([[0.5, 2.0, 0.9]], requires_grad=True)
        ga, gb = lib.autograd.grad(_BINARY[name](lib, a, b).sum(), (a, b), create_graph=True)
        order.append(ga.grad_fn._sequence_nr() < gb.grad_fn._sequence_nr())
    assert order[0] == order[1]


@pytest.mark.parametrize("name", sorted(_BINARY))
def test_binary_gradients_check(name):
    rng = np.random.default_rng(6)
    a = pedatorch.tensor(rng.uniform(0.5, 1.5, (2, 3)), dtype=pedatorch.float64, requires_grad=True)
    b = pedatorch.tensor(rng.uniform(0.5, 1.5, (2, 3)), dtype=pedatorch.float64, requires_grad=True)
    f = lambda a, b: _BINARY[name](pedatorch, a, b)   # noqa: E731
    assert gradcheck(f, (a, b))
    assert gradgradcheck(f, (a, b))


def test_float16_abs_div_second_order_fuzz_710703():
    def program(lib, dt):
        x = lib.tensor([[[1.34375, -0.348388671875], [-0.6806640625, 0.97412109375],
                         [0.19677734375, -0.1212158203125]]], dtype=dt).requires_grad_()
        y = lib.abs(x)
        return [y, y.div(x)], [x]
    _same_second_order(program, "float16")


def test_bfloat16_cosine_similarity_second_order_fuzz_809684():
    def program(lib, dt):
        x0 = lib.tensor([[[0.5]]], dtype=dt)
        x1 = lib.tensor([[[-1.7890625, -1.25, 0.02734375], [-0.7109375, -1.5625, -0.119140625]]],
                        dtype=dt).requires_grad_()
        return [lib.nn.functional.cosine_similarity(x0, x1, dim=0)], [x1]
    _same_second_order(program, "bfloat16")


def test_float64_sigmoid_then_instance_norm_fuzz_700026():
    """sigmoid as PyTorch writes it, 1 / (1 + exp(-x)): for x < 0, exp(x) / (1 + exp(x)) can be an ulp
    away, and instance norm of a constant row turns that ulp into the sign of the result."""
    v = np.array([[[-0.08908410703389803], [-0.18637121094194992], [-0.2288545530308451], [-0.9131793027344887]],
                  [[1.7436425870916237], [-1.0359502281682773], [1.127857218417709], [0.1892206112433669]],
                  [[0.3466196924651076], [1.0325984518091156], [-0.6383775711456174], [-0.5351942208668967]]])
    outs = []
    for lib in (pedatorch, torch):
        y = lib.sigmoid(lib.tensor(v, dtype=lib.float64).expand(3, 4, 4))
        outs.append((_np(y), _np(lib.nn.functional.instance_norm(y).sqrt_())))
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    big = pedatorch.tensor([-800.0, -100.0, 0.0, 100.0, 800.0, float("inf"), float("-inf")], dtype=pedatorch.float64)
    np.testing.assert_array_equal(_np(pedatorch.sigmoid(big)), _np(torch.sigmoid(torch.tensor(big.numpy()))))
