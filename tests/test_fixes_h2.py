"""Values, errors and layouts compared with PyTorch: remainder keeps fmod's sign for an exact 0 (0. % -1. is
+0., so digamma of it is -inf); lerp checks shapes before its kernel's dtype (an int input with a 0-dim
float weight computes in float); writes into a tensor that overlaps itself (stride 0) or from a source
sharing its memory are refused as ATen's overlap checks refuse them; masked_select/fill/scatter save their
mask (an in-place change to it breaks backward); isclose and gcd/lcm lay out their result as PyTorch's
elementwise ops."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from torch_compare import same  # noqa: E402

OVERLAP = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single"
SELF_OVERLAP = "unsupported operation: more than one element of the written-to tensor refers to a single"


def _same(fn):
    same(fn, pedatorch, torch, strides=True, signed_zeros=True)


# ---------------------------------------------------------------- remainder: an exact 0 keeps a's sign

@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_remainder_zero_sign(dtype):
    a = [0.0, -0.0, 3.0, -3.0, 1.5, -1.5, 2.0, 7.0, float("inf"), 1.0]
    b = [-1.0, 1.0, -1.0, 1.0, -0.5, 0.5, -0.5, float("inf"), 2.0, float("-inf")]
    _same(lambda t: t.remainder(t.tensor(a, dtype=getattr(t, dtype)), t.tensor(b, dtype=getattr(t, dtype))))
    _same(lambda t: t.tensor(a, dtype=getattr(t, dtype)) % -1.0)
    _same(lambda t: 2.0 % t.tensor(b, dtype=getattr(t, dtype)))


def test_digamma_of_int_remainder_fuzz_1004910():
    # 0 % -0.05 is +0 in PyTorch (numpy: -0), and digamma(+0) is -inf
    _same(lambda t: t.digamma(t.tensor([[0]]) % t.tensor(-0.053912849996454654, dtype=t.float64)))


def test_remainder_gradients():
    a = pedatorch.tensor([0.7, -2.3, 1.9], dtype=pedatorch.float64, requires_grad=True)
    b = pedatorch.tensor([-0.9, 0.8, 0.6], dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(pedatorch.remainder, (a, b))
    assert gradgradcheck(pedatorch.remainder, (a, b))


# ---------------------------------------------------------------- lerp: shapes before the kernel's dtype

@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool"])
def test_lerp_broadcast_error_before_dtype_fuzz_1009272_1014646(dtype):
    def dt(t):
        return getattr(t, dtype)
    _same(lambda t: t.lerp(t.ones(2, dtype=dt(t)), t.ones(3, dtype=dt(t)), 0.25))
    _same(lambda t: t.lerp(t.ones(2, dtype=dt(t)), t.ones(3, dtype=dt(t)), t.ones(3, dtype=dt(t))))
    _same(lambda t: t.lerp(t.ones(2, dtype=dt(t)), t.ones(2, dtype=dt(t)), 0.25))
    _same(lambda t: t.ones(2, dtype=dt(t)).lerp_(t.ones(3, dtype=dt(t)), 0.25))
    _same(lambda t: t.ones(2, dtype=dt(t)).lerp_(t.ones(2, 2, dtype=dt(t)), 0.25))
    _same(lambda t: t.ones(2, dtype=dt(t)).lerp_(t.ones(2, dtype=dt(t)), t.tensor(0.5)))
    # a 0-dim float weight takes part in the dtype: the int input computes in its float dtype
    _same(lambda t: t.lerp(t.tensor([1, 4], dtype=dt(t)), t.tensor([3, 0], dtype=dt(t)), t.tensor(0.25)))
    _same(lambda t: t.lerp(t.tensor([1, 4], dtype=dt(t)), t.tensor([3, 0], dtype=dt(t)),
                           t.tensor(0.25, dtype=t.float64)))


def test_lerp_overflow_checked_after_shapes():
    _same(lambda t: t.lerp(t.ones(2), t.ones(3), 1e300))
    _same(lambda t: t.lerp(t.tensor([1.0, 2.0], dtype=t.float16), t.tensor([3.0, 5.0], dtype=t.float16),
                           t.tensor(0.3, dtype=t.float64)))


def test_lerp_gradients_unchanged():
    a = pedatorch.tensor([0.5, -1.0], dtype=pedatorch.float64, requires_grad=True)
    b = pedatorch.tensor([2.0, 0.25], dtype=pedatorch.float64, requires_grad=True)
    w = pedatorch.tensor(0.3, dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(pedatorch.lerp, (a, b, w))
    assert gradgradcheck(pedatorch.lerp, (a, b, w))


# ---------------------------------------------------------------- writes into overlapping memory

def test_inplace_into_diagonal_of_expanded_fuzz_1006171():
    _same(lambda t: t.tensor([[[-0.5]]], dtype=t.bfloat16).expand(1, 1, 3).diagonal().add_(0.5))


@pytest.mark.parametrize("op", ["add_", "mul_", "sigmoid_", "copy_", "clamp_", "lerp_"])
def test_inplace_into_stride0_view_refused(op):
    args = {"add_": (1.0,), "mul_": (2.0,), "sigmoid_": (), "clamp_": (0.0, 1.0)}
    def fn(t):
        v = t.zeros(3).as_strided((3,), (0,))
        if op == "copy_":
            return v.copy_(t.ones(3))
        if op == "lerp_":
            return v.lerp_(t.ones(3), 0.5)
        return getattr(v, op)(*args[op])
    _same(fn)
    _same(lambda t: t.zeros(3).as_strided((2, 2), (1, 1)).mul_(2))   # overlapping, not stride 0: allowed
    _same(lambda t: t.zeros(3).as_strided((1,), (0,)).mul_(2))


def test_setitem_value_is_target_fuzz_1001993():
    def fn(t):
        x = t.zeros((0, 1), dtype=t.float64)
        y = x.to(t.float64)   # (the same tensor)
        y[:, t.tensor([True])] = x
        return y
    _same(fn)


@pytest.mark.parametrize("case", range(12))
def test_index_put_overlap(case):
    def fn(t):
        x = t.arange(6.0)
        cases = [
            lambda: x.__setitem__((t.tensor([0, 1]),), x[1:3]),
            lambda: x.__setitem__(t.tensor([True, False, True, False, False, False]), x[:2]),
            lambda: x.__setitem__(t.tensor([True, False, True, False, False, False]), x[0]),  # masked_fill_
            lambda: x.__setitem__(t.tensor([0, 2]), x[0]),
            lambda: x.index_put_((t.tensor([0, 2]),), x[:2], accumulate=True),
            lambda: x.index_put_((t.tensor([0, 1, 9]),), x[:3]),   # the overlap is found before the bound
            lambda: x.index_put((t.tensor([0, 1, 2]),), x[:3]),   # (out of place: a copy is written)
            lambda: x.view(2, 3).__setitem__((0, t.tensor([0, 2])), x.view(2, 3)[1, :2]),   # disjoint
            lambda: x.view(2, 3).__setitem__((slice(None), t.tensor([0, 2])), x.view(2, 3)[:, :2]),  # not dense
            lambda: x.__setitem__(t.tensor([0, 1, 2, 3, 4, 5]), x[None]),
            lambda: x.long().__setitem__(Ellipsis, 0),
            lambda: (lambda i: i.__setitem__(i, t.tensor([5, 6, 7])))(t.arange(3)),   # the index is the target
        ]
        cases[case]()
        return x
    _same(fn)


@pytest.mark.parametrize("op", ["index_copy_", "index_add_", "scatter_", "scatter_add_", "scatter_reduce_", "put_",
                                "masked_scatter_"])
@pytest.mark.parametrize("partial", [False, True])
def test_indexed_writes_from_own_memory(op, partial):
    def fn(t):
        x = t.arange(4.0)
        dst, src = (x[:3], x[1:]) if partial else (x[:3], x[:3])
        i = t.tensor([2, 0, 1])
        call = {"index_copy_": lambda: dst.index_copy_(0, i, src), "index_add_": lambda: dst.index_add_(0, i, src),
                "scatter_": lambda: dst.scatter_(0, i, src), "scatter_add_": lambda: dst.scatter_add_(0, i, src),
                "scatter_reduce_": lambda: dst.scatter_reduce_(0, i, src, "amax"),
                "put_": lambda: dst.put_(i, src), "masked_scatter_": lambda: dst.masked_scatter_(i > 0, src)}
        call[op]()
        return x
    _same(fn)


def test_scatter_index_is_target():
    _same(lambda t: (lambda x: x.scatter_(0, x, t.arange(4)))(t.arange(4)))


# ---------------------------------------------------------------- masks are saved for backward

@pytest.mark.parametrize("op", ["masked_select", "masked_fill", "masked_fill_tensor", "masked_scatter"])
def test_mask_changed_in_place_breaks_backward(op):
    def fn(t):
        x = t.tensor([[0.5, 1.5], [2.0, 3.0]], requires_grad=True)
        mask = t.tensor([[True, False], [False, True]])
        y = {"masked_select": lambda: t.masked_select(x, mask), "masked_fill": lambda: x.masked_fill(mask, 0.0),
             "masked_fill_tensor": lambda: x.masked_fill(mask, t.tensor(0.0)),
             "masked_scatter": lambda: x.masked_scatter(mask, t.ones(4))}[op]()
        mask.logical_not_()
        y.sum().backward()
        return x.grad
    _same(fn)


def test_imul_of_saved_mask_fuzz_1010670():
    def fn(t):
        x0 = t.tensor([[0.8221974968910217]], requires_grad=True)
        x1 = t.tensor([[False], [False]])
        y0 = t.masked_select(x0, x1)
        x1 *= t.tensor([[True], [False]])
        return t.autograd.grad(y0.sum(), [x0], create_graph=True, allow_unused=True)[0]
    _same(fn)


def test_masked_ops_gradients():
    mask = pedatorch.tensor([[True, False, True], [False, False, True]])
    x = pedatorch.tensor([[0.5, -1.0, 2.0], [0.25, 3.0, -0.5]], dtype=pedatorch.float64, requires_grad=True)
    src = pedatorch.tensor([1.0, 2.0, 3.0, 4.0], dtype=pedatorch.float64, requires_grad=True)
    for f, args in [(lambda a: pedatorch.masked_select(a, mask), (x,)),
                    (lambda a: a.masked_fill(mask, 0.5), (x,)),
                    (lambda a, s: a.masked_scatter(mask, s), (x, src))]:
        assert gradcheck(f, args)
        assert gradgradcheck(f, args)


# ---------------------------------------------------------------- result layouts

def test_isclose_layout_fuzz_1007186():
    x0 = np.array([[0.5, -0.5], [0.5, 2.0], [1.0, 0.5]], dtype=np.float32)
    x1 = np.array([[1.0, -1.0, -1.5], [0.5, -1.0, -1.0]], dtype=np.float32)
    _same(lambda t: t.isclose(t.tensor(x0).transpose(-2, -1), t.tensor(x1), equal_nan=True).unsqueeze(-1))
    _same(lambda t: t.isclose(t.tensor(x1), t.tensor(x0).transpose(-2, -1)))
    _same(lambda t: t.isclose(t.tensor(x0).t(), t.ones(3)))


@pytest.mark.parametrize("op", ["gcd", "lcm"])
def test_gcd_lcm_layout(op):
    a = np.arange(1, 7).reshape(3, 2)
    _same(lambda t: getattr(t, op)(t.tensor(a).t(), t.tensor(a.reshape(2, 3) + 2)))
