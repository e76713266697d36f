"""Helpers shared by the distributions (``torch.distributions.utils``).

* ``broadcast_all``: parameters given as numbers or tensors become tensors of one common shape;
* ``logits_to_probs`` / ``probs_to_logits`` / ``clamp_probs``: switching between the two ways of
  giving a Bernoulli or Categorical;
* ``lazy_property``: an attribute computed on first use and then stored (``probs`` from ``logits``);
* ``_standard_normal``, ``_sum_rightmost``: small building blocks of ``rsample`` and ``log_prob``.
"""
import numbers

from .._dtype import finfo, get_default_dtype
from .._tensor import Size, Tensor
from ..autograd import Function
from ..autograd.grad_mode import enable_grad
from ..nn.functional import softmax
from ..ops.creation import arange, empty, tensor
from ..ops.elementwise import log, log1p, sigmoid, where, xlogy
from ..ops.shape import broadcast_tensors

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant


def _class_repr(cls):
    """``<class 'torch.distributions.normal.Normal'>``: how PyTorch's messages name a distribution class.
    Ours live in ``pedatorch.distributions``; a message names them as PyTorch does, so that a program prints
    the same under both (a user's own subclass keeps its module)."""
    module = cls.__module__
    if module == "pedatorch" or module.startswith("pedatorch."):
        module = "torch" + module[len("pedatorch"):]
    return f"<class '{module}.{cls.__qualname__}'>"


def _is_number(x):
    """A Python (or numpy) number, but not a Tensor."""
    return isinstance(x, numbers.Number) and not isinstance(x, Tensor)


def broadcast_all(*values):
    """Tensors broadcast to one shape; numbers become tensors of the first tensor's dtype.

    ``broadcast_all(0., torch.ones(3))`` -> ``(tensor([0., 0., 0.]), tensor([1., 1., 1.]))``.
    When every value is a number the result is 0-dim tensors of the default dtype.
    """
    if not all(isinstance(v, Tensor) or _is_number(v) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        first = next((v for v in values if isinstance(v, Tensor)), None)
        options = (dict(dtype=first.dtype, device=first.device) if first is not None
                   else dict(dtype=get_default_dtype()))
        values = [v if isinstance(v, Tensor) else tensor(v, **options) for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """A tensor of N(0, 1) draws from the default generator (``empty(shape).normal_()``, as PyTorch)."""
    return empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions: shape (2, 3, 4) with dim=2 -> shape (2,)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


class _XLogY(Function):
    """x log(y) (0 where x == 0), with PyTorch's gradients: d/dx = log(y) (0 only where x == 0 and y <= 0),
    d/dy = x / y.

    A stand-in for ``torch.xlogy``, whose backward in pedatorch gives d/dx = 0 wherever x == 0; that
    matters here because x = alpha - 1 is exactly 0 for the common alpha = 1.
    """
    node_name = "XlogyBackward0"

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return xlogy(x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        grad_x = grad * where((x == 0) & (y <= 0), 0.0, y.log())
        grad_y = grad * x / y
        return grad_x, grad_y


def _xlogy(x, y):
    return _XLogY.apply(x, y)


def logits_to_probs(logits, is_binary=False):
    """Binary: p = sigmoid(logit).  Categorical: p = softmax(logits) over the last dim."""
    if is_binary:
        return sigmoid(logits)
    return softmax(logits, dim=-1)


def expand_probs_logits(dist, new, param_shape):
    """``expand`` of a distribution given by probs or logits: whichever of the two ``dist`` holds (one or
    both: the other is a lazy property) is expanded to ``param_shape`` in ``new``; ``new._param`` is the last."""
    if "probs" in dist.__dict__:
        new.probs = dist.probs.expand(param_shape)
        new._param = new.probs
    if "logits" in dist.__dict__:
        new.logits = dist.logits.expand(param_shape)
        new._param = new.logits


def set_count_and_probs_or_logits(dist, total_count, probs, logits):
    """``__init__`` of a distribution given by a number of trials and probs or logits (Binomial,
    NegativeBinomial): exactly one of the two, broadcast with ``total_count``, which takes its dtype;
    ``dist._param`` is the one given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        dist.total_count, dist.probs = broadcast_all(total_count, probs)
        dist._param = dist.probs
    else:
        dist.total_count, dist.logits = broadcast_all(total_count, logits)
        dist._param = dist.logits
    dist.total_count = dist.total_count.type_as(dist._param)


def clamp_probs(probs):
    """Clamp into [eps, 1 - eps] (eps of the dtype), so that log(p) and log(1 - p) stay finite."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Binary: logit = log p - log(1 - p).  Categorical: logits = log p (unnormalised is fine)."""
    p = clamp_probs(probs)
    if is_binary:
        return log(p) - log1p(-p)
    return log(p)


class lazy_property:
    """A method that runs once, on first access, and whose result then replaces it on the instance.

    ``Categorical(logits=...)`` stores ``logits``; ``probs`` is computed (and kept) only if asked for.
    The computation runs with grad enabled, so the stored value stays differentiable even when first
    read inside ``no_grad`` (``sample`` reads ``probs`` there).
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)   # an instance attribute now shadows us
        return value


def _tril_mask(n, diag, device):
    idx = arange(n, device=device)
    return idx < idx.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries of (a batch of) ``n x n`` matrices, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: a vector of length n(n+1)/2 -> an ``n x n`` lower-triangular matrix."""
    # n solves n^2 + (1 + 2 diag) n - |diag| (diag + 1) - 2 len = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
