"""Fixes of session 27 (issue 9), each compared with PyTorch."""
import pytest

import pedatorch as pt
from conftest import error_of

torch = pytest.importorskip("torch")


def _error(lib, fn):
    return error_of(lambda: fn(lib))


@pytest.mark.parametrize("p", [[1.0, float("nan")], [float("inf"), -1.0], [-1.0, float("inf")],
                               [[1.0, 2.0], [float("nan"), 1.0]], [[1.0, float("inf")], [-1.0, 1.0]]])
def test_multinomial_first_bad_entry_names_the_error(p):
    # PyTorch tests each entry for >= 0 (a NaN fails it) before it tests for finite, entry by entry
    def run(lib):
        lib.multinomial(lib.tensor(p), 2, True)
    assert _error(pt, run) == _error(torch, run)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("affine", [True, False])
def test_half_layer_norm_fused_multiply_add(dtype, affine):
    # ATen's float16/bfloat16 kernel: fma(x, rstd, -rstd * mean), then fma(., w, b): a constant row gives the
    # product's rounding error, not 0 (fuzz r22, seed 9001075)
    import numpy as np
    rows = np.array([[-0.58203125] * 4, [0.92578125] * 4, [-0.1279296875] * 4, [0.3, -1.2, 2.5, 0.7]])
    w, b = np.array([-0.5, -1.0, -1.0, 1.5]), np.array([-1.5, 0.5, -0.5, -0.0])

    def run(lib):
        dt = getattr(lib, dtype)
        x = lib.tensor(rows).to(dt)
        args = (lib.tensor(w).to(dt), lib.tensor(b).to(dt)) if affine else ()
        return lib.nn.functional.layer_norm(x, (4,), *args).float().tolist()
    assert run(pt) == run(torch)


def test_device_context_and_default_device():
    # `with torch.device(...)` and set_default_device give the factories (not *_like, not new_*) a device
    def run(lib):
        out = [str(lib.get_default_device())]
        with lib.device("cpu") as d:
            x = lib.ones(2, device="cpu")
            out += [str(d), str(lib.get_default_device()), str(lib.zeros(2).device), str(lib.randn(2).device),
                    str(lib.nn.Linear(2, 2).weight.device), str(lib.tensor([1]).device),
                    str(lib.arange(3).device), str(lib.zeros_like(x).device), str(x.new_zeros(1).device),
                    str(lib.tril_indices(3, 3).device), str(lib.fft.fftfreq(4).device),
                    str(lib.hann_window(4).device)]
        lib.set_default_device("cpu")
        out.append(str(lib.get_default_device()))
        lib.set_default_device(None)
        out.append(str(lib.get_default_device()))
        return out
    assert run(pt) == run(torch)


def test_half_addcdiv_computes_in_float32_and_rounds_once():
    # ATen: float(self) + value * float(t1) / float(t2), rounded once (fuzz r23, seed 9124843)
    import numpy as np
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(200).astype(np.float32) for _ in range(3))

    def run(lib, dtype, value):
        t = [lib.tensor(v).to(getattr(lib, dtype)) for v in (a, b, c)]
        return lib.addcdiv(*t, value=value).float().tolist()
    for dtype in ("float16", "bfloat16"):
        for value in (1, 0.1, -3.7):
            assert run(pt, dtype, value) == run(torch, dtype, value)


def test_batch_norm_input_grad_multiplies_the_weight_last():
    # an inf weight: ATen's ((dy - mean(dy)) - (x - mean) k) * invstd * w gives ±inf, not NaN (fuzz r23)
    import numpy as np

    def run(lib, create_graph):
        x = lib.tensor(np.array([[[[1.0, -2.0]], [[0.0, 3.0]]]]), dtype=lib.float64).requires_grad_()
        w = lib.tensor([float("inf"), -1.0], dtype=lib.float64)
        y = lib.nn.functional.batch_norm(x, None, None, w, lib.tensor([0.5, 1.0], dtype=lib.float64), training=True)
        g = lib.tensor(np.array([[[[-0.59, 0.06]], [[-0.39, 1.7]]]]), dtype=lib.float64)
        gx, = lib.autograd.grad(y, x, g, create_graph=create_graph)
        return np.array(gx.tolist())
    for create_graph in (False, True):
        ours, theirs = run(pt, create_graph), run(torch, create_graph)
        assert ours[0, 0].tolist() == theirs[0, 0].tolist() == [[-np.inf, np.inf]]
        np.testing.assert_allclose(ours[0, 1], theirs[0, 1], rtol=1e-6)   # (a cancellation: eps decides)


def test_signed_zero_of_dot_fmax_fmin():
    # BLAS's dot starts its sum at +0.0; ATen's fmax/fmin return the first operand on ties (-0.0 vs 0.0)
    import math

    def signs(lib):
        a, b = lib.tensor([0.0]), lib.tensor([-1.5])
        z, nz = lib.tensor([0.0] * 5), lib.tensor([-0.0] * 5)
        vals = [lib.dot(a, b), a @ b, lib.inner(a, b), lib.tensordot(a, b, 1), lib.fmax(nz, z), lib.fmax(z, nz),
                lib.fmin(nz, z), lib.fmin(z, nz)]
        return [[math.copysign(1, v) for v in t.reshape(-1).tolist()] for t in vals]
    assert signs(pt) == signs(torch)


def test_cat_backward_gives_an_empty_input_its_slice():
    # only the legacy 1-d tensor([]) gets new zeros; a (1, 0, 2) input gets a SliceBackward0 view (fuzz r24)
    def run(lib):
        a = lib.zeros(1, 0, 2, requires_grad=True)
        b = lib.ones(1, 1, 2, requires_grad=True)
        e = lib.zeros(0, requires_grad=True)
        y = lib.cat([a, b], 1)
        ga, gb = lib.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        ge, = lib.autograd.grad(lib.cat([e, lib.ones(2, requires_grad=True)]).sum(), e, create_graph=True)
        return [type(ga.grad_fn).__name__, ga.requires_grad, tuple(ga.shape), ge.requires_grad, tuple(ge.shape)]
    assert run(pt) == run(torch)


@pytest.mark.parametrize("call", ["erf", "erfc", "erfinv", "i0", "lgamma", "digamma", "special.i1", "special.ndtr",
                                  "polygamma0", "polygamma1", "polygamma2"])
def test_real_only_special_functions_refuse_complex(call):
    def run(lib):
        z = lib.tensor([1 + 1j])
        if call.startswith("polygamma"):
            return lib.polygamma(int(call[-1]), z)
        fn = lib
        for part in call.split("."):
            fn = getattr(fn, part)
        return fn(z)
    assert _error(pt, run) == _error(torch, run) is not None


def test_logit_eps_above_half():
    # ATen clamps as x < eps ? eps : (x > 1 - eps ? 1 - eps : x): with eps > 0.5 the low bound wins below it
    def run(lib):
        x = lib.tensor([0.1, 0.5, 0.9, float("nan")], dtype=lib.float64, requires_grad=True)
        y = lib.logit(x, eps=0.6)
        y.sum().backward()
        return y.tolist(), x.grad.tolist()
    import numpy as np
    ours, theirs = run(pt), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-15)
    np.testing.assert_array_equal(ours[1], theirs[1])


@pytest.mark.parametrize("dtype", ["bool", "float32", "complex64"])
@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_checks_an_empty_dim_before_the_dtype(dtype, fn):
    for n in (0, 2):
        for args in ((0,), ()):
            def run(lib):
                r = getattr(lib, fn)(lib.zeros(n, dtype=getattr(lib, dtype)), *args)
                r = r if isinstance(r, lib.Tensor) else r[0]
                return str(r.dtype), tuple(r.shape)
            assert _error(pt, run) == _error(torch, run)
            if _error(torch, run) is None:
                assert run(pt) == run(torch)


def test_pairwise_distance_norm_node_and_size_pickle():
    # pairwise_distance's NormBackward1 is vector_norm's op under its own name: p = 0 gives no gradient
    import pickle

    def run(lib):
        a = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        y = lib.nn.functional.pairwise_distance(a, lib.zeros(1, 3), p=0)
        y.sum().backward()
        s = lib.Size([2, 3])
        return type(y.grad_fn).__name__, a.grad, y.tolist(), s.__reduce__()[1], pickle.loads(pickle.dumps(s))
    ours, theirs = run(pt), run(torch)
    assert ours[:4] == theirs[:4] and tuple(ours[4]) == tuple(theirs[4])


@pytest.mark.parametrize("call", [
    lambda lib, x: x.movedim((0, 1), (1, 1)), lambda lib, x: x.movedim((0, 1), (1,)),
    lambda lib, x: x.movedim((0, -3), (1, 2)), lambda lib, x: x.movedim((0, 1), (-2, 1)),
    lambda lib, x: x.unflatten(2, (-1, -1)), lambda lib, x: x.unflatten(1, (-1, 2)),
    lambda lib, x: x.tensor_split(lib.tensor([1.0]), 1), lambda lib, x: x.tensor_split(lib.tensor([[1]]), 1)])
def test_shape_op_errors(call):
    def run(lib):
        call(lib, lib.arange(24.).reshape(2, 3, 4))
    assert _error(pt, run) == (lambda e: (e[0], e[1].split("\nException raised from")[0]))(_error(torch, run))


def test_empty_views_keep_their_storage_offset():
    # numpy points an empty view at its buffer's start; PyTorch keeps the offset (compat 54)
    def run(lib):
        x = lib.arange(24.).reshape(2, 3, 4)
        views = [x[1:1], x.narrow(0, 1, 0), x[5:], x[:, 3:], x[0, 1:1], x[1][2:2], x[0].t()[1:1], x[..., 4:]]
        return [(tuple(v.shape), v.stride(), v.storage_offset()) for v in views]
    assert run(pt) == run(torch)
