"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``, ``clip_grads_with_norm_``.

The total norm of a list of gradients is the norm of their norms (as if all gradients were one vector):

    total = vector_norm(stack([vector_norm(g, p) for g in grads]), p)

``clip_grad_norm_`` then multiplies every gradient, in place, by
``min(max_norm / (total + 1e-6), 1.0)``: gradients are only ever scaled down.
"""
import functools
import types
import warnings

from ..._warnings import user_stacklevel
from ... import linalg
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.creation import tensor
from ...ops.elementwise import clamp, logical_or
from ...ops.join import stack

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_"]


def _no_grad(func):
    """Run ``func`` under ``no_grad`` (a plain wrapper, as PyTorch's, keeping the name and docstring)."""

    def _no_grad_wrapper(*args, **kwargs):
        with no_grad():
            return func(*args, **kwargs)

    functools.update_wrapper(_no_grad_wrapper, func)
    return _no_grad_wrapper


def _group_by_device_and_dtype(tensors):
    """{(device, dtype): [tensors]} in first-seen order (PyTorch's ``_group_tensors_by_device_and_dtype``)."""
    groups = {}
    for t in tensors:
        groups.setdefault((t.device, t.dtype), []).append(t)
    return groups


def _check_foreach(foreach, device):
    # the foreach kernels exist for cpu and cuda (every device pedatorch has); foreach changes no number here
    if foreach and device.type not in ("cpu", "cuda"):
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")


@_no_grad
def _get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""Compute the norm of an iterable of tensors (the norm of their individual norms).

    Args:
        tensors (Iterable[Tensor] or Tensor): the tensors
        norm_type (float): type of the used p-norm. Can be ``'inf'`` for infinity norm.
        error_if_nonfinite (bool): if True, raise when the total norm is ``nan``, ``inf`` or ``-inf``.
        foreach (bool): use the foreach implementation (same numbers here).

    Returns:
        Total norm of the tensors (viewed as a single vector).
    """
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    else:
        tensors = list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    first_device = tensors[0].device

    norms = []
    for (device, _), device_tensors in _group_by_device_and_dtype(tensors).items():
        _check_foreach(foreach, device)
        norms.extend([linalg.vector_norm(g, norm_type) for g in device_tensors])

    total_norm = linalg.vector_norm(stack([norm.to(first_device) for norm in norms]), norm_type)

    if error_if_nonfinite and logical_or(total_norm.isnan(), total_norm.isinf()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`"
        )
    return total_norm


@_no_grad
def _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    r"""Scale the gradients of ``parameters`` in place, given a pre-computed total norm:

    ``grad = grad * min(max_norm / (total_norm + 1e-6), 1)``

    Args:
        parameters (Iterable[Tensor] or Tensor): tensors whose ``.grad`` is scaled
        max_norm (float): max norm of the gradients
        total_norm (Tensor): total norm of the gradients to use for clipping
        foreach (bool): use the foreach implementation (same numbers here).
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    clip_coef = max_norm / (total_norm + 1e-6)
    # multiplying by a coefficient clamped to 1 (rather than testing it) is PyTorch's way: no sync
    clip_coef_clamped = clamp(clip_coef, max=1.0)
    for (device, _), device_grads in _group_by_device_and_dtype(grads).items():
        _check_foreach(foreach, device)
        clip_coef_clamped_device = clip_coef_clamped.to(device)
        for g in device_grads:
            g.mul_(clip_coef_clamped_device)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""Clip the gradient norm of an iterable of parameters (in place).

    The norm is computed over the norms of the individual gradients of all parameters, as if they were
    concatenated into a single vector. Equivalent to :func:`get_total_norm` followed by
    :func:`clip_grads_with_norm_`.

    Args:
        parameters (Iterable[Tensor] or Tensor): tensors that will have gradients normalized
        max_norm (float): max norm of the gradients
        norm_type (float, optional): type of the used p-norm. Can be ``'inf'``. Default: 2.0
        error_if_nonfinite (bool, optional): if True, raise when the total norm is ``nan``, ``inf``
            or ``-inf``. Default: False
        foreach (bool, optional): use the foreach implementation (same numbers here). Default: None

    Returns:
        Total norm of the parameter gradients (viewed as a single vector).
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)  # a generator must not be exhausted twice
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=user_stacklevel())
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = _get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    _clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    r"""Clip the gradient norm of an iterable of parameters.

    .. warning::
        This method is now deprecated in favor of :func:`torch.nn.utils.clip_grad_norm_`.
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=user_stacklevel())
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    r"""Clip the gradients of an iterable of parameters at the specified value (in place), to
    ``[-clip_value, clip_value]``.

    Args:
        parameters (Iterable[Tensor] or Tensor): tensors that will have gradients clipped
        clip_value (float): maximum allowed value of the gradients
        foreach (bool, optional): use the foreach implementation (same numbers here). Default: None
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    for (device, _), device_grads in _group_by_device_and_dtype(grads).items():
        _check_foreach(foreach, device)
        for grad in device_grads:
            grad.clamp_(min=-clip_value, max=clip_value)
