"""Sparse COO tensors (``pedatorch/sparse``, ``backend/sparse.py``): building, printing, coalescing, the ops
with sparse kernels, their gradients and the NotImplementedError of the others -- compared with PyTorch line
by line, and the gradients also with finite differences."""
import warnings

import numpy as np
import pytest

import pedatorch as pt

from conftest import error_of


def _show(fn):
    try:
        return repr(fn()).replace("pedatorch", "torch")
    except Exception as e:
        return (type(e).__name__, str(e).split("\n")[0][:110].replace("pedatorch", "torch"))


def _cases(lib):
    i = lib.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
    v = lib.tensor([3., 4., 5., 1.])
    s = lib.sparse_coo_tensor(i, v, (2, 3))
    d = lib.arange(6.).reshape(3, 2)
    return [
        lambda: s, lambda: (s.layout, s.is_sparse, s.shape, s.dtype, s.device, s._nnz(), s.is_coalesced(),
                            s.sparse_dim(), s.dense_dim(), s.requires_grad, s.dim(), s.numel(), s.is_cpu, s.is_cuda),
        lambda: s.to_dense(), lambda: s.coalesce(), lambda: s.indices(), lambda: s._indices(), lambda: s._values(),
        lambda: s.coalesce().values(), lambda: s.coalesce().indices(), lambda: lib.sparse_coo_tensor(i, v),
        lambda: lib.sparse_coo_tensor(i, lib.tensor([1, 2, 3, 4])),
        lambda: lib.sparse_coo_tensor(i, [1, 2, 3, 4], (2, 3), dtype=lib.float64),
        lambda: lib.sparse_coo_tensor(i, v[:3], (2, 3)),
        lambda: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.ones(2, 3), (2, 3)),
        lambda: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.ones(2, 3), (2, 3)).to_dense(),
        lambda: lib.tensor([[0., 1.], [2., 0.]]).to_sparse(), lambda: lib.tensor([[0., 1.], [2., 0.]]).to_sparse(1),
        lambda: lib.tensor([[0., 1.], [2., 0.]]).to_sparse().to_dense(), lambda: lib.zeros(2, 3).to_sparse(),
        lambda: lib.sparse.FloatTensor(i, v, lib.Size([2, 3])),
        lambda: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.long), lib.zeros(0), (2, 3)),
        lambda: lib.sparse.mm(s, d), lambda: lib.spmm(s, d), lambda: lib.mm(s, d), lambda: s @ d,
        lambda: s @ lib.ones(3), lambda: lib.ones(2, 2) @ s, lambda: lib.sparse.addmm(lib.ones(2, 2), s, d),
        lambda: lib.sparse.sum(s), lambda: lib.sparse.sum(s, dim=1), lambda: s.sum(), lambda: s * 2,
        lambda: 2 * s, lambda: s / 2, lambda: -s, lambda: s + s, lambda: s + s.coalesce(), lambda: s.t(),
        lambda: s.transpose(0, 1), lambda: s.double(), lambda: s.to(lib.float64), lambda: s.clone(),
        lambda: s.detach(), lambda: s * lib.full((2, 3), 2.0), lambda: lib.ones(2, 3) + s,
        lambda: s + lib.ones(2, 3), lambda: s.view(-1), lambda: s.exp(), lambda: s.numpy(), lambda: s.tolist(),
        lambda: s.data_ptr(), lambda: s.stride(), lambda: str(s.coalesce()),
        lambda: lib.sparse_coo_tensor(i, v, (2, 3), dtype=lib.float64).double().to_dense(),
    ]


def test_sparse_tensors_behave_as_pytorchs(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = [_show(f) for f in _cases(pt)], [_show(f) for f in _cases(torch)]
    for n, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, n


def _grads(lib):
    i = lib.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
    out = []
    w = lib.arange(6.).reshape(3, 2).requires_grad_()
    sv = lib.sparse_coo_tensor(i, lib.tensor([3., 4., 5., 1.]), (2, 3), requires_grad=True)
    y = lib.sparse.mm(sv, w)
    out.append(y.grad_fn.name())
    y.sum().backward()
    out += [w.grad, sv.grad]
    (lib.sparse_coo_tensor(i, lib.tensor([3., 4., 5., 1.]), (2, 3)) @ w).pow(2).sum().backward()
    out.append(w.grad)
    leaf = lib.sparse_coo_tensor(i, lib.tensor([3., 4., 5., 1.]), (2, 3), requires_grad=True)
    leaf.to_dense().sum().backward()
    out.append(leaf.grad)
    (leaf * 2).to_dense().sum().backward()          # a second sparse gradient adds to the first
    out.append(leaf.grad)
    vv = lib.tensor([3., 4., 5., 1.], requires_grad=True)
    sp = lib.sparse_coo_tensor(i, vv, (2, 3))
    out.append(sp.grad_fn.name())
    (sp @ lib.ones(3, 1)).sum().backward()
    out.append(vv.grad)
    q = lib.sparse_coo_tensor(i, lib.tensor([3., 4., 5., 1.]), (2, 3), requires_grad=True)
    lib.sparse.sum(q).backward()
    out.append(q.grad)
    r = lib.sparse_coo_tensor(i, lib.tensor([3., 4., 5., 1.]), (2, 3), requires_grad=True)
    (r.t() @ lib.ones(2, 2)).sum().backward()       # a dense gradient reaches the sparse leaf here
    out.append(r.grad)
    for f in [lambda x: x.coalesce(), lambda x: x * 2, lambda x: -x, lambda x: x.t(), lambda x: x + x,
              lambda x: x.double(), lambda x: x.clone(), lambda x: x.coalesce().values(), lambda x: x.to_dense()]:
        out.append(f(lib.sparse_coo_tensor(i, lib.tensor([3., 4., 5., 1.]), (2, 3), requires_grad=True)).grad_fn.name())
    return out


def test_sparse_gradients_as_pytorchs(torch):
    ours, theirs = [_show(lambda: v) for v in _grads(pt)], [_show(lambda: v) for v in _grads(torch)]
    for n, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, n


def test_sparse_gradients_against_finite_differences():
    i = pt.tensor([[0, 1, 1, 2], [2, 0, 2, 1]])
    w = pt.randn(3, 2, dtype=pt.float64, requires_grad=True)
    v = pt.randn(4, dtype=pt.float64, requires_grad=True)
    d = pt.randn(3, 3, dtype=pt.float64, requires_grad=True)

    def f(v, w, d):
        s = pt.sparse_coo_tensor(i, v, (3, 3))
        return pt.sparse.mm(s, w).sin().sum() + (s * d).to_dense().sum() + pt.sparse.addmm(w[:1], s, w,
                                                                                              beta=0.5, alpha=2.0).sum()
    assert pt.autograd.gradcheck(f, (v, w, d))
    assert pt.autograd.gradcheck(lambda v: (pt.sparse_coo_tensor(i, v, (3, 3)).t() * 3).to_dense().exp(), (v,))


def test_coalesce_sorts_and_adds_up():
    idx = np.array([[2, 0, 2, 1, 0], [1, 1, 1, 0, 1]])
    vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    s = pt.sparse_coo_tensor(pt.tensor(idx), pt.tensor(vals), (3, 2)).coalesce()
    assert s.indices().tolist() == [[0, 1, 2], [1, 0, 1]] and s.values().tolist() == [7.0, 4.0, 4.0]
    dense = np.zeros((3, 2))
    np.add.at(dense, tuple(idx), vals)
    assert np.array_equal(s.to_dense().numpy(), dense)


def _in_place(lib):
    out = []
    s = lib.sparse_coo_tensor([[0, 1]], [1., 2.], (2,))
    c = s.clone().mul_(2)
    out.append(c)
    c.add_(s)
    out += [c, c.div_(2).to_dense()]
    r = lib.sparse_coo_tensor([[0, 1], [1, 2]], [1., 2.], (2, 3), requires_grad=True)
    lib.mm(r, lib.ones(3, 2)).sum().backward()      # a dense gradient kept by a sparse leaf
    out.append(r.grad)
    lib.manual_seed(0)
    e = lib.nn.Embedding(5, 2, sparse=True)
    opt = lib.optim.SGD(e.parameters(), lr=0.1, momentum=0.9, nesterov=True)   # a sparse momentum buffer
    for _ in range(3):
        opt.zero_grad()
        (e(lib.tensor([1, 3, 1])) ** 2).sum().backward()
        opt.step()
    out += [e.weight.detach(), opt.state[e.weight]["momentum_buffer"].is_sparse]
    return out


def test_in_place_ops_on_sparse_tensors_as_pytorchs(torch):
    assert [_show(lambda: v) for v in _in_place(pt)] == [_show(lambda: v) for v in _in_place(torch)]
