"""Classical ML round p4 (tests/compat/57_classic_ml_gp_flows.py): torch.pca_lowrank / svd_lowrank, cdist's
matrix-product form and its checks, linalg.cond, inv_ex's wording, lstsq's shape checks, solve_triangular's
required ``upper``; each compared with PyTorch."""
import math

import numpy as np
import pytest

import pedatorch as pt
from conftest import error_of

torch = pytest.importorskip("torch")

LIBS = [pt, torch]


def arr(x):
    return np.asarray(x.detach().cpu().numpy())


def close(a, b, rtol=1e-5, atol=1e-6):
    a, b = arr(a), arr(b)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------- 1: pca_lowrank / svd_lowrank

def _lowrank_data(lib):
    lib.manual_seed(0)
    latent = lib.randn(40, 2, dtype=lib.float64)
    mixing = lib.tensor([[2.0, 0.5, -1.0, 0.3], [0.0, 1.0, 0.5, -0.7]], dtype=lib.float64)
    return latent @ mixing + 0.01 * lib.randn(40, 4, dtype=lib.float64) + 3.0


@pytest.mark.parametrize("call", [
    lambda lib, D: lib.pca_lowrank(D, q=3, niter=3),
    lambda lib, D: lib.pca_lowrank(D),
    lambda lib, D: lib.pca_lowrank(D, q=2, center=False),
    lambda lib, D: lib.svd_lowrank(D, q=3),
    lambda lib, D: lib.svd_lowrank(D.mT, q=3),                          # a wide matrix: the transposed problem
    lambda lib, D: lib.svd_lowrank(D, q=2, M=D.mean(0, keepdim=True)),  # A - M without forming it
    lambda lib, D: lib.svd_lowrank(D.float().reshape(2, 20, 4), q=2),   # a batch, float32
])
def test_lowrank_draws_what_pytorch_draws(call):
    """The randomized SVD draws its Gaussian test matrix with randn: seeded, PyTorch's U, S, V (same signs,
    as the same sketch goes through the same QR and SVD), a plain tuple."""
    outs = []
    for lib in LIBS:
        D = _lowrank_data(lib)
        lib.manual_seed(5)
        r = call(lib, D)
        outs.append((type(r).__name__, [tuple(t.shape) for t in r], [str(t.dtype) for t in r], r))
        outs[-1] += (lib.randn(2),)   # the stream moved on by the same count
    (ta, sa, da, (U, S, V), after), (tb, sb, db, (U2, S2, V2), after2) = outs
    assert (ta, sa, da) == (tb, sb, db) and ta == "tuple"
    close(S, S2)
    # the singular vectors are as accurate as the sketch: compare them up to the column sign
    for x, y in ((U, U2), (V, V2)):
        np.testing.assert_allclose(np.abs(arr(x)[..., :2]), np.abs(arr(y)[..., :2]), atol=1e-4)
    close(after, after2)


def test_pca_lowrank_errors():
    for call in (lambda lib: lib.pca_lowrank(lib.ones(5, 3), q=4),
                 lambda lib: lib.pca_lowrank(lib.ones(5, 3), q=-1),
                 lambda lib: lib.pca_lowrank(lib.ones(5, 3), niter=-1)):
        assert error_of(lambda: call(pt)) == error_of(lambda: call(torch))


def test_pca_lowrank_principal_directions():
    D = _lowrank_data(pt)
    pt.manual_seed(1)
    U, S, V = pt.pca_lowrank(D, q=2)
    Dc = D - D.mean(0)
    _, S_full, Vh = pt.linalg.svd(Dc, full_matrices=False)
    np.testing.assert_allclose(S.numpy(), S_full[:2].numpy(), rtol=1e-8)
    np.testing.assert_allclose(np.abs((V * Vh[:2].mT).sum(0).numpy()), 1.0, rtol=1e-8)


# ---------------------------------------------------------------- 2: cdist's matrix-product form

def test_cdist_mm_gradient_at_zero_distance():
    """cdist(x, x) with more than 25 rows takes the matrix-product form; its diagonal is 0, where
    differentiating sqrt gave NaN: ATen's backward takes the subgradient 0."""
    def run(lib):
        lib.manual_seed(0)
        x = lib.randn(30, 3, requires_grad=True)
        d = lib.cdist(x, x)
        (d.sum() + lib.exp(-d.pow(2)).sum()).backward()
        y = lib.tensor([[0.0, 0.0], [1.0, 0.0]] * 15, requires_grad=True)   # repeated points: zero off the diagonal
        lib.cdist(y, y, compute_mode="use_mm_for_euclid_dist").sum().backward()
        return d.grad_fn.name(), d.grad_fn.next_functions[0][0].name(), x.grad, y.grad
    a, b = run(pt), run(torch)
    assert a[:2] == b[:2] == ("ViewBackward0", "EuclideanDistBackward0")
    assert not np.isnan(a[2].numpy()).any()
    close(a[2], b[2], rtol=1e-4, atol=1e-4)
    close(a[3], b[3])


def test_cdist_mm_gradcheck_and_double_backward():
    pt.manual_seed(0)
    x = pt.randn(30, 3, dtype=pt.float64, requires_grad=True)
    z = pt.randn(4, 3, dtype=pt.float64, requires_grad=True)
    f = lambda a, b: pt.cdist(a, b, compute_mode="use_mm_for_euclid_dist")  # noqa: E731
    assert pt.autograd.gradcheck(f, (x, z))
    assert pt.autograd.gradgradcheck(f, (x, z))
    # batched with broadcasting, and only one side requiring grad
    xb = pt.randn(2, 27, 3, dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradcheck(lambda a: pt.cdist(a, z.detach()), (xb,))


def test_cdist_mm_double_backward_matches_pytorch():
    def run(lib):
        lib.manual_seed(3)
        x = lib.randn(30, 2, dtype=lib.float64, requires_grad=True)
        K = lib.exp(-lib.cdist(x, x).pow(2))
        g, = lib.autograd.grad(K.sum(), x, create_graph=True)
        h, = lib.autograd.grad(g.pow(2).sum(), x)
        return g, h
    (g, h), (g2, h2) = run(pt), run(torch)
    close(g, g2, rtol=1e-8, atol=1e-8)
    close(h, h2, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("call", [
    lambda lib: lib.cdist(lib.ones(2, 2), lib.ones(2, 2, dtype=lib.long)),
    lambda lib: lib.cdist(lib.ones(2, 2, dtype=lib.long), lib.ones(2, 2)),
    lambda lib: lib.cdist(lib.ones(2, 2, dtype=lib.bool), lib.ones(2, 2)),
    lambda lib: lib.cdist(lib.ones(2, 2, dtype=lib.cfloat), lib.ones(2, 2)),
    lambda lib: lib.cdist(lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64)),
    lambda lib: lib.cdist(lib.ones(2, 2, dtype=lib.float64), lib.ones(2, 2), p=1),
    lambda lib: lib.cdist(lib.ones(30, 2), lib.ones(30, 2, dtype=lib.float64)),
    lambda lib: lib.cdist(lib.ones(2, 2).half(), lib.ones(2, 2)),
    lambda lib: lib.cdist(lib.ones(2, 2), lib.ones(2, 2).half()),
    lambda lib: lib.cdist(lib.ones(2, 2).bfloat16(), lib.ones(2, 2).bfloat16()),
    lambda lib: lib.cdist(lib.ones(2, 3, 2), lib.ones(3, 3, 2)),
    lambda lib: lib.cdist(lib.ones(2, 30, 2), lib.ones(3, 30, 2)),
])
def test_cdist_errors(call):
    assert error_of(lambda: call(pt)) == error_of(lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda lib: lib.cdist(lib.ones(0, 2), lib.ones(3, 2, dtype=lib.float64)),   # empty: no kernel, no dtype check
    lambda lib: lib.cdist(lib.ones(0, 2, requires_grad=True), lib.ones(30, 2)),
    lambda lib: lib.cdist(lib.ones(30, 0, requires_grad=True), lib.ones(3, 0)),
    lambda lib: lib.cdist(lib.ones(30, 2).half(), lib.ones(28, 2).half()),       # the matrix-product form: half works
])
def test_cdist_empty_and_half(call):
    a, b = call(pt), call(torch)
    assert (tuple(a.shape), str(a.dtype), type(a.grad_fn).__name__) == \
        (tuple(b.shape), str(b.dtype), type(b.grad_fn).__name__)
    close(a.float(), b.float(), atol=1e-2)


def test_cdist_autocast_casts_both_forms_to_float32():
    outs = []
    for lib in LIBS:
        lib.manual_seed(0)
        x, y = lib.randn(30, 3), lib.randn(28, 3)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            outs.append([lib.cdist(x.bfloat16(), y.bfloat16()), lib.cdist(x[:3].bfloat16(), y[:4].bfloat16()),
                         lib.cdist(x, y)])
    for a, b in zip(*outs):
        assert a.dtype == pt.float32 and str(b.dtype) == "torch.float32"
        close(a, b, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- 3: linalg.cond

_SING = [[1.0, 2.0], [2.0, 4.0]]


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, 1.0, math.inf, -math.inf, "fro", "nuc", 3, 3.5, 0, "abc"])
@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([[2.0, 1.0], [0.5, 3.0]]),
    lambda lib: lib.randn(2, 3),
    lambda lib: lib.zeros(0, 0),
    lambda lib: lib.zeros(2, 0, 0, dtype=lib.float64),
    lambda lib: lib.zeros(2, 0, 3),
    lambda lib: lib.ones(3),
    lambda lib: lib.eye(2, dtype=lib.long),
    lambda lib: lib.zeros(2, 2),
    lambda lib: lib.stack([lib.eye(2), lib.tensor([[1.0, 0.0], [0.0, 0.0]]), lib.tensor([[2.0, 1.0], [0.0, 3.0]])]),
    lambda lib: lib.eye(2, dtype=lib.cdouble) * (1 + 2j),
])
def test_cond_values_and_errors(make, p):
    """ATen's order of checks (a named norm wants a square matrix first; the order's validity before the
    shape otherwise), 0 for empty matrices, inf for singular ones (nan for a zero matrix's nuclear
    condition number: 0 * inf), and "nuc" from the singular values."""
    def run(lib):
        lib.manual_seed(0)
        A = make(lib)
        try:
            r = lib.linalg.cond(A, p)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        return tuple(r.shape), str(r.dtype).replace("torch.", ""), np.asarray(r.numpy(), np.float64).tolist()
    a, b = run(pt), run(torch)
    if isinstance(a[0], str) or isinstance(b[0], str):
        assert a == b
    else:
        assert a[:2] == b[:2]
        np.testing.assert_allclose(a[2], b[2], rtol=1e-5)


def test_cond_singular_is_infinite():
    for p in [1, -1, math.inf, "fro", "nuc"]:
        assert pt.linalg.cond(pt.tensor(_SING), p).item() > 1e6


@pytest.mark.parametrize("p", [None, -2, 1, -1, math.inf, "fro", "nuc"])
def test_cond_gradcheck(p):
    pt.manual_seed(0)
    A = (pt.randn(3, 3, dtype=pt.float64) + 2 * pt.eye(3, dtype=pt.float64)).requires_grad_()
    assert pt.autograd.gradcheck(lambda m: pt.linalg.cond(m, p), (A,))
    if p not in (None, -2, "nuc"):
        return   # (PyTorch's own backward through its in-place masked_fill_ of the inverse fails here)
    a = A.detach().clone().requires_grad_()
    b = torch.tensor(A.detach().numpy(), requires_grad=True)
    pt.linalg.cond(a, p).backward()
    torch.linalg.cond(b, p).backward()
    close(a.grad, b.grad, rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------- 4: inv_ex's wording

@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.inv_ex(lib.eye(2, dtype=lib.long)),
    lambda lib: lib.linalg.inv_ex(lib.ones(2)),
    lambda lib: lib.linalg.inv_ex(lib.ones(2, 3)),
    lambda lib: lib.linalg.inv_ex(lib.eye(2).half()),
    lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True),
    lambda lib: lib.linalg.inv_ex(lib.stack([lib.eye(2), lib.zeros(2, 2)]), check_errors=True),
    lambda lib: lib.linalg.inv(lib.zeros(2, 2)),
])
def test_inv_ex_errors(call):
    assert error_of(lambda: call(pt)) == error_of(lambda: call(torch))


# ---------------------------------------------------------------- 5: lstsq's checks

@pytest.mark.parametrize("shapes", [
    ((6, 4), (5,)), ((6, 4), (6,)), ((6, 4), (5, 2)), ((6, 4), (3, 6, 2)), ((6, 4), (2, 3, 6, 2)),
    ((3, 6, 4), (3, 6)), ((3, 6, 4), (1, 6)), ((2, 6, 4), (6, 2)), ((2, 3, 6, 4), (6, 2)),
    ((2, 3, 6, 4), (3, 6, 2)), ((2, 6, 4), (1, 6, 2)), ((2, 6, 4), (3, 6, 2)), ((6,), (6,)), ((6, 4), ()),
    ((6, 6, 4), (6, 2)), ((1, 6, 4), (6, 2)), ((2, 6, 4), (2, 6)),
])
def test_lstsq_shapes_and_errors(shapes):
    sa, sb = shapes

    def run(lib):
        lib.manual_seed(0)
        A, B = lib.randn(sa, dtype=lib.float64), lib.randn(sb, dtype=lib.float64)
        try:
            r = lib.linalg.lstsq(A, B)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        return tuple(r.solution.shape), r.solution.numpy().round(8).tolist()
    assert run(pt) == run(torch)


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.lstsq(lib.ones(3, 2), lib.ones(3, 1, dtype=lib.float64)),
    lambda lib: lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.cfloat), lib.ones(3, 1)),
    lambda lib: lib.linalg.lstsq(lib.ones(3, 2, dtype=lib.long), lib.ones(3, 1, dtype=lib.long)),
])
def test_lstsq_dtype_errors(call):
    assert error_of(lambda: call(pt)) == error_of(lambda: call(torch))


# ---------------------------------------------------------------- 6: solve_triangular's upper

def test_solve_triangular_requires_upper():
    for call in (lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(2, 1)),
                 lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(1, 2), left=False)):
        assert error_of(lambda: call(pt)) == error_of(lambda: call(torch))
    close(pt.linalg.solve_triangular(pt.eye(2), pt.ones(2, 1), upper=False), torch.ones(2, 1))


def test_cholesky_solve_is_one_op_with_pytorchs_full_factor_gradient():
    def run(lib, upper):
        A = lib.tensor([[4., 2., 0.5], [2., 3., 0.2], [0.5, 0.2, 2.]], dtype=lib.float64)
        F = lib.linalg.cholesky(A)
        F = (F.mH if upper else F).detach().requires_grad_()
        b = lib.tensor([[1., 0.5], [2., 1.], [0.3, -1.]], dtype=lib.float64, requires_grad=True)
        x = lib.cholesky_solve(b, F, upper=upper)
        x.pow(2).sum().backward()
        return x.grad_fn.name(), x.detach().numpy(), F.grad.numpy(), b.grad.numpy()
    for upper in (False, True):
        ours, theirs = run(pt, upper), run(torch, upper)
        assert ours[0] == theirs[0]
        for a, b in zip(ours[1:], theirs[1:]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    # against finite differences, through the factor's triangle (the only part the solve reads)
    F = (pt.eye(3, dtype=pt.float64) * 2 + pt.randn(3, 3, dtype=pt.float64).tril(-1) * 0.3).requires_grad_()
    b = pt.randn(2, 3, 2, dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradcheck(lambda b, f: pt.cholesky_solve(b, f.tril()), (b, F))
    assert pt.autograd.gradgradcheck(lambda b, f: pt.cholesky_solve(b, f.mH.triu(), upper=True), (b, F))
