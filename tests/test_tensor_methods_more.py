"""Tensor.new, index_reduce, nonzero_static, hardshrink/prelu methods, dim_order, as_subclass, set_,
is_set_to, to_dense, module_load: against PyTorch."""
import warnings

import numpy as np
import pytest

import pedatorch as torch

pt = pytest.importorskip("torch")


def _same(a, b):
    assert a.dtype.__repr__().replace("pedatorch", "torch") == repr(b.dtype) and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_legacy_new():
    for lib in (torch, pt):
        t = lib.tensor([[1., 2.], [3., 4.]], dtype=lib.float64)
        assert t.new(2, 3).shape == (2, 3) and t.new(2, 3).dtype == lib.float64
        assert t.new(lib.Size([2])).shape == (2,) and t.new().shape == (0,) and t.new(5).shape == (5,)
        assert t.new([1, 2]).tolist() == [1.0, 2.0] and t.new((1, 2)).tolist() == [1.0, 2.0]
        other = lib.tensor([1., 2.], dtype=lib.float64)
        assert t.new(other).data_ptr() == other.data_ptr() and not t.new(other).requires_grad
    with pytest.raises(TypeError) as e1:
        torch.ones(1, dtype=torch.float64).new(torch.tensor([1, 2]))
    with pytest.raises(TypeError) as e2:
        pt.ones(1, dtype=pt.float64).new(pt.tensor([1, 2]))
    assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    rng = np.random.default_rng(0)
    x, src = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    out = []
    for lib in (torch, pt):
        a, b = lib.tensor(x, requires_grad=True), lib.tensor(src, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = a.index_reduce(1, lib.tensor([0, 2, 0, 1]), b, reduce, include_self=include_self)
        r.sum().backward()
        out.append((r, a.grad, b.grad))
    for x1, x2 in zip(*out):
        np.testing.assert_allclose(x1.detach().numpy(), x2.numpy() if not x2.requires_grad else x2.detach().numpy())
    assert out[0][0].grad_fn.name() == out[1][0].grad_fn.name() == "IndexReduceBackward0"


def test_index_reduce_errors_and_in_place():
    s, i = np.random.default_rng(1).standard_normal((4, 3)), [0, 4, 2, 0]
    calls = [lambda L: L.zeros(5, 3).index_reduce(0, L.tensor(i), L.tensor(s), "sum"),
             lambda L: L.zeros(5, 3).index_reduce(0, L.tensor(i).float(), L.tensor(s), "prod"),
             lambda L: L.zeros(5, 3).index_reduce(0, L.tensor([[0]]), L.tensor(s), "prod"),
             lambda L: L.zeros(5, 3).index_reduce(0, L.tensor([0, 9, 1, 1]), L.tensor(s), "prod"),
             lambda L: L.zeros(5, 3).index_reduce(0, L.tensor(i), L.ones(4, 2, dtype=L.float64), "prod"),
             lambda L: L.zeros(5, 3).index_reduce(0, L.tensor(i), L.tensor(s), "prod")]
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e1:
                call(torch)
            with pytest.raises(Exception) as e2:
                call(pt)
        assert type(e1.value) is type(e2.value) and str(e1.value) == str(e2.value)
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        t = torch.ones(3).index_reduce_(0, torch.tensor([0, 0]), torch.tensor([2., 3.]), "prod")
    assert t.tolist() == [6.0, 1.0, 1.0]


def test_nonzero_static():
    for x in ([0, 1, 0, 2], [[0, 1], [1, 1]], 3):
        for size, fill in ((4, -1), (1, 7), (0, -1)):
            _same(torch.tensor(x).nonzero_static(size=size, fill_value=fill),
                  pt.tensor(x).nonzero_static(size=size, fill_value=fill))
    _same(torch.nonzero_static(torch.tensor([1, 0]), size=3), pt.nonzero_static(pt.tensor([1, 0]), size=3))
    with pytest.raises(RuntimeError, match="nonzero_static: 'size' must be an non-negative integer"):
        torch.tensor([1]).nonzero_static(size=-1)


def test_activation_methods_dim_order_and_friends():
    x = np.array([[1., -2.], [3., -0.2]])
    _same(torch.tensor(x).hardshrink(2.5), pt.tensor(x).hardshrink(2.5))
    _same(torch.tensor(x).prelu(torch.tensor([0.1], dtype=torch.float64)),
          pt.tensor(x).prelu(pt.tensor([0.1], dtype=pt.float64)))
    for make in (lambda L: L.ones(2, 3, 4).permute(2, 0, 1), lambda L: L.ones(2, 3),
                 lambda L: L.ones(2, 3, 4, 5).to(memory_format=L.channels_last)):
        assert make(torch).dim_order() == make(pt).dim_order()

    class Sub(torch.Tensor):
        pass

    leaf = torch.randn(2, requires_grad=True)
    s = leaf.as_subclass(Sub)
    assert type(s) is Sub and s.data_ptr() == leaf.data_ptr() and s.grad_fn.name() == "AliasBackward0"
    (s * 2).sum().backward()
    assert leaf.grad.tolist() == [2.0, 2.0]
    a, b = torch.zeros(3), torch.ones(2)
    a.set_(b)
    assert a.is_set_to(b) and not a.is_set_to(b[:1]) and a._version == 1
    a.add_(1)
    assert b.tolist() == [2.0, 2.0] and a.set_().shape == (0,)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.randn(2, requires_grad=True).set_(torch.ones(2))
    t = torch.ones(2)
    assert t.to_dense() is t and t.to_dense(torch.float64).dtype == torch.float64
    target = torch.zeros(2)
    assert target.module_load(torch.ones(2)).tolist() == [1.0, 1.0] and target.tolist() == [1.0, 1.0]
    other = torch.full((2,), 3.0)
    assert target.module_load(other, assign=True).data_ptr() == other.data_ptr()
