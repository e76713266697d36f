"""Dropout: ``dropout``, ``alpha_dropout``, ``feature_alpha_dropout``, ``dropout1d/2d/3d``.

Composed exactly as PyTorch's CPU kernel (``ATen/native/Dropout.cpp``) so the same ``manual_seed`` gives
the same mask, and the graph has the same nodes (``MulBackward0``, plus ``AddBackward0`` for alpha dropout):

    noise = empty_like(input).bernoulli_(1 - p)      # feature dropout: one draw per (N, C) channel
    noise.div_(1 - p)                                 # alpha dropout: an affine map of the noise instead
    out = input * noise

The noise tensor has the input's memory layout (``empty_like`` keeps strides), and ``bernoulli_`` fills it in
memory order, as PyTorch does.
"""
import math
import warnings

from ..._warnings import user_stacklevel
from ...ops.creation import empty, zeros

__all__ = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]

_ALPHA = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _empty_like_layout(input):
    """``empty_like(input)``: an uninitialised tensor with the input's strides (its memory order)."""
    shape, strides = input.shape, input.stride()
    n = len(shape)
    if n < 2 or input.is_contiguous():
        return empty(shape, dtype=input.dtype, device=input.device)
    order = sorted(range(n), key=lambda d: (-strides[d], d))   # outermost memory dim first
    t = empty([shape[d] for d in order], dtype=input.dtype, device=input.device)
    inverse = [0] * n
    for i, d in enumerate(order):
        inverse[d] = i
    return t.permute(inverse)


def _feature_noise(input):
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    sizes = [input.shape[0], input.shape[1]] + [1] * (input.dim() - 2)
    return empty(sizes, dtype=input.dtype, device=input.device)


def _multiply(input, other, inplace):
    return input.mul_(other) if inplace else input * other


def _dropout_impl(input, p, train, inplace, feature=False, alpha=False):
    if p < 0 or p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return _multiply(input, zeros((), dtype=input.dtype, device=input.device), inplace)
    noise = _feature_noise(input) if feature else _empty_like_layout(input)
    noise.bernoulli_(1 - p)
    if alpha:
        a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
        noise.mul_(a)
        return _multiply(input, noise, inplace).add_(b)
    noise.div_(1 - p)
    return _multiply(input, noise, inplace)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p (a Bernoulli(1 - p) mask) and scale the rest by 1 / (1 - p)."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalisation: dropped values go to -alpha', then an affine correction."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (one draw per (N, C))."""
    _check_p(p)
    return _dropout_impl(input, p, training, inplace, feature=True, alpha=True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {inp_dim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    is_batched = inp_dim == 3
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, feature=True)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs (3-D inputs are treated as (N, C, L), as PyTorch does)."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=user_stacklevel())
    if inp_dim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=user_stacklevel())
    return _dropout_impl(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    inp_dim = input.dim()
    if inp_dim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {inp_dim}-D input to dropout3d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D "
                      "inputs).", stacklevel=user_stacklevel())
    is_batched = inp_dim == 5
    if not is_batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _dropout_impl(input, p, training, inplace, feature=True)
    if not is_batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result
