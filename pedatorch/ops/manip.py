"""Rearranging values: ``flip``, ``roll``, ``rot90``, ``repeat``/``tile``, ``tril``/``triu``, ``diag``, ``pad`` ...

Each of these moves or copies elements without arithmetic, so each backward
sends every output gradient back to the element it came from: a flip flips
the gradient back, a roll rolls it back, a repeat sums the copies, a pad cuts
the padding off (and reflect/replicate padding adds the gradient of every
padded copy into the element it copied - ``np.add.at``).  None of them is a
view: like PyTorch's, their results own new memory.

Where PyTorch builds an op out of others (``repeat_interleave``, ``meshgrid``,
``kron``, ``combinations``, circular ``pad``), so does this module, and the
``grad_fn`` chain shows the same steps.
"""
import numbers
import operator
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .. import _dtype as D
from .._device import factory_device
from .._tensor import Tensor
from ..autograd.function import ArrayFunction, before_checks
from ._util import wrap_dim, wrap_dims, register, write_out, shape_str, broadcast_shapes_or_raise, \
    result_np_dtype, _type_word, needed
from .._layout import _empty_preserving_layout, in_format, copy_in_format
from ..backend import MetaArray, namespace, device_namespace, scatter_add, CPU_BACKEND
from .shape import Diagonal, DiagonalEmbed, IndexEmbed, UnsafeView, _Ctx

__all__ = ["flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "tril", "triu",
           "tril_indices", "triu_indices", "diag", "diag_embed", "diagflat", "trace", "constant_pad_nd",
           "narrow_copy", "block_diag", "cartesian_prod", "meshgrid", "combinations", "kron", "cross"]


def _inplace(cls):
    return type(cls.__name__ + "_", (cls,), {"_inplace_of": 0, "node_name": cls.node_name, "__module__": __name__})


def _int_tuple(v):
    if isinstance(v, numbers.Integral):
        return (int(v),)
    return tuple(int(s) for s in v)


# PyTorch's Python binding parses an ``int[]`` argument (flip's dims, roll's shifts) before the op runs; these
# helpers follow its rules, so a one-element integer tensor counts as an int and a float is a TypeError, not a
# silently truncated shift.

def _type_name(v):
    """The type as CPython's tp_name writes it in PyTorch's messages: 'float', 'Tensor', 'numpy.int32'."""
    if isinstance(v, Tensor):
        return "Tensor"
    t = type(v)
    return f"numpy.{t.__name__}" if t.__module__ == "numpy" else t.__name__


def _is_int_like(v):
    """One int of an int list: an integer that is not a bool, anything with ``__index__`` (numpy ints), or a
    one-element integer (or bool) tensor."""
    if isinstance(v, Tensor):
        return v.numel() == 1 and not (v.dtype.is_floating_point or v.dtype.is_complex)
    if isinstance(v, bool):
        return False
    try:
        operator.index(v)
    except TypeError:
        return False
    return True


def _as_int(v):
    if isinstance(v, Tensor):
        if v.numel() != 1 or v.dtype.is_floating_point or v.dtype.is_complex:
            raise TypeError
        return int(v.item())
    return operator.index(v)


def _int_list(value, fn, arg, position, single=False):
    """``value`` as a tuple of ints: a tuple or list of int-likes, or (``single``: a signature like roll's
    ``int[1]``, which takes a lone int) one int-like.  ``position`` counts the arguments as the caller wrote
    them (a method's from the first argument after self)."""
    if single and _is_int_like(value):
        return (_as_int(value),)
    where = f"{fn}(): argument '{arg}' (position {position})"
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{where} must be tuple of ints, not {_type_name(value)}")
    if value and not _is_int_like(value[0]):
        raise TypeError(f"{where} must be tuple of ints, but found element of type {_type_name(value[0])} at pos 0")
    out = []
    for i, v in enumerate(value):
        try:
            out.append(_as_int(v))
        except TypeError:   # PyTorch checks only the first element up front, and counts these from 1
            raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_name(v)}\"") from None
    return tuple(out)


def _method_int_list(values, fn, arg):
    """A method's int list, given as separate ints (``x.flip(0, 1)``) or as one sequence (``x.flip((0, 1))``):
    PyTorch packs the arguments into the list when the first one is an int-like."""
    if not values:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "{arg}"')
    if _is_int_like(values[0]):
        return _int_list(list(values), fn, arg, 1)
    if len(values) > 1:
        raise TypeError(f"{fn}() takes 1 positional argument but {len(values)} were given")
    return _int_list(values[0], fn, arg, 1)


# ====================================================================== flip / roll / rot90

class Flip(ArrayFunction):
    """out = x reversed along dims (a copy: PyTorch's flip is not a view);  dx = grad.flip(dims)"""
    node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        out = _empty_preserving_layout(x)  # PyTorch's flip allocates empty_like(x): x's memory layout
        out[...] = namespace(x).flip(x, dims) if dims and x.ndim else x  # (a 0-dim x accepts dim 0 and -1)
        return out

    @staticmethod
    def backward(ctx, grad):
        return flip(grad, ctx.dims), None


def flip(input, dims):
    return _flip(input, _int_list(dims, "flip", "dims", 2))


def _flip(input, dims):
    return Flip.apply(input, wrap_dims(dims, input._data.ndim))


def _flip_method(self, *dims):
    return _flip(self, _method_int_list(dims, "flip", "dims"))


def fliplr(input):
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, (1,))


def flipud(input):
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, (0,))


class Roll(ArrayFunction):
    """out = x shifted cyclically along dims (the flattened x when no dims);  dx = grad rolled back"""
    node_name = "RollBackward0"

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if x.size == 0 and dims is not None:
            return _empty_preserving_layout(x)   # ATen returns an empty input's clone (preserve_format)
        if x.size == 0 or x.ndim == 0:
            out = x.copy()
        elif dims is None:
            out = namespace(x).roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        else:
            out = namespace(x).roll(x, shifts, dims)
        return in_format(out, "contiguous_format")   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def backward(ctx, grad):
        return roll(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def roll(input, shifts, dims=None):
    return _roll(input, shifts, dims, 2)


def _roll_method(self, shifts, dims=None):
    return _roll(self, shifts, dims, 1)


def _roll(input, shifts, dims, position):
    """``position``: where shifts stands among the arguments as written (2 in torch.roll, 1 in x.roll)."""
    shifts = _int_list(shifts, "roll", "shifts", position, single=True)
    dims = () if dims is None else _int_list(dims, "roll", "dims", position + 1, single=True)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims:   # dims=None and dims=[] both roll the flattened tensor
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return Roll.apply(input, shifts, None)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    n = input._data.ndim
    if n == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if input._data.size == 0 and len(dims) == 1:
        # PyTorch returns a copy of an empty input before it wraps a single dim (any dim passes)
        return Roll.apply(input, shifts, (0,))
    return Roll.apply(input, shifts, tuple(wrap_dim(d, n) for d in dims))


class Rot90(ArrayFunction):
    """out = x rotated by k * 90 degrees in the plane of dims (from the first towards the second);
    dx = grad rotated back (-k)"""
    node_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, x, k, dims):
        ctx.k, ctx.dims = k, dims
        if k == 0:
            return copy_in_format(x, "contiguous_format")
        # as ATen composes it: a flip (which keeps x's layout), then for odd k a transposed view of it
        d0, d1 = dims
        out = _empty_preserving_layout(x)
        out[...] = namespace(x).flip(x, {1: d1, 2: dims, 3: d0}[k])
        return out if k == 2 else out.swapaxes(d0, d1)

    @staticmethod
    def backward(ctx, grad):
        return rot90(grad, -ctx.k, ctx.dims), None, None


def rot90(input, k=1, dims=(0, 1)):
    return _rot90(input, k, dims, 2)


def _rot90_method(self, k=1, dims=(0, 1)):
    return _rot90(self, k, dims, 1)


def _rot90(input, k, dims, position):
    """``position``: where k stands among the arguments as written (2 in torch.rot90, 1 in x.rot90)."""
    if not _is_int_like(k):
        raise TypeError(f"rot90(): argument 'k' (position {position}) must be int, not {_type_name(k)}")
    k = _as_int(k)
    dims = _int_list(dims, "rot90", "dims", position + 1)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == n:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return Rot90.apply(input, int(k) % 4, (wrap_dim(dims[0], n), wrap_dim(dims[1], n)))


# ====================================================================== repeat / tile / repeat_interleave

class Repeat(ArrayFunction):
    """out = x tiled repeats[i] times along dim i (x gets leading 1-dims when repeats is longer);
    dx = grad cut into the copies and summed"""
    node_name = "RepeatBackward0"
    _result_format = "contiguous_format"   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, repeats):
        ctx.in_shape, ctx.repeats = x.shape, repeats
        if not repeats:
            return x.copy()
        lead = len(repeats) - x.ndim
        return namespace(x).tile(x.reshape((1,) * lead + x.shape), repeats)

    @staticmethod
    def backward(ctx, grad):
        reps = ctx.repeats
        if not reps:
            return grad, None
        shape = (1,) * (len(reps) - len(ctx.in_shape)) + tuple(ctx.in_shape)
        split = []
        for r, s in zip(reps, shape):
            split += [r, s]
        g = grad.reshape(split).sum(tuple(range(0, 2 * len(reps), 2)))
        return g.reshape(ctx.in_shape), None


def repeat(self, *repeats):
    return _repeat(self, _method_int_list(repeats, "repeat", "repeats"))


def _repeat(self, repeats):
    shape = self._data.shape
    if len(repeats) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    padded = (1,) * (len(repeats) - len(shape)) + shape
    target = [r * s for r, s in zip(repeats, padded)]
    for t in target:
        if t < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {t}: {target}")
    return Repeat.apply(self, repeats)


def tile(input, dims):
    return _tile(input, _int_list(dims, "tile", "dims", 2))


def _tile(input, dims):
    n = input._data.ndim
    if len(dims) < n:
        dims = (1,) * (n - len(dims)) + dims
    return _repeat(input, dims)


def _tile_method(self, *dims):
    return _tile(self, _method_int_list(dims, "tile", "dims"))


def _repeats_to_indices(repeats, output_size=None):
    """``repeat_interleave(repeats)``: index i repeated repeats[i] times."""
    r = repeats._data
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if r.dtype.kind not in "iu":
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_type_word(r.dtype)}'")
    if type(r) is MetaArray:   # (the result's size is the sum of the repeats, which a meta tensor lacks)
        if output_size is None:
            raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
        return Tensor._make(namespace(r).empty(output_size, r.dtype))
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and int(r.sum()) != output_size:
        raise RuntimeError("allocated size does not match required size")
    xp = namespace(r)
    return Tensor._make(xp.repeat(xp.arange(r.shape[0], dtype=r.dtype), r))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    if repeats is None:  # repeat_interleave(repeats)
        return _repeats_to_indices(input, output_size)
    if isinstance(repeats, Tensor):
        x = input if dim is not None else input.flatten()
        d = 0 if dim is None else wrap_dim(dim, x._data.ndim)
        r = repeats
        size = x._data.shape[d] if x._data.ndim else 1
        if r._data.ndim == 0 or (r._data.ndim == 1 and r._data.shape[0] == 1):
            r = Tensor._make(namespace(r._data).broadcast_to(r._data.reshape(1), (size,)).copy())
        elif r._data.ndim == 1:
            if r._data.shape[0] != size:
                raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                                   f"{r._data.shape[0]} and input.size({d}) = {size}")
        else:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        return x.index_select(d, _repeats_to_indices(r, output_size))
    # an int: x.unsqueeze(dim + 1).expand(...) copied and flattened, as PyTorch composes it
    d = wrap_dim(0 if dim is None else dim, input._data.ndim)
    x = input if dim is not None else input.flatten()
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    u = x.unsqueeze(d + 1)
    shape = list(u.shape)
    shape[d + 1] = repeats
    from .._tensor import contiguous_format
    y = u.expand(shape).clone(memory_format=contiguous_format)
    out_shape = list(x.shape)
    out_shape[d] = out_shape[d] * repeats
    return y.reshape(out_shape)


# ====================================================================== triangles and diagonals

class Tril(ArrayFunction):
    """out = x with the elements above diagonal k set to 0 (last two dims);  dx = grad.tril(k)"""
    node_name = "TrilBackward0"
    _result_format = "contiguous_format"   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return namespace(x).tril(x, k)

    @staticmethod
    def backward(ctx, grad):
        return tril(grad, ctx.k), None


class Triu(ArrayFunction):
    """out = x with the elements below diagonal k set to 0 (last two dims);  dx = grad.triu(k)"""
    node_name = "TriuBackward0"
    _result_format = "contiguous_format"   # ATen allocates the result contiguous, whatever x's layout

    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        return namespace(x).triu(x, k)

    @staticmethod
    def backward(ctx, grad):
        return triu(grad, ctx.k), None


Tril_, Triu_ = _inplace(Tril), _inplace(Triu)


def _tri(name, cls, input, diagonal, out=None):
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return write_out(out, cls.apply(input, int(diagonal)))


def tril(input, diagonal=0, *, out=None):
    return _tri("tril", Tril, input, diagonal, out)


def triu(input, diagonal=0, *, out=None):
    return _tri("triu", Triu, input, diagonal, out)


def tril_(self, diagonal=0):
    return _tri("tril", Tril_, self, diagonal)


def triu_(self, diagonal=0):
    return _tri("triu", Triu_, self, diagonal)


def _tri_indices(name, fn_name, row, col, offset, dtype, device):
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dt = D.int64 if dtype is None else dtype
    if dt.np not in (np.int64, np.int32):
        raise NotImplementedError(f"\"{name}\" not implemented for '{_type_word(dt.np)}'")
    from .creation import _finish, _xp
    device = factory_device(device)
    xp = _xp(device)   # made on the target device
    rows, cols = getattr(xp, fn_name)(row, offset, col)
    return _finish(xp.stack([rows, cols]).astype(dt.np).reshape(2, -1), device, False)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("tril_indices", "tril_indices", row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    return _tri_indices("triu_indices", "triu_indices", row, col, offset, dtype, device)


class DiagEmbed(DiagonalEmbed):
    """out = zeros with x's last dim on the diagonal of the (dim1, dim2) planes;  dx = grad.diagonal(...)"""
    node_name = "DiagEmbedBackward0"


class DiagonalCopy(ArrayFunction):
    """out = a copy of the diagonal of a matrix (``diag`` of a 2-D tensor);  dx = zeros with grad on it"""
    node_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(ctx, x, offset):
        ctx.in_shape, ctx.offset = x.shape, offset
        return Diagonal.forward(_Ctx(), x, offset, 0, 1).copy()

    @staticmethod
    def backward(ctx, grad):
        return DiagonalEmbed.apply(grad, ctx.in_shape, ctx.offset, 0, 1), None


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input._data.ndim + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    offset = int(offset)
    length = input._data.shape[-1] + abs(offset)
    shape = list(input._data.shape[:-1])
    lo, hi = min(d1, d2), max(d1, d2)
    shape.insert(lo, length)
    shape.insert(hi, length)
    return DiagEmbed.apply(input, tuple(shape), offset, d1, d2)


def diag(input, diagonal=0, *, out=None):
    n = input._data.ndim
    if n == 1:
        r = diag_embed(input, diagonal, 0, 1)
    elif n == 2:
        r = DiagonalCopy.apply(input, int(diagonal))
    else:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")
    return write_out(out, r)


def diagflat(input, offset=0):
    return diag_embed(input.reshape(-1), offset, 0, 1)


class Trace(ArrayFunction):
    """out = the sum of the main diagonal;  dx = zeros with grad on the diagonal"""
    node_name = "TraceBackward0"

    @staticmethod
    def forward(ctx, x):
        ctx.in_shape = x.shape
        xp = namespace(x)
        # ATen adds the diagonal up in order, from 0, in its CPU accumulate type (int64, double for float32
        # and float64, float for float16/bfloat16, complex double) and rounds once: a running sum (not
        # numpy's pairwise one), and trace([[-0.]]) is +0
        kind = x.dtype.kind
        acc = (np.int64 if kind in "iu" else np.complex128 if kind == "c" else
               np.float64 if x.dtype in (np.float32, np.float64) else np.float32)
        diag = xp.diagonal(x).astype(acc)
        out = xp.zeros((), dtype=acc)
        if diag.size:
            out = out + xp.cumsum(diag)[-1]
        if acc is np.int64:
            return out
        with np.errstate(over="ignore"):   # (a float16 sum past 65504 is inf, silently)
            return out.astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        n = min(ctx.in_shape)
        return DiagonalEmbed.apply(grad.expand(n), ctx.in_shape, 0, 0, 1)


def trace(input):
    n = input._data.ndim
    if input._data.dtype == np.bool_:  # (PyTorch picks the kernel by dtype before it checks the dims)
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if n != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {n}")
    return Trace.apply(input)


# ====================================================================== padding

class ConstantPadNd(ArrayFunction):
    """out = x with `value` added at both ends of the last dims (negative pads cut instead);
    dx = grad with the padding cut off again: constant_pad_nd(grad, -pad)"""
    node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pad, value):
        ctx.pad = pad
        shape = list(x.shape)
        src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        for i in range(len(pad) // 2):
            d = x.ndim - 1 - i
            left, right, size = pad[2 * i], pad[2 * i + 1], x.shape[d]
            kept = size - max(-left, 0) - max(-right, 0)
            src[d] = slice(max(-left, 0), max(-left, 0) + kept)
            dst[d] = slice(max(left, 0), max(left, 0) + kept)
            shape[d] = size + left + right
        if all(p <= 0 for p in pad):   # only cropping: ATen narrows and clones (preserve_format: x's layout kept)
            return copy_in_format(x[tuple(src)], "preserve_format")
        with np.errstate(invalid="ignore", over="ignore"):
            # a host scalar of x's dtype, converted as numpy converts (C casts: -1 -> 255 for uint8)
            fill = CPU_BACKEND.xp.asarray(value).astype(x.dtype)[()]
        out = namespace(x).full(shape, fill, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    @staticmethod
    def backward(ctx, grad):
        return constant_pad_nd(grad, tuple(-p for p in ctx.pad)), None, None


def _check_pad_length(input, pad):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    n = input._data.ndim
    if len(pad) > 2 * n:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {n}")


def constant_pad_nd(input, pad, value=0):
    pad = _int_tuple(pad)
    _check_pad_length(input, pad)
    shape = input._data.shape
    for i in range(len(pad) // 2):
        size = shape[len(shape) - 1 - i]
        if size - max(-pad[2 * i], 0) - max(-pad[2 * i + 1], 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
    return ConstantPadNd.apply(input, pad, value)


class _PadGather(ArrayFunction):
    """out = x read at one position vector per padded dim (reflect/replicate padding);
    dx = grad added back into the positions it was read from (np.add.at)"""

    @staticmethod
    def forward(ctx, x, picks):
        ctx.in_shape, ctx.picks = x.shape, picks
        ctx.save_for_backward(x)   # PyTorch saves self (for its shape): an in-place write to it is an error
        out = x
        for axis, pos in picks:
            out = namespace(x).take(out, pos, axis=axis)
        return out if out is not x else x.copy()

    @staticmethod
    def backward(ctx, grad):
        ctx.saved_tensors   # (reading it checks its version, as PyTorch's unpacking does)
        return _PadScatter.apply(grad, ctx.in_shape, ctx.picks, type(ctx)._function), None


class _PadScatter(ArrayFunction):
    """The backward of reflect/replicate padding: add each gradient into the element it was copied from."""
    node_name = "PadBackwardBackward0"

    @staticmethod
    def forward(ctx, g, in_shape, picks, gather_cls):
        ctx.picks, ctx.gather_cls = picks, gather_cls
        for axis, pos in reversed(picks):
            shape = list(g.shape)
            shape[axis] = in_shape[axis]
            acc = namespace(g).zeros(shape, g.dtype)
            scatter_add(acc, (slice(None),) * axis + (pos,), g)
            g = acc
        return g

    @staticmethod
    def backward(ctx, grad):
        return ctx.gather_cls.apply(grad, ctx.picks), None, None, None


_PAD_CLASSES = {}


def _pad_class(mode, k):
    name = ("ReflectionPad" if mode == "reflect" else "ReplicationPad") + f"{k}DBackward0"
    cls = _PAD_CLASSES.get(name)
    if cls is None:
        cls = _PAD_CLASSES[name] = type(name[:-len("Backward0")], (_PadGather,),
                                        {"node_name": name, "__module__": __name__})
    return cls


_PAD_SUPPORT = ("Supported combinations for non-constant padding:\n"
                "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _pad_index(input, pad, mode):
    """Reflect / replicate padding: every output element reads one input element."""
    shape = input._data.shape
    k = len(pad) // 2
    names = "WHD"
    outs = []
    for i in range(k):
        d = len(shape) - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        if mode == "reflect" and not (left < size and right < size):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension {d} of input "
                               f"{shape_str(shape)}")
        outs.append(size + left + right)
    if all(o < 1 for o in outs):
        dims = list(range(k - 1, -1, -1))  # D, H, W order in the message
        ins = ", ".join(f"{names[i]}: {shape[len(shape) - 1 - i]}" for i in dims)
        calc = " ".join(f"{names[i]}: {outs[i]}" for i in dims)
        raise RuntimeError(f"input ({ins}) is too small. Calculated output {calc}")
    picks = []
    xp = namespace(input._data)   # the index vectors are made on input's device
    for i in range(k):
        d = len(shape) - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        pos = xp.arange(-left, size + right)
        if mode == "reflect":
            pos = xp.abs(pos)
            pos = xp.where(pos > size - 1, 2 * (size - 1) - pos, pos)
        else:
            pos = xp.clip(pos, 0, size - 1)
        picks.append((d, pos))
    return _pad_class(mode, k).apply(input, tuple(picks))


def _pad_circular(input, pad):
    """Circular padding, composed as PyTorch does: copy the centre, then the wrapped-around ends (CopySlices)."""
    shape = input._data.shape
    nd, k = len(shape), len(pad) // 2
    out_shape = list(shape)
    for i in range(k):
        d = nd - 1 - i
        left, right, size = pad[2 * i], pad[2 * i + 1], shape[d]
        if left > size or right > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        out_shape[d] = size + left + right
        if out_shape[d] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = input.new_empty(out_shape)
    out_slice, in_slice = out, input
    for i in range(k):
        d = nd - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        out_slice = out_slice.narrow(d, max(left, 0), out_shape[d] - max(left, 0) - max(right, 0))
        in_slice = in_slice.narrow(d, max(-left, 0), shape[d] - max(-left, 0) - max(-right, 0))
    out_slice.copy_(in_slice)
    for i in range(k):
        d = nd - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > 0:
            out.narrow(d, 0, left).copy_(out.narrow(d, out_shape[d] - left - max(right, 0), left))
        if right > 0:
            out.narrow(d, out_shape[d] - right, right).copy_(out.narrow(d, max(left, 0), right))
    return out


def pad(input, pad, mode="constant", value=None):
    """``torch.nn.functional.pad``: pad the last dims; ``pad`` lists (left, right) pairs, last dim first."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = _int_tuple(pad)
    _check_pad_length(input, pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    k, n = len(pad) // 2, input._data.ndim
    if k not in (1, 2, 3) or n not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {n}D input tensor.\n{_PAD_SUPPORT}")
    if mode == "circular":
        return _pad_circular(input, pad)
    return _pad_index(input, pad, mode)


# ====================================================================== copies and blocks

class NarrowCopy(ArrayFunction):
    """out = a copy of x.narrow(dim, start, length);  dx = zeros with grad in that slice"""
    node_name = "NarrowCopyBackward0"

    @staticmethod
    def forward(ctx, x, key):
        ctx.in_shape, ctx.key = x.shape, key
        return x[key].copy()

    @staticmethod
    def backward(ctx, grad):
        return IndexEmbed.apply(grad, ctx.in_shape, ctx.key), None


def narrow_copy(input, dim, start, length, *, out=None):
    from .shape import narrow_key
    return write_out(out, NarrowCopy.apply(input, narrow_key(input, dim, start, length, copy=True)))


class BlockDiag(ArrayFunction):
    """out = the inputs as blocks on the diagonal of a zero matrix;  each input gets its block of grad"""
    node_name = "BlockDiagBackward0"

    @staticmethod
    def forward(ctx, *arrays):
        dt = result_np_dtype(*arrays)
        blocks = [a.reshape(1, -1) if a.ndim == 1 else a.reshape(1, 1) if a.ndim == 0 else a for a in arrays]
        rows = sum(b.shape[0] for b in blocks)
        cols = sum(b.shape[1] for b in blocks)
        out = namespace(*arrays).zeros((rows, cols), dt)
        spans, r, c = [], 0, 0
        for a, b in zip(arrays, blocks):
            out[r:r + b.shape[0], c:c + b.shape[1]] = b
            spans.append((r, r + b.shape[0], c, c + b.shape[1], a.shape))
            r, c = r + b.shape[0], c + b.shape[1]
        ctx.spans = spans
        return out

    @staticmethod
    def backward(ctx, grad):
        return tuple(grad[r0:r1, c0:c1].reshape(shape) for r0, r1, c0, c1, shape in ctx.spans)


def block_diag(*tensors):
    if not tensors:
        return Tensor._make(device_namespace(None).zeros((1, 0), D.get_default_dtype().np))   # (on the CPU)
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    return BlockDiag.apply(*tensors)


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=user_stacklevel())
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    dt = tensors[0]._data.dtype
    if any(t._data.dtype != dt for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t._data.size for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view_shape = [1] * len(ts)
        view_shape[i] = shape[i]
        grids.append(t.reshape(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    from .join import stack
    from .._tensor import contiguous_format
    grids = meshgrid(*tensors, indexing="ij")
    # flatten each grid as PyTorch's reshape does for an expanded tensor: a contiguous copy, then a view
    return stack([UnsafeView.apply(g.clone(memory_format=contiguous_format), (g._data.size,)) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {shape_str(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(namespace(input._data).empty(0, input._data.dtype))
    n = input._data.shape[0]
    grids = meshgrid(*([input] * r), indexing="ij")
    xp = namespace(input._data)
    idx = xp.indices((n,) * r)
    mask = xp.ones((n,) * r, dtype=bool)
    for k in range(r - 1):
        mask &= (idx[k] <= idx[k + 1]) if with_replacement else (idx[k] < idx[k + 1])
    from .join import stack
    from .indexing import masked_select
    m = Tensor._make(mask)
    return stack([masked_select(g, m) for g in grids], 1)


def kron(input, other, *, out=None):
    a, b = input._data.shape, other._data.shape
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    a_shape, b_shape = [], []
    for x, y in zip(a, b):
        a_shape += [x, 1]
        b_shape += [1, y]
    # (PyTorch views both inputs with _unsafe_view: intermediates nobody else sees)
    r = UnsafeView.apply(input, tuple(a_shape)) * UnsafeView.apply(other, tuple(b_shape))
    return write_out(out, UnsafeView.apply(r, tuple(x * y for x, y in zip(a, b))))


class LinalgCross(ArrayFunction):
    """out = a x b (3-vectors along dim);  da = conj(b) x grad,  db = grad x conj(a)"""
    node_name = "LinalgCrossBackward0"

    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 0, b))  # (each is read for the other's gradient)
        ctx.dim = dim
        xp = namespace(a, b)
        a, b = xp.broadcast_arrays(a, b)
        return xp.cross(a, b, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # b's gradient first, as PyTorch's LinalgCrossBackward0 computes them (the order numbers the new nodes
        # with create_graph, which orders the double backward's rounded sums)
        gb = linalg_cross(grad, a.conj(), ctx.dim) if ctx.needs_input_grad[1] else None
        ga = linalg_cross(b.conj(), grad, ctx.dim) if ctx.needs_input_grad[0] else None
        return ga, gb, None


def linalg_cross(input, other, dim=-1):
    """The cross product of 3-vectors along ``dim`` (``torch.linalg.cross``; ``torch.cross`` with a dim)."""
    input, other = before_checks(LinalgCross, input, other)   # (autocast casts first)
    x, y = input._data, other._data
    if x.ndim != y.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, x.ndim)
    if x.shape[d] != 3 or y.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {x.shape[d]} and "
                           f"{y.shape[d]}")
    broadcast_shapes_or_raise(x.shape, y.shape)
    if x.dtype != y.dtype:
        raise RuntimeError(f"expected scalar type {_type_word(x.dtype)} but found {_type_word(y.dtype)}")
    return LinalgCross.apply(input, other, d)


def cross(input, other, dim=None, *, out=None):
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=user_stacklevel())
        sizes = input._data.shape
        dims3 = [i for i, s in enumerate(sizes) if s == 3]
        if not dims3:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims3[0]
    return write_out(out, linalg_cross(input, other, dim))


# ====================================================================== registration

register({
    "flip": _flip_method, "fliplr": fliplr, "flipud": flipud, "roll": _roll_method, "rot90": _rot90_method,
    "repeat": repeat, "tile": _tile_method, "repeat_interleave": repeat_interleave, "tril": tril, "triu": triu,
    "tril_": tril_, "triu_": triu_, "diag": diag, "diag_embed": diag_embed, "diagflat": diagflat, "trace": trace,
    "narrow_copy": narrow_copy, "kron": kron, "cross": cross,
})
