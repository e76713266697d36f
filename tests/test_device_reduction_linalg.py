"""Reductions, sorting, joining, matrix products and ``pedatorch.linalg`` on every device (issue 10).

Each case runs on the CPU and on the ``device`` fixture ("cuda": a real GPU, else the stand-in backend):
the values must agree, results and gradients must stay on the device, forward and backward.
"""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch.backend import to_host

F = pt.nn.functional


def _leaves(out):
    """The tensors of an op's result (a tensor, a tuple, a return_types tuple), in order."""
    if isinstance(out, pt.Tensor):
        return [out]
    return [t for o in out for t in _leaves(o)] if isinstance(out, (tuple, list)) else []


def _host(t):
    return np.array(to_host(t.detach()._data))


def check(device, fn, *arrays, grad=True, dtypes=None, rtol=1e-10, atol=1e-10):
    """Run ``fn`` on tensors made from ``arrays`` on the CPU and on ``device``; compare values and gradients."""
    def run(dev):
        ins = []
        for i, a in enumerate(arrays):
            dt = dtypes[i] if dtypes else None
            floating = np.asarray(a).dtype.kind in "fc"
            ins.append(pt.tensor(a, dtype=dt, device=dev, requires_grad=grad and floating))
        out = _leaves(fn(*ins))
        for t in out:
            assert t.device.type == dev, f"a result on {t.device}, not {dev}"
        values = [_host(t) for t in out]
        grads = []
        diff = [t for t in out if t.requires_grad]
        if grad and diff:
            rng = np.random.default_rng(1)
            total = None
            for t in diff:   # a random weighting of every differentiable output
                w = pt.tensor(rng.standard_normal(t.shape), dtype=t.dtype, device=dev) if t.dtype.is_floating_point \
                    else pt.tensor(rng.standard_normal(t.shape) + 1j * rng.standard_normal(t.shape), dtype=t.dtype,
                                   device=dev)
                term = (t * w).sum()
                term = term.real if term.dtype.is_complex else term
                total = term if total is None else total + term
            total.backward()
            for x in ins:
                if x.requires_grad:
                    assert x.grad is not None
                    assert x.grad.device.type == dev, f"a gradient on {x.grad.device}, not {dev}"
                    grads.append(_host(x.grad))
        return values, grads

    want, want_g = run("cpu")
    got, got_g = run(device)
    assert len(got) == len(want) and len(got_g) == len(want_g)
    for g, w in zip(got + got_g, want + want_g):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
X3 = rng.standard_normal((2, 3, 4))
XTIES = np.array([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, -1.0, 2.0], [0.0, 5.0, 5.0, 5.0]])
XZ = np.array([[1.0, 0.0, 2.0, 3.0], [0.5, 2.0, 0.0, 0.0], [1.5, -2.0, 3.0, 0.25]])
XNAN = np.array([[1.0, np.nan, 2.0, 3.0], [0.5, 2.0, -1.0, 4.0]])
INTS = np.array([[3, 1, 2, 3], [0, 0, 5, 1], [2, 2, 2, 7]])
V = rng.standard_normal(4)
SPD = (lambda a: a @ a.T + 4 * np.eye(4))(rng.standard_normal((4, 4)))
SPD2 = np.stack([SPD, SPD + np.eye(4)])
SQ = rng.standard_normal((4, 4)) + 2 * np.eye(4)
TALL = rng.standard_normal((5, 3))
WIDE = rng.standard_normal((3, 5))

REDUCTIONS = {
    "sum": (lambda x: x.sum() + x.sum(0).sum() + x.sum((0, 1), keepdim=True).sum(), X),
    "sum_dtype": (lambda x: x.sum(1, dtype=pt.float32), X),
    "mean": (lambda x: (x.mean(), x.mean(1), x.mean((0, 1), keepdim=True)), X),
    "nansum_nanmean": (lambda x: (x.nansum(), x.nansum(1), x.nanmean(), x.nanmean(0)), XNAN),
    "prod": (lambda x: (x.prod(), x.prod(1), x.prod(0, keepdim=True)), X),
    "prod_zeros": (lambda x: (x.prod(), x.prod(1), x.prod(0)), XZ),
    "max_min": (lambda x: (x.max(), x.min(), x.max(1), x.min(0, keepdim=True)), XTIES),
    "amax_amin": (lambda x: (x.amax(), x.amin(1), x.amax((0, 1), keepdim=True), pt.aminmax(x, dim=1)), XTIES),
    "argmax": (lambda x: (x.argmax(), x.argmin(1), x.argmax(0, keepdim=True)), XTIES),
    "var_std": (lambda x: (x.var(), x.std(1), x.var(0, correction=0), x.std((0, 1), keepdim=True)), X),
    "var_mean": (lambda x: (pt.var_mean(x, 1), pt.std_mean(x), pt.std_mean(x, 0, keepdim=True)), X),
    "var_constant": (lambda x: (x.var(1), x.std(1)), np.ones((2, 3))),
    "norm": (lambda x: (x.norm(), x.norm(1, 1), x.norm(float("inf")), x.norm(3, 0), x.norm(0)), X),
    "logsumexp": (lambda x: (x.logsumexp(1), x.logsumexp((0, 1), keepdim=True)), X),
    "softmax": (lambda x: (x.softmax(0), x.log_softmax(1), F.softmax(x, -1), F.log_softmax(x, 0)), X3),
    "cumsum_cumprod": (lambda x: (x.cumsum(1), x.cumprod(0), x.cumprod(1)), XZ),
    "cummax_cummin": (lambda x: (x.cummax(1), x.cummin(0)), XTIES),
    "median_mode": (lambda x: (x.median(), x.median(1), pt.mode(x, 1)), XTIES),
    "nanmedian": (lambda x: (x.nanmedian(), x.nanmedian(1), x.median(1)), XNAN),
    "quantile": (lambda x: (x.quantile(0.3), x.quantile(pt.tensor([0.25, 0.5], dtype=x.dtype, device=x.device), 1),
                            x.quantile(0.5, 0, interpolation="midpoint"), x.nanquantile(0.7, 1)), X),
    "diff": (lambda x: (x.diff(), x.diff(dim=0)), X),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(device, name):
    fn, x = REDUCTIONS[name]
    check(device, fn, x)


def test_integer_reductions(device):
    check(device, lambda x: (x.sum(), x.sum(1), x.prod(0), x.max(1), x.cumsum(0), x.all(), x.any(1), x.argmax(),
                             x.count_nonzero(), x.count_nonzero(0), x.median(1), pt.mode(x, 0)), INTS)
    check(device, lambda x: (x.all(), x.any(0), x.sum()), INTS > 1)


SORTING = {
    "sort": (lambda x: (x.sort(1), x.sort(0, descending=True), x.argsort(1), x.msort()), XTIES),
    "sort_nan": (lambda x: (x.sort(1), x.sort(1, descending=True), x.argsort(1)), XNAN),
    "topk": (lambda x: (x.topk(2), x.topk(2, 0, largest=False)), XTIES),
    "kthvalue": (lambda x: (x.kthvalue(2, 1), x.kthvalue(1, 0, keepdim=True)), XTIES),
}


@pytest.mark.parametrize("name", sorted(SORTING))
def test_sorting(device, name):
    fn, x = SORTING[name]
    check(device, fn, x)


def test_unique_search_histc(device):
    check(device, lambda x: (pt.unique(x), pt.unique(x, return_inverse=True, return_counts=True),
                             pt.unique(x, dim=0, return_inverse=True, return_counts=True),
                             pt.unique_consecutive(x, return_inverse=True, return_counts=True),
                             pt.unique_consecutive(x, return_counts=True, dim=1)), INTS)
    seq, vals = np.array([0.0, 1.0, 2.5, 4.0]), np.array([[-1.0, 1.0, 3.0], [4.0, 2.5, 9.0]])
    check(device, lambda s, v: (pt.searchsorted(s, v), pt.searchsorted(s, v, right=True),
                                pt.bucketize(v, s, out_int32=True)), seq, vals, grad=False)
    rows = np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 5.0]])
    check(device, lambda s, v: pt.searchsorted(s, v), rows, vals, grad=False)
    check(device, lambda x: (pt.histc(x, 5), pt.histc(x, 4, -1, 1)), X, grad=False)


def test_join(device):
    check(device, lambda a, b: (pt.cat([a, b]), pt.cat([a, b], 1), pt.stack([a, b], 1), pt.hstack([a, b]),
                                pt.vstack([a, b]), pt.dstack([a, b]), pt.column_stack([a, b])), X, 2 * X)
    check(device, lambda a, b: pt.cat([a, b], 0), X, INTS)             # promotes
    check(device, lambda a, b: pt.cat([a, b]), V, np.zeros(0))          # the legacy empty 1-D tensor


PRODUCTS = {
    "matmul": (lambda a, b: (a @ b.t(), a[0] @ b[1], a @ b[0], a[0] @ b.t(), a.mm(b.t()), a.mv(b[0]),
                             a[0].dot(b[1]), pt.vdot(a[0], b[0]), pt.outer(a[0], b[1]), pt.inner(a, b)), X, 2 * X),
    "batched": (lambda a, b: (a @ b.transpose(1, 2), a.bmm(b.transpose(1, 2)), a @ b[0].t(), a[0] @ b.transpose(1, 2),
                              a @ b[0, 0]), X3, X3 + 1),
    "add_family": (lambda a, b: (pt.addmm(a[:, :3], a, b.t()[:, :3], beta=0.5, alpha=2),
                                 pt.addmm(b[0, :3], a, b.t()[:, :3]), pt.addmv(a[:, 0], a, b[0], alpha=3),
                                 pt.addr(a, a[:, 0], b[0], beta=2), pt.baddbmm(a[:, :3].unsqueeze(0), a.unsqueeze(0),
                                                                               b.t().unsqueeze(0)[..., :4]),
                                 pt.addbmm(a[:, :3], pt.stack([a, b]), pt.stack([b, a]).transpose(1, 2)[..., :3])),
                   X, 2 * X),
    "einsum_tensordot": (lambda a, b: (pt.einsum("bij,bkj->bik", a, b), pt.einsum("bij->j", a),
                                       pt.tensordot(a, b, dims=([1, 2], [1, 2])), pt.tensordot(a, b, 0).sum(0),
                                       pt.chain_matmul(a[0], b[0].t(), a[1])), X3, X3 - 1),
}


@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated")
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_products(device, name):
    fn, *arrays = PRODUCTS[name]
    check(device, fn, *arrays)


def test_products_float32_and_float16(device):
    check(device, lambda a, b: (a @ b.t(), a.mv(b[0])), X, X + 1, dtypes=[pt.float32, pt.float32], rtol=1e-6,
          atol=1e-6)
    check(device, lambda a, b: a @ b.t(), X, X + 1, dtypes=[pt.float16, pt.float16], grad=False, rtol=1e-3,
          atol=1e-3)


LINALG = {
    "det": (lambda a: (pt.linalg.det(a), pt.linalg.slogdet(a), a.det()), SQ),
    "det_singular": (lambda a: pt.linalg.det(a), np.array([[1.0, 2.0], [2.0, 4.0]])),
    "inv_solve": (lambda a, b: (pt.linalg.inv(a), pt.linalg.solve(a, b), pt.linalg.solve(a, b[:, 0]),
                                pt.linalg.solve(a, b.t(), left=False)), SQ, SPD),
    "cholesky": (lambda a: (pt.linalg.cholesky(a), pt.linalg.cholesky(a, upper=True), pt.linalg.cholesky_ex(a)),
                 SPD2),
    "qr": (lambda a, b: (pt.linalg.qr(a), pt.linalg.qr(b), pt.linalg.qr(a, mode="r")[1].detach()), TALL, WIDE),
    "eigh": (lambda a: (pt.linalg.eigh(a)[0], pt.linalg.eigh(a)[1].abs(), pt.linalg.eigvalsh(a, UPLO="U")), SPD2),
    "svd": (lambda a, b: (pt.linalg.svdvals(a), pt.linalg.svd(a, full_matrices=False)[1],
                          (lambda u, s, vh: u @ pt.diag_embed(s) @ vh)(*pt.linalg.svd(b, full_matrices=False)),
                          (lambda u, s, vh: u.abs())(*pt.linalg.svd(a))), TALL, WIDE),
    "pinv_rank": (lambda a, b: (pt.linalg.pinv(a), pt.linalg.pinv(b, hermitian=True),
                                pt.linalg.matrix_rank(a), pt.linalg.matrix_rank(b, hermitian=True),
                                pt.linalg.matrix_rank(b, atol=1.0, rtol=0.0)), TALL, SPD),
    "lstsq": (lambda a, b: (pt.linalg.lstsq(a, b).solution, pt.linalg.lstsq(a, b, driver="gelsd")), TALL,
              rng.standard_normal((5, 2))),
    "powers_norms": (lambda a: (pt.linalg.matrix_power(a, 3), pt.linalg.matrix_power(a, -2),
                                pt.linalg.matrix_power(a, 0), pt.linalg.vector_norm(a, 3, 1),
                                pt.linalg.matrix_norm(a), pt.linalg.matrix_norm(a, "nuc"),
                                pt.linalg.matrix_norm(a, 2), pt.linalg.matrix_norm(a, -1),
                                pt.linalg.matrix_norm(a, float("inf")), pt.linalg.norm(a), pt.linalg.norm(a[0], 1)),
                     SQ),
    "vector_ops": (lambda a, b: (pt.linalg.cross(a[:, :3], b[:, :3]), pt.linalg.vecdot(a, b),
                                 pt.linalg.multi_dot([a, b.t(), a]), pt.linalg.matmul(a, b.t()),
                                 pt.linalg.diagonal(a[:, :3])), X, X * 2),
}


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg(device, name):
    fn, *arrays = LINALG[name]
    check(device, fn, *arrays, rtol=1e-8, atol=1e-9)


def test_linalg_failures_on_the_device(device):
    """A singular matrix: the ``_ex`` functions report it in ``info`` (cupy would silently give NaN unless
    asked to raise), the plain ones raise PyTorch's error."""
    sing = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]])
    check(device, lambda a: pt.linalg.inv_ex(a), sing, grad=False)
    check(device, lambda a: pt.linalg.solve_ex(a, a[..., 0]), sing, grad=False)
    check(device, lambda a: pt.linalg.cholesky_ex(a), -sing, grad=False)
    a = pt.tensor(sing, device=device)
    with pytest.raises(pt.linalg.LinAlgError, match="singular"):
        pt.linalg.inv(a)
    with pytest.raises(pt.linalg.LinAlgError):
        pt.linalg.cholesky(-a)
