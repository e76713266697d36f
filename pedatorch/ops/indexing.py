"""Indexing: ``x[key]``, ``x[key] = value`` and the index ops (gather, scatter, index_select, masked_fill ...).

``x[key]`` follows PyTorch's ``applySlicing``.  The key is read left to right and
every *basic* entry becomes a view of the running result:

    int / 0-dim int tensor  ->  select     (SelectBackward0: the dim goes away)
    slice                   ->  slice      (SliceBackward0; inside a tuple a full ``:`` is skipped)
    None                    ->  unsqueeze  (UnsqueezeBackward0)
    ...                     ->  skips the dims no other entry names

so ``x[1:, 0]`` is ``x.slice(0, 1).select(1, 0)`` - memory shared with ``x``, and a
key with nothing else to do (``x[...]``, ``x[:, :]``) gives an alias (AliasBackward0).
Integer tensors, lists, numpy arrays, bool masks and Python bools are *advanced*
indices: they are collected with the dim they index and applied at the end by one
``Index`` op, which copies (IndexBackward0).  A bool mask stands for its
``nonzero()`` coordinates; ``True`` is a new size-1 dim indexed by ``[0]``.  The
dims the advanced indices produce go where numpy and PyTorch put them: in place
of the indexed dims when those are adjacent, in front otherwise.

``x[key] = value`` walks the same path.  With basic entries only it writes into
the view with ``copy_``/``fill_`` (an in-place op on a view: the base records
``CopySlices``, so gradients reach both the old values and ``value``); with
advanced ones it calls ``index_put_`` on the view.

The other ops are the same two ideas written out: *gather-like* ops read
``x[positions]`` (backward: add the gradient back at the positions, repeats
summing - ``np.add.at``), *scatter-like* ops write there (backward: the gradient
of the overwritten places is zero, the written values get ``grad[positions]``).
"""
import math
import numbers
import operator
import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.function import ArrayFunction, before_checks, check_inplace, check_no_internal_overlap
from ._util import (wrap_dim, register, write_out, shape_str, _type_word, broadcast_shapes_or_raise, checked_int,
                    needed, user_stacklevel)
from .._layout import (_iterator_layout, copy_in_format, in_format, relayout, format_strides, check_no_overlap,
                       _empty_strided)
from .shape import Select, Slice, Alias, Unsqueeze, IndexEmbed, _view_strides
from .._dtype import is_float_np, to_opmath
from ..backend import no_meta_kernel, namespace, is_array, astype, CPU_ARRAY, CPU_BACKEND, ufunc_at, scatter_add as _scatter_add_at

# numpy, for what Python hands an index op (lists, numbers): made on the host, moved to the indexed
# tensor's device once (``_on``, ``_advanced_key``)
_host = CPU_BACKEND.xp

__all__ = ["index_select", "gather", "scatter", "scatter_add", "scatter_reduce", "index_reduce", "index_add", "index_copy",
           "index_fill", "index_put", "index_put_", "masked_fill", "masked_select", "masked_scatter", "take",
           "take_along_dim", "put", "nonzero", "nonzero_static", "argwhere"]


def _inplace(cls):
    """The in-place twin of an op (``index_put_`` for ``index_put``): same node name, writes into input 0."""
    return type(cls.__name__ + "_", (cls,), {"_inplace_of": 0, "node_name": cls.node_name, "__module__": __name__})


def _const(arr):
    return Tensor._make(arr)


def _zeros(shape, np_dtype, like):
    """A zero tensor on the device of array ``like``."""
    return Tensor._make(namespace(like).zeros(shape, np_dtype))


def _on(xp, arr):
    """Index array ``arr`` on the device of namespace ``xp`` (a host index moves there; PyTorch's error for
    a device index into a CPU tensor)."""
    if xp is _host:
        if type(arr) is not CPU_ARRAY and is_array(arr):
            raise RuntimeError("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
        return arr
    return arr if type(arr) is not CPU_ARRAY else xp.asarray(arr)


def _as_fill(value, dtype):
    """A fill value in ``dtype``, converted as numpy converts (C casts, under the caller's errstate): an array
    (a 0-dim tensor's) stays on its device, a number becomes a numpy scalar (which every device accepts)."""
    if is_array(value):
        return astype(value, dtype)
    return _host.asarray(value).astype(dtype)[()]


def _type_name(obj):
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _is_int(k):
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, (numbers.Integral, np.integer)):
        return True
    return isinstance(k, CPU_ARRAY) and k.ndim == 0 and k.dtype.kind in "iu"


def _nd(a):
    """0-dim arrays as 1-element vectors (PyTorch's ``ensure_nonempty``)."""
    return a if a.ndim else a.reshape(1)


# ====================================================================== x[key]: reading the key

_TUPLE_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                  "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
                  "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _as_tuple_key(key):
    """A key as a tuple.  A list holding slices, None, ..., tensors or sequences counts as a tuple (numpy's rule)."""
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and len(key) < 32:
        for o in key:
            if o is None or o is Ellipsis or isinstance(o, (Tensor, slice, list, tuple, range, str)) or is_array(o):
                warnings.warn(_TUPLE_WARNING, UserWarning, stacklevel=user_stacklevel())
                return tuple(key)
    return (key,)


def _count_specified(key):
    """The dims the key names (PyTorch counts a bool/byte tensor as its ndim; None, ..., bools as nothing)."""
    n = 0
    for k in key:
        if isinstance(k, Tensor):
            n += k._data.ndim if k._data.dtype in (np.bool_, np.uint8) else 1
        elif not (k is None or k is Ellipsis or k is True or k is False):
            n += 1
    return n


def _index_array(arr):
    """Check an index array's dtype; byte masks count as bool masks (deprecated, as PyTorch warns)."""
    if arr.dtype == np.uint8:
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                      UserWarning, stacklevel=user_stacklevel())
        return arr.astype(np.bool_)
    if arr.dtype == np.bool_ or arr.dtype in (np.int64, np.int32):
        return arr
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def _sequence_index(obj):
    """A list/tuple/array used as an index: an int64 array (floats truncate) or a bool mask."""
    if isinstance(obj, str):
        raise TypeError("new(): invalid data type 'str'")
    if any(isinstance(o, Tensor) for o in (obj if isinstance(obj, (list, tuple)) else ())):
        obj = [o.tolist() if isinstance(o, Tensor) else o for o in obj]
    arr = obj if is_array(obj) else _host.asarray(obj)
    if arr.dtype == np.bool_ or arr.dtype == np.uint8:
        return _index_array(arr)
    if arr.dtype.kind not in "iufb":
        raise TypeError(f"new(): invalid data type '{arr.dtype.name}'")
    return arr.astype(np.int64)


def _select(t, dim, index, real_dim):
    shape = t._data.shape
    if not shape:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in "
                         "C++ to convert a 0-dim tensor to a number")
    if dim >= len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    size = shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {real_dim} with size {size}")
    return Select.apply(t, (slice(None),) * dim + (index,))


def _slice(t, dim, s, skip_full):
    step = 1 if s.step is None else operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = None if s.start is None else operator.index(s.start)
    stop = None if s.stop is None else operator.index(s.stop)
    shape = t._data.shape
    if not shape:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    wrap_dim(dim, len(shape))  # only repeated ``...`` get here past the last dim
    if skip_full and not start and (stop is None or stop >= shape[dim]) and step == 1:
        return t  # PyTorch skips a slice that keeps everything
    return Slice.apply(t, (slice(None),) * dim + (slice(start, stop, step),))


def _unsqueeze(t, dim):
    return Unsqueeze.apply(t, wrap_dim(dim, t._data.ndim + 1))


def _bool_index(t, dim, value):
    """``True``/``False`` in a key: a new size-1 dim, indexed by [0] or by []."""
    return _unsqueeze(t, dim), (dim, _host.zeros(1 if value else 0, np.int64))   # (moved by _advanced_key)


def _apply_slicing(self, key):
    """Apply the basic entries of ``key`` (a tuple) as views; collect the advanced ones as (dim, array)."""
    ndim = self._data.ndim
    specified = _count_specified(key)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim, adv = self, 0, []
    for i, k in enumerate(key):
        if k is None:
            result = _unsqueeze(result, dim)
            dim += 1
        elif k is Ellipsis:
            dim += ndim - specified
        elif k is True or k is False:
            result, entry = _bool_index(result, dim, k)
            adv.append(entry)
            dim += 1
        elif _is_int(k):
            result = _select(result, dim, int(k), i)
        elif isinstance(k, slice):
            result = _slice(result, dim, k, skip_full=True)
            dim += 1
        else:
            if isinstance(k, Tensor):
                arr = k._data   # (stays on its device; a 0-dim one is read below: a sync)
                if arr.ndim == 0 and arr.dtype.kind in "iu" and arr.dtype != np.uint8:
                    result = _select(result, dim, int(arr), i)
                    continue
                if arr.ndim == 0 and arr.dtype in (np.bool_, np.uint8):
                    result, entry = _bool_index(result, dim, bool(arr))
                    adv.append(entry)
                    dim += 1
                    continue
                arr = _index_array(arr)
            elif isinstance(k, (list, tuple, range, str)) or is_array(k):
                arr = _sequence_index(k)
            else:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                 f"are valid indices (got {_type_name(k)})")
            adv.append((dim, arr))
            dim += arr.ndim if arr.dtype == np.bool_ else 1
    return result, adv


def _advanced_key(t, adv, bounds=True):
    """The numpy key for the advanced entries: an int64 array per indexed dim, ``:`` elsewhere.

    Masks become their nonzero coordinates; the arrays are checked to broadcast and
    to be in bounds (PyTorch's messages; ``bounds=False``: the caller checks those later).
    """
    shape = t._data.shape
    xp = namespace(t._data)   # the key's arrays live where t's values do
    positions, arrays = [], []
    for dim, arr in adv:
        if arr.dtype == np.bool_:
            for j in range(arr.ndim):
                src = dim + j
                if src >= len(shape):
                    raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
                if arr.shape[j] != shape[src]:
                    raise IndexError(f"The shape of the mask {shape_str(arr.shape)} at index {j} does not match "
                                     f"the shape of the indexed tensor {shape_str(shape)} at index {src}")
            no_meta_kernel("nonzero", arr)   # (the mask's True count is the result's size)
            for j, coords in enumerate(xp.nonzero(_on(xp, arr))):
                positions.append(dim + j)
                arrays.append(coords)
        else:
            if dim >= len(shape):
                raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
            positions.append(dim)
            arrays.append(xp.array(_on(xp, arr), dtype=np.int64))  # a copy: later changes to the index don't matter
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(shape_str(a.shape) for a in arrays)) from None
    key = [slice(None)] * (max(positions) + 1 if positions else 0)
    for p, a in zip(positions, arrays):
        key[p] = a
    if bounds:
        _check_key_bounds(shape, key)
    if positions and 0 in _indexed_shape(shape, key):
        # an empty result reads no entry, so none is out of bounds; numpy would still check them all
        key = [k if isinstance(k, slice) else xp.zeros_like(k) for k in key]
    return tuple(key)


def _check_empty_dims(shape, key):
    """ATen's AdvancedIndex set-up: an indexed dim of size 0 with a non-empty index has no valid index
    (checked before the kernel runs, so before the value's shape is)."""
    positions = [p for p, a in enumerate(key) if not isinstance(a, slice)]
    if any(shape[p] == 0 for p in positions) and 0 not in np.broadcast_shapes(*(key[p].shape for p in positions)):
        raise IndexError("index is out of bounds for dimension with size 0")


def _check_key_bounds(shape, key):
    """PyTorch's error for an index array entry outside its dim. The kernel checks the entries it reads:
    none when the result is empty (``x[:, idx]`` of an x with a size-0 dim, an empty mask's entries)."""
    _check_empty_dims(shape, key)
    if 0 in _indexed_shape(shape, key):
        return
    arrays = [(p, a) for p, a in enumerate(key) if not isinstance(a, slice)]
    for i, (p, a) in enumerate(arrays):
        size = shape[p]
        bad = (a < -size) | (a >= size)
        if bad.any():
            raise IndexError(f"index {int(a[bad].reshape(-1)[0])} is out of bounds for dimension {i} with size {size}")


def _indexed_shape(shape, key):
    """The shape of ``x[key]`` for an advanced key, worked out without reading x (so before the bounds
    check): the broadcast index shape replaces the indexed dims where they are adjacent, else goes first."""
    positions = [p for p, a in enumerate(key) if not isinstance(a, slice)]
    bshape = np.broadcast_shapes(*(key[p].shape for p in positions))
    rest = [s for d, s in enumerate(shape) if d not in positions]
    if positions == list(range(positions[0], positions[-1] + 1)):
        return tuple(shape[:positions[0]]) + bshape + tuple(shape[positions[-1] + 1:])
    return bshape + tuple(rest)


# ====================================================================== the advanced-indexing ops

def _index_kernel(x, key):
    """``x[key]`` laid out in memory as PyTorch's index kernel lays it out.

    numpy's fancy-indexing result can have Fortran-like strides (``x[:, idx]``); PyTorch's follows its
    TensorIterator over the source restrided to the result's shape (stride 0 on the indexed dims; the
    indexed dims moved to the front when they are not adjacent) and the index tensors."""
    out = x[key]
    if out.ndim <= 1:
        return namespace(out).ascontiguousarray(out)
    positions = [p for p, k in enumerate(key) if not isinstance(k, slice)]
    arrays = [key[p] for p in positions]
    bshape = np.broadcast_shapes(*(a.shape for a in arrays))
    item = x.itemsize
    src_strides = [st // item for st in x.strides]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    rest = [d for d in range(x.ndim) if d not in positions]
    before = [d for d in rest if d < positions[0]] if adjacent else []
    after = [d for d in rest if d not in before]
    k, n_after = len(bshape), len(after)
    ops = [[src_strides[d] for d in before] + [0] * k + [src_strides[d] for d in after]]
    view_shape = (1,) * len(before) + bshape + (1,) * n_after
    for a in arrays:  # each index expanded to bshape, then viewed with the result's leading/trailing 1s
        expanded = [st // a.itemsize for st in namespace(a).broadcast_to(a, bshape).strides]
        strides = _view_strides(bshape, expanded, view_shape, 1)
        if strides is None:  # not viewable: reshape copies, contiguously (numpy's C strides: 0-size dims as 1)
            strides = [math.prod(max(n, 1) for n in view_shape[i + 1:]) for i in range(len(view_shape))]
        # broadcast over the result: stride 0 (TensorIterator's compute_strides)
        ops.append([0 if n == 1 and m != 1 else st for n, m, st in zip(view_shape, out.shape, strides)])
    perm = _iterator_layout(out.shape, ops)
    strides, step = [0] * out.ndim, out.itemsize
    for d in perm:                                   # fastest dim first
        strides[d] = step
        step *= out.shape[d]
    if tuple(strides) == out.strides:
        return out                                   # numpy's result is already laid out so
    order = perm[::-1]                               # slowest first: allocate in that order, then view back
    back = sorted(range(len(order)), key=order.__getitem__)   # (argsort of the permutation)
    result = namespace(out).empty([out.shape[d] for d in order], dtype=out.dtype).transpose(back)
    result[...] = out
    return result


class Index(ArrayFunction):
    """out = x[indices] (advanced indexing: a copy);  dx = zeros with grad added at the indices (repeats sum)"""
    node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x, key, *indices):
        # (``indices``: the index tensors the key was made from, saved as PyTorch saves them: an in-place
        # write to one before backward is an error)
        ctx.in_shape, ctx.key, ctx.n_indices = x.shape, key, len(indices)
        ctx.save_for_backward(*indices)
        return _index_kernel(x, key)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        return (IndexAccumulate.apply(grad, ctx.in_shape, ctx.key), None) + (None,) * ctx.n_indices


class IndexAccumulate(ArrayFunction):
    """out = zeros(shape) with x added at the indices (np.add.at: repeated indices sum);  dx = grad[indices]"""
    node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, shape, key):
        ctx.key = key
        out = namespace(x).zeros(shape, dtype=x.dtype)
        _scatter_add_at(out, key, x)
        return out

    @staticmethod
    def backward(ctx, grad):
        return Index.apply(grad, ctx.key), None, None


class IndexPut(ArrayFunction):
    """out = x with out[indices] = values (accumulate: +=);
    dx = grad, zero where overwritten (unless accumulating);  dvalues = grad[indices]"""
    node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, values, key, accumulate, *indices):
        ctx.key, ctx.accumulate, ctx.n_indices = key, accumulate, len(indices)
        ctx.save_for_backward(*indices)   # (the index tensors, as in Index)
        out = copy_in_format(x, "preserve_format")  # ATen: self.clone() + index_put_
        if accumulate:
            _scatter_add_at(out, key, values)
        else:
            out[key] = values
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        gx = gv = None
        if ctx.needs_input_grad[0]:
            gx = grad if ctx.accumulate else IndexPut.apply(grad, _zeros((), grad._data.dtype, grad._data), ctx.key,
                                                                     False)
        if ctx.needs_input_grad[1]:
            gv = Index.apply(grad, ctx.key)
        return (gx, gv, None, None) + (None,) * ctx.n_indices


IndexPut_ = _inplace(IndexPut)


def _check_no_overlap(target, *tensors):
    """ATen's ``assert_no_overlap`` for an in-place op writing ``target``: its values, source and index
    tensors must not share target's memory (``x.index_copy_(0, i, x)``); done after the op's argument
    checks, before the index bounds."""
    for t in tensors:
        if isinstance(t, Tensor):
            check_no_overlap(target._data, t._data)


def _index_tensors(entries):
    """The index tensors among the entries of a key (what PyTorch saves for backward; a 0-dim one is a number)."""
    return [e for e in entries if isinstance(e, Tensor) and e._data.ndim]


def _is_byte_mask(entry):
    """A uint8 tensor or array of 1+ dims in a key (a deprecated mask; a 0-dim one is a bool)."""
    arr = entry._data if isinstance(entry, Tensor) else entry
    return is_array(arr) and arr.ndim > 0 and arr.dtype == np.uint8


def _index_put(target, key, values, accumulate, inplace, adv=None, tensors=(), entries=None):
    """``adv``: the (dim, array) entries the key was made from, when the caller has them; ``tensors``: the
    index tensors among them; ``entries``: the key as given (default: ``tensors``)."""
    masked_fill = (not accumulate and adv is not None and len(adv) == 1 and adv[0][1].dtype == np.bool_
                   and values._data.size == 1)
    if masked_fill and any(_is_byte_mask(e) for e in (tensors if entries is None else entries)):
        # the mask was a (deprecated) byte mask, turned into a bool one for indexing; masked_fill_ takes
        # bool masks only, so this one path refuses it (x[byte_mask] = tensor_of_3 still works)
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    if masked_fill and values._data.dtype != target._data.dtype:
        # one mask and one value: PyTorch's index_put_ becomes masked_fill_(mask, value.item()), which
        # converts the value to the target's dtype (any other index_put_ refuses a dtype mismatch)
        values = values.to(target.dtype)
    if inplace and not masked_fill:   # (first of all: x[idx] = x is refused)
        _check_no_overlap(target, values, *tensors)
    _check_empty_dims(target._data.shape, key)   # (an index into a size-0 dim is refused first)
    if values._data.dtype != target._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_type_word(target._data.dtype)} for the destination and "
                           f"{_type_word(values._data.dtype)} for the source.")
    result_shape = _indexed_shape(target._data.shape, key)
    try:
        ok = np.broadcast_shapes(values._data.shape, result_shape) == result_shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {shape_str(values._data.shape)} cannot be "
                           f"broadcast to indexing result of shape {shape_str(result_shape)}")
    _check_key_bounds(target._data.shape, key)  # (after the shape: PyTorch's kernel finds a bad index last)
    return (IndexPut_ if inplace else IndexPut).apply(target, values, key, bool(accumulate), *tensors)


# ====================================================================== __getitem__ / __setitem__

def _getitem(self, key):
    # single entries first, as PyTorch's THPVariable_getitem
    if key is None:
        return Unsqueeze.apply(self, 0)
    if key is Ellipsis:
        return Alias.apply(self, (Ellipsis,))
    if _is_int(key):
        return _select(self, 0, int(key), 0)
    if isinstance(key, slice):
        return _slice(self, 0, key, skip_full=False)
    entries = _as_tuple_key(key)
    result, adv = _apply_slicing(self, entries)
    if not adv:
        return Alias.apply(self, (Ellipsis,)) if result is self else result
    return Index.apply(result, _advanced_key(result, adv), *_index_tensors(entries))


def _c10_type_name(np_dtype):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t",
            "int32": "int", "int16": "short", "int8": "int8_t", "uint8": "uint8_t",
            "bool": "bool"}.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def _value_to_tensor(self, value):
    """What ``x[key] = value`` accepts: a tensor, or a number (converted to x's dtype)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (numbers.Number, np.bool_)):
        dt = self._data.dtype
        if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real) and dt.kind != "c":
            raise RuntimeError(f"value cannot be converted to type {_c10_type_name(dt)} without overflow")
        checked_int(value, dt)
        with np.errstate(invalid="ignore", over="ignore"):
            return Tensor._make(namespace(self._data).asarray(_host.array(value).astype(dt)))   # on self's device
    raise TypeError(f"can't assign a {_type_name(value)} to a {self.type()}")


def _copy_to(dst, src):
    """Write ``src`` into the view ``dst`` (PyTorch's ``copy_to``): copy_, fill_ for a 0-dim src, else broadcast.
    An assignment refuses a target that overlaps itself, even where a plain ``fill_`` would write."""
    check_no_internal_overlap(dst._data)
    if dst._data.shape == src._data.shape:
        dst.copy_(src)
    elif src._data.ndim == 0:
        dst.fill_(src)
    else:
        s = src._data.shape
        k = 0
        while k < len(s) and s[k] == 1:
            k += 1
        if k:
            src = src.view(s[k:])
        dst.copy_(src.expand(dst._data.shape))


def _setitem(self, key, value):
    value = _value_to_tensor(self, value)
    if key is False:
        return
    if key is Ellipsis:
        return _copy_to(self, value)
    if key is None or key is True:
        return _copy_to(Unsqueeze.apply(self, 0), value)
    if _is_int(key):
        return _copy_to(_select(self, 0, int(key), 0), value)
    if isinstance(key, slice):
        return _copy_to(_slice(self, 0, key, skip_full=True), value)
    entries = _as_tuple_key(key)
    sliced, adv = _apply_slicing(self, entries)
    if not adv:
        return _copy_to(sliced, value)
    check_inplace(sliced)  # PyTorch's index_put_ refuses a leaf (or a view of one) before checking the indices
    s = value._data.shape
    k = 0
    while k < len(s) and s[k] == 1:
        k += 1
    if k:
        value = value.view(s[k:])
    _index_put(sliced, _advanced_key(sliced, adv, bounds=False), value, False, inplace=True, adv=adv,
               tensors=_index_tensors(entries), entries=entries)


def _index_put_key(input, indices, argnum):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {_type_name(indices)}")
    adv, dim = [], 0
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {argnum}, but got {_type_name(t)}")
        arr = _index_array(t._data)
        adv.append((dim, arr))
        dim += arr.ndim if arr.dtype == np.bool_ else 1
    if dim > input._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input._data.ndim} (got {dim})")
    return _advanced_key(input, adv, bounds=False), adv  # (_index_put checks the bounds)


def _check_values(values, name="index_put"):
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 3) must be Tensor, not {_type_name(values)}")


def index_put(input, indices, values, accumulate=False):
    _check_values(values)
    input, values = before_checks(IndexPut, input, values)   # (autocast casts first)
    key, adv = _index_put_key(input, indices, 1)
    return _index_put(input, key, values, accumulate, inplace=False, adv=adv, tensors=tuple(indices))


def index_put_(input, indices, values, accumulate=False):
    _check_values(values, "index_put_")
    check_inplace(input)  # (before the indices are looked at, as in PyTorch)
    key, adv = _index_put_key(input, indices, 1)
    return _index_put(input, key, values, accumulate, inplace=True, adv=adv, tensors=tuple(indices))


def _index_put_method(self, indices, values, accumulate=False):
    _check_values(values)
    key, adv = _index_put_key(self, indices, 0)
    return _index_put(self, key, values, accumulate, inplace=False, adv=adv, tensors=tuple(indices))


def _index_put__method(self, indices, values, accumulate=False):
    _check_values(values, "index_put_")
    check_inplace(self)  # (before the indices are looked at, as in PyTorch)
    key, adv = _index_put_key(self, indices, 0)
    return _index_put(self, key, values, accumulate, inplace=True, adv=adv, tensors=tuple(indices))


# ====================================================================== index_select / index_add / copy / fill

def _array_of(t, like):
    """The array of an index or mask argument (anything else given is made on the device of array ``like``)."""
    if isinstance(t, Tensor):
        return t._data
    return _on(namespace(like), t if is_array(t) else _host.asarray(t))


def _index_arg(index, idx):
    """The index as an op takes it: the caller's Tensor itself when it holds the array ``idx``, so that
    saving it checks its version in backward as PyTorch's saved index is checked; else the array."""
    return index if isinstance(index, Tensor) and index._data is idx else idx


class IndexSelect(ArrayFunction):
    """out = the slices of x at index along dim (a copy);  dx = zeros with grad added back there (index_add)"""
    node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.in_shape, ctx.dim, ctx.index = x.shape, dim, index
        ctx.save_for_backward(index)   # PyTorch saves the index: an in-place write to it is an error
        if x.ndim == 0:
            return x.copy()
        return namespace(x).take(x, index.reshape(-1), axis=dim)

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        if len(ctx.in_shape) == 0:
            return grad, None, None
        zeros = _zeros(ctx.in_shape, grad._data.dtype, grad._data)
        return index_add(zeros, ctx.dim, _const(ctx.index.reshape(-1)), grad), None, None


def index_select(input, dim, index, *, out=None):
    idx = _array_of(index, input._data)
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    n = input._data.ndim
    d = wrap_dim(dim, n)
    if n == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    size = input._data.shape[d] if n else 1
    bad = (idx < 0) | (idx >= size)
    # PyTorch's CPU kernel checks in three places, each with its own words
    if n > 1 and idx.size and (input._data.size == 0 or d == 1):
        if input._data.size == 0 and size == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if bad.any():  # the empty-self check and the dim-1 fast path
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[bad][0])} axis_dim={size}")
    elif bad.any():
        raise IndexError("index out of range in self")
    r = IndexSelect.apply(input, d, _index_arg(index, idx.astype(np.int64, copy=False)))
    return write_out(out, r)


class IndexAdd(ArrayFunction):
    """out = x with alpha * source added at index along dim (repeats add up);
    dx = grad,  dsource = alpha * grad.index_select(dim, index)"""
    node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, source, alpha):
        ctx.dim, ctx.index, ctx.alpha = dim, index, alpha
        # PyTorch saves index and source for source's gradient only (it is expanded as source)
        ctx.save_for_backward(needed(ctx, 3, index), needed(ctx, 3, source))
        out = copy_in_format(x, "contiguous_format")  # ATen's structured kernel allocates it contiguous
        if out.size == 0:
            return out  # nothing to add to (the indices were not checked either, as in PyTorch)
        o = _nd(out)
        src = source if source.ndim == o.ndim else source.reshape((1,) * o.ndim)
        key = (slice(None),) * dim + (index.reshape(-1),)
        if o.ndim > 1 and dim in (0, o.ndim - 1) and alpha == 1 and to_opmath(o) is not o:
            # float16/bfloat16 along the first or last of several dims: ATen scatter-adds in float32, one
            # rounding per result; else (and with an alpha) it adds slice after slice in the half type (measured)
            wide = to_opmath(o)
            _scatter_add_at(wide, key, to_opmath(src.astype(o.dtype, copy=False)))
            o[...] = wide
            return out
        if alpha != 1:
            src = src * (int(alpha) if o.dtype.kind in "iub" else alpha)
        _scatter_add_at(o, key, src.astype(o.dtype, copy=False))
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        gs = None
        if ctx.needs_input_grad[3]:
            gs = index_select(grad, ctx.dim, _const(ctx.index))
            if ctx.alpha != 1:
                gs = gs * ctx.alpha
        return grad, None, None, gs, None


IndexAdd_ = _inplace(IndexAdd)


def _check_bounds(idx, size, dim, exc=RuntimeError, prefix="", negative=True):
    """PyTorch's out-of-bounds message (``negative``: indices in [-size, 0) count from the end)."""
    bad = (idx < (-size if negative else 0)) | (idx >= size)
    if bad.any():
        raise exc(f"{prefix}index {int(idx[bad].reshape(-1)[0])} is out of bounds for dimension {dim} with size {size}")


def _index_add(input, dim, index, source, alpha, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    n = input._data.ndim
    d = wrap_dim(dim, n)
    idx = _array_of(index, input._data)
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{_type_word(idx.dtype)} and size: {shape_str(idx.shape)}")
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {_type_word(idx.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_add_(): self ({_type_word(input._data.dtype)}) and source "
                           f"({_type_word(source._data.dtype)}) must have the same scalar type")
    ss, xs = source._data.shape, input._data.shape
    if d and d >= len(ss):
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor with dim {len(ss)}")
    n_src = ss[d] if ss else 1
    if idx.size != n_src:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {d}")
    # ATen compares the shapes without dim, or whole when either is 0-dim (then both must be)
    if (ss[:d] + ss[d + 1:] != xs[:d] + xs[d + 1:]) if ss and xs else ss != xs:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {shape_str(xs)} source.shape = {shape_str(ss)}")
    if inplace:
        _check_no_overlap(input, index, source)
    if len(xs) <= 1 or 0 < d < len(xs) - 1 and input._data.size:
        # PyTorch's 1-D kernel, and its loop over slices for a middle dim, word it differently (along the
        # first or last dim it runs scatter_add, whose check is _check_bounds')
        if ((idx < 0) | (idx >= (xs[d] if xs else 1))).any():
            raise IndexError("index out of range in self")
    elif input._data.size:  # (PyTorch's kernel returns before checking when self has no elements)
        _check_bounds(idx, xs[d], d, negative=False)
    return (IndexAdd_ if inplace else IndexAdd).apply(input, d, _index_arg(index, idx.astype(np.int64, copy=False)),
                                                     source, alpha)


def index_add(input, dim, index, source, *, alpha=1, out=None):
    return write_out(out, _index_add(input, dim, index, source, alpha, False))


def index_add_(self, dim, index, source, *, alpha=1):
    return _index_add(self, dim, index, source, alpha, True)


class IndexCopy(ArrayFunction):
    """out = x with the slices at index along dim replaced by source;
    dx = grad.index_fill(dim, index, 0),  dsource = grad.index_select(dim, index)"""
    node_name = "IndexCopyBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, source):
        ctx.dim, ctx.index = dim, index
        # PyTorch saves the index (both gradients read it), source for its own gradient (expanded as it)
        ctx.save_for_backward(index, needed(ctx, 3, source))
        out = copy_in_format(x, "contiguous_format")  # ATen's structured kernel allocates it contiguous
        o = _nd(out)
        src = source if source.ndim == o.ndim else source.reshape((1,) * o.ndim)
        o[(slice(None),) * dim + (index.reshape(-1),)] = src
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        idx = _const(ctx.index)
        gx = index_fill(grad, ctx.dim, idx, 0) if ctx.needs_input_grad[0] else None
        gs = index_select(grad, ctx.dim, idx) if ctx.needs_input_grad[3] else None
        return gx, None, None, gs


IndexCopy_ = _inplace(IndexCopy)


def _index_copy(input, dim, index, source, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    input, source = before_checks(IndexCopy_ if inplace else IndexCopy, input, source)   # (autocast casts first)
    n = input._data.ndim
    d = wrap_dim(dim, n)
    idx = _array_of(index, input._data)
    ss, xs = source._data.shape, input._data.shape
    if idx.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    if not ss and idx.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {idx.size})")
    if ss and xs and len(ss) != len(xs):
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({len(ss)}), destination dimensionality ({len(xs)})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_type_word(idx.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_type_word(input._data.dtype)} and (source) {_type_word(source._data.dtype)}")
    xsl = xs[:d] + xs[d + 1:] if xs else ()
    ssl = ss[:d] + ss[d + 1:] if ss else ()
    if xsl != ssl:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {' '.join(map(str, xsl))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, ssl))} at dimension 0.")
    if ss and idx.size != ss[d]:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                         f"({ss[d]})")
    if inplace:
        _check_no_overlap(input, index, source)
    _check_bounds(idx, xs[d] if xs else 1, d, IndexError, "index_copy_(): ", negative=False)
    return (IndexCopy_ if inplace else IndexCopy).apply(input, d, _index_arg(index, idx), source)


def index_copy(input, dim, index, source, *, out=None):
    return write_out(out, _index_copy(input, dim, index, source, False))


def index_copy_(self, dim, index, source):
    return _index_copy(self, dim, index, source, True)


class IndexFill(ArrayFunction):
    """out = x with the slices at index along dim set to value (a number);  dx = grad.index_fill(dim, index, 0)"""
    node_name = "IndexFillBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, value):
        ctx.dim, ctx.index = dim, index
        ctx.save_for_backward(index)   # PyTorch saves the index: an in-place write to it is an error
        out = copy_in_format(x, "preserve_format")  # ATen: self.clone() + index_fill_
        with np.errstate(invalid="ignore", over="ignore"):
            _nd(out)[(slice(None),) * dim + (index.reshape(-1),)] = _as_fill(value, out.dtype)
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        return index_fill(grad, ctx.dim, _const(ctx.index), 0), None, None, None


class IndexFillTensor(IndexFill):
    """out = x with the slices at index set to a 0-dim tensor value;  dvalue = grad.index_select(dim, index).sum()"""
    node_name = "IndexFillBackward1"

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        gx = index_fill(grad, ctx.dim, _const(ctx.index), 0) if ctx.needs_input_grad[0] else None
        gv = None
        if ctx.needs_input_grad[3]:  # each filled slice once, however often the index names it
            gv = index_select(grad, ctx.dim, _const(namespace(ctx.index).unique(ctx.index))).sum()
        return gx, None, None, gv


IndexFill_ = _inplace(IndexFill)
IndexFillTensor_ = _inplace(IndexFillTensor)


def _index_fill(input, dim, index, value, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    n = input._data.ndim
    d = wrap_dim(dim, n)
    idx = _array_of(index, input._data)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    _check_bounds(idx, input._data.shape[d] if n else 1, d, IndexError)
    if isinstance(value, Tensor):
        cls = IndexFillTensor_ if inplace else IndexFillTensor
    else:
        cls = IndexFill_ if inplace else IndexFill
    return cls.apply(input, d, _index_arg(index, idx), value)


def index_fill(input, dim, index, value):
    return _index_fill(input, dim, index, value, False)


def index_fill_(self, dim, index, value):
    return _index_fill(self, dim, index, value, True)


# ====================================================================== gather / scatter

def _along(idx_shape, dim, idx):
    """The full numpy key that reads/writes ``x[..., idx[i, j, ...], ...]`` (idx at dim, aranges elsewhere)."""
    n = len(idx_shape)
    xp = namespace(idx)
    key = []
    for d in range(n):
        if d == dim:
            key.append(idx)
        else:
            key.append(xp.arange(idx_shape[d]).reshape((-1,) + (1,) * (n - d - 1)))
    return tuple(key)


def _leading(a, shape):
    """The leading ``shape`` block of ``a`` (index tensors may be smaller than self/src)."""
    return a[tuple(slice(0, n) for n in shape)]


class Gather(ArrayFunction):
    """out[i][j] = x[index[i][j]][j] (for dim 0);  dx = zeros.scatter_add(dim, index, grad)"""
    node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.in_shape, ctx.dim, ctx.index = x.shape, dim, index
        ctx.save_for_backward(x, index)   # what PyTorch saves: an in-place write to either is an error
        idx = _nd(index)
        if index.size == 0:  # (an empty index of any shape and dtype gives an empty result of its shape)
            return namespace(x).empty(index.shape, x.dtype)
        # a new C-contiguous array (np.ascontiguousarray would make a 0-dim result 1-dim)
        return namespace(x).array(_nd(x)[_along(idx.shape, dim, idx)].reshape(index.shape), order="C")

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        zeros = _zeros(ctx.in_shape, grad._data.dtype, grad._data)
        return scatter_add(zeros, ctx.dim, _const(ctx.index), grad), None, None


def _scatter_gather_checks(name, self, dim, idx, src=None, gather_word=False):
    if src is not None and src.dtype != self.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    if idx.size == 0:
        return  # PyTorch checks neither an empty index's dtype nor its shape: nothing is read or written
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    sn, xn = max(self.ndim, 1), max(idx.ndim, 1)
    if sn != xn:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as "
                           f"{'input' if gather_word else 'self'} tensor")
    ishape, sshape = _nd(idx).shape, _nd(self).shape
    if gather_word:
        for d in range(sn):
            if d != dim and ishape[d] > sshape[d]:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {shape_str(idx.shape)} to "
                                   f"be no larger than self {shape_str(self.shape)} apart from dimension {dim}")
        return
    wrong = any(d != dim and ishape[d] > sshape[d] for d in range(sn))
    if not wrong and src is not None:
        srcshape = _nd(src).shape
        for d in range(sn):
            wrap_dim(d, len(srcshape))
            if ishape[d] > srcshape[d]:
                wrong = True
                break
    if wrong:
        extra = f" and to be no larger size than src {shape_str(src.shape)}" if src is not None else ""
        raise RuntimeError(f"Expected index {shape_str(idx.shape)} to be no larger than self "
                           f"{shape_str(self.shape)} apart from dimension {dim}{extra}")


def gather(input, dim, index, *, sparse_grad=False, out=None):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _array_of(index, input._data)
    _scatter_gather_checks("gather", x, d, idx, gather_word=True)
    _check_bounds(idx, _nd(x).shape[d], d, negative=False)
    return write_out(out, Gather.apply(input, d, _index_arg(index, idx)))


class Scatter(ArrayFunction):
    """out = x with out[index[i][j]][j] = src[i][j] (dim 0);  dx = grad.scatter(dim, index, 0),  dsrc = grad.gather"""
    node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce=None):
        ctx.dim, ctx.index = dim, index
        ctx.save_for_backward(index)   # PyTorch saves the index: an in-place write to it is an error
        out = copy_in_format(x, "contiguous_format")  # ATen's structured kernel allocates it contiguous
        if index.size == 0:
            return out
        o, idx = _nd(out), _nd(index)
        key = _along(idx.shape, dim, idx)
        s = _leading(_nd(src), idx.shape) if is_array(src) and src.ndim else src
        with np.errstate(invalid="ignore", over="ignore"):
            s = _as_fill(s, o.dtype)
        if reduce is None:
            o[key] = s
        else:
            xp = namespace(o)
            ufunc_at("add" if reduce == "add" else "multiply", o, key, xp.broadcast_to(xp.asarray(s), idx.shape))
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        idx = _const(ctx.index)
        gx = scatter(grad, ctx.dim, idx, 0) if ctx.needs_input_grad[0] else None
        gs = gather(grad, ctx.dim, idx) if ctx.needs_input_grad[3] else None
        return gx, None, None, gs, None


class ScatterValue(Scatter):
    """out = x with value written at the index positions;  dx = grad.scatter(dim, index, 0)"""
    node_name = "ScatterBackward1"

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        return scatter(grad, ctx.dim, _const(ctx.index), 0), None, None, None


class ScatterReduced(Scatter):
    """scatter with reduce='add'/'multiply': PyTorch has no derivative for it"""
    node_name = "NotImplemented"

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::scatter is not implemented")


Scatter_, ScatterValue_, ScatterReduced_ = _inplace(Scatter), _inplace(ScatterValue), _inplace(ScatterReduced)


def _scatter(input, dim, index, src, value, reduce, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    if src is None:
        src = value
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _array_of(index, input._data)
    is_tensor = isinstance(src, Tensor)
    _scatter_gather_checks("scatter", x, d, idx, src._data if is_tensor else None)
    if inplace:
        _check_no_overlap(input, index, src)
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if reduce is not None and is_tensor:
        warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                      UserWarning, stacklevel=user_stacklevel())
    _check_bounds(idx, _nd(x).shape[d], d, negative=False)
    if reduce is not None:
        cls = ScatterReduced_ if inplace else ScatterReduced
    elif is_tensor:
        cls = Scatter_ if inplace else Scatter
    else:
        cls = ScatterValue_ if inplace else ScatterValue
    idx = _index_arg(index, idx)
    if is_tensor or reduce is not None:
        return cls.apply(input, d, idx, src, reduce)
    return cls.apply(input, d, idx, src)


def scatter(input, dim, index, src=None, value=None, *, reduce=None, out=None):
    return write_out(out, _scatter(input, dim, index, src, value, reduce, False))


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    return _scatter(self, dim, index, src, value, reduce, True)


class ScatterAdd(ArrayFunction):
    """out = x with src added at the index positions (repeats add up);  dx = grad,  dsrc = grad.gather(dim, index)"""
    node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.index = dim, index
        ctx.save_for_backward(needed(ctx, 3, index))   # PyTorch saves the index for src's gradient only
        out = copy_in_format(x, "contiguous_format")  # ATen's structured kernel allocates it contiguous
        if index.size:
            idx = _nd(index)
            # float16/bfloat16 add up in float32, each result rounded once (measured; index_add rounds each add)
            wide = to_opmath(out)
            _scatter_add_at(_nd(wide), _along(idx.shape, dim, idx), _leading(_nd(to_opmath(src)), idx.shape))
            if wide is not out:
                out[...] = wide
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        gs = gather(grad, ctx.dim, _const(ctx.index)) if ctx.needs_input_grad[3] else None
        return grad, None, None, gs


ScatterAdd_ = _inplace(ScatterAdd)


def _scatter_add(input, dim, index, src, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _array_of(index, input._data)
    _scatter_gather_checks("scatter", x, d, idx, src._data)
    if inplace:
        _check_no_overlap(input, index, src)
    _check_bounds(idx, _nd(x).shape[d], d, negative=False)
    return (ScatterAdd_ if inplace else ScatterAdd).apply(input, d, _index_arg(index, idx), src)


def scatter_add(input, dim, index, src):
    input, src = before_checks(ScatterAdd, input, src)   # (autocast casts first)
    return _scatter_add(input, dim, index, src, False)


def scatter_add_(self, dim, index, src):
    return _scatter_add(self, dim, index, src, True)


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_kernel(x, dim, index, src, reduce, include_self):
    out = copy_in_format(x, "contiguous_format")  # ATen's structured kernel allocates it contiguous
    if index.size == 0:
        return out
    o, idx = _nd(out), _nd(index)
    key = _along(idx.shape, dim, idx)
    s = _leading(_nd(src), idx.shape)
    if not include_self:
        if reduce in ("sum", "mean"):
            ident = 0
        elif reduce == "prod":
            ident = 1
        elif is_float_np(o.dtype):
            ident = -np.inf if reduce in ("amax", "max") else np.inf
        elif o.dtype.kind == "b":
            ident = reduce in ("amin", "min")
        else:
            info = np.iinfo(o.dtype)
            ident = info.min if reduce in ("amax", "max") else info.max
        o[key] = ident
    ufunc = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum",
             "max": "maximum", "min": "minimum"}[reduce]
    if reduce in ("sum", "mean") and to_opmath(o) is not o:
        # float16/bfloat16 sums add up in float32, each rounded once (as scatter_add's; measured)
        wide = to_opmath(o)
        ufunc_at(ufunc, wide, key, to_opmath(s))
        o[...] = wide
    else:
        ufunc_at(ufunc, o, key, s)
    if reduce == "mean":
        xp = namespace(o)
        count = xp.zeros(o.shape, np.int64)
        _scatter_add_at(count, key, 1)
        if include_self:
            count += 1
        count = xp.maximum(count, 1)
        if o.dtype.kind in "iub":
            o[...] = xp.floor_divide(o, count)
        else:
            o[...] = o / count
    return out


class ScatterReduce(ArrayFunction):
    """out = x with src reduced (sum/prod/mean/amax/amin) into the index positions;
    backward: PyTorch's ``scatter_reduce_backward`` formulas (ties of amax/amin share the gradient)"""
    node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        out = _scatter_reduce_kernel(x, dim, index, src, reduce, include_self)
        ctx.save_for_backward(x, src, out, index)   # (the index too, as PyTorch saves it: version-checked)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, src, result, _ = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        index = _const(ctx.index)
        key = _along(_nd(ctx.index).shape, dim, _nd(ctx.index))
        if reduce == "sum":
            gx, gs = grad, gather(grad, dim, index)
        elif reduce == "mean":
            n = namespace(grad._data).zeros(_nd(grad._data).shape, grad._data.dtype)
            _scatter_add_at(n, key, 1)
            if include_self:
                n += 1
            n[n == 0] = 1
            n = n.reshape(grad._data.shape)
            gx = grad / _const(n)
            gs = gather(grad, dim, index) / _const(n).gather(dim, index)
        elif reduce == "prod":
            masked_self = masked_fill(x, x == 0, 1)
            masked_self_result = scatter_reduce(masked_self, dim, index, src, reduce, include_self=include_self)
            gx = grad * masked_self_result / masked_self
            src_zero = src == 0
            src_num_zeros = scatter_add(_zeros(x.shape, x._data.dtype, x._data), dim, index,
                                        src_zero.to(x.dtype)).gather(dim, index)
            src_single_zero = src_zero & (src_num_zeros == 1)
            masked_src = masked_fill(src, src_single_zero, 1)
            masked_src_result = scatter_reduce(x, dim, index, masked_src, reduce, include_self=include_self)
            from .elementwise import where
            gs = where(src_single_zero, gather(grad * masked_src_result, dim, index),
                       gather(grad * result, dim, index) / masked_fill(src, src_zero, 1))
        elif reduce not in _REDUCES:  # the legacy "max" / "min" run forward, but have no derivative
            raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got "
                               f"{reduce}.")
        else:  # amax / amin: the gradient is shared evenly among the values equal to the result
            xd, sd, rd = _nd(x._data), _nd(src._data), _nd(result._data)
            value = rd[key]
            self_is = (xd == rd).astype(grad._data.dtype)
            src_is = (_leading(sd, value.shape) == value).astype(grad._data.dtype)
            n = self_is.copy()
            _scatter_add_at(n, key, src_is)
            dist = grad / _const(n.reshape(grad._data.shape))
            gx = dist * _const(self_is.reshape(grad._data.shape))
            gs = gather(dist, dim, index) * _const(src_is.reshape(ctx.index.shape))
        if not include_self:
            gx = scatter(gx, dim, index, 0)
        return (gx if ctx.needs_input_grad[0] else None), None, None, \
            (gs if ctx.needs_input_grad[3] else None), None, None


ScatterReduce_ = _inplace(ScatterReduce)


def _scatter_reduce(input, dim, index, src, reduce, include_self, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _array_of(index, input._data)
    _scatter_gather_checks("scatter", x, d, idx, src._data)
    if inplace:
        _check_no_overlap(input, index, src)
    # PyTorch's kernel also takes the legacy names "max" and "min" (as amax / amin), undocumented
    if reduce not in _REDUCES + ("max", "min"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    # ATen's kernel has no bool mean and no complex amax / amin (the legacy "max" / "min" map to those)
    kind = "amax" if reduce == "max" else "amin" if reduce == "min" else reduce
    if (x.dtype.kind == "b" and kind == "mean") or (x.dtype.kind == "c" and kind in ("amax", "amin")):
        raise NotImplementedError(f"\"scatter_gather_tensor_cpu_reduce_{kind}\" not implemented for "
                                  f"'{_type_word(x.dtype)}'")
    _check_bounds(idx, _nd(x).shape[d], d, negative=False)
    return (ScatterReduce_ if inplace else ScatterReduce).apply(input, d, _index_arg(index, idx), src, reduce,
                                                               bool(include_self))


class IndexReduce(ScatterReduce):
    """out = x with the slices of source reduced (prod/mean/amax/amin) into the slices at index along dim: a
    scatter_reduce whose index is ``index`` along dim, the same for every position of the other dims"""
    node_name = "IndexReduceBackward0"


IndexReduce_ = _inplace(IndexReduce)


def _check_index_reduce_dtype(dtype, ndim, reduce, include_self):
    """The dtypes ATen's index_reduce kernels leave out: bool and complex where it initialises the slots (not
    include_self) or reduces elementwise (a 0/1-dim self); a higher-dim self reduces slice by slice, with
    ``div_`` (no floor division of bools) and ``maximum`` / ``minimum`` (no complex)."""
    word = _type_word(dtype)
    if dtype.kind not in "bc":
        return
    if not include_self:
        raise NotImplementedError(f"\"index_reduce_func_exclude_input_init\" not implemented for '{word}'")
    if ndim <= 1:
        raise NotImplementedError(f"\"index_func_\" not implemented for '{word}'")
    if dtype.kind == "b" and reduce == "mean":
        raise NotImplementedError(f"\"div_floor_cpu\" not implemented for '{word}'")
    if dtype.kind == "c" and reduce in ("amax", "amin"):
        name = "maximum" if reduce == "amax" else "minimum"
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{word}'")


def _index_reduce(input, dim, index, source, reduce, include_self, inplace):
    if inplace:
        check_inplace(input)
    name = "index_reduce_()"
    d = wrap_dim(dim, input._data.ndim)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    idx = _array_of(index, input._data)
    if idx.dtype.kind not in "iu" or idx.dtype.itemsize not in (4, 8):
        raise RuntimeError(f"{name}: Expected dtype int32/int64 for index but got: {_type_word(idx.dtype)}")
    if idx.ndim > 1:
        raise IndexError(f"{name}: Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{_type_word(idx.dtype)} and size: {list(idx.shape)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}: self ({_type_word(input._data.dtype)}) and source "
                           f"({_type_word(source._data.dtype)}) must have the same scalar type")
    xs, ss = _nd(input._data).shape, _nd(source._data).shape
    if len(xs) != len(ss) or any(a != b for i, (a, b) in enumerate(zip(xs, ss)) if i != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    if idx.size and bool(((idx < 0) | (idx >= (xs[d] if xs else 1))).any()):
        raise IndexError("index out of range in self")
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning,
                  stacklevel=user_stacklevel())   # (the learner's line, however the call was wrapped)
    _check_index_reduce_dtype(input._data.dtype, len(xs), reduce, include_self)
    # the index of every element of source: ``index`` along dim, broadcast over the other dims
    xp = namespace(idx)
    along = [1] * len(ss)
    if ss:
        along[d] = ss[d]
    full = xp.broadcast_to(idx.astype(np.int64).reshape(along), ss)
    return (IndexReduce_ if inplace else IndexReduce).apply(input, d, xp.ascontiguousarray(full), source, reduce,
                                                            bool(include_self))


def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    return write_out(out, _index_reduce(input, dim, index, source, reduce, include_self, False))


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    return _index_reduce(self, dim, index, source, reduce, include_self, True)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    return write_out(out, _scatter_reduce(input, dim, index, src, reduce, include_self, False))


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    return _scatter_reduce(self, dim, index, src, reduce, include_self, True)


# ====================================================================== masks

_C10_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "float32": "float", "float64": "double", "float16": "c10::Half",
              "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


class MaskedFill(ArrayFunction):
    """out = x with value where mask (mask broadcasts);  dx = grad.masked_fill(mask, 0)"""
    node_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, x, mask, value):
        ctx.mask = mask
        ctx.save_for_backward(mask)   # PyTorch saves the mask: an in-place write to it breaks backward
        with np.errstate(invalid="ignore", over="ignore"):
            v = _as_fill(value, x.dtype)
        return in_format(namespace(x).where(mask, v, x), "contiguous_format")  # ATen: a contiguous clone + masked_fill_

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        return MaskedFill.apply(grad, ctx.mask, 0), None, None


class MaskedFillTensor(MaskedFill):
    """out = x with a 0-dim tensor value where mask;  dvalue = grad summed where mask"""
    node_name = "MaskedFillBackward1"

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (the version check)
        gx = MaskedFill.apply(grad, ctx.mask, 0) if ctx.needs_input_grad[0] else None
        gv = MaskedFill.apply(grad, ~ctx.mask, 0).sum() if ctx.needs_input_grad[2] else None
        return gx, None, gv


MaskedFill_, MaskedFillTensor_ = _inplace(MaskedFill), _inplace(MaskedFillTensor)


def _masked_fill(input, mask, value, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    m = _array_of(mask, input._data)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_C10_NAMES.get(m.dtype.name, m.dtype.name)}")
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    if not inplace:
        broadcast_shapes_or_raise(m.shape, input._data.shape)
    m = _index_arg(mask, m)   # (the caller's mask tensor: saved, version-checked)
    if isinstance(value, Tensor):
        if value.device.type == "cpu":   # ATen's CPU kernel fills with value.item(), checked like a number
            checked_int(value.item(), input._data.dtype)
        return (MaskedFillTensor_ if inplace else MaskedFillTensor).apply(input, m, value)
    checked_int(value, input._data.dtype)
    return (MaskedFill_ if inplace else MaskedFill).apply(input, m, value)


def masked_fill(input, mask, value):
    return _masked_fill(input, mask, value, False)


def masked_fill_(self, mask, value):
    return _masked_fill(self, mask, value, True)


class MaskedSelect(ArrayFunction):
    """out = the elements of x where mask (both broadcast), as a 1-D copy;  dx = zeros.masked_scatter(mask, grad)"""
    node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        xp = namespace(x)
        shape = np.broadcast_shapes(x.shape, mask.shape)
        m = xp.broadcast_to(mask, shape)
        ctx.mask, ctx.shape = m, shape
        ctx.save_for_backward(x, mask)   # PyTorch saves self and mask: changing either in place breaks backward
        return xp.broadcast_to(x, shape)[m]

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        return MaskedScatter.apply(_zeros(ctx.shape, grad._data.dtype, grad._data), ctx.mask, grad), None


def masked_select(input, mask, *, out=None):
    m = _array_of(mask, input._data)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    broadcast_shapes_or_raise(m.shape, input._data.shape)
    no_meta_kernel("masked_select", input._data, m)
    return write_out(out, MaskedSelect.apply(input, _index_arg(mask, m)))


class MaskedScatter(ArrayFunction):
    """out = x with the elements where mask taken, in order, from source;
    dx = grad.masked_fill(mask, 0),  dsource = grad[mask] (zeros for the unused rest of source)"""
    node_name = "MaskedScatterBackward0"

    @staticmethod
    def forward(ctx, x, mask, source):
        xp = namespace(x)
        shape = np.broadcast_shapes(x.shape, mask.shape)
        m = xp.broadcast_to(mask, shape)
        n = int(m.sum())
        ctx.mask, ctx.n, ctx.src_shape = m, n, source.shape
        ctx.save_for_backward(mask)   # PyTorch saves the mask (version-checked in backward)
        # ATen: a contiguous clone + masked_scatter_
        out = copy_in_format(xp.broadcast_to(x, shape), "contiguous_format")
        out[m] = source.reshape(-1)[:n]
        return out

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (the version check)
        gx = MaskedFill.apply(grad, ctx.mask, 0) if ctx.needs_input_grad[0] else None
        gs = None
        if ctx.needs_input_grad[2]:
            numel = math.prod(ctx.src_shape)
            sel = MaskedSelect.apply(grad, ctx.mask)
            gs = IndexEmbed.apply(sel, (numel,), (slice(0, ctx.n),)).reshape(ctx.src_shape)
        return gx, None, gs


MaskedScatter_ = _inplace(MaskedScatter)


def _masked_scatter(input, mask, source, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    m = _array_of(mask, input._data)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_type_word(m.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_type_word(input._data.dtype)} and {_type_word(source._data.dtype)}")
    shape = broadcast_shapes_or_raise(m.shape, input._data.shape)
    if int(namespace(m).broadcast_to(m, shape).sum()) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return (MaskedScatter_ if inplace else MaskedScatter).apply(input, _index_arg(mask, m), source)


def masked_scatter(input, mask, source):
    return _masked_scatter(input, mask, source, False)


def masked_scatter_(self, mask, source):
    return _masked_scatter(self, mask, source, True)


# ====================================================================== take / put

class Take(ArrayFunction):
    """out = x.flatten()[index] (shaped like index);  dx = zeros.put_(index, grad, accumulate=True)"""
    node_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, x, index):
        ctx.index = index
        ctx.save_for_backward(x, index)   # PyTorch saves self and index (take_backward reads them): version-checked
        return x.reshape(-1)[index]

    @staticmethod
    def backward(ctx, grad):
        x, _ = ctx.saved_tensors
        return Put.apply(_zeros(x.shape, grad._data.dtype, grad._data), ctx.index, grad, True), None


def _flat_bounds(idx, n):
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(idx[bad].reshape(-1)[0])} on a tensor of {n} "
                         f"elements.")


def take(input, index):
    idx = _array_of(index, input._data)
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_type_word(idx.dtype)}")
    _flat_bounds(idx, input._data.size)
    return Take.apply(input, _index_arg(index, idx))


class Put(ArrayFunction):
    """out = x with out.flatten()[index] = source (accumulate: +=);
    dx = grad (zero at index unless accumulating),  dsource = grad.take(index)"""
    node_name = "PutBackward0"

    @staticmethod
    def forward(ctx, x, index, source, accumulate):
        ctx.index, ctx.accumulate, ctx.source_shape = index, accumulate, source.shape
        # PyTorch saves the index (both gradients read it), source for its own gradient (reshaped as it)
        ctx.save_for_backward(index, needed(ctx, 2, source))
        out = namespace(x).array(x, order="C")    # the flat indices count in C order: a C copy is its own flat view
        flat = out.reshape(-1)
        if accumulate:
            _scatter_add_at(flat, index.reshape(-1), source.reshape(-1))
        else:
            flat[index.reshape(-1)] = source.reshape(-1)
        # ATen: self.clone() (preserve_format) + put_
        return relayout(out, format_strides(x.shape, [st // x.itemsize for st in x.strides], "preserve_format"))

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        gx = gs = None
        if ctx.needs_input_grad[0]:
            gx = grad if ctx.accumulate else Put.apply(
                grad, ctx.index, namespace(grad._data).zeros(ctx.source_shape, grad._data.dtype), False)
        if ctx.needs_input_grad[2]:
            gs = Take.apply(grad, ctx.index).reshape(ctx.source_shape)
        return gx, None, gs, None


Put_ = _inplace(Put)


def _put(input, index, source, accumulate, inplace):
    if inplace:
        check_inplace(input)  # (PyTorch refuses a leaf before its kernel checks the arguments)
    idx = _array_of(index, input._data)
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_type_word(idx.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_type_word(input._data.dtype)} and source.dtype = {_type_word(source._data.dtype)}")
    if source._data.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._data.size}, index.numel() = {idx.size}")
    if inplace:
        _check_no_overlap(input, index, source)
    _flat_bounds(idx, input._data.size)
    return (Put_ if inplace else Put).apply(input, _index_arg(index, idx), source, bool(accumulate))


def put(input, index, source, accumulate=False):
    return _put(input, index, source, accumulate, False)


def put_(self, index, source, accumulate=False):
    return _put(self, index, source, accumulate, True)


def take_along_dim(input, indices, dim=None, *, out=None):
    idx = _array_of(indices, input._data)
    if idx.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_type_word(idx.dtype)}")
    if dim is None:
        r = gather(input.reshape(-1), 0, indices.reshape(-1))
        return write_out(out, r)
    n = input._data.ndim
    if n != idx.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {n} dimensions for input, and {idx.ndim} dimensions for indices")
    d = wrap_dim(dim, n)
    xs = list(input._data.shape)
    xs[d] = idx.shape[d]
    bshape = list(broadcast_shapes_or_raise(tuple(xs), idx.shape))
    ind = indices.expand(bshape)
    bshape[d] = input._data.shape[d]
    x = input.expand(bshape)
    return write_out(out, gather(x, d, ind))


# ====================================================================== nonzero

def nonzero(input, *, out=None, as_tuple=False):
    arr = input._data
    xp = namespace(arr)
    no_meta_kernel("nonzero", arr)
    if as_tuple:
        return tuple(Tensor._make(c.astype(np.int64)) for c in xp.nonzero(_nd(arr)))
    # PyTorch fills an (ndim, count) array and returns its transpose: strides (1, count) even for a 1-D input,
    # and for no hits too ((1, 0): numpy's own empty array would have all strides 0)
    count = int(xp.count_nonzero(arr))   # (a sync on a device)
    result = _empty_strided((arr.ndim, count), (count, 1), np.int64, xp)
    if arr.ndim:  # (a nonzero 0-dim input gives one row of no coordinates)
        result[...] = xp.stack(xp.nonzero(arr)) if xp is not _host else _host.nonzero(arr)
    return write_out(out, Tensor._make(result.T))


def argwhere(input):
    return nonzero(input)


def nonzero_static(input, *, size, fill_value=-1, out=None):
    """nonzero with a fixed number of rows (``size``): cut to it, or filled up with ``fill_value`` rows."""
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = nonzero(input)._data
    xp = namespace(found)
    result = xp.full((size, found.shape[1]), fill_value, dtype=np.int64)
    n = min(size, found.shape[0])
    result[:n] = found[:n]
    return write_out(out, Tensor._make(result))


# ====================================================================== registration

register({
    "__getitem__": _getitem, "__setitem__": _setitem,
    "index_select": index_select, "gather": gather, "scatter": scatter, "scatter_": scatter_,
    "scatter_add": scatter_add, "scatter_add_": scatter_add_, "scatter_reduce": scatter_reduce,
    "scatter_reduce_": scatter_reduce_, "index_add": index_add, "index_add_": index_add_,
    "index_reduce": index_reduce, "index_reduce_": index_reduce_, "nonzero_static": nonzero_static,
    "index_copy": index_copy, "index_copy_": index_copy_, "index_fill": index_fill, "index_fill_": index_fill_,
    "index_put": _index_put_method, "index_put_": _index_put__method, "masked_fill": masked_fill,
    "masked_fill_": masked_fill_, "masked_select": masked_select, "masked_scatter": masked_scatter,
    "masked_scatter_": masked_scatter_, "take": take, "take_along_dim": take_along_dim, "put": put,
    "put_": put_, "nonzero": nonzero, "argwhere": argwhere,
})
