"""Fixes found by tests/compat/63_vit_tiny.py, 64_nerf_tiny.py and 65_distillation_pruning_quantlike.py,
each compared with PyTorch: torch.fake_quantize_per_tensor_affine / _per_channel_affine were missing."""
import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")


def _both(fn):
    """``fn(lib)`` in both libraries: (value or exception type and message) pairs."""
    out = []
    for lib in (torch, pt):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001  (the error itself is compared)
            out.append((type(e).__name__, str(e).split("\n")[0]))
    return out


def _close(a, b):
    if isinstance(a, tuple):
        assert a == b
    else:
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(a.detach().double().numpy(), b.detach().double().numpy())


VALUES = [-1.0, -0.26, 0.25, 0.35, 0.75, 2.0, 0.05, 0.15, -0.15, 1e9, float("nan"), float("inf")]


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_fake_quantize_per_tensor_values_and_grad(dt):
    """nearbyint (half to even) of x * (1/scale in float32), the clamp, the STE mask as a product."""
    def run(lib):
        x = lib.tensor(VALUES, dtype=getattr(lib, dt), requires_grad=True)
        y = lib.fake_quantize_per_tensor_affine(x, 0.1, 1, -100, 100)
        y.backward(lib.tensor([1.0] * 9 + [float("inf")] * 3, dtype=y.dtype))
        return y, x.grad, y.grad_fn.name()
    (yt, gt, nt), (yp, gp, np_) = _both(run)
    _close(yt, yp)
    _close(gt, gp)
    assert nt == np_


def test_fake_quantize_per_tensor_tensor_qparams():
    """Tensor scale / zero_point: read as numbers (2.7 is 2), no range check on the zero point."""
    for zp in (3, 20, 2.7):
        a, b = _both(lambda lib: lib.fake_quantize_per_tensor_affine(
            lib.tensor(VALUES[:9], requires_grad=True), lib.tensor(0.1), lib.tensor(zp), 0, 15))
        _close(a, b)
        assert a.grad_fn.name() == b.grad_fn.name() == "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"


@pytest.mark.parametrize("args", [(0.1, 0, 7, -8), (0.1, 20, -8, 7), ("t", "t2", 0, 15), (0.1, 2.5, 0, 15)])
def test_fake_quantize_per_tensor_errors(args):
    def run(lib):
        conv = {"t": lib.tensor(0.1), "t2": lib.tensor([1, 2])}
        return lib.fake_quantize_per_tensor_affine(lib.ones(3), *(conv.get(a, a) if isinstance(a, str) else a
                                                                   for a in args))
    a, b = _both(run)
    assert a == b


def test_fake_quantize_per_tensor_needs_a_float_input():
    a, b = _both(lambda lib: lib.fake_quantize_per_tensor_affine(lib.arange(3), 0.1, 0, -8, 7))
    assert a == b


@pytest.mark.parametrize("zp_dtype", ["int32", "float32", "float16"])
@pytest.mark.parametrize("axis", [0, 1])
def test_fake_quantize_per_channel(zp_dtype, axis):
    """int zero point added after rounding, a float one before it; a slice per index along axis."""
    def run(lib):
        lib.manual_seed(0)
        w = (lib.randn(3, 4) * 2).requires_grad_()
        n = w.shape[axis]
        scale = lib.tensor([0.1, 0.2, 0.05, 0.3][:n])
        zp = lib.tensor([0.5, 1.25, -2.5, 3.0][:n]) if zp_dtype != "int32" else lib.tensor([0, 1, -2, 3][:n])
        y = lib.fake_quantize_per_channel_affine(w, scale, zp.to(getattr(lib, zp_dtype)), axis, -8, 7)
        y.sum().backward()
        return y, w.grad
    (yt, gt), (yp, gp) = _both(run)
    _close(yt, yp)
    _close(gt, gp)


@pytest.mark.parametrize("case", ["scale64", "zp64", "scale2d", "numel", "axis", "axisneg", "zprange", "long"])
def test_fake_quantize_per_channel_errors(case):
    def run(lib):
        w, s, z = lib.ones(3, 4), lib.tensor([0.1, 0.2, 0.3]), lib.tensor([0, 1, 2], dtype=lib.int32)
        axis, x = 0, w
        if case == "scale64":
            s = s.double()
        elif case == "zp64":
            z = z.long()
        elif case == "scale2d":
            s = s[:, None]
        elif case == "numel":
            z = z[:2]
        elif case == "axis":
            axis = 2
        elif case == "axisneg":
            axis, x = -1, lib.ones(4, 3)
        elif case == "zprange":
            z = lib.tensor([0, 1, 9], dtype=lib.int32)
        elif case == "long":
            x = x.long()
        return lib.fake_quantize_per_channel_affine(x, s, z, axis, -8, 7)
    a, b = _both(run)
    assert a == b
