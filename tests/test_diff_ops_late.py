"""Late fuzz findings on elementwise ops, views, indexing and in-place writes, compared with PyTorch."""
import math

import numpy as np
import pytest

import pedatorch

torch = pytest.importorskip("torch")


def both(fn):
    """``fn(lib)`` run with PyTorch and pedatorch: (torch's result, pedatorch's result), or the exception."""
    out = []
    for lib in (torch, pedatorch):
        try:
            out.append(fn(lib))
        except Exception as e:   # noqa: BLE001 - compared below
            out.append(e)
    return out


def same_error(fn):
    t, p = both(fn)
    assert isinstance(t, Exception), t
    assert type(p) is type(t) and str(p) == str(t), (p, t)


def same_strides(fn):
    t, p = both(fn)
    assert tuple(p.shape) == tuple(t.shape)
    assert p.stride() == t.stride(), (p.stride(), t.stride())


def same_values(fn, exact=True):
    t, p = both(fn)
    a = t.detach().double().numpy() if not isinstance(t, Exception) else t
    b = p.detach().double().numpy() if not isinstance(p, Exception) else p
    assert not isinstance(a, Exception) and not isinstance(b, Exception), (a, b)
    assert a.shape == b.shape
    if exact:
        np.testing.assert_array_equal(np.signbit(b[np.isfinite(a)]), np.signbit(a[np.isfinite(a)]))
        np.testing.assert_array_equal(b, a)
    else:
        np.testing.assert_allclose(b, a, rtol=1e-6, equal_nan=True)


# ---------------------------------------------------------------- layouts: the CPU casts operands first

def test_where_casts_other_operand_to_common_dtype_layout():
    def f(lib):
        x0 = lib.tensor([[[0.1], [1.0], [0.2], [0.3]]]).transpose(-2, -1)        # strides (4, 1, 1)
        x1 = lib.tensor([[[-1, 2, 1, 3, 4, 1, -4, 3]]], dtype=lib.int8)[..., ::2]  # not dense
        return lib.where(x0 > 0.5, x0, x1)
    same_strides(f)


def test_binary_op_cast_operand_uses_its_preserved_layout():
    def f(lib):
        x0 = lib.tensor([[-3, -2], [-2, -4], [3, 2], [2, 0]], dtype=lib.int32)[..., ::2]
        x1 = lib.tensor([[1, 3, -3, 2]], dtype=lib.int32).transpose(-2, -1)
        return lib.copysign(x0, x1)
    same_strides(f)

    def g(lib):
        a = lib.arange(12.).reshape(3, 4).t()
        b = lib.arange(24, dtype=lib.int32).reshape(4, 6)[:, ::2]
        return [lib.where(a > 0, b, a), b + a, a + b, b > a.double()]
    t, p = both(g)
    assert [r.stride() for r in p] == [r.stride() for r in t]


@pytest.mark.parametrize("op", ["deg2rad", "rad2deg", "nan_to_num"])
def test_preserve_format_unary_ops(op):
    def f(lib):
        x = lib.tensor([[True, True]])[..., ::2]
        x = x.float() if op != "nan_to_num" else lib.tensor([[-1], [4]]).transpose(-2, -1)
        return getattr(lib, op)(x)
    same_strides(f)


@pytest.mark.parametrize("op", ["deg2rad", "rad2deg"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_deg_rad_round_like_pytorch(op, dtype):
    v = np.array([-2, -3, 1e-3, 7.5, 123.25, -1e4, 0.0, -0.0])
    same_values(lambda lib: getattr(lib, op)(lib.tensor(v).to(getattr(lib, dtype))))


def test_digamma_float32_like_pytorch():
    v = np.array([-114.59156, -171.88734, -4.5, -0.0, 0.0, -3.0, 10.0, 1e-30, 3.3, 1e20, np.inf, -np.inf],
                 dtype=np.float32)
    same_values(lambda lib: lib.digamma(lib.tensor(v)), exact=False)   # (logf and numpy's log: 1 ulp apart)
    same_values(lambda lib: lib.digamma(lib.tensor(v[:2])))                # float32 steps, as PyTorch rounds them
    same_values(lambda lib: lib.digamma(lib.tensor([-2, -3]).rad2deg()))


# ---------------------------------------------------------------- pow with the exponents ATen specialises

@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("p", [0.5, -0.5, -1, 2, 3, -2])
def test_pow_scalar_special_exponents(dtype, p):
    v = [-math.inf, -0.0, 0.0, math.inf, -4.0, math.nan, 3.3, 1e-3, 5.0]
    same_values(lambda lib: lib.tensor(v).to(getattr(lib, dtype)).pow(p))
    same_values(lambda lib: lib.tensor(v).to(getattr(lib, dtype)).pow_(p))


def test_pow_gradients():
    x = pedatorch.tensor([0.7, 1.3, 2.1], dtype=pedatorch.float64, requires_grad=True)
    for p in (0.5, -0.5, -1, 2, 3, -2):
        assert pedatorch.autograd.gradcheck(lambda t: t.pow(p), (x,))
        assert pedatorch.autograd.gradgradcheck(lambda t: t.pow(p), (x,))


# ---------------------------------------------------------------- argument errors

def test_clamp_bool_has_no_scalar_kernel():
    b = lambda lib: lib.tensor([[True]])   # noqa: E731
    same_error(lambda lib: lib.clamp_min(b(lib), False))
    same_error(lambda lib: lib.clamp_max(b(lib), False))
    same_error(lambda lib: lib.clamp(b(lib), False, True))
    same_error(lambda lib: b(lib).clamp_min_(False))
    same_error(lambda lib: lib.clamp(b(lib), min=lib.tensor(False), max=lib.tensor(True)))
    # one tensor bound is maximum/minimum in ATen, which has a bool loop
    t, p = both(lambda lib: lib.clamp(b(lib), min=lib.tensor(False)))
    assert p.tolist() == t.tolist()


def test_cat_of_only_legacy_empty_tensors_takes_any_dim():
    for d in (-2, 5, 0):
        t, p = both(lambda lib: lib.cat((lib.zeros(0), lib.zeros(0, dtype=lib.int64)), dim=d))
        assert tuple(p.shape) == tuple(t.shape) == (0,) and p.dtype == pedatorch.float32
    same_error(lambda lib: lib.cat((lib.zeros(0), lib.zeros(2, 3)), dim=2))


def test_narrow_start_out_of_range_is_index_error():
    same_error(lambda lib: lib.zeros(1, 0).narrow(1, 2, 0))
    same_error(lambda lib: lib.zeros(3).narrow(0, -4, 0))
    same_error(lambda lib: lib.zeros(3).narrow(0, 0, -1))
    same_error(lambda lib: lib.zeros(3).narrow(0, 2, 2))
    same_error(lambda lib: lib.narrow_copy(lib.zeros(3), 0, 1, -1))
    t, p = both(lambda lib: lib.zeros(3).narrow(0, -3, 1))
    assert tuple(p.shape) == tuple(t.shape)


def test_index_add_middle_dim_bounds_message():
    same_error(lambda lib: lib.index_add(lib.zeros(1, 1, 1), 1, lib.tensor([1]), lib.ones(1, 1, 1)))
    same_error(lambda lib: lib.index_add(lib.zeros(3, 2), 0, lib.tensor([3]), lib.ones(1, 2)))
    same_error(lambda lib: lib.index_add(lib.zeros(2, 2, 2), 2, lib.tensor([2]), lib.ones(2, 2, 1)))


def test_advanced_index_empty_result_checks_no_entry():
    for fn in (lambda lib: lib.zeros(1, 0, dtype=lib.int32)[lib.tensor([False]), lib.tensor([0])],
               lambda lib: lib.zeros(0, 3)[:, lib.tensor([5])],
               lambda lib: lib.zeros(2, 3)[lib.tensor([], dtype=lib.long).reshape(0, 1), lib.tensor([7])]):
        t, p = both(fn)
        assert tuple(p.shape) == tuple(t.shape)
    same_error(lambda lib: lib.zeros(1, 0)[lib.tensor([0]), lib.tensor([7])])

    def put(lib):
        x = lib.zeros(0, dtype=lib.float64)
        x[lib.tensor([0, 0])] = lib.zeros(0, dtype=lib.float64)   # the size-0 dim is refused first
    same_error(put)

    def put_empty(lib):
        x = lib.zeros(0, 3)
        x[:, lib.tensor([5])] = 1.0
        return x
    t, p = both(put_empty)
    assert tuple(p.shape) == tuple(t.shape)


def test_isclose_of_0dim_tensors_is_a_tensor():
    def f(lib):
        y = lib.isclose(lib.tensor(0.1), lib.tensor(-2.0), equal_nan=True)
        y[()] = lib.tensor(True)
        return y
    t, p = both(f)
    assert p.tolist() == t.tolist() and p.dtype == pedatorch.bool


def test_copy_from_partially_overlapping_memory_is_refused():
    def case(write):
        def f(lib):
            x = lib.arange(4.)
            write(lib, x)
            return x
        return f
    same_error(case(lambda lib, x: x[1:].copy_(x[:3])))
    same_error(case(lambda lib, x: x.view(1, 4).copy_(x)))
    same_error(case(lambda lib, x: x[:1].__setitem__(None, x[:1])))

    def ok(lib):
        x = lib.arange(4.)
        x[None] = x                       # the same elements in the same order: allowed
        x[...] = x
        x.unsqueeze(0).copy_(x.unsqueeze(0))
        x.copy_(x.flip(0))                # flip copies
        return x
    t, p = both(ok)
    assert p.tolist() == t.tolist()


# ---------------------------------------------------------------- saved tensors

def test_masked_select_saves_its_input():
    def f(lib):
        x0 = lib.tensor(-0.0876, requires_grad=True)
        y0 = x0.erfc()
        y1 = lib.masked_select(y0, lib.tensor(True))
        y0.tanh_()
        return lib.autograd.grad((y0 * 2).sum() + y1.sum(), [x0])
    same_error(f)
    x = pedatorch.randn(3, 2, dtype=pedatorch.float64, requires_grad=True)
    m = pedatorch.tensor([[True, False], [False, True], [True, True]])
    assert pedatorch.autograd.gradcheck(lambda t: pedatorch.masked_select(t, m), (x,))
    assert pedatorch.autograd.gradgradcheck(lambda t: pedatorch.masked_select(t, m), (x,))


# ---------------------------------------------------------------- sgn's efficient zero gradient

def _second_order(lib, x1_values, op):
    x0 = lib.tensor([[1.94, 1.02], [1.63, -0.48], [-2.13, 0.28]], dtype=lib.float64, requires_grad=True)
    x1 = lib.tensor(x1_values, dtype=lib.float64)
    y = op(x0 * x1)
    g, = lib.autograd.grad((y * lib.tensor([[1.8, -0.02], [0.03, -0.7], [0.0, 2.4]],
                                           dtype=lib.float64)).sum(), [x0], create_graph=True)
    g2, = lib.autograd.grad((g * 2.0).sum(), [x0], allow_unused=True)
    return g, g2


@pytest.mark.parametrize("op", [lambda t: t.abs(), lambda t: t.abs_(), lambda t: t.sgn() * t])
def test_sgn_sends_back_an_efficient_zero(op):
    """abs's double backward goes through sgn, whose (real) gradient is PyTorch's efficient zero tensor:
    it stays zero below, where real zeros times a saved NaN would be NaN."""
    vals = [[-0.35, 0.2], [-0.33, -0.32], [math.nan, 1.26]]
    t, p = both(lambda lib: _second_order(lib, vals, op))
    for a, b in zip(t, p):
        want = np.zeros(tuple(a.shape)) if a._is_zerotensor() else a.detach().numpy()   # (autograd.grad may
        np.testing.assert_array_equal(b.detach().numpy(), want)                           # give a ZeroTensor)
    assert (p[0].grad_fn is None) == (t[0].grad_fn is None)


def test_efficient_zero_leaves_plain_gradients():
    x = pedatorch.tensor([1.0, -2.0], requires_grad=True)
    x.sgn().sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and "_zerotensor" not in x.grad.__dict__
    x.grad += 1   # a plain tensor: later gradients add to it
    (x * 3).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    xd = pedatorch.tensor([0.7, -1.3, 2.1], dtype=pedatorch.float64, requires_grad=True)
    assert pedatorch.autograd.gradgradcheck(lambda t: t.abs() * t, (xd,))


def test_addmm_saves_each_matrix_only_for_the_others_gradient():
    """PyTorch's addmm saves mat1 only for mat2's gradient and mat2 only for mat1's: an in-place write into
    a matrix that no gradient reads is no error, one into a matrix that is read is; nn.Linear's weight
    gradient stays contiguous (computed in the layout of weight.t())."""
    for lib in (pedatorch, torch):
        b = lib.zeros(4)
        x, w = lib.ones(2, 3), lib.ones(4, 3, requires_grad=True)
        out = lib.addmm(b, x, w.t())
        x.mul_(2)                       # read for w's gradient: the version check fires
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
        x, w = lib.ones(2, 3, requires_grad=True), lib.ones(4, 3)
        xc = x * 1
        out = lib.addmm(b, xc, w.t())
        xc.mul_(2)                      # read by nothing: w needs no gradient
        out.sum().backward()
        assert x.grad.shape == (2, 3)
        layer = lib.nn.Linear(3, 4)
        layer(lib.ones(2, 3)).sum().backward()
        assert layer.weight.grad.is_contiguous()
