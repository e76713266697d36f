"""Fake quantization: round values to an integer grid and back, in floating point.

    out = (clamp(round(x / scale) + zero_point, quant_min, quant_max) - zero_point) * scale

This is what quantization-aware training inserts into a float model: the values it produces are exactly
the ones an int8 model would see, but they stay float tensors.  The backward pass is the straight-through
estimator: the gradient passes where the quantized value fell inside [quant_min, quant_max], and is zero
where it was clamped.

The arithmetic follows PyTorch's CPU kernels: ``1 / scale`` is taken in float32 and multiplies the input
(float16 / bfloat16 inputs in float32), rounding is half-to-even (``std::nearbyint``), the clamp ignores a
NaN (``std::fmax``), and ``(q - zero_point) * scale`` is a float32 product, cast to the input's dtype (for
a float64 input too).
"""
import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.function import ArrayFunction
from ..backend import namespace
from .._dtype import to_opmath
from ._util import check_kernel_dtype, _type_word

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]


def _fake_quantize(x, scale, zero_point, quant_min, quant_max, zero_point_first):
    """(output, mask): ``scale`` is a float32 number or array, ``zero_point`` an int / int64 array or (per
    channel) a float32 array, both broadcast against ``x``.  An integer zero point is added after rounding,
    a float one before it."""
    xp = namespace(x)
    scaled = to_opmath(x) * (np.float32(1.0) / scale)   # float32 (float64 for a double input)
    q = xp.rint(scaled + zero_point) if zero_point_first else xp.rint(scaled) + zero_point
    mask = (q >= quant_min) & (q <= quant_max)
    clamped = xp.fmin(xp.fmax(q, quant_min), quant_max)
    # (q - zero_point) * scale in float32 for every input dtype, double included, as the kernel computes it
    out = (clamped - zero_point).astype(np.float32) * scale
    return out.astype(x.dtype), mask


class FakeQuantizePerTensor(ArrayFunction):
    """out = fake-quantized x;  dx = grad * (quant_min <= round(x / scale) + zero_point <= quant_max)"""
    node_name = "FakeQuantizePerTensorAffineCachemaskBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max):
        check_kernel_dtype("fake_quantize_tensor_cachemask_kernel_type_handling", x.dtype, "f")
        out, mask = _fake_quantize(x, scale, zero_point, quant_min, quant_max, False)
        ctx.save_for_backward(mask)
        return out

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        # (a product, as PyTorch's backward is: an inf gradient where the value was clamped gives NaN)
        return grad * mask, None, None, None, None


class FakeQuantizePerTensorTensorQparams(FakeQuantizePerTensor):
    """The same with scale and zero_point given as one-element tensors (they get no gradient)."""
    node_name = "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"


class FakeQuantizePerChannel(FakeQuantizePerTensor):
    """One scale and zero point per slice along ``axis``."""
    node_name = "FakeQuantizePerChannelAffineCachemaskBackward0"

    @staticmethod
    def forward(ctx, x, scale, zero_point, quant_min, quant_max):
        check_kernel_dtype("fake_quantize_channel_cachemask_cpu_type_handling", x.dtype, "f")
        out, mask = _fake_quantize(x, scale, zero_point, quant_min, quant_max, zero_point.dtype.kind == "f")
        ctx.save_for_backward(mask)
        return out


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")


def _invalid_arguments(input, scale, zero_point, quant_min, quant_max):
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__
                    for a in (input, scale, zero_point, quant_min, quant_max))
    return TypeError(
        f"fake_quantize_per_tensor_affine() received an invalid combination of arguments - got ({got}), "
        "but expected one of:\n"
        " * (Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max)\n"
        " * (Tensor input, float scale, int zero_point, int quant_min, int quant_max)\n")


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """Fake-quantize ``input`` with one ``scale`` (float, or a float Tensor of one element) and one
    ``zero_point`` (int, or a Tensor of one element)."""
    if isinstance(scale, Tensor) and isinstance(zero_point, Tensor):
        # the tensor overload reads both as numbers (a zero point of 2.7 is 2) and checks no range
        _check_range(quant_min, quant_max)
        return FakeQuantizePerTensorTensorQparams.apply(input, np.float32(scale.item()), int(zero_point.item()),
                                                        quant_min, quant_max)
    if isinstance(scale, Tensor) or isinstance(zero_point, Tensor) or isinstance(zero_point, float) \
            or not isinstance(scale, (int, float)):
        raise _invalid_arguments(input, scale, zero_point, quant_min, quant_max)
    _check_range(quant_min, quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    return FakeQuantizePerTensor.apply(input, np.float32(scale), zero_point, quant_min, quant_max)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """Fake-quantize each slice ``input.select(axis, i)`` with ``scale[i]`` (float32 or bfloat16) and
    ``zero_point[i]`` (int32, float32 or float16: a float zero point is added before rounding)."""
    if scale.dtype not in (D.float32, D.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {_type_word(scale._data.dtype)}")
    if zero_point.dtype not in (D.int32, D.float32, D.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {_type_word(zero_point._data.dtype)}")
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if scale.numel() != input.size(axis):
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    _check_range(quant_min, quant_max)
    if not zero_point.is_floating_point() and zero_point.numel() and \
            not (zero_point.min().item() >= quant_min and zero_point.max().item() <= quant_max):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    if not 0 <= axis <= input.dim():
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    # one value per slice along axis, broadcast over the other dims
    shape = [1] * input.dim()
    shape[axis] = -1
    scale_arr = scale._data.astype(np.float32).reshape(shape)
    zp = zero_point._data
    zp_arr = (zp.astype(np.float32) if zp.dtype.kind == "f" else zp.astype(np.int64)).reshape(shape)
    return FakeQuantizePerChannel.apply(input, scale_arr, zp_arr, quant_min, quant_max)
