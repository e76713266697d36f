"""Sorting and searching: sort, argsort, msort, topk, kthvalue, unique, unique_consecutive, searchsorted,
bucketize, histc - compared with PyTorch (values, index tie-breaking, dtypes, gradients, grad_fn names,
errors), and gradchecked in float64.
"""
import pickle

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, gradcheck, to_np

nan, inf = float("nan"), float("inf")
RNG = np.random.default_rng(1)
A34 = RNG.standard_normal((3, 4))
A234 = RNG.standard_normal((2, 3, 4))
TIES = [[3., 1., nan, 2., 1., nan, 3.], [0., 0., -1., 5., 5., 0., -1.]]


def run(lib, fn, data, dtype="float64", requires_grad=False):
    x = lib.tensor(np.array(data, dtype=dtype), requires_grad=requires_grad)
    return x, fn(lib, x)


def compare(a, b, rtol=1e-6, atol=1e-7):
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        if hasattr(b, "n_fields"):
            assert type(a).__name__ == type(b).__name__
        for x, y in zip(a, b):
            compare(x, y, rtol, atol)
        return
    assert_close(a, b, rtol=rtol, atol=atol)
    assert (a.grad_fn is None) == (b.grad_fn is None), (a.grad_fn, b.grad_fn)
    if b.grad_fn is not None:
        assert a.grad_fn.name() == b.grad_fn.name()


def both(torch, fn, data, dtype="float64"):
    compare(run(pt, fn, data, dtype)[1], run(torch, fn, data, dtype)[1])


def compare_backward(torch, fn, data, dtype="float64"):
    res = []
    for lib in (pt, torch):
        x, out = run(lib, fn, data, dtype, requires_grad=True)
        o = out[0] if isinstance(out, tuple) else out
        w = lib.tensor(np.arange(1, o.numel() + 1, dtype=np.float64).reshape(tuple(o.shape)) / 3, dtype=o.dtype)
        (o * w).sum().backward()
        res.append((out, x.grad))
    compare(res[0][0], res[1][0])
    assert_close(res[0][1], res[1][1])


def raises_same(torch, fn, match=True):
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, (errs[0], errs[1])
    if match:
        assert str(errs[0]).split("\n")[0] == str(errs[1]).split("\n")[0], (str(errs[0]), str(errs[1]))


# ====================================================================== sort, argsort, msort

SORTS = {  # name: (fn, differentiable)
    "sort": (lambda m, x: x.sort(), True),
    "sort_desc": (lambda m, x: x.sort(descending=True), True),
    "sort_dim0": (lambda m, x: m.sort(x, 0), True),
    "sort_stable_desc": (lambda m, x: m.sort(x, dim=-1, descending=True, stable=True), True),
    "sort_stable": (lambda m, x: x.sort(stable=True), True),
    "argsort": (lambda m, x: x.argsort(), False),
    "argsort_desc_dim0": (lambda m, x: m.argsort(x, 0, True), False),
    "argsort_stable": (lambda m, x: x.argsort(dim=-1, descending=True, stable=True), False),
    "msort": (lambda m, x: x.msort(), True),
}


@pytest.mark.parametrize("name", list(SORTS))
def test_sort_vs_torch(torch, name):
    fn, differentiable = SORTS[name]
    both(torch, fn, TIES)                              # ties and NaN: stable order, NaN largest
    both(torch, fn, [[3, 1, 2, 2, 3, 1], [0, 0, 0, 1, 1, 0]], "int64")
    both(torch, fn, [[True, False, True], [False, False, True]], "bool")
    both(torch, fn, A234)
    both(torch, fn, np.zeros((2, 0)))
    if differentiable:
        compare_backward(torch, fn, A34)
        compare_backward(torch, fn, [[1., 1., 2.], [2., 1., 1.]])


def test_sort_zero_dim_and_errors(torch):
    both(torch, lambda m, x: x.sort(), 3.0)
    both(torch, lambda m, x: x.argsort(), 3.0)
    compare_backward(torch, lambda m, x: x.sort(0), 3.0)
    raises_same(torch, lambda m: m.tensor([1 + 1j, 2]).sort())
    raises_same(torch, lambda m: m.ones(2, 3).sort(2))
    raises_same(torch, lambda m: m.sort(m.ones(3), 0, False, True), match=False)   # stable is keyword-only


def test_sort_large_descending_stable(torch):
    x = RNG.integers(0, 5, size=(4, 50)).astype(np.float64)
    x[0, ::7] = nan
    for fn in (lambda m, x: x.sort(stable=True), lambda m, x: x.sort(descending=True, stable=True),
               lambda m, x: x.sort(dim=0, stable=True), lambda m, x: x.argsort(dim=1, descending=True, stable=True)):
        both(torch, fn, x)


def test_sort_out_and_return_type(torch):
    for lib in (pt, torch):
        v, i = lib.empty(0), lib.empty(0, dtype=lib.int64)
        r = lib.sort(lib.tensor([3., 1., 2.]), out=(v, i))
        assert v.tolist() == [1., 2., 3.] and i.tolist() == [1, 2, 0]
        assert r.values is v and r.indices is i
    r = pt.tensor([3., 1.]).sort()
    assert type(r).__name__ == "sort" and isinstance(r, tuple)
    assert repr(r) == f"torch.return_types.sort(\nvalues={r.values!r},\nindices={r.indices!r})"
    assert type(pickle.loads(pickle.dumps(r))) is type(r)
    import pedatorch.return_types as rt
    assert rt.sort is type(r) and pt.return_types.topk.n_fields == 2


# ====================================================================== topk, kthvalue

def test_topk_vs_torch(torch):
    for fn in (lambda m, x: x.topk(2), lambda m, x: x.topk(3, largest=False), lambda m, x: m.topk(x, 1, 0),
               lambda m, x: x.topk(k=2, dim=-2, largest=True, sorted=True), lambda m, x: x.topk(0),
               lambda m, x: x.topk(4, dim=1)):
        both(torch, fn, A34)
        compare_backward(torch, fn, A34)
        both(torch, fn, A34.astype(np.float32), "float32")
    both(torch, lambda m, x: x.topk(3), [3, 1, 2, 2, 3, 1], "int64")        # ties among the kept ones
    # NaN is the largest.  (Which of equal values PyTorch's topk/kthvalue return is left to its
    # partial sort / quickselect: the values always agree, the indices of ties need not.)
    vals = [3., 1., nan, 2., 3., 1.]
    assert_close(pt.tensor(vals).topk(2).values, torch.tensor(vals).topk(2).values)
    both(torch, lambda m, x: x.topk(1), 3.0)
    compare_backward(torch, lambda m, x: x.topk(1), 3.0)
    raises_same(torch, lambda m: m.tensor([3, 1, 2]).topk(4))
    raises_same(torch, lambda m: m.tensor([3, 1, 2]).topk(-1))
    raises_same(torch, lambda m: m.ones(2, 3).topk(1, dim=2))
    for lib in (pt, torch):
        v, i = lib.empty(0), lib.empty(0, dtype=lib.int64)
        lib.topk(lib.tensor([3., 1., 2.]), 2, out=(v, i))
        assert v.tolist() == [3., 2.] and i.tolist() == [0, 2]


def test_kthvalue_vs_torch(torch):
    for fn in (lambda m, x: x.kthvalue(2), lambda m, x: m.kthvalue(x, 1, 0), lambda m, x: x.kthvalue(3, -2, True),
               lambda m, x: x.kthvalue(k=4, dim=1, keepdim=True)):
        both(torch, fn, A34)
        compare_backward(torch, fn, A34)
    for k in (1, 2, 3, 4, 5, 6):
        ties = [3, 1, 2, 2, 3, 1]
        assert_close(pt.tensor(ties).kthvalue(k).values, torch.tensor(ties).kthvalue(k).values)
    for k in (1, 2, 3):
        both(torch, lambda m, x: x.kthvalue(k), [3, 1, 2, 2, 3, 1], "int64")
    both(torch, lambda m, x: x.kthvalue(6), [3., 1., nan, 2., 3., 1.])
    both(torch, lambda m, x: x.kthvalue(1, 0), 3.0)
    both(torch, lambda m, x: x.kthvalue(2, 0, True), [[3, 1], [2, 2]], "int64")
    raises_same(torch, lambda m: m.tensor([3, 1, 2]).kthvalue(4))
    raises_same(torch, lambda m: m.tensor([3, 1, 2]).kthvalue(0))
    raises_same(torch, lambda m: m.ones(2, 3).kthvalue(1, 2))


# ====================================================================== unique, unique_consecutive

def test_unique_vs_torch(torch):
    data = [3, 1, 2, 2, 3, 1, 7]
    for fn in (lambda m, x: x.unique(), lambda m, x: m.unique(x, return_inverse=True),
               lambda m, x: x.unique(return_counts=True), lambda m, x: x.unique(True, True, True),
               lambda m, x: x.unique(sorted=False), lambda m, x: m.unique(x, False, True)):
        both(torch, fn, data, "int64")
        both(torch, fn, [[3., 1.], [2., 3.]])
        both(torch, fn, [True, False, True], "bool")
        both(torch, fn, np.zeros(0))
    both(torch, lambda m, x: x.unique(return_counts=True), [3., nan, 2., nan])   # NaNs stay distinct
    both(torch, lambda m, x: x.unique(return_inverse=True), 3, "int64")
    m2 = [[3, 1], [2, 2], [3, 1]]
    for fn in (lambda m, x: x.unique(dim=0, return_inverse=True, return_counts=True), lambda m, x: x.unique(dim=1),
               lambda m, x: m.unique(x, dim=-1, return_counts=True)):
        both(torch, fn, m2, "int64")
    raises_same(torch, lambda m: m.tensor(3).unique(dim=0))
    raises_same(torch, lambda m: m.ones(2, 2).unique(dim=2))


def test_unique_consecutive_vs_torch(torch):
    for fn in (lambda m, x: x.unique_consecutive(), lambda m, x: x.unique_consecutive(return_inverse=True),
               lambda m, x: m.unique_consecutive(x, True, True), lambda m, x: x.unique_consecutive(return_counts=True)):
        both(torch, fn, [3, 3, 1, 1, 3, 2, 2, 2], "int64")
        both(torch, fn, [[1., 1.], [2., 1.]])
        both(torch, fn, np.zeros(0))
        both(torch, fn, 4.0)
    m2 = [[3, 1], [3, 1], [2, 2], [3, 1]]
    for fn in (lambda m, x: x.unique_consecutive(dim=0, return_counts=True),
               lambda m, x: x.unique_consecutive(return_inverse=True, dim=1),
               lambda m, x: x.unique_consecutive(True, True, -2)):
        both(torch, fn, m2, "int64")


def test_unique_grad_fn_and_no_derivative(torch):
    for fn, name in ((lambda m, x: x.unique(), "Unique2Backward0"),
                     (lambda m, x: x.unique(dim=0), "UniqueDimBackward0"),
                     (lambda m, x: x.unique_consecutive(), "UniqueConsecutiveBackward0"),
                     (lambda m, x: x.unique_consecutive(dim=0), "UniqueConsecutiveBackward0")):
        outs = []
        for lib in (pt, torch):
            x, out = run(lib, fn, [3., 1., 1., 2.], requires_grad=True)
            assert out.grad_fn.name() == name
            outs.append(out)
            with pytest.raises(NotImplementedError) as info:
                out.sum().backward()
            outs.append(str(info.value))
        assert outs[1] == outs[3]
    x = pt.tensor([3., 1.], requires_grad=True)
    v, inv, cnt = x.unique(return_inverse=True, return_counts=True)
    assert inv.grad_fn is None and cnt.grad_fn is None and inv.dtype == pt.int64


# ====================================================================== searchsorted, bucketize

def test_searchsorted_vs_torch(torch):
    seq = [1., 3., 5., 7., 9.]
    for vals in ([3., 6., 9.], [[0., 10.], [5., 5.]], [nan, 10., -inf]):
        for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}):
            outs = [lib.searchsorted(lib.tensor(seq), lib.tensor(vals), **kw) for lib in (pt, torch)]
            compare(*outs)
    for lib_vals in (5, 5.5, 0):
        compare(pt.searchsorted(pt.tensor(seq), lib_vals), torch.searchsorted(torch.tensor(seq), lib_vals))
    compare(pt.searchsorted(pt.tensor(seq), pt.tensor([3, 6])), torch.searchsorted(torch.tensor(seq),
                                                                                   torch.tensor([3, 6])))
    s2, v2 = [[1., 3., 5.], [2., 4., 6.]], [[3., 3.], [3., 7.]]
    for kw in ({}, {"right": True}):
        compare(pt.searchsorted(pt.tensor(s2), pt.tensor(v2), **kw),
                torch.searchsorted(torch.tensor(s2), torch.tensor(v2), **kw))
    for kw in ({}, {"right": True}):  # NaN values go last
        compare(pt.searchsorted(pt.tensor(s2), pt.tensor([[nan, 1.], [2., nan]]), **kw),
                torch.searchsorted(torch.tensor(s2), torch.tensor([[nan, 1.], [2., nan]]), **kw))
    unsorted, sorter = [5., 1., 3.], [1, 2, 0]
    for v in ([2.], [0., 3., 6.]):
        for kw in ({}, {"right": True}):
            compare(pt.searchsorted(pt.tensor(unsorted), pt.tensor(v), sorter=pt.tensor(sorter), **kw),
                    torch.searchsorted(torch.tensor(unsorted), torch.tensor(v), sorter=torch.tensor(sorter), **kw))
    raises_same(torch, lambda m: m.searchsorted(m.tensor(seq), 5, side="left", right=True))
    raises_same(torch, lambda m: m.searchsorted(m.tensor(seq), 5, side="foo"))
    raises_same(torch, lambda m: m.searchsorted(m.tensor(s2), m.tensor([3., 3.])))
    raises_same(torch, lambda m: m.searchsorted(m.tensor(s2), m.tensor([[3., 3.]])))
    for lib in (pt, torch):
        o = lib.empty(0, dtype=lib.int64)
        lib.searchsorted(lib.tensor(seq), lib.tensor([4.]), out=o)
        assert o.tolist() == [2]


def test_bucketize_vs_torch(torch):
    b = [1, 3, 5, 7, 9]
    for vals in ([[3, 6, 9]], [0, 1, 10]):
        for kw in ({}, {"right": True}, {"out_int32": True}):
            compare(pt.bucketize(pt.tensor(vals), pt.tensor(b), **kw),
                    torch.bucketize(torch.tensor(vals), torch.tensor(b), **kw))
    compare(pt.bucketize(5, pt.tensor(b)), torch.bucketize(5, torch.tensor(b)))
    compare(pt.bucketize(pt.tensor([2.5, 9.]), pt.tensor([1., 3., 9.]), right=True),
            torch.bucketize(torch.tensor([2.5, 9.]), torch.tensor([1., 3., 9.]), right=True))
    raises_same(torch, lambda m: m.bucketize(m.tensor([3]), m.tensor([[1, 3]])))


def test_methods_like_torch(torch):
    for n in ["sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_consecutive", "histc",
              "searchsorted", "bucketize"]:
        assert hasattr(pt.Tensor, n) == hasattr(torch.Tensor, n), n
        assert hasattr(pt, n) == hasattr(torch, n), n


# ====================================================================== histc

def test_histc_vs_torch(torch):
    for data in ([3., 1., 2.], A34, [0., 0.5, 1., 1.5, 2., 2.5, 3.], [2., 2.], [1., nan, 3.], [], [1e-8, 1., 1e8]):
        for kw in ({"bins": 3}, {"bins": 4, "min": 0, "max": 3}, {}, {"bins": 7, "min": -1, "max": 1},
                   {"bins": 5, "min": 1, "max": 1}):
            if np.isnan(np.asarray(data)).any() and kw.get("min", 0) == kw.get("max", 0):
                continue  # the range would come from the data, NaN: an error (checked below)
            for dt in ("float32", "float64"):
                both(torch, lambda m, x: x.histc(**kw), data, dt)
    both(torch, lambda m, x: m.histc(x, 4, -2, 2), A234.astype(np.float32), "float32")
    both(torch, lambda m, x: x.histc(3, 0, 3), [0.1, 0.9999999, 1.0, 2.0, 2.9999, 3.0], "float32")
    raises_same(torch, lambda m: m.tensor([3, 1, 2]).histc(3))
    raises_same(torch, lambda m: m.tensor([2., 2.]).histc(3, min=3, max=1))
    raises_same(torch, lambda m: m.tensor([2., 2.]).histc(-1))
    raises_same(torch, lambda m: m.tensor([2., 2.]).histc(0))
    raises_same(torch, lambda m: m.tensor([2., inf]).histc(3))
    raises_same(torch, lambda m: m.tensor([2., nan]).histc(3), match=False)  # PyTorch prints [-nan, -nan]
    for lib in (pt, torch):
        x = lib.tensor([3., 1., 2.], requires_grad=True)
        h = x.histc(3)
        assert h.grad_fn is None and not h.requires_grad


# ====================================================================== gradcheck

GRADCHECK = {
    "sort": lambda x: x.sort(1).values,
    "sort_desc": lambda x: x.sort(0, descending=True)[0],
    "msort": lambda x: x.msort(),
    "topk": lambda x: x.topk(2).values,
    "topk_small": lambda x: x.topk(3, dim=0, largest=False)[0],
    "kthvalue": lambda x: x.kthvalue(2).values,
    "kthvalue_keep": lambda x: x.kthvalue(1, 0, True)[0],
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck(name):
    assert gradcheck(GRADCHECK[name], A34)
    x = pt.tensor(A34, requires_grad=True)
    assert pt.autograd.gradgradcheck(GRADCHECK[name], (x,))


def test_indices_are_int64_without_grad_fn(torch):
    x = pt.tensor(A34, requires_grad=True)
    for r in (x.sort(), x.topk(2), x.kthvalue(1)):
        assert r.indices.dtype == pt.int64 and r.indices.grad_fn is None
        assert r.values.grad_fn is not None
    assert x.argsort().dtype == pt.int64 and x.argsort().grad_fn is None
    assert to_np(pt.searchsorted(pt.tensor([1., 2.]), pt.tensor([1.5]))).dtype == np.int64
