"""Memory layouts of new results: the strides PyTorch gives a tensor it allocates.

numpy and PyTorch agree on C-contiguous arrays, but not on what a new result of non-contiguous inputs
looks like: numpy's ufuncs favour C order when inputs disagree, PyTorch's TensorIterator follows its
first input, and ``clone``/``empty_like`` keep an input's strides (``preserve_format``). Each rule lives
here once, as plain array code below the tensor layer, so that any layer may use it.
"""
import math

import numpy as np

from .backend import CPU_ARRAY, address, as_strided, is_array, namespace, storage_root


def _iterator_layout(shape, operand_strides):
    """The dim order (fastest first) PyTorch's TensorIterator gives a new output of ``shape``, from the
    element strides its inputs have over that shape (0 where broadcast): an insertion sort in which the
    first input with two nonzero, different strides decides, and equal strides put the smaller dim first."""
    ndim = len(shape)

    def should_swap(d0, d1):
        for strides in operand_strides:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue   # broadcast in one of them: the next input decides
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _is_non_overlapping_and_dense(shape, strides):
    """c10's test: sorted by stride (dims of size < 2 last, they never matter), each stride is the
    product of the sizes before it. Strides in elements."""
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    need = 1
    for d in dims:
        if strides[d] != need:
            return False
        need *= shape[d]
    return True


def _preserved_strides(shape, strides):
    """The element strides of ``empty_like(x)`` / ``clone(x)`` in PyTorch's preserve_format: x's own strides
    when x is non-overlapping and dense (size-1 dims keep theirs, whatever they are), else dense strides
    in x's dim order (ATen's ``infer_dense_strides``: size-0/1 dims don't grow the stride)."""
    if _is_non_overlapping_and_dense(shape, strides):
        return tuple(strides)
    out, step = [0] * len(shape), 1
    for d in _iterator_layout(shape, [strides]):    # fastest first
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def _empty_strided(shape, strides, dtype, xp):
    """A new array of ``shape`` with these element strides (dense ones; a size-1 dim may carry any stride),
    allocated by namespace ``xp`` (on its device)."""
    item = np.dtype(dtype).itemsize
    buf = xp.empty(max(math.prod(shape), 1), dtype=dtype)
    strides = tuple(st * item for st in strides)
    if type(buf) is CPU_ARRAY:   # numpy: a view whose base is the buffer itself (the engine's steal test asks)
        return CPU_ARRAY(shape, dtype=dtype, buffer=buf, strides=strides)
    return as_strided(buf, tuple(shape), strides)


def _empty_preserving_layout(x, dtype=None, fill=None):
    """An array laid out as PyTorch's ``empty_like(x)`` (preserve_format) lays it out: uninitialised,
    or filled with ``fill``."""
    out = _empty_strided(x.shape, _preserved_strides(x.shape, [st // x.itemsize for st in x.strides]),
                         x.dtype if dtype is None else dtype, namespace(x))
    if fill is not None:
        out.fill(fill)
    return out


# ---------------------------------------------------------------------- elementwise results

def _contiguous_strides(shape):
    """c10's contiguous strides (a size-0 dim counts as 1, so no stride becomes 0)."""
    out, step = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def _channels_last_order(ndim):
    """The dims, fastest first, of channels_last (4-d) and channels_last_3d (5-d)."""
    return (1, 3, 2, 0) if ndim == 4 else (1, 4, 3, 2, 0)


def _dense_in_order(shape, order):
    """Dense element strides with the dims laid out in ``order``, fastest first (ATen multiplies the plain
    sizes here: after a size-0 dim every stride is 0, as in PyTorch)."""
    out, step = [0] * len(shape), 1
    for d in order:
        out[d] = step
        step *= shape[d]
    return tuple(out)


def format_strides(shape, strides, memory_format):
    """The element strides of a new tensor of ``shape`` in a memory format ("preserve_format",
    "contiguous_format", "channels_last", "channels_last_3d"); ``strides`` are the source's, which
    preserve_format follows."""
    if memory_format == "preserve_format":
        return _preserved_strides(shape, strides)
    if memory_format == "contiguous_format":
        return _contiguous_strides(shape)
    rank = 4 if memory_format == "channels_last" else 5
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {memory_format} format")
    return _dense_in_order(shape, _channels_last_order(rank))


def is_in_format(shape, strides, memory_format):
    """c10's ``is_contiguous(memory_format)`` (size-1 dims may have any stride; no elements: True)."""
    if 0 in shape:
        return True
    if memory_format == "contiguous_format":
        order = range(len(shape) - 1, -1, -1)
    elif len(shape) == (4 if memory_format == "channels_last" else 5):
        order = _channels_last_order(len(shape))
    else:
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def suggested_format(x):
    """c10's ``suggest_memory_format()`` of array ``x``: "channels_last" (or "_3d") when its strides order
    the dims as N, spatial, C (ambiguous cases, like a size-1 C, count as contiguous), else contiguous.
    Convolutions and poolings give their result this format."""
    if x.ndim not in (4, 5):
        return "contiguous_format"
    strides = [st // x.itemsize for st in x.strides]
    if strides[1] == 0:
        return "contiguous_format"
    low = 0
    for d in _channels_last_order(x.ndim):
        if x.shape[d] == 0 or strides[d] < low or d == 0 and low == strides[1]:
            return "contiguous_format"
        low = strides[d] * (x.shape[d] if x.shape[d] > 1 else 1)
    return "channels_last" if x.ndim == 4 else "channels_last_3d"


def common_format(arrays):
    """The format ``cat`` (and ``stack``, built on it) gives its result: the one every input suggests,
    else contiguous (ATen's ``cat_compute_output_memory_format``)."""
    formats = {suggested_format(a) for a in arrays}
    return formats.pop() if len(formats) == 1 else "contiguous_format"


def _conv1d_format(x, make_contiguous):
    """The memory format ATen's 1-d convolution gives its result through ``x`` (input or weight): it makes
    the input ``contiguous()`` (a no-op when only size-1 dims are off: they keep their strides), views
    both as 2-d by ``unsqueeze(2)`` (stride: size * stride of the dim after) and runs a 2-d convolution,
    whose format these views suggest (an ambiguous size-1 layout may read as channels-last)."""
    strides = [st // x.itemsize for st in x.strides]
    if make_contiguous and not is_in_format(x.shape, strides, "contiguous_format"):
        strides = list(_contiguous_strides(x.shape))
    shape = list(x.shape)
    strides.insert(2, shape[2] * strides[2])
    shape.insert(2, 1)
    return suggested_format(as_strided(x, tuple(shape), tuple(st * x.itemsize for st in strides)))


def conv_result(out, x, w):
    """A convolution's new result laid out as PyTorch lays it out: channels-last when the input suggests it,
    else when the weight does. A 1-d one runs in ATen as a 2-d one (see ``_conv1d_format``) whose result is
    squeezed back: the format is applied to the 2-d view of the result."""
    if out.ndim != 3:
        fmt = suggested_format(x)
        return in_format(out, fmt if fmt != "contiguous_format" else suggested_format(w))
    fmt = _conv1d_format(x, True)
    if fmt == "contiguous_format":
        fmt = _conv1d_format(w, False)
    if fmt == "contiguous_format":
        return in_format(out, fmt)
    return in_format(out[:, :, None, :], fmt)[:, :, 0, :]


def like_empty_like(out, x):
    """A new result ``out`` laid out as ``empty_like(x)`` (preserve_format) lays out x's copy."""
    return relayout(out, _preserved_strides(x.shape, [st // x.itemsize for st in x.strides]))


def dense_if_empty(data):
    """``data``, or when it is empty with numpy's all-0 strides, the same with c10's contiguous strides (numpy
    strides no empty array it allocates; PyTorch strides every new tensor, and its views keep them)."""
    if data.size or not data.ndim or any(data.strides):
        return data
    return relayout(data, _contiguous_strides(data.shape))


def in_format(out, memory_format):
    """A new result ``out`` laid out in ``memory_format`` (no copy when it already is)."""
    if memory_format == "contiguous_format" and out.flags.c_contiguous and 1 not in out.shape and out.size:
        return out   # (an empty one has numpy's 0 strides: restrided below)
    return relayout(out, format_strides(out.shape, None, memory_format))


def copy_in_format(x, memory_format):
    """A copy of array ``x`` in a memory format (numpy's own copy when that already is it)."""
    item = x.itemsize
    want = format_strides(x.shape, [st // item for st in x.strides], memory_format)
    out = namespace(x).array(x, copy=True, order="K")
    return relayout(out, want)


def relayout(out, want):
    """``out`` with these element strides: the same array when it has them, a restrided view when only
    dims that never step differ (size 0 or 1), else a copy."""
    item = out.itemsize
    want = tuple(w * item for w in want)
    own = out.strides
    if want == own:
        return out
    if out.size <= 1 or all(w == o or n <= 1 for w, o, n in zip(want, own, out.shape)):
        if type(out) is CPU_ARRAY:
            return np.lib.stride_tricks.as_strided(out, strides=want)
        return as_strided(out, out.shape, want)
    xp = namespace(out)
    new = _empty_strided(out.shape, [w // item for w in want], out.dtype, xp)
    xp.copyto(new, out)
    return new


def iterator_strides(shape, operands, common=None, cast_from=0):
    """The element strides PyTorch's TensorIterator gives the new output of an elementwise op.

    ``operands`` are the op's tensor inputs as arrays, in order; a Python number stands for the 0-dim
    tensor PyTorch wraps it in. On the CPU an operand not in the ``common`` dtype (from index ``cast_from``
    on) is first replaced by its ``.to(common)`` copy, whose layout is its preserve_format one. Then the
    fast set-up, when every operand has the output's shape: all
    contiguous gives contiguous strides, all channels-last gives channels-last, all non-overlapping and
    dense with equal strides gives those strides. Otherwise the dims are sorted by the operands' strides
    (the first operand that tells two dims apart decides; see ``_iterator_layout``) and the output is
    dense in that order.
    """
    arrays = [a for a in operands if is_array(a) and a.ndim]
    strides = [tuple(s // a.itemsize for s in a.strides) for a in arrays]
    if common is not None:   # the CPU's promotion: temporaries laid out as empty_like(a) lays them out
        cast = {id(a) for a in operands[cast_from:] if type(a) is CPU_ARRAY and a.dtype != common}
        strides = [_preserved_strides(a.shape, st) if id(a) in cast else st for a, st in zip(arrays, strides)]
    if len(arrays) == len(operands) and all(a.shape == shape for a in arrays):   # fast set-up
        if all(is_in_format(shape, st, "contiguous_format") for st in strides):
            return _contiguous_strides(shape)
        if len(shape) in (4, 5) and all(is_in_format(shape, st, "channels_last" if len(shape) == 4 else "channels_last_3d") for st in strides):
            return _dense_in_order(shape, _channels_last_order(len(shape)))
        if all(st == strides[-1] for st in strides) and _is_non_overlapping_and_dense(shape, strides[-1]):
            return strides[-1]
    ndim = len(shape)
    over = []   # each operand's strides over the output's dims: 0 where it broadcasts
    for a, st in zip(arrays, strides):
        lead = ndim - a.ndim
        over.append((0,) * lead + tuple(0 if a.shape[i] == 1 and shape[lead + i] != 1 else st[i]
                                         for i in range(a.ndim)))
    perm = _iterator_layout(shape, over)
    if perm == list(range(ndim - 1, -1, -1)):
        return _contiguous_strides(shape)
    return _dense_in_order(shape, perm)


def iterator_result(out, args, n, cast_from=0):
    """``out`` (numpy's result of an elementwise op) laid out as PyTorch lays out that op's result; the
    op's operands are the first ``n`` of ``args`` (None: an absent optional operand); those from index
    ``cast_from`` on are promoted to the common dtype (``where`` never casts its condition).

    Usually numpy's layout already is PyTorch's, and a quick test finds that out without sorting:
    each operand has the output's strides (where it is not broadcast, the same order), or the output is
    C-contiguous and each operand's stepping dims are in C order (when the output has no size-0/1 dims,
    where the rules get subtle). Otherwise the result is
    restrided (when only dims of size 0 or 1 differ: no copy) or copied into PyTorch's layout.
    """
    shape = out.shape
    operands = args[:n]
    if 1 not in shape and 0 not in shape:
        own = out.strides
        for a in operands:
            if (type(a) is CPU_ARRAY or is_array(a)) and a.strides != own and a.ndim and not (
                    out.flags.c_contiguous and (a.flags.c_contiguous or _c_ordered(a))):
                break
        else:
            return out
    operands = [a for a in operands if a is not None]
    return relayout(out, iterator_strides(shape, operands, _common_dtype(out, operands[cast_from:]), cast_from))


def _common_dtype(out, operands):
    """The dtype TensorIterator computes in: the result's, except for a bool result of non-bool inputs
    (comparisons, logical ops, isinf, signbit), which test the inputs in their promoted dtype: nothing
    is cast to bool first, so no operand is replaced by a cast copy with its own layout."""
    if out.dtype != np.bool_ or not operands:
        return out.dtype
    from ._dtype import result_type_of
    return result_type_of(*operands).np


def _c_ordered(a):
    """Do the dims of ``a`` that step (size > 1, stride not 0) come in C order? Then ``a`` (a broadcast
    gradient, an expanded bias) asks TensorIterator for nothing but C order."""
    last = None
    for size, stride in zip(a.shape, a.strides):
        if size > 1 and stride:
            if last is not None and stride >= last:
                return False
            last = stride
    return True


# ---------------------------------------------------------------------- shapes: broadcasting, messages

def shape_str(shape):
    """A shape as PyTorch writes it in its messages: [2, 3]."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def broadcast_shapes_or_raise(a, b):
    """The broadcast shape of two shapes, or PyTorch's RuntimeError naming the clashing dim."""
    n = max(len(a), len(b))
    out = []
    for i in range(-1, -n - 1, -1):
        x = a[i] if -i <= len(a) else 1
        y = b[i] if -i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            err = RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {n + i}")
            if hasattr(err, "add_note"):   # Python 3.11+: shown under the message, which stays PyTorch's
                err.add_note(f"shapes {shape_str(a)} and {shape_str(b)} line up from the right; to see it: "
                             f"pedatorch.viz.broadcast({tuple(a)}, {tuple(b)})")
            raise err
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


# ---------------------------------------------------------------------- memory overlap

def _overlap(dst, src):
    """ATen's ``get_overlap_status`` of two arrays: "full" (the same array, even an empty one, or the same
    elements in the same order), "partial", or None (none, or too hard to tell: a non-dense one)."""
    if dst is src:
        return "full"
    if dst.base is None and src.base is None:
        return None   # (two arrays that own their memory: the usual case, decided at once)
    if dst.size == 0 or src.size == 0 or storage_root(dst) is not storage_root(src):
        return None
    for a in (dst, src):
        if not _is_non_overlapping_and_dense(a.shape, [st // a.itemsize for st in a.strides]):
            return None
    a0, b0 = address(dst), address(src)
    a1, b1 = a0 + dst.size * dst.itemsize, b0 + src.size * src.itemsize
    if (a0, a1) == (b0, b1):   # (equal ranges with other strides, even only a size-1 dim's, are partial)
        return "full" if dst.strides == src.strides else "partial"
    return "partial" if a0 < b1 and b0 < a1 else None


def _refuse_overlap():
    raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the "
                       "operation.")


def partially_overlaps(dst, src):
    """Does ``src`` share part of ``dst``'s memory (ATen's MemOverlapStatus::Partial)?"""
    return _overlap(dst, src) == "partial"


def check_no_partial_overlap(dst, src):
    """PyTorch's refusal to write ``dst`` from an input sharing part of its memory (ATen's
    ``assert_no_partial_overlap``); the same elements in the same order, and overlaps too hard to tell
    (a non-dense one), pass, as in PyTorch."""
    if partially_overlaps(dst, src):
        _refuse_overlap()


def check_no_input_overlap(dst, inputs):
    """TensorIterator's check before an in-place op writes ``dst``: no input (array or Tensor; numbers
    pass) may share only part of its memory, as in ``x *= x.T``, where PyTorch's loop would read elements
    it has already overwritten."""
    for a in inputs:
        a = getattr(a, "_data", a)
        if a is not dst and is_array(a):
            check_no_partial_overlap(dst, a)


def check_no_overlap(dst, src):
    """ATen's ``assert_no_overlap`` (index_put_ with its values and indices): a full overlap is refused
    too, as ``x[idx] = x`` is."""
    if _overlap(dst, src) is not None:
        _refuse_overlap()


# ---------------------------------------------------------------------- gradients of leaves

def _grad_strides(var):
    """PyTorch's gradient layout contract: a leaf's ``.grad`` has the leaf's strides when the leaf is
    non-overlapping and dense, else contiguous strides."""
    strides = [st // var.itemsize for st in var.strides]
    if _is_non_overlapping_and_dense(var.shape, strides):
        return tuple(strides)
    return _contiguous_strides(var.shape)


def obeys_grad_layout(grad, var):
    """Whether array ``grad`` may become leaf ``var``'s ``.grad`` as it is (strides of size-1 dims aside)."""
    if grad.flags.c_contiguous and var.flags.c_contiguous:
        return True   # the usual case, quickly
    want = _grad_strides(var)
    return all(g // grad.itemsize == w or n <= 1 for g, w, n in zip(grad.strides, want, var.shape))


def copy_like_leaf(grad, var):
    """A copy of ``grad`` laid out by the gradient layout contract for leaf ``var``."""
    xp = namespace(grad)
    new = _empty_strided(var.shape, _grad_strides(var), grad.dtype, xp)
    xp.copyto(new, grad)
    return new
