"""Shape ops and views: ``view``, ``reshape``, ``transpose``, ``expand``, ``select``, ``as_strided`` ...

A view op's kernel returns a numpy *view* of its input (no copy); the op class
sets ``_view_of = 0`` so the output shares its input's base and version
counter.  ``x.view(...)``, ``x.t()``, ``x[1:]`` all share memory with ``x``
exactly where PyTorch's do; ``reshape`` views when it can and copies when it
must; ``clone``/``contiguous`` copy.

In-place ops on a view also change its base: autograd's ``rebase_view_history``
(``autograd/views.py``) gives the base a ``CopySlices`` node (as PyTorch does), so
gradients flow through the modified region correctly.
"""
import functools
import math
import numbers
import operator
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .._layout import broadcast_shapes_or_raise, check_no_partial_overlap, copy_in_format
from .._tensor import Tensor, Size, contiguous_format, preserve_format
from ..storage import TypedStorage, storage_view
from ..backend import storage_root as _storage_root, address as _address, as_strided as _as_strided, namespace
from ..backend import CPU_ARRAY, host_view_at, scatter_add, writeable as _writeable, share_between_processes, is_shared_between_processes
from ..autograd.function import ArrayFunction, Function
# the positions of a view's elements in its storage, and the ops that gather/scatter at them, live with
# autograd's view machinery (CopySlices needs them); as_strided's backward uses them too
from ..autograd.views import _on, _element_positions, _storage_offset, TakePositions, ScatterPositions
from ._util import wrap_dim, wrap_dims, register, shape_str, _type_word
from .creation import zero_grad

__all__ = ["reshape", "transpose", "swapaxes", "swapdims", "permute", "t", "squeeze", "unsqueeze",
           "flatten", "unflatten", "narrow", "select", "unbind", "split", "chunk", "tensor_split",
           "hsplit", "vsplit", "dsplit", "diagonal", "as_strided", "clone", "movedim", "moveaxis",
           "adjoint", "broadcast_to", "broadcast_tensors", "broadcast_shapes", "atleast_1d",
           "atleast_2d", "atleast_3d", "ravel", "view_as_real", "view_as_complex", "numel"]


def _shape_arg(shape, fn=None, arg=None):
    """``view(2, 3)`` and ``view((2, 3))`` both mean (2, 3); none at all is PyTorch's TypeError."""
    if not shape and fn is not None:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "{arg}"')
    if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
        shape = shape[0]
    return tuple(map(int, shape))


def _infer_size(shape, numel):
    if -1 not in shape and min(shape, default=0) >= 0 and math.prod(shape) == numel:
        return shape    # (the usual case, checked in one go)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
        shape = list(shape)
        shape[neg[0]] = numel // known
        return tuple(shape)
    if known != numel:
        raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
    return shape


def _restride(x, shape, strides, writeable):
    """A view of ``x``'s memory with this shape and byte strides; numpy's keeps the ``writeable`` flag
    asked for (cupy has none: ``backend.writeable`` tells an overlapping view there)."""
    if type(x) is CPU_ARRAY:
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=writeable)
    return _as_strided(x, tuple(shape), tuple(strides))


def _view_array(x, shape):
    """A view of ``x`` with ``shape``, or None when the strides don't allow one."""
    if type(x) is not CPU_ARRAY:   # cupy's reshape copies silently where no view exists: ask the strides
        if not x.size:
            return x.reshape(shape)
        strides = _view_strides(x.shape, x.strides, shape, x.itemsize)
        return None if strides is None else _restride(x, shape, strides, True)
    try:
        out = x.reshape(shape, copy=False)
    except (ValueError, AttributeError):
        return None
    if (1 in shape or 1 in x.shape) and out.size:
        # numpy and PyTorch may number the strides of size-1 dims differently: use PyTorch's
        strides = _view_strides(x.shape, x.strides, shape, x.itemsize)
        if strides is not None and strides != out.strides:
            out = _restride(x, shape, strides, x.flags.writeable)
    return out


def _view_strides(old_shape, old_strides, new_shape, itemsize):
    """PyTorch's strides for viewing (old_shape, old_strides) as new_shape (None: not viewable).

    Walk the old dims from the back, grouping those that are contiguous with each other into
    chunks; each chunk must be covered exactly by consecutive new dims.
    """
    if not old_shape:
        return tuple(itemsize for _ in new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_strides[d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


# ====================================================================== views

class View(ArrayFunction):
    """out = x with a new shape, same memory;  dx = grad.reshape(x.shape)"""
    node_name = "ViewBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        out = _view_array(x, shape)
        if out is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


class ReshapeAlias(View):
    """``reshape`` of a non-contiguous tensor whose strides allow a view (PyTorch's ``_reshape_alias``)"""
    node_name = "ReshapeAliasBackward0"


class UnsafeView(ArrayFunction):
    """out = a fresh tensor with a new shape, not tracked as a view (PyTorch's ``_unsafe_view``: for a
    clone or a product nobody else sees);  dx = grad.reshape(x.shape)"""
    node_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return x.reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


def view(self, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (numbers.Integral, tuple, list, Size)):
        from .._dtype import dtype as _dt
        if isinstance(shape[0], _dt):
            return _view_dtype(self, shape[0])
    if not shape:
        raise TypeError("view() received an invalid combination of arguments - got (), but expected one of:\n"
                        " * (torch.dtype dtype)\n * (tuple of ints size)\n")
    shape = _infer_size(_shape_arg(shape), self._data.size)
    return View.apply(self, shape)


def _view_dtype(self, dt):
    """The same bytes read as another dtype.  With another element size the last dim (contiguous) holds
    more or fewer elements; the other strides, in bytes, stay (so they, and the offset, must divide)."""
    x = self._data
    old, new = x.itemsize, dt.itemsize
    if new != old:
        what = f"to view {_type_word(x.dtype)} as {_type_word(dt.np)} (different element sizes)"
        if x.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        ratio = new // old
        if new > old and x.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {x.shape[-1]}")
        if self.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {self.stride(-1)}")
        if new > old:
            if self.storage_offset() % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                                   f"{self.storage_offset()}")
            for i in range(x.ndim - 1):
                if self.stride(i) % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got "
                                       f"{self.stride(i)}")
    # not differentiable, and not a view for autograd (no _base), but the memory and the version counter
    # are shared, as PyTorch's
    t = Tensor._make(x.view(dt.np))
    t._version_counter = self._shared_version()
    return t


def view_as(self, other):
    return view(self, other.shape)


def reshape(input, *shape):
    """As ATen's reshape: a view of a contiguous tensor (ViewBackward0), a view of a non-contiguous one whose
    strides allow it (ReshapeAliasBackward0), else a contiguous clone reshaped (CloneBackward0, UnsafeViewBackward0)."""
    shape = _infer_size(_shape_arg(shape), input._data.size)
    if input._data.flags.c_contiguous:  # (numpy's flag ignores size-1 dims, as PyTorch's is_contiguous)
        return View.apply(input, shape)
    if _view_array(input._data, shape) is not None:
        return ReshapeAlias.apply(input, shape)
    return UnsafeView.apply(input.clone(memory_format=contiguous_format), shape)


def reshape_as(self, other):
    return reshape(self, other.shape)


class Transpose(ArrayFunction):
    """out = x with dims d0, d1 swapped (a view);  dx = grad.transpose(d0, d1)"""
    node_name = "TransposeBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, d0, d1):
        ctx.dims = (d0, d1)
        return x.swapaxes(d0, d1) if x.ndim else x.view()  # 0-dim: dim 0 / -1 is allowed, nothing moves

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


def transpose(input, dim0, dim1):
    n = input._data.ndim
    return Transpose.apply(input, wrap_dim(dim0, n), wrap_dim(dim1, n))


swapaxes = swapdims = transpose


class T(ArrayFunction):
    """out = x.t() (a view);  dx = grad.t()"""
    node_name = "TBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x):
        return x.T

    @staticmethod
    def backward(ctx, grad):
        return grad.t()


def t(input):
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return T.apply(input)


class Permute(ArrayFunction):
    """out = x with dims reordered (a view);  dx = grad permuted back"""
    node_name = "PermuteBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, dims):
        ctx.inverse = tuple(sorted(range(len(dims)), key=dims.__getitem__))   # (dims: distinct ints)
        return x.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(ctx.inverse), None


def permute(input, *dims):
    dims = _shape_arg(dims, "permute", "dims")
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
                           f"to len(dims) = {len(dims)}")
    return Permute.apply(input, wrap_dims(dims, n))


def movedim(input, source, destination):
    n = input._data.ndim
    if n == 0:  # dims 0 / -1 are accepted, and nothing moves: an alias, as in PyTorch
        wrap_dims(source, n), wrap_dims(destination, n)
        return Alias.apply(input, (Ellipsis,))
    given_src = [source] if isinstance(source, numbers.Integral) else list(source)
    given_dst = [destination] if isinstance(destination, numbers.Integral) else list(destination)
    if len(given_src) != len(given_dst):   # (ATen's checks, in its order, with the dims as given)
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({given_src} dims) should contain "
                           f"the same number of dims as destination ({given_dst} dims)")
    src = [wrap_dim(d, n) for d in given_src]
    dst = [wrap_dim(d, n) for d in given_dst]
    for name, wrapped, given in (("source", src, given_src), ("destination", dst, given_dst)):
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({given})")
    order = [d for d in range(n) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return Permute.apply(input, tuple(order))


moveaxis = movedim


def adjoint(input):
    return input.mH


def _expand_strides(old_shape, old_strides, shape):
    """PyTorch's strides for expanding (old_shape, old_strides) to shape (ATen's ``inferExpandGeometry``):
    from the last dim, a dim keeps its stride unless it is stretched (stride 0); a new leading dim of
    size 1 gets size * stride of the dim after it, as if it had always been there."""
    lead = len(shape) - len(old_shape)
    strides = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if i >= lead:
            size, stride = old_shape[i - lead], old_strides[i - lead]
        else:
            size, stride = 1, (shape[i + 1] * strides[i + 1] if i + 1 < len(shape) else 0)
        strides[i] = stride if size == shape[i] else 0
    return tuple(strides)


class Expand(ArrayFunction):
    """out = x broadcast to a bigger shape (stride 0, a view);  dx = grad summed over the new dims"""
    node_name = "ExpandBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        if x.ndim == 0 and type(x) is CPU_ARRAY and x.dtype.kind in "fiub":
            # the backward of every full reduction: one number seen at every position (quick path)
            out = CPU_ARRAY(shape, x.dtype, buffer=x, strides=(0,) * len(shape))
            out.flags.writeable = False
            return out
        # numpy marks broadcast views read-only; an in-place write into one is refused
        # (PyTorch refuses it too: several elements share one memory location)
        out = namespace(x).broadcast_to(x, shape)
        strides = _expand_strides(x.shape, x.strides, shape)
        if out.strides != strides:  # numpy numbers new and size-1 dims its own way
            out = _restride(x, shape, strides, False)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.in_shape), None


def expand(self, *sizes):
    sizes = _shape_arg(sizes, "expand", "size")
    shape = self._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand(torch.FloatTensor{{{shape_str(shape)}}}, size={shape_str(sizes)}): the "
                           f"number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out.append(s)
        else:
            cur = shape[i - lead]
            if s == -1:
                out.append(cur)
            elif cur != s and cur != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) "
                                   f"at non-singleton dimension {i}.  Target sizes: {shape_str(sizes)}.  Tensor "
                                   f"sizes: {shape_str(shape)}")
            else:
                out.append(s)
    return Expand.apply(self, tuple(out))


def expand_as(self, other):
    return expand(self, other.shape)


def broadcast_to(input, size):
    return expand(input, size)


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to (ints mean 1-d shapes), with PyTorch's errors.

    Walks each shape from its last dimension, filling a common shape of 1s: a 1 takes the
    other size, equal sizes agree, anything else is a mismatch.
    """
    shapes = tuple((s,) if isinstance(s, numbers.Integral) else s for s in shapes if s is not None)
    for s in shapes:
        if not isinstance(s, (tuple, list, Size)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    if not shapes:
        return Size(())
    common = [1] * max(len(s) for s in shapes)
    for k, s in enumerate(shapes):
        for i in range(-1, -1 - len(s), -1):
            if s[i] == common[i]:
                continue
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            if s[i] != 1 and s[i] != common[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching "
                                   f"argument at index {k} had {s}; but expected shape should be broadcastable "
                                   f"to {common}")
    return Size(common)


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else expand(t, shape) for t in tensors)


class Squeeze(ArrayFunction):
    """out = x without size-1 dims (a view);  dx = grad.reshape(x.shape)"""
    node_name = "SqueezeBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, dims=None):
        ctx.in_shape = x.shape
        if dims is None:
            dims = tuple(i for i, s in enumerate(x.shape) if s == 1)
        else:
            dims = tuple(d for d in dims if x.shape[d] == 1)
        return x.squeeze(dims) if dims else x.view()

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


class SqueezeDim(Squeeze):
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    node_name = "SqueezeBackward2"


def squeeze(input, dim=None):
    n = input._data.ndim
    if dim is None:
        return Squeeze.apply(input)
    # the dims are checked even for a 0-dim tensor (which takes 0 and -1), then it has none to squeeze
    if isinstance(dim, numbers.Integral):
        dims = (wrap_dim(dim, n),)
        return SqueezeDim.apply(input, dims if n else ())
    dims = wrap_dims(dim, n)
    return SqueezeDims.apply(input, dims if n else ())


def _unsqueeze_array(x, dim):
    """``x`` with a new size-1 dim at ``dim``, strided as PyTorch strides it."""
    out = namespace(x).expand_dims(x, dim)
    # PyTorch keeps every stride and gives the new dim size*stride of the dim it is inserted
    # before (the item size at the end); numpy may renumber the strides of size-1 dims
    want = x.strides[dim] * x.shape[dim] if dim < x.ndim else x.itemsize
    strides = x.strides[:dim] + (want,) + x.strides[dim:]
    if out.strides != strides:
        out = _restride(x, out.shape, strides, _writeable(x))
    return out


class Unsqueeze(ArrayFunction):
    """out = x with a new size-1 dim (a view);  dx = grad.squeeze(dim)"""
    node_name = "UnsqueezeBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return _unsqueeze_array(x, dim)

    @staticmethod
    def backward(ctx, grad):
        return grad.squeeze(ctx.dim), None


def unsqueeze(input, dim):
    return Unsqueeze.apply(input, wrap_dim(dim, input._data.ndim + 1))


def flatten(input, start_dim=0, end_dim=-1):
    n = input._data.ndim
    if n == 0:
        return reshape(input, 1)
    s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._data.shape
    return reshape(input, shape[:s] + (-1,) + shape[e + 1:])


def unflatten(input, dim, sizes):
    n = input._data.ndim
    d = wrap_dim(dim, n)
    shape = input._data.shape
    given = tuple(sizes)
    if given.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    sizes = given
    known = int(np.prod([s for s in given if s != -1]))
    if -1 in given and known and shape[d] % known == 0:
        sizes = tuple(shape[d] // known if s == -1 else s for s in given)
    if int(np.prod(sizes)) != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {shape_str(given)} don't multiply up to the size of dim "
                           f"{dim} ({shape[d]}) in the input tensor")
    return View.apply(input, shape[:d] + sizes + shape[d + 1:])


def ravel(input):
    return reshape(input, -1)


# ---------------------------------------------------------------------- basic-index views

class _BasicView(ArrayFunction):
    """out = x[key] for a numpy basic-index key (a view);  dx = zeros with grad written at key"""
    _view_of = 0

    @staticmethod
    def forward(ctx, x, key):
        ctx.in_shape = x.shape
        ctx.key = key
        if type(key) is tuple and Ellipsis not in key:
            key = key + (Ellipsis,)  # so numpy returns a 0-dim view, not a scalar copy, at full depth
        out = x[key]
        if out.size == 0 and isinstance(out, CPU_ARRAY):
            out = _empty_view_in_place(x, key, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        return IndexEmbed.apply(grad, ctx.in_shape, ctx.key), None


def _empty_view_in_place(x, key, out):
    """An empty view that starts where PyTorch's does: numpy points every empty view at the start of its
    buffer, which loses the storage offset (``x[1:1].storage_offset()`` is 12 in PyTorch for a (2, 3, 4) x)."""
    key = key if isinstance(key, tuple) else (key,)
    n_indexed = sum(1 for k in key if k is not None and k is not Ellipsis)
    offset, d = 0, 0
    for k in key:
        if k is Ellipsis:
            d += x.ndim - n_indexed
        elif isinstance(k, slice):
            offset += k.indices(x.shape[d])[0] * x.strides[d]   # (the start, clamped to the dim as PyTorch's)
            d += 1
        elif k is not None:
            offset += (k % x.shape[d] if x.shape[d] else 0) * x.strides[d]
            d += 1
    root = _storage_root(x)
    view = host_view_at(root, _address(x) - _address(root) + offset, out)
    return out if view is None else view


class Slice(_BasicView):
    node_name = "SliceBackward0"


class Select(_BasicView):
    node_name = "SelectBackward0"


class Alias(_BasicView):
    node_name = "AliasBackward0"


class IndexEmbed(ArrayFunction):
    """out = zeros(shape) with x written at key (the backward of a basic-index view);  dx = grad[key]"""
    node_name = "SliceBackwardBackward0"

    @staticmethod
    def forward(ctx, x, shape, key):
        ctx.key = key
        out = namespace(x).zeros(shape, dtype=x.dtype)
        out[key] = x
        return out

    @staticmethod
    def backward(ctx, grad):
        key = ctx.key if isinstance(ctx.key, tuple) else (ctx.key,)
        cls = Select if any(isinstance(k, int) for k in key) else Slice
        return cls.apply(grad, ctx.key), None, None


def select(input, dim, index):
    n = input._data.ndim
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, n)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {shape_str(input.shape)} at "
                         f"dimension {dim}")
    key = (slice(None),) * d + (int(index),)
    return Select.apply(input, key)


def narrow_key(input, dim, start, length, copy=False):
    """The basic-index key of ``narrow(dim, start, length)``, checked as PyTorch checks it (``copy``: as
    ``narrow_copy`` does, which has no own words for a negative length)."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input._data.ndim)
    if isinstance(start, Tensor):
        start = int(start.item())
    size = input._data.shape[d]
    if length < 0 and not copy:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return (slice(None),) * d + (slice(start, start + length),)


def narrow(input, dim, start, length):
    return Slice.apply(input, narrow_key(input, dim, start, length))


def _slices_along(input, dim, bounds, cls=Slice):
    d = wrap_dim(dim, input._data.ndim)
    pre = (slice(None),) * d
    return tuple(cls.apply(input, pre + (slice(a, b),)) for a, b in bounds)


class Unbind(ArrayFunction):
    """out = the slices of x along dim (views);  dx = stack of the grads (zeros where missing)"""
    node_name = "UnbindBackward0"
    _keeps_zero = "view"   # (its results become views in unbind(); see autograd/function.py keeps_zero)

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        ctx.in_shape = x.shape
        pre = (slice(None),) * dim
        # (the trailing Ellipsis: at full depth numpy would return a scalar copy, not a 0-dim view)
        return tuple(x[pre + (i, Ellipsis)] for i in range(x.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        from .join import stack
        return stack(grads, ctx.dim), None


def unbind(input, dim=0):
    n = input._data.ndim
    if n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, n)
    outs = Unbind.apply(input, d)
    for o in outs:
        if o._base is None:
            o._become_view_of(input, multi_output=True)
    return outs


class Split(ArrayFunction):
    """out = consecutive pieces of x along dim (views);  dx = the grads concatenated"""
    node_name = "SplitBackward0"
    _keeps_zero = "view"   # (its results become views in split())

    @staticmethod
    def forward(ctx, x, dim, bounds):
        ctx.dim = dim
        pre = (slice(None),) * dim
        return tuple(x[pre + (slice(a, b),)] for a, b in bounds)

    @staticmethod
    def backward(ctx, *grads):
        from .join import cat
        return cat(grads, ctx.dim), None, None


class SplitWithSizes(Split):
    node_name = "SplitWithSizesBackward0"


def _split_apply(cls, input, d, bounds):
    outs = cls.apply(input, d, bounds)
    if not isinstance(outs, tuple):
        outs = (outs,)
    for o in outs:
        if o._base is None:
            o._become_view_of(input, multi_output=True)
    return outs


def split(tensor, split_size_or_sections, dim=0):
    n = tensor._data.ndim
    if n == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, n)
    size = tensor._data.shape[d]
    if isinstance(split_size_or_sections, numbers.Integral):
        step = int(split_size_or_sections)
        if step <= 0 and size > 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        starts = range(0, size, step) if size else [0]
        bounds = tuple((a, min(a + step, size)) for a in starts)
        return _split_apply(Split, tensor, d, bounds)
    sizes = list(split_size_or_sections)
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                           f"at dimension {d}), but got split_sizes={sizes}")
    bounds, a = [], 0
    for s in sizes:
        bounds.append((a, a + s))
        a += s
    return _split_apply(SplitWithSizes, tensor, d, tuple(bounds))


def chunk(input, chunks, dim=0):
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if size == 0:  # an empty dim gives ``chunks`` empty pieces
        return split(input, [0] * chunks, d)
    return split(input, -(-size // chunks), d)


def tensor_split(input, indices_or_sections, dim=0):
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(indices_or_sections, Tensor):
        t = indices_or_sections
        if t.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.ndim} dims")
        if t._data.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_type_word(t._data.dtype)}")
        indices_or_sections = t.tolist()
    if isinstance(indices_or_sections, numbers.Integral):
        n = int(indices_or_sections)
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, a = [], 0
        for i in range(n):
            b = a + q + (1 if i < r else 0)
            bounds.append((a, b))
            a = b
    else:
        idx = [0] + [min(max(int(i), 0), size) for i in indices_or_sections] + [size]
        bounds = [(idx[i], max(idx[i], idx[i + 1])) for i in range(len(idx) - 1)]
    return _slices_along(input, d, bounds)


def _split_n(name, input, sections, min_dims, dim):
    """hsplit/vsplit/dsplit: tensor_split, but an int must divide the dim evenly (PyTorch's checks)."""
    n = input._data.ndim
    if n < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {n} dimensions!")
    if isinstance(sections, numbers.Integral):
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, sections):
    return _split_n("hsplit", input, sections, 1, 1 if input.ndim > 1 else 0)


def vsplit(input, sections):
    return _split_n("vsplit", input, sections, 2, 0)


def dsplit(input, sections):
    return _split_n("dsplit", input, sections, 3, 2)


# ---------------------------------------------------------------------- strided views

def _strided(x, shape, strides_el, offset_el):
    """A writable view of ``x``'s storage with element strides and offset relative to the storage start."""
    root = _storage_root(x)
    item = x.itemsize
    start = _address(root)
    flat = _as_strided(root, (root.nbytes // item,), (item,))
    if flat.dtype != x.dtype:
        flat = flat.view(x.dtype)
    base = flat[offset_el:] if offset_el else flat
    del start
    return _as_strided(base, tuple(shape), tuple(s * item for s in strides_el))


class AsStrided(ArrayFunction):
    """out = a view of x's storage with any size/stride/offset;  dx = grads scattered back (added)"""
    node_name = "AsStridedBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        item = x.itemsize
        ctx.geometry = (x.shape, tuple(s // item for s in x.strides), _storage_offset(x))
        ctx.out_geometry = (size, stride, offset)
        return _strided(x, size, stride, offset)

    @staticmethod
    def backward(ctx, grad):
        if grad._data.size == 0:   # an empty view: PyTorch gives plain zeros, which record no graph
            return Tensor._make(namespace(grad._data).zeros(ctx.geometry[0], grad._data.dtype)), None, None, None
        return AsStridedGrad.apply(grad, ctx.geometry, ctx.out_geometry), None, None, None


class AsStridedGrad(ArrayFunction):
    """The backward of as_strided: add each output gradient into the storage cell it came from."""
    node_name = "AsStridedBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, in_geometry, out_geometry):
        ctx.in_geometry, ctx.out_geometry = in_geometry, out_geometry
        in_pos = _element_positions(*in_geometry)
        out_pos = _element_positions(*out_geometry)
        lo = min(in_pos.min(initial=0), out_pos.min(initial=0))
        hi = max(in_pos.max(initial=0), out_pos.max(initial=0)) + 1
        storage = namespace(grad).zeros(hi - lo, dtype=grad.dtype)
        scatter_add(storage, _on(grad, (out_pos - lo).reshape(-1)), grad.reshape(-1))
        ctx.lo = lo
        return storage[_on(grad, in_pos - lo)]

    @staticmethod
    def backward(ctx, g):
        in_pos = _element_positions(*ctx.in_geometry) - ctx.lo
        out_pos = _element_positions(*ctx.out_geometry) - ctx.lo
        n = int(max(in_pos.max(initial=0), out_pos.max(initial=0)) + 1)
        storage = ScatterPositions.apply(g, (n,), _on(g._data, in_pos))
        return TakePositions.apply(storage, _on(g._data, out_pos)), None, None


def as_strided(input, size, stride, storage_offset=None):
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    off = _storage_offset(input._data) if storage_offset is None else int(storage_offset)
    root = _storage_root(input._data)
    need = off + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if need > root.nbytes // input._data.itemsize:
        raise RuntimeError(f"setStorage: sizes {shape_str(size)}, strides {shape_str(stride)}, storage offset "
                           f"{off}, and itemsize {input._data.itemsize} requiring a storage size of "
                           f"{need * input._data.itemsize} are out of bounds for storage of size {root.nbytes}")
    return AsStrided.apply(input, size, stride, off)


class Diagonal(ArrayFunction):
    """out = the diagonal of dims d1, d2 (a view);  dx = zeros with grad on that diagonal"""
    node_name = "DiagonalBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, offset, d1, d2):
        ctx.args = (x.shape, offset, d1, d2)
        item = x.itemsize
        shape, strides = list(x.shape), [s // item for s in x.strides]
        n1, n2 = shape[d1], shape[d2]
        if offset >= 0:
            length = max(0, min(n1, n2 - offset))
            start = offset * strides[d2] if length else 0
        else:
            length = max(0, min(n1 + offset, n2))
            start = -offset * strides[d1] if length else 0
        diag_stride = strides[d1] + strides[d2]
        keep = [i for i in range(x.ndim) if i not in (d1, d2)]
        new_shape = tuple(shape[i] for i in keep) + (length,)
        new_strides = tuple(strides[i] for i in keep) + (diag_stride,)
        return _strided(x, new_shape, new_strides, _storage_offset(x) + start)

    @staticmethod
    def backward(ctx, grad):
        return DiagonalEmbed.apply(grad, *ctx.args), None, None, None


class DiagonalEmbed(ArrayFunction):
    """zeros(shape) with x on the diagonal (the backward of diagonal);  dx = grad.diagonal(...)"""
    node_name = "DiagonalBackwardBackward0"

    @staticmethod
    def forward(ctx, x, shape, offset, d1, d2):
        ctx.args = (offset, d1, d2)
        out = namespace(x).zeros(shape, dtype=x.dtype)
        view = Diagonal.forward(_Ctx(), out, offset, d1, d2)
        view[...] = x
        return out

    @staticmethod
    def backward(ctx, grad):
        offset, d1, d2 = ctx.args
        return diagonal(grad, offset, d1, d2), None, None, None, None


class _Ctx:
    pass


def diagonal(input, offset=0, dim1=0, dim2=1):
    n = input._data.ndim
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return Diagonal.apply(input, int(offset), d1, d2)


class ViewAsReal(ArrayFunction):
    """out = each complex element as its (real, imag) pair, a new last dim of 2 (a view);
    dx = view_as_complex(grad)"""
    node_name = "ViewAsRealBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x):
        # the real parts (a view with x's byte strides), and a last dim that steps from real to imag:
        # in elements of the real dtype, every stride doubles (any layout, 0-dim too)
        re = x.real
        return _as_strided(re, x.shape + (2,), re.strides + (re.itemsize,))

    @staticmethod
    def backward(ctx, grad):
        return view_as_complex(grad.contiguous())   # (as PyTorch's formula: grad may be expanded)


class ViewAsComplex(ArrayFunction):
    """out = the (real, imag) pairs of the last dim as complex elements (a view);  dx = view_as_real(grad)"""
    node_name = "ViewAsComplexBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x):
        # (view_as_complex checked the layout: numpy reads each stride-1 pair of the last dim as one element)
        return x.view(np.complex64 if x.dtype == np.float32 else np.complex128)[..., 0]

    @staticmethod
    def backward(ctx, grad):
        return view_as_real(grad.contiguous())


def view_as_real(input):
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ViewAsReal.apply(input)


def view_as_complex(input):
    arr = input._data
    if arr.dtype == np.float16:   # (PyTorch's result would be complex32: numpy has no such dtype)
        raise RuntimeError("view_as_complex of a half tensor: pedatorch has no complex32 dtype")
    if arr.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {_type_word(arr.dtype)}")
    if arr.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if arr.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    # a complex element is two reals side by side: every stride and the offset must count whole pairs
    strides = [st // arr.itemsize for st in arr.strides]
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(st % 2 for st in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if _storage_offset(arr) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return ViewAsComplex.apply(input)


def atleast_1d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(t.reshape(1) if t.ndim == 0 else t for t in ts)
    return out[0] if len(out) == 1 else out


def atleast_2d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0) if t.ndim == 1 else t for t in ts)
    return out[0] if len(out) == 1 else out


def atleast_3d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors

    def f(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, -1, 1)
        if t.ndim == 2:
            return t.unsqueeze(-1)
        return t
    out = tuple(f(t) for t in ts)
    return out[0] if len(out) == 1 else out


def numel(input):
    return input._data.size


# ====================================================================== copies

class Clone(ArrayFunction):
    """out = a copy of x (new memory);  dx = grad"""
    node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x, memory_format="preserve_format"):
        return copy_in_format(x, memory_format)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class ViewCopy(ArrayFunction):
    """out = a contiguous copy of a view of x: the ``*_copy`` twins of the view ops (``torch.permute_copy``),
    one node named after the view's (``PermuteBackward0_copy``; see ``view_copy_of``);  dx = the view's own
    backward (its gradient does not depend on x's values: it is found through a stand-in x)."""
    node_name = "ViewCopyBackward"

    @staticmethod
    def forward(ctx, x, view_fn, args, kwargs):
        ctx.view_fn, ctx.args, ctx.kwargs = view_fn, args, kwargs
        # x's geometry in its storage (as_strided_copy reads it)
        ctx.geometry = (x.shape, tuple(st // x.itemsize for st in x.strides), _storage_offset(x),
                        _storage_root(x).nbytes // x.itemsize, x.dtype)
        return copy_in_format(view_fn(Tensor._make(x), *args, **kwargs)._data, "contiguous_format")

    @staticmethod
    def backward(ctx, grad):
        from ..autograd import grad as _grad, enable_grad
        shape, strides, offset, n, dtype = ctx.geometry
        storage = namespace(grad._data).zeros(n, dtype)
        stand_in = Tensor._make(_strided(storage, shape, strides, offset)).requires_grad_()
        with enable_grad():   # (a backward without create_graph runs with grad mode off)
            view = ctx.view_fn(stand_in, *ctx.args, **ctx.kwargs)
            dx, = _grad(view, stand_in, grad, create_graph=grad.requires_grad)
        return dx, None, None, None


_VIEW_COPIES = {}


def view_copy_of(view_fn, name=None):
    """The ``*_copy`` twin of a view op: the same values in new, contiguous memory, recorded as one node
    named after the view's node plus ``_copy`` (PyTorch's generated ``SqueezeBackward1_copy``...), or
    ``name`` (for a view that records no node of its own here: ``alias``)."""
    def fn(input, *args, **kwargs):
        view = view_fn(input, *args, **kwargs)    # (also checks the arguments, with the view's words)
        if isinstance(view, tuple):               # unbind_copy, split_copy: contiguous clones of each piece
            return tuple(clone(v, memory_format=contiguous_format) for v in view)
        if view.grad_fn is None and name is None:
            return clone(view, memory_format=contiguous_format)
        node = name or type(view.grad_fn).__name__ + "_copy"
        if node not in _VIEW_COPIES:
            _VIEW_COPIES[node] = type(node.replace("Backward", "Copy"), (ViewCopy,), {"node_name": node})
        return _VIEW_COPIES[node].apply(input, view_fn, args, kwargs)
    return fn


def clone(input, *, memory_format=preserve_format):
    """A copy in new memory; ``preserve_format`` keeps the input's strides where they are dense."""
    return Clone.apply(input, memory_format.name)


def contiguous(self, memory_format=contiguous_format):
    """self when already laid out in ``memory_format``, else a copy that is."""
    if self.is_contiguous(memory_format):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return Clone.apply(self, memory_format.name)


class Copy(ArrayFunction):
    """self.copy_(src): self's values replaced by src's;  dself = 0,  dsrc = grad"""
    node_name = "CopyBackwards"
    _inplace_of = 0

    @staticmethod
    def forward(ctx, dst, src):
        ctx.src_dtype = getattr(src, "dtype", None)
        if hasattr(src, "shape") and src.shape != dst.shape:   # (src must broadcast to dst's shape)
            shape = broadcast_shapes_or_raise(dst.shape, src.shape)
            if shape != dst.shape:
                raise RuntimeError(f"output with shape {shape_str(dst.shape)} doesn't match the broadcast shape "
                                   f"{shape_str(shape)}")
        out = namespace(dst).empty_like(dst)
        if type(src) is CPU_ARRAY or type(src) is type(dst) or hasattr(src, "__array_interface__"):
            out[...] = src
        else:
            out[...] = _to_host_or_device(src, dst)
        return out

    @staticmethod
    def backward(ctx, grad):
        return zero_grad(grad), grad


def _to_host_or_device(src, dst):
    if type(dst) is CPU_ARRAY and hasattr(src, "get"):
        return src.get()
    return src


def copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        from .creation import tensor
        src = tensor(src)
    if src.device != self.device:
        from .conversion import to_copy
        src = to_copy(src, self.device, None, False)
    elif src is not self:
        check_no_partial_overlap(self._data, src._data)
    if self._data.dtype != src._data.dtype:
        # PyTorch casts freely in copy_ (float into int truncates): cast first, same semantics
        from .conversion import to_copy
        from .._dtype import from_numpy_dtype
        src = to_copy(src, None, from_numpy_dtype(self._data.dtype), False)
    return Copy.apply(self, src)


# ====================================================================== unfold and the *_scatter ops

class Unfold(ArrayFunction):
    """out = all windows of ``size`` along dim, every ``step`` (a view, windows last);  dx = windows added back"""
    node_name = "UnfoldBackward0"
    _view_of = 0

    @staticmethod
    def forward(ctx, x, dim, size, step):
        n = x.shape[dim] if x.ndim else 1
        count = (n - size) // step + 1
        ctx.args = (x.shape, dim, size, step)
        if x.ndim == 0:
            return x.reshape(1)
        shape = x.shape[:dim] + (count,) + x.shape[dim + 1:] + (size,)
        strides = x.strides[:dim] + (x.strides[dim] * step,) + x.strides[dim + 1:] + (x.strides[dim],)
        return _restride(x, shape, strides, _writeable(x))

    @staticmethod
    def backward(ctx, grad):
        return UnfoldGrad.apply(grad, *ctx.args), None, None, None


class UnfoldGrad(ArrayFunction):
    """The backward of unfold: each window's gradient added into the positions it covers"""
    node_name = "UnfoldBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, shape, dim, size, step):
        ctx.args = (dim, size, step)
        xp = namespace(grad)
        out = xp.zeros(shape, dtype=grad.dtype)
        if not shape:
            return grad.reshape(())
        # windows may overlap: add window offset by window offset (a loop over ``size``, not elements)
        g = xp.moveaxis(grad, -1, 0)
        for k in range(size):
            idx = (slice(None),) * dim + (slice(k, k + step * (g.shape[dim + 1] - 1) + 1, step),)
            out[idx] += g[k]
        return out

    @staticmethod
    def backward(ctx, g):
        return g.unfold(*ctx.args), None, None, None, None


def unfold(self, dimension, size, step):
    n = self._data.ndim
    d = wrap_dim(dimension, n)  # (a 0-dim tensor accepts dims 0 and -1)
    d = d if n else 0
    length = self._data.shape[d] if n else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(self, d, int(size), int(step))


def _scatter_view(input, src, view_fn):
    """``input`` with the elements that ``view_fn(input)`` selects replaced by ``src`` (out of place)."""
    out = input.clone()
    view_fn(out).copy_(src)
    return out


def select_scatter(input, src, dim, index):
    return _scatter_view(input, src, lambda t: t.select(dim, index))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = wrap_dim(dim, input._data.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_view(input, src, lambda t: Slice.apply(t, key))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _scatter_view(input, src, lambda t: t.diagonal(offset, dim1, dim2))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    return _scatter_view(input, src, lambda t: t.as_strided(size, stride, storage_offset))


def fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal (of a matrix, or of an all-equal-sizes tensor) in place."""
    n = self._data.ndim
    if n < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = self._data.shape
    if n > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    flat = self.view(-1) if self.is_contiguous() else None
    if n == 2 and wrap and shape[0] > shape[1] + 1 and flat is not None:
        step = shape[1] + 1
        positions = list(range(0, self._data.size, step))
        view = flat.as_strided((len(positions),), (step,), self.storage_offset())
    else:
        view = self.diagonal() if n == 2 else self.as_strided(
            (min(shape),), (sum(self.stride()),), self.storage_offset())
    view.fill_(fill_value)
    return self


def unsafe_split(tensor, split_size, dim=0):
    return split(tensor, split_size, dim)


def unsafe_chunk(input, chunks, dim=0):
    return chunk(input, chunks, dim)


def split_with_sizes(input, split_sizes, dim=0):
    return split(input, list(split_sizes), dim)


def _apply_(self, callable):
    """Apply a Python function to every element, in place (slow by nature, as in PyTorch; CPU only)."""
    vals = [callable(v) for v in self._data.reshape(-1).tolist()]
    self._data[...] = namespace(self._data).asarray(vals, dtype=self._data.dtype).reshape(self._data.shape)
    self._bump_version()
    return self


def _map_(self, tensor, callable):
    a = self._data.reshape(-1).tolist()
    b = namespace(tensor._data).broadcast_to(tensor._data, self._data.shape).reshape(-1).tolist()
    self._data[...] = namespace(self._data).asarray([callable(x, y) for x, y in zip(a, b)],
                                                    dtype=self._data.dtype).reshape(
        self._data.shape)
    self._bump_version()
    return self


__all__ += ["select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter", "unsafe_split",
            "unsafe_chunk", "split_with_sizes"]


def _as_subclass(self, cls):
    """An alias of the tensor (same memory, still in the graph) whose class is ``cls``, a subclass of Tensor."""
    out = Alias.apply(self, (Ellipsis,))
    out.__class__ = cls
    return out


def _set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make the tensor look at ``source``'s memory: as the tensor ``source`` does, or at a storage's elements
    from ``storage_offset`` with ``size`` and ``stride`` (by default all of them, contiguous). With no
    argument: at nothing, 0 elements."""
    from ..autograd.function import check_inplace
    check_inplace(self)
    if source is None:
        self._data = namespace(self._data).empty(0, dtype=self._data.dtype)
    elif isinstance(source, Tensor):
        self._data = source._data
    else:
        self._data = _storage_view(source, self._data.dtype, storage_offset, size, stride)
    self._bump_version()
    return self


def _storage_view(storage, np_dtype, offset, size, stride):
    """An array over a storage's memory, as ``set_`` views it (elements of ``np_dtype``)."""
    if isinstance(storage, TypedStorage):
        if storage.dtype.np != np_dtype:
            raise RuntimeError(f"Expected a Storage of type {_type_word(np_dtype).lower()} or an UntypedStorage, "
                               f"but got type {_type_word(storage.dtype.np)} for argument 1 'storage'")
        storage = storage.untyped()
    return storage_view(storage, np_dtype, offset, size, stride)


def _module_load(self, other, assign=False):
    """What ``load_state_dict`` puts in the tensor's place: ``other`` itself (``assign``) or the tensor with
    ``other``'s values copied in."""
    return other.detach() if assign else self.copy_(other).detach()


def _share_memory_(self):
    """Move the tensor's memory (and its base's, for a view) where processes forked afterwards share it
    (see pedatorch.multiprocessing).  Other views of the same memory made before keep the old copy."""
    if self._base is not None:
        self._base._data, self._data = share_between_processes(self._base._data, self._data)
    else:
        self._data, = share_between_processes(self._data)
    return self


class Resize(Function):
    """``x.resize(*sizes)``: the deprecated out-of-place resize, which autograd allows only when the element
    count stays (a view of x, or of a contiguous copy);  dx = grad viewed back.  PyTorch writes it as a Python
    Function too (its node: ``ResizeBackward``)."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        numel = functools.reduce(operator.mul, sizes, 1)   # (a tuple passed as one size gives PyTorch's odd words)
        if tensor.numel() != numel:
            raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({numel} elements in total), but the "
                               f"given tensor has a size of {'x'.join(map(str, tensor.size()))} ({tensor.numel()} "
                               f"elements). autograd's resize can only change the shape of a given tensor, while "
                               f"preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad):
        return grad.contiguous().view(ctx.input_sizes), None


def _resize_out_of_place(self, *sizes):
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=user_stacklevel())
    return Resize.apply(self, sizes)


def _resize_as_out_of_place(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=user_stacklevel())
    return Resize.apply(self, tensor.size())


# ====================================================================== registration

register({
    "view": view, "view_as": view_as, "reshape": reshape, "reshape_as": reshape_as, "transpose": transpose,
    "swapaxes": transpose, "swapdims": transpose, "t": t, "permute": permute, "movedim": movedim,
    "moveaxis": movedim, "adjoint": adjoint, "expand": expand, "expand_as": expand_as,
    "broadcast_to": broadcast_to, "squeeze": squeeze, "unsqueeze": unsqueeze, "flatten": flatten,
    "unflatten": unflatten, "ravel": ravel, "select": select, "narrow": narrow, "unbind": unbind,
    "split": split, "chunk": chunk, "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit,
    "dsplit": dsplit, "as_strided": as_strided, "diagonal": diagonal, "clone": clone,
    "contiguous": contiguous, "copy_": copy_,
    "t_": lambda self: _inplace_meta(self, t(self), "TBackward1"),
    "transpose_": lambda self, d0, d1: _inplace_meta(self, transpose(self, d0, d1), "TransposeBackward1"),
    "squeeze_": lambda self, dim=None: _inplace_meta(self, squeeze(self, dim),
                                                     "SqueezeBackward3" if dim is None else "SqueezeBackward4"),
    "unsqueeze_": lambda self, dim: _inplace_meta(self, unsqueeze(self, dim), "UnsqueezeBackward1"),
    "resize_": lambda self, *sizes: _resize(self, _shape_arg(sizes)),
    "resize": _resize_out_of_place, "resize_as": _resize_as_out_of_place,
    "resize_as_": lambda self, other: _resize(self, other.shape),
    "unfold": unfold, "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "diagonal_scatter": diagonal_scatter, "as_strided_scatter": as_strided_scatter,
    "fill_diagonal_": fill_diagonal_, "unsafe_split": unsafe_split, "unsafe_chunk": unsafe_chunk,
    "split_with_sizes": split_with_sizes, "unsafe_split_with_sizes": split_with_sizes,
    "apply_": _apply_, "map_": _map_,
    "as_strided_": lambda self, size, stride, storage_offset=None: _inplace_meta(
        self, as_strided(self, size, stride, storage_offset), "AsStridedBackward1"),
    "swapaxes_": lambda self, d0, d1: _inplace_meta(self, transpose(self, d0, d1), "TransposeBackward1"),
    "swapdims_": lambda self, d0, d1: _inplace_meta(self, transpose(self, d0, d1), "TransposeBackward1"),
    "pin_memory": lambda self, device=None: self, "is_pinned": lambda self, device=None: False,
    "as_subclass": _as_subclass, "set_": _set_, "module_load": _module_load,
    "share_memory_": _share_memory_, "is_shared": lambda self: is_shared_between_processes(self._data),
    "is_neg": lambda self: False,
    "new_empty_strided": lambda self, size, stride, *, dtype=None, device=None, requires_grad=False,
    layout=None, pin_memory=False: _new_empty_strided(self, size, stride, dtype, device, requires_grad),
})


def _new_empty_strided(self, size, stride, dtype, device, requires_grad):
    from .creation import empty_strided
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


Tensor.output_nr = property(lambda self: self._output_nr)


_INPLACE_VIEW_NODES = {}


def _inplace_meta(self, viewed, node_name):
    """``t_()``, ``squeeze_()``: this tensor takes the view's shape/strides (and, recorded, its node)."""
    from ..autograd.grad_mode import _state
    if _state.enabled and self._requires_grad and self.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if viewed.grad_fn is not None:
        node = viewed.grad_fn
        cls = _INPLACE_VIEW_NODES.get((type(node), node_name))
        if cls is None:  # the in-place twin of the view's node class, under PyTorch's name
            cls = _INPLACE_VIEW_NODES[(type(node), node_name)] = type(node_name, (type(node),), {"__slots__": ()})
        node.__class__ = cls
        self._set_history(node, 0)
    self._data = viewed._data
    self._bump_version()
    return self


def _resize(self, shape):
    n = math.prod(shape)
    flat = self._data.reshape(-1)
    if flat.size >= n:
        self._data = flat[:n].reshape(shape)
    else:
        new = namespace(self._data).zeros(n, dtype=self._data.dtype)
        new[:flat.size] = flat
        self._data = new.reshape(shape)
    return self


Copy._backward_cls.name = lambda self: "torch::autograd::CopyBackwards"  # PyTorch's name() for it
