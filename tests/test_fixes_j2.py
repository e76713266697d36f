"""Errors and values compared with PyTorch: a broadcast error comes before a missing kernel (bool ** bool,
clamp and addcmul of bools); an in-place indexing op on a leaf that requires grad is refused before its
indices are checked (PyTorch's check_inplace runs before the kernel); logsumexp of float16/bfloat16 adds
its exponentials up in float32 and rounds once, as PyTorch's sum does."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

from torch_compare import same  # noqa: E402


def _same(fn):
    same(fn, pedatorch, torch)


# ---------------------------------------------------------------- bool pow: shapes before the kernel

def _b3(T):
    return T.tensor([True, False, True])


def _b2(T):
    return T.tensor([True, False])


@pytest.mark.parametrize("fn", [
    lambda T: _b3(T) ** _b2(T),                      # the fuzzer's case: a broadcast error, not "pow"
    lambda T: _b3(T) ** _b3(T),                      # same shapes: no bool kernel
    lambda T: _b3(T).pow_(_b2(T)),
    lambda T: _b3(T).pow_(_b3(T)),
    lambda T: T.pow(_b3(T), _b2(T), out=T.empty(3, dtype=T.bool)),
    lambda T: True ** _b3(T),
    lambda T: _b3(T) ** T.tensor(True),
    lambda T: _b3(T) ** True,
    lambda T: _b3(T) ** 2,
    lambda T: 2.0 ** _b3(T),
    lambda T: T.clamp(_b3(T), _b2(T), _b3(T)),       # siblings: clamp and addcmul check shapes first too
    lambda T: T.clamp(_b3(T), _b3(T), _b3(T)),
    lambda T: T.addcmul(_b3(T), _b2(T), _b3(T)),
    lambda T: T.addcmul(_b3(T), _b3(T), _b3(T)),
    lambda T: T.addcdiv(_b3(T), _b2(T), _b3(T)),     # (PyTorch's message has two spaces: "future  release")
])
def test_bool_kernel_errors_after_broadcast(fn):
    _same(fn)


# ---------------------------------------------------------------- in-place indexing of a leaf

def _leaf(T, shape=(2, 3)):
    return T.zeros(shape, dtype=T.float64, requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda T: _leaf(T, (0, 1)).__setitem__([0], 1.0),          # the fuzzer's case
    lambda T: T.zeros(0, 1, dtype=T.float64).__setitem__([0], 1.0),
    lambda T: _leaf(T).__setitem__(T.tensor([5]), 1.0),
    lambda T: _leaf(T).__setitem__(T.tensor([True, False, True]), 1.0),   # a mask of the wrong shape
    lambda T: _leaf(T).__setitem__(([5], Ellipsis), 1.0),
    lambda T: _leaf(T).__setitem__((None, [5]), 1.0),         # a view of the leaf
    lambda T: _leaf(T).__setitem__(5, 1.0),                   # basic indexing: the bounds first
    lambda T: _leaf(T).__setitem__((0, 0, 0), 1.0),           # too many indices: first too
    lambda T: _leaf(T).index_put_((T.tensor([5]),), T.tensor(1.0, dtype=T.float64)),
    lambda T: _leaf(T).index_put_((T.tensor([0]),) * 3, T.tensor(1.0, dtype=T.float64)),
    lambda T: _leaf(T).index_put((T.tensor([5]),), T.tensor(1.0, dtype=T.float64)),   # (not in place)
    lambda T: _leaf(T).index_fill_(0, T.tensor([5]), 1.0),
    lambda T: _leaf(T).index_copy_(0, T.tensor([5]), T.zeros(1, 3, dtype=T.float64)),
    lambda T: _leaf(T).index_add_(0, T.tensor([5]), T.zeros(1, 3, dtype=T.float64)),
    lambda T: _leaf(T).index_add_(5, T.tensor([0]), T.zeros(1, 3, dtype=T.float64)),
    lambda T: _leaf(T).scatter_(0, T.tensor([[5]]), 1.0),
    lambda T: _leaf(T).scatter_add_(0, T.tensor([[5]]), T.ones(1, 1, dtype=T.float64)),
    lambda T: _leaf(T).scatter_reduce_(0, T.tensor([[5]]), T.ones(1, 1, dtype=T.float64), "sum"),
    lambda T: _leaf(T).put_(T.tensor([50]), T.tensor([1.0], dtype=T.float64)),
    lambda T: _leaf(T).masked_scatter_(T.tensor([1.0]), T.ones(6, dtype=T.float64)),
    lambda T: _leaf(T).masked_fill_(T.tensor([1.0]), 1.0),
])
def test_inplace_indexing_refuses_a_leaf_first(fn):
    _same(fn)


def test_inplace_indexing_of_a_leaf_under_no_grad():
    # without grad mode the write is allowed: the index checks report as before, and a good write lands
    for T in (pedatorch, torch):
        x = _leaf(T)
        with T.no_grad():
            with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 2"):
                x[T.tensor([5])] = 1.0
            x[T.tensor([1])] = 2.0
        assert x.detach().numpy()[1].tolist() == [2.0, 2.0, 2.0]


# ---------------------------------------------------------------- logsumexp in half precision

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_logsumexp_half_sums_in_float32(dtype):
    rng = np.random.default_rng(0)
    for _ in range(60):
        shape = tuple(int(s) for s in rng.integers(1, 7, size=rng.integers(1, 3)))
        x = rng.standard_normal(shape) * rng.choice([0.5, 2, 5])
        w, v = rng.standard_normal(shape[:-1]), rng.standard_normal(shape)
        res = []
        for T in (pedatorch, torch):
            x0 = T.tensor(x, dtype=getattr(T, dtype)).requires_grad_()
            y = T.logsumexp(x0, -1)
            g, = T.autograd.grad((y * T.tensor(w, dtype=y.dtype)).sum(), [x0], create_graph=True)
            (g * T.tensor(v, dtype=g.dtype)).sum().backward()
            res.append([a.detach().double().numpy() for a in (y, g, x0.grad)])
        for got, want in zip(*res):
            np.testing.assert_array_equal(got, want)


def test_logsumexp_gradients():
    x = pedatorch.tensor(np.random.default_rng(1).standard_normal((3, 4)), dtype=pedatorch.float64,
                         requires_grad=True)
    assert gradcheck(lambda t: pedatorch.logsumexp(t, -1), (x,))
    assert gradgradcheck(lambda t: pedatorch.logsumexp(t, (0, 1)), (x,))
