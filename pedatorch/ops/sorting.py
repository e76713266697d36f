"""Sorting and searching: ``sort``, ``argsort``, ``topk``, ``kthvalue``, ``unique``, ``searchsorted``, ``histc``.

Also the pieces the value-selecting reductions share (``max(dim)``, ``median``,
``mode``... in ``reduction.py`` import them from here):

- ``return_types``: the named tuples ops like ``sort`` return
  (``values, indices = x.sort()``; ``x.sort().values``), printed as PyTorch prints them.
- ``TakeAlong`` / ``PutAlong``: pick elements along a dim at given indices
  (numpy's ``take_along_axis``), and the reverse: add a gradient back at those
  indices.  Every "pick some elements" op has the same backward: the gradient of
  each picked value goes to the element it was picked from.
- ``Shift``: a small differentiable helper used by ``cumprod``/``prod``.

Tie-breaking: sorts are stable (equal values keep their original order, NaN is
the largest value), which is what PyTorch's CPU kernels give for ``stable=True``.
"""
import math
import numbers
import sys
import types

import numpy as np

from .._layout import in_format, like_empty_like
from .._tensor import Tensor
from ..backend import no_meta_kernel, namespace, scatter_add, argsort_stable
from ..autograd.function import ArrayFunction
from ._util import wrap_dim, register, write_out, shape_str, _type_word, check_kernel_dtype
from .._dtype import is_float_np, is_inexact_np, bool as bool_
from .stl_order import stl_sort, stl_nth_element, stl_partial_sort, aten_quick_select

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_consecutive", "searchsorted",
           "bucketize", "histc", "return_types"]


# ====================================================================== return types

class _StructSeq(tuple):
    """A tuple with named fields, like PyTorch's ``torch.return_types.*`` (a ``structseq``).

    ``r = x.max(0)``: ``r.values``, ``r.indices``, ``values, indices = r`` and ``r[0]`` all work.
    """
    _names = ()
    n_fields = n_sequence_fields = 0
    n_unnamed_fields = 0

    def __new__(cls, sequence):
        seq = tuple(sequence)
        if len(seq) != len(cls._names):
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {len(cls._names)}-sequence "
                            f"({len(seq)}-sequence given)")
        return tuple.__new__(cls, seq)

    def __repr__(self):
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._names, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))


return_types = types.ModuleType("pedatorch.return_types",
                                "The named tuples returned by ops such as ``max(dim)``, ``sort``, ``topk``.")
sys.modules.setdefault("pedatorch.return_types", return_types)


def _return_type(name, fields):
    attrs = {"_names": fields, "n_fields": len(fields), "n_sequence_fields": len(fields),
             "__module__": "pedatorch.return_types", "__slots__": ()}
    for i, f in enumerate(fields):
        attrs[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    cls = type(name, (_StructSeq,), attrs)
    cls.__qualname__ = name
    setattr(return_types, name, cls)
    return cls


for _name in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin"):
    _return_type(_name, ("values", "indices"))
_return_type("aminmax", ("min", "max"))
for _name in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin"):
    _return_type(_name + "_out", ("values", "indices"))
del _name


def _result(name, pair, out=None):
    """Wrap ``(values, indices)`` in ``return_types.<name>`` (``<name>_out`` when written to ``out=``)."""
    if out is not None:
        write_out(out, pair)
        return getattr(return_types, name + "_out", getattr(return_types, name))(tuple(out))
    return getattr(return_types, name)(pair)


# ====================================================================== shared differentiable helpers

def _along_index(idx, dim):
    """The index tuple that addresses position ``idx[i, j, ...]`` along ``dim`` (other coordinates = i, j...)."""
    xp = namespace(idx)
    nd = idx.ndim   # numpy's ``indices(shape, sparse=True)``: one arange per dim, broadcastable
    grids = [xp.arange(n).reshape((1,) * d + (n,) + (1,) * (nd - d - 1)) for d, n in enumerate(idx.shape)]
    grids[dim] = idx
    return tuple(grids)


class TakeAlong(ArrayFunction):
    """out = x picked along dim at idx (``take_along_axis``);  dx = grad added back at idx"""
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, idx, dim):
        ctx.shape, ctx.idx, ctx.dim = x.shape, idx, dim
        return namespace(x).take_along_axis(x, idx, dim)

    @staticmethod
    def backward(ctx, grad):
        return PutAlong.apply(grad, ctx.idx, ctx.dim, ctx.shape), None, None


class PutAlong(ArrayFunction):
    """out = zeros(shape) with x added at idx along dim (a scatter-add);  dx = grad picked at idx"""
    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, x, idx, dim, shape):
        ctx.idx, ctx.dim = idx, dim
        xp = namespace(x)
        out = xp.zeros(shape, dtype=x.dtype)
        scatter_add(out, _along_index(idx, dim), xp.broadcast_to(x, idx.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        return TakeAlong.apply(grad, ctx.idx, ctx.dim), None, None, None


def scatter_back(grad, idx, dim, shape):
    """The gradient of an op that picked ``x``'s elements at ``idx`` along ``dim``: ``grad`` put back there.

    ``idx`` is the index array with the picked result's keepdim shape (at least 1-d); ``shape`` is
    ``x``'s shape (may be ``()``).
    """
    if grad._data.shape != idx.shape:
        grad = grad.reshape(idx.shape)
    full = shape if len(shape) else (1,)
    r = PutAlong.apply(grad, idx, dim, full)
    return r if len(shape) else r.reshape(())


class Shift(ArrayFunction):
    """out[k] = x[k - by] along dim (by = +1 or -1), the vacated end filled with ``fill``;  dx = grad shifted back"""
    node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, x, dim, by, fill):
        ctx.dim, ctx.by = dim, by
        out = namespace(x).full(x.shape, fill, dtype=x.dtype)
        n = x.shape[dim]
        if n > 1:
            src = [slice(None)] * x.ndim
            dst = [slice(None)] * x.ndim
            src[dim], dst[dim] = (slice(0, n - 1), slice(1, n)) if by > 0 else (slice(1, n), slice(0, n - 1))
            out[tuple(dst)] = x[tuple(src)]
        return out

    @staticmethod
    def backward(ctx, grad):
        return Shift.apply(grad, ctx.dim, -ctx.by, 0), None, None, None


def _no_derivative(name):
    """A backward for ops PyTorch does not differentiate (the output still gets a grad_fn)."""
    def backward(ctx, *grads):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")
    return staticmethod(backward)


class _NoGrad(ArrayFunction):
    """An op whose outputs are integers or bools: it never records a node."""


def _kernel_op(name, kernel, result_format=None):
    """A _NoGrad op running ``kernel``; ``result_format`` as ArrayFunction's ``_result_format``."""
    def forward(ctx, *args):
        return kernel(*args)
    return type(name, (_NoGrad,), {"forward": staticmethod(forward), "__module__": __name__,
                                   "_result_format": result_format})


def selecting_op(name, node_name, index_kernel, doc):
    """An op returning ``(values, indices)`` picked along a dim: ``max(dim)``, ``median(dim)``, ``kthvalue``...

    ``index_kernel(x, dim, *extra)`` returns, for an array of at least 1 dim, the int64 index of the
    chosen element along ``dim`` (keepdim shape).  The values are ``x`` taken at those indices; the
    backward puts the gradient of each value back at its index.
    """
    def forward(ctx, x, dim, keepdim, *extra):
        xp = namespace(x)
        x1 = x.reshape(1) if x.ndim == 0 else x
        idx = index_kernel(x1, dim, *extra).astype(np.int64, copy=False)
        values = xp.take_along_axis(x1, idx, dim)
        ctx.in_shape, ctx.dim, ctx.idx, ctx.n_extra = x.shape, dim, idx, len(extra)
        if x.ndim == 0:
            return values.reshape(()), idx.reshape(())
        if not keepdim:
            values, idx = xp.squeeze(values, dim), xp.squeeze(idx, dim)
        # ATen allocates both results contiguous (numpy's keep x's dim order)
        return in_format(values, "contiguous_format"), in_format(idx, "contiguous_format")

    def backward(ctx, grad, grad_indices=None):
        return (scatter_back(grad, ctx.idx, ctx.dim, ctx.in_shape), None, None) + (None,) * ctx.n_extra

    return type(name, (ArrayFunction,), {"__doc__": doc, "node_name": node_name, "__module__": __name__,
                                         "forward": staticmethod(forward), "backward": staticmethod(backward)})


# ====================================================================== sort, argsort, topk, kthvalue

def sort_order(x, dim, descending=False):
    """Indices that sort ``x`` along ``dim``, stable (ties keep their order), NaN counting as the largest.

    Descending: sort the reversed array ascending (ties then come last-first), reverse the result
    back (ties first-first again) and map positions in the reversed array to positions in ``x``.
    """
    if x.dtype.kind == "c":
        raise RuntimeError(" Sort does not support complex dtypes on CPU")
    xp = namespace(x)
    if not descending:
        return argsort_stable(x, dim)
    n = x.shape[dim]
    order = argsort_stable(xp.flip(x, dim), dim)
    return (n - 1) - xp.flip(order, dim)


class Sort(ArrayFunction):
    """values, indices = x sorted along dim;  dx = grad put back where each value came from"""
    node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, x, dim, descending):
        xp = namespace(x)
        x1 = x.reshape(1) if x.ndim == 0 else x
        idx = sort_order(x1, dim, descending)
        values = xp.take_along_axis(x1, idx, dim)
        ctx.shape, ctx.dim, ctx.idx = x.shape, dim, idx
        # ATen lays both results out as empty_like(x) (x's strides when dense, size-1 dims' too)
        return like_empty_like(values.reshape(x.shape), x), like_empty_like(idx.reshape(x.shape), x)

    @staticmethod
    def backward(ctx, grad, grad_indices=None):
        return scatter_back(grad, ctx.idx, ctx.dim, ctx.shape), None, None


class SortStable(Sort):
    """``sort(..., stable=...)``: PyTorch's other overload (``sort.stable``), the same kernel here"""
    node_name = "SortBackward1"


class _Unset:
    def __repr__(self):
        return "False"


_UNSET = _Unset()


def _check_dim(dim, name="dim", fn=None, position=None, symint=False):
    """An ``int`` argument as PyTorch's Python binding takes it: an int (not a bool), a numpy int, or a 0-dim
    integer tensor (``x.sort(dim=torch.tensor(0))``); a ``SymInt`` one (topk's k) takes any one-element
    integer tensor.  With ``fn`` and ``position`` (counted as the caller wrote the arguments: a
    method's from the first after self), the TypeError names them as PyTorch's does."""
    if isinstance(dim, Tensor) and not (dim.dtype.is_floating_point or dim.dtype.is_complex or dim.dtype is bool_):
        if dim.numel() == 1 if symint else dim.ndim == 0:
            return int(dim.item())
    if not isinstance(dim, numbers.Integral) or isinstance(dim, bool):
        what = type(dim).__name__
        where = f"argument '{name}'" if fn is None else f"{fn}(): argument '{name}' (position {position})"
        raise TypeError(f"{where} must be int, not {what}")
    return int(dim)


def sort(input, dim=-1, descending=False, *, stable=_UNSET, out=None):
    """Sort along ``dim``: ``return_types.sort(values, indices)``.

    Always stable here (equal values keep their order), which is what PyTorch's CPU sort gives; passing
    ``stable=`` selects PyTorch's ``sort.stable`` overload (grad_fn ``SortBackward1``).
    """
    d = wrap_dim(_check_dim(dim), input._data.ndim)
    cls = Sort if stable is _UNSET else SortStable
    return _result("sort", cls.apply(input, d, bool(descending)), out)


_ArgSort = _kernel_op("ArgSort", lambda x, d, desc: sort_order(x.reshape(1) if x.ndim == 0 else x, d, desc)
                      .reshape(x.shape), "preserve_format")   # sort's indices, laid out as Sort lays them out


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``input`` along ``dim`` (int64; ties in their original order)."""
    d = wrap_dim(_check_dim(dim), input._data.ndim)
    return _ArgSort.apply(input, d, bool(descending))


def msort(input, *, out=None):
    """Sort along dim 0 (values only)."""
    r = sort(input, 0).values
    return r if out is None else write_out(out, r)


def _tied_rows(x, order, dim):
    """The rows (along dim, numbered as in ``_rows``) where equal values or two NaNs meet in sorted order."""
    xp = namespace(x)
    s = xp.moveaxis(xp.take_along_axis(x, order, dim), dim, -1)
    s = s.reshape(-1, s.shape[-1]) if s.size else s.reshape(0, 1)
    with np.errstate(invalid="ignore"):
        tied = (s[:, 1:] == s[:, :-1]).any(-1)
    if is_inexact_np(x.dtype):
        tied |= xp.isnan(s).sum(-1) > 1
    return [int(r) for r in xp.nonzero(tied)[0]]


def _rows(x, dim):
    """x's rows along dim, (rows, n), numbered in C order of the other dims, in Python-comparable types."""
    v = namespace(x).moveaxis(x, dim, -1)
    v = v.reshape(-1, v.shape[-1]).astype(np.float64 if is_inexact_np(x.dtype) else np.int64)
    return v


def _replay(idx, dim, rows, new_rows):
    """Write replayed index rows into ``idx`` (the same layout as ``_rows``)."""
    xp = namespace(idx)
    moved = xp.moveaxis(idx, dim, -1).copy()
    flat = moved.reshape(-1, moved.shape[-1])
    for r, new in zip(rows, new_rows):
        flat[r] = xp.asarray(new, dtype=idx.dtype)
    return xp.moveaxis(flat.reshape(moved.shape), -1, dim)


def _nan_first_greater(a, b):   # TopK's and quickselect's comparisons: NaN above everything, then >
    return (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]


def _nan_last_less(a, b):
    return (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _topk_index(x, dim, k, largest, sorted_):
    """Indices of the k selected along dim, as ATen's kernel leaves them: with k * 64 <= n, std::partial_sort;
    else std::nth_element and (if sorted) std::sort of the first k - 1.  Rows of distinct values come out
    as a stable sort would put them, unless unsorted through nth_element; only the others are replayed."""
    xp = namespace(x)
    order = sort_order(x, dim, largest)
    idx = xp.take(order, xp.arange(k), axis=dim)
    n = x.shape[dim]
    partial = k * 64 <= n
    if k == 0 or x.size == 0:
        return idx
    rows = _tied_rows(x, order, dim) if partial or sorted_ else list(range(x.size // n))
    if not rows:
        return idx
    less = _nan_first_greater if largest else _nan_last_less
    values = _rows(x, dim)
    replayed = []
    for r in rows:
        queue = list(zip(values[r].tolist(), range(n)))
        if partial:
            stl_partial_sort(queue, k, less)
        else:
            stl_nth_element(queue, k - 1, less)
            if sorted_:
                stl_sort(queue, 0, k - 1, less)
        replayed.append([j for _, j in queue[:k]])
    return _replay(idx, dim, rows, replayed)


class TopK(ArrayFunction):
    """values, indices = the k largest (or smallest) along dim;  dx = grad put back at indices"""
    node_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, x, k, dim, largest, sorted_):
        xp = namespace(x)
        x1 = x.reshape(1) if x.ndim == 0 else x
        # ATen allocates both results contiguous, whatever x's layout (and a replayed row's moveaxis)
        idx = xp.ascontiguousarray(_topk_index(x1, dim, k, largest, sorted_))
        values = xp.take_along_axis(x1, idx, dim)
        ctx.shape, ctx.dim, ctx.idx = x.shape, dim, idx
        if x.ndim == 0:
            return values.reshape(()), idx.reshape(())
        return values, idx

    @staticmethod
    def backward(ctx, grad, grad_indices=None):
        return scatter_back(grad, ctx.idx, ctx.dim, ctx.shape), None, None, None, None


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim``: ``return_types.topk``.

    Among equal values, and with ``sorted=False``, the order is the one PyTorch's C++ selection leaves
    (``ops/stl_order.py``).
    """
    return _topk(input, k, dim, largest, sorted, out, 2)


def _topk_method(self, k, dim=-1, largest=True, sorted=True):
    return _topk(self, k, dim, largest, sorted, None, 1)


def _topk(input, k, dim, largest, sorted, out, position):
    """``position``: where k stands among the arguments as written (2 in torch.topk, 1 in x.topk)."""
    x = input._data
    k = _check_dim(k, "k", "topk", position, symint=True)
    d = wrap_dim(_check_dim(dim, "dim", "topk", position + 1), x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if x.ndim == 0:  # a 0-dim tensor is its own top element, for k = 0 as for k = 1 (as in PyTorch)
        k = 1
    return _result("topk", TopK.apply(input, int(k), d, bool(largest), bool(sorted)), out)


def _kth_index(x, dim, k):
    """The index of the k-th smallest along dim: where ATen's quickselect leaves it among equal values."""
    order = sort_order(x, dim)
    xp = namespace(order)
    idx = xp.take(order, xp.arange(k - 1, k), axis=dim)
    rows = _tied_rows(x, order, dim) if x.size else []
    if not rows:
        return idx
    values = _rows(x, dim)
    replayed = []
    for r in rows:
        a = list(zip(values[r].tolist(), range(x.shape[dim])))
        aten_quick_select(a, k - 1, _nan_first_greater)
        replayed.append([a[k - 1][1]])
    return _replay(idx, dim, rows, replayed)


KthValue = selecting_op("KthValue", "KthvalueBackward0", _kth_index,
                        "values, indices = the k-th smallest along dim;  dx = grad put back at indices")


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element along ``dim`` (1-based): ``return_types.kthvalue(values, indices)``."""
    return _kthvalue(input, k, dim, keepdim, out, 2)


def _kthvalue_method(self, k, dim=-1, keepdim=False):
    return _kthvalue(self, k, dim, keepdim, None, 1)


def _kthvalue(input, k, dim, keepdim, out, position):
    """``position``: where k stands among the arguments as written (2 in torch.kthvalue, 1 in x.kthvalue)."""
    x = input._data
    k = _check_dim(k, "k", "kthvalue", position, symint=True)
    d = wrap_dim(_check_dim(dim, "dim", "kthvalue", position + 1), x.ndim)
    check_kernel_dtype("kthvalue_cpu", x.dtype, "if")
    n = x.shape[d] if x.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _result("kthvalue", KthValue.apply(input, d, bool(keepdim), int(k)), out)


# ====================================================================== unique

def _unique_flat(x, return_inverse, return_counts):
    xp = namespace(x)
    flat = x.reshape(-1)
    values, inverse, counts = xp.unique(flat, return_inverse=True, return_counts=True, equal_nan=False)
    return values, inverse.reshape(x.shape).astype(np.int64), counts.astype(np.int64)


def _unique_dim(x, dim):
    xp = namespace(x)
    if x.shape[dim] == 0:
        return x.copy(), xp.zeros(0, np.int64), xp.zeros(0, np.int64)
    values, inverse, counts = xp.unique(x, return_inverse=True, return_counts=True, axis=dim, equal_nan=False)
    return values, inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)


class Unique(ArrayFunction):
    """The sorted distinct values (each NaN counts as distinct), with inverse indices and counts"""
    node_name = "Unique2Backward0"
    backward = _no_derivative("_unique2")

    @staticmethod
    def forward(ctx, x, return_inverse, return_counts):
        return _unique_flat(x, return_inverse, return_counts)


class UniqueDim(ArrayFunction):
    """The sorted distinct slices along dim, with inverse indices and counts"""
    node_name = "UniqueDimBackward0"
    backward = _no_derivative("unique_dim")

    @staticmethod
    def forward(ctx, x, dim):
        return _unique_dim(x, dim)


def _pick_outputs(values, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (``dim``: distinct slices along ``dim``), always sorted here.

    Returns a tensor, or a tuple ``(values[, inverse][, counts])``.
    """
    no_meta_kernel("_unique2", input._data)
    if dim is None:
        outs = Unique.apply(input, bool(return_inverse), bool(return_counts))
    else:
        d = wrap_dim(_check_dim(dim), input._data.ndim)
        if input._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        outs = UniqueDim.apply(input, d)
    return _pick_outputs(*outs, return_inverse, return_counts)


def _consecutive_kernel(x, dim):
    """Collapse runs of equal consecutive elements (``dim=None``: of the flattened input) or slices."""
    if dim is None:
        src, axis = x.reshape(-1), 0
    else:
        src, axis = x, dim
    xp = namespace(x)
    n = src.shape[axis]
    if n == 0:
        inverse = xp.zeros(x.shape if dim is None else (0,), np.int64)
        return src.copy(), inverse, xp.zeros(0, np.int64)
    a = xp.take(src, xp.arange(1, n), axis=axis)
    b = xp.take(src, xp.arange(0, n - 1), axis=axis)
    changed = a != b
    if dim is not None:
        other = tuple(i for i in range(src.ndim) if i != axis)
        changed = xp.any(changed, axis=other) if other else changed
    starts = xp.concatenate([xp.ones(1, dtype=bool), changed])
    start_pos = xp.flatnonzero(starts)
    values = xp.take(src, start_pos, axis=axis)
    inverse = (xp.cumsum(starts) - 1).astype(np.int64)
    counts = xp.diff(xp.concatenate([start_pos, xp.full(1, n, dtype=start_pos.dtype)])).astype(np.int64)
    if dim is None:
        inverse = inverse.reshape(x.shape)
    return values, inverse, counts


class UniqueConsecutive(ArrayFunction):
    """Each run of equal consecutive elements (or slices along dim) collapsed to one"""
    node_name = "UniqueConsecutiveBackward0"
    backward = _no_derivative("unique_consecutive")

    @staticmethod
    def forward(ctx, x, dim):
        return _consecutive_kernel(x, dim)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse consecutive equal elements (``dim``: consecutive equal slices along ``dim``)."""
    no_meta_kernel("unique_consecutive", input._data)
    d = None if dim is None else wrap_dim(_check_dim(dim), input._data.ndim)
    if d is not None and input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    outs = UniqueConsecutive.apply(input, d)
    return _pick_outputs(*outs, return_inverse, return_counts)


# ====================================================================== searchsorted, bucketize, histc

def _binary_search(seq, values, right):
    """ATen's search, for every value at once: halve [lo, hi) while ``not seq[mid] >= v`` (``not seq[mid] > v``
    for ``right``).  Written with "not", a comparison with NaN (false) moves right: where a NaN lands depends
    on the path, as in PyTorch.  ``seq`` is 1-d, or has the leading dims of ``values`` (one row each)."""
    xp = namespace(seq, values)
    n = seq.shape[-1]
    rows = seq.reshape(-1, n)
    v = values.reshape(rows.shape[0], -1) if seq.ndim > 1 else values.reshape(1, -1)
    lo = xp.zeros(v.shape, dtype=np.int64)
    hi = xp.full(v.shape, n, dtype=np.int64)
    r = xp.arange(rows.shape[0])[:, None]
    with np.errstate(invalid="ignore"):
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            s = rows[r, xp.minimum(mid, n - 1)]
            go_right = active & ~((s > v) if right else (s >= v))
            lo = xp.where(go_right, mid + 1, lo)
            hi = xp.where(active & ~go_right, mid, hi)
    return lo.reshape(values.shape)


def _searchsorted_kernel(seq, values, right, sorter, out_int32):
    xp = namespace(seq)
    if sorter is not None:
        seq = xp.take_along_axis(seq, sorter, -1)
    r = _binary_search(seq, values, right) if seq.shape[-1] else xp.zeros(values.shape, dtype=np.int64)
    return xp.asarray(r).astype(np.int32 if out_int32 else np.int64)


_SearchSorted = _kernel_op("SearchSorted", _searchsorted_kernel)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None, out=None):
    """Where to insert each of ``input`` into ``sorted_sequence`` (along its last dim) to keep it sorted.

    ``right=False`` / ``side='left'``: the first position ``i`` with ``seq[i] >= v``; right: ``seq[i] > v``.
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    if scalar:
        from .creation import tensor
        input = tensor(input)
    seq, vals = sorted_sequence._data, input._data
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {shape_str(seq.shape)} and input value tensor "
                           f"{shape_str(vals.shape)}")
    if seq.ndim > 1 and (scalar or vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]):
        if scalar:
            raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                               f"dimension is 1, but we got boundaries tensor dim({seq.ndim}) and input value's "
                               "dim(0) numel(1)")
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {shape_str(seq.shape)} and input value tensor "
                           f"{shape_str(vals.shape)}")
    if sorter is not None:
        if sorter._data.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got "
                               f"boundary tensor {shape_str(seq.shape)}and got sorter tensor "
                               f"{shape_str(sorter._data.shape)}")
        sorter = sorter._data
    r = _SearchSorted.apply(sorted_sequence, input, bool(right), sorter, bool(out_int32))
    return r if out is None else write_out(out, r)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each element: ``i`` with ``boundaries[i-1] < x <= boundaries[i]`` (right: ``<= x <``)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def _cnum(v):
    """A number as C++ streams print a double (``2``, ``0.5``, ``inf``, ``nan``)."""
    return f"{v:g}"


def _histc_kernel(x, bins, lo, hi):
    """PyTorch's histc: bin = int((x - lo) * bins / (hi - lo)) in the input's precision; hi goes in the last bin."""
    xp = namespace(x)
    flat = x.reshape(-1)
    t = x.dtype.type
    left, right = t(lo), t(hi)
    keep = (flat >= left) & (flat <= right)  # also drops NaN
    v = flat[keep]
    with np.errstate(invalid="ignore", over="ignore"):
        pos = ((v - left) * t(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] = bins - 1
    return xp.bincount(pos, minlength=bins).astype(x.dtype)


_Histc = _kernel_op("Histc", _histc_kernel)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """A histogram of ``bins`` equal-width bins over ``[min, max]`` (both 0: the data's range)."""
    x = input._data
    if not is_float_np(x.dtype):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_type_word(x.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    word = _cnum
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())   # (two device reads)
        # (PyTorch's vectorized min/max of data with a NaN give x86's default NaN, which C prints "-nan")
        word = lambda v: "-nan" if math.isnan(v) else _cnum(v)
    elif lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{word(lo)}, {word(hi)}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    r = _Histc.apply(input.detach(), int(bins), lo, hi)
    return r if out is None else write_out(out, r)


register({"sort": sort, "argsort": argsort, "msort": msort, "topk": _topk_method, "kthvalue": _kthvalue_method,
          "unique": unique, "unique_consecutive": unique_consecutive, "histc": histc})
