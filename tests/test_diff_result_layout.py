"""Strides of new results, compared with PyTorch: elementwise ops follow TensorIterator (the first input's
layout wins when inputs disagree; numpy's ufuncs prefer C order), memory formats (channels_last through
contiguous/to/clone/*_like, convolutions and poolings), and the gradient layout contract of leaves.
(Fuzzer signatures of group A: clone/select/transpose/t/permute/split/unfold stride and stride1.)"""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck

torch = pytest.importorskip("torch")

# (size, stride) over arange(96): transposed, gapped, expanded, odd size-1 strides, channels-last
LAYOUTS = [
    ((3, 4), (4, 1)), ((3, 4), (1, 3)), ((3, 4), (8, 2)), ((3, 4), (0, 1)), ((3, 1), (1, 3)),
    ((1, 3), (1, 1)), ((2, 3, 4), (1, 2, 6)), ((2, 3, 4), (12, 1, 3)), ((2, 1, 3), (3, 5, 1)),
    ((2, 3, 2, 2), (12, 1, 6, 3)), ((4, 3), (1, 0)), ((2, 2, 3), (6, 1, 2)),
]

BINARY = {
    "add": lambda a, b: a + b, "mul_scalar_first": lambda a, b: 2 * a + b, "sub": lambda a, b: a - b,
    "div": lambda a, b: a / (b.abs() + 1), "maximum": lambda a, b: a.maximum(b), "lt": lambda a, b: a < b,
    "where": lambda a, b: a.where(a > b, b), "atan2": lambda a, b: a.atan2(b),
    "addcmul": lambda a, b: a.addcmul(b, b), "lerp": lambda a, b: a.lerp(b, 0.3),
}
UNARY = {
    "exp": lambda a: a.exp(), "neg": lambda a: -a, "mul_scalar": lambda a: a * 3, "add_scalar": lambda a: 1 + a,
    "relu": lambda a: a.relu(), "sigmoid": lambda a: a.sigmoid(), "clamp": lambda a: a.clamp(2, 9),
    "pow": lambda a: a ** 2, "isfinite": lambda a: a.isfinite(), "isfinite_int": lambda a: a.long().isfinite(),
    "isinf_int": lambda a: a.long().isinf(), "to_double": lambda a: a.double(), "to_int": lambda a: a.int(),
    "gelu": lambda a: lib_of(a).nn.functional.gelu(a), "logsigmoid": lambda a: lib_of(a).nn.functional.logsigmoid(a),
    "zeros_like": lambda a: lib_of(a).zeros_like(a), "full_like": lambda a: lib_of(a).full_like(a, 2.0),
    "ones_like_contig": lambda a: lib_of(a).ones_like(a, memory_format=lib_of(a).contiguous_format),
    "empty_like": lambda a: lib_of(a).empty_like(a).zero_(),
}


def lib_of(x):
    return torch if isinstance(x, torch.Tensor) else pedatorch


def _make(lib, size, stride, offset=0):
    return lib.as_strided(lib.arange(96, dtype=lib.float32) / 7 - 3, size, stride, offset)


def _same(p, t):
    assert (tuple(p.shape), p.stride()) == (tuple(t.shape), t.stride())
    np.testing.assert_allclose(p.double().numpy(), t.double().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_unary_result_strides(op, layout):
    _same(UNARY[op](_make(pedatorch, *layout)), UNARY[op](_make(torch, *layout)))


@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("first", LAYOUTS, ids=str)
@pytest.mark.parametrize("second", [((3, 4), (4, 1)), ((3, 4), (1, 3)), ((4,), (1,)), ((3, 1), (1, 1)),
                                    ((2, 3, 4), (12, 4, 1)), ((2, 3, 2, 2), (12, 4, 2, 1))], ids=str)
def test_binary_result_strides(op, first, second):
    try:
        t = BINARY[op](_make(torch, *first), _make(torch, *second, 5))
    except RuntimeError:      # shapes that don't broadcast
        with pytest.raises(RuntimeError):
            BINARY[op](_make(pedatorch, *first), _make(pedatorch, *second, 5))
        return
    _same(BINARY[op](_make(pedatorch, *first), _make(pedatorch, *second, 5)), t)


def test_first_input_decides_and_views_follow():
    for lib in (pedatorch, torch):
        x = lib.arange(12.).reshape(3, 4)
        xt = lib.arange(12.).reshape(4, 3).t()
        assert (xt + x).stride() == (1, 3) and (x + xt).stride() == (4, 1)
        assert (xt + x).t().is_contiguous()     # so a view after it works as in PyTorch
        with pytest.raises(RuntimeError):
            (xt + x).view(-1)


def test_saved_output_survives_relayout():
    """An op whose backward reads its own output (exp) still differentiates twice after its result was
    copied into PyTorch's layout (the saved output is the relaid array)."""
    x = _make(pedatorch, (3, 4), (1, 3)).detach().double().requires_grad_()
    y = x.exp()
    assert y.stride() == (1, 3)
    xc = x.detach().t().contiguous().requires_grad_()     # (gradcheck perturbs contiguous inputs)
    assert gradcheck(lambda a: (a.t() + a.t().contiguous()).exp(), (xc,))
    assert gradcheck(lambda a: a.t().exp(), (xc,))
    g, = pedatorch.autograd.grad(y.sum(), x, create_graph=True)
    g2, = pedatorch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.numpy(), np.exp(x.detach().numpy()))


FORMATS = ["contiguous_format", "channels_last"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_memory_formats(fmt):
    def run(lib):
        lib.manual_seed(0)
        x = lib.arange(120.).reshape(2, 3, 4, 5) / 50
        y = x.to(memory_format=getattr(lib, fmt))
        conv = lib.nn.Conv2d(3, 4, 3).to(memory_format=getattr(lib, fmt))
        out = [y, y.contiguous(memory_format=lib.channels_last), x.clone(memory_format=getattr(lib, fmt)),
               lib.empty_like(x, memory_format=getattr(lib, fmt)).zero_(), conv.weight, conv(y),
               lib.nn.functional.max_pool2d(y, 2), lib.nn.functional.avg_pool2d(y, 2),
               lib.nn.functional.adaptive_avg_pool2d(y, 2), lib.nn.functional.adaptive_max_pool2d(y, 2),
               y + 1, y.exp(), lib.nn.BatchNorm2d(3)(y), y.float(), y.double()]
        flags = [y.is_contiguous(), y.is_contiguous(memory_format=lib.channels_last)]
        yl = y.detach().requires_grad_()
        conv(yl).sum().backward()
        return out + [yl.grad, conv.weight.grad], flags
    (p, pf), (t, tf) = run(pedatorch), run(torch)
    assert pf == tf
    for a, b in zip(p, t):
        assert (tuple(a.shape), a.stride()) == (tuple(b.shape), b.stride())
        np.testing.assert_allclose(a.detach().double().numpy(), b.detach().double().numpy(), rtol=1e-4, atol=1e-5)


def test_memory_format_errors():
    for lib in (pedatorch, torch):
        x = lib.zeros(2, 3, 4)
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
            x.contiguous(memory_format=lib.channels_last)
        with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
            x.clone(memory_format=lib.channels_last_3d)
    y = pedatorch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=pedatorch.channels_last_3d)
    assert y.stride() == torch.zeros(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d).stride()


@pytest.mark.parametrize("layout", [((3, 4), (1, 3)), ((3, 4), (8, 2)), ((2, 3, 4), (1, 2, 6)), ((3, 1), (1, 7))],
                         ids=str)
def test_leaf_gradient_layout_contract(layout):
    """A leaf's .grad has the leaf's strides when the leaf is dense, else contiguous ones."""
    def run(lib):
        w = _make(lib, *layout).detach().requires_grad_()
        (w * lib.arange(w.numel(), dtype=lib.float32).reshape(w.shape)).sum().backward()
        return w.grad
    p, t = run(pedatorch), run(torch)
    _same(p, t)
