# A tour of torch.linalg after its documentation page: each function's docs example (solve, lstsq, inv,
# pinv, det, slogdet, eigh, eigvalsh, svd / svdvals, qr modes, cholesky / cholesky_ex, the norms, cond,
# matrix_rank, matrix_power, matrix_exp, cross, vecdot, multi_dot, householder_product, lu_factor /
# lu_solve, solve_triangular), batched and float64 inputs, gradients through det, inv, eigvalsh and
# svdvals, and the errors raised for singular and non-square inputs.  Sign-ambiguous results
# (eigenvectors, singular vectors, Q of QR) are printed only through invariants.
import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def err(t):
    return f"{t.abs().max().item():.1e}" if t.abs().max().item() > 1e-4 else "ok"


A = torch.randn(3, 3, dtype=torch.float64)
B = torch.randn(3, 2, dtype=torch.float64)
spd = A @ A.mT + 3 * torch.eye(3, dtype=torch.float64)
print("A", A)

# ---- solve
X = torch.linalg.solve(A, B)
print("solve", X, err(A @ X - B))
b = torch.randn(3, dtype=torch.float64)
x = torch.linalg.solve(A, b)
print("solve vector", x.shape, err(A @ x - b))
Ab = torch.randn(2, 3, 3)
Bb = torch.randn(2, 3, 1)
print("solve batched", torch.linalg.solve(Ab, Bb).shape, err(Ab @ torch.linalg.solve(Ab, Bb) - Bb))
Xl = torch.linalg.solve(A, B.mT, left=False)
print("solve left=False", Xl.shape, err(Xl @ A - B.mT))
print("solve broadcast", torch.linalg.solve(Ab, torch.randn(3)).shape)

# ---- lstsq
At, Bt = torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64)
res = torch.linalg.lstsq(At, Bt)
print(type(res).__name__, res.solution, res.residuals, res.rank, res.singular_values)
print("lstsq == pinv", err(res.solution - torch.linalg.pinv(At) @ Bt))
res = torch.linalg.lstsq(At, Bt, driver="gelsd")
print("gelsd", res.solution.shape, res.residuals, res.rank, res.singular_values)
print("lstsq batched", torch.linalg.lstsq(torch.randn(4, 5, 3), torch.randn(4, 5, 2)).solution.shape)

# ---- inv, inv_ex, pinv
Ai = torch.linalg.inv(A)
print("inv", Ai, err(Ai @ A - torch.eye(3)))
inv, info = torch.linalg.inv_ex(A)
print("inv_ex", info, err(inv - Ai))
print("pinv", torch.linalg.pinv(At).shape, err(torch.linalg.pinv(At) @ At - torch.eye(3)))
print("pinv hermitian", err(torch.linalg.pinv(spd, hermitian=True) - torch.linalg.inv(spd)))
print("pinv rtol", torch.linalg.pinv(torch.diag(torch.tensor([1.0, 1e-8])), rtol=1e-6))
print("A.inverse()", err(A.inverse() - Ai))

# ---- det, slogdet, logdet
print("det", torch.linalg.det(A), torch.det(A), A.det())
sign, logabs = torch.linalg.slogdet(A)
print("slogdet", sign, logabs, torch.linalg.slogdet(A).logabsdet)
print("logdet spd", torch.logdet(spd), torch.logdet(A))
print(torch.linalg.slogdet(A))
print(torch.linalg.inv_ex(torch.eye(2)))
print("det batched", torch.linalg.det(Ab).shape, torch.linalg.det(torch.zeros(2, 2)))

# ---- eigh, eigvalsh, eig, eigvals
L, Q = torch.linalg.eigh(spd)
print("eigh values", L, "ascending", bool((L[1:] >= L[:-1]).all()))
print("eigh reconstruction", err(Q @ torch.diag(L) @ Q.mT - spd), "orthogonal", err(Q.mT @ Q - torch.eye(3)))
print("eigvalsh", torch.linalg.eigvalsh(spd), torch.linalg.eigvalsh(spd, UPLO="U"))
print("eigh UPLO", torch.linalg.eigh(spd, UPLO="U").eigenvalues)
w = torch.linalg.eigvals(torch.tensor([[2.0, 0.0], [0.0, 3.0]]))
print("eigvals", w, w.dtype)
ev = torch.linalg.eig(torch.tensor([[0.0, -1.0], [1.0, 0.0]]))
print("eig rotation", ev.eigenvalues, ev.eigenvectors.dtype)

# ---- svd, svdvals
U, S, Vh = torch.linalg.svd(At, full_matrices=False)
print("svd reduced", U.shape, S, Vh.shape, err(U @ torch.diag(S) @ Vh - At))
U, S, Vh = torch.linalg.svd(At)
print("svd full", U.shape, S.shape, Vh.shape, err(U.mT @ U - torch.eye(5)))
print("svdvals", torch.linalg.svdvals(At), torch.linalg.svdvals(torch.randn(2, 4, 3)).shape)
u, s, v = torch.svd(At)
print("torch.svd (V not Vh)", u.shape, s.shape, v.shape, err(u @ torch.diag(s) @ v.mT - At))

# ---- qr modes
for mode in ["reduced", "complete", "r"]:
    Qm, R = torch.linalg.qr(At, mode=mode)
    print("qr", mode, tuple(Qm.shape), tuple(R.shape), "triu", bool((R.tril(-1) == 0).all()),
          err(Qm @ R - At) if mode != "r" else "-", err(R[:3].abs() - torch.linalg.qr(At).R.abs()))

# ---- cholesky, cholesky_ex
Lc = torch.linalg.cholesky(spd)
print("cholesky", Lc, err(Lc @ Lc.mT - spd))
print("cholesky upper", err(torch.linalg.cholesky(spd, upper=True) - Lc.mT))
Lx, info = torch.linalg.cholesky_ex(spd)
print("cholesky_ex ok", info, info.dtype)
Lx, info = torch.linalg.cholesky_ex(-spd)
print("cholesky_ex not pd", info)
print("cholesky_solve", err(spd @ torch.cholesky_solve(B, Lc) - B))
print("cholesky_inverse", err(torch.cholesky_inverse(Lc) - torch.linalg.inv(spd)))

# ---- norms
v = torch.arange(9, dtype=torch.float) - 4
M = v.reshape(3, 3)
print("vector_norm", [round(torch.linalg.vector_norm(v, ord).item(), 4) for ord in [2, 1, 0, float("inf"), -float("inf"), 3.5]])
print("vector_norm dim", torch.linalg.vector_norm(M, dim=1), torch.linalg.vector_norm(M, dim=(0, 1), keepdim=True))
print("vector_norm dtype", torch.linalg.vector_norm(torch.arange(3.), dtype=torch.float64).dtype)
print("matrix_norm", [round(torch.linalg.matrix_norm(M, ord).item(), 4) for ord in ["fro", "nuc", float("inf"), -float("inf"), 1, -1, 2, -2]])
print("matrix_norm batched", torch.linalg.matrix_norm(torch.arange(18.).reshape(2, 3, 3)))
print("norm", torch.linalg.norm(v), torch.linalg.norm(M), torch.linalg.norm(M, "fro"), torch.linalg.norm(M, float("inf")))
print("norm vector ord", torch.linalg.norm(v, 1), torch.linalg.norm(M, dim=1, ord=3))
print("torch.norm", torch.norm(M), torch.norm(M, p=1, dim=0))
print("Tensor.norm", M.norm(dim=-1, keepdim=True).shape)

# ---- cond, matrix_rank, matrix_power, matrix_exp
print("cond", torch.linalg.cond(A), torch.linalg.cond(A, "fro"), torch.linalg.cond(A, 1))
print("matrix_rank", torch.linalg.matrix_rank(At), torch.linalg.matrix_rank(torch.ones(3, 3)),
      torch.linalg.matrix_rank(torch.eye(4)).dtype)
print("matrix_rank hermitian", torch.linalg.matrix_rank(spd, hermitian=True), torch.linalg.matrix_rank(M, atol=1.0, rtol=0.0))
print("matrix_power", torch.linalg.matrix_power(M, 3), torch.linalg.matrix_power(M, 0))
print("matrix_power -2", err(torch.linalg.matrix_power(A, -2) @ A @ A - torch.eye(3)))
print("matrix_exp", torch.linalg.matrix_exp(torch.tensor([[0.0, 1.0], [-1.0, 0.0]])))
print("matrix_exp zeros", torch.linalg.matrix_exp(torch.zeros(2, 2, 2)))

# ---- cross, vecdot, multi_dot, householder_product
a, bb = torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])
print("cross", torch.linalg.cross(a, bb), torch.linalg.cross(torch.randn(4, 3), torch.randn(1, 3)).shape)
print("cross dim", torch.linalg.cross(torch.eye(3), torch.eye(3).roll(1, 0), dim=0))
print("torch.cross", torch.cross(a.unsqueeze(0), bb.unsqueeze(0), dim=1))
print("vecdot", torch.linalg.vecdot(torch.arange(6.).reshape(2, 3), torch.ones(3)), torch.linalg.vecdot(M, M, dim=0))
mats = [torch.randn(2, 3), torch.randn(3, 4), torch.randn(4, 2)]
print("multi_dot", torch.linalg.multi_dot(mats).shape, err(torch.linalg.multi_dot(mats) - mats[0] @ mats[1] @ mats[2]))
print("multi_dot vectors", torch.linalg.multi_dot([torch.ones(3), torch.eye(3), torch.arange(3.)]))
h = torch.randn(4, 3, dtype=torch.float64)
tau = torch.tensor([1.2, 0.5, 0.0], dtype=torch.float64)
Hq = torch.linalg.householder_product(h, tau)
print("householder_product", Hq)
geqrf_a, geqrf_tau = torch.geqrf(At)
print("geqrf + householder == qr.Q", err(torch.linalg.householder_product(geqrf_a, geqrf_tau).abs() - torch.linalg.qr(At).Q.abs()))

# ---- lu_factor / lu_solve / lu, solve_triangular
LU, piv = torch.linalg.lu_factor(A)
print("lu_factor", LU.shape, piv, piv.dtype)
print(torch.linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
print(torch.linalg.eigh(torch.eye(2) * 2))
print(torch.linalg.lu(torch.tensor([[4.0, 1.0], [1.0, 3.0]])))
print(torch.linalg.cholesky_ex(torch.tensor([[4.0, 1.0], [1.0, 3.0]])))
print("lu_solve", err(torch.linalg.lu_solve(LU, piv, B) - X))
print("lu_solve adjoint", err(A.mT @ torch.linalg.lu_solve(LU, piv, B, adjoint=True) - B))
P, Lf, Uf = torch.linalg.lu(A)
print("lu", P, err(P @ Lf @ Uf - A), "unit diag", torch.diagonal(Lf))
P2, L2, U2 = torch.lu_unpack(LU, piv)
print("lu_unpack", err(P2 - P) , err(L2 - Lf))
Ut = torch.randn(3, 3, dtype=torch.float64).triu() + 3 * torch.eye(3, dtype=torch.float64)
Xt = torch.linalg.solve_triangular(Ut, B, upper=True)
print("solve_triangular", err(Ut @ Xt - B))
Xt = torch.linalg.solve_triangular(Ut.mT, B, upper=False, unitriangular=False)
print("solve_triangular lower", err(Ut.mT @ Xt - B))
Xr = torch.linalg.solve_triangular(Ut, B.mT, upper=True, left=False)
print("solve_triangular right", err(Xr @ Ut - B.mT))
print("triangular_solve", err(Ut @ torch.triangular_solve(B, Ut).solution - B))

# ---- gradients
Ag = A.clone().requires_grad_()
torch.linalg.det(Ag).backward()
print("d det / dA == det * inv^T", err(Ag.grad - torch.linalg.det(A) * torch.linalg.inv(A).mT))
Ag.grad = None
torch.linalg.inv(Ag).sum().backward()
print("d sum(inv) / dA", Ag.grad)
Sg = spd.clone().requires_grad_()
torch.linalg.eigvalsh(Sg).sum().backward()
print("d sum(eigvalsh) == I", err(Sg.grad - torch.eye(3)))
Sg.grad = None
torch.linalg.eigh(Sg).eigenvalues[-1].backward()
vmax = torch.linalg.eigh(spd).eigenvectors[:, -1]
print("d lambda_max == v v^T", err(Sg.grad - torch.outer(vmax, vmax)))
Mg = At.clone().requires_grad_()
torch.linalg.svdvals(Mg).sum().backward()
Uu, _, Vv = torch.linalg.svd(At, full_matrices=False)
print("d nuclear norm == U V^T", err(Mg.grad - Uu @ Vv))
Mg.grad = None
torch.linalg.matrix_norm(Mg, "fro").backward()
print("d fro == A / |A|", err(Mg.grad - At / At.norm()))
Xg = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
torch.linalg.solve(A, Xg).pow(2).sum().backward()
print("solve grad", Xg.grad.shape)
print("gradcheck slogdet", torch.autograd.gradcheck(lambda m: torch.linalg.slogdet(m).logabsdet, (A.clone().requires_grad_(),)))
print("gradcheck cholesky", torch.autograd.gradcheck(lambda m: torch.linalg.cholesky(m @ m.mT + torch.eye(3, dtype=torch.float64)),
                                                      (A.clone().requires_grad_(),)))

# ---- errors
singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
for name, fn in [("inv singular", lambda: torch.linalg.inv(singular)),
                 ("solve singular", lambda: torch.linalg.solve(singular, torch.ones(2))),
                 ("inv non-square", lambda: torch.linalg.inv(torch.randn(2, 3))),
                 ("det non-square", lambda: torch.linalg.det(torch.randn(2, 3))),
                 ("cholesky not pd", lambda: torch.linalg.cholesky(-torch.eye(2))),
                 ("cholesky batched not pd", lambda: torch.linalg.cholesky(torch.stack([torch.eye(2), -torch.eye(2)]))),
                 ("eigh 1-d", lambda: torch.linalg.eigh(torch.randn(3))),
                 ("solve shapes", lambda: torch.linalg.solve(torch.randn(3, 3), torch.randn(4))),
                 ("inv int", lambda: torch.linalg.inv(torch.eye(2, dtype=torch.long))),
                 ("cross size", lambda: torch.linalg.cross(torch.randn(4), torch.randn(4))),
                 ("matrix_power non-square", lambda: torch.linalg.matrix_power(torch.randn(2, 3), 2)),
                 ("multi_dot one", lambda: torch.linalg.multi_dot([torch.randn(2, 2)])),
                 ("qr mode", lambda: torch.linalg.qr(torch.randn(2, 2), mode="full"))]:
    try:
        fn()
        print(name, "no error")
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])
print(issubclass(torch.linalg.LinAlgError, RuntimeError))
print("slogdet singular", torch.linalg.slogdet(singular))
print("det singular", torch.linalg.det(singular), "cond singular", torch.linalg.cond(singular) > 1e6)

# ---- symmetric indefinite solve with LDL^T, and the nuclear norm through torch.norm
K = torch.tensor([[4.0, 1.0, 2.0], [1.0, -3.0, 0.0], [2.0, 0.0, 1.0]])
LD, pivots = torch.linalg.ldl_factor(K)
print("ldl_factor", LD, pivots)
print("ldl_solve", torch.linalg.ldl_solve(LD, pivots, torch.ones(3, 1)).flatten(), torch.linalg.solve(K, torch.ones(3)))
print("torch.norm nuc", torch.norm(M, p="nuc"), M.norm(p="nuc"))
