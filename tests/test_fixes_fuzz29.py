"""Fixes of fuzz round 29, each compared with PyTorch."""
import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")


def _broadcast_transposed(lib, dtype):
    # strides (1, 1, 0): a broadcast dim and a size-1 dim, so the layout rules matter
    x = lib.tensor(np.array([[[0.4]], [[-np.inf]], [[np.nan]], [[-0.05]]]), dtype=getattr(lib, dtype))
    return lib.movedim(x.expand(4, 1, 3), 0, 1)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "bool"])
@pytest.mark.parametrize("op", ["isinf", "isfinite", "isnan", "isposinf", "isneginf", "signbit", "logical_not"])
def test_bool_tests_are_laid_out_without_a_cast_to_bool(op, dtype):
    # a float -> bool test computes in the input's dtype: no operand is replaced by a bool copy
    # laid out as empty_like (isfinite is PyTorch's composite (x == x) * (x.abs() != inf))
    if dtype == "bool" and op in ("isposinf", "isneginf", "signbit"):
        pytest.skip("no bool kernel")
    p, t = (getattr(lib, op)(_broadcast_transposed(lib, dtype)) for lib in (pt, torch))
    assert p.stride() == t.stride()
    assert p.mT.stride() == t.mT.stride()
    assert p.tolist() == t.tolist()


@pytest.mark.parametrize("shape, dim", [((2, 2), 0), ((3, 4), 0), ((3, 4, 5), 1)])
@pytest.mark.parametrize("transposed", [False, True])
def test_topk_results_are_contiguous(shape, dim, transposed):
    # ties are replayed row by row; ATen allocates both results contiguous whatever the input's layout
    a = np.ones(shape) if dim == 0 else np.arange(np.prod(shape)).reshape(shape) % 3

    def run(lib):
        x = lib.tensor(a, dtype=lib.float16).requires_grad_()
        x_in = x.mT if transposed else x
        r = lib.topk(x_in, 2, dim)
        return r.values.stride(), r.indices.stride(), type(r.values.contiguous().grad_fn).__name__
    assert run(pt) == run(torch)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_nll_loss_1d_input_1d_target_fails_in_backward(loss, reduction):
    # the forward takes a 1-D input's batch size as 1, the backward as its size: the loss computes, then
    # its backward raises
    def run(lib):
        x = lib.tensor([0.5, -0.5], dtype=lib.float16).requires_grad_()
        y = getattr(lib.nn.functional, loss)(x, lib.tensor([1]), reduction=reduction)
        with pytest.raises(RuntimeError) as e:
            lib.autograd.grad(y, [x])
        return y.item(), y.shape, str(e.value)
    assert run(pt) == run(torch)


def test_nll_loss_1d_target_of_size_1_still_works():
    for lib in (pt, torch):
        x = lib.tensor([[0.5, -0.5]], dtype=lib.float64, requires_grad=True)
        lib.nn.functional.nll_loss(x, lib.tensor([1])).backward()
    assert pt.autograd.gradcheck(lambda x: pt.nn.functional.nll_loss(x, pt.tensor([1])),
                                 (pt.tensor([[0.5, -0.5]], dtype=pt.float64, requires_grad=True),))


@pytest.mark.parametrize("xshape, eshape", [((), ()), ((), (1,)), ((1,), (1,)), ((2,), ()), ((), (2,))])
@pytest.mark.parametrize("xdt, edt", [("float64", "bfloat16"), ("float16", "bfloat16"), ("bfloat16", "float16"),
                                      ("float32", "bfloat16"), ("float16", "float64"), ("int64", "bfloat16"),
                                      ("float64", "int64")])
def test_ldexp_power_is_promoted_with_a_0dim_two(xshape, eshape, xdt, edt):
    # for x not float32 ATen's power is full((), 2.0, x.dtype).pow(e): a 0-dim e joins x's dtype
    if (xdt, edt, xshape, eshape) == ("bfloat16", "float16", (2,), ()):
        pytest.xfail("still open: a float32 power (bfloat16 2.0 ** 0-dim float16) is rounded to bfloat16 before the mul")
    def run(lib):
        x = lib.full(xshape, -1.5, dtype=getattr(lib, xdt))
        e = lib.full(eshape, 1.203125, dtype=getattr(lib, edt))
        r = lib.ldexp(x, e)
        return r.double().reshape(-1).tolist(), r.dtype.__repr__().split(".")[-1], r.shape
    assert run(pt) == run(torch)


def test_batch_norm_double_backward_reads_the_saved_statistics_of_a_constant_batch():
    # fuzz seed 9701133: a constant channel's x_hat is exactly 0 in PyTorch's saved statistics; recomputing
    # the mean in float32 for the create_graph backward left a residue that 1/y magnified to -3e10
    def run(lib):
        x = lib.full((3, 3), -1.5).sigmoid()
        w = lib.tensor([0.5, 1.0, 0.0], requires_grad=True)
        y = lib.nn.functional.batch_norm(x, lib.zeros(3), lib.ones(3), w, lib.tensor([0.0, 0.0, 0.5]), training=True)
        loss = (y * lib.tensor([[1.1, -0.6, 0.2]])).sum() + (0.27 / y[:, 2]).sum()
        g, = lib.autograd.grad(loss, w, create_graph=True)
        return g.detach().tolist()
    assert run(pt) == run(torch)
    x = pt.randn(4, 3, dtype=pt.float64, requires_grad=True)
    w = pt.randn(3, dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradgradcheck(lambda x, w: pt.nn.functional.batch_norm(x, None, None, w, None, True), (x, w))
