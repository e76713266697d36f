"""Differential regressions (pedatorch vs PyTorch) for reductions, products and nn normalization/conv:
var/std degrees of freedom, var_mean's Welford mean, norm gradients, empty-input early returns, dtypes."""
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _np(t):
    return t.detach().to(t.dtype if not t.dtype.is_floating_point else (pt.float64 if isinstance(t, pt.Tensor)
                                                                        else torch.float64)).numpy()


def _same(a, b):
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=1e-7, equal_nan=True)


def _both(fn):
    """fn(T) with T = pedatorch and torch: (pedatorch's result, torch's result) or the exception raised."""
    out = []
    for T in (pt, torch):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(fn(T))
        except Exception as e:  # noqa: BLE001 (compared below)
            out.append(e)
    return out


def _same_error(fn):
    a, b = _both(fn)
    assert isinstance(a, Exception) and isinstance(b, Exception), (a, b)
    assert type(a) is type(b) and str(a) == str(b), (a, b)


# ---------------------------------------------------------------- var / std

@pytest.mark.parametrize("fn", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("data", [0.5, [1., 1.], [1., 2.], [[1., 2.], [3., 3.]]])
@pytest.mark.parametrize("kw", [{}, {"correction": 2}, {"dim": 0, "correction": 2},
                                {"dim": -1, "keepdim": True, "correction": 3}, {"keepdim": True, "correction": 5}])
def test_var_gradient_without_degrees_of_freedom(fn, data, kw):
    """N <= correction: reducing everything gives grad * (NaN at the mean, else inf); a given dim 2/(N - c)."""
    def run(T):
        x = T.tensor(np.array(data), dtype=T.float64).requires_grad_()
        outs = getattr(T, fn)(x, **kw)
        outs = outs if isinstance(outs, tuple) else (outs,)
        g, = T.autograd.grad(sum((o * (i + 1.5)).sum() for i, o in enumerate(outs)), x, create_graph=True)
        return list(outs) + [g, g.requires_grad]
    a, b = _both(run)
    for u, v in zip(a[:-1], b[:-1]):
        _same(u, v)
    assert a[-1] == b[-1]


def test_var_mean_second_order_without_degrees_of_freedom():
    """The full-reduction gradient where N <= correction does not depend on x: no second-order graph."""
    for T in (pt, torch):
        x = T.tensor(-0.5, dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v, m = T.var_mean(x, dim=0)
        g, = T.autograd.grad(v * -0.88 + m * 0.55, x, create_graph=True)
        assert np.isnan(g.item()) and not g.requires_grad


def test_var_still_differentiable():
    x = pt.tensor(np.random.RandomState(0).randn(3, 4), dtype=pt.float64, requires_grad=True)
    for f in (lambda x: pt.var(x, 1), lambda x: pt.std(x, 0, correction=0), lambda x: pt.var_mean(x, 1)[0],
              lambda x: pt.std_mean(x)[0]):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
@pytest.mark.parametrize("data,kw", [([1., INF], {}), ([INF, 1.], {}), ([INF, INF], {}), ([-INF, -INF], {}),
                                     ([1., 2., INF], {}), ([INF, -INF], {}), ([[1., INF], [INF, 2.]], {"dim": 1}),
                                     ([[1., INF], [INF, 2.]], {"dim": 0}), ([[1., 2.], [3., INF]], {"dim": (0, 1)})])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_var_mean_welford_mean_with_inf(fn, data, kw, dtype):
    """PyTorch's running mean turns an inf that is not the last element into NaN."""
    a, b = _both(lambda T: getattr(T, fn)(T.tensor(np.array(data), dtype=getattr(T, dtype)), **kw))
    _same(a[0], b[0])
    _same(a[1], b[1])


# ---------------------------------------------------------------- norms

def test_vector_norm_sign_is_constant_in_double_backward():
    """sgn(x) has an exact zero gradient in PyTorch (its zero tensor): NaN upstream does not leak."""
    def run(T):
        x = T.tensor([[-0.076, -0.0657]], requires_grad=True)
        y0 = T.special.entr(x)
        y1 = T.linalg.vector_norm(y0, dim=1, ord=-INF)
        g, = T.autograd.grad((y0 * T.tensor([[-1.16, 1.67]])).sum() + (y1 * 0.52).sum(), x, create_graph=True)
        (g * T.tensor([[-0.9, 0.49]])).sum().backward()
        return x.grad
    _same(*_both(run))


@pytest.mark.parametrize("p", [1, 1.5, 2, 3, 0.5, INF, -INF])
def test_norm_gradients(p):
    x = pt.tensor(np.random.RandomState(1).randn(3, 4), dtype=pt.float64, requires_grad=True)
    other = pt.tensor(np.random.RandomState(2).randn(3, 4), dtype=pt.float64)
    for f in (lambda x: pt.linalg.vector_norm(x, p, dim=1), lambda x: pt.norm(x, p, 0),
              lambda x: pt.nn.functional.pairwise_distance(x, other, p)):
        assert gradcheck(f, (x,))
        if p not in (INF, -INF):
            assert gradgradcheck(f, (x,))


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_pairwise_distance_node_name(dtype):
    a, b = _both(lambda T: T.nn.functional.pairwise_distance(
        T.tensor([[1., 2.], [3., 5.]], dtype=getattr(T, dtype), requires_grad=True), T.tensor([[0., 1.]],
                                                                                              dtype=getattr(T, dtype))))
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__ == "NormBackward1"
    _same(a, b)


# ---------------------------------------------------------------- normalization layers

@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "bfloat16"])
@pytest.mark.parametrize("shape", [(1, 0, 2), (0, 2, 2)])
def test_instance_and_batch_norm_of_empty_input(dtype, shape):
    """An empty input is copied before PyTorch dispatches on the dtype."""
    for f in (lambda T: T.nn.functional.instance_norm(T.zeros(shape, dtype=getattr(T, dtype))),
              lambda T: T.nn.functional.batch_norm(T.zeros(shape, dtype=getattr(T, dtype)), None, None,
                                                   training=True)):
        _same(*_both(f))


def test_batch_norm_of_empty_input_keeps_the_graph():
    a, b = _both(lambda T: T.nn.functional.batch_norm(T.zeros(0, 2, 2, requires_grad=True), None, None,
                                                      training=True))
    assert type(a.grad_fn).__name__ == type(b.grad_fn).__name__


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_rms_norm_integer_input(dtype):
    _same_error(lambda T: T.nn.functional.rms_norm(T.zeros(1, 1, 3, dtype=getattr(T, dtype)), (3,)))
    _same_error(lambda T: T.nn.functional.rms_norm(T.zeros(0, 3, dtype=getattr(T, dtype)), (3,)))
    _same_error(lambda T: T.nn.functional.rms_norm(T.zeros(2, 3, dtype=getattr(T, dtype)), (4,)))


def test_rms_norm_empty_normalized_shape():
    _same_error(lambda T: T.nn.functional.rms_norm(T.tensor(1.0), ()))
    _same_error(lambda T: T.nn.functional.rms_norm(T.ones(2, 3), (), weight=T.ones(3)))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["bool", "int16"])
def test_softmax_of_empty_integer_input(fn, dtype):
    _same(*_both(lambda T: getattr(T, fn)(T.zeros(0, 1, dtype=getattr(T, dtype)), 1)))
    _same_error(lambda T: getattr(T, fn)(T.zeros(2, 1, dtype=getattr(T, dtype)), 1))


# ---------------------------------------------------------------- products

def test_bmm_dtype_checks():
    z = lambda T, s, d: T.zeros(s, dtype=getattr(T, d))  # noqa: E731
    _same_error(lambda T: T.bmm(z(T, (2, 1, 2), "bool"), z(T, (2, 2, 3), "float32")))
    _same_error(lambda T: T.bmm(z(T, (2, 1, 2), "float32"), z(T, (2, 2, 3), "bool")))
    _same_error(lambda T: T.bmm(z(T, (2, 2, 1), "int64"), z(T, (2, 1, 2), "float32")))
    for s1, s2 in [((1, 3, 0), (1, 0, 1)), ((0, 2, 3), (0, 3, 2)), ((2, 0, 3), (2, 3, 2))]:
        _same(*_both(lambda T: T.bmm(z(T, s1, "int32"), z(T, s2, "float32"))))
        _same(*_both(lambda T: T.bmm(z(T, s1, "float32"), z(T, s2, "int32"))))
    _same(*_both(lambda T: z(T, (1, 3), "bool") @ z(T, (1, 3, 0), "float32")))


def test_baddbmm_of_empty_bool():
    _same(*_both(lambda T: T.baddbmm(T.zeros(1, 0, 4, dtype=T.bool), T.zeros(1, 0, 2, dtype=T.bool),
                                     T.ones(1, 2, 4, dtype=T.bool))))
    _same_error(lambda T: T.baddbmm(T.zeros(1, 1, 4, dtype=T.bool), T.zeros(1, 1, 2, dtype=T.bool),
                                    T.ones(1, 2, 4, dtype=T.bool)))


def test_mv_of_a_0dim_matrix():
    _same_error(lambda T: T.mv(T.tensor(1.5, dtype=T.float64), T.zeros(1)))
    _same_error(lambda T: T.mv(T.tensor(2, dtype=T.uint8), T.zeros(1, dtype=T.int64)))
    _same_error(lambda T: T.mv(T.zeros(2, 2), T.tensor(1.)))


def test_tensordot_keeps_integer_dtype():
    _same(*_both(lambda T: T.tensordot(T.tensor([[-3], [-3], [1]], dtype=T.int32),
                                       T.tensor([[4, -2]], dtype=T.int32), dims=1)))


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint8", "bool"])
def test_sum_with_an_integer_dtype(dtype):
    x = lambda T: T.tensor([[100, 100], [1, 0]], dtype=T.int64).to(getattr(T, dtype))  # noqa: E731
    for f in (lambda T: x(T).sum(dtype=getattr(T, dtype)), lambda T: x(T).sum(1, dtype=getattr(T, dtype)),
              lambda T: x(T).prod(dtype=getattr(T, dtype))):
        _same(*_both(f))


@pytest.mark.parametrize("eq,shapes", [("ij->i", [(1, 1)]), ("ijk->i", [(1, 1, 1)]), ("ij", [(2, 1)]),
                                       ("ii->i", [(2, 2)]), ("ii->", [(2, 2)]), ("ij,j->i", [(2, 1), (1,)]),
                                       ("ij,k->k", [(2, 2), (2,)]), ("i,j->", [(2,), (2,)]),
                                       ("ij,j->", [(2, 2), (2,)]), ("ij,jk->i", [(2, 2), (2, 2)])])
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float16"])
def test_einsum_integer_sums_in_int64(eq, shapes, dtype):
    """PyTorch sums a label only one operand carries with sum() first: integers become int64."""
    a, b = _both(lambda T: T.einsum(eq, *[T.ones(s, dtype=getattr(T, dtype)) for s in shapes]))
    if isinstance(b, Exception):
        assert type(a) is type(b) and str(a) == str(b)
    else:
        _same(a, b)


# ---------------------------------------------------------------- conv

@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_conv_keeps_half_precision(dtype):
    def run(T):
        x = T.tensor(np.random.RandomState(0).randn(2, 3, 5, 5), dtype=getattr(T, dtype)).requires_grad_()
        w = T.tensor(np.random.RandomState(1).randn(4, 3, 3, 3), dtype=getattr(T, dtype)).requires_grad_()
        y = T.nn.functional.conv2d(x, w, padding=1)
        y.sum().backward()
        y1 = T.nn.functional.conv1d(x[:, :, 0], w[:, :, 0])
        return y, x.grad, w.grad, y1
    a, b = _both(run)
    for u, v in zip(a, b):
        assert str(u.dtype) == str(v.dtype) and tuple(u.shape) == tuple(v.shape)
        np.testing.assert_allclose(_np(u), _np(v), rtol=2e-2, atol=6e-2)
