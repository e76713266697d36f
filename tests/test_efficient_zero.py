"""PyTorch's efficient zero tensor (``_efficientzerotensor``), the gradient ``sgn`` sends back: which ops keep it
(mul, div by a tensor, add/sub of two, views) and which make plain zeros of it (everything else), so that a saved
NaN or inf below turns it into NaN exactly where torch 2.13's does.  See keeps_zero in autograd/function.py."""
import math

import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

NAN, INF = math.nan, math.inf
X = [[0.7, -1.3, 2.1, -0.4], [1.1, 0.5, -2.2, 0.9], [-0.6, 1.7, 0.3, -1.5]]
C = [[NAN, 1.0, -INF, 2.0], [1.5, INF, 0.5, -1.0], [2.0, -0.5, NAN, 1.0]]   # saved below the op
W = [[0.3, -1.2, 0.8, 1.1], [-0.7, 0.4, 1.9, -0.2], [0.6, -1.4, 0.25, 0.9]]


def _w(lib):
    return lib.tensor(W, dtype=lib.float64)


# x (3, 4) -> the op under test; the efficient zero arrives at its node in the double backward
OPS = {
    # keep it (torch's ZeroTensor kernels and fallthroughs)
    "mul_number": lambda lib, x: x * 2,
    "number_mul": lambda lib, x: 2 * x,
    "mul_tensor": lambda lib, x: x * _w(lib),
    "mul_self": lambda lib, x: x * x,
    "div_number": lambda lib, x: x / 2,          # DivBackward0: PyTorch divides by the wrapped number tensor
    "div_tensor": lambda lib, x: x / _w(lib),
    "add_tensor": lambda lib, x: x + _w(lib),
    "add_self": lambda lib, x: x + x,
    "add_alpha": lambda lib, x: lib.add(x, _w(lib), alpha=2),
    "view": lambda lib, x: x.view(4, 3),
    "reshape": lambda lib, x: x.reshape(2, 6),
    "flatten": lambda lib, x: x.flatten(),
    "t": lambda lib, x: x.t(),
    "permute": lambda lib, x: x.permute(1, 0),
    "expand": lambda lib, x: x.unsqueeze(0).expand(2, 3, 4),
    "squeeze": lambda lib, x: x.unsqueeze(0).squeeze(0),
    "slice": lambda lib, x: x[1:, ::2],
    "select": lambda lib, x: x[1],
    "narrow": lambda lib, x: x.narrow(1, 1, 2),
    "unbind": lambda lib, x: x.unbind(0)[1],
    "split": lambda lib, x: x.split(2, 1)[1],
    "chunk": lambda lib, x: x.chunk(2, 0)[0],
    "diagonal": lambda lib, x: x.diagonal(),
    "unfold": lambda lib, x: x.unfold(1, 2, 1),
    "as_strided": lambda lib, x: x.as_strided((2, 2), (4, 1)),
    "sum_dim": lambda lib, x: x.sum(0),          # its backward expands the zero: a view
    "sum_all": lambda lib, x: x.sum(),
    "to_same": lambda lib, x: x.to(lib.float64),
    # make plain zeros of it (torch's ZeroTensor fallback materializes it)
    "neg": lambda lib, x: -x,
    "sub_tensor": lambda lib, x: x - _w(lib),
    "rsub_tensor": lambda lib, x: _w(lib) - x,
    "sub_alpha": lambda lib, x: lib.sub(_w(lib), x, alpha=2),   # (-grad) * alpha
    "rsub_alpha": lambda lib, x: lib.rsub(x, _w(lib), alpha=2),
    "rdiv": lambda lib, x: _w(lib) / x,
    "mean_dim": lambda lib, x: x.mean(1),          # grad / n: ATen's div.Scalar
    "mean_all": lambda lib, x: x.mean(),
    "reshape_copy": lambda lib, x: x.t().reshape(12),
    "clone": lambda lib, x: x.clone(),
    "to_float32": lambda lib, x: x.to(lib.float32),
    "cat": lambda lib, x: lib.cat([x, x], 0),
    "stack": lambda lib, x: lib.stack([x, x]),
    "where": lambda lib, x: lib.where(_w(lib) > 0, x, lib.tensor(0.0, dtype=lib.float64)),
    "masked_fill": lambda lib, x: x.masked_fill(_w(lib) > 0, 0.0),
    "mm": lambda lib, x: x @ _w(lib).t(),
    "mv": lambda lib, x: x @ _w(lib)[0],
    "linear": lambda lib, x: lib.nn.functional.linear(x, _w(lib)),
    "conv1d": lambda lib, x: lib.nn.functional.conv1d(x.unsqueeze(0), _w(lib)[:, None, :2].expand(3, 3, 2).contiguous()),
    "index": lambda lib, x: x[[0, 2]],
    "gather": lambda lib, x: x.gather(1, lib.tensor([[0, 1], [2, 3], [1, 1]])),
    "remainder": lambda lib, x: x.remainder(_w(lib)),
    "remainder_other": lambda lib, x: _w(lib).remainder(x),
    "exp": lambda lib, x: x.exp(),
    "tanh": lambda lib, x: x.tanh(),
    "pow": lambda lib, x: x ** 2,
    "sqrt": lambda lib, x: x.sqrt(),
    "relu": lambda lib, x: x.relu(),
    "clamp": lambda lib, x: x.clamp(-1, 1),
    "abs": lambda lib, x: x.abs(),
    "cumsum": lambda lib, x: x.cumsum(1),
    "flip": lambda lib, x: x.flip(0),
    "softmax": lambda lib, x: x.softmax(1),
    "logsumexp": lambda lib, x: x.logsumexp(1),
    "amax": lambda lib, x: x.amax(1),
    "var": lambda lib, x: x.var(1),
    "norm": lambda lib, x: x.norm(dim=1),
    "lerp": lambda lib, x: lib.lerp(x, _w(lib), 0.3),
    "addcmul": lambda lib, x: lib.addcmul(_w(lib), x, x),
    "pad": lambda lib, x: lib.nn.functional.pad(x, (1, 1)),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (4,)),
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, _w(lib)),
    "l1_loss": lambda lib, x: lib.nn.functional.l1_loss(x, _w(lib)),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([0, 2, 1])),
    "avg_pool": lambda lib, x: lib.nn.functional.avg_pool1d(x.unsqueeze(0), 2),
    "max_pool": lambda lib, x: lib.nn.functional.max_pool1d(x.unsqueeze(0), 2),
}


# what the efficient zero comes from: y -> a function whose double backward runs sgn's backward
TOPS = {
    "abs": lambda lib, y: y.abs(),
    "abs_": lambda lib, y: y.clone().abs_(),
    "sgn": lambda lib, y: y.sgn() * y,
    "norm1": lambda lib, y: y.norm(p=1),
}


def _second_order(lib, op, top):
    leaf = lib.tensor(X, dtype=lib.float64, requires_grad=True)
    x = leaf * lib.tensor(C, dtype=lib.float64)   # real zeros arriving here become NaN; an efficient zero not
    y = top(lib, op(lib, x))
    w = np.resize(np.array(W), tuple(y.shape))
    g, = lib.autograd.grad((y * lib.tensor(w, dtype=lib.float64)).sum(), [leaf], create_graph=True)
    g2, = lib.autograd.grad((g * 1.5).sum(), [leaf])
    return g, g2


def _numpy(t):
    if isinstance(t, torch.Tensor) and t._is_zerotensor():   # (autograd.grad may hand back a ZeroTensor)
        return np.zeros(tuple(t.shape))
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.array(t.tolist())


def _assert_same(p, t):
    p, t = _numpy(p), _numpy(t)
    assert p.shape == t.shape
    np.testing.assert_array_equal(np.isnan(p), np.isnan(t))   # where NaN appears is the point
    np.testing.assert_allclose(p, t, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", list(OPS))
def test_efficient_zero_through_op_matches_torch(name):
    for top in TOPS.values():
        p = _second_order(pedatorch, OPS[name], top)
        t = _second_order(torch, OPS[name], top)
        for a, b in zip(p, t):
            _assert_same(a, b)


@pytest.mark.parametrize("name", ["mul_tensor", "div_tensor", "add_tensor", "neg", "sub_alpha", "mean_dim",
                                  "reshape_copy", "mm", "where", "cat", "remainder", "norm", "layer_norm"])
def test_double_backward_through_abs_gradgradcheck(name):
    """Where everything is finite, the efficient zero changes no value: numerical checks agree."""
    xd = pedatorch.tensor(X, dtype=pedatorch.float64, requires_grad=True)
    fn = lambda t: OPS[name](pedatorch, t * 1.3).abs()   # noqa: E731
    assert gradcheck(fn, (xd,))
    assert gradgradcheck(fn, (xd,))


def test_remainder_backward_materializes():
    """Fuzzer seed 714297: RemainderBackward computes -grad * floor(a / b) for b; the negation makes plain
    zeros of the efficient zero, which a NaN floor(a / b) turns into NaN (pedatorch gave 0)."""
    def run(lib):
        x0 = lib.tensor([[[-2, -3]], [[4, -2]], [[1, -4]], [[-1, -1]]], dtype=lib.int16)
        x1 = lib.tensor([[[0.8112622499465942]]], dtype=lib.float32, requires_grad=True)
        y2 = lib.log(lib.clone(x0)).remainder(x1)
        y3 = abs(y2)
        w2 = lib.tensor([[[-0.44, -0.3]], [[1.05, 0.44]], [[-0.64, -2.09]], [[0.85, 0.32]]], dtype=lib.float32)
        w3 = lib.tensor([[[0.66, -0.68]], [[-0.48, -1.6]], [[0.44, -0.64]], [[-0.97, -0.38]]], dtype=lib.float32)
        g, = lib.autograd.grad((y2 * w2).sum() + (y3 * w3).sum(), [x1], create_graph=True)
        (g * 1.5).sum().backward()
        return g, x1.grad
    for a, b in zip(run(pedatorch), run(torch)):
        _assert_same(a, b)
    assert math.isnan(run(pedatorch)[1].item())


def test_convolution_backward_materializes():
    """Fuzzer seed 713091: norm(p=1)'s double backward sends an efficient zero into ConvolutionBackward0, which
    makes plain zeros of it: a NaN in the input makes the weight's second-order gradient NaN there."""
    nan = NAN

    def run(lib):
        x2 = lib.tensor([[[[1.86, 0.36, 0.84, -0.30], [0.46, 1.05, 1.16, 0.12], [-0.74, 0.73, 0.84, -1.64]]],
                         [[[1.59, 1.36, -1.10, 1.49], [1.29, -0.96, -2.68, -0.12], [1.38, nan, 0.18, 2.55]]]],
                        dtype=lib.float32)
        x3 = lib.tensor([[[[0.0, 0.83], [0.86, -0.33]]], [[[-1.64, 0.89], [-0.28, 0.22]]]], dtype=lib.float32,
                        requires_grad=True)
        x4 = lib.tensor([0.32, -0.66], dtype=lib.float32, requires_grad=True)
        y1 = lib.nn.functional.conv2d(x2, x3, x4, stride=2, padding=1)
        loss = (y1 * 0.5).sum() + lib.norm(y1, p=1) * -0.53
        g3, g4 = lib.autograd.grad(loss, [x3, x4], create_graph=True)
        v3 = lib.tensor([[[[-0.72, 0.33], [-1.22, 0.47]]], [[[0.28, 0.57], [0.13, -0.48]]]], dtype=lib.float32)
        ((g3 * v3).sum() + (g4 * lib.tensor([-1.55, 1.41])).sum()).backward()
        return x3.grad, x4.grad
    for a, b in zip(run(pedatorch), run(torch)):
        _assert_same(a, b)


def test_one_gradient_to_two_inputs_stays_an_efficient_zero():
    """add's backward hands the same efficient zero to both inputs: a leaf taking it first must not make it
    plain zeros for the other input, whose saved NaN would then make NaN."""
    def run(lib):
        a = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.0, 2.0, -3.0], dtype=lib.float64, requires_grad=True)
        c = b * lib.tensor([NAN, INF, 1.0], dtype=lib.float64)
        y = (a + c).abs()
        ga, gb = lib.autograd.grad(y.sum(), [a, b], create_graph=True)
        return lib.autograd.grad((ga * 2).sum() + (gb * 3).sum(), [a, b], allow_unused=True)
    for p, t in zip(run(pedatorch), run(torch)):
        if t is None:
            assert p is None
        else:
            _assert_same(p, t)


def test_captured_and_leaf_gradients_are_plain():
    """autograd.grad and .grad hand back plain zeros (free to be written to), not marked ones."""
    x = pedatorch.tensor([1.0, -2.0], dtype=pedatorch.float64, requires_grad=True)
    g, = pedatorch.autograd.grad(x.abs().sum(), [x], create_graph=True)
    g2, = pedatorch.autograd.grad(g.sum(), [x], retain_graph=True)
    assert g2.tolist() == [0.0, 0.0] and "_zerotensor" not in g2.__dict__
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and "_zerotensor" not in x.grad.__dict__


def test_efficient_zero_on_device(device):
    x = pedatorch.tensor([0.5, -1.5, 2.0], dtype=pedatorch.float64, device=device, requires_grad=True)
    c = pedatorch.tensor([NAN, 1.0, INF], dtype=pedatorch.float64, device=device)
    for op, want in ((lambda t: t * 2, [0.0, 0.0, 0.0]), (lambda t: -t, [NAN, 0.0, NAN])):
        g, = pedatorch.autograd.grad(op(x * c).abs().sum(), [x], create_graph=True)
        g2, = pedatorch.autograd.grad(g.sum(), [x])
        assert g2.device.type == device
        np.testing.assert_array_equal(g2.cpu().numpy(), want)


def test_complex_sgn_and_div_gradients():
    """sgn's gradient is the efficient zero only for real inputs; for complex ones it is PyTorch's sgn_backward
    (pedatorch sent back zeros), whose double backward divides a complex tensor by a real one: div's gradients
    are conjugated, as PyTorch's div_tensor_self/other_backward.  (pedatorch's gradcheck compares real parts
    only, so torch is the reference here.)"""
    def run(lib, op):
        x = lib.tensor([1.0 + 2.0j, -0.5 + 0.3j, 0.2 - 0.7j], dtype=lib.complex128, requires_grad=True)
        w = lib.tensor([0.3 - 1j, 2 + 0.5j, 1 + 1j], dtype=lib.complex128)
        g, = lib.autograd.grad((op(x) * w).real.sum(), [x], create_graph=True)
        g2, = lib.autograd.grad((g * w).real.sum(), [x])
        return g, g2
    for op in (lambda t: t.sgn(), lambda t: t / (2. * t.abs()), lambda t: (1 + 2j) / t.abs()):
        for a, b in zip(run(pedatorch, op), run(torch, op)):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-15)
    x = pedatorch.tensor([0j], dtype=pedatorch.complex128, requires_grad=True)
    g, = pedatorch.autograd.grad(x.sgn().real.sum(), [x])
    assert g.tolist() == [0j]   # 0 where x is 0
