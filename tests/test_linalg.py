"""Matrix products (pedatorch.ops.linalg) and the pedatorch.linalg namespace, against PyTorch."""
import math
import warnings

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close, gradcheck, to_np

RNG = np.random.default_rng(1234)


def randn(*shape):
    return RNG.standard_normal(shape)


def spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def both(torch, *arrays, requires_grad=True):
    """The same float64 data as pedatorch and torch leaf tensors."""
    ours = [pt.tensor(np.asarray(a), requires_grad=requires_grad) for a in arrays]
    theirs = [torch.tensor(np.asarray(a), requires_grad=requires_grad) for a in arrays]
    return ours, theirs


def grad_chain(t):
    """grad_fn names along the first input edge (what ``a @ b`` decomposes into)."""
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(fn.name())
        nxt = [f for f, _ in fn.next_functions if f is not None and "AccumulateGrad" not in f.name()]
        fn = nxt[0] if nxt else None
    return names


def check_fwd_bwd(torch, f, tf, arrays, atol=1e-7, names=True):
    """Forward values/dtypes/shapes, grads (random seed) and the top grad_fn name match torch."""
    ours, theirs = both(torch, *arrays)
    r, tr = f(*ours), tf(*theirs)
    rs = r if isinstance(r, tuple) else (r,)
    trs = tr if isinstance(tr, tuple) else (tr,)
    loss, tloss = 0, 0
    for a, b in zip(rs, trs):
        assert_close(a, b, rtol=1e-6, atol=atol)
        if names:
            assert (a.grad_fn.name() if a.grad_fn else None) == (b.grad_fn.name() if b.grad_fn else None)
        if b.requires_grad:
            g = RNG.standard_normal(tuple(b.shape))
            loss = loss + (a * pt.tensor(g)).sum()
            tloss = tloss + (b * torch.tensor(g)).sum()
    loss.backward()
    tloss.backward()
    for a, b in zip(ours, theirs):
        if b.grad is None:
            assert a.grad is None
        else:
            assert_close(a.grad, b.grad, rtol=1e-6, atol=atol)
    return rs


# ====================================================================== matmul: every dim case

MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)),
    ((3,), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((6, 5, 2, 3), (5, 3, 4)),
    ((6, 1, 2, 3), (5, 3, 4)), ((5, 3, 4), (1, 4, 2)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 3, 4, 5)),
    ((3, 0), (0, 2)), ((2, 0, 3), (3, 4)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_cases_match_torch(torch, sa, sb):
    (a, b), (ta, tb) = both(torch, randn(*sa), randn(*sb))
    r, tr = a @ b, ta @ tb
    assert_close(r, tr)
    assert grad_chain(r) == grad_chain(tr)
    g = randn(*tr.shape)
    r.backward(pt.tensor(g))
    tr.backward(torch.tensor(g))
    assert_close(a.grad, ta.grad)
    assert_close(b.grad, tb.grad)


@pytest.mark.parametrize("ga,gb", [(True, False), (False, True)])
def test_matmul_fold_depends_on_requires_grad(torch, ga, gb):
    """Folding into mm happens when the small operand needs a gradient (ATen's should_fold)."""
    x, y = randn(2, 3), randn(4, 3, 5)
    a, b = pt.tensor(x, requires_grad=ga), pt.tensor(y, requires_grad=gb)
    ta, tb = torch.tensor(x, requires_grad=ga), torch.tensor(y, requires_grad=gb)
    assert grad_chain(a @ b) == grad_chain(ta @ tb)
    x, y = randn(4, 2, 3), randn(3, 5)
    a, b = pt.tensor(x, requires_grad=ga), pt.tensor(y, requires_grad=gb)
    ta, tb = torch.tensor(x, requires_grad=ga), torch.tensor(y, requires_grad=gb)
    assert grad_chain(a @ b) == grad_chain(ta @ tb)


def test_matmul_operators_and_methods(torch):
    (a, b), (ta, tb) = both(torch, randn(2, 3), randn(3, 4), requires_grad=False)
    assert_close(a.matmul(b), ta.matmul(tb))
    assert_close(pt.matmul(a, b), torch.matmul(ta, tb))
    assert_close(pt.linalg.matmul(a, b), torch.linalg.matmul(ta, tb))
    assert_close(b.__rmatmul__(a), tb.__rmatmul__(ta))
    c = a
    c @= b                        # not in place in PyTorch either: c is rebound
    assert c.shape == (2, 4) and a.shape == (2, 3)
    with pytest.raises(TypeError):
        a @ 3
    out = pt.zeros(2, 4, dtype=pt.float64)
    r = pt.matmul(a, b, out=out)
    assert r is out
    assert_close(out, ta @ tb)


def test_matmul_integer_and_dtype_rules(torch):
    for dt in ("int64", "int32", "float32", "complex128"):
        x = (RNG.integers(-3, 4, (2, 3, 4))).astype(dt)
        y = (RNG.integers(-3, 4, (4, 2))).astype(dt)
        assert_close(pt.tensor(x) @ pt.tensor(y), torch.tensor(x) @ torch.tensor(y))
        assert_close(pt.tensor(x[0, 0]) @ pt.tensor(x[0, 1]), torch.tensor(x[0, 0]) @ torch.tensor(x[0, 1]))
    r = pt.ones(2, 3, dtype=pt.int64) @ pt.ones(3, dtype=pt.int64)
    assert r.dtype == pt.int64 and r.grad_fn is None


def test_matmul_double_backward():
    x = pt.tensor(randn(2, 1, 2, 3), requires_grad=True)
    y = pt.tensor(randn(3, 3, 2), requires_grad=True)
    assert pt.autograd.gradgradcheck(pt.matmul, (x, y))
    x = pt.tensor(randn(3), requires_grad=True)
    y = pt.tensor(randn(2, 3, 2), requires_grad=True)
    assert pt.autograd.gradgradcheck(pt.matmul, (x, y))


# ====================================================================== the other products

PRODUCTS = {
    "mm": (lambda L: L.mm, [(2, 3), (3, 4)]),
    "bmm": (lambda L: L.bmm, [(5, 2, 3), (5, 3, 4)]),
    "mv": (lambda L: L.mv, [(2, 3), (3,)]),
    "dot": (lambda L: L.dot, [(3,), (3,)]),
    "vdot": (lambda L: L.vdot, [(3,), (3,)]),
    "outer": (lambda L: L.outer, [(3,), (4,)]),
    "ger": (lambda L: L.ger, [(3,), (4,)]),
    "inner": (lambda L: L.inner, [(2, 5, 3), (4, 3)]),
    "inner1d": (lambda L: L.inner, [(3,), (3,)]),
    "addmm": (lambda L: lambda a, b, c: L.addmm(a, b, c, beta=0.5, alpha=2), [(4,), (2, 3), (3, 4)]),
    "addmv": (lambda L: lambda a, b, c: L.addmv(a, b, c, beta=0.5, alpha=2), [(2,), (2, 3), (3,)]),
    "addbmm": (lambda L: lambda a, b, c: L.addbmm(a, b, c, beta=0.5, alpha=2), [(2, 4), (5, 2, 3), (5, 3, 4)]),
    "baddbmm": (lambda L: lambda a, b, c: L.baddbmm(a, b, c, beta=0.5, alpha=2), [(5, 2, 4), (5, 2, 3), (5, 3, 4)]),
    "addr": (lambda L: lambda a, b, c: L.addr(a, b, c, beta=0.5, alpha=2), [(3, 4), (3,), (4,)]),
    "tensordot": (lambda L: lambda a, b: L.tensordot(a, b, dims=([1, 2], [1, 0])), [(2, 3, 4), (4, 3, 5)]),
    "tensordot2": (lambda L: L.tensordot, [(2, 3, 4), (3, 4, 5)]),
    "tensordot0": (lambda L: lambda a, b: L.tensordot(a, b, 0), [(2, 3), (2,)]),
    "tensordot_bc": (lambda L: lambda a, b: L.tensordot(a, b, ([1], [0])), [(2, 3), (1, 4)]),
    "multi_dot": (lambda L: lambda *a: L.linalg.multi_dot(a), [(3,), (3, 4), (4, 5), (5, 2), (2,)]),
    "multi_dot3": (lambda L: lambda *a: L.linalg.multi_dot(list(a)), [(2, 3), (3, 4), (4, 5)]),
    "chain_matmul": (lambda L: lambda *a: L.chain_matmul(*a), [(2, 3), (3, 4), (4, 5)]),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_match_torch(torch, name):
    make, shapes = PRODUCTS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_fwd_bwd(torch, make(pt), make(torch), [randn(*s) for s in shapes])


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_products_gradcheck(name):
    make, shapes = PRODUCTS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(make(pt), *[randn(*s) for s in shapes])


def test_add_family_beta_zero_ignores_nan(torch):
    nan = np.full((2, 4), np.nan)
    a, b = randn(2, 3), randn(3, 4)
    assert_close(pt.addmm(pt.tensor(nan), pt.tensor(a), pt.tensor(b), beta=0),
                 torch.addmm(torch.tensor(nan), torch.tensor(a), torch.tensor(b), beta=0))


def test_inplace_add_family(torch):
    for name, shapes in [("addmm_", [(2, 4), (2, 3), (3, 4)]), ("addmv_", [(2,), (2, 3), (3,)]),
                         ("baddbmm_", [(5, 2, 4), (5, 2, 3), (5, 3, 4)]), ("addbmm_", [(2, 4), (5, 2, 3), (5, 3, 4)]),
                         ("addr_", [(3, 4), (3,), (4,)])]:
        arrays = [randn(*s) for s in shapes]
        (x, a, b), (tx, ta, tb) = both(torch, *arrays)
        y, ty = x * 1, tx * 1
        r = getattr(y, name)(a, b, beta=0.5, alpha=2)
        tr = getattr(ty, name)(ta, tb, beta=0.5, alpha=2)
        assert r is y
        assert_close(y, ty)
        assert y.grad_fn.name() == ty.grad_fn.name()
        g = randn(*shapes[0])
        y.backward(pt.tensor(g))
        ty.backward(torch.tensor(g))
        for p, tp in ((x, tx), (a, ta), (b, tb)):
            assert_close(p.grad, tp.grad)
    with pytest.raises(RuntimeError, match="Bad in-place call"):
        pt.ones(2, 1).addmm_(pt.ones(2, 3), pt.ones(3, 4))


def test_addr_promotes_and_bool(torch):
    x = np.arange(12).reshape(3, 4)
    v1, v2 = np.ones(3, dtype=np.float32), np.arange(4, dtype=np.float32)
    assert_close(pt.addr(pt.tensor(x), pt.tensor(v1), pt.tensor(v2)),
                 torch.addr(torch.tensor(x), torch.tensor(v1), torch.tensor(v2)))
    b = np.array([True, False])
    assert_close(pt.addr(pt.zeros(2, 2, dtype=pt.bool), pt.tensor(b), pt.tensor(b)),
                 torch.addr(torch.zeros(2, 2, dtype=torch.bool), torch.tensor(b), torch.tensor(b)))


def test_outer_and_integer_products(torch):
    assert_close(pt.outer(pt.ones(2, dtype=pt.int64), pt.ones(3)),
                 torch.outer(torch.ones(2, dtype=torch.int64), torch.ones(3)))
    for f in ("dot", "mv", "mm", "bmm"):
        shapes = {"dot": [(3,), (3,)], "mv": [(2, 3), (3,)], "mm": [(2, 3), (3, 2)], "bmm": [(2, 2, 3), (2, 3, 2)]}[f]
        xs = [RNG.integers(-5, 5, s) for s in shapes]
        assert_close(getattr(pt, f)(*[pt.tensor(x) for x in xs]), getattr(torch, f)(*[torch.tensor(x) for x in xs]))


def test_chain_matmul_warns_and_single(torch):
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        r = pt.chain_matmul(pt.ones(2, 3))
    assert r.shape == (2, 3)


# ====================================================================== einsum

EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->ji", [(2, 3)]), ("i,i", [(3,), (3,)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]), ("ij->", [(2, 3)]), ("i,j->ij", [(2,), (3,)]), ("ij", [(2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("...ij,...jk", [(5, 2, 3), (3, 4)]), ("ij,jk->ik", [(2, 1), (3, 4)]),
    ("iij->j", [(3, 3, 2)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("ba,ca", [(2, 3), (4, 3)]), ("ii,i->i", [(3, 3), (3,)]),
    ("i...->...", [(5, 2, 3)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("iii->i", [(2, 2, 2)]),
    ("ijk,ik->j", [(2, 3, 4), (2, 1)]), ("i j , j k -> i k", [(2, 3), (3, 4)]), ("...ij->...ji", [(5, 2, 3)]),
    ("ij...,jk...", [(2, 3, 7), (3, 4, 1)]), ("...,...", [(2, 1), (3,)]), ("Aa,aB->AB", [(2, 3), (3, 2)]),
    ("->", [()]), ("i,i->", [(0,), (0,)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM)
def test_einsum_matches_torch(torch, eq, shapes):
    arrays = [randn(*s) for s in shapes]
    check_fwd_bwd(torch, lambda *a: pt.einsum(eq, *a), lambda *a: torch.einsum(eq, *a), arrays, names=False)
    # einsum is made of PyTorch's own steps (diagonal, permute, bmm, view, sum): the same grad_fn, the same
    # strides, a view where PyTorch's result is one
    p = pt.einsum(eq, *[pt.tensor(a, requires_grad=True) for a in arrays])
    t = torch.einsum(eq, *[torch.tensor(a, requires_grad=True) for a in arrays])
    assert (p.grad_fn.name(), p.stride(), p._base is not None) == (t.grad_fn.name(), t.stride(), t._base is not None)


@pytest.mark.parametrize("eq,shapes", [e for e in EINSUM if e[0] not in ("->",)])
def test_einsum_gradcheck(eq, shapes):
    assert gradcheck(lambda *a: pt.einsum(eq, *a), *[randn(*s) for s in shapes])


@pytest.mark.parametrize("eq,shapes", [("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ii,ij->j", [(3, 3), (3, 2)]),
                                       ("ijk->j", [(2, 3, 2)]), ("ij,jk->ik", [(2, 1), (3, 2)]),
                                       ("i,j,k->ijk", [(2,), (3,), (2,)])])
def test_einsum_gradgradcheck(eq, shapes):
    ins = tuple(pt.tensor(randn(*s), requires_grad=True) for s in shapes)
    assert pt.autograd.gradgradcheck(lambda *a: pt.einsum(eq, *a), ins)


def test_einsum_argument_forms(torch):
    a, b = randn(2, 3), randn(3, 4)
    want = torch.einsum("ij,jk", torch.tensor(a), torch.tensor(b))
    assert_close(pt.einsum("ij,jk", [pt.tensor(a), pt.tensor(b)]), want)
    assert_close(pt.einsum(pt.tensor(a), [0, 1], pt.tensor(b), [1, 2], [0, 2]), want)
    assert_close(pt.einsum(pt.tensor(a), [Ellipsis, 1], pt.tensor(b), [1, 2], [2, Ellipsis]),
                 torch.einsum(torch.tensor(a), [Ellipsis, 1], torch.tensor(b), [1, 2], [2, Ellipsis]))


def test_einsum_dtypes(torch):
    x = RNG.integers(-3, 3, (2, 3))
    assert_close(pt.einsum("ij,j", pt.tensor(x), pt.tensor(x[0])), torch.einsum("ij,j", torch.tensor(x),
                                                                                torch.tensor(x[0])))
    f, d = np.ones(3, dtype=np.float32), np.ones(3)
    assert_close(pt.einsum("i,j->ij", pt.tensor(f), pt.tensor(d)), torch.einsum("i,j->ij", torch.tensor(f),
                                                                               torch.tensor(d)))


# ====================================================================== errors: class and message, as torch

def _errors(L):
    F, D, I = L.float32, L.float64, L.int64

    def Z(*s, dt=F):
        return L.zeros(*s, dtype=dt)

    def E(n=3, dt=F):
        return L.eye(n, dtype=dt)
    return {
        "mm3d": lambda: L.mm(Z(2, 3, 4), Z(4, 5)), "mm1d": lambda: L.mm(Z(2, 3), Z(3)),
        "mmshape": lambda: L.mm(Z(64, 3), Z(4, 5)), "mmdtype": lambda: L.mm(Z(2, 3), Z(3, 4, dt=D)),
        "mmdtype2": lambda: L.mm(Z(2, 3, dt=I), Z(3, 4)),
        "mmbool": lambda: L.mm(Z(2, 3, dt=L.bool), Z(3, 4, dt=L.bool)),
        "bmm2d": lambda: L.bmm(Z(2, 3), Z(3, 4)), "bmmbatch": lambda: L.bmm(Z(2, 2, 3), Z(3, 3, 4)),
        "bmmdt": lambda: L.bmm(Z(2, 2, 3), Z(2, 3, 4, dt=D)),
        "mv": lambda: L.mv(Z(2, 3), Z(4)),
        "mv3": lambda: L.mv(Z(2, 3, 3), Z(3)),
        "mvdt": lambda: L.mv(Z(2, 3), Z(3, dt=D)),
        "dot": lambda: L.dot(Z(3), Z(4)),
        "dot2": lambda: L.dot(Z(3, 1), Z(3)),
        "dotdt": lambda: L.dot(Z(3), Z(3, dt=D)),
        "dotbool": lambda: L.dot(Z(3, dt=L.bool), Z(3, dt=L.bool)), "vdot": lambda: L.vdot(Z(3), Z(4)),
        "mat0": lambda: L.matmul(Z(()), Z(2, 2)), "mat0b": lambda: L.matmul(Z(2), Z(())),
        "matdt": lambda: L.matmul(Z(2, 3), Z(3, 4, dt=D)), "matdt1": lambda: L.matmul(Z(3), Z(3, dt=D)),
        "matdt3": lambda: L.matmul(Z(5, 2, 3), Z(5, 3, 4, dt=D)),
        "matdt3b": lambda: L.matmul(Z(5, 2, 3), Z(3, 4, dt=D)),
        "mat_sz": lambda: L.matmul(Z(5, 2, 3), Z(4, 5)), "mat_sz2": lambda: L.matmul(Z(5, 2, 3), Z(4)),
        "mat_sz3": lambda: L.matmul(Z(5, 2, 3), Z(5, 4, 5)), "mat_sz4": lambda: L.matmul(Z(3), Z(5, 4, 5)),
        "mat_sz5": lambda: L.matmul(Z(3), Z(4, 5)), "mat_sz6": lambda: L.matmul(Z(6, 1, 2, 3), Z(5, 4, 4)),
        "mat_bc": lambda: L.matmul(Z(2, 2, 3), Z(5, 3, 4)),
        "outer": lambda: L.outer(Z(2, 2), Z(3)),
        "addmm": lambda: L.addmm(Z(3, 3), Z(2, 3), Z(3, 4)), "addmm2": lambda: L.addmm(Z(2, 4), Z(2, 3), Z(4, 4)),
        "addmmdt": lambda: L.addmm(Z(2, 4, dt=D), Z(2, 3), Z(3, 4)),
        "addmmdt3": lambda: L.addmm(Z(2, 4), Z(2, 3, dt=D), Z(3, 4)),
        "addmm1d": lambda: L.addmm(Z(2, 4), Z(3), Z(3, 4)),
        "addmv": lambda: L.addmv(Z(3), Z(2, 3), Z(3)), "addmvdt": lambda: L.addmv(Z(2, dt=D), Z(2, 3), Z(3)),
        "addbmm": lambda: L.addbmm(Z(3, 4), Z(5, 2, 3), Z(5, 3, 4)),
        "addbmm2": lambda: L.addbmm(Z(2, 4), Z(5, 2, 3), Z(4, 3, 4)),
        "addbmm3": lambda: L.addbmm(Z(2, 4), Z(5, 2, 3), Z(5, 4, 4)),
        "baddbmm": lambda: L.baddbmm(Z(5, 3, 4), Z(5, 2, 3), Z(5, 3, 4)),
        "baddbmmdt": lambda: L.baddbmm(Z(5, 2, 4, dt=D), Z(5, 2, 3), Z(5, 3, 4)),
        "addr": lambda: L.addr(Z(3, 3), Z(3), Z(4)), "addr2": lambda: L.addr(Z(3, 4), Z(3, 1), Z(4)),
        "addrbool": lambda: L.addr(Z(3, 4, dt=L.bool), Z(3, dt=L.bool), Z(4, dt=L.bool), beta=1.5),
        "ein1": lambda: L.einsum("ij,jk", Z(2, 3)), "ein2": lambda: L.einsum("ij,jk->ik", Z(2, 3), Z(4, 5)),
        "ein3": lambda: L.einsum("ij->k", Z(2, 3)), "ein4": lambda: L.einsum("ijk", Z(2, 3)),
        "ein5": lambda: L.einsum("ij->ii", Z(2, 3)), "ein6": lambda: L.einsum("ii", Z(2, 3)),
        "ein7": lambda: L.einsum("i,i", Z(2), Z(3, dt=D)), "ein8": lambda: L.einsum("i$", Z(2)),
        "ein9": lambda: L.einsum("...ij,...jk", Z(5, 2, 3), Z(4, 3, 4)),
        "ein10": lambda: L.einsum("ij", Z(2, 3), Z(2, 3)),
        "ein11": lambda: L.einsum("i.j", Z(2, 3)), "ein12": lambda: L.einsum("...i...", Z(2, 3)),
        "ein13": lambda: L.einsum("ij->j->i", Z(2, 3)), "ein14": lambda: L.einsum("i,i", Z(3), Z(3, dt=D)),
        "ein15": lambda: L.einsum("ij"),
        "ein16": lambda: L.einsum(Z(2, 3), [Ellipsis, 1], Z(3, 4), [1, Ellipsis]),
        "ein17": lambda: L.einsum(Z(2, 3), [0, 60]),
        "td": lambda: L.tensordot(Z(2, 3), Z(4, 5), dims=1), "td2": lambda: L.tensordot(Z(2, 3), Z(3, 5), dims=3),
        "td3": lambda: L.tensordot(Z(2, 3), Z(3, 5), dims=-1),
        "td4": lambda: L.tensordot(Z(2, 3), Z(3, 5), ([1], [0, 1])),
        "td5": lambda: L.tensordot(Z(2, 3), Z(3, 5, dt=D), dims=1),
        "md": lambda: L.linalg.multi_dot([Z(2, 3)]), "md2": lambda: L.linalg.multi_dot([Z(2, 3), Z(4, 5)]),
        "md3": lambda: L.linalg.multi_dot([Z(2, 3), Z(3, 4, 5)]),
        "md4": lambda: L.linalg.multi_dot([Z(2, 3), Z(3, 4, dt=D)]),
        "md6": lambda: L.linalg.multi_dot([Z(2, 3), Z(3), Z(3, 4)]),
        "inner": lambda: L.inner(Z(2, 3), Z(2, 4)), "innerdt": lambda: L.inner(Z(3), Z(3, dt=D)),
        # pedatorch.linalg
        "det_int": lambda: L.linalg.det(Z(3, 3, dt=I)), "det1d": lambda: L.linalg.det(Z(3)),
        "det_ns": lambda: L.linalg.det(Z(2, 3)), "det_half": lambda: L.linalg.det(Z(3, 3, dt=L.float16)),
        "inv_sing": lambda: L.linalg.inv(Z(3, 3)), "inv_ns": lambda: L.linalg.inv(Z(2, 3)),
        "inv_sing2": lambda: L.linalg.inv(L.tensor([[1., 2.], [2., 4.]])),
        "inv_sing_b": lambda: L.linalg.inv(L.stack([E(), Z(3, 3)])), "inv_half": lambda: L.linalg.inv(E(dt=L.float16)),
        "chol_npd": lambda: L.linalg.cholesky(-E()), "chol_npd_b": lambda: L.linalg.cholesky(L.stack([E(), -E()])),
        "chol_npd2": lambda: L.linalg.cholesky(L.tensor([[1., 2.], [2., 1.]])),
        "solve_sing": lambda: L.linalg.solve(Z(3, 3), Z(3)), "solve_sh": lambda: L.linalg.solve(E(), Z(4)),
        "solve_dt": lambda: L.linalg.solve(E(), Z(3, dt=D)),
        "solve_sing_b": lambda: L.linalg.solve(L.stack([E(), Z(3, 3)]), Z(3)),
        "eigh_ns": lambda: L.linalg.eigh(Z(2, 3)), "eigh_uplo": lambda: L.linalg.eigh(E(), UPLO="X"),
        "svd_int": lambda: L.linalg.svd(Z(2, 3, dt=I)), "svd1d": lambda: L.linalg.svd(Z(3)),
        "qr_mode": lambda: L.linalg.qr(Z(3, 3), mode="x"),
        "cross1": lambda: L.linalg.cross(Z(4, 2), Z(4, 2)), "cross2": lambda: L.linalg.cross(Z(4, 3), Z(3)),
        "crossdt": lambda: L.linalg.cross(Z(3), Z(3, dt=D)),
        "vn_int": lambda: L.linalg.vector_norm(Z(3, dt=I)),
        "vn_empty": lambda: L.linalg.vector_norm(Z(0), float("inf")),
        "vn_dtype2": lambda: L.linalg.vector_norm(Z(3, dt=D), dtype=F),
        "vn_dtype3": lambda: L.linalg.vector_norm(Z(3), dtype=I),
        "mn_1d": lambda: L.linalg.matrix_norm(Z(3)), "mn_ord": lambda: L.linalg.matrix_norm(Z(3, 3), 3),
        "mn_ords": lambda: L.linalg.matrix_norm(Z(3, 3), "abc"),
        "mn_dim": lambda: L.linalg.matrix_norm(Z(3, 3), dim=(0, 0)),
        "mn_dim1": lambda: L.linalg.matrix_norm(Z(3, 3), dim=(0,)),
        "norm_dim3": lambda: L.linalg.norm(Z(3, 3, 3), dim=(0, 1, 2)),
        "norm_3d_ord": lambda: L.linalg.norm(Z(3, 3, 3), 2), "norm_str_vec": lambda: L.linalg.norm(Z(3), "fro"),
        "mp_ns": lambda: L.linalg.matrix_power(Z(2, 3), 2), "mp_int_neg": lambda: L.linalg.matrix_power(E(dt=I), -1),
        "mp1d": lambda: L.linalg.matrix_power(Z(3), 2),
        "vecdot_int": lambda: L.linalg.vecdot(Z(3, dt=I), Z(3, dt=I)),
        "vecdot_dt": lambda: L.linalg.vecdot(Z(3), Z(3, dt=D)),
        "rank_int": lambda: L.linalg.matrix_rank(E(dt=I)), "pinv_int": lambda: L.linalg.pinv(E(dt=I)),
        "lstsq_int": lambda: L.linalg.lstsq(E(dt=I), E(dt=I)), "lstsq_sh": lambda: L.linalg.lstsq(E(), Z(4, 2)),
        "lstsq_drv": lambda: L.linalg.lstsq(E(), E(), driver="x"),
        "slogdet_int": lambda: L.linalg.slogdet(E(dt=I)), "diag_1d": lambda: L.linalg.diagonal(Z(3)),
    }


def _outcome(f):
    try:
        f()
    except Exception as e:   # noqa: BLE001 - we compare what was raised
        return type(e).__name__.lstrip("_"), str(e).split("\n")[0]
    return "OK", ""


def test_errors_match_torch(torch):
    ours, theirs = _errors(pt), _errors(torch)
    bad = {}
    for name in theirs:
        a, b = _outcome(ours[name]), _outcome(theirs[name])
        if a != b:
            bad[name] = (a, b)
    assert not bad, bad


def test_linalg_error_class():
    assert issubclass(pt.linalg.LinAlgError, RuntimeError)
    with pytest.raises(pt.linalg.LinAlgError):
        pt.linalg.inv(pt.zeros(2, 2))


def test_refused_calls_leave_tensors_alone():
    x = pt.ones(2, 4)
    before = x.numpy().copy()
    with pytest.raises(RuntimeError):
        x.addmm_(pt.ones(2, 3), pt.ones(4, 4))
    with pytest.raises(RuntimeError):
        x.addmm_(pt.ones(2, 3, dtype=pt.float64), pt.ones(3, 4, dtype=pt.float64))
    np.testing.assert_array_equal(x.numpy(), before)
    a = pt.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="matmul\\(\\): functions with out="):
        pt.matmul(a, pt.ones(3, 4), out=x)
    np.testing.assert_array_equal(x.numpy(), before)


# ====================================================================== pedatorch.linalg: values, grads, names

def _sym(f):
    return lambda a: f(a + a.mT)


DECOMP = {
    "det": (lambda L: L.linalg.det, [randn(2, 3, 3)]),
    "slogdet": (lambda L: L.linalg.slogdet, [randn(2, 3, 3)]),
    "inv": (lambda L: L.linalg.inv, [randn(2, 3, 3)]),
    "inv_ex": (lambda L: lambda a: L.linalg.inv_ex(a).inverse, [randn(3, 3)]),
    "solve": (lambda L: L.linalg.solve, [randn(2, 3, 3), randn(2, 3, 2)]),
    "solve_vec": (lambda L: L.linalg.solve, [randn(2, 3, 3), randn(3)]),
    "solve_bvec": (lambda L: L.linalg.solve, [randn(2, 3, 3), randn(2, 3)]),
    "solve_right": (lambda L: lambda a, b: L.linalg.solve(a, b, left=False), [randn(3, 3), randn(2, 3)]),
    "cholesky": (lambda L: L.linalg.cholesky, [spd(3, (2,))]),
    "cholesky_upper": (lambda L: lambda a: L.linalg.cholesky(a, upper=True), [spd(3)]),
    "qr": (lambda L: L.linalg.qr, [randn(4, 3)]),
    "qr_square": (lambda L: lambda a: L.linalg.qr(a, mode="complete"), [randn(3, 3)]),
    "qr_wide": (lambda L: L.linalg.qr, [randn(3, 5)]),
    "eigvalsh": (lambda L: L.linalg.eigvalsh, [spd(3, (2,))]),
    "eigvalsh_U": (lambda L: lambda a: L.linalg.eigvalsh(a, UPLO="U"), [randn(3, 3)]),
    "svdvals": (lambda L: L.linalg.svdvals, [randn(2, 4, 3)]),
    "pinv": (lambda L: L.linalg.pinv, [randn(4, 3)]),
    "pinv_wide": (lambda L: L.linalg.pinv, [randn(3, 4)]),
    "pinv_herm": (lambda L: lambda a: L.linalg.pinv(a, hermitian=True), [spd(3)]),
    "lstsq": (lambda L: lambda a, b: L.linalg.lstsq(a, b).solution, [randn(4, 3), randn(4, 2)]),
    "lstsq_gelsd": (lambda L: lambda a, b: tuple(L.linalg.lstsq(a, b, driver="gelsd")[:2]), [randn(5, 3), randn(5, 2)]),
    "cross": (lambda L: L.linalg.cross, [randn(4, 3), randn(1, 3)]),
    "cross_dim": (lambda L: lambda a, b: L.linalg.cross(a, b, dim=0), [randn(3, 2), randn(3, 2)]),
    "diagonal": (lambda L: lambda a: L.linalg.diagonal(a, offset=1), [randn(2, 3, 4)]),
    "vecdot": (lambda L: L.linalg.vecdot, [randn(3, 4), randn(3, 4)]),
    "matrix_power0": (lambda L: lambda a: L.linalg.matrix_power(a, 0), [randn(3, 3)]),
    "matrix_power1": (lambda L: lambda a: L.linalg.matrix_power(a, 1), [randn(3, 3)]),
    "matrix_power-1": (lambda L: lambda a: L.linalg.matrix_power(a, -1), [randn(3, 3)]),
    "matrix_power-3": (lambda L: lambda a: L.linalg.matrix_power(a, -3), [randn(3, 3)]),
    "matrix_power4": (lambda L: lambda a: L.linalg.matrix_power(a, 4), [randn(2, 3, 3)]),
    "matrix_power5": (lambda L: lambda a: L.linalg.matrix_power(a, 5), [randn(3, 3) / 2]),
}
# our CopyBackwards node prints without PyTorch's C++ namespace
_NAME_EXCEPTIONS = {"matrix_power0"}


@pytest.mark.parametrize("name", list(DECOMP))
def test_linalg_matches_torch(torch, name):
    make, arrays = DECOMP[name]
    check_fwd_bwd(torch, make(pt), make(torch), arrays, atol=1e-6, names=name not in _NAME_EXCEPTIONS)


@pytest.mark.parametrize("name", list(DECOMP))
def test_linalg_gradcheck(name):
    make, arrays = DECOMP[name]
    f = make(pt)
    if name.startswith(("pinv_herm", "eigvalsh", "cholesky")):   # these read one triangle only
        f = _sym(f)
    assert gradcheck(f, *arrays)


@pytest.mark.parametrize("name", ["det", "inv", "solve", "cholesky", "qr", "pinv", "matrix_power-3"])
def test_linalg_gradgradcheck(name):
    make, arrays = DECOMP[name]
    ins = tuple(pt.tensor(a, requires_grad=True) for a in arrays)
    f = make(pt)
    if name == "cholesky":
        f = _sym(f)
    assert pt.autograd.gradgradcheck(f, ins)


def test_eigh_and_svd_match_torch_up_to_sign(torch):
    """Eigen/singular vectors are unique up to sign: compare invariant products and the gradients."""
    a = spd(4, (2,))
    (x,), (tx,) = both(torch, a)
    w, V = pt.linalg.eigh(x)
    tw, tV = torch.linalg.eigh(tx)
    assert w.grad_fn.name() == tw.grad_fn.name() == "LinalgEighBackward0"
    assert_close(w, tw)
    assert_close(V.abs(), tV.abs(), atol=1e-6)
    g = randn(2, 4, 4)
    loss = (w * w).sum() + ((V * V.sum(-2, True)) ** 2 * pt.tensor(g)).sum()
    tloss = (tw * tw).sum() + ((tV * tV.sum(-2, True)) ** 2 * torch.tensor(g)).sum()
    loss.backward()
    tloss.backward()
    assert_close(x.grad, tx.grad, atol=1e-6)
    for full in (False, True):
        (y,), (ty,) = both(torch, randn(5, 3))
        U, S, Vh = pt.linalg.svd(y, full_matrices=full)
        tU, tS, tVh = torch.linalg.svd(ty, full_matrices=full)
        assert [t.shape for t in (U, S, Vh)] == [tuple(t.shape) for t in (tU, tS, tVh)]
        assert U.grad_fn.name() == tU.grad_fn.name() == "LinalgSvdBackward0"
        k = S.shape[-1]
        rec = (U.narrow(-1, 0, k) * S.unsqueeze(-2)) @ Vh.narrow(-2, 0, k)
        trec = (tU[..., :k] * tS.unsqueeze(-2)) @ tVh[..., :k, :]
        assert_close(rec, trec)
        g = randn(5, 3)
        ((rec * pt.tensor(g)).sum() + (U.narrow(-1, 0, k) ** 2).sum() + S.sum()).backward()
        ((trec * torch.tensor(g)).sum() + (tU[..., :k] ** 2).sum() + tS.sum()).backward()
        assert_close(y.grad, ty.grad, atol=1e-6)


def test_eigh_svd_gradcheck():
    assert gradcheck(lambda a: _sym(pt.linalg.eigh)(a), spd(3) / 3 + np.diag([0.0, 1.0, 2.0]))
    assert gradcheck(lambda a: pt.linalg.svd(a, full_matrices=False), randn(4, 3))
    assert gradcheck(lambda a: pt.linalg.svd(a, full_matrices=False), randn(2, 4))
    assert gradcheck(lambda a: pt.linalg.svd(a)[1], randn(3, 3))


def test_return_types(torch):
    a = spd(3)
    s = pt.linalg.slogdet(pt.tensor(a))
    assert s.sign.shape == () and s.logabsdet.grad_fn is None
    e = pt.linalg.eigh(pt.tensor(a))
    assert e.eigenvalues.shape == (3,) and e.eigenvectors.shape == (3, 3)
    q = pt.linalg.qr(pt.tensor(randn(4, 3)), mode="complete")
    assert q.Q.shape == (4, 4) and q.R.shape == (4, 3)
    q = pt.linalg.qr(pt.tensor(randn(4, 3)), mode="r")
    assert q.Q.shape == (0,) and q.R.shape == (3, 3)
    u = pt.linalg.svd(pt.tensor(randn(3, 2)))
    assert (u.U.shape, u.S.shape, u.Vh.shape) == ((3, 3), (2,), (2, 2))
    x = pt.tensor(randn(4, 3), requires_grad=True)
    r = pt.linalg.lstsq(x, pt.tensor(randn(4, 2)))
    t = torch.linalg.lstsq(torch.tensor(x.detach().numpy()), torch.tensor(np.zeros((4, 2))))
    assert r.rank.dtype == pt.int64 and r.singular_values.grad_fn is None
    assert r.residuals.shape == tuple(t.residuals.shape) and r.singular_values.shape == tuple(t.singular_values.shape)
    i = pt.linalg.inv_ex(pt.zeros(2, 3, 3))
    assert i.info.dtype == pt.int32 and i.info.tolist() == [1, 1]
    c = pt.linalg.cholesky_ex(-pt.eye(3, dtype=pt.float64))
    assert c.info.item() == 1
    with pytest.raises(pt.linalg.LinAlgError):
        pt.linalg.inv_ex(pt.zeros(3, 3), check_errors=True)


def test_lstsq_drivers_match_torch(torch):
    a, b = randn(2, 5, 3), randn(2, 5, 2)
    for driver in (None, "gels", "gelsy", "gelsd", "gelss"):
        r = pt.linalg.lstsq(pt.tensor(a), pt.tensor(b), driver=driver)
        t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        for x, y in zip(r, t):
            assert_close(x, y, atol=1e-6)
    r = pt.linalg.lstsq(pt.tensor(a[0]), pt.tensor(b[0, :, 0]), driver="gelsd")
    t = torch.linalg.lstsq(torch.tensor(a[0]), torch.tensor(b[0, :, 0]), driver="gelsd")
    for x, y in zip(r, t):
        assert_close(x, y, atol=1e-6)


def test_rank_and_pinv_tolerances(torch):
    a = np.diag([3.0, 1.0, 1e-3, 0.0])
    for kw in ({}, {"atol": 0.5}, {"rtol": 0.1}, {"atol": 0.01, "rtol": 0.1}, {"hermitian": True}):
        assert_close(pt.linalg.matrix_rank(pt.tensor(a), **kw), torch.linalg.matrix_rank(torch.tensor(a), **kw))
        assert_close(pt.linalg.pinv(pt.tensor(a), **kw), torch.linalg.pinv(torch.tensor(a), **kw))
    assert_close(pt.linalg.matrix_rank(pt.ones(2, 3, 3)), torch.linalg.matrix_rank(torch.ones(2, 3, 3)))
    assert_close(pt.linalg.matrix_rank(pt.tensor(a), 0.5), torch.linalg.matrix_rank(torch.tensor(a), 0.5))


def test_qr_mode_r_is_not_differentiable(torch):
    a = randn(4, 3)
    (x,), (tx,) = both(torch, a)
    r, tr = pt.linalg.qr(x, mode="r"), torch.linalg.qr(tx, mode="r")
    assert_close(r.R, tr.R)
    assert r.Q.shape == tuple(tr.Q.shape) == (0,)
    with pytest.raises(RuntimeError) as ours:
        r.R.sum().backward()
    with pytest.raises(RuntimeError) as theirs:
        tr.R.sum().backward()
    assert str(ours.value) == str(theirs.value)


def test_det_of_singular_matrix_has_a_gradient():
    """The gradient of det at a singular matrix is its cofactor matrix (PyTorch 2.13 returns zeros here)."""
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 2.0]])
    x = pt.tensor(a, requires_grad=True)
    pt.linalg.det(x).backward()
    cof = np.array([[np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) * (-1) ** (i + j) for j in range(3)]
                    for i in range(3)])
    assert_close(x.grad, cof, atol=1e-7)
    assert gradcheck(pt.linalg.det, a)


def test_complex_inputs_match_torch(torch):
    def c(*s):
        return RNG.standard_normal(s) + 1j * RNG.standard_normal(s)

    def herm(n):
        a = c(n, n)
        return a @ a.conj().T + n * np.eye(n)

    def loss(r):
        rs = r if isinstance(r, tuple) else (r,)
        return sum((x * x.conj()).real.sum() for x in rs)
    cases = [
        (lambda L: L.mm, [c(2, 3), c(3, 4)]), (lambda L: L.matmul, [c(2, 2, 3), c(3, 4)]),
        (lambda L: L.mv, [c(2, 3), c(3)]), (lambda L: L.dot, [c(3), c(3)]), (lambda L: L.vdot, [c(3), c(3)]),
        (lambda L: lambda a, b: L.einsum("ii,i->i", a, b), [c(3, 3), c(3)]),
        (lambda L: lambda a, b, x: L.addmm(a, b, x, alpha=2), [c(2, 4), c(2, 3), c(3, 4)]),
        (lambda L: L.addr, [c(2, 4), c(2), c(4)]), (lambda L: L.linalg.det, [c(3, 3)]),
        (lambda L: L.linalg.slogdet, [c(3, 3)]), (lambda L: L.linalg.inv, [c(3, 3)]),
        (lambda L: L.linalg.solve, [c(3, 3), c(3, 2)]), (lambda L: L.linalg.cholesky, [herm(3)]),
        (lambda L: L.linalg.eigvalsh, [herm(3)]), (lambda L: L.linalg.svdvals, [c(4, 3)]),
        (lambda L: L.linalg.pinv, [c(4, 3)]), (lambda L: lambda a: L.linalg.vector_norm(a, 3), [c(3, 4)]),
        (lambda L: L.linalg.cross, [c(2, 3), c(2, 3)]),
    ]
    for make, arrays in cases:
        ours = [pt.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        lo, lt = loss(make(pt)(*ours)), loss(make(torch)(*theirs))
        assert_close(lo, lt)
        lo.backward()
        lt.backward()
        for a, b in zip(ours, theirs):
            assert_close(a.grad, b.grad, atol=1e-6)


# ====================================================================== norms

@pytest.mark.parametrize("ord", [2, 1, 0, 3, 0.5, 1.5, math.inf, -math.inf, -1, -2.5])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), ((0, 1), True), (-1, True)])
def test_vector_norm_matches_torch(torch, ord, dim, keepdim):
    a = randn(3, 4)
    a[0, 1] = 0.0
    check_fwd_bwd(torch, lambda x: pt.linalg.vector_norm(x, ord, dim, keepdim),
                  lambda x: torch.linalg.vector_norm(x, ord, dim, keepdim), [a])


def test_vector_norm_dtypes(torch):
    x = randn(3, 4).astype(np.float32)
    for kw in ({}, {"dtype": "float64"}):
        ours = pt.linalg.vector_norm(pt.tensor(x), **{k: getattr(pt, v) for k, v in kw.items()})
        theirs = torch.linalg.vector_norm(torch.tensor(x), **{k: getattr(torch, v) for k, v in kw.items()})
        assert_close(ours, theirs)
    z = (randn(3) + 1j * randn(3)).astype(np.complex64)
    assert_close(pt.linalg.vector_norm(pt.tensor(z)), torch.linalg.vector_norm(torch.tensor(z)))
    h = np.ones((2, 3), dtype=np.float16)
    assert_close(pt.linalg.vector_norm(pt.tensor(h)), torch.linalg.vector_norm(torch.tensor(h)), rtol=1e-3)
    (a,), (ta,) = both(torch, x.astype(np.float64))
    a32, ta32 = a.float(), ta.float()
    pt.linalg.vector_norm(a32, 3, dtype=pt.float64).backward()
    torch.linalg.vector_norm(ta32, 3, dtype=torch.float64).backward()
    assert_close(a.grad, ta.grad, rtol=1e-5)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
@pytest.mark.parametrize("dim,keepdim", [((-2, -1), False), ((2, 0), True), ((0, 2), False)])
def test_matrix_norm_matches_torch(torch, ord, dim, keepdim):
    check_fwd_bwd(torch, lambda x: pt.linalg.matrix_norm(x, ord, dim, keepdim),
                  lambda x: torch.linalg.matrix_norm(x, ord, dim, keepdim), [randn(2, 3, 4)], atol=1e-6)


@pytest.mark.parametrize("args", [(), (2,), ("fro",), ("nuc",), (3, 1), (math.inf, (0, 1)), (None, (1, 2)),
                                  (-1, 0, True)])
def test_norm_matches_torch(torch, args):
    x = randn(3, 4) if len(args) < 2 or args[1] in (0, 1, (0, 1)) else randn(2, 3, 4)
    check_fwd_bwd(torch, lambda a: pt.linalg.norm(a, *args), lambda a: torch.linalg.norm(a, *args), [x], atol=1e-6)


@pytest.mark.parametrize("f", [
    lambda a: pt.linalg.vector_norm(a, 3, 1), lambda a: pt.linalg.vector_norm(a, math.inf),
    lambda a: pt.linalg.vector_norm(a, 0.5), lambda a: pt.linalg.matrix_norm(a, "nuc"),
    lambda a: pt.linalg.matrix_norm(a, 2), lambda a: pt.linalg.matrix_norm(a, -1), lambda a: pt.linalg.norm(a),
])
def test_norm_gradcheck(f):
    assert gradcheck(f, randn(3, 4))
    assert pt.autograd.gradgradcheck(f, (pt.tensor(randn(3, 4), requires_grad=True),))


def test_vector_norm_zero_input_gradient(torch):
    (x,), (tx,) = both(torch, np.zeros(3))
    pt.linalg.vector_norm(x).backward()
    torch.linalg.vector_norm(tx).backward()
    assert_close(x.grad, tx.grad)


def test_out_arguments(torch):
    a, b = randn(3, 3), randn(3, 3)
    out = pt.zeros(3, 3, dtype=pt.float64)
    pt.linalg.inv(pt.tensor(a), out=out)
    assert_close(out, torch.linalg.inv(torch.tensor(a)))
    out = pt.zeros(0, dtype=pt.float64)
    pt.mm(pt.tensor(a), pt.tensor(b), out=out)
    assert_close(out, torch.tensor(a) @ torch.tensor(b))
    assert to_np(out).shape == (3, 3)


def test_top_level_legacy_linalg(torch):
    import numpy as np
    import pedatorch as pt
    from conftest import assert_close
    A = np.random.default_rng(3).standard_normal((4, 4)) + 4 * np.eye(4)
    S = A @ A.T
    for name, data in [("det", A), ("logdet", S), ("inverse", A), ("pinverse", A), ("cholesky", S)]:
        assert_close(getattr(pt, name)(pt.tensor(data)), getattr(torch, name)(torch.tensor(data)), rtol=1e-8,
                     atol=1e-10)
        assert_close(getattr(pt.tensor(data), name)(), getattr(torch.tensor(data), name)(), rtol=1e-8, atol=1e-10)
    U, s_, V = pt.svd(pt.tensor(A))
    assert_close(U @ pt.diag(s_) @ V.t(), pt.tensor(A), rtol=1e-10, atol=1e-10)
    assert_close(pt.matrix_power(pt.tensor(A), 3), torch.matrix_power(torch.tensor(A), 3), rtol=1e-10)
    sign, la = pt.slogdet(pt.tensor(A))
    tsign, tla = torch.slogdet(torch.tensor(A))
    assert_close(sign, tsign) and assert_close(la, tla)
