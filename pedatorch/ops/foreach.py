"""``torch._foreach_*``: one op applied to every tensor of a list (``_foreach_mul_(params, 0.9)``).

PyTorch runs these as fused multi-tensor kernels (what ``optim``'s ``foreach=True`` and EMA code use for
speed); here each is a loop over the list calling the ordinary op, so values, dtypes and gradients are the
ordinary op's. The second operand may be one number (or 0-dim tensor) for every tensor, a list of tensors,
or a list of numbers (a 1-D tensor of numbers too) -- one per tensor. The in-place forms (``_foreach_add_``)
write into the tensors and return the list itself; the others return a tuple of new tensors.
"""
import numbers

from .._tensor import Tensor
from ..linalg import vector_norm

__all__ = []   # (the functions are named into the torch namespace by FOREACH, below)


def _check_list(tensors):
    if not isinstance(tensors, (list, tuple)) or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"expected a list of Tensors, but got {type(tensors).__name__}")
    if len(tensors) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def _per_tensor(tensors, other):
    """``other`` spread to one operand per tensor: the same number/0-dim tensor for all, or the list's items."""
    if isinstance(other, (list, tuple)):
        if len(other) != len(tensors):
            if other and isinstance(other[0], Tensor):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and "
                                   f"{len(other)}")
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(other)
    if isinstance(other, Tensor) and other.dim() != 0:
        if other.dim() == 1 and other.numel() == len(tensors):   # a 1-D tensor of scalars, one per tensor
            return other.tolist()
        raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.dim()} dimensions and "
                           f"{other.numel()} elements.")
    return [other] * len(tensors)


def _unary(name):
    def out_of_place(self):
        _check_list(self)
        return tuple(getattr(t, name)() for t in self)

    def in_place(self):
        _check_list(self)
        for t in self:
            getattr(t, name + "_")()
        return self
    return out_of_place, in_place


def _binary(name, with_alpha=False):
    def call(t, o, alpha):
        if name in _NO_INPLACE and not isinstance(o, Tensor):   # maximum with a number: a clamp
            return t.clamp_min(o) if name == "maximum" else t.clamp_max(o)
        return getattr(t, name)(o, alpha=alpha) if with_alpha and alpha != 1 else getattr(t, name)(o)

    def out_of_place(self, other, *, alpha=1):
        _check_list(self)
        return tuple(call(t, o, alpha) for t, o in zip(self, _per_tensor(self, other)))

    def in_place(self, other, *, alpha=1):
        _check_list(self)
        for t, o in zip(self, _per_tensor(self, other)):
            if name in _NO_INPLACE:   # (no Tensor.maximum_: the result is copied in)
                t.copy_(call(t, o, alpha))
            elif with_alpha and alpha != 1:
                getattr(t, name + "_")(o, alpha=alpha)
            else:
                getattr(t, name + "_")(o)
        return self
    return out_of_place, in_place


_NO_INPLACE = {"maximum", "minimum"}


def _pointwise(name):
    """addcmul / addcdiv: self + value * t1 (op) t2, ``value`` one number or one per tensor."""
    def out_of_place(self, tensor1, tensor2, value=1, scalars=None):
        _check_list(self)
        values = _per_tensor(self, value if scalars is None else scalars)
        return tuple(getattr(t, name)(a, b, value=v) for t, a, b, v in zip(self, tensor1, tensor2, values))

    def in_place(self, tensor1, tensor2, value=1, scalars=None):
        _check_list(self)
        values = _per_tensor(self, value if scalars is None else scalars)
        for t, a, b, v in zip(self, tensor1, tensor2, values):
            getattr(t, name + "_")(a, b, value=v)
        return self
    return out_of_place, in_place


def _foreach_lerp(self, tensors1, weight):
    _check_list(self)
    return tuple(t.lerp(e, w) for t, e, w in zip(self, _per_tensor(self, tensors1), _per_tensor(self, weight)))


def _foreach_lerp_(self, tensors1, weight):
    _check_list(self)
    for t, e, w in zip(self, _per_tensor(self, tensors1), _per_tensor(self, weight)):
        t.lerp_(e, w)
    return self


def _foreach_pow(self, exponent):
    if isinstance(self, numbers.Number):   # a number to the power of each tensor
        _check_list(exponent)
        return tuple(self ** t for t in exponent)
    _check_list(self)
    return tuple(t.pow(e) for t, e in zip(self, _per_tensor(self, exponent)))


def _foreach_pow_(self, exponent):
    _check_list(self)
    for t, e in zip(self, _per_tensor(self, exponent)):
        t.pow_(e)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    _check_list(self)
    return tuple(vector_norm(t, ord, dtype=dtype) for t in self)


def _foreach_max(self):
    _check_list(self)
    return tuple(t.max() for t in self)


def _foreach_copy_(self, src, non_blocking=False):
    _check_list(self)
    for t, s in zip(self, _per_tensor(self, src)):
        t.copy_(s)
    return self


def _foreach_clone(self):
    _check_list(self)
    return tuple(t.clone() for t in self)


def _foreach_zero_(self):
    _check_list(self)
    for t in self:
        t.zero_()
    return self


FOREACH = {"_foreach_lerp": _foreach_lerp, "_foreach_lerp_": _foreach_lerp_, "_foreach_pow": _foreach_pow,
           "_foreach_pow_": _foreach_pow_, "_foreach_norm": _foreach_norm, "_foreach_max": _foreach_max,
           "_foreach_copy_": _foreach_copy_, "_foreach_clone": _foreach_clone, "_foreach_zero_": _foreach_zero_}
for _name in ("abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p log2 neg "
              "reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc").split():
    FOREACH["_foreach_" + _name], FOREACH["_foreach_" + _name + "_"] = _unary(_name)
for _name, _alpha in (("add", True), ("sub", True), ("mul", False), ("div", False), ("clamp_min", False),
                      ("clamp_max", False), ("maximum", False), ("minimum", False)):
    FOREACH["_foreach_" + _name], FOREACH["_foreach_" + _name + "_"] = _binary(_name, _alpha)
for _name in ("addcmul", "addcdiv"):
    FOREACH["_foreach_" + _name], FOREACH["_foreach_" + _name + "_"] = _pointwise(_name)
del _name, _alpha
