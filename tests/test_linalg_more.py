"""linalg.solve_triangular, lu / lu_factor(_ex) / lu_solve / lu_unpack, matrix_exp, eig / eigvals, cond, vander,
tensorinv, tensorsolve, householder_product and the top-level legacy spellings: values, gradients and errors
against PyTorch, gradients also against finite differences."""
import numpy as np
import pytest

import pedatorch as torch
from pedatorch.autograd import gradcheck, gradgradcheck

pt = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def _pair(a, requires_grad=False):
    return (torch.tensor(a, requires_grad=requires_grad), pt.tensor(a, requires_grad=requires_grad))


def _close(x, y, tol=1e-10):
    x = x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)
    y = y.detach().numpy() if hasattr(y, "detach") else np.asarray(y)
    assert x.shape == y.shape and x.dtype == y.dtype
    np.testing.assert_allclose(x, y, rtol=tol, atol=tol)


def _grads(fn, *arrays, tol=1e-9, names=True):
    """fn(lib, *tensors) -> a tensor; compare values, grad_fn names (unless a composite: ``names=False``) and
    input gradients with PyTorch."""
    ours = [torch.tensor(a, requires_grad=True) for a in arrays]
    theirs = [pt.tensor(a, requires_grad=True) for a in arrays]
    out, ref = fn(torch, *ours), fn(pt, *theirs)
    _close(out, ref, tol)
    assert not names or type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
    w = RNG.standard_normal(tuple(ref.shape))
    if ref.is_complex():
        w = w + 1j * RNG.standard_normal(tuple(ref.shape))
    (out * torch.tensor(w)).real.sum().backward() if out.is_complex() else (out * torch.tensor(w)).sum().backward()
    (ref * pt.tensor(w)).real.sum().backward() if ref.is_complex() else (ref * pt.tensor(w)).sum().backward()
    for a, b in zip(ours, theirs):
        _close(a.grad, b.grad, tol)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular(upper, left, unit):
    A = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    B = RNG.standard_normal((3, 1, 4, 2) if left else (3, 1, 2, 4))
    _grads(lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit), A, B)
    a, b = torch.tensor(A[0], requires_grad=True), torch.tensor(B[0, 0], requires_grad=True)
    assert gradcheck(lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
                     (a, b))
    assert gradgradcheck(lambda a, b: torch.linalg.solve_triangular(a, b, upper=upper, left=left), (a, b))


def test_solve_triangular_errors_and_singular():
    A, B = torch.randn(3, 3), torch.randn(3, 2)
    assert torch.linalg.solve_triangular(A, B.double(), upper=True).dtype == torch.float32   # A's dtype
    cases = [(A, torch.randn(3), {}), (torch.randn(3, 4), B, {}), (A, torch.randn(4, 2), {}),
             (A, B, {"left": False}), (A.int(), B.int(), {})]
    for a, b, kw in cases:
        with pytest.raises(Exception) as ours:
            torch.linalg.solve_triangular(a, b, upper=True, **kw)
        with pytest.raises(Exception) as theirs:
            pt.linalg.solve_triangular(pt.from_numpy(a.numpy()), pt.from_numpy(b.numpy()), upper=True, **kw)
        assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
    z = np.zeros((3, 3))
    _close(torch.linalg.solve_triangular(torch.tensor(z), torch.tensor(np.ones((3, 1))), upper=True),
           pt.linalg.solve_triangular(pt.tensor(z), pt.tensor(np.ones((3, 1))), upper=True))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)])
def test_lu_values_and_gradients(shape):
    a = RNG.standard_normal(shape)
    for i in range(2):
        _grads(lambda lib, x: lib.linalg.lu(x)[1 + i], a)
    _grads(lambda lib, x: lib.linalg.lu_factor(x).LU, a)
    ours, theirs = torch.linalg.lu(torch.tensor(a)), pt.linalg.lu(pt.tensor(a))
    for x, y in zip(ours, theirs):
        _close(x, y)
    f, g = torch.linalg.lu_factor_ex(torch.tensor(a)), pt.linalg.lu_factor_ex(pt.tensor(a))
    _close(f.pivots, g.pivots)
    _close(f.info, g.info)
    x = torch.tensor(a, requires_grad=True)
    assert gradcheck(lambda x: torch.linalg.lu(x)[1:], (x,))
    assert gradcheck(lambda x: torch.linalg.lu_factor(x).LU, (x,))


def test_lu_complex_and_float32():
    a = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    for x, y in zip(torch.linalg.lu(torch.tensor(a)), pt.linalg.lu(pt.tensor(a))):
        _close(x, y)
    a32 = RNG.standard_normal((4, 4)).astype(np.float32)
    for x, y in zip(torch.linalg.lu(torch.tensor(a32)), pt.linalg.lu(pt.tensor(a32))):
        _close(x, y, 1e-5)
    assert gradcheck(lambda x: torch.linalg.lu(x)[1:], (torch.tensor(a, requires_grad=True),))


def test_lu_singular_and_errors():
    z = np.zeros((2, 3, 3))
    z[0] = np.eye(3)
    ours, theirs = torch.linalg.lu_factor_ex(torch.tensor(z)), pt.linalg.lu_factor_ex(pt.tensor(z))
    for x, y in zip(ours, theirs):
        _close(x, y)
    for fn, arg in (("lu_factor", torch.tensor(z)), ("lu", torch.randn(3))):
        with pytest.raises(RuntimeError) as e1:
            getattr(torch.linalg, fn)(arg)
        with pytest.raises(RuntimeError) as e2:
            getattr(pt.linalg, fn)(pt.from_numpy(arg.numpy()))
        assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_and_unpack(left, adjoint):
    a = RNG.standard_normal((2, 4, 4))
    b = RNG.standard_normal((2, 4, 3) if left else (2, 3, 4))
    _grads(lambda lib, x, y: lib.linalg.lu_solve(*lib.linalg.lu_factor(x), y, left=left, adjoint=adjoint), a, b,
           names=False)
    _grads(lambda lib, x: lib.lu_unpack(*lib.linalg.lu_factor(x))[1], a, names=False)
    f1, f2 = torch.linalg.lu_factor(torch.tensor(a)), pt.linalg.lu_factor(pt.tensor(a))
    for x, y in zip(torch.lu_unpack(*f1), pt.lu_unpack(*f2)):
        _close(x, y)
    P, L, U = torch.lu_unpack(*f1, unpack_data=False)
    assert L.shape == (0,) and U.shape == (0,) and P.shape == (2, 4, 4)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_matrix_exp(dtype):
    a = RNG.standard_normal((2, 3, 3)).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * RNG.standard_normal((2, 3, 3))
    big = 30 * RNG.standard_normal((3, 3))
    for x in (a, big, np.zeros((3, 3)), np.zeros((0, 2, 2))):
        _close(torch.linalg.matrix_exp(torch.tensor(x)), pt.linalg.matrix_exp(pt.tensor(x)), 1e-9 * max(1, np.abs(
            pt.linalg.matrix_exp(pt.tensor(x)).numpy()).max(initial=0)))
    _grads(lambda lib, x: lib.linalg.matrix_exp(x), a)
    x = torch.tensor(a[0], requires_grad=True)
    assert gradcheck(torch.linalg.matrix_exp, (x,)) and gradgradcheck(torch.linalg.matrix_exp, (x,))
    f32 = RNG.standard_normal((4, 4)).astype(np.float32)
    _close(torch.matrix_exp(torch.tensor(f32)), pt.matrix_exp(pt.tensor(f32)), 1e-5)


def test_eig_and_eigvals():
    a = RNG.standard_normal((2, 4, 4))
    for x, y in zip(torch.linalg.eig(torch.tensor(a)), pt.linalg.eig(pt.tensor(a))):
        _close(x, y)
    _close(torch.linalg.eigvals(torch.tensor(a)), pt.linalg.eigvals(pt.tensor(a)))
    _grads(lambda lib, x: lib.linalg.eigvals(x), a)
    # a loss that does not depend on the eigenvectors' phases: |V|
    _grads(lambda lib, x: lib.linalg.eig(x)[1].abs(), a)
    c = a + 1j * RNG.standard_normal((2, 4, 4))
    _grads(lambda lib, x: lib.linalg.eigvals(x), c)
    x = torch.tensor(a[0], requires_grad=True)
    assert gradcheck(lambda x: torch.linalg.eigvals(x), (x,))
    with pytest.raises(RuntimeError, match="ill-defined"):
        torch.linalg.eig(torch.tensor(c[0], requires_grad=True))[1].sum().real.backward()
    with pytest.raises(NotImplementedError, match="linalg_eig_out_cpu"):
        torch.linalg.eig(torch.randn(3, 3).half())


def test_composites():
    a = RNG.standard_normal((3, 3))
    for p in (None, 2, -2, 1, -1, "fro", "nuc", float("inf")):
        _close(torch.linalg.cond(torch.tensor(a), p), pt.linalg.cond(pt.tensor(a), p))
    _close(torch.linalg.cond(torch.zeros(2, 2), 1), pt.linalg.cond(pt.zeros(2, 2), 1))
    _close(torch.linalg.cond(torch.tensor(RNG.standard_normal((3, 4)))), pt.linalg.cond(pt.tensor(
        torch.tensor(RNG.standard_normal((3, 4))).numpy())), 1e300)   # (shapes and dtypes)
    _grads(lambda lib, x: lib.linalg.cond(x), a)
    _grads(lambda lib, x: lib.linalg.vander(x), RNG.standard_normal((2, 3)))
    _close(torch.linalg.vander(torch.tensor([1, 2, 3]), N=5), pt.linalg.vander(pt.tensor([1, 2, 3]), N=5))
    t = RNG.standard_normal((4, 6, 8, 3))
    _grads(lambda lib, x: lib.linalg.tensorinv(x, ind=2), t, names=False)
    A, B = RNG.standard_normal((6, 4, 2, 3, 4)), RNG.standard_normal((6, 4))
    _grads(lambda lib, x, y: lib.linalg.tensorsolve(x, y), A, B, names=False)
    A2 = RNG.standard_normal((2, 12, 6, 4))
    _close(torch.linalg.tensorsolve(torch.tensor(A2), torch.tensor(B), dims=(0, 1)),
           pt.linalg.tensorsolve(pt.tensor(A2), pt.tensor(B), dims=(0, 1)))
    for call in (lambda lib: lib.linalg.tensorinv(lib.ones(4, 6, 8, 3), ind=0),
                 lambda lib: lib.linalg.tensorinv(lib.ones(4, 6, 8, 2)),
                 lambda lib: lib.linalg.tensorsolve(lib.ones(6, 4, 2, 3, 5), lib.ones(6, 4)),
                 lambda lib: lib.linalg.householder_product(lib.ones(3, 4), lib.ones(3)),
                 lambda lib: lib.linalg.householder_product(lib.ones(4, 3), lib.ones(4)),
                 lambda lib: lib.linalg.cond(lib.ones(3, 4), 1),
                 lambda lib: lib.linalg.vander(lib.tensor(2.))):
        with pytest.raises(RuntimeError) as e1:
            call(torch)
        with pytest.raises(RuntimeError) as e2:
            call(pt)
        assert str(e1.value) == str(e2.value)


def test_geqrf_householder_ormqr():
    a = RNG.standard_normal((2, 5, 3))
    for x, y in zip(torch.geqrf(torch.tensor(a)), pt.geqrf(pt.tensor(a))):
        _close(x, y)
    _grads(lambda lib, x, t: lib.linalg.householder_product(x, t), *[x.numpy() for x in pt.geqrf(pt.tensor(a))],
           names=False)
    h, tau = pt.geqrf(pt.tensor(a))
    c = RNG.standard_normal((2, 5, 2))
    for left, transpose in ((True, False), (True, True)):
        _close(torch.ormqr(torch.tensor(h.numpy()), torch.tensor(tau.numpy()), torch.tensor(c), left, transpose),
               pt.ormqr(h, tau, pt.tensor(c), left, transpose))
    _close(torch.orgqr(torch.tensor(h.numpy()), torch.tensor(tau.numpy())), pt.orgqr(h, tau))
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        torch.geqrf(torch.tensor(a, requires_grad=True))[0].sum().backward()


def test_legacy_spellings():
    a, b = RNG.standard_normal((3, 3)) + 3 * np.eye(3), RNG.standard_normal((3, 2))
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        ours = torch.triangular_solve(torch.tensor(b), torch.tensor(a), upper=False, transpose=True)
    theirs = pt.triangular_solve(pt.tensor(b), pt.tensor(a), upper=False, transpose=True)
    for x, y in zip(ours, theirs):
        _close(x, y)
    for x, y in zip(torch.lu(torch.tensor(a), get_infos=True), pt.lu(pt.tensor(a), get_infos=True)):
        _close(x, y)
    LU, piv = pt.linalg.lu_factor(pt.tensor(a))
    _close(torch.lu_solve(torch.tensor(b), torch.tensor(LU.numpy()), torch.tensor(piv.numpy())),
           pt.lu_solve(pt.tensor(b), LU, piv))
    _close(torch.tensor(a).matrix_exp(), pt.tensor(a).matrix_exp())


def test_on_the_device(device):
    """The written-out kernels (substitution, getrf, the Pade exponential, eig) run on the device's arrays."""
    a = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal((2, 4, 3))
    A, B = torch.tensor(a, device=device), torch.tensor(b, device=device)
    cpu = torch.linalg.solve_triangular(torch.tensor(a), torch.tensor(b), upper=True)
    X = torch.linalg.solve_triangular(A, B, upper=True)
    assert X.device.type == device
    np.testing.assert_allclose(X.cpu().numpy(), cpu.numpy(), rtol=1e-12, atol=1e-12)
    P, L, U = torch.linalg.lu(A)
    np.testing.assert_allclose((P @ L @ U).cpu().numpy(), a, rtol=1e-12, atol=1e-12)
    LU, piv = torch.linalg.lu_factor(A)
    np.testing.assert_allclose(torch.linalg.lu_solve(LU, piv, B).cpu().numpy(),
                               np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(torch.linalg.matrix_exp(A).cpu().numpy(),
                               torch.linalg.matrix_exp(torch.tensor(a)).numpy(), rtol=1e-12)
    x = torch.tensor(a, device=device, requires_grad=True)
    torch.linalg.lu(x)[2].sum().backward()
    assert x.grad.device.type == device


def test_eig_on_the_device(device):
    a = RNG.standard_normal((2, 3, 3))
    w, V = torch.linalg.eig(torch.tensor(a, device=device))
    assert w.device.type == device and V.device.type == device
    w0, V0 = torch.linalg.eig(torch.tensor(a))
    np.testing.assert_allclose(w.cpu().numpy(), w0.numpy(), rtol=1e-12)
    x = torch.tensor(a, device=device, requires_grad=True)
    torch.linalg.eigvals(x).abs().sum().backward()
    assert x.grad.device.type == device
