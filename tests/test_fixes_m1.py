"""Fuzzer round 10 (seeds 7400000, 7500000 with sweeps, 7600000): what it found, compared with PyTorch."""
import itertools

import numpy as np
import pytest

import pedatorch as pt
from torch_compare import same

torch = pytest.importorskip("torch")


def test_in_place_op_on_an_expand_of_a_permuted_result():
    """An elementwise result laid out like a transposed input owns memory in a permuted order; an in-place op
    through an expand (of the same shape) of it wrote nowhere: numpy's 'assignment destination is read-only'
    (the fuzzer's program: atanh of a transposed bool tensor, expand, tanh_)."""
    def f(lib):
        x = lib.tensor([[[True, True], [True, False], [False, False]],
                        [[False, False], [False, False], [True, False]]]).transpose(-2, -1)
        y = lib.atanh(x)
        z = y.expand(2, 2, 3).tanh_()
        return lib.stack([z, y])   # (the write reached y's memory)
    same(f, pt, torch, strides=True)


def test_backward_through_zero_of_an_expanded_view_is_refused():
    """PyTorch's CopySlices copies the view's gradient into a view of the base's gradient shaped like the
    view: for an expand (one location, several elements) that copy_ is refused, even where the base needs no
    gradient. zero_/fill_ themselves may write there."""
    def zero(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 2
        y.expand(2, 3).zero_()
        return lib.autograd.grad(y.sum(), x)[0]
    def fill_from_tensor(lib):
        b, w = lib.zeros(3), lib.tensor(2.0, requires_grad=True)
        b.expand(2, 3).fill_(w)
        return lib.autograd.grad(b.sum(), w)[0]
    def not_overlapping(lib):   # an expand that adds a size-1 dim is no overlap
        x = lib.ones(1, 3, requires_grad=True)
        y = x * 1
        y.expand(1, 3).zero_()
        return lib.autograd.grad(y.sum(), x)[0]
    for f in (zero, fill_from_tensor, not_overlapping):
        same(f, pt, torch)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        zero(pt)


def test_ldexp_layout_is_that_of_mul_by_a_new_power():
    """ldexp(x, e) is mul(x, pow(2, e)) in PyTorch (for a float e): the power is a new tensor laid out from e
    alone, so a sliced e does not give its strides to the result (the fuzzer's program: a chunk's strides)."""
    def f(lib):
        x = lib.tensor([[-2.5], [-2.25], [-4.75]]).transpose(-2, -1)
        e = lib.tensor([[0.5, 0.7, 2.1, 2.5, -1.4, 1.2]], dtype=lib.float64)[..., ::2]
        return lib.ldexp(x, e)
    same(f, pt, torch, strides=True)
    rng = np.random.default_rng(0)
    layouts = [lambda t: t, lambda t: t.transpose(0, 1).contiguous().transpose(0, 1), lambda t: t[:, ::1][::1],
               lambda t: t.expand(3, 4)[:, :4]]
    for (lx, le), (dx, de) in itertools.product(itertools.product(layouts, repeat=2),
                                                [("float32", "float64"), ("float64", "int32"), ("float32", "float32"),
                                                 ("int64", "float32")]):
        a, b = rng.standard_normal((3, 4)) * 3, rng.integers(-3, 4, (3, 4))
        def g(lib):
            x, e = lib.tensor(a).to(getattr(lib, dx)), lib.tensor(b).to(getattr(lib, de))
            return lib.ldexp(lx(x), le(e.transpose(0, 1).contiguous().transpose(0, 1)))
        same(g, pt, torch, strides=True)


CONV_EMPTY = [
    lambda L: L.nn.functional.conv1d(L.zeros(1, 2, 0), L.ones(1, 2, 1), L.ones(1), padding=1),
    lambda L: L.nn.functional.conv1d(L.zeros(1, 3, 0, dtype=L.int8), L.ones(1, 3, 1, dtype=L.int8), stride=2,
                                     padding=1),
    lambda L: L.nn.functional.conv1d(L.zeros(2, 0), L.ones(1, 2, 1), padding=1),   # (unbatched)
    lambda L: L.nn.functional.conv2d(L.zeros(1, 2, 0, 3), L.ones(1, 2, 1, 1), padding=1),
    lambda L: L.nn.functional.conv3d(L.zeros(1, 2, 3, 0, 2), L.ones(1, 2, 1, 1, 1), padding=1),
    lambda L: L.nn.functional.conv_transpose1d(L.zeros(1, 2, 0), L.ones(2, 1, 3)),
    lambda L: L.nn.functional.conv_transpose2d(L.zeros(1, 2, 0, 2), L.ones(2, 1, 1, 1)),
    lambda L: L.nn.functional.conv1d(L.zeros(1, 2, 0), L.ones(1, 2, 1, dtype=L.float64), padding=1),
    lambda L: L.nn.functional.conv1d(L.zeros(1, 2, 0), L.ones(1, 2, 1), L.ones(1, dtype=L.float64), padding=1),
    lambda L: L.nn.functional.conv_transpose1d(L.zeros(1, 2, 0), L.ones(2, 1, 1), L.ones(1, dtype=L.float64)),
    lambda L: L.nn.functional.conv1d(L.zeros(0, 2, 3), L.ones(1, 2, 1), padding=1),   # empty batch: fine
    lambda L: L.nn.functional.conv1d(L.zeros(1, 0, 0), L.ones(1, 0, 1), padding=1),   # no channel: fine
    lambda L: L.nn.functional.conv1d(L.zeros(1, 2, 0), L.ones(1, 2, 1)),   # kernel larger than the input
]


@pytest.mark.parametrize("i", range(len(CONV_EMPTY)))
def test_convolution_of_an_empty_spatial_dim_is_refused(i):
    """ATen has a kernel for an empty batch or channel dim, none for an empty spatial dim padded to a size
    the kernel fits: 'Only zero batch or zero channel inputs are supported' (pedatorch returned the bias)."""
    same(CONV_EMPTY[i], pt, torch)


@pytest.mark.parametrize("nd,transposed", [(1, False), (2, False), (3, False), (1, True), (2, True), (3, True)])
def test_convolution_dtype_checks_are_pytorchs(nd, transposed):
    """The kernel's dtype checks in PyTorch's order and words: no kernel (bool; a transposed convolution of an
    integer type other than int64) is a NotImplementedError first; a weight of another dtype is 'expected
    scalar type' (oneDNN's 'Input type ... and weight type' where PyTorch picks it); a transposed 1-d/2-d
    convolution casts a bias of another dtype."""
    fn = ("conv_transpose%dd" if transposed else "conv%dd") % nd
    dtypes = ["float32", "float64", "bfloat16", "int64", "int8", "uint8", "bool"]
    for dx, dw, db in itertools.product(dtypes, dtypes, [None, "float64", "float32"]):
        for n, size, k in [(1, 3, 1), (2, 3, 3)]:
            def f(lib):
                x = lib.ones((n, 2) + (size,) * nd, dtype=getattr(lib, dx))
                w = lib.ones(((2, 1) if transposed else (1, 2)) + (k,) * nd, dtype=getattr(lib, dw))
                b = None if db is None else lib.full((1,), 0.5, dtype=getattr(lib, db))
                return getattr(lib.nn.functional, fn)(x, w, b)
            same(f, pt, torch)


def test_transposed_convolution_bias_of_another_dtype_gets_its_gradient():
    def f(lib):
        x = lib.tensor(np.arange(6.0).reshape(1, 2, 3), requires_grad=True)
        b = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
        y = lib.nn.functional.conv_transpose1d(x, lib.ones(2, 1, 2), b)
        gx, gb = lib.autograd.grad((y * y).sum(), (x, b))
        return lib.cat([y.flatten().double(), gx.flatten().double(), gb])
    same(f, pt, torch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_addcmul_is_one_fused_multiply_add(dtype):
    """PyTorch's CPU addcmul computes fma(value * t1, t2, x) for floats (half types in float32, rounded once):
    about a quarter of float32 results were an ulp off (the fuzzer's program: float_power ** 8 of an
    addcmul made it visible in float64). Out of place and in place (the unrecorded optimizer path)."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((40, 30)) for _ in range(3))
    a = a.astype(np.float32).astype(np.float64)   # (exact in every float dtype's float32 path; see the report)
    for value in ([-2, 1, 3] if dtype == "int64" else [-2, 1, 0.3]):
        def f(lib, inplace):
            x, t1, t2 = (lib.tensor(v).to(getattr(lib, dtype)) for v in (a * 3, b * 3, c[:1] * 3))
            if inplace:
                with lib.no_grad():
                    return x.addcmul_(t1, t2, value=value)
            return lib.addcmul(x, t1, t2, value=value)
        same(lambda lib: f(lib, False), pt, torch)
        same(lambda lib: f(lib, True), pt, torch)
    x, t1, t2 = (pt.randn(3, 4, dtype=pt.float64, requires_grad=True) for _ in range(3))
    assert pt.autograd.gradcheck(lambda x, t1, t2: pt.addcmul(x, t1, t2, value=-0.7), (x, t1, t2))
