"""Fixes of fuzz round 26, each compared with PyTorch."""
import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")


def _values(t):
    return t.detach().double().numpy().tolist()


@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_mean_with_half_dtype_sums_in_float32_first(src, dtype, dim):
    # ATen's CPU mean with a float16/bfloat16 dtype= sums in float32 and divides before it rounds: the input
    # is not rounded to the half dtype first (fuzz r26, seed 9427482: 1/mean was -409.5 for -429.75)
    rng = np.random.default_rng(0)
    a = np.concatenate([[[-0.9999778866767883, 0.9953222870826721]], rng.standard_normal((3, 2)) * 7])

    def run(lib):
        x = lib.tensor(a).to(getattr(lib, src))
        kw = {} if dim is None else {"dim": dim}
        return _values(lib.mean(x, dtype=getattr(lib, dtype), **kw)), _values(x.mean(dtype=getattr(lib, dtype)))
    np.testing.assert_equal(run(pt), run(torch))


def test_mean_with_half_dtype_gradient():
    def run(lib):
        x = lib.tensor([[0.3, -1.7, 2.5], [1e-3, 4.0, 7.0]], requires_grad=True)
        y = lib.mean(x, 1, dtype=lib.float16)
        (y.sum() + x.mean(dtype=lib.bfloat16)).backward()
        return str(y.dtype), type(y.grad_fn).__name__, _values(y), _values(x.grad)
    np.testing.assert_equal(run(pt), run(torch))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
@pytest.mark.parametrize("dims", [(2, 0), (0, 1, 2), (1,), (0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_half_nansum_rounds_partial_sums(dtype, layout, dims, keepdim):
    # ATen's nansum has no float32 buffer (sum has one): it adds the float32 sums of the fastest reduced run,
    # each rounded, into the half result (fuzz r26, seed 9408165: nansum 0.0234 for sum's 0.0244, then log10)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 7, 6)) * 3
    a[rng.random(a.shape) < 0.1] = np.nan

    def run(lib):
        x = lib.tensor(a).to(getattr(lib, dtype))
        x = {"contiguous": x, "permuted": x.permute(2, 0, 1).contiguous().permute(1, 2, 0),
             "sliced": x[:, ::2], "expanded": x[:, :1].expand(5, 4, 6)}[layout]
        return _values(lib.nansum(x, dims, keepdim)), _values(lib.nanmean(x, dims, keepdim))
    np.testing.assert_equal(run(pt), run(torch))


def test_half_nansum_repro():
    x = [[[1.9296875, -0.2734375], [-1.15625, 1.1875]], [[0.484375, -0.341796875], [-0.6796875, 0.2158203125]],
         [[1.1015625, 1.5390625], [1.4453125, -0.98828125]]]

    def run(lib):
        y = lib.nansum(lib.tensor(x, dtype=lib.bfloat16), dim=(2, 0))
        return _values(y), _values(lib.cos(y.log10()))
    np.testing.assert_equal(run(pt), run(torch))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("to", ["bfloat16", "float16"])
def test_nansum_with_half_dtype_casts_first(dtype, to):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 5, 6)) * 50

    def run(lib):
        x = lib.tensor(a).to(getattr(lib, dtype)).transpose(0, 2)
        return _values(lib.nansum(x, (0, 2), dtype=getattr(lib, to)))
    np.testing.assert_equal(run(pt), run(torch))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("op", ["mul", "div"])
@pytest.mark.parametrize("case", ["half*int", "int*half", "int0*half", "half*int0", "half*int1", "f32_0*half",
                                  "half*f64_0", "half*number"])
def test_half_mul_div_round_a_tensor_operand_to_the_result_dtype(dtype, op, case):
    # TensorIterator casts the operands to the common dtype (an int64 2049 is 2048 in float16); only a
    # one-element second operand is read unrounded by ATen's kernel (fuzz r26, seed 9407009: 0 * -2**31 in
    # float16 is 0 * -inf = NaN)
    rng = np.random.default_rng(3)
    a = rng.standard_normal(64) * 100
    n = rng.integers(1, 5000, 64)

    def run(lib):
        h = lib.tensor(a).to(getattr(lib, dtype))
        i = lib.tensor(n)
        args = {"half*int": (h, i), "int*half": (i, h), "int0*half": (i[7], h), "half*int0": (h, i[7]),
                "half*int1": (h, i[7:8]), "f32_0*half": (lib.tensor(a[3], dtype=lib.float32), h),
                "half*f64_0": (h, lib.tensor(a[3])), "half*number": (h, float(a[3]))}[case]
        r = getattr(lib, op)(*args)
        return str(r.dtype), _values(r)
    np.testing.assert_equal(run(pt), run(torch))


def test_atan2_int_operand_gradient_in_float16():
    # atan2's gradient multiplies by the int64 operand: rounded to float16 (inf), so a 0 gradient gives NaN
    def run(lib):
        x0 = lib.tensor([1.0], dtype=lib.float16, requires_grad=True)
        y = lib.atan2(lib.tensor([2147483644, 2147483646]), x0)
        y[:, None] = lib.tensor([[6.5078125]], dtype=lib.float64)
        g, = lib.autograd.grad((y * lib.tensor([-2.22, -0.49], dtype=lib.float16)).sum(), [x0], create_graph=True)
        return _values(g)
    r = run(pt)
    assert np.isnan(r).all() and np.isnan(run(torch)).all()
