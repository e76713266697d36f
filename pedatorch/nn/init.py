"""``nn.init``: fill a tensor in place with the values an initialisation scheme prescribes.

Every initialiser runs under ``no_grad`` and draws its random numbers through the Tensor methods
``uniform_`` / ``normal_`` (and ``randperm`` for ``sparse_``), in PyTorch's order, so that after the
same ``manual_seed`` the numbers are PyTorch's.

The scale of the common schemes comes from the tensor's *fans* (``_calculate_fan_in_and_fan_out``):
for a weight of shape ``(out, in, *kernel)``, ``fan_in = in * prod(kernel)`` and
``fan_out = out * prod(kernel)``.

- Xavier/Glorot: ``std = gain * sqrt(2 / (fan_in + fan_out))``
- Kaiming/He:    ``std = gain / sqrt(fan)`` with ``gain = calculate_gain(nonlinearity, a)``
- A uniform ``U(-bound, bound)`` with standard deviation ``std`` has ``bound = sqrt(3) * std``.
"""
import math
import warnings

from .._warnings import user_stacklevel
from .. import linalg
from ..autograd.grad_mode import no_grad
from ..ops import creation   # creation.eye: this module's own ``eye`` is the deprecated alias of eye_
from ..ops.creation import arange, empty_like
from ..ops.elementwise import where
from ..ops.manip import diag
from ..ops.random import randperm

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    # Deprecated aliases (for backward compatibility)
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]


def _no_grad_uniform_(tensor, a, b, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def _no_grad_normal_(tensor, mean, std, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=None):
    """PyTorch 2.13's sampler: rejection sampling, in two flavours.

    p = P(a <= X <= b) for X ~ N(mean, std^2).
    - p > 0.3: draw normals, redraw (a whole fresh tensor, used where rejected) until all lie in [a, b].
    - otherwise: propose x ~ U(a, b) and accept with probability pdf(x) / pdf(mode), where the mode is
      the point of [a, b] nearest to the mean: accept when log(u) <= log_pdf(x) - log_pdf(mode).
    """
    if tensor.is_meta:
        return tensor

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=user_stacklevel(),
        )

    with no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)

        if p > 0.3:
            # the bounds in the tensor's dtype, so the rejection test matches its representable values
            lo = tensor.new_tensor(a, device="cpu").item()
            hi = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = where(mask, empty_like(result).normal_(mean, std, generator=generator), result)
            if tensor is not result:
                tensor.copy_(result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2

            candidates = empty_like(tensor)
            accept_buf = empty_like(tensor)

            tensor.uniform_(a, b, generator=generator)
            candidates.copy_(tensor)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
            if pending.any():
                result = tensor
                while True:
                    candidates.uniform_(a, b, generator=generator)
                    result = where(pending, candidates, result)
                    candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                    pending = where(pending, accept_buf.uniform_(generator=generator).log_().gt(candidates),
                                    pending)
                    if not pending.any():
                        break
                tensor.copy_(result)

        return tensor


def _no_grad_fill_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with no_grad():
        return tensor.zero_()


def calculate_gain(nonlinearity, param=None):
    r"""Return the recommended gain value for the given nonlinearity function.

    linear / conv / sigmoid: 1;  tanh: 5/3;  relu: sqrt(2);
    leaky_relu: sqrt(2 / (1 + negative_slope^2)) (negative_slope = param, default 0.01);  selu: 3/4.
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            # True/False are instances of int, hence the check
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == "selu":
        return 3.0 / 4  # found empirically (https://github.com/pytorch/pytorch/pull/50664)
    else:
        raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    r"""Fill the input Tensor with values drawn from the uniform distribution :math:`\mathcal{U}(a, b)`."""
    return _no_grad_uniform_(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    r"""Fill the input Tensor with values drawn from :math:`\mathcal{N}(\text{mean}, \text{std}^2)`."""
    return _no_grad_normal_(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    r"""Fill the input Tensor with values drawn from a normal distribution truncated to ``[a, b]``."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b, generator=generator)


def constant_(tensor, val):
    r"""Fill the input Tensor with the value ``val``."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    r"""Fill the input Tensor with the scalar value `1`."""
    return _no_grad_fill_(tensor, 1.0)


def zeros_(tensor):
    r"""Fill the input Tensor with the scalar value `0`."""
    return _no_grad_zero_(tensor)


def eye_(tensor):
    r"""Fill the 2-dimensional input `Tensor` with the identity matrix."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        creation.eye(*tensor.shape, out=tensor, device=tensor.device, requires_grad=tensor.requires_grad)
    return tensor


def dirac_(tensor, groups=1):
    r"""Fill the {3, 4, 5}-dimensional input `Tensor` with the Dirac delta function.

    ``tensor[g * out_per_group + d, d, centre...] = 1`` for every group ``g`` and
    ``d < min(out_per_group, in_channels)``; everything else 0.
    """
    dimensions = tensor.ndimension()
    if dimensions not in [3, 4, 5]:
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")

    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    if tensor.is_meta:
        return tensor

    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])

    with no_grad():
        tensor.zero_()
        d = arange(min_dim)
        out_idx = (arange(groups).unsqueeze(1) * out_chans_per_grp + d).reshape(-1)
        in_idx = d.repeat(groups)
        centre = tuple(s // 2 for s in sizes[2:])
        tensor[(out_idx, in_idx) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")

    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    fan_in = num_input_fmaps * receptive_field_size
    fan_out = num_output_fmaps * receptive_field_size
    return fan_in, fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    r"""Fill with :math:`\mathcal{U}(-a, a)`, :math:`a = \text{gain}\sqrt{6 / (\text{fan\_in} + \text{fan\_out})}`."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # uniform bounds from the standard deviation
    return _no_grad_uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    r"""Fill with :math:`\mathcal{N}(0, \text{std}^2)`, :math:`\text{std} = \text{gain}\sqrt{2 / (\text{fan\_in} + \text{fan\_out})}`."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    r"""Fill with :math:`\mathcal{U}(-\text{bound}, \text{bound})`, :math:`\text{bound} = \text{gain}\sqrt{3 / \text{fan\_mode}}`."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=user_stacklevel())
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    with no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    r"""Fill with :math:`\mathcal{N}(0, \text{std}^2)`, :math:`\text{std} = \text{gain} / \sqrt{\text{fan\_mode}}`."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=user_stacklevel())
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    r"""Fill the input `Tensor` with a (semi) orthogonal matrix (trailing dims flattened).

    Q of the QR factorisation of a standard normal ``rows x cols`` matrix (transposed when wide),
    with each column's sign flipped so that diag(R) > 0 (this makes Q Haar-distributed), times ``gain``.
    """
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0 or tensor.is_meta:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)

    if rows < cols:
        flattened.t_()

    q, r = linalg.qr(flattened)
    d = diag(r, 0)
    ph = d.sign()
    q *= ph

    if rows < cols:
        q.t_()

    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    r"""Fill the 2D input `Tensor` as a sparse matrix: N(0, std^2) values, then in every column
    ``ceil(sparsity * rows)`` randomly chosen entries (one ``randperm`` per column) set to zero."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if tensor.is_meta:
        return tensor
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)

    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):  # one permutation per column, drawn in order (the RNG stream)
            row_indices = randperm(rows, device=tensor.device)   # drawn where the tensor lives
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=user_stacklevel())
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = rf"""
    {old_name}(...)

    .. warning::
        This method is now deprecated in favor of :func:`torch.nn.init.{new_name}`.

    See :func:`~torch.nn.init.{new_name}` for details."""
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
