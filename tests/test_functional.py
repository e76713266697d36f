"""autograd.functional (vjp, jvp, jacobian, hessian, hvp, vhp) against torch.autograd.functional."""
import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

F = pt.autograd.functional
RNG = np.random.default_rng(7)
X = RNG.standard_normal(3)
Y = RNG.standard_normal((2, 3))
V3 = RNG.standard_normal(3)
A = RNG.standard_normal((3, 3))


def functions(lib):
    """The same test functions written against pedatorch or torch."""
    return {
        "cube_sum": lambda x: (x ** 3).sum(),
        "sin": lambda x: x.sin() * 2,
        "two_out": lambda x, y: ((y @ x).exp(), (x * x).sum()),
        "two_in": lambda x, y: (lib.matmul(y, x) ** 2).sum() + x.sum() * y.sum(),
        "linear": lambda x: x * 3,
        "const": lambda x: lib.ones(3, dtype=lib.float64),
        "ignores_y": lambda x, y: (x ** 2).sum(),
        "det": lambda a: lib.linalg.det(a),
        "logdet_spd": lambda a: lib.linalg.slogdet(a @ a.mT + lib.eye(3, dtype=lib.float64) * 3)[1],
        "norm": lambda a: lib.linalg.matrix_norm(a) ** 2 + lib.linalg.vector_norm(a, 3),
        "einsum": lambda a: lib.einsum("ij,jk->ik", a, a).sum(),
    }


def args(lib, *arrays):
    ts = tuple(lib.tensor(np.asarray(a)) for a in arrays)
    return ts[0] if len(ts) == 1 else ts


def structure(r):
    """Nested tuples of numpy arrays (for comparing PyTorch's return structures)."""
    if isinstance(r, tuple):
        return tuple(structure(e) for e in r)
    return r.detach().numpy() if hasattr(r, "detach") else r


def assert_same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    else:
        assert not isinstance(ours, tuple)
        assert_close(ours, theirs, atol=1e-8)


def both(torch, call):
    tf = torch.autograd.functional
    return call(pt, F, functions(pt)), call(torch, tf, functions(torch))


CASES = {
    "jacobian": lambda L, M, f: M.jacobian(f["sin"], args(L, X)),
    "jacobian_tuple_in_out": lambda L, M, f: M.jacobian(f["two_out"], args(L, X, Y)),
    "jacobian_tuple_in": lambda L, M, f: M.jacobian(f["two_in"], args(L, X, Y)),
    "jacobian_one_tuple": lambda L, M, f: M.jacobian(f["sin"], (L.tensor(X),)),
    "jacobian_vectorize": lambda L, M, f: M.jacobian(f["two_out"], args(L, X, Y), vectorize=True),
    "jacobian_forward_mode": lambda L, M, f: M.jacobian(f["sin"], args(L, X), vectorize=True, strategy="forward-mode"),
    "jacobian_unused": lambda L, M, f: M.jacobian(f["ignores_y"], args(L, X, Y)),
    "jacobian_const": lambda L, M, f: M.jacobian(f["const"], args(L, X)),
    "jacobian_det": lambda L, M, f: M.jacobian(f["det"], args(L, A)),
    "hessian": lambda L, M, f: M.hessian(f["cube_sum"], args(L, X)),
    "hessian_tuple": lambda L, M, f: M.hessian(f["two_in"], args(L, X, Y)),
    "hessian_vectorize": lambda L, M, f: M.hessian(f["two_in"], args(L, X, Y), vectorize=True),
    "hessian_logdet": lambda L, M, f: M.hessian(f["logdet_spd"], args(L, A)),
    "hessian_norm": lambda L, M, f: M.hessian(f["norm"], args(L, A)),
    "hessian_einsum": lambda L, M, f: M.hessian(f["einsum"], args(L, A)),
    "vjp": lambda L, M, f: M.vjp(f["sin"], args(L, X), args(L, V3)),
    "vjp_scalar": lambda L, M, f: M.vjp(f["cube_sum"], args(L, X)),
    "vjp_tuple": lambda L, M, f: M.vjp(f["two_out"], args(L, X, Y), (L.ones(2, dtype=L.float64),
                                                                    L.tensor(2.0, dtype=L.float64))),
    "jvp": lambda L, M, f: M.jvp(f["sin"], args(L, X), args(L, V3)),
    "jvp_tuple": lambda L, M, f: M.jvp(f["two_out"], args(L, X, Y), args(L, V3, Y)),
    "jvp_unused": lambda L, M, f: M.jvp(f["ignores_y"], args(L, X, Y), args(L, V3, Y)),
    "hvp": lambda L, M, f: M.hvp(f["cube_sum"], args(L, X), args(L, V3)),
    "hvp_tuple": lambda L, M, f: M.hvp(f["two_in"], args(L, X, Y), args(L, V3, Y)),
    "vhp": lambda L, M, f: M.vhp(f["cube_sum"], args(L, X), args(L, V3)),
    "vhp_tuple": lambda L, M, f: M.vhp(f["two_in"], args(L, X, Y), args(L, V3, Y)),
    "vhp_logdet": lambda L, M, f: M.vhp(f["logdet_spd"], args(L, A), args(L, A)),
    "hvp_linear": lambda L, M, f: M.hvp(lambda x: f["linear"](x).sum(), args(L, X), args(L, V3)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(torch, name):
    ours, theirs = both(torch, CASES[name])
    assert_same(ours, theirs)


@pytest.mark.parametrize("name", ["jacobian", "jacobian_tuple_in", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_results_are_detached_without_create_graph(name):
    r = CASES[name](pt, F, functions(pt))

    def walk(t):
        if isinstance(t, tuple):
            for e in t:
                walk(e)
        else:
            assert not t.requires_grad and t.grad_fn is None
    walk(r)


def test_create_graph_jacobian_is_differentiable(torch):
    outs = []
    for lib, M in ((pt, F), (torch, torch.autograd.functional)):
        x = lib.tensor(X, requires_grad=True)
        jac = M.jacobian(lambda t: (t ** 3) * t.sum(), x, create_graph=True)
        assert jac.requires_grad and jac.grad_fn is not None
        jac.pow(2).sum().backward()
        outs.append((jac, x.grad))
    assert_close(outs[0][0], outs[1][0])
    assert_close(outs[0][1], outs[1][1])


def test_create_graph_hessian_vjp_jvp(torch):
    for name, call in [
        ("hessian", lambda M, x: M.hessian(lambda t: (t ** 4).sum(), x, create_graph=True)),
        ("vjp", lambda M, x: M.vjp(lambda t: t.exp(), x, x * 0 + 1, create_graph=True)[1]),
        ("jvp", lambda M, x: M.jvp(lambda t: t.exp() * t, x, x * 0 + 1, create_graph=True)[1]),
        ("hvp", lambda M, x: M.hvp(lambda t: (t ** 4).sum(), x, x * 0 + 1, create_graph=True)[1]),
        ("vhp", lambda M, x: M.vhp(lambda t: (t ** 4).sum(), x, x * 0 + 1, create_graph=True)[1]),
    ]:
        res = []
        for lib, M in ((pt, F), (torch, torch.autograd.functional)):
            x = lib.tensor(X, requires_grad=True)
            r = call(M, x)
            assert r.requires_grad, name
            r.sum().backward()
            res.append((r, x.grad))
        assert_close(res[0][0], res[1][0])
        assert_close(res[0][1], res[1][1])


def test_inputs_are_not_touched():
    x = pt.tensor(X, requires_grad=True)
    F.jacobian(lambda t: t.sin(), x)
    F.hessian(lambda t: (t ** 3).sum(), x)
    F.vjp(lambda t: t.sin(), x, pt.tensor(V3))
    assert x.grad is None


def _err(call):
    try:
        call()
    except Exception as e:   # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, str(e)
    return "OK", ""


ERRORS = {
    "jac_strict_indep": lambda L, M, f: M.jacobian(f["ignores_y"], args(L, X, Y), strict=True),
    "jac_strict_const": lambda L, M, f: M.jacobian(f["const"], args(L, X), strict=True),
    "jac_strict_vectorize": lambda L, M, f: M.jacobian(f["sin"], args(L, X), strict=True, vectorize=True),
    "jac_bad_strategy": lambda L, M, f: M.jacobian(f["sin"], args(L, X), strategy="x"),
    "jac_fwd_no_vectorize": lambda L, M, f: M.jacobian(f["sin"], args(L, X), strategy="forward-mode"),
    "jac_fwd_create_graph": lambda L, M, f: M.jacobian(f["sin"], args(L, X), strategy="forward-mode",
                                                       create_graph=True, vectorize=True),
    "jac_fwd_strict": lambda L, M, f: M.jacobian(f["sin"], args(L, X), strategy="forward-mode", strict=True,
                                                 vectorize=True),
    "jac_not_tensor": lambda L, M, f: M.jacobian(f["sin"], [1.0, 2.0]),
    "jac_not_tensor_tuple": lambda L, M, f: M.jacobian(f["two_in"], (L.tensor(X), 2.0)),
    "jac_out_not_tensor": lambda L, M, f: M.jacobian(lambda x: 3.0, args(L, X)),
    "hess_linear_strict": lambda L, M, f: M.hessian(lambda x: f["linear"](x).sum(), args(L, X), strict=True),
    "hess_tuple_out": lambda L, M, f: M.hessian(f["two_out"], args(L, X, Y)),
    "hess_not_scalar": lambda L, M, f: M.hessian(f["sin"], args(L, X)),
    "hess_strict_indep": lambda L, M, f: M.hessian(f["ignores_y"], args(L, X, Y), strict=True),
    "vjp_no_v": lambda L, M, f: M.vjp(f["sin"], args(L, X)),
    "vjp_bad_v": lambda L, M, f: M.vjp(f["sin"], args(L, X), L.ones(4, dtype=L.float64)),
    "vjp_bad_v_tuple": lambda L, M, f: M.vjp(f["two_out"], args(L, X, Y), (L.ones(2, dtype=L.float64),)),
    "vjp_bad_v_entry": lambda L, M, f: M.vjp(f["two_out"], args(L, X, Y), (L.ones(3), L.ones(()))),
    "vjp_strict": lambda L, M, f: M.vjp(f["ignores_y"], args(L, X, Y), strict=True),
    "vjp_strict_const": lambda L, M, f: M.vjp(f["const"], args(L, X), L.ones(3), strict=True),
    "jvp_no_v": lambda L, M, f: M.jvp(f["sin"], args(L, X)),
    "jvp_strict": lambda L, M, f: M.jvp(f["ignores_y"], args(L, X, Y), args(L, V3, Y), strict=True),
    "jvp_bad_v": lambda L, M, f: M.jvp(f["sin"], args(L, X), L.ones(4)),
    "hvp_tuple_out": lambda L, M, f: M.hvp(f["two_out"], args(L, X, Y), args(L, V3, Y)),
    "hvp_not_scalar": lambda L, M, f: M.hvp(f["sin"], args(L, X), args(L, V3)),
    "hvp_strict_linear": lambda L, M, f: M.hvp(lambda x: f["linear"](x).sum(), args(L, X), args(L, V3), strict=True),
    "vhp_strict_linear": lambda L, M, f: M.vhp(lambda x: f["linear"](x).sum(), args(L, X), args(L, V3), strict=True),
    "vhp_no_v": lambda L, M, f: M.vhp(f["cube_sum"], args(L, X)),
    "vhp_strict_indep": lambda L, M, f: M.vhp(f["ignores_y"], args(L, X, Y), args(L, V3, Y), strict=True),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(torch, name):
    call = ERRORS[name]
    ours = _err(lambda: call(pt, F, functions(pt)))
    theirs = _err(lambda: call(torch, torch.autograd.functional, functions(torch)))
    # the type's repr in TypeError messages names the library's own Tensor / float classes
    if ours[0] == "TypeError" == theirs[0]:
        assert ours[1].split(" has type")[0] == theirs[1].split(" has type")[0]
    else:
        assert ours == theirs


def test_jacobian_matches_gradcheck_numerics():
    """Independent of torch: the jacobian of a linalg function against central differences."""
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    jac = F.jacobian(pt.linalg.inv, pt.tensor(a)).numpy().reshape(9, 9)
    num = np.zeros((9, 9))
    eps = 1e-6
    for k in range(9):
        d = np.zeros(9)
        d[k] = eps
        num[:, k] = ((np.linalg.inv(a + d.reshape(3, 3)) - np.linalg.inv(a - d.reshape(3, 3))) / (2 * eps)).ravel()
    np.testing.assert_allclose(jac, num, atol=1e-6)
    h = F.hessian(lambda t: (t ** 3).sum(), pt.tensor(X)).numpy()
    np.testing.assert_allclose(h, np.diag(6 * X), atol=1e-12)
