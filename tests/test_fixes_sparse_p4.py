"""Fixes found by tests/compat/59_gcn_sparse_recsys.py (GCNs on a sparse adjacency, a recommender with sparse
embedding gradients): each compared with PyTorch, and the changed gradients also with gradcheck."""
import warnings

import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")


def _show(fn):
    """What fn returns (its repr) or raises (class and first sentence), in PyTorch's words."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return repr(fn()).replace("pedatorch", "torch")
    except Exception as e:
        return type(e).__name__, str(e).split(" This could be because")[0].replace("pedatorch", "torch")


def _same(cases):
    with warnings.catch_warnings():   # (PyTorch warns that sparse invariant checks are off)
        warnings.simplefilter("ignore")
        ours, theirs = [_show(f) for f in cases(pt)], [_show(f) for f in cases(torch)]
    for n, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, n


# ---------------------------------------------------------------- 1: Embedding(sparse=True) gives a sparse gradient

def _embedding_grads(lib):
    lib.manual_seed(0)
    out = []
    e = lib.nn.Embedding(6, 2, padding_idx=0, sparse=True)
    y = e(lib.tensor([[1, 0], [3, 1]]))
    out.append(y.grad_fn.name())
    (y * lib.arange(8.0).view(2, 2, 2)).sum().backward()
    g = e.weight.grad
    out += [g, (g.layout, g.is_coalesced(), g._nnz(), g.dtype, g.requires_grad), g.coalesce()]
    e(lib.tensor([5, 1])).sum().backward()              # a second backward adds into it
    out += [e.weight.grad, e.weight.grad.is_coalesced()]
    allpad = lib.nn.Embedding(4, 3, padding_idx=0, sparse=True)
    allpad(lib.tensor([0, 0])).sum().backward()          # only padding: an empty gradient
    out.append(allpad.weight.grad)
    i32 = lib.nn.Embedding(4, 2, sparse=True)
    i32(lib.tensor([2, 2], dtype=lib.int32)).sum().backward()
    out.append(i32.weight.grad)
    out.append(lib.nn.functional.embedding(lib.tensor([1]), lib.ones(3, 2, requires_grad=True), sparse=True)
               .grad_fn.name())
    return out


def test_embedding_sparse_gradient_as_pytorchs():
    _same(lambda lib: [lambda v=v: v for v in _embedding_grads(lib)])


def test_embedding_sparse_gradient_errors_and_bag():
    def cases(lib):
        lib.manual_seed(0)
        bag = lib.nn.EmbeddingBag(6, 2, mode="sum", sparse=True)
        bag(lib.tensor([1, 2, 4, 1, 5]), lib.tensor([0, 2]),
            per_sample_weights=lib.tensor([1.0, 2.0, 0.5, 0.5, 1.0])).pow(2).sum().backward()
        mean = lib.nn.EmbeddingBag(6, 2, mode="mean", sparse=True, padding_idx=2)
        mean(lib.tensor([[1, 2, 4], [2, 2, 2]])).pow(2).sum().backward()
        return [
            lambda: bag.weight.grad, lambda: mean.weight.grad,
            lambda: lib.nn.Embedding(4, 2, sparse=True, scale_grad_by_freq=True)(lib.tensor([1, 1])).sum().backward(),
            lambda: lib.nn.EmbeddingBag(4, 2, sparse=True, scale_grad_by_freq=True)(lib.tensor([[1, 1]])).sum()
            .backward(),
        ]
    _same(cases)


def test_embedding_sparse_gradient_gradcheck():
    idx = pt.tensor([[2, 0], [3, 2]])
    w = pt.randn(5, 3, dtype=pt.float64, requires_grad=True)
    # the forward's gradient: the dense path by finite differences (no padding_idx: its row's gradient is
    # zero by definition), and the sparse one equal to the dense one
    assert pt.autograd.gradcheck(lambda w: pt.nn.functional.embedding(idx, w), (w,))
    for padding_idx in (None, 3):
        g = pt.randn(2, 2, 3, dtype=pt.float64)
        sparse = pt.autograd.grad(pt.nn.functional.embedding(idx, w, padding_idx, sparse=True), w, g)[0]
        dense = pt.autograd.grad(pt.nn.functional.embedding(idx, w, padding_idx), w, g)[0]
        assert sparse.is_sparse and not sparse.is_coalesced()
        assert np.array_equal(sparse.to_dense().numpy(), dense.numpy())
    # the sparse gradient is differentiable in the incoming gradient (double backward)
    y = pt.nn.functional.embedding(idx, w, padding_idx=3, sparse=True)

    def sparse_grad(g):
        return pt.autograd.grad(y, w, g, create_graph=True)[0].to_dense()
    assert pt.autograd.gradcheck(sparse_grad, (pt.randn(2, 2, 3, dtype=pt.float64, requires_grad=True),))
    bag_w = pt.randn(5, 2, dtype=pt.float64, requires_grad=True)
    psw = pt.rand(4, dtype=pt.float64)
    y = pt.nn.functional.embedding_bag(pt.tensor([1, 4, 1, 0]), bag_w, pt.tensor([0, 1]), mode="sum", sparse=True,
                                       per_sample_weights=psw)

    def bag_grad(g):
        return pt.autograd.grad(y, bag_w, g, create_graph=True)[0].to_dense()
    assert pt.autograd.gradcheck(bag_grad, (pt.randn(2, 2, dtype=pt.float64, requires_grad=True),))


# ---------------------------------------------------------------- 2: the optimizers step on sparse gradients

def _optimizer_runs(lib):
    out = []
    for make in [lambda p: lib.optim.SparseAdam(p, lr=0.1), lambda p: lib.optim.SparseAdam(p, lr=0.1, maximize=True),
                 lambda p: lib.optim.SGD(p, lr=0.5), lambda p: lib.optim.SGD(p, lr=0.5, maximize=True),
                 lambda p: lib.optim.Adagrad(p, lr=0.1), lambda p: lib.optim.Adagrad(p, lr=0.1, lr_decay=0.1)]:
        lib.manual_seed(0)
        e = lib.nn.Embedding(6, 2, padding_idx=0, sparse=True)
        opt = make(e.parameters())
        for ids in ([1, 3, 1], [5, 0, 3]):
            opt.zero_grad()
            e(lib.tensor(ids)).pow(2).sum().backward()
            opt.step()
        out += [e.weight, {k: v for k, v in opt.state[e.weight].items()}]
    e = lib.nn.Embedding(4, 2, sparse=True)
    e(lib.tensor([1])).sum().backward()
    out += [lambda: lib.optim.SGD(e.parameters(), lr=0.1, weight_decay=0.1).step(),
            lambda: lib.optim.Adagrad(e.parameters(), weight_decay=0.1).step(),
            lambda: lib.optim.Adam(e.parameters()).step()]
    return out


def test_optimizers_step_on_sparse_gradients():
    def cases(lib):
        return [v if callable(v) and not isinstance(v, (lib.Tensor, dict)) else (lambda v=v: v)
                for v in _optimizer_runs(lib)]
    _same(cases)


# ---------------------------------------------------------------- 3: dense +/- sparse, in place and not

def _add_cases(lib):
    i = lib.tensor([[0, 1, 0], [1, 2, 1]])
    s = lib.sparse_coo_tensor(i, lib.tensor([1.0, 2.0, 3.0]), (2, 3))
    d = lib.ones(2, 3)
    sv = lib.sparse_coo_tensor(i, lib.tensor([1.0, 2.0, 3.0]), (2, 3), requires_grad=True)
    y = lib.zeros(2, 3, requires_grad=True).clone()

    def grad_of_sparse_operand():
        (d + sv).sum().backward()
        return sv.grad

    def inplace_recorded():
        y.add_(sv)
        y.pow(2).sum().backward()
        return y.grad_fn.name(), sv.grad
    return [
        lambda: d + s, lambda: d - s, lambda: s - s, lambda: (s - s).is_coalesced(), lambda: lib.add(d, s, alpha=2),
        lambda: lib.sub(d, s, alpha=2), lambda: d.clone().add_(s), lambda: d.clone().add_(s, alpha=-0.5),
        lambda: d.clone().sub_(s, alpha=2), lambda: d.clone().add_(s, alpha=2), lambda: d.double().add_(s),
        lambda: d.clone().add_(s.double()), lambda: lib.zeros(2, 3, dtype=lib.long).add_(s.long()),
        lambda: lib.zeros(3, 2).t().add_(s), lambda: lib.zeros(2, 1).add_(s), lambda: lib.ones(2, 1) + s,
        lambda: lib.zeros(2, 3, dtype=lib.long).add_(s), lambda: s - d, lambda: s + d,
        lambda: lib.zeros(2, 3, requires_grad=True).add_(s), lambda: (d + sv).grad_fn.name(),
        lambda: (d - sv).grad_fn.name(), lambda: (sv - sv).grad_fn.name(), grad_of_sparse_operand, inplace_recorded,
    ]


def test_dense_plus_sparse_as_pytorchs():
    _same(_add_cases)


# ---------------------------------------------------------------- 4: sparse_mask, indices dtypes, mm's errors

def test_sparse_mask_indices_dtypes_and_mm_errors():
    def cases(lib):
        i = lib.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
        s = lib.sparse_coo_tensor(i, lib.tensor([3.0, 4.0, 5.0, 1.0]), (2, 3))
        d = lib.arange(6.0).view(2, 3)
        return [
            lambda: d.sparse_mask(s), lambda: d.sparse_mask(s).is_coalesced(), lambda: d.sparse_mask(s.coalesce()),
            lambda: d.sparse_mask(s.coalesce()).is_coalesced(), lambda: lib.ones(3).sparse_mask(s),
            lambda: lib.sparse_coo_tensor(i.float(), lib.ones(4), (2, 3)),
            lambda: lib.sparse_coo_tensor(i.int(), lib.ones(4), (2, 3))._indices().dtype,
            lambda: lib.sparse_coo_tensor(i.float(), lib.ones(4)),
            lambda: lib.sparse.mm(s, lib.ones(5, 2)), lambda: lib.spmm(s, lib.ones(5, 2)),
            lambda: lib.sparse.addmm(lib.ones(2, 2), s, lib.ones(5, 2)),
            lambda: lib.sparse.addmm(lib.ones(3, 2), s, lib.ones(3, 2)),
            lambda: lib.sparse.addmm(lib.ones(2), s, lib.ones(3, 2)), lambda: lib.sparse.mm(s, lib.ones(3)),
        ]
    _same(cases)


def test_sparse_mask_is_what_adagrad_reads():
    d = pt.arange(6.0, dtype=pt.float64).view(2, 3)
    s = pt.sparse_coo_tensor(pt.tensor([[1, 0], [0, 2]]), pt.ones(2, dtype=pt.float64), (2, 3))
    m = d.sparse_mask(s)
    assert m.is_sparse and m._indices().tolist() == [[1, 0], [0, 2]] and m._values().tolist() == [3.0, 2.0]


# ---------------------------------------------------------------- 5: zero_() empties a sparse tensor

def test_zero_grad_and_sums_with_empty_sparse_tensors():
    def cases(lib):
        lib.manual_seed(0)
        e = lib.nn.Embedding(5, 2, sparse=True)
        opt = lib.optim.SGD(e.parameters(), lr=0.1)
        e(lib.tensor([1, 3])).sum().backward()
        opt.zero_grad(set_to_none=False)
        after_zero = (repr(e.weight.grad), e.weight.grad.is_coalesced())
        e(lib.tensor([2, 2])).sum().backward()          # accumulates into the emptied gradient
        s = lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.ones(2, 3), (2, 3))
        empty = lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.ones(2, 3), (2, 3)).zero_()
        return [lambda: after_zero, lambda: e.weight.grad, lambda: e.weight.grad.is_coalesced(), lambda: empty,
                lambda: s + empty, lambda: empty + s, lambda: empty - s, lambda: (empty + empty)._nnz()]
    _same(cases)


# ---------------------------------------------------------------- 6: a sparse tensor of one entry or none is coalesced

def test_one_entry_or_none_is_coalesced():
    def cases(lib):
        one = lib.sparse_coo_tensor([[1]], [1.0], (2,))
        two = lib.sparse_coo_tensor([[1, 0]], [1.0, 2.0], (2,))
        e = lib.nn.Embedding(5, 2, sparse=True)
        e(lib.tensor([[2]])).sum().backward()
        return [lambda: one.is_coalesced(), lambda: one.indices(), lambda: two.is_coalesced(),
                lambda: lib.sparse_coo_tensor(lib.zeros(1, 0, dtype=lib.long), lib.zeros(0), (2,)).is_coalesced(),
                lambda: (one + one).is_coalesced(), lambda: (-one).is_coalesced(), lambda: (two * 2).is_coalesced(),
                lambda: e.weight.grad.is_coalesced(), lambda: e.weight.grad.indices()]
    _same(cases)
