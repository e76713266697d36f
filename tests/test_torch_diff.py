"""Regression tests for the bug classes the differential fuzzer found (issue 9), one group per cause,
each compared with PyTorch and, for gradients, with finite differences (gradcheck)."""
import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close


def both(torch, fn):
    """fn(lib) run on pedatorch and on torch."""
    return fn(pt), fn(torch)


# -- 1. masking backwards select: 0 * inf is not NaN --------------------------------------------------
MASKING = {
    "clamp_min": lambda lib, x: x.clamp(min=0),
    "clamp_min_fn": lambda lib, x: x.clamp_min(0),
    "clamp_tensor": lambda lib, x: x.clamp(lib.zeros(2), lib.full((2,), 9.)),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros(2)),
    "minimum": lambda lib, x: -lib.minimum(-x, lib.zeros(2)),
    "fmax": lambda lib, x: lib.fmax(x, lib.zeros(2)),
    "where": lambda lib, x: lib.where(x > 0, x, lib.zeros(2)),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x, 0., 9.),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0., 0.),
    "hardsigmoid": lambda lib, x: lib.nn.functional.hardsigmoid(x - 5) - 0.5,
}


@pytest.mark.parametrize("name", list(MASKING))
def test_masked_gradient_is_zero_not_nan(torch, name):
    def run(lib):
        x = lib.tensor([-1., 4.], requires_grad=True)
        MASKING[name](lib, x).sqrt().sum().backward()
        return x.grad
    ours, theirs = both(torch, run)
    assert_close(ours, theirs)
    assert not np.isnan(ours.numpy()[0])


def test_clamp_tensor_bounds_crossed_sends_gradient_to_max(torch):
    def run(lib):
        x, lo, hi = (lib.tensor(v, requires_grad=True) for v in ([0., 5.], [3., 3.], [1., 1.]))
        x.clamp(lo, hi).sum().backward()
        return x.grad, lo.grad, hi.grad
    for a, b in zip(*both(torch, run)):
        assert_close(a, b)


def test_maximum_ties_and_nan_follow_pytorch(torch):
    def run(lib):
        a = lib.tensor([1., float("nan"), 2.], requires_grad=True)
        b = lib.tensor([1., 0., 3.], requires_grad=True)
        lib.maximum(a, b).sum().backward()
        return a.grad, b.grad
    for a, b in zip(*both(torch, run)):
        assert_close(a, b)


def test_shrinks_keep_nan(torch):
    x = [float("nan"), 1., -2., 0.3]
    for name in ("hardshrink", "softshrink"):
        ours = getattr(pt.nn.functional, name)(pt.tensor(x))
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x))
        assert_close(ours, theirs)


def test_threshold_bfloat16_compares_unrounded(torch):
    x = [0.1, 0.1015625, 0.11]
    ours = pt.nn.functional.threshold(pt.tensor(x, dtype=pt.bfloat16), 0.1005, -1.)
    theirs = torch.nn.functional.threshold(torch.tensor(x, dtype=torch.bfloat16), 0.1005, -1.)
    assert_close(ours.float(), theirs.float())


# -- 2. 0-dim outputs saved for backward -------------------------------------------------------------
ZERO_DIM_OPS = ["exp", "exp2", "expm1", "tanh", "tan", "sqrt", "rsqrt", "reciprocal", "sinc", "sigmoid"]


@pytest.mark.parametrize("name", ZERO_DIM_OPS)
def test_double_backward_through_0dim_output(torch, name):
    def run(lib):
        return lib.autograd.functional.hessian(lambda t: getattr(t, name)(), lib.tensor(0.7, dtype=lib.float64))
    ours, theirs = both(torch, run)
    assert_close(ours, theirs, rtol=1e-10)
    assert pt.autograd.gradgradcheck(lambda t: getattr(t, name)(), (pt.tensor(0.7, dtype=pt.float64,
                                                                               requires_grad=True),))


def test_gradient_penalty_through_0dim_tanh(torch):
    def run(lib):
        w = lib.tensor([0.5, -0.3], requires_grad=True)
        x = lib.tensor([1., 2.], requires_grad=True)
        g, = lib.autograd.grad(lib.tanh((w * x).sum()), x, create_graph=True)
        (g ** 2).sum().backward()
        return w.grad
    assert_close(*both(torch, run))


def test_inplace_on_0dim_saved_output_is_caught(torch):
    for lib in (pt, torch):
        x = lib.tensor(1., requires_grad=True)
        y = x.exp()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()


@pytest.mark.parametrize("name", ["elu", "celu", "selu", "softplus", "hardswish"])
def test_double_backward_of_0dim_activations(torch, name):
    def run(lib):
        x = lib.tensor(0.7, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(getattr(lib.nn.functional, name)(x), x, create_graph=True)
        g.backward()
        return x.grad
    assert_close(*both(torch, run), rtol=1e-10)


# -- 3. half precision accumulates in float32 -------------------------------------------------------
def test_low_precision_reductions_accumulate_in_float32(torch):
    cases = [
        lambda lib: lib.full((5000,), 0.1, dtype=lib.bfloat16).sum(),
        lambda lib: lib.ones(3000, dtype=lib.float16).cumsum(0)[-1],
        lambda lib: lib.full((5000,), 0.1, dtype=lib.bfloat16).mean(),
        lambda lib: (lib.arange(4000.) / 1000).to(lib.float16).std(),
        lambda lib: lib.nn.functional.layer_norm((lib.arange(4000.) / 100).to(lib.float16)[None], (4000,))[0, :3],
    ]
    for fn in cases:
        ours, theirs = both(torch, fn)
        assert_close(ours.float(), theirs.float(), rtol=2e-3, atol=2e-3)


# -- 4. bfloat16 works where float16 does ----------------------------------------------------------
BF16_OPS = {
    "matmul": lambda lib, a, w: a @ w.t(),
    "linear": lambda lib, a, w: lib.nn.functional.linear(a, w),
    "bmm": lambda lib, a, w: lib.bmm(a, w.t().unsqueeze(0).expand(2, 4, 5)),
    "softmax": lambda lib, a, w: lib.nn.functional.softmax(a, -1),
    "log_softmax": lambda lib, a, w: lib.nn.functional.log_softmax(a, -1),
    "cross_entropy": lambda lib, a, w: lib.nn.functional.cross_entropy(a[0], lib.tensor([1, 2, 0])),
    "mean": lambda lib, a, w: a.mean(),
    "std": lambda lib, a, w: a.std(1),
    "norm": lambda lib, a, w: a.norm(),
    "layer_norm": lambda lib, a, w: lib.nn.functional.layer_norm(a, (4,)),
    "avg_pool1d": lambda lib, a, w: lib.nn.functional.avg_pool1d(a, 2),
    "sdpa": lambda lib, a, w: lib.nn.functional.scaled_dot_product_attention(a, a, a),
}


@pytest.mark.parametrize("name", list(BF16_OPS))
def test_bfloat16_ops_and_their_backward(torch, name):
    rng = np.random.default_rng(0)
    A, W = rng.standard_normal((2, 3, 4)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)

    def run(lib):
        a = lib.tensor(A).to(lib.bfloat16).requires_grad_()
        w = lib.tensor(W).to(lib.bfloat16).requires_grad_()
        y = BF16_OPS[name](lib, a, w)
        y.float().sum().backward()
        return y, a.grad
    (y1, g1), (y2, g2) = both(torch, run)
    assert str(y1.dtype) == str(y2.dtype) and str(g1.dtype) == str(g2.dtype)
    assert_close(y1.float(), y2.float(), rtol=2e-2, atol=2e-2)
    assert_close(g1.float(), g2.float(), rtol=5e-2, atol=5e-2)


# -- 5. op(x, x.detach()) --------------------------------------------------------------------------
def test_detached_argument_stops_the_gradient(torch):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        g, = lib.autograd.grad(lib.nn.functional.mse_loss(x, x.detach()), x, create_graph=True)
        g.sum().backward()
        return x.grad
    assert_close(*both(torch, run))


# -- 6. advanced indexing's layout -----------------------------------------------------------------
def test_advanced_indexing_strides_match_pytorch(torch):
    rng = np.random.default_rng(3)
    for _ in range(300):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(v) for v in rng.integers(1, 4, nd))
        perm = [int(p) for p in rng.permutation(nd)]
        base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        a, b = pt.tensor(base).permute(*perm), torch.tensor(base).permute(*perm)
        key = [rng.integers(0, a.shape[d], int(rng.integers(1, 3))) if rng.random() < 0.5 else slice(None)
               for d in range(nd)]
        if all(isinstance(k, slice) for k in key):
            continue
        try:
            rb = b[tuple(torch.tensor(k) if not isinstance(k, slice) else k for k in key)]
        except (IndexError, RuntimeError):
            continue
        ra = a[tuple(pt.tensor(k) if not isinstance(k, slice) else k for k in key)]
        assert ra.stride() == rb.stride(), (shape, perm, key)
        assert_close(ra, rb)
    assert pt.arange(12.).reshape(3, 4)[:, pt.tensor([0, 2])].view(-1).shape == (6,)


# -- 7. type promotion ------------------------------------------------------------------------------
def test_float_valued_binary_ops_promote_first(torch):
    for name in ("atan2", "logaddexp", "copysign", "logaddexp2"):
        def run(lib):
            return getattr(lib, name)(lib.tensor([1, 2]), lib.tensor([1., 2.], dtype=lib.float16))
        ours, theirs = both(torch, run)
        assert str(ours.dtype) == str(theirs.dtype)


def test_xlogy_with_a_number(torch):
    def run(lib):
        x = lib.tensor([0., 1.], requires_grad=True)
        y = lib.xlogy(x, 3.0)
        y.sum().backward()
        z = lib.tensor([0.5, 1.], requires_grad=True)
        w = lib.xlogy(2.0, z)
        return y.dtype, y.grad_fn.name(), x.grad, w.grad_fn.name()
    ours, theirs = both(torch, run)
    assert str(ours[0]) == str(theirs[0]) and ours[1] == theirs[1] and ours[3] == theirs[3]
    assert_close(ours[2], theirs[2])


def test_xlogy_gradient_at_zero(torch):
    def run(lib):
        x = lib.tensor([0., 0., 0., 2.], requires_grad=True)
        lib.xlogy(x, lib.tensor([0.3, 0., -1., 0.])).sum().backward()
        return x.grad
    assert_close(*both(torch, run))


def test_heaviside_and_bfloat16_where(torch):
    ours, theirs = both(torch, lambda lib: lib.heaviside(lib.tensor([1, 0, -1]), lib.tensor([5, 5, 5])))
    assert_close(ours, theirs)
    ours, theirs = both(torch, lambda lib: lib.where(lib.tensor([True, False]), 0.0,
                                                    lib.ones(2, dtype=lib.bfloat16)))
    assert str(ours.dtype) == str(theirs.dtype)
    with pytest.raises(TypeError):
        pt.heaviside(pt.tensor([1.]), 0.5)


# -- 8. Python ints out of an integer dtype's range -------------------------------------------------
WRAP = {
    "mul": lambda lib, u: u * -1, "add": lambda lib, u: u + 256, "sub": lambda lib, u: u - 300,
    "radd": lambda lib, u: 300 + u, "full": lambda lib, u: lib.full((2,), -1, dtype=lib.uint8),
    "fill_": lambda lib, u: u.clone().fill_(-1), "lt": lambda lib, u: u < -1, "floordiv": lambda lib, u: u // -1,
    "rem": lambda lib, u: u % 300, "and": lambda lib, u: u & 257,
    "int8": lambda lib, u: lib.tensor([100, -100], dtype=lib.int8) * 200,
    "int16": lambda lib, u: lib.ones(2, dtype=lib.int16) * 70000,
}


@pytest.mark.parametrize("name", list(WRAP))
def test_python_ints_wrap_like_pytorch(torch, name):
    ours, theirs = both(torch, lambda lib: WRAP[name](lib, lib.tensor([1, 2], dtype=lib.uint8)))
    assert_close(ours, theirs)


CHECKED = {
    "setitem": lambda lib, u: u.__setitem__(0, 300), "clamp": lambda lib, u: u.clamp(-5, 300),
    "where": lambda lib, u: lib.where(u > 1, u, 300), "alpha": lambda lib, u: lib.add(u, u, alpha=300),
    "tensor": lambda lib, u: lib.tensor([300], dtype=lib.uint8),
}


@pytest.mark.parametrize("name", list(CHECKED))
def test_python_ints_that_must_fit_raise_like_pytorch(torch, name):
    messages = []
    for lib in (pt, torch):
        with pytest.raises(RuntimeError) as e:
            CHECKED[name](lib, lib.tensor([1, 2], dtype=lib.uint8))
        messages.append(str(e.value))
    assert messages[0] == messages[1]


# -- 9. var_mean of one element, sign, errors ------------------------------------------------------
def test_var_mean_unused_output_gives_no_nan(torch):
    def run(lib):
        x = lib.tensor([2.], requires_grad=True)
        v, m = lib.var_mean(x)
        m.backward()
        return x.grad
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(*both(torch, run))


def test_tensor_of_strings_raises_like_pytorch(torch):
    for data, exc in ((["a"], ValueError), ([1, "a"], TypeError)):
        for lib in (pt, torch):
            with pytest.raises(exc):
                lib.tensor(data)


def test_sign_of_nan_and_bool(torch):
    for data in ([float("nan"), -2., 0., 3.], [True, False], [-3, 0, 2]):
        assert_close(pt.sign(pt.tensor(data)), torch.sign(torch.tensor(data)))


# -- numpy's argument names, as PyTorch's argument parser accepts them -------------------------------
NUMPY_NAMES = {
    "sum": lambda lib, x: x.sum(axis=0), "torch.sum": lambda lib, x: lib.sum(x, axis=1, keepdims=True),
    "mean": lambda lib, x: x.mean(axis=1, keepdims=True), "argmax": lambda lib, x: x.argmax(axis=1),
    "max": lambda lib, x: x.max(axis=0).values, "std": lambda lib, x: x.std(axis=1),
    "cat": lambda lib, x: lib.cat([x, x], axis=0), "softmax": lambda lib, x: lib.softmax(x, axis=1),
    "keepdims": lambda lib, x: x.amax(dim=0, keepdims=True),
}


@pytest.mark.parametrize("name", list(NUMPY_NAMES))
def test_numpy_argument_names(torch, name):
    ours, theirs = both(torch, lambda lib: NUMPY_NAMES[name](lib, lib.arange(6.).reshape(2, 3)))
    assert_close(ours, theirs)


def test_numpy_names_conflicts_and_functional(torch):
    for lib in (pt, torch):
        x = lib.ones(2, 3)
        with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
            x.sum(axis=0, dim=0)
        with pytest.raises(TypeError):
            lib.nn.functional.softmax(x, axis=1)  # Python-level functions take no aliases, in PyTorch too


# -- 11. exception classes as PyTorch's ------------------------------------------------------------
BAD = {
    "int_of_two": lambda lib: int(lib.tensor([1, 2])),
    "float_of_two": lambda lib: float(lib.tensor([1., 2.])),
    "bitwise_float": lambda lib: lib.tensor([1.]) & lib.tensor([1.]),
    "bitwise_not_float": lambda lib: lib.bitwise_not(lib.tensor([1.])),
    "invert_float": lambda lib: ~lib.tensor([1.]),
    "huge_empty": lambda lib: lib.empty(2 ** 62, 2 ** 62),
    "maximum_number": lambda lib: lib.maximum(lib.ones(2), 0.5),
    "atan2_number": lambda lib: lib.atan2(lib.ones(2), 1),
    "hypot_number": lambda lib: lib.hypot(lib.ones(2), 1.5),
    "heaviside_number": lambda lib: lib.heaviside(lib.ones(2), 0.5),
    "dist_number": lambda lib: lib.dist(lib.ones(2), 1.5),
    "addcdiv_number": lambda lib: lib.addcdiv(lib.ones(2), 2.0, lib.ones(2)),
    "grad_no_inputs": lambda lib: lib.autograd.grad(lib.ones(1, requires_grad=True).sum(), []),
    "sum_int_dtype_with_grad": lambda lib: lib.ones(1, requires_grad=True).sum(dtype=lib.int64),
    "cumsum_int_dtype_with_grad": lambda lib: lib.ones(1, requires_grad=True).cumsum(0, dtype=lib.int64),
    "abs_bool": lambda lib: lib.tensor([True]).abs(),
    "bce_target_range": lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.5]), lib.tensor([2.])),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_raises_pytorchs_exception(torch, name):
    caught = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as e:
            BAD[name](lib)
        caught.append(e.value)
    assert type(caught[0]) is type(caught[1]), caught
    assert str(caught[0]) == str(caught[1])


def test_zero_dim_shape_ops_and_empty_chunks(torch):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (pt, torch):
            x = lib.tensor(1., requires_grad=True)
            assert x.transpose(0, -1).grad_fn.name() == "TransposeBackward0"
            assert x.movedim(0, 0).grad_fn.name() == "AliasBackward0"
            assert x.mT is x
            assert [tuple(t.shape) for t in lib.ones(0, 2).chunk(3)] == [(0, 2)] * 3


# -- 10. grad_fn names --------------------------------------------------------------------------------
NODE_NAMES = {
    "div_floor": lambda lib, x: x.div(2, rounding_mode="floor"),
    "div_trunc_tensor": lambda lib, x: lib.div(x, lib.tensor([2., 3.]), rounding_mode="trunc"),
    "round_decimals": lambda lib, x: lib.round(x, decimals=1),
    "rsub_tensor": lambda lib, x: lib.rsub(x, x),
    "rsub_number": lambda lib, x: lib.rsub(x, 2),
    "ldexp": lambda lib, x: lib.ldexp(x, lib.tensor([1, 2])),
    "copysign_number": lambda lib, x: lib.copysign(x, -1.),
    "sum_empty_dims": lambda lib, x: x.sum([]),
    "nansum": lambda lib, x: x.nansum(),
    "nansum_dim": lambda lib, x: x.nansum(0),
    "dist": lambda lib, x: lib.dist(x, x * 2),
    "xlogy_number": lambda lib, x: lib.xlogy(x, 3.),
}


@pytest.mark.parametrize("name", list(NODE_NAMES))
def test_grad_fn_names_and_gradients(torch, name):
    def run(lib):
        x = lib.tensor([1.5, -2.25], dtype=lib.float64, requires_grad=True)
        y = NODE_NAMES[name](lib, x)
        y.sum().backward()
        return y.grad_fn.name(), y, x.grad
    (n1, y1, g1), (n2, y2, g2) = both(torch, run)
    assert n1 == n2
    assert_close(y1, y2)
    assert_close(g1, g2)


def test_rsub_of_two_tensors_differentiates_both(torch):
    def run(lib):
        a, b = lib.tensor([1., 2.], requires_grad=True), lib.tensor([3., 4.], requires_grad=True)
        lib.rsub(a, b, alpha=2).sum().backward()
        return a.grad, b.grad
    for x, y in zip(*both(torch, run)):
        assert_close(x, y)


def test_integer_powers_with_negative_tensor_exponents(torch):
    cases = [lambda lib: lib.tensor([2, 1, -1, -1, 0, 3]) ** lib.tensor([-1, -3, -3, -2, -1, 0]),
             lambda lib: 2 ** lib.tensor([-1, 2]), lambda lib: lib.pow(2, lib.tensor([-1, 2], dtype=lib.int8))]
    for fn in cases:
        assert_close(*both(torch, fn))
    for lib in (pt, torch):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            lib.tensor([2]) ** -1


def test_ldexp_with_a_negative_integer_exponent_follows_pytorchs_formula(torch):
    def run(lib):
        x = lib.tensor([-0.5, 2.0], dtype=lib.float64, requires_grad=True)
        lib.ldexp(x, lib.tensor([-4, 1], dtype=lib.int8)).sum().backward()
        return x.grad
    assert_close(*both(torch, run))


def test_smaller_classes_of_issue_9(torch):
    def run(lib):
        x = lib.tensor(0.7, dtype=lib.float64)
        hess = lib.autograd.functional.hessian(lambda t: lib.i0(t), x)            # i0 twice differentiable
        a, b = lib.tensor([0.], requires_grad=True), lib.tensor([0.], requires_grad=True)
        lib.atan2(a, b).sum().backward()                                         # 0, not NaN, at (0, 0)
        top = lib.topk(lib.tensor(1.), 0)                                        # a 0-dim tensor's top
        ce = lib.nn.functional.cross_entropy(lib.ones(3), lib.tensor([0]))      # 1-D input, 1-element target
        return hess, a.grad, b.grad, top.values, top.indices, lib.logcumsumexp(lib.tensor(1.5), 0), ce
    for x, y in zip(*both(torch, run)):
        assert_close(x, y)
    assert pt.autograd.gradgradcheck(pt.i0, (pt.tensor([0.3, 1.5], dtype=pt.float64, requires_grad=True),))


def test_layout_of_new_results(torch):
    """cat and softmax give contiguous results; flip keeps its input's memory layout (as PyTorch)."""
    def run(lib):
        nc = lib.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)
        return (lib.cat([nc, nc]).stride(), lib.softmax(nc, 0).stride(), lib.log_softmax(nc, 1).stride(),
                nc.flip(0).stride(), nc.transpose(0, 1).clone().stride())
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_multi_output_views_after_an_inplace_update_under_no_grad(torch):
    """unbind/split views made after an optimizer-style in-place step carry their own grad_fn."""
    def run(lib):
        p = lib.tensor([1., 2., 3.], requires_grad=True)
        with lib.no_grad():
            p.mul_(2)
        a, b, c = p.unbind()
        x, y = p.split(2)
        ((a + 10 * b + 100 * c) + (x * 1000).sum() + y.sum()).backward()
        return p.grad, a.grad_fn.name(), x.grad_fn.name()
    ours, theirs = both(torch, run)
    assert_close(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]


def test_numpy_ufuncs_on_a_tensor_give_a_tensor(torch):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn in (np.exp, np.isnan, np.sqrt, lambda t: np.add(t, 1), lambda t: np.maximum(t, 0.5)):
            ours, theirs = both(torch, lambda lib: fn(lib.tensor([0., 1.])))
            assert isinstance(ours, pt.Tensor)
            assert_close(ours, theirs)


# -- kernels' dtype support: PyTorch's dispatch errors ---------------------------------------------
DTYPE_OPS = {
    "ceil": lambda lib, x: lib.ceil(x), "round": lambda lib, x: lib.round(x),
    "round_decimals": lambda lib, x: lib.round(x, decimals=1), "frac": lambda lib, x: lib.frac(x),
    "hypot": lambda lib, x: lib.hypot(x, x), "logaddexp": lambda lib, x: lib.logaddexp(x, x),
    "nextafter": lambda lib, x: lib.nextafter(x, x), "relu": lambda lib, x: lib.relu(x),
    "relu_": lambda lib, x: lib.relu_(x.clone()), "sub_number": lambda lib, x: x - 1,
    "rsub_number": lambda lib, x: 1 - x, "remainder": lambda lib, x: lib.remainder(x, x),
    "floor_divide": lambda lib, x: lib.floor_divide(x, x), "div_trunc": lambda lib, x: lib.div(x, x, rounding_mode="trunc"),
    "clamp_tensor": lambda lib, x: lib.clamp(x, x, x), "median": lambda lib, x: lib.median(x),
    "topk": lambda lib, x: lib.topk(x, 1).values, "logcumsumexp": lambda lib, x: lib.logcumsumexp(x, 0),
    "nanmean": lambda lib, x: lib.nanmean(x), "addcmul": lambda lib, x: lib.addcmul(x, x, x),
    "layer_norm": lambda lib, x: lib.nn.functional.layer_norm(x, (2,)),
    "group_norm": lambda lib, x: lib.nn.functional.group_norm(x.reshape(1, 2), 1),
    "batch_norm_eval": lambda lib, x: lib.nn.functional.batch_norm(x.reshape(1, 2), lib.zeros(2), lib.ones(2)),
    "lerp": lambda lib, x: lib.lerp(x, x, 0.5), "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0, 0),
    "tanhshrink": lambda lib, x: lib.nn.functional.tanhshrink(x), "fmod": lambda lib, x: lib.fmod(x, x),
    "kthvalue": lambda lib, x: lib.kthvalue(x, 1).values, "gcd": lambda lib, x: lib.gcd(x, x),
    "dist": lambda lib, x: lib.dist(x, x), "logaddexp_shapes": lambda lib, x: lib.logaddexp(x, lib.ones(3, dtype=x.dtype)),
}


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(DTYPE_OPS))
def test_kernel_dtype_support_as_pytorch(torch, name, dtype):
    outcome = []
    for lib in (pt, torch):
        try:
            r = DTYPE_OPS[name](lib, lib.tensor([1, 0], dtype=getattr(lib, dtype)))
            outcome.append(("ok", str(r.dtype)))
        except Exception as e:  # noqa: BLE001 - the class and the words are what is compared
            outcome.append((type(e).__name__, str(e)))
    assert outcome[0] == outcome[1]


def test_nan_and_dtype_edges_found_by_the_fuzzer(torch):
    def run(lib):
        F = lib.nn.functional
        grads = []
        for f in (F.relu6, F.hardswish, lambda x: F.threshold(x, 0., 0.), F.hardtanh, F.hardsigmoid):
            x = lib.tensor([float("nan"), float("inf"), -3., 3., 6., 0.], requires_grad=True)
            f(x).sum().backward()
            grads.append(x.grad)
        return grads + [
            lib.heaviside(lib.tensor([float("nan"), 0., -1.]), lib.tensor([5., 5., 5.])),
            lib.sgn(lib.tensor([float("nan"), -2.])),
            lib.ldexp(lib.tensor([1.7]), lib.tensor([1.], dtype=lib.float64)),
            lib.add(lib.ones(2), lib.tensor([True, False]), alpha=2),
            lib.addcdiv(lib.ones(2), lib.tensor([True, False]), lib.ones(2), value=0.5),
            lib.addcmul(lib.tensor([1, 2], dtype=lib.int8), lib.tensor([1, 2], dtype=lib.int8),
                        lib.tensor([3, 4], dtype=lib.int8), value=0.5),
        ]
    for x, y in zip(*both(torch, run)):
        assert_close(x, y)
    x = pt.tensor([1., 2.], requires_grad=True)
    assert pt.mean(x, dim=()).grad_fn.name() == "MeanBackward1"


def test_reshape_records_what_aten_records(torch):
    def run(lib):
        x = lib.arange(6.).reshape(2, 3).requires_grad_()
        t = x.t().reshape(6)
        return (x.reshape(3, 2).grad_fn.name(), t.grad_fn.name(), t.grad_fn.next_functions[0][0].name(),
                x[:, :1].reshape(2).grad_fn.name(), x.unsqueeze(0).reshape(2, 3).grad_fn.name())
    ours, theirs = both(torch, run)
    assert ours == theirs


def test_inplace_on_a_leaf_view_that_requires_grad_is_refused(torch):
    for lib in (pt, torch):
        x = lib.arange(12.).reshape(3, 4)[:, ::2].requires_grad_()
        for write in (lambda: x.diagonal().add_(2.0), lambda: x.__setitem__((None, slice(None)), 3.0)):
            with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
                write()


SCALAR_CHECKS = {
    "full_neg_float": lambda lib, u: lib.full((2,), -0.75, dtype=lib.uint8),
    "fill_above": lambda lib, u: u.fill_(255.5), "fill_255": lambda lib, u: u.fill_(255.0),
    "fill_300": lambda lib, u: u.fill_(300), "fill_neg_int_wraps": lambda lib, u: u.fill_(-1),
    "setitem_slice_neg": lambda lib, u: (u.__setitem__(slice(None), -1), u)[1],
    "setitem_index_300": lambda lib, u: u.__setitem__(lib.tensor([0]), 300),
    "masked_fill_neg_float": lambda lib, u: u.masked_fill(u == 0, -1.5),
    "tensor_neg_wraps": lambda lib, u: lib.tensor([-1], dtype=lib.uint8),
    "tensor_too_neg": lambda lib, u: lib.tensor([-256], dtype=lib.uint8),
    "clamp_neg_wraps": lambda lib, u: lib.clamp(u, -5), "clamp_float": lambda lib, u: u.clamp(-0.5, 5),
    "clamp_300": lambda lib, u: u.clamp(0, 300), "chunk_0d": lambda lib, u: lib.tensor(1).chunk(1),
    "unfold_0d_dim": lambda lib, u: lib.tensor(6).unfold(-2, 1, 1),
}


@pytest.mark.parametrize("name", list(SCALAR_CHECKS))
def test_scalar_conversions_checked_as_pytorch(torch, name):
    outcome = []
    for lib in (pt, torch):
        try:
            r = SCALAR_CHECKS[name](lib, lib.zeros(2, dtype=lib.uint8))
            outcome.append(("ok", r.tolist() if hasattr(r, "tolist") else r))
        except Exception as e:  # noqa: BLE001 - the class and the words are what is compared
            outcome.append((type(e).__name__, str(e)))
    assert outcome[0] == outcome[1]


def test_missing_sizes_bool_alpha_and_copysign_of_bool(torch):
    for lib in (pt, torch):
        x = lib.ones(2, 3)
        with pytest.raises(TypeError, match="expand"):
            x.expand()
        with pytest.raises(TypeError, match="view"):
            x.view()
    def run(lib):
        s = lib.tensor([-1., 2.], requires_grad=True)
        y = lib.copysign(lib.tensor([True, False]), s)
        y.sum().backward()
        return lib.add(lib.tensor([True, False]), lib.tensor([True, True]), alpha=2), y, s.grad
    for a, b in zip(*both(torch, run)):
        assert_close(a, b)
