"""Indexing: ``x[key]``, ``x[key] = v`` and the index ops (gather, scatter, index_select, masked_fill, ...).

Every case runs the same expression on pedatorch and on PyTorch and compares values, dtypes, the
grad_fn chain, memory sharing (views), gradients and exception classes/messages; every differentiable
op is also gradchecked in float64.
"""
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, gradcheck, to_np

RNG = np.random.default_rng(0)
A345 = RNG.standard_normal((3, 4, 5))
A34 = RNG.standard_normal((3, 4))
GI = [[0, 1, 2, 0], [2, 1, 0, 0]]     # a gather/scatter index for dim 0 of a (3, 4) tensor (repeats)


def chain(t):
    """The grad_fn names from t back to the leaf, following the first input."""
    out, f = [], t.grad_fn
    while f is not None and type(f).__name__ != "AccumulateGrad":
        out.append(type(f).__name__)
        f = f.next_functions[0][0] if f.next_functions else None
    return out


def lib_eval(lib, expr, **names):
    """Evaluate ``expr`` with ``L`` = the library (pedatorch or torch) and T = L.tensor."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(expr, {"L": lib, "T": lib.tensor, "np": np}, names)


def compare(torch, fn, *data, grad=True, check_chain=True, rtol=1e-6, atol=1e-8):
    """fn(L, *tensors) on both libraries: same values/dtype/grad_fn (chain), same input gradients."""
    results = []
    for lib in (pt, torch):
        ts = [lib.tensor(np.array(d), requires_grad=grad and np.asarray(d).dtype.kind == "f") for d in data]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(lib, *ts)
        results.append((ts, y))
    (pts, py), (tts, ty) = results
    if isinstance(ty, tuple):
        assert len(py) == len(ty)
        for a, b in zip(py, ty):
            assert_close(a, b)
        return py, ty
    assert_close(py, ty, rtol=rtol, atol=atol)
    if check_chain:
        assert chain(py) == chain(ty)
    if grad and ty.requires_grad:
        g = RNG.standard_normal(tuple(ty.shape))
        py.backward(pt.tensor(g))
        ty.backward(torch.tensor(g))
        for a, b in zip(pts, tts):
            if b.grad is None:
                assert a.grad is None or not np.any(to_np(a.grad))
            else:
                assert_close(a.grad, b.grad, rtol=rtol, atol=atol)
    return py, ty


def same_error(torch, fn, *data, match_message=True):
    """fn(L, *tensors) raises the same exception class (and message) in both libraries."""
    errs = []
    for lib in (pt, torch):
        ts = [lib.tensor(np.array(d)) for d in data]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                fn(lib, *ts)
        errs.append(info.value)
    ours, theirs = errs
    assert type(ours) is type(theirs), (repr(ours), repr(theirs))
    if match_message:
        assert str(ours) == str(theirs)


# ====================================================================== __getitem__

GET_KEYS = [
    "0", "-1", "1:", "None", "...", ":", "(slice(None),)", "(...,)", "1, 2", "1:, 0", "0, 1:", "None, 0", "True",
    "False", "0, None, 1", "[0, 2]", "[0, 2], [1, 1]", "0, [1, 2]", "[0, 1], :, [1, 2]", ":, [0, 1], [1, 2]",
    "T(1)", "T([1])", "..., 0", "..., None", "::2", "1::2, ::3", ":, :", "0:3", "0:100", "-100:100", "-3:, 0",
    "0:3, :", ":, 0:100", ":, :2", "0, 0, 0", ":, None", "M2", "M3", "[True, False, True]", "None, None",
    "True, 0", ":, True", "T(True)", "T(True), 0", "[[0, 1], [1, 2]]", "T([[0, 1], [1, 2]])", "T([0, 1]), 1:",
    "[0, 1], None, [0, 1]", "..., [0, 1]", "[0, 1], ..., [0, 1]", "0, ..., [1, 2]", ":, 0, [1, 2]", "[0, 1], 0",
    "M2, 0", "M2, 1:", "M2, None", "0, M1", "np.array([0, 2])", "np.int64(1)", "np.array(1)", "T([0, 1]).int()",
    "[]", "[0.7, 1.8]", "[[0, 0, 2]]", "[0, 0, 2]", "T([[0, 0], [2, 2]]), T([1, 3])", "5:", "2:1",
]


def _keys(lib):
    base = np.array(A345)
    return {"M2": lib.tensor(base[..., 0] > 0), "M3": lib.tensor(base > 0), "M1": lib.tensor(base[0, :, 0] > 0)}


@pytest.mark.parametrize("key", GET_KEYS)
def test_getitem_matches_torch(torch, key):
    res = []
    for lib in (pt, torch):
        x = lib.tensor(A345, requires_grad=True)
        y = lib_eval(lib, f"x[{key}]", x=x, **_keys(lib))
        res.append((x, y))
    (px, py), (tx, ty) = res
    assert_close(py, ty)
    assert chain(py) == chain(ty)
    assert (py._base is not None) == (ty._base is not None)       # a view exactly where PyTorch's is
    g = RNG.standard_normal(tuple(ty.shape))
    py.backward(pt.tensor(g))
    ty.backward(torch.tensor(g))
    assert_close(px.grad, tx.grad)


@pytest.mark.parametrize("key", ["0", "1:", "None", "...", ":", "1:, 0", "::2, None, 1", "..., 1", "0, 0, 0"])
def test_basic_getitem_is_a_view(key):
    x = pt.tensor(A345.copy())
    y = eval(f"x[{key}]")
    assert y._base is x
    assert np.shares_memory(y._data, x._data)
    x.add_(1.0)                                                 # a change through the base shows in the view
    np.testing.assert_allclose(to_np(y), eval(f"(A345 + 1)[{key}]"))
    y.mul_(0.0)                                                 # and a change through the view shows in the base
    assert np.all(eval(f"x._data[{key}]") == 0)
    assert x._version == y._version


def test_data_ptr_of_views(torch):
    for lib in (pt, torch):
        x = lib.tensor(A34.copy())
        assert x[1:].data_ptr() == x.data_ptr() + 4 * 8
        assert x[0].data_ptr() == x.data_ptr()
        assert x[:, 1].data_ptr() == x.data_ptr() + 8
        assert x[[0, 1]].data_ptr() != x.data_ptr()
        assert x[[1]].storage_offset() == 0


def test_advanced_getitem_copies():
    x = pt.tensor(A34.copy())
    for y in (x[[0, 1]], x[x > 0], x[True], x[:, [1]]):
        assert y._base is None
        assert not np.shares_memory(y._data, x._data)


def test_repeated_indices_sum_in_backward(torch):
    compare(torch, lambda L, x: x[[0, 0, 2, 0]], A34)
    compare(torch, lambda L, x: x[[0, 0], [1, 1]], A34)
    compare(torch, lambda L, x: x[:, L.tensor([[3, 3], [0, 3]])], A34)
    x = pt.tensor(A34, requires_grad=True)
    x[[1, 1, 1]].sum().backward()
    np.testing.assert_array_equal(to_np(x.grad)[1], [3, 3, 3, 3])


GET_ERRORS = [
    "5", "-4", "0, 9", "None, 5", "..., 7", "True, 5", "0, :, [9]", ":, [7]", "0, 0, [1, 9]", "[1, -9]", "T(5)",
    "[0, 1], [0, 1, 2]", "0, 0, 0, 0", "(0, 1, 2, 3)", "::-1", "::0", "1.0", "'a'", "{0}", "np.bool_(True)",
    "T(1.0)", "T([0, 1], dtype=L.uint8)", "T([True, False])", "M1, ...", "T([0.5])",
]


@pytest.mark.parametrize("key", GET_ERRORS)
def test_getitem_errors(torch, key):
    def fn(L, x):
        return lib_eval(L, f"x[{key}]", x=x, **_keys(L))
    same_error(torch, fn, A345)


@pytest.mark.parametrize("key", ["0", ":", "[0]", "(0,)", "None", "...", "True", "False"])
def test_getitem_0dim(torch, key):
    def fn(L, x):
        return lib_eval(L, f"x[{key}]", x=x)
    try:
        fn(torch, torch.tensor(3.0))
    except Exception:
        same_error(torch, fn, 3.0)
    else:
        compare(torch, fn, 3.0, check_chain=True)


def test_non_tuple_sequence_warns():
    x = pt.tensor(A345)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        y = x[[[0, 1], [1, 2]]]
    assert y.shape == (2, 5)
    with pytest.warns(UserWarning, match="uint8"):
        assert x[pt.tensor(A345 > 0).byte()].shape == (int((A345 > 0).sum()),)


@pytest.mark.parametrize("key", ["1:, 0", "0", "[0, 2]", "M2", "[0, 0, 1], :, [1, 1, 3]", "None, 1, ..., [0, 0]",
                                 ":, 1:3, [4, 4]", "0, [[1, 1], [2, 3]]"])
def test_getitem_gradcheck(key):
    names = {"M2": pt.tensor(A345[..., 0] > 0)}
    assert gradcheck(lambda x: eval(f"x[{key}]", {}, dict(names, x=x)), A345)


def test_getitem_double_backward():
    x = pt.tensor(A345, requires_grad=True)
    y = (x[1:, 0] ** 2).sum() + (x[[0, 0]] ** 3).sum()
    g, = pt.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    expect = np.zeros_like(A345)
    expect[1:, 0] += 2
    expect[0] += 2 * 6 * A345[0]
    np.testing.assert_allclose(to_np(x.grad), expect)


# ====================================================================== __setitem__

SET_CASES = [
    ("0", "1.5"), ("0", "V(4)"), ("0", "V(1, 4)"), ("1:, 0", "V(2)"), ("1:, 0", "2.0"), ("[0, 1]", "1.0"),
    ("[0, 1]", "V(4)"), ("[0, 1]", "V(2, 4)"), ("[0, 1]", "V(1, 1, 4)"), ("M", "0.0"), ("M", "S()"),
    ("M", "V(1)"), ("N", "V(4)"), ("N", "2.0"), ("True", "2.0"), ("...", "2.0"), ("...", "V(3, 4)"),
    (":", "V(3, 4)"), (":", "V(4)"), ("None", "1.0"), ("0, [1, 2]", "1.0"), ("[0, 1], 0", "V(2)"),
    ("0, [1, 2]", "V(2)"), ("T([True, False, True])", "5.0"), ("T([True, False, True]), 0", "V(2)"),
    ("False", "1.0"), (":, 1::2", "V(2)"), ("..., 0", "S()"), ("[0, 2], 1:3", "V(2, 2)"), ("0, 0", "S()"),
    ("[[0], [2]], [1, 3]", "V(2, 2)"), ("1", "V(1)"),
]


def _set_names(lib):
    base = np.array(A34)
    return {"M": lib.tensor(base > 0), "N": lib.tensor(base[:, 0] > 0)}


def _value(shape):
    return np.random.default_rng(len(shape) + sum(shape)).standard_normal(shape)


@pytest.mark.parametrize("key,value", SET_CASES)
def test_setitem_matches_torch(torch, key, value):
    res = []
    for lib in (pt, torch):
        x = lib.tensor(A34, requires_grad=True)
        made = []

        def V(*shape):
            made.append(lib.tensor(_value(shape), requires_grad=True))
            return made[-1]

        y = x * 1
        names = dict(_set_names(lib), V=V, S=V, T=lib.tensor, y=y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(f"y[{key}] = {value}", {"np": np}, names)
        res.append((x, y, made))
    (px, py, pvs), (tx, ty, tvs) = res
    assert_close(py, ty)
    assert type(py.grad_fn).__name__ == type(ty.grad_fn).__name__
    g = RNG.standard_normal((3, 4))
    py.backward(pt.tensor(g))
    ty.backward(torch.tensor(g))
    assert_close(px.grad, tx.grad)
    for a, b in zip(pvs, tvs):
        assert_close(a.grad, b.grad)


def test_setitem_writes_through_views():
    x = pt.zeros(3, 4)
    x[1:, 0] = 7.0
    x[0] = pt.tensor([1.0, 2.0, 3.0, 4.0])
    x[[2, 2], [3, 3]] = 9.0
    x[x < 0] = -1.0
    expect = np.zeros((3, 4), np.float32)
    expect[1:, 0] = 7
    expect[0] = [1, 2, 3, 4]
    expect[2, 3] = 9
    np.testing.assert_array_equal(to_np(x), expect)
    base = pt.zeros(4, 4)
    v = base[1:]                     # setitem on a view changes its base too
    v[0, 1:3] = 5.0
    assert to_np(base)[1, 1] == 5 and to_np(base)[1, 2] == 5


def test_setitem_casts_to_the_target_dtype(torch):
    for lib in (pt, torch):
        xi = lib.zeros(4, dtype=lib.int64)
        xi[0] = 2.7
        xi[1] = lib.tensor(3.9)
        xi[2:] = lib.tensor([1.5, -2.5])
        xi[[3]] = -4.6
        xb = lib.zeros(3, dtype=lib.bool)
        xb[0] = 5
        xf = lib.zeros(3)
        xf[0] = lib.tensor(1, dtype=lib.float64)
        if lib is pt:
            ours = (to_np(xi), to_np(xb), to_np(xf))
    theirs = (to_np(xi), to_np(xb), to_np(xf))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


SET_ERRORS = [
    ("slice(None)", "[4, 5, 6]"), ("slice(None)", "np.array([4., 5, 6])"), ("0", "'a'"), ("0", "None"),
    ("[1, 2]", "T([1, 2])"), ("slice(None)", "T([1., 2.])"), ("[0, 1]", "T([1., 2., 3.])"),
    ("0", "T([1., 2., 3.])"), ("5", "1.0"), ("(0, 0)", "1.0"), ("[0, 7]", "1.0"), ("0", "1 + 2j"),
]


@pytest.mark.parametrize("key,value", SET_ERRORS)
def test_setitem_errors(torch, key, value):
    def fn(L, x):
        v = lib_eval(L, value)
        lib_eval(L, f"x.__setitem__({key}, v)", x=x, v=v)
    same_error(torch, fn, np.zeros(3, np.float32))


def test_setitem_into_leaf_that_requires_grad(torch):
    for key in ("0", "slice(1, None)", "[0]", "Ellipsis", "(x.detach() > 0)"):
        def fn(L, x):
            x.requires_grad_()
            lib_eval(L, f"x.__setitem__({key}, 1.0)", x=x)
        same_error(torch, fn, np.ones(3))
    x = pt.tensor(np.ones(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x[[0]] = 2.0
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0] = 2.0
    with pt.no_grad():
        x[0] = 2.0
        x[[1]] = 3.0
    np.testing.assert_array_equal(to_np(x), [2, 3, 1])
    assert x.requires_grad and x.grad_fn is None


def test_setitem_makes_a_plain_tensor_require_grad():
    v = pt.tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = pt.zeros(3, dtype=pt.float64)
    y[1:] = v
    assert y.requires_grad and type(y.grad_fn).__name__ == "CopySlices"
    (y * pt.tensor(np.array([5.0, 6.0, 7.0]))).sum().backward()
    np.testing.assert_array_equal(to_np(v.grad), [6, 7])
    w = pt.tensor(np.array([1.0, 2.0]), requires_grad=True)
    z = pt.zeros(3, dtype=pt.float64)
    z[[2, 0]] = w
    assert type(z.grad_fn).__name__ == "IndexPutBackward0"
    (z * pt.tensor(np.array([5.0, 6.0, 7.0]))).sum().backward()
    np.testing.assert_array_equal(to_np(w.grad), [7, 5])


def _set(key):
    def f(x, v):
        y = x * 1
        exec(f"y[{key}] = v", {"np": np, "pt": pt}, {"y": y, "v": v})
        return y
    return f


@pytest.mark.parametrize("key,vshape", [("1:, 0", (2,)), ("0", (4,)), ("[0, 2]", (2, 4)), ("[0, 2], [1, 1]", (2,)),
                                        ("0, [1, 2]", (2,)), ("..., 1", (3,)), ("pt.tensor(np.eye(3, 4) > 0)", (3,)),
                                        (":, ::2", (1, 2)), ("None, 1:, 2", ()), ("1", ())])
def test_setitem_gradcheck(key, vshape):
    assert gradcheck(_set(key), A34, RNG.standard_normal(vshape))


def test_setitem_then_use_old_view():
    # a view taken before the write reads the new values
    x = pt.tensor(A34, requires_grad=True)
    y = x * 2
    row = y[1]
    y[1, 1:] = 0.0
    assert np.all(to_np(row)[1:] == 0)


# ====================================================================== the index ops

OPS = {
    "index_select": (lambda L, x: L.index_select(x, 1, L.tensor([3, 0, 0])), [A34]),
    "index_select_int32": (lambda L, x: x.index_select(0, L.tensor([2, 0], dtype=L.int32)), [A34]),
    "index_select_0d_index": (lambda L, x: L.index_select(x, 0, L.tensor(1)), [A34]),
    "index_select_0d": (lambda L, x: L.index_select(x, 0, L.tensor([0])), [np.array(3.0)]),
    "gather": (lambda L, x: L.gather(x, 0, L.tensor(GI)), [A34]),
    "gather_dim1_small": (lambda L, x: x.gather(1, L.tensor([[3], [0]])), [A34]),
    "gather_0d": (lambda L, x: L.gather(x, 0, L.tensor([0, 0])), [np.array(3.0)]),
    "scatter_src": (lambda L, x, s: L.scatter(x, 0, L.tensor(GI), s), [A34, A34[:2] * 2]),
    "scatter_value": (lambda L, x: L.scatter(x, 1, L.tensor([[0], [3], [1]]), 1.5), [A34]),
    "scatter_value_kw": (lambda L, x: L.scatter(x, 1, L.tensor([[0], [3], [1]]), value=1.5), [A34]),
    "scatter_": (lambda L, x, s: (x * 1).scatter_(0, L.tensor(GI), s), [A34, A34[:2] + 1]),
    "scatter_add": (lambda L, x, s: L.scatter_add(x, 0, L.tensor(GI), s), [A34, A34[:2] * 3]),
    "scatter_add_": (lambda L, x, s: (x * 1).scatter_add_(1, L.tensor([[1, 1], [0, 3], [2, 2]]), s),
                     [A34, A34[:, :2]]),
    "index_add": (lambda L, x, s: L.index_add(x, 1, L.tensor([0, 3, 0]), s, alpha=2.5), [A34, A34[:, :3]]),
    "index_add_": (lambda L, x, s: (x * 1).index_add_(0, L.tensor([2, 2]), s), [A34, A34[:2]]),
    "index_copy": (lambda L, x, s: L.index_copy(x, 1, L.tensor([3, 1]), s), [A34, A34[:, :2] * 5]),
    "index_copy_": (lambda L, x, s: (x * 1).index_copy_(0, L.tensor([2]), s), [A34, A34[:1] * 5]),
    "index_fill": (lambda L, x: L.index_fill(x, 1, L.tensor([3, 1]), -1.0), [A34]),
    "index_fill_tensor": (lambda L, x, v: x.index_fill(0, L.tensor([0, 2]), v), [A34, np.array(2.0)]),
    "index_fill_": (lambda L, x, v: (x * 1).index_fill_(1, L.tensor([0, 3, 0]), v), [A34, np.array(2.0)]),
    "index_fill_negative": (lambda L, x: x.index_fill(1, L.tensor([0, -1]), 5.0), [A34]),
    "index_put": (lambda L, x, v: L.index_put(x, (L.tensor([0, 2]), L.tensor([1, 1])), v), [A34, A34[0, :2]]),
    "index_put_acc": (lambda L, x, v: x.index_put((L.tensor([0, 0, 2]),), v, accumulate=True), [A34, A34[0]]),
    "index_put_mask": (lambda L, x, v: x.index_put((L.tensor([True, False, True]),), v), [A34, A34[0]]),
    "index_put_": (lambda L, x, v: L.index_put_(x * 1, (L.tensor([1]),), v), [A34, A34[0]]),
    "index_put__method": (lambda L, x, v: (x * 1).index_put_([L.tensor([1, 1])], v, True), [A34, A34[:2]]),
    "masked_fill": (lambda L, x: L.masked_fill(x, L.tensor(A34 > 0), 2.0), [A34]),
    "masked_fill_bcast_mask": (lambda L, x: x.masked_fill(L.tensor(A34[0] > 0), 2.0), [A34]),
    "masked_fill_bcast_input": (lambda L, x: x.masked_fill(L.tensor(A34 > 0), 2.0), [A34[0]]),
    "masked_fill_tensor": (lambda L, x, v: L.masked_fill(x, L.tensor(A34 > 0), v), [A34, np.array(3.0)]),
    "masked_fill_": (lambda L, x, v: (x * 1).masked_fill_(L.tensor(A34[:, :1] > 0), v), [A34, np.array(3.0)]),
    "masked_select": (lambda L, x: L.masked_select(x, L.tensor(A34 > 0)), [A34]),
    "masked_select_bcast": (lambda L, x: x.masked_select(L.tensor(A34 > 0)), [A34[1]]),
    "masked_scatter": (lambda L, x, s: L.masked_scatter(x, L.tensor(A34 > 0), s), [A34, A34 * 10]),
    "masked_scatter_": (lambda L, x, s: (x * 1).masked_scatter_(L.tensor(A34[0] > 0), s), [A34, A34[:, :3] * 10]),
    "take": (lambda L, x: L.take(x, L.tensor([[0, 11], [-1, 3], [3, 3]])), [A34]),
    "take_along_dim": (lambda L, x: L.take_along_dim(x, L.tensor([[0], [2], [1]]), 1), [A34]),
    "take_along_dim_bcast": (lambda L, x: L.take_along_dim(x, L.tensor([[0, 1, 3]]), 1), [A34]),
    "take_along_dim_none": (lambda L, x: x.take_along_dim(L.tensor([[0, 1], [11, 1]])), [A34]),
    "put": (lambda L, x, s: L.put(x, L.tensor([0, 5, 5]), s), [A34, A34[0, :3]]),
    "put_acc": (lambda L, x, s: L.put(x, L.tensor([[0, 5], [5, -1]]), s, accumulate=True), [A34, A34[:2, :2]]),
    "put_": (lambda L, x, s: (x * 1).put_(L.tensor([1, 2]), s), [A34, A34[0, :2]]),
}


@pytest.mark.parametrize("name", list(OPS))
def test_index_ops_match_torch(torch, name):
    fn, data = OPS[name]
    compare(torch, fn, *data)


SCATTER_REDUCE = [(r, inc) for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)]


@pytest.mark.parametrize("reduce,include_self", SCATTER_REDUCE)
def test_scatter_reduce_matches_torch(torch, reduce, include_self):
    ties = np.array([[1., 3., 3., 2.], [2., 2., 0., 2.], [5., -1., 5., -1.]])
    src = np.array([[3., 0., 2., 2.], [2., 3., 0., 1.]])
    idx = [[0, 1, 2, 0], [0, 1, 0, 0]]
    for a, s in ((A34, A34[:2] * 2), (ties, src)):
        compare(torch, lambda L, x, v: L.scatter_reduce(x, 0, L.tensor(idx), v, reduce, include_self=include_self),
                a, s)
        idx1 = [[1, 1], [0, 3], [2, 2]]
        compare(torch, lambda L, x, v: (x * 1).scatter_reduce_(1, L.tensor(idx1), v[:, :2] * 1, reduce,
                                                               include_self=include_self), a, s[:1].repeat(3, 0))


@pytest.mark.parametrize("reduce,include_self", SCATTER_REDUCE)
def test_scatter_reduce_gradcheck(reduce, include_self):
    idx = pt.tensor([[0, 1, 2, 0], [0, 1, 0, 0]])
    x = RNG.permutation(12).reshape(3, 4) / 3 + 0.5       # distinct values: no ties for amax/amin
    s = RNG.permutation(8).reshape(2, 4) / 7 + 1.01        # and none equal to a value of x
    assert gradcheck(lambda a, b: pt.scatter_reduce(a, 0, idx, b, reduce, include_self=include_self), x, s)


def test_scatter_reduce_integer_mean(torch):
    for lib in (pt, torch):
        ai = lib.arange(12).reshape(3, 4)
        r = [lib.scatter_reduce(ai, 0, lib.tensor(GI), ai * 3, "mean", include_self=inc) for inc in (True, False)]
        r.append(lib.scatter_reduce(ai, 0, lib.tensor(GI), ai * 3, "amax", include_self=False))
        if lib is pt:
            ours = r
    for a, b in zip(ours, r):
        assert_close(a, b)


def test_scatter_with_reduce(torch):
    for reduce in ("add", "multiply"):
        compare(torch, lambda L, x: L.scatter(x, 0, L.tensor(GI), 2.0, reduce=reduce), A34, grad=False)
        compare(torch, lambda L, x: L.scatter(x, 0, L.tensor(GI), x * 1, reduce=reduce), A34, grad=False)
    x = pt.tensor(A34, requires_grad=True)
    with pytest.warns(UserWarning, match="deprecated"):
        y = pt.scatter(x, 0, pt.tensor(GI), x * 2, reduce="add")
    assert y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        y.sum().backward()


INDEX_OP_GRADCHECKS = {
    "index_select": (lambda x: pt.index_select(x, 1, pt.tensor([3, 0, 0])), [A34]),
    "gather": (lambda x: pt.gather(x, 0, pt.tensor(GI)), [A34]),
    "scatter": (lambda x, s: pt.scatter(x, 0, pt.tensor([[0, 1, 2, 0], [2, 0, 1, 1]]), s), [A34, A34[:2]]),
    "scatter_value": (lambda x: pt.scatter(x, 0, pt.tensor(GI), 2.0), [A34]),
    "scatter_add": (lambda x, s: pt.scatter_add(x, 0, pt.tensor(GI), s), [A34, A34[:2]]),
    "index_add": (lambda x, s: pt.index_add(x, 1, pt.tensor([0, 3, 0]), s, alpha=-2.0), [A34, A34[:, :3]]),
    "index_copy": (lambda x, s: pt.index_copy(x, 1, pt.tensor([3, 1]), s), [A34, A34[:, :2]]),
    "index_fill": (lambda x, v: pt.index_fill(x, 0, pt.tensor([0, 2]), v), [A34, np.array(2.0)]),
    "index_put": (lambda x, v: pt.index_put(x, (pt.tensor([0, 2]),), v), [A34, A34[0]]),
    "index_put_acc": (lambda x, v: pt.index_put(x, (pt.tensor([0, 0]), pt.tensor([1, 1])), v, accumulate=True),
                      [A34, A34[0, :2]]),
    "masked_fill": (lambda x, v: pt.masked_fill(x, pt.tensor(A34 > 0), v), [A34, np.array(2.0)]),
    "masked_select": (lambda x: pt.masked_select(x, pt.tensor(A34 > 0)), [A34[0]]),
    "masked_scatter": (lambda x, s: pt.masked_scatter(x, pt.tensor(A34 > 0), s), [A34, A34[:, :3] * 3]),
    "take": (lambda x: pt.take(x, pt.tensor([[0, 11], [-1, 11]])), [A34]),
    "take_along_dim": (lambda x: pt.take_along_dim(x, pt.tensor([[0, 1, 3]]), 1), [A34]),
    "put": (lambda x, s: pt.put(x, pt.tensor([0, 5, 7]), s), [A34, A34[0, :3]]),
    "put_acc": (lambda x, s: pt.put(x, pt.tensor([0, 5, 5]), s, accumulate=True), [A34, A34[0, :3]]),
    "index_add_inplace": (lambda x, s: (x * 1).index_add_(0, pt.tensor([1, 1]), s), [A34, A34[:2]]),
    "scatter_inplace": (lambda x, s: (x * 1).scatter_(1, pt.tensor([[3], [0], [1]]), s), [A34, A34[:, :1]]),
    "masked_fill_inplace": (lambda x: (x * 1).masked_fill_(pt.tensor(A34 > 0), 0.5), [A34]),
}


@pytest.mark.parametrize("name", list(INDEX_OP_GRADCHECKS))
def test_index_ops_gradcheck(name):
    fn, data = INDEX_OP_GRADCHECKS[name]
    assert gradcheck(fn, *data)


OP_ERRORS = [
    lambda L, x: L.index_select(x, 0, L.tensor([[0]])),
    lambda L, x: L.index_select(x, 0, L.tensor([0.0])),
    lambda L, x: L.index_select(x, 0, L.tensor([3])),
    lambda L, x: L.index_select(x, 0, L.tensor([-1])),
    lambda L, x: L.index_select(x, 2, L.tensor([0])),
    lambda L, x: L.gather(x, 0, L.tensor(GI).float()),
    lambda L, x: L.gather(x, 0, L.tensor(GI)[None]),
    lambda L, x: L.gather(x, 0, L.zeros(4, 5, dtype=L.int64)),
    lambda L, x: L.gather(x, 1, L.tensor([[0], [7]])),
    lambda L, x: L.gather(x, 1, L.tensor([[0], [-1]])),
    lambda L, x: L.scatter(x, 0, L.tensor(GI).float(), 1.0),
    lambda L, x: L.scatter(x, 0, L.tensor(GI)[None], 1.0),
    lambda L, x: L.scatter(x, 0, L.tensor([[5]]), 1.0),
    lambda L, x: L.scatter(x, 1, L.zeros(4, 4, dtype=L.int64), 1.0),
    lambda L, x: L.scatter(x, 1, L.zeros(2, 5, dtype=L.int64), x),
    lambda L, x: L.scatter(x, 0, L.zeros(2, 3, dtype=L.int64), x[:1]),
    lambda L, x: L.scatter(x, 0, L.tensor(GI), x.float()),
    lambda L, x: L.scatter(x, 5, L.tensor(GI), 1.0),
    lambda L, x: L.scatter(x, 0, L.tensor(GI), 2.0, reduce="mean"),
    lambda L, x: L.scatter_add(x, 0, L.tensor(GI), x.float()),
    lambda L, x: L.scatter_add(x, 0, L.tensor([[-1]]), x),
    lambda L, x: L.scatter_reduce(x, 0, L.tensor(GI), x, "foo"),
    lambda L, x: L.index_add(x, 0, L.tensor([0, 0]), L.ones(2, 3, dtype=L.float64)),
    lambda L, x: L.index_add(x, 0, L.tensor([0, 0]), L.ones(3, 4, dtype=L.float64)),
    lambda L, x: L.index_add(x, 0, L.tensor([5, 0]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_add(x, 0, L.tensor([-1, 0]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_add(x, 0, L.tensor([0, 0]), L.ones(2, 4)),
    lambda L, x: L.index_add(x, 0, L.tensor([0., 1.]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_add(x, 0, L.tensor([[0, 1]]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_copy(x, 0, L.tensor([0, 2]), L.ones(2, 3, dtype=L.float64)),
    lambda L, x: L.index_copy(L.zeros(2, 3, 4), 0, L.tensor([0, 1]), L.ones(2, 3, 5)),
    lambda L, x: L.index_copy(x, 0, L.tensor([0, 2]), L.ones(3, 4, dtype=L.float64)),
    lambda L, x: L.index_copy(x, 0, L.tensor([0, 2]), L.ones(2, 4)),
    lambda L, x: L.index_copy(x, 0, L.tensor([0., 1.]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_copy(x, 0, L.tensor([[0, 1]]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_copy(x, 0, L.tensor([0, 5]), L.ones(2, 4, dtype=L.float64)),
    lambda L, x: L.index_fill(x, 0, L.tensor([0, 2]), L.tensor([7.])),
    lambda L, x: L.index_fill(x, 0, L.tensor([0, 9]), 7),
    lambda L, x: L.index_fill(x, 0, L.tensor([0, 1]).int(), 7),
    lambda L, x: L.index_fill(x, 0, L.tensor([[0, 2]]), 7),
    lambda L, x: L.index_put(x, (L.tensor([0, 1]),), 1.0),
    lambda L, x: L.index_put(x, (None, L.tensor([0, 1])), L.tensor(1.0)),
    lambda L, x: L.index_put(x, (L.tensor([0., 1.]),), L.tensor(1.0, dtype=L.float64)),
    lambda L, x: L.index_put(x, (L.tensor([0, 1]),) * 3, L.tensor(1.0, dtype=L.float64)),
    lambda L, x: L.index_put(x, (L.tensor([0, 5]),), L.tensor(1.0, dtype=L.float64)),
    lambda L, x: x.index_put_((L.tensor([0]),), L.tensor(1)),
    lambda L, x: x.index_put_((L.tensor([0]),), L.ones(5, dtype=L.float64)),
    lambda L, x: x.index_put_((L.tensor([True, False]),), L.ones(4, dtype=L.float64)),
    lambda L, x: L.masked_fill(x, (x > 0).long(), 1.0),
    lambda L, x: L.masked_fill(x, (x > 0).byte(), 1.0),
    lambda L, x: L.masked_fill(x, (x > 0)[:2], 1.0),
    lambda L, x: L.masked_fill(x, x > 0, L.tensor([1.])),
    lambda L, x: x[0].clone().masked_fill_(x > 0, 1.0),
    lambda L, x: L.masked_select(x, (x > 0).long()),
    lambda L, x: L.masked_scatter(x, x > -10, L.ones(5, dtype=L.float64)),
    lambda L, x: L.masked_scatter(x, x > 0, L.ones(20)),
    lambda L, x: L.masked_scatter(x, (x > 0).long(), L.ones(20, dtype=L.float64)),
    lambda L, x: L.take(x, L.tensor([12])),
    lambda L, x: L.take(x, L.tensor([-13])),
    lambda L, x: L.take(x, L.tensor([1.])),
    lambda L, x: L.take(x, L.tensor([1]).int()),
    lambda L, x: L.take_along_dim(x, L.tensor([[0, 1]]), 0),
    lambda L, x: L.take_along_dim(x, L.tensor([[0, 1]]).int(), 0),
    lambda L, x: L.take_along_dim(x, L.tensor([0, 1]), 0),
    lambda L, x: L.put(x, L.tensor([0, 1]), L.tensor([1., 2., 3.], dtype=L.float64)),
    lambda L, x: L.put(x, L.tensor([0, 12]), L.tensor([1., 2.], dtype=L.float64)),
    lambda L, x: L.put(x, L.tensor([0, 1]), L.tensor([1, 2])),
    lambda L, x: x.put_(L.tensor([0., 1.]), L.ones(2, dtype=L.float64)),
]


@pytest.mark.parametrize("i", range(len(OP_ERRORS)))
def test_index_op_errors(torch, i):
    same_error(torch, OP_ERRORS[i], A34)


def test_inplace_index_ops_modify_and_version(torch):
    for lib in (pt, torch):
        x = lib.zeros(3, 4, dtype=lib.float64)
        v0 = x._version
        r1 = x.index_add_(0, lib.tensor([1, 1]), lib.ones(2, 4, dtype=lib.float64))
        r2 = x.scatter_(1, lib.tensor([[0], [1], [2]]), 5.0)
        r3 = x.masked_fill_(x > 4, -1.0)
        r4 = x.index_fill_(1, lib.tensor([3]), 7.0)
        r5 = x.put_(lib.tensor([0]), lib.tensor([9.0], dtype=lib.float64))
        assert all(r is x for r in (r1, r2, r3, r4, r5))
        assert x._version > v0
        if lib is pt:
            ours = to_np(x)
    np.testing.assert_array_equal(ours, to_np(x))


def test_nonzero_argwhere_where(torch):
    data = np.array([[0., 1., 0.], [2., 0., -1.]])
    for fn in (lambda L, x: L.nonzero(x), lambda L, x: x.nonzero(), lambda L, x: L.argwhere(x),
               lambda L, x: L.nonzero(x, as_tuple=True), lambda L, x: L.where(x > 0),
               lambda L, x: L.nonzero(x[0, 0]), lambda L, x: L.nonzero(x[0, 1], as_tuple=True),
               lambda L, x: L.nonzero(x[0, 0], as_tuple=True), lambda L, x: L.argwhere(x[0, 1]),
               lambda L, x: L.nonzero(x > 5), lambda L, x: L.nonzero(x[0] != 0, as_tuple=True)):
        compare(torch, fn, data, grad=False)


def test_index_ops_dtypes(torch):
    ai = np.arange(12).reshape(3, 4)
    cases = [
        lambda L, x: L.index_fill(x, 0, L.tensor([0, 2]), 7.5),
        lambda L, x: L.masked_fill(x, x > 4, 2.5),
        lambda L, x: L.masked_fill(x, x > 4, L.tensor(2.5)),
        lambda L, x: L.scatter(x, 0, L.tensor(GI), 1.5),
        lambda L, x: L.index_add(x, 0, L.tensor([0, 0]), L.ones(2, 4, dtype=L.int64), alpha=2),
        lambda L, x: L.masked_fill(x.float(), x > 4, L.tensor(1, dtype=L.int64)),
        lambda L, x: L.index_select(x.bool(), 1, L.tensor([1])),
        lambda L, x: x.bool()[x > 3],
    ]
    for fn in cases:
        compare(torch, fn, ai, grad=False)


def test_grad_fn_names(torch):
    x = np.array(A34)
    names = {}
    for lib in (pt, torch):
        t = lib.tensor(x, requires_grad=True)
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        i = lib.tensor([0, 2])
        ys = [lib.index_fill(t, 0, i, 1.0), lib.index_fill(t, 0, i, v), lib.masked_fill(t, t > 0, 1.0),
              lib.masked_fill(t, t > 0, v), lib.scatter(t, 0, lib.tensor(GI), 1.0),
              lib.scatter(t, 0, lib.tensor(GI), t * 1), t.index_put((i,), v), lib.take(t, i),
              lib.masked_select(t, t > 0), lib.put(t, i, t[0, :2] * 1)]
        names[lib] = [type(y.grad_fn).__name__ for y in ys]
    assert names[pt] == names[torch]
